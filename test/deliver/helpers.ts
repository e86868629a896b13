// A repository with a bare remote on disk that poses as github.com/acme/widgets: its origin URL
// is the GitHub one (what ralph reads to name the repository), and git's url.<bare>.insteadOf
// sends fetches and pushes to the bare repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const GITHUB_URL = 'https://github.com/acme/widgets.git';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).trim();
}

export interface TestRepo {
  dir: string;
  repo: string;
  bare: string;
  /** The commit a branch of the bare remote points at, or null. */
  remoteHead(branch: string): string | null;
}

/** A repository on `main` with `files` committed and pushed to its bare remote (`plainRemote`: named by its path, not as GitHub). */
export function makeRepo(files: Record<string, string>, o: { plainRemote?: boolean } = {}): TestRepo {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-deliver-'));
  const bare = join(dir, 'remote.git');
  const repo = join(dir, 'repo');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 't');
  git(repo, 'config', 'user.email', 't@t');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'start');
  git(repo, 'remote', 'add', 'origin', o.plainRemote ? bare : GITHUB_URL);
  if (!o.plainRemote) git(repo, 'config', `url.${bare}.insteadOf`, GITHUB_URL);
  git(repo, 'push', '-q', '-u', 'origin', 'main');
  return {
    dir,
    repo,
    bare,
    remoteHead(branch: string) {
      try {
        return execFileSync('git', ['--git-dir', bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { encoding: 'utf8' }).trim();
      } catch {
        return null;
      }
    },
  };
}
