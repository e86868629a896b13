// `ralph parse`: the parser's events as NDJSON, in order, batched into few writes.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { SignalParser, type ParserEvent } from '../signals/index.js';
import { UsageError } from '../errors.js';
import type { RegisterCommand } from './context.js';
import { safeJson } from '../ui/sanitize.js';

export const registerParse: RegisterCommand = (program, ctx) => {
  program
    .command('parse')
    .description('run the signal parser over a transcript: one NDJSON object per signal, claim, malformed or ignored signal, near miss, and observation')
    .argument('[file]', 'transcript to read, or - for standard input', '-')
    .action(async (file: string) => {
      if (file === '-') {
        await parseStream(process.stdin, ctx.stdout);
        return;
      }
      const info = statSync(file, { throwIfNoEntry: false });
      if (!info) throw new UsageError(`cannot read ${file}: no such file`, 'Give the path of a transcript, or - to read standard input.');
      if (info.isDirectory()) throw new UsageError(`cannot read ${file}: it is a directory`, 'Give the path of a transcript file.');
      await parseFile(file, ctx.stdout);
    });
};

export function toRecord(e: ParserEvent): Record<string, unknown> {
  switch (e.type) {
    case 'signal':
      return { kind: 'signal', line: e.line, name: e.name, args: e.args };
    case 'claim':
      return { kind: 'claim', line: e.line, name: e.name };
    case 'malformed':
      return { kind: 'malformed', line: e.line, text: e.text, why: e.why };
    case 'ignored':
      return { kind: 'ignored', line: e.line, name: e.name, args: e.args, text: e.text, why: e.why };
    case 'observation':
      return { kind: 'observation', line: e.line, ...e.record };
    case 'near_miss':
      return { kind: 'near_miss', line: e.line, text: e.text, reason: e.reason, hint: e.hint, correct: e.correct };
    default: {
      const never: never = e;
      throw new Error(`unknown parser event ${JSON.stringify(never)}`);
    }
  }
}

// 256 KiB reads: fewer calls into the kernel, and measured a little faster than 64 or 128 KiB
// (node bench/run.mjs parse; the parser scans each chunk while it is still in cache).
const CHUNK = 1 << 18;
const FLUSH_AT = 1 << 16;

class NdjsonSink {
  private pending = '';
  /** The reader went away (`ralph parse … | head`): stop quietly, as other command-line tools do. */
  closed = false;
  constructor(private readonly out: NodeJS.WritableStream) {
    out.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      this.closed = true;
    });
  }
  add = (event: ParserEvent): void => {
    this.pending += `${safeJson(toRecord(event))}\n`;
  };
  get full(): boolean {
    return this.pending.length > FLUSH_AT;
  }
  async flush(): Promise<void> {
    if (this.pending === '' || this.closed) return;
    const text = this.pending;
    this.pending = '';
    if (this.out.write(text)) return;
    try {
      await once(this.out, 'drain');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
      this.closed = true;
    }
  }
}

/** A file is read with one reused buffer: memory stays flat however long the transcript. */
export async function parseFile(path: string, out: NodeJS.WritableStream): Promise<void> {
  const sink = new NdjsonSink(out);
  const parser = new SignalParser(sink.add);
  const fd = openSync(path, 'r');
  // The parser never keeps a chunk it was given, so one buffer serves every read.
  const chunk = Buffer.allocUnsafe(CHUNK);
  try {
    for (;;) {
      const n = readSync(fd, chunk, 0, CHUNK, null);
      if (n === 0 || sink.closed) break;
      parser.push(n === CHUNK ? chunk : chunk.subarray(0, n));
      if (sink.full) await sink.flush();
    }
  } finally {
    closeSync(fd);
  }
  parser.end();
  await sink.flush();
}

export async function parseStream(input: Readable, out: NodeJS.WritableStream): Promise<void> {
  const sink = new NdjsonSink(out);
  const parser = new SignalParser(sink.add);
  for await (const chunk of input) {
    if (sink.closed) break;
    parser.push(chunk as Buffer);
    if (sink.full) await sink.flush();
  }
  parser.end();
  await sink.flush();
}
