// Which git remote ralph pushes to (--pr, `ralph land --push`) and a queued batch's workers clone
// from: the one named, else the current branch's upstream's, else `origin`, else the only one.
import { tryGit } from './git.js';

export { tryGit };

/** The remote of the repository at `top`; `asked` (deliver.remote) must exist. Null where there is none to choose. */
export async function chooseRemote(top: string, asked?: string): Promise<string | null> {
  const remotes = ((await tryGit(top, ['remote'])) ?? '').split('\n').filter(Boolean);
  if (asked !== undefined) return remotes.includes(asked) ? asked : null;
  const upstream = await tryGit(top, ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']);
  const fromUpstream = upstream ? remotes.find((r) => upstream.startsWith(`${r}/`)) : undefined;
  return fromUpstream ?? (remotes.includes('origin') ? 'origin' : remotes.length === 1 ? remotes[0]! : null);
}
