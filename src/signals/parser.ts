// The incremental signal parser (docs/signals.md, docs/parser.md). Fed raw chunks of one stream;
// skips the lines that cannot matter (quiet-lines.ts: one native search for each line end) and
// looks closely only at the few that can (those that start with '#', 'L', a fence character, end
// like a signal, or hold an observation). Chunks are read where they lie, never copied; only a
// line split across chunks is kept, in one bounded buffer.
import { DEFAULTS, LOOP_COMPLETE_LINE, type NearMissReason, type SignalClass, type SignalName } from '../contract.js';
import { closesFence, fenceOpening, type OpenFence } from './fence.js';
import { classifySignal } from './grammar.js';
import { byFirstByte, NeedleCursor } from './needle.js';
import { boundText, nearMiss, unclosedNearMiss } from './near-miss.js';
import { nearMissShaped, skipQuietLines, type LineSkip } from './quiet-lines.js';
import { parseObservation, type ObservationRecord } from './observation.js';
import { APOS, BACKTICK, CR, GT, HASH, LF, QUOTE, SLASH, SPACE, TAB, TILDE } from './bytes.js';

export type IgnoredWhy = 'inside a code fence' | 'inside an observation';

export type ParserEvent =
  | { type: 'signal'; line: number; name: SignalName; class: SignalClass; args: string[] }
  | { type: 'claim'; line: number; name: typeof LOOP_COMPLETE_LINE }
  | { type: 'malformed'; line: number; text: string; why: string }
  | { type: 'ignored'; line: number; text: string; why: IgnoredWhy; name: string; args: string[] }
  | { type: 'observation'; line: number; record: ObservationRecord }
  /**
   * A line that carries a signal but is not one; never acted on. `text`: the line, trimmed and
   * bounded; `correct`: the line to write instead (see NearMissVerdict). Reported after the line's
   * own event when it has one (malformed), and for signals ignored inside a fence or observation
   * left open, when the output (end()) or the message (resetBlocks()) ends.
   */
  | { type: 'near_miss'; line: number; text: string; reason: NearMissReason; hint: string; correct: string | null };

export interface SignalParserOptions {
  /** Longer lines are cut: the rest is counted, not kept, and the line is never a signal. */
  maxLineBytes?: number;
  /** An observation element longer than this is recorded as invalid. */
  maxObservationBytes?: number;
}

// '<' is common in agents' output (stack traces, generics), "<o" much less: see needle.ts.
const OPEN_TAG = Buffer.from('<observation');
const CLOSE_TAG = Buffer.from('</observation>');
const LOOP_COMPLETE = Buffer.from(LOOP_COMPLETE_LINE);
const LOOP_L = LOOP_COMPLETE[0]!;
/** Signals ignored inside an open fence or observation, kept (the last ones) in case it never closes. */
const PENDING_MAX = 16;

interface Ignored {
  line: number;
  text: string;
  /** The signal's name; undefined for the LOOP_COMPLETE claim. */
  name: SignalName | undefined;
  args: string[];
}

interface OpenObservation {
  line: number;
  /** Its text so far, when it is not all in `src`, and that text's length. */
  parts: Buffer[];
  bytes: number;
  dropped: number;
  /** A line inside it was longer than the line bound: its end (maybe the closing tag) was never seen. */
  cut?: boolean;
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
  private readonly opens = new NeedleCursor(OPEN_TAG, byFirstByte(OPEN_TAG));
  private readonly closes = new NeedleCursor(CLOSE_TAG);
  /** Line where the open fence started. */
  private fenceLine = 0;
  /** Signals ignored in the open fence or observation. */
  private pending: Ignored[] = [];
  private readonly skip: LineSkip = { lines: 0, cr: 0 };
  /** The first CR at or after where reading is in the current chunk (its length: none); -1: not looked for. */
  private cr = -1;
  /** Whether the last byte carried (kept or dropped) is a CR. */
  private carryEndsInCR = false;
  /** The byte that ended the line being read: LF, or a lone CR. */
  private lineEndByte = LF;
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

  /**
   * The stream's next chunk. It is read before push() returns and never kept: the caller may
   * reuse its buffer for the next chunk.
   */
  push(chunk: Uint8Array | string): void {
    const buf =
      typeof chunk === 'string'
        ? Buffer.from(chunk, 'utf8')
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.pushBuffer(buf);
  }

