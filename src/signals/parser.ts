// The incremental signal parser (docs/signals.md). Fed raw chunks of one stream; skips the lines
// that cannot matter (quiet-lines.ts: a SIMD WebAssembly scan, or a native byte search where
// WebAssembly is missing) and looks closely only at the few that can (those that start with '#',
// 'L', a fence character, or hold an observation). A chunk is copied once into the scanner's
// memory; beyond that only a line split across chunks is kept, in one bounded buffer.
import { DEFAULTS, LOOP_COMPLETE_LINE, type SignalClass, type SignalName } from '../contract.js';
import { closesFence, fenceOpening, type OpenFence } from './fence.js';
import { classifySignal } from './grammar.js';
import { byFirstByte, NeedleCursor } from './needle.js';
import { skipQuietLines, skipQuietLinesWasm, type LineSkip } from './quiet-lines.js';
import { createWasmLineScan, SCAN_CAPACITY, TAG } from './wasm-line-scan.js';
import { parseObservation, type ObservationRecord } from './observation.js';
import { APOS, BACKTICK, CR, GT, HASH, LF, LT, QUOTE, SLASH, SPACE, TAB, TILDE } from './bytes.js';

export type IgnoredWhy = 'inside a code fence' | 'inside an observation';

export type ParserEvent =
  | { type: 'signal'; line: number; name: SignalName; class: SignalClass; args: string[] }
  | { type: 'claim'; line: number; name: typeof LOOP_COMPLETE_LINE }
  | { type: 'malformed'; line: number; text: string; why: string }
  | { type: 'ignored'; line: number; text: string; why: IgnoredWhy; name: string; args: string[] }
  | { type: 'observation'; line: number; record: ObservationRecord };

export interface SignalParserOptions {
  /** Longer lines are cut: the rest is counted, not kept, and the line is never a signal. */
  maxLineBytes?: number;
  /** An observation element longer than this is recorded as invalid. */
  maxObservationBytes?: number;
}

const OPEN_TAG = Buffer.from(TAG);
const findOpenTagJs = byFirstByte(OPEN_TAG);
const CLOSE_TAG = Buffer.from('</observation>');
const LOOP_COMPLETE = Buffer.from(LOOP_COMPLETE_LINE);
const LOOP_L = LOOP_COMPLETE[0]!;

interface OpenObservation {
  line: number;
  /** Its text so far, when it is not all in `src`, and that text's length. */
  parts: Buffer[];
  bytes: number;
  dropped: number;
  /**
   * While the element lies whole and unbroken in the chunk being read, it is kept as a range of
   * that chunk, [from, to), not copied: most elements open and close within one chunk.
   */
  src: Buffer | undefined;
  from: number;
  to: number;
  inStartTag: boolean;
  quote: number;
  prev: number;
}

type Candidate =
  | { kind: 'signal'; name: SignalName; class: SignalClass; args: string[]; text: string }
  | { kind: 'claim'; text: string }
  | { kind: 'malformed'; why: string; text: string };

export class SignalParser {
  private readonly maxLine: number;
  private readonly maxObservation: number;
  private carry: Buffer = Buffer.alloc(0);
  private carryLen = 0;
  private carryDropped = 0;
  private lineNo = 1;
  private fence: OpenFence | undefined;
  private observation: OpenObservation | undefined;
  private readonly wasm = createWasmLineScan();
  /** The next `<observation` in a chunk (with the scanner, chunks are views of its memory from 0). */
  private readonly findOpenTag = (buf: Buffer, from: number): number =>
    this.wasm ? this.wasm.findTag(from, buf.length) : findOpenTagJs(buf, from);
  private readonly opens = new NeedleCursor(OPEN_TAG, this.findOpenTag);
  private readonly closes = new NeedleCursor(CLOSE_TAG);
  private readonly skip: LineSkip = { lines: 0, lineEnd: -1 };
  /** Lines longer than the bound, and bytes dropped from them. */
  cutLines = 0;
  cutBytes = 0;

