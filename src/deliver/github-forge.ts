// GitHub's REST API through Octokit (@octokit/rest: GitHub's own client, ESM, Node >= 20), for
// github.com and GitHub Enterprise Server (an API base URL). Octokit's errors become ForgeErrors
// whose messages say what GitHub said and what to do (docs/deliver.md "When GitHub says no").
import { Octokit } from '@octokit/rest';
import { ForgeError, type Forge, type PullRequest, type PullRequestInput, type RepositoryInfo } from './forge.js';

/** One request that hangs must not hold a finished plan for ever. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface GitHubTarget {
  /** API base URL: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
  apiUrl: string;
  owner: string;
  repo: string;
  token: string;
}

interface OctokitPull {
  number: number;
  html_url: string;
  draft?: boolean;
  head: { ref: string; sha: string };
  base: { ref: string };
}

function pullOf(p: OctokitPull): PullRequest {
  return { number: p.number, url: p.html_url, draft: p.draft === true, head: p.head.ref, base: p.base.ref, headSha: p.head.sha };
}

type Headers = Record<string, string | number | undefined>;

/** GitHub's words for a failed request: its `message`, and each entry of `errors` (a 422's details). */
function githubMessage(data: unknown): string {
  if (typeof data !== 'object' || data === null) return typeof data === 'string' && data.trim() ? data.trim().slice(0, 300) : '';
  const d = data as { message?: unknown; errors?: unknown };
  const details = Array.isArray(d.errors)
    ? d.errors.map((e) => (typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : typeof e?.code === 'string' ? `${e.field ?? e.resource ?? ''} ${e.code}`.trim() : '')).filter(Boolean)
    : [];
  const message = typeof d.message === 'string' ? d.message : '';
  return [message, ...details].filter(Boolean).join(': ').slice(0, 500);
}

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return v === undefined ? undefined : String(v);
}

/** An Octokit error (or a network failure) as a ForgeError. */
export function forgeErrorOf(error: unknown, doing: string): ForgeError {
  if (error instanceof ForgeError) return error;
  const e = error as { status?: unknown; response?: { data?: unknown; headers?: Headers }; message?: string; name?: string };
  // Octokit reports a request that got no answer as status 500 without a response.
  const status = typeof e.status === 'number' && e.status > 0 && e.response !== undefined ? e.status : null;
  const headers = e.response?.headers ?? {};
  const said = githubMessage(e.response?.data) || e.message || String(error);
  if (status === null) {
    const why = e.name === 'TimeoutError' || e.name === 'AbortError' ? `no answer within ${REQUEST_TIMEOUT_MS / 1000}s` : said;
    return new ForgeError(`${doing}: GitHub could not be reached: ${why}`, 'network', null);
  }
  if (status === 401) return new ForgeError(`${doing}: GitHub refused the token (401 ${said}); set GITHUB_TOKEN to a valid token, or log in with gh auth login`, 'auth', status);
  const remaining = header(headers, 'x-ratelimit-remaining');
  const retryAfter = header(headers, 'retry-after');
  if (status === 429 || ((status === 403 || status === 429) && (remaining === '0' || retryAfter !== undefined || /rate limit/i.test(said)))) {
    const reset = Number(header(headers, 'x-ratelimit-reset'));
    const when =
      retryAfter !== undefined ? `retry after ${retryAfter}s` : remaining === '0' && Number.isFinite(reset) && reset > 0 ? `the limit resets at ${new Date(reset * 1000).toISOString()}` : 'retry later';
    return new ForgeError(`${doing}: GitHub's rate limit was hit (${status} ${said}); ${when}`, 'rate-limit', status);
  }
  if (status === 403) {
    const wanted = header(headers, 'x-accepted-oauth-scopes');
    const hint = wanted ? `; the token needs the scope ${wanted}` : '; give the token the repo scope (classic) or Pull requests and Contents write access (fine-grained)';
    return new ForgeError(`${doing}: GitHub refused (403 ${said})${hint}`, 'scope', status);
  }
  if (status === 404) return new ForgeError(`${doing}: GitHub says 404 ${said}: the repository does not exist, or the token cannot see it`, 'not-found', status);
  if (status === 422 && /already exists/i.test(said)) return new ForgeError(`${doing}: ${said}`, 'exists', status);
  if (status === 422) return new ForgeError(`${doing}: GitHub refused it (422 ${said})`, 'invalid', status);
  if (status === 405 || status === 409) return new ForgeError(`${doing}: GitHub cannot merge it (${status} ${said})`, 'unmergeable', status);
  return new ForgeError(`${doing}: GitHub answered ${status} ${said}`, 'other', status);
}

