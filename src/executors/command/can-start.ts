// Whether the command executor's program can be started, checked before anything runs
// (docs/first-hour.md): a program that is not there is a usage error (exit 64), found once, not
// an iteration that fails again and again. The same lookup the system's execvp does: a name with
// a slash is a path from the working directory; any other name is looked for on PATH.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { UsageError } from '../../errors.js';

type Found = 'ok' | 'missing' | 'not-executable';

function check(path: string): Found {
  try {
    if (!statSync(path).isFile()) return 'not-executable';
  } catch {
    return 'missing';
  }
  try {
    accessSync(path, constants.X_OK);
    return 'ok';
  } catch {
    return 'not-executable';
  }
}

/** Why `program` cannot be started from `cwd`, or null when it can. */
export function cannotStartReason(program: string, cwd: string, env: NodeJS.ProcessEnv): string | null {
  let found: Found;
  if (program.includes('/')) {
    found = check(resolve(cwd, program));
  } else {
    found = 'missing';
    for (const dir of (env.PATH ?? '').split(delimiter)) {
      const r = check(join(resolve(cwd, dir || '.'), program));
      if (r === 'ok') return null;
      if (r === 'not-executable') found = r;
    }
  }
  if (found === 'ok') return null;
  return found === 'missing' ? 'no such program (is it installed and on PATH?)' : 'permission denied (is it an executable file?)';
}

/**
 * Throws the usage error the executor would otherwise report at its first iteration. Under
 * `--agent` it speaks of the agent and the npm package that installs it, not of `--`.
 */
export function assertCanStart(command: readonly string[] | undefined, cwd: string, env: NodeJS.ProcessEnv, where = '', agent?: { name: string; npm?: string }): void {
  const program = command?.[0];
  if (program === undefined) return;
  const reason = cannotStartReason(program, cwd, env);
  if (reason === null) return;
  if (agent !== undefined) {
    const install = agent.npm !== undefined ? `Install it: npm install -g ${agent.npm}` : `Check the command of agent ${agent.name} in ralph.config.yaml.`;
    throw new UsageError(`${where}cannot start agent ${agent.name} ("${program}"): ${reason}`, `${install} (or choose another agent with --agent).`);
  }
  throw new UsageError(`${where}cannot start "${program}": ${reason}; check the command after -- or the plan's command`);
}
