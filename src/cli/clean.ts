// `ralph clean [--older-than 7d] [--dry-run]`: finished runs, ended batches with their worktrees,
// and merged or empty ralph/* branches go; with --workdir, a queue worker's old run directories
// and idle checkouts instead. What is kept is named with why (docs/files.md).
import { InvalidArgumentError } from 'commander';
import { UsageError } from '../errors.js';
import { parseDuration } from '../util/duration.js';
import type { RegisterCommand } from './context.js';

interface CleanFlags {
  olderThan?: number;
  dryRun?: boolean;
  cwd?: string;
  workdir?: string | true;
}

export const registerClean: RegisterCommand = (program, ctx) => {
  program
    .command('clean')
    .description(
      "remove what ralph left behind and is done with: finished runs, ended batches and their worktrees, merged or empty ralph/* branches; never a running, resumable or unreadable run's files, never a branch with unmerged commits; says what it removed and kept, and why. With --workdir: a queue worker's old run directories and, while no worker runs there, its checkouts (never one with unpushed commits)",
    )
    .option('--older-than <duration>', 'only what ended at least this long ago, e.g. 7d', (value: string) => {
      const ms = parseDuration(value);
      if (ms === undefined) throw new InvalidArgumentError(`expected a duration such as 7d, 12h or 30m, got ${JSON.stringify(value)}`);
      return ms;
    })
    .option('--dry-run', 'say what would be removed, and remove nothing')
    .option('--cwd <dir>', "a folder of the project whose .ralph/ to clean (default: the current directory; .ralph/ is at the project's root)")
    .option('--workdir [dir]', "clean a queue worker's folder instead of a project: the --workdir `ralph worker` was given (default: ~/.ralph/worker)")
    .action(async (flags: CleanFlags) => {
      const dryRun = flags.dryRun === true;
      const olderThan = flags.olderThan !== undefined ? { olderThanMs: flags.olderThan } : {};
      let r;
      if (flags.workdir !== undefined) {
        if (flags.cwd !== undefined) throw new UsageError('--cwd and --workdir do not go together', 'clean a project (--cwd) or a worker\'s folder (--workdir), one at a time');
        const { resolve } = await import('node:path');
        const { cleanWorkdir } = await import('../queue/clean-workdir.js');
        const { defaultWorkdir } = await import('../queue/workdir-layout.js');
        r = await cleanWorkdir({ workdir: flags.workdir === true ? defaultWorkdir() : resolve(flags.workdir), dryRun, ...olderThan });
      } else {
        const { clean } = await import('../runs/clean.js');
        r = await clean({ cwd: flags.cwd ?? process.cwd(), dryRun, ...olderThan });
      }
      const lines = [
        ...r.removed.map((i) => `${dryRun ? 'would remove' : 'removed'} ${i.kind} ${i.name} (${i.why})`),
        ...r.kept.map((i) => `kept ${i.kind} ${i.name} (${i.why})`),
        `${dryRun ? 'would remove' : 'removed'} ${r.removed.length}, kept ${r.kept.length}${dryRun ? ' (dry run: nothing was removed)' : ''}`,
      ];
      ctx.stdout.write(`${lines.join('\n')}\n`);
    });
};
