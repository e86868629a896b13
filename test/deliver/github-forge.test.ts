// The GitHub forge through the real Octokit client against the stand-in on 127.0.0.1: the
// answers ralph relies on, and GitHub's errors turned into messages a person can act on.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ForgeError } from '../../src/deliver/forge.js';
import { GitHubForge } from '../../src/deliver/github-forge.js';
import { GitHubStandIn } from './github-stand-in.js';

let gh: GitHubStandIn;
const forge = (token = 'good') => new GitHubForge({ apiUrl: gh.url, owner: 'acme', repo: 'widgets', token });
const failure = async (p: Promise<unknown>): Promise<ForgeError> => {
  const e = await p.then(
    () => null,
    (error: unknown) => error,
  );
  expect(e).toBeInstanceOf(ForgeError);
  return e as ForgeError;
};

beforeEach(async () => {
  gh = await new GitHubStandIn({
    owner: 'acme',
    repo: 'widgets',
    tokens: { good: { login: 'night', scopes: ['repo', 'workflow'] }, narrow: { login: 'n', scopes: ['read:org'] }, fine: { login: 'f', scopes: null, push: false } },
  }).start();
});
afterEach(() => gh.stop());

describe('GitHubForge', () => {
  it('reads the repository, opens, finds, updates and merges a pull request', async () => {
    const f = forge();
    expect(await f.repository()).toEqual({ fullName: 'acme/widgets', defaultBranch: 'main', canPush: true });
    expect(await f.findOpenPull('ralph/pr/a')).toBeNull();
    const opened = await f.openPull({ head: 'ralph/pr/a', base: 'main', title: 'a', body: 'first', draft: false });
    expect(opened).toMatchObject({ number: 1, url: 'https://github.com/acme/widgets/pull/1', draft: false, head: 'ralph/pr/a', base: 'main' });
    expect((await f.findOpenPull('ralph/pr/a'))?.number).toBe(1);
    await f.updatePull(1, { title: 'a2', body: 'second' });
    expect(gh.pulls[0]).toMatchObject({ title: 'a2', body: 'second' });
    expect(await f.mergePull(1, { method: 'merge', sha: opened.headSha })).toEqual({ sha: 'a'.repeat(40) });
    expect(await f.findOpenPull('ralph/pr/a')).toBeNull();
    // Octokit sent the token as GitHub wants it.
    expect(gh.requests.every((r) => r.token === 'good')).toBe(true);
  });

  it('says 401 Bad credentials with what to do', async () => {
    const e = await failure(forge('wrong').repository());
    expect(e.kind).toBe('auth');
    expect(e.message).toMatch(/401 Bad credentials.*GITHUB_TOKEN/);
  });

  it('a classic token without the repo scope: GitHub hides the private repository (404)', async () => {
    const e = await failure(forge('narrow').repository());
    expect(e.kind).toBe('not-found');
    expect(e.message).toMatch(/404 Not Found: the repository does not exist, or the token cannot see it/);
  });

  it('a public repository: a token without repo or public_repo is refused by its X-OAuth-Scopes', async () => {
    await gh.stop();
    gh = await new GitHubStandIn({ owner: 'acme', repo: 'widgets', private: false, tokens: { narrow: { login: 'n', scopes: ['read:org'] } } }).start();
    const e = await failure(forge('narrow').repository());
    expect(e.kind).toBe('scope');
    expect(e.message).toMatch(/scopes \(read:org\).*needs repo or public_repo/);
  });

  it('a fine-grained token without write access: the repository says push: false; a write is a 403 naming the scope', async () => {
    expect((await forge('fine').repository()).canPush).toBe(false);
    const e = await failure(forge('fine').openPull({ head: 'x', base: 'main', title: 't', body: '', draft: false }));
    expect(e.kind).toBe('scope');
    expect(e.message).toMatch(/403 Resource not accessible by personal access token\); the token needs the scope repo/);
  });

  it('422 "A pull request already exists" is its own kind', async () => {
    const f = forge();
    await f.openPull({ head: 'b', base: 'main', title: 't', body: '', draft: false });
    const e = await failure(f.openPull({ head: 'b', base: 'main', title: 't', body: '', draft: false }));
    expect(e.kind).toBe('exists');
    expect(e.message).toContain('A pull request already exists for acme:b.');
  });

  it('rate limits: the primary (403, x-ratelimit-remaining 0) with its reset time, the secondary (429 retry-after)', async () => {
    gh.rateLimited = 1;
    const primary = await failure(forge().repository());
    expect(primary.kind).toBe('rate-limit');
    expect(primary.message).toMatch(/rate limit was hit \(403 API rate limit exceeded.*the limit resets at \d{4}-\d\d-\d\dT/);
    gh.secondaryLimited = 1;
    const secondary = await failure(forge().repository());
    expect(secondary.kind).toBe('rate-limit');
    expect(secondary.message).toMatch(/429 You have exceeded a secondary rate limit.*retry after 60s/);
  });

  it('a merge GitHub refuses: 405 not mergeable, 409 head moved', async () => {
    const f = forge();
    const p = await f.openPull({ head: 'c', base: 'main', title: 't', body: '', draft: false });
    expect((await failure(f.mergePull(p.number, { method: 'merge', sha: 'b'.repeat(40) }))).message).toMatch(/409 Head branch was modified/);
    gh.unmergeable = true;
    expect((await failure(f.mergePull(p.number, { method: 'merge', sha: p.headSha }))).kind).toBe('unmergeable');
  });

  it('a server that is not there is a network error, not a crash', async () => {
    const url = gh.url;
    await gh.stop();
    const e = await failure(new GitHubForge({ apiUrl: url, owner: 'acme', repo: 'widgets', token: 'good' }).repository());
    expect(e.kind).toBe('network');
  });
});
