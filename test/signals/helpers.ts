// Feeding the parser as the loop does: chunks in, events out, end() when the stream is over.
import { SignalParser, type ParserEvent, type SignalParserOptions } from '../../src/signals/index.js';

export type Chunk = string | Uint8Array;

export interface Parsed {
  events: ParserEvent[];
  parser: SignalParser;
}

/** Pushes each chunk in order, then ends the stream. */
export function parseChunks(chunks: readonly Chunk[], options?: SignalParserOptions): Parsed {
  const events: ParserEvent[] = [];
  const parser = new SignalParser((e) => events.push(e), options);
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return { events, parser };
}

export function parseText(text: Chunk, options?: SignalParserOptions): ParserEvent[] {
  return parseChunks([text], options).events;
}

/** Cuts `bytes` at the given offsets (sorted, deduplicated, clamped) into consecutive pieces. */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(bytes.length, c))))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let at = 0;
  for (const p of points) {
    pieces.push(Buffer.from(bytes.subarray(at, p)));
    at = p;
  }
  pieces.push(Buffer.from(bytes.subarray(at)));
  return pieces;
}

/** Every event but observations, in the shape `ralph parse` prints a signal: kind, line, name, args. */
export interface SignalLike {
  type: string;
  line: number;
  name: string;
  args: string[];
}

export function signalsOf(events: readonly ParserEvent[]): SignalLike[] {
  return events.flatMap((e): SignalLike[] =>
    e.type === 'signal' || e.type === 'ignored'
      ? [{ type: e.type, line: e.line, name: e.name, args: e.args }]
      : e.type === 'claim'
        ? [{ type: e.type, line: e.line, name: e.name, args: [] }]
        : [],
  );
}