  private pushBuffer(buf: Buffer): void {
    const len = buf.length;
    // Nothing to read, and nothing to decide: a carried CR still waits for its next byte.
    if (len === 0) return;
    this.opens.forget();
    this.closes.forget();
    this.cr = -1;
    const maxLine = this.maxLine;
    let pos = 0;
    if (this.carryLen > 0 || this.carryDropped > 0) {
      if (this.carryEndsInCR) {
        // The carried line ended with a CR: with this chunk's first byte it is a CRLF, or else
        // the CR alone ended it.
        if (buf[0] === LF) {
          this.lineEndByte = LF;
          pos = 1;
        } else {
          if (this.carryDropped > 0) this.carryDropped--;
          else this.carryLen--;
          this.lineEndByte = CR;
        }
      } else {
        const end = this.lineEnd(buf, 0);
        if (end === -1) {
          this.keep(buf, 0, len);
          return;
        }
        this.keep(buf, 0, end);
        this.lineEndByte = buf[end]!;
        pos = end + 1;
      }
      this.endCarriedLine();
      this.lineNo++;
    }
    // Where the next `<observation` of this chunk is (len: none); -1: not looked for yet.
    let openAt = -1;
    const skip = this.skip;
    while (pos < len) {
      if (this.observation === undefined) {
        // Outside a fence an observation may open; inside one only the fence's end matters.
        let stop = len;
        if (this.fence === undefined) {
          if (openAt < pos) openAt = orEnd(this.opens.find(buf, pos, len), len);
          stop = openAt;
        }
        skip.cr = this.nextCR(buf, pos);
        pos = skipQuietLines(buf, pos, stop, maxLine, skip);
        this.cr = skip.cr;
        this.lineNo += skip.lines;
      }
      const end = this.lineEnd(buf, pos);
      if (end === -1) break;
      this.lineEndByte = buf[end]!;
      if (end - pos > maxLine && !(end - pos === maxLine + 1 && buf[end - 1] === CR)) {
        this.countCut(end - pos - maxLine);
        this.readLine(buf, pos, pos + maxLine, true, true);
      } else {
        this.readLine(buf, pos, end, false, true);
      }
      this.lineNo++;
      pos = end + 1;
    }
    if (pos < len) this.keep(buf, pos, len);
    if (this.observation) this.copyOutObservation();
  }

  /** The first CR at or after `pos` in this chunk, or its length when there is none. */
  private nextCR(buf: Buffer, pos: number): number {
    if (this.cr < pos) {
      const at = buf.indexOf(CR, pos);
      this.cr = at === -1 ? buf.length : at;
    }
    return this.cr;
  }

  /**
   * Where the line starting at `pos` ends: its LF, or a CR that no LF follows (the CR of a CRLF is
   * part of the line, as it always was, and trimmed where it matters). -1 when the chunk ends
   * first, or ends in a CR, which may be half of a CRLF split across chunks.
   */
  private lineEnd(buf: Buffer, pos: number): number {
    const nl = buf.indexOf(LF, pos);
    const cr = this.nextCR(buf, pos);
    if (cr >= (nl === -1 ? buf.length : nl) - 1) return nl;
    return cr;
  }

  /** The stream is over: the last line (if unterminated) is read, and open elements are closed. */
  end(): void {
    this.endLastLine();
    this.closeBlocks('the output ended');
  }

  /**
   * A new assistant message starts (JSON stream formats): it starts with no open fence or
   * observation. What the last message left open is closed as at end(); line numbers go on.
   */
  resetBlocks(): void {
    this.endLastLine();
    this.closeBlocks('the message ended');
  }

  /** A line still carried, unterminated, is read as the last one. */
  private endLastLine(): void {
    if (this.carryLen > 0 || this.carryDropped > 0) {
      if (this.carryEndsInCR) {
        if (this.carryDropped > 0) this.carryDropped--;
        else this.carryLen--;
        this.lineEndByte = CR;
      } else {
        this.lineEndByte = LF;
      }
      this.endCarriedLine();
      this.lineNo++;
    }
  }

  /** An observation left open is recorded, invalid; signals ignored in what was left open are near misses. */
  private closeBlocks(ended: string): void {
    const obs = this.observation;
    if (obs) {
      const raw = this.observationText();
      // Past the size bound the closing tag may have been in what was not kept: say which limit.
      const tooLong = obs.dropped > 0 || obs.cut === true || Buffer.byteLength(raw) >= this.maxObservation;
      this.observation = undefined;
      this.onEvent({
        type: 'observation',
        line: obs.line,
        record: {
          valid: false, type: null, severity: null, title: null, detail: null, file: null, action: null,
          raw,
          error: tooLong
            ? `the <observation> element exceeded the size limit (${this.maxObservation} bytes, or a line longer than ${this.maxLine}) and was not seen to close before ${ended}`
            : `the <observation> element was not closed before ${ended}`,
        },
      });
    }
    this.fence = undefined;
    const pending = this.pending;
    this.pending = [];
    for (const p of pending) {
      const verdict = obs !== undefined ? unclosedNearMiss('observation', obs.line, p.name, p.args) : unclosedNearMiss('fence', this.fenceLine, p.name, p.args);
      this.onEvent({ type: 'near_miss', line: p.line, text: p.text, ...verdict });
    }
  }

