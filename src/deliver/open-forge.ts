// The forge check before anything runs (docs/deliver.md "Before the night"): a remote, one that
// names a GitHub repository, a token, and a token GitHub accepts with the right to open pull
// requests. Each missing piece is one UsageError (exit 64) that says what to do, so a night of
// plans never ends in a failure at 3 a.m. that was knowable at 9 p.m.
import { UsageError } from '../errors.js';
import { git } from '../util/git.js';
import { chooseRemote, tryGit } from '../util/git-remote.js';
import { ForgeError, type Forge } from './forge.js';
import { findToken } from './forge-token.js';
import { GitHubForge } from './github-forge.js';
import { parseRemoteUrl, type RemoteRepo } from './remote-url.js';

export interface ForgeSettings {
  remote?: string;
  base?: string;
  githubUrl?: string;
  apiUrl?: string;
}

export interface OpenedForge {
  forge: Forge;
  /** The git remote pushed to. */
  remote: string;
  repo: RemoteRepo;
  /** The branch pull requests are opened against. */
  base: string;
}

/** gitlab.com, or a host that says it is a GitLab (gitlab.corp.example): named in the refusal. */
function isGitLab(host: string): boolean {
  return /(^|[.-])gitlab([.-]|$)/.test(host);
}

/** The API base URL for a remote's host: github.com's, or a GitHub Enterprise Server's (docs/deliver.md). */
function apiUrlFor(host: string, settings: ForgeSettings, env: NodeJS.ProcessEnv): string | null {
  if (settings.githubUrl) {
    const web = new URL(settings.githubUrl);
    if (web.hostname.toLowerCase() !== host) return null;
    return settings.apiUrl ?? `${web.origin}/api/v3`;
  }
  if (host !== 'github.com' && host !== 'www.github.com') return null;
  // GITHUB_API_URL: what GitHub Actions sets, and how tests point ralph at a stand-in.
  return settings.apiUrl ?? env.GITHUB_API_URL ?? 'https://api.github.com';
}

/**
 * Opens the forge of the repository at `top` and checks it can take pull requests. `flag` is what
 * asked for it (`--pr`, or `--forge` of ralph land), for the messages.
 */
export async function openForge(top: string, settings: ForgeSettings, env: NodeJS.ProcessEnv, o: { gh?: (host: string) => Promise<string | null>; flag?: string } = {}): Promise<OpenedForge> {
  const flag = o.flag ?? '--pr';
  const remote = await chooseRemote(top, settings.remote);
  if (!remote) {
    throw new UsageError(
      settings.remote ? `${flag}: the repository has no remote named ${settings.remote} (deliver.remote)` : `${flag}: the repository has no remote to push to (no upstream, no origin)`,
      'add one: git remote add origin https://github.com/OWNER/REPO.git',
    );
  }
  // The URL as configured: `git remote get-url` would apply url.*.insteadOf, and the repository's
  // name is in what the team wrote, not in where git is told to fetch it from.
  const url = (await tryGit(top, ['config', '--get', `remote.${remote}.url`])) ?? '';
  const repo = parseRemoteUrl(url);
  if (!repo) throw new UsageError(`${flag}: the remote ${remote} (${url}) is not a GitHub repository's URL`, 'pull requests need a GitHub remote, e.g. https://github.com/OWNER/REPO.git (GitLab and other forges are not supported: docs/deliver.md)');
  const apiUrl = apiUrlFor(repo.host, settings, env);
  if (!apiUrl && isGitLab(repo.host)) {
    throw new UsageError(`${flag}: the remote ${remote} is on ${repo.host}: GitLab is not supported, ralph opens pull requests on GitHub only`, `push the branches and open merge requests yourself, or run without ${flag} (docs/deliver.md#forges-what-is-and-is-not-supported)`);
  }
  if (!apiUrl) {
    throw new UsageError(
      `${flag}: the remote ${remote} is on ${repo.host}, which is not GitHub${settings.githubUrl ? ` (deliver.github_url is ${settings.githubUrl})` : ''}`,
      'for GitHub Enterprise Server, set deliver.github_url: https://<host> in ralph.config.yaml; GitLab and other forges are not supported (docs/deliver.md)',
    );
  }
  const token = await findToken(env, repo.host, o.gh);
  if (!token) throw new UsageError(`${flag}: no GitHub token: GITHUB_TOKEN is not set and \`gh auth token\` gave none for ${repo.host}`, 'export GITHUB_TOKEN=<a token with the repo scope>, or run gh auth login');
  const forge = new GitHubForge({ apiUrl, owner: repo.owner, repo: repo.name, token: token.token });
  let info;
  try {
    info = await forge.repository();
  } catch (error) {
    if (error instanceof ForgeError) throw new UsageError(`${flag}: ${error.message} (token from ${token.from})`);
    throw error;
  }
  if (!info.canPush) throw new UsageError(`${flag}: the token (from ${token.from}) cannot push to ${info.fullName}, so it cannot open pull requests there`, 'use a token with write access to the repository');
  const current = await tryGit(top, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
  const base = settings.base ?? (current && !current.startsWith('ralph/') ? current : info.defaultBranch);
  // Pull requests are opened against the remote's base branch, and pushes go to the remote: both
  // are known now, not after a night of plans.
  let heads: string;
  try {
    heads = await git(top, ['ls-remote', '--heads', remote, `refs/heads/${base}`], { timeoutMs: 30_000 });
  } catch (error) {
    throw new UsageError(`${flag}: the remote ${remote} cannot be reached: ${(error as Error).message.replace(/^git ls-remote failed: /, '')}`, 'pushes go to it: fix the remote, or your access to it');
  }
  if (!heads.includes(`refs/heads/${base}`)) {
    throw new UsageError(`${flag}: the base branch ${base} is not on the remote ${remote}, so there is nothing to open pull requests against`, `push it first (git push ${remote} ${base}), or name another with deliver.base`);
  }
  return { forge, remote, repo, base };
}