  constructor(
    private readonly onEvent: (event: ParserEvent) => void,
    options: SignalParserOptions = {},
  ) {
    this.maxLine = options.maxLineBytes ?? DEFAULTS.maxLineBytes;
    this.maxObservation = options.maxObservationBytes ?? DEFAULTS.maxLineBytes;
  }

  /** Number of the line being read (1-based). */
  get currentLine(): number {
    return this.lineNo;
  }

  push(chunk: Uint8Array | string): void {
    const buf =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const wasm = this.wasm;
    if (!wasm) {
      this.pushBuffer(buf);
      return;
    }
    // Copied into the scanner's memory, in pieces it can hold; nothing keeps a reference to the
    // scratch once pushBuffer returns (split lines and observations are copied out).
    for (let at = 0; at < buf.length; at += SCAN_CAPACITY) {
      const n = Math.min(SCAN_CAPACITY, buf.length - at);
      buf.copy(wasm.scratch, 0, at, at + n);
      this.pushBuffer(n === SCAN_CAPACITY ? wasm.scratch : wasm.scratch.subarray(0, n));
    }
  }

  /**
   * For a caller that reads the stream itself: a buffer to read the next chunk into, which saves
   * push() its copy. Valid until the next call into the parser; hand the bytes over with
   * pushFilled(). At most `size` bytes long.
   */
  fillBuffer(size: number): Buffer {
    const wasm = this.wasm;
    if (wasm) return size >= SCAN_CAPACITY ? wasm.scratch : wasm.scratch.subarray(0, size);
    if (this.own === undefined || this.own.length < size) this.own = Buffer.allocUnsafe(size);
    return this.own.length === size ? this.own : this.own.subarray(0, size);
  }

  /** The first `n` bytes of the buffer fillBuffer() gave are the stream's next chunk. */
  pushFilled(n: number): void {
    if (n === 0) return;
    const filled = this.wasm ? this.wasm.scratch : this.own!;
    this.pushBuffer(n === filled.length ? filled : filled.subarray(0, n));
  }

  private own: Buffer | undefined;

  private pushBuffer(buf: Buffer): void {
    this.opens.forget();
    this.closes.forget();
    const len = buf.length;
    const maxLine = this.maxLine;
    let pos = 0;
    if (this.carryLen > 0 || this.carryDropped > 0) {
      const nl = buf.indexOf(LF, 0);
      if (nl === -1) {
        this.keep(buf, 0, len);
        return;
      }
      this.keep(buf, 0, nl);
      this.endCarriedLine();
      this.lineNo++;
      pos = nl + 1;
    }
    // Where the next `<observation` of this chunk is (len: none); -1: not looked for yet.
    let openAt = -1;
    const skip = this.skip;
    while (pos < len) {
      let nl: number;
      if (this.observation === undefined) {
        // Outside a fence an observation may open; inside one only the fence's end matters.
        let stop = len;
        if (this.fence === undefined) {
          if (openAt < pos) {
            openAt = this.findOpenTag(buf, pos);
            if (openAt === -1) openAt = len;
          }
          stop = openAt;
        }
        pos = this.wasm ? skipQuietLinesWasm(this.wasm, buf, pos, stop, maxLine, skip) : skipQuietLines(buf, pos, stop, maxLine, skip);
        this.lineNo += skip.lines;
        nl = skip.lineEnd;
      } else if (this.wasm && this.observation.src === buf && this.observation.to === pos && !this.observation.inStartTag) {
        // Inside an element kept as a range of this chunk: the lines before the one with its
        // closing tag need no closer look unless they start like a signal (reported as ignored),
        // and the range just grows over them. The bound on its size stops the skip too.
        const obs = this.observation;
        const close = this.closes.find(buf, pos, len);
        const stop = Math.min(close === -1 ? len : close, obs.from + this.maxObservation);
        pos = skipQuietLinesWasm(this.wasm, buf, pos, stop, maxLine, skip);
        this.lineNo += skip.lines;
        nl = skip.lineEnd;
        obs.to = pos;
      } else {
        nl = buf.indexOf(LF, pos);
      }
      if (nl === -1) break;
      if (nl - pos > maxLine && !(nl - pos === maxLine + 1 && buf[nl - 1] === CR)) {
        this.countCut(nl - pos - maxLine);
        this.readLine(buf, pos, pos + maxLine, true, true);
      } else {
        this.readLine(buf, pos, nl, false, true);
      }
      this.lineNo++;
      pos = nl + 1;
    }
    if (pos < len) this.keep(buf, pos, len);
    if (this.observation) this.copyOutObservation();
  }

