// A test's own git repository: git run as a made-up user (no global config needed), its stdout
// returned as git wrote it.
import { execFileSync } from 'node:child_process';

export type Git = (...args: string[]) => string;

/** git in `cwd`. */
export function gitIn(cwd: string): Git {
  return (...args) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Makes `dir` a repository whose one commit, "start", holds all that is in it now; returns git in it. */
export function commitAll(dir: string): Git {
  const git = gitIn(dir);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'start');
  return git;
}