  /** A new iteration: line numbers, fences and observations start over. */
  reset(): void {
    this.carryLen = 0;
    this.carryDropped = 0;
    this.carryEndsInCR = false;
    this.lineNo = 1;
    this.fence = undefined;
    this.observation = undefined;
    this.pending = [];
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
    if (end > start) this.carryEndsInCR = buf[end - 1] === CR;
  }

  private endCarriedLine(): void {
    const cut = this.carryDropped > 0 || (this.carryLen > this.maxLine && this.carry[this.maxLine] !== CR);
    if (cut) this.countCut(this.carryLen + this.carryDropped - this.maxLine);
    this.readLine(this.carry, 0, cut ? this.maxLine : this.carryLen, cut, false);
    this.carryLen = 0;
    this.carryDropped = 0;
    this.carryEndsInCR = false;
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
        this.pending = [];
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
        this.fenceLine = this.lineNo;
        return;
      }
    } else if (!cut && (b === HASH || b === LOOP_L)) {
      const candidate = this.candidate(buf, first, end);
      if (candidate) {
        this.report(candidate);
        return;
      }
    }
    if (!cut && nearMissShaped(buf, first, end)) this.reportNearMiss(trimmedText(buf, first, end));
    this.scanForObservation(buf, start, end, inChunk);
  }

  private reportNearMiss(text: string, malformedWhy?: string): void {
    const verdict = nearMiss(text, malformedWhy);
    if (verdict) this.onEvent({ type: 'near_miss', line: this.lineNo, text: boundText(text), ...verdict });
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
    else {
      this.onEvent({ type: 'malformed', line, text: c.text, why: c.why });
      this.reportNearMiss(c.text, c.why);
    }
  }

  private reportIgnored(buf: Buffer, first: number, end: number, why: IgnoredWhy): void {
    if (first === end || (buf[first] !== HASH && buf[first] !== LOOP_L)) return;
    const c = this.candidate(buf, first, end);
    if (!c || c.kind === 'malformed') return;
    const name = c.kind === 'signal' ? c.name : undefined;
    const args = c.kind === 'signal' ? c.args : [];
    this.pending.push({ line: this.lineNo, text: boundText(c.text), name, args });
    if (this.pending.length > PENDING_MAX) this.pending.shift();
    this.onEvent({ type: 'ignored', line: this.lineNo, text: c.text, why, name: name ?? LOOP_COMPLETE_LINE, args });
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
    if (cut) this.observation!.cut = true;
    if (this.collectUntilClose(buf, start, end, inChunk)) {
      this.scanForObservation(buf, this.afterClose, end, inChunk);
    } else if (!cut) {
      this.reportIgnored(buf, first, end, 'inside an observation');
    }
  }

  private collect(buf: Buffer, from: number, to: number, newline: boolean): void {
    const obs = this.observation!;
    if (obs.src !== undefined) {
      // Still one unbroken range of the chunk: the line end added is the one that is there.
      const next = to + (newline ? 1 : 0);
      if (buf === obs.src && from === obs.to && (!newline || buf[to] === this.lineEndByte) && next - obs.from <= this.maxObservation) {
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
      obs.parts.push(this.lineEndByte === CR ? LONE_CR : NEWLINE);
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
    this.pending = [];
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
const LONE_CR = Buffer.from('\r');


function orEnd(at: number, len: number): number {
  return at === -1 ? len : at;
}

/** [first, end) without the blanks and CR at its end, as text. */
function trimmedText(buf: Buffer, first: number, end: number): string {
  let last = end;
  while (last > first && (buf[last - 1] === SPACE || buf[last - 1] === TAB || buf[last - 1] === CR)) last--;
  return buf.toString('utf8', first, last);
}

function indexIn(buf: Buffer, needle: Buffer, start: number, end: number): number {
  const at = buf.indexOf(needle, start);
  return at !== -1 && at + needle.length <= end ? at : -1;
}

export function createSignalParser(onEvent: (event: ParserEvent) => void, options?: SignalParserOptions): SignalParser {
  return new SignalParser(onEvent, options);
}