  /** The stream is over: the last line (if unterminated) is read, and open elements are closed. */
  end(): void {
    if (this.carryLen > 0 || this.carryDropped > 0) {
      this.endCarriedLine();
      this.lineNo++;
    }
    if (this.observation) {
      const raw = this.observationText();
      const line = this.observation.line;
      this.observation = undefined;
      this.onEvent({
        type: 'observation',
        line,
        record: {
          valid: false, type: null, severity: null, title: null, detail: null, file: null, action: null,
          raw,
          error: 'the <observation> element was not closed before the output ended',
        },
      });
    }
    this.fence = undefined;
  }

  /** A new iteration: line numbers, fences and observations start over. */
  reset(): void {
    this.carryLen = 0;
    this.carryDropped = 0;
    this.lineNo = 1;
    this.fence = undefined;
    this.observation = undefined;
    this.cutLines = 0;
    this.cutBytes = 0;
  }

  private countCut(bytes: number): void {
    this.cutLines++;
    this.cutBytes += bytes;
  }

  /** Keeps [start, end) of a line that continues in a later chunk, up to the line bound. */
  private keep(buf: Buffer, start: number, end: number): void {
    // One byte more than the bound: room for the CR of a CRLF line end.
    const room = this.maxLine + 1 - this.carryLen;
    const take = Math.min(room, end - start);
    if (take > 0) {
      if (this.carry.length < this.carryLen + take) {
        const grown = Buffer.allocUnsafe(Math.min(this.maxLine + 1, Math.max(this.carryLen + take, this.carry.length * 2, 256)));
        this.carry.copy(grown, 0, 0, this.carryLen);
        this.carry = grown;
      }
      buf.copy(this.carry, this.carryLen, start, start + take);
      this.carryLen += take;
    }
    this.carryDropped += end - start - Math.max(take, 0);
  }

  private endCarriedLine(): void {
    const cut = this.carryDropped > 0 || (this.carryLen > this.maxLine && this.carry[this.maxLine] !== CR);
    if (cut) this.countCut(this.carryLen + this.carryDropped - this.maxLine);
    this.readLine(this.carry, 0, cut ? this.maxLine : this.carryLen, cut, false);
    this.carryLen = 0;
    this.carryDropped = 0;
  }

  /** One line [start, end) of `buf`, without its LF. `inChunk`: buf is the chunk itself, not the carry. */
  private readLine(buf: Buffer, start: number, end: number, cut: boolean, inChunk: boolean): void {
    let first = start;
    while (first < end && (buf[first] === SPACE || buf[first] === TAB)) first++;

    if (this.observation) {
      this.observationLine(buf, start, first, end, cut, inChunk);
      return;
    }
    if (this.fence) {
      if (first < end && closesFence(buf, start, first, end, this.fence)) {
        this.fence = undefined;
      } else if (!cut) {
        this.reportIgnored(buf, first, end, 'inside a code fence');
      }
      return;
    }
    if (first === end) return;
    const b = buf[first];
    if (b === BACKTICK || b === TILDE) {
      const fence = fenceOpening(buf, start, first, end);
      if (fence) {
        this.fence = fence;
        return;
      }
    } else if (!cut && (b === HASH || b === LOOP_L)) {
      const candidate = this.candidate(buf, first, end);
      if (candidate) {
        this.report(candidate);
        return;
      }
    }
    this.scanForObservation(buf, start, end, inChunk);
  }

