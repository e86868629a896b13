// `--pr [draft]` (docs/deliver.md) for exec and batch. Its value is optional, and commander takes
// the next word as the value of an option whose value is optional: `ralph batch --pr plans/`
// would read "plans/" as the mode. So a `--pr` not followed by a mode is rewritten `--pr=ready`
// before commander sees the command line.
import { Option } from 'commander';
import { UsageError } from '../errors.js';

export const PR_MODES = ['ready', 'draft', 'off'] as const;
export type PrFlag = (typeof PR_MODES)[number];

export function prOption(): Option {
  return new Option('--pr [mode]', 'push each finished plan\'s branch and open a pull request (GitHub) for accepted plans; draft: failed, exhausted and blocked plans get a draft too; off: none (default: deliver.pr in the config, else off)').argParser((value: string) => {
    if (!(PR_MODES as readonly string[]).includes(value)) throw new UsageError(`--pr takes ready, draft or off (got ${JSON.stringify(value)})`);
    return value;
  });
}

/** Rewrites a bare `--pr` so that commander does not take the next argument as its mode. */
export function bareFlagsExplicit(argv: string[]): string[] {
  return argv.map((arg, i) => (arg === '--pr' && !(PR_MODES as readonly string[]).includes(argv[i + 1] ?? '') ? '--pr=ready' : arg));
}
