// The bash tool runs in its own PID namespace where the platform allows it (docs/hostile.md
// "The API key"): /proc/<pid>/environ shows a process's environment as it was when it started,
// and ralph was started with ANTHROPIC_API_KEY, so any shell of the same user could read the key
// from /proc/$PPID/environ. In a new PID namespace with its own /proc, ralph's process is not
// there to read. `unshare` (util-linux) makes one: as root directly, otherwise inside a user
// namespace where the kernel allows unprivileged ones. Where neither works the shell runs as
// before, and the README's security notes say what that means.
import { spawnSync } from 'node:child_process';

let probed: string[] | null | undefined;

const BASE = ['--pid', '--fork', '--mount-proc', '--kill-child'];

/** The `unshare` arguments that put a command in its own PID namespace, or null where none works. */
export function pidNamespacePrefix(): string[] | null {
  if (probed !== undefined) return probed;
  probed = null;
  if (process.platform !== 'linux' || process.env.RALPH_NO_PID_NAMESPACE === '1') return probed;
  const candidates = process.getuid?.() === 0 ? [BASE, ['--user', '--map-root-user', ...BASE]] : [['--user', '--map-root-user', ...BASE]];
  for (const flags of candidates) {
    const ran = spawnSync('unshare', [...flags, 'true'], { stdio: 'ignore', timeout: 5_000 });
    if (ran.status === 0) {
      probed = ['unshare', ...flags];
      break;
    }
  }
  return probed;
}