  /** A line that, trimmed, may be a signal or the LOOP_COMPLETE claim. */
  private candidate(buf: Buffer, first: number, end: number): Candidate | undefined {
    let last = end;
    while (last > first && (buf[last - 1] === SPACE || buf[last - 1] === TAB || buf[last - 1] === CR)) last--;
    const n = last - first;
    if (buf[first] === HASH) {
      if (n < 6 || buf[first + 1] !== HASH || buf[first + 2] !== HASH) return undefined;
      if (buf[last - 1] !== HASH || buf[last - 2] !== HASH || buf[last - 3] !== HASH) return undefined;
      const text = buf.toString('utf8', first, last);
      const verdict = classifySignal(text.slice(3, -3));
      return verdict.kind === 'signal' ? { ...verdict, text } : { kind: 'malformed', why: verdict.why, text };
    }
    if (n === LOOP_COMPLETE.length && LOOP_COMPLETE.equals(buf.subarray(first, last))) {
      return { kind: 'claim', text: LOOP_COMPLETE_LINE };
    }
    return undefined;
  }

  private report(c: Candidate): void {
    const line = this.lineNo;
    if (c.kind === 'signal') this.onEvent({ type: 'signal', line, name: c.name, class: c.class, args: c.args });
    else if (c.kind === 'claim') this.onEvent({ type: 'claim', line, name: LOOP_COMPLETE_LINE });
    else this.onEvent({ type: 'malformed', line, text: c.text, why: c.why });
  }

  private reportIgnored(buf: Buffer, first: number, end: number, why: IgnoredWhy): void {
    if (first === end || (buf[first] !== HASH && buf[first] !== LOOP_L)) return;
    const c = this.candidate(buf, first, end);
    if (!c || c.kind === 'malformed') return;
    this.onEvent({
      type: 'ignored',
      line: this.lineNo,
      text: c.text,
      why,
      name: c.kind === 'signal' ? c.name : LOOP_COMPLETE_LINE,
      args: c.kind === 'signal' ? c.args : [],
    });
  }

  /** Looks for `<observation` in [from, end) and, if found, starts collecting the element. */
  private scanForObservation(buf: Buffer, from: number, end: number, inChunk: boolean): void {
    let at = from;
    while (at < end) {
      const open = inChunk ? this.opens.find(buf, at, end) : indexIn(buf, OPEN_TAG, at, end);
      if (open === -1) return;
      const next = open + OPEN_TAG.length;
      const after = next < end ? buf[next] : LF;
      if (!(after === SPACE || after === TAB || after === GT || after === SLASH || after === CR || after === LF)) {
        at = next;
        continue;
      }
      this.observation = {
        line: this.lineNo, parts: [], bytes: 0, dropped: 0,
        src: inChunk ? buf : undefined, from: open, to: open,
        inStartTag: true, quote: 0, prev: 0,
      };
      if (!this.collectUntilClose(buf, open, end, inChunk)) return;
      at = this.afterClose;
    }
  }

  private afterClose = 0;

  /** Adds [from, end) to the open observation; true (with afterClose set) when its closing tag is there. */
  private collectUntilClose(buf: Buffer, from: number, end: number, inChunk: boolean): boolean {
    const obs = this.observation!;
    let searchFrom = from;
    if (obs.inStartTag) {
      const gt = this.endOfStartTag(buf, from, end);
      if (gt === -1) {
        this.collect(buf, from, end, true);
        return false;
      }
      if (obs.prev === SLASH) {
        // `<observation .../>`: the element is complete; what follows is outside it.
        this.afterClose = gt + 1;
        this.collect(buf, from, this.afterClose, false);
        this.finishObservation();
        return true;
      }
      searchFrom = gt + 1;
    }
    const close = inChunk ? this.closes.find(buf, searchFrom, end) : indexIn(buf, CLOSE_TAG, searchFrom, end);
    if (close === -1) {
      this.collect(buf, from, end, true);
      return false;
    }
    this.afterClose = close + CLOSE_TAG.length;
    this.collect(buf, from, this.afterClose, false);
    this.finishObservation();
    return true;
  }

