// The check before a night with --pr (docs/deliver.md "Before the night"): every way it can be
// known at 9 p.m. that pull requests will fail at 3 a.m. is one UsageError (exit 64).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { openForge } from '../../src/deliver/open-forge.js';
import { parseRemoteUrl } from '../../src/deliver/remote-url.js';
import { GitHubStandIn } from './github-stand-in.js';
import { git, makeRepo } from './helpers.js';

let gh: GitHubStandIn;
beforeEach(async () => {
  gh = await new GitHubStandIn({ owner: 'acme', repo: 'widgets', defaultBranch: 'trunk', tokens: { ok: { login: 'a', scopes: ['repo'] }, ro: { login: 'b', scopes: null, push: false } } }).start();
});
afterEach(() => gh.stop());

const noGh = async () => null;
const refusal = async (p: Promise<unknown>): Promise<string> => {
  const e = await p.then(
    () => null,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(UsageError);
  expect((e as UsageError).exitCode).toBe(64);
  return (e as UsageError).message;
};

describe('parseRemoteUrl', () => {
  it.each([
    ['https://github.com/acme/widgets.git', { host: 'github.com', owner: 'acme', name: 'widgets' }],
    ['git@github.com:acme/widgets.git', { host: 'github.com', owner: 'acme', name: 'widgets' }],
    ['ssh://git@GHE.corp:2222/acme/widgets', { host: 'ghe.corp', owner: 'acme', name: 'widgets' }],
    ['https://gitlab.com/group/sub/widgets.git', { host: 'gitlab.com', owner: 'group/sub', name: 'widgets' }],
    ['/srv/git/widgets.git', null],
    ['file:///srv/git/widgets.git', null],
    ['../widgets', null],
  ])('%s', (url, expected) => expect(parseRemoteUrl(url)).toEqual(expected));
});

describe('openForge', () => {
  it('finds the repository from the remote, the token from GITHUB_TOKEN, the base from the current branch', async () => {
    const r = makeRepo({ 'a.txt': 'a' });
    const opened = await openForge(r.repo, {}, { GITHUB_TOKEN: 'ok', GITHUB_API_URL: gh.url }, { gh: noGh });
    expect(opened.repo).toEqual({ host: 'github.com', owner: 'acme', name: 'widgets' });
    expect(opened.remote).toBe('origin');
    expect(opened.base).toBe('main');
    // Detached HEAD: the repository's default branch (on the remote too).
    git(r.repo, 'push', '-q', 'origin', 'main:trunk');
    git(r.repo, 'checkout', '-q', '--detach');
    expect((await openForge(r.repo, {}, { GITHUB_TOKEN: 'ok', GITHUB_API_URL: gh.url }, { gh: noGh })).base).toBe('trunk');
  });

  it('takes the token from gh auth token for the remote host when no variable holds one', async () => {
    const r = makeRepo({ 'a.txt': 'a' });
    const asked: string[] = [];
    await openForge(r.repo, {}, { GITHUB_API_URL: gh.url }, { gh: async (host) => (asked.push(host), 'ok') });
    expect(asked).toEqual(['github.com']);
  });

  it('refuses, naming what to do: no remote, no token, a bad token, a read-only token, another host', async () => {
    const r = makeRepo({ 'a.txt': 'a' });
    const env = { GITHUB_API_URL: gh.url };
    expect(await refusal(openForge(r.repo, {}, env, { gh: noGh }))).toMatch(/no GitHub token: GITHUB_TOKEN is not set and `gh auth token` gave none for github.com/);
    expect(await refusal(openForge(r.repo, {}, { ...env, GITHUB_TOKEN: 'nope' }, { gh: noGh }))).toMatch(/401 Bad credentials/);
    expect(await refusal(openForge(r.repo, {}, { ...env, GITHUB_TOKEN: 'ro' }, { gh: noGh }))).toMatch(/cannot push to acme\/widgets/);
    expect(await refusal(openForge(r.repo, { remote: 'upstream' }, { ...env, GITHUB_TOKEN: 'ok' }, { gh: noGh }))).toMatch(/no remote named upstream/);
    git(r.repo, 'checkout', '-q', '-b', 'local-only');
    expect(await refusal(openForge(r.repo, {}, { ...env, GITHUB_TOKEN: 'ok' }, { gh: noGh }))).toMatch(/the base branch local-only is not on the remote origin/);
    git(r.repo, 'checkout', '-q', 'main');
    git(r.repo, 'remote', 'set-url', 'origin', 'https://ghe.corp/acme/widgets.git');
    // The bare repository stands for the GHE remote too: no test reaches the network.
    git(r.repo, 'config', `url.${r.bare}.insteadOf`, 'https://ghe.corp/acme/widgets.git');
    expect(await refusal(openForge(r.repo, {}, { ...env, GITHUB_TOKEN: 'ok' }, { gh: noGh }))).toMatch(/on ghe.corp, which is not GitHub/);
    // GitHub Enterprise Server: named by its web address; the API is at <url>/api/v3 unless told otherwise.
    const ghe = await openForge(r.repo, { githubUrl: 'https://ghe.corp', apiUrl: gh.url }, { GITHUB_TOKEN: 'ok' }, { gh: noGh });
    expect(ghe.repo.host).toBe('ghe.corp');
    git(r.repo, 'remote', 'remove', 'origin');
    expect(await refusal(openForge(r.repo, {}, { ...env, GITHUB_TOKEN: 'ok' }, { gh: noGh }))).toMatch(/no remote to push to/);
  });

  it('a GitLab remote (gitlab.com, a subgroup, a self-hosted gitlab.*): refused by name before the token is looked for', async () => {
    const r = makeRepo({ 'a.txt': 'a' });
    for (const url of ['https://gitlab.com/acme/widgets.git', 'git@gitlab.com:acme/platform/widgets.git', 'https://gitlab.corp.example/acme/widgets']) {
      git(r.repo, 'remote', 'set-url', 'origin', url);
      const host = new URL(url.replace(/^git@([^:]+):/, 'ssh://$1/')).hostname;
      // No token, no API: the forge is refused first, for what it is.
      expect(await refusal(openForge(r.repo, {}, {}, { gh: noGh }))).toBe(`--pr: the remote origin is on ${host}: GitLab is not supported, ralph opens pull requests on GitHub only`);
    }
    // ralph land --forge words it for itself.
    expect(await refusal(openForge(r.repo, {}, {}, { gh: noGh, flag: '--forge' }))).toMatch(/^--forge: the remote origin is on gitlab.corp.example: GitLab is not supported/);
  });
});