export class GitHubForge implements Forge {
  readonly name: string;
  private readonly octokit: Octokit;

  constructor(private readonly target: GitHubTarget) {
    this.name = `GitHub ${target.owner}/${target.repo}`;
    // Octokit would print deprecation notices with console.warn; ralph prints nothing of its own here.
    const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
    this.octokit = new Octokit({ auth: target.token, baseUrl: target.apiUrl.replace(/\/+$/, ''), userAgent: 'ralph', log: quiet });
    this.octokit.hook.wrap('request', (request, options) => request({ ...options, request: { ...options.request, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) } }));
  }

  private async call<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw forgeErrorOf(error, doing);
    }
  }

  private get repo() {
    return { owner: this.target.owner, repo: this.target.repo };
  }

  /**
   * The repository, and whether the token may write to it. A classic token lists its scopes in
   * X-OAuth-Scopes: without `repo` (or `public_repo` on a public repository) it cannot open pull
   * requests whatever the repository says. A fine-grained token sends no such header; then the
   * repository's `permissions` answer.
   */
  async repository(): Promise<RepositoryInfo> {
    const r = await this.call(`reading ${this.name}`, () => this.octokit.rest.repos.get(this.repo));
    const scopesHeader = header(r.headers as Headers, 'x-oauth-scopes');
    const scopes = scopesHeader === undefined ? null : scopesHeader.split(',').map((s) => s.trim()).filter(Boolean);
    const scoped = scopes === null || scopes.includes('repo') || (!r.data.private && scopes.includes('public_repo'));
    if (!scoped) {
      throw new ForgeError(
        `the token's scopes (${scopes!.join(', ') || 'none'}) do not let it open pull requests on ${this.name}: it needs ${r.data.private ? 'repo' : 'repo or public_repo'}`,
        'scope',
        null,
      );
    }
    return { fullName: r.data.full_name, defaultBranch: r.data.default_branch, canPush: r.data.permissions?.push !== false };
  }

  async findOpenPull(head: string): Promise<PullRequest | null> {
    const r = await this.call(`looking for the pull request of ${head}`, () => this.octokit.rest.pulls.list({ ...this.repo, head: `${this.target.owner}:${head}`, state: 'open', per_page: 10 }));
    // GitHub filters by head; a stand-in or a proxy that does not is checked here too.
    const found = r.data.find((p) => p.head.ref === head);
    return found ? pullOf(found as OctokitPull) : null;
  }

  async openPull(input: PullRequestInput): Promise<PullRequest> {
    const r = await this.call(`opening a pull request for ${input.head}`, () => this.octokit.rest.pulls.create({ ...this.repo, ...input }));
    return pullOf(r.data as OctokitPull);
  }

  async updatePull(number: number, change: { title: string; body: string }): Promise<PullRequest> {
    const r = await this.call(`updating pull request #${number}`, () => this.octokit.rest.pulls.update({ ...this.repo, pull_number: number, ...change }));
    return pullOf(r.data as OctokitPull);
  }

  async mergePull(number: number, o: { method: 'merge' | 'squash' | 'rebase'; sha: string }): Promise<{ sha: string }> {
    const r = await this.call(`merging pull request #${number}`, () => this.octokit.rest.pulls.merge({ ...this.repo, pull_number: number, merge_method: o.method, sha: o.sha }));
    return { sha: r.data.sha };
  }
}
