// One run followed for its page (and for `ralph logs --follow`): the digest of its events.jsonl
// (timeline, findings, warnings), and the transcript of its current iteration (or a chosen one)
// from its last bytes on, as items. Driven by changes to the run's folders (fs.watch), with a
// slow check as a backstop; reads only what was added since the last read, a bounded piece at
// a time, so a 10 MB line or a fast agent costs bounded memory.
import { existsSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { EventEmitter } from 'eventemitter3';
import type { RunPaths } from '../runs/paths.js';
import { loadState } from '../runs/run-state.js';
import { GrowingFile, LineFollower } from './growing-file.js';
import { emptyDigest, foldLines, type RunDigest } from './run-digest.js';
import { isStreamFormat, TranscriptReader, type TranscriptItem } from './transcript-items.js';

/** How much of a transcript is shown when a page opens it, and read per change at most. */
const TAIL_BYTES = 64 * 1024;
/** Behind by more than this, the follower skips to the last TAIL_BYTES (with a note). */
const CATCH_UP_BYTES = 512 * 1024;

export interface TranscriptPiece {
  iteration: number;
  /** True when the page should start over (a new iteration, or a skip ahead). */
  reset: boolean;
  items: TranscriptItem[];
}

type Events = { digest: [RunDigest]; transcript: [TranscriptPiece] };

export interface FollowOptions {
  /** Follow this iteration's transcript instead of the newest. */
  iteration?: number;
  settleMs?: number;
  backstopMs?: number;
}

export class RunFollower extends EventEmitter<Events> {
  readonly digest: RunDigest = emptyDigest();
  private readonly events: LineFollower;
  private log: { iteration: number; file: GrowingFile; reader: TranscriptReader } | null = null;
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly backstop: NodeJS.Timeout;
  private closed = false;
  private readonly settleMs: number;

  constructor(
    readonly paths: RunPaths,
    private readonly o: FollowOptions = {},
  ) {
    super();
    this.settleMs = o.settleMs ?? 50;
    this.events = new LineFollower(paths.events);
    this.watch(paths.dir);
    this.watch(paths.iterations);
    this.backstop = setInterval(() => this.update(), o.backstopMs ?? 5_000);
    this.backstop.unref();
  }

  /** Reads what is there now and emits it (the first call gives the whole digest and the tail). */
  start(): void {
    this.update();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.backstop);
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.watchers) w.close();
    this.removeAllListeners();
  }

  private watch(dir: string): void {
    try {
      const w = watch(dir, { persistent: false }, () => this.soon());
      w.on('error', () => w.close());
      this.watchers.push(w);
    } catch {
      // not there yet (iterations/ before the first iteration): the backstop and the run folder's watch find it
    }
  }

  private soon(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.update();
    }, this.settleMs);
  }

  private update(): void {
    if (this.closed) return;
    if (this.watchers.length < 2 && existsSync(this.paths.iterations)) this.watch(this.paths.iterations);
    if (foldLines(this.digest, this.events.readLines()) || this.digestSent === false) {
      this.digestSent = true;
      this.emit('digest', this.digest);
    }
    this.readTranscript();
  }

  private digestSent = false;

  private readTranscript(): void {
    const want = this.o.iteration ?? newestIteration(this.paths);
    if (want === null) return;
    let reset = false;
    const items: TranscriptItem[] = [];
    if (!this.log || this.log.iteration !== want) {
      const file = new GrowingFile(this.paths.transcript(want), TAIL_BYTES);
      const reader = new TranscriptReader(this.format());
      this.log = { iteration: want, file, reader };
      reset = true;
      const { bytes, skipped } = file.readTail(TAIL_BYTES);
      if (skipped > 0) items.push({ kind: 'note', text: `[${skipped} earlier bytes of iteration ${want} not shown: ralph logs prints them all]` });
      items.push(...reader.push(dropTornStart(bytes, skipped > 0)));
    }
    const log = this.log;
    // Bounded per change: far behind, skip to the last piece rather than read the gap.
    for (let i = 0; i < CATCH_UP_BYTES / TAIL_BYTES; i++) {
      const bytes = log.file.read();
      if (bytes.length === 0) break;
      items.push(...log.reader.push(bytes));
      if (!log.file.behind) break;
    }
    if (log.file.behind) {
      const { bytes, skipped } = log.file.readTail(TAIL_BYTES);
      log.reader = new TranscriptReader(this.format());
      reset = true;
      items.length = 0;
      items.push({ kind: 'note', text: `[output arrived faster than shown: skipped to the last ${TAIL_BYTES} bytes (at byte ${skipped})]` });
      items.push(...log.reader.push(dropTornStart(bytes, true)));
    }
    if (reset || items.length > 0) this.emit('transcript', { iteration: want, reset, items });
  }

  private format() {
    const f = this.digest.streamFormat ?? loadState(this.paths.state)?.settings?.streamFormat;
    return isStreamFormat(f) ? f : 'text';
  }
}

/** A tail read from the middle of a file starts inside a line: that part is dropped. */
function dropTornStart(bytes: Buffer, torn: boolean): Buffer {
  if (!torn) return bytes;
  const nl = bytes.indexOf(0x0a);
  return nl === -1 ? Buffer.alloc(0) : bytes.subarray(nl + 1);
}

export function newestIteration(paths: RunPaths): number | null {
  try {
    const ns = readdirSync(paths.iterations)
      .map((n) => /^(\d+)\.log$/.exec(n)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number);
    return ns.length ? Math.max(...ns) : null;
  } catch {
    return null;
  }
}
