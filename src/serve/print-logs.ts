// `ralph logs`: a run's transcripts through the same TranscriptReader as the page, as plain text
// lines; with `follow`, new output as it arrives until the run ends. Reads each file a bounded
// piece at a time.
import { readdirSync, watch, type FSWatcher } from 'node:fs';
import type { RunPaths } from '../runs/paths.js';
import { loadState } from '../runs/run-state.js';
import { viewRun } from '../runs/run-view.js';
import { GrowingFile, LineFollower } from './growing-file.js';
import { emptyDigest, foldLines } from './run-digest.js';
import { isStreamFormat, TranscriptReader, type TranscriptItem } from './transcript-items.js';

export function formatItem(item: TranscriptItem): string {
  switch (item.kind) {
    case 'words':
      return `${item.text}\n`;
    case 'tool':
      return `▸ ${item.text}\n`;
    case 'output':
      return `${item.text
        .split('\n')
        .map((l) => `  │ ${l}`)
        .join('\n')}\n`;
    case 'note':
      return `  ${item.text}\n`;
    default: {
      const never: never = item.kind;
      throw new Error(`unknown item ${String(never)}`);
    }
  }
}

function iterationsOf(paths: RunPaths): number[] {
  try {
    return readdirSync(paths.iterations)
      .map((n) => /^(\d+)\.log$/.exec(n)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

export interface PrintLogsOptions {
  iteration?: number;
  follow: boolean;
  /** Ends a follow early (tests; Ctrl+C otherwise). */
  signal?: AbortSignal;
}

export async function printLogs(paths: RunPaths, o: PrintLogsOptions, write: (s: string) => void): Promise<void> {
  const digest = emptyDigest();
  const events = new LineFollower(paths.events);
  const formatNow = () => {
    foldLines(digest, events.readLines());
    const f = digest.streamFormat ?? loadState(paths.state)?.settings?.streamFormat;
    return isStreamFormat(f) ? f : 'text';
  };
  let current: { n: number; file: GrowingFile; reader: TranscriptReader } | null = null;
  const open = (n: number) => {
    if (current) for (const item of current.reader.end()) write(formatItem(item));
    write(`── iteration ${n} ──\n`);
    current = { n, file: new GrowingFile(paths.transcript(n)), reader: new TranscriptReader(formatNow()) };
  };
  const drain = () => {
    const wanted = o.iteration !== undefined ? [o.iteration] : iterationsOf(paths);
    for (const n of wanted) {
      if (current && n < current.n) continue;
      if (!current || n > current.n) open(n);
      const c = current!;
      for (;;) {
        const bytes = c.file.read();
        if (bytes.length === 0) break;
        for (const item of c.reader.push(bytes)) write(formatItem(item));
      }
    }
  };
  const ended = () => {
    const h = viewRun(paths).health;
    return h !== 'running' && h !== 'stale';
  };
  drain();
  if (o.follow && !ended()) {
    await new Promise<void>((done) => {
      const watchers: FSWatcher[] = [];
      let timer: NodeJS.Timeout | null = null;
      const finish = () => {
        for (const w of watchers) w.close();
        clearInterval(backstop);
        if (timer) clearTimeout(timer);
        process.off('SIGINT', finish);
        o.signal?.removeEventListener('abort', finish);
        done();
      };
      const step = () => {
        timer = null;
        drain();
        if (ended()) {
          drain();
          finish();
        }
      };
      const soon = () => {
        timer ??= setTimeout(step, 50);
      };
      for (const dir of [paths.dir, paths.iterations]) {
        try {
          watchers.push(watch(dir, { persistent: false }, soon));
        } catch {
          // iterations/ not made yet: the backstop reads it once it is
        }
      }
      const backstop = setInterval(soon, 1_000);
      process.once('SIGINT', finish);
      o.signal?.addEventListener('abort', finish);
    });
  }
  if (current) for (const item of (current as { reader: TranscriptReader }).reader.end()) write(formatItem(item));
}
