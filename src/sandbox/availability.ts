// Whether this machine can start the sandbox, and if not, what to install: the one sentence that
// `--sandbox on` refuses with (exit 64) and `--sandbox auto` warns with.
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';

export type Availability = { ok: true } | { ok: false; problem: string; install: string };

/** Debian package names of the programs the library looks for. */
const PACKAGES: readonly [RegExp, string][] = [
  [/bubblewrap|bwrap/, 'bubblewrap'],
  [/socat/, 'socat'],
  [/ripgrep|\brg\b/, 'ripgrep'],
];

export function sandboxAvailability(): Availability {
  if (!SandboxManager.isSupportedPlatform()) {
    return { ok: false, problem: `the sandbox does not run on ${process.platform}`, install: 'run ralph on Linux (with bubblewrap, socat and ripgrep) or macOS' };
  }
  let errors: string[];
  try {
    errors = SandboxManager.checkDependencies().errors;
  } catch (error) {
    errors = [(error as Error).message];
  }
  if (errors.length === 0) return { ok: true };
  const missing = PACKAGES.filter(([pattern]) => errors.some((e) => pattern.test(e))).map(([, name]) => name);
  const install =
    process.platform === 'darwin'
      ? 'install ripgrep (brew install ripgrep)'
      : missing.length > 0
        ? `install ${joinWords(missing)} (Debian/Ubuntu: apt-get install ${missing.join(' ')})`
        : 'see docs/sandbox.md';
  return { ok: false, problem: errors.join('; '), install };
}

/** The sentence for a machine that cannot sandbox: what is wrong and what to install. */
export function unavailableMessage(a: Exclude<Availability, { ok: true }>): string {
  return `the sandbox cannot start here (${a.problem}): ${a.install}, or run with --sandbox off`;
}

function joinWords(words: string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
