import { statSync } from 'node:fs';
import { UsageError } from '../../errors.js';
import type { RegisterCommand } from '../context.js';

export const registerParse: RegisterCommand = (program, ctx) => {
  program
    .command('parse')
    .description('run the signal parser over a transcript: one NDJSON object per signal, claim, malformed or ignored signal, near miss, and observation')
    .argument('[file]', 'transcript to read, or - for standard input', '-')
    .action(async (file: string) => {
      const { parseFile, parseStream } = await import('../parse-stream.js');
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