  /** The `>` that ends the open observation's start tag in [from, end), skipping quoted values; or -1. */
  private endOfStartTag(buf: Buffer, from: number, end: number): number {
    const obs = this.observation!;
    for (let i = from; i < end; i++) {
      const b = buf[i]!;
      if (obs.quote !== 0) {
        if (b === obs.quote) obs.quote = 0;
      } else if (b === QUOTE || b === APOS) {
        obs.quote = b;
      } else if (b === GT) {
        obs.inStartTag = false;
        return i;
      }
      obs.prev = b;
    }
    obs.prev = LF;
    return -1;
  }

  private observationLine(buf: Buffer, start: number, first: number, end: number, cut: boolean, inChunk: boolean): void {
    if (this.collectUntilClose(buf, start, end, inChunk)) {
      this.scanForObservation(buf, this.afterClose, end, inChunk);
    } else if (!cut) {
      this.reportIgnored(buf, first, end, 'inside an observation');
    }
  }

  private collect(buf: Buffer, from: number, to: number, newline: boolean): void {
    const obs = this.observation!;
    if (obs.src !== undefined) {
      // Still one unbroken range of the chunk: the newline added is the LF that is there.
      const next = to + (newline ? 1 : 0);
      if (buf === obs.src && from === obs.to && (!newline || buf[to] === LF) && next - obs.from <= this.maxObservation) {
        obs.to = next;
        return;
      }
      this.copyOutObservation();
    }
    const room = this.maxObservation - obs.bytes;
    const take = Math.min(room, to - from);
    if (take > 0) {
      obs.parts.push(Buffer.from(buf.subarray(from, from + take)));
      obs.bytes += take;
    }
    obs.dropped += to - from - Math.max(take, 0);
    if (newline && obs.bytes < this.maxObservation) {
      obs.parts.push(NEWLINE);
      obs.bytes++;
    }
  }

  /** The open element's range of the chunk becomes a copy: the chunk is about to be reused. */
  private copyOutObservation(): void {
    const obs = this.observation!;
    if (obs.src === undefined) return;
    if (obs.to > obs.from) obs.parts.push(Buffer.from(obs.src.subarray(obs.from, obs.to)));
    obs.bytes = obs.to - obs.from;
    obs.src = undefined;
  }

  private observationText(): string {
    const obs = this.observation!;
    if (obs.src !== undefined) return obs.src.toString('utf8', obs.from, obs.to);
    return Buffer.concat(obs.parts).toString('utf8');
  }

  private finishObservation(): void {
    const obs = this.observation!;
    const raw = this.observationText();
    this.observation = undefined;
    const record: ObservationRecord =
      obs.dropped > 0
        ? {
            valid: false, type: null, severity: null, title: null, detail: null, file: null, action: null,
            raw,
            error: `the <observation> element is longer than ${this.maxObservation} bytes`,
          }
        : parseObservation(raw);
    this.onEvent({ type: 'observation', line: obs.line, record });
  }
}

const NEWLINE = Buffer.from('\n');


function indexIn(buf: Buffer, needle: Buffer, start: number, end: number): number {
  const at = buf.indexOf(needle, start);
  return at !== -1 && at + needle.length <= end ? at : -1;
}

export function createSignalParser(onEvent: (event: ParserEvent) => void, options?: SignalParserOptions): SignalParser {
  return new SignalParser(onEvent, options);
}
