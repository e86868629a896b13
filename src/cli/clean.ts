// `ralph clean [--older-than 7d] [--dry-run]`: finished runs, ended batches with their worktrees,
// and merged or empty ralph/* branches go; what is kept is named with why (docs/files.md).
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../util/duration.js';
import type { RegisterCommand } from './context.js';

export const registerClean: RegisterCommand = (program, ctx) => {
  program
    .command('clean')
    .description("remove what ralph left behind and is done with: finished runs, ended batches and their worktrees, merged or empty ralph/* branches; never a running or resumable run's files, never a branch with unmerged commits")
    .option('--older-than <duration>', 'only what ended at least this long ago, e.g. 7d', (value: string) => {
      const ms = parseDuration(value);
      if (ms === undefined) throw new InvalidArgumentError(`expected a duration such as 7d, 12h or 30m, got ${JSON.stringify(value)}`);
      return ms;
    })
    .option('--dry-run', 'say what would be removed, and remove nothing')
    .option('--cwd <dir>', "a folder of the project whose .ralph/ to clean (default: the current directory; .ralph/ is at the project's root)")
    .action(async (flags: { olderThan?: number; dryRun?: boolean; cwd?: string }) => {
      const { clean } = await import('../runs/clean.js');
      const dryRun = flags.dryRun === true;
      const r = await clean({ cwd: flags.cwd ?? process.cwd(), dryRun, ...(flags.olderThan !== undefined ? { olderThanMs: flags.olderThan } : {}) });
      const lines = [
        ...r.removed.map((i) => `${dryRun ? 'would remove' : 'removed'} ${i.kind} ${i.name} (${i.why})`),
        ...r.kept.map((i) => `kept ${i.kind} ${i.name} (${i.why})`),
        `${dryRun ? 'would remove' : 'removed'} ${r.removed.length}, kept ${r.kept.length}${dryRun ? ' (dry run: nothing was removed)' : ''}`,
      ];
      ctx.stdout.write(`${lines.join('\n')}\n`);
    });
};
