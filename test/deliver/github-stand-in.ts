// A stand-in of GitHub's REST API on 127.0.0.1 for tests (docs/development.md): the endpoints
// ralph uses, with GitHub's own response shapes, headers and error bodies, so the real Octokit
// client talks to it through its baseUrl. Not a mock of ralph's code: ralph cannot tell it from
// GitHub short of its host name.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInPull {
  number: number;
  title: string;
  body: string;
  head: string;
  headSha: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
}

export interface StandInToken {
  login: string;
  /** Classic token scopes (X-OAuth-Scopes); null: a fine-grained token, which sends no such header. */
  scopes: string[] | null;
  /** The repository's `permissions.push` for this token. */
  push?: boolean;
}

export interface StandInOptions {
  owner: string;
  repo: string;
  private?: boolean;
  defaultBranch?: string;
  tokens: Record<string, StandInToken>;
  /** The sha of a head branch, asked when a pull request is opened or listed (e.g. from a bare repo). */
  headSha?: (branch: string) => string;
  /** What a merge does to the repository (e.g. moves the bare repo's base branch); returns the merge's sha. */
  onMerge?: (pull: StandInPull, method: string) => string;
}

export interface Request {
  method: string;
  path: string;
  token: string | null;
}

const DOCS = 'https://docs.github.com/rest';

export class GitHubStandIn {
  readonly pulls: StandInPull[] = [];
  readonly requests: Request[] = [];
  /** Answers the next `n` requests with GitHub's primary rate limit (403, x-ratelimit-remaining: 0). */
  rateLimited = 0;
  /** Answers the next `n` requests with a secondary rate limit (429 with retry-after). */
  secondaryLimited = 0;
  /** Makes merges answer 405 "Pull Request is not mergeable". */
  unmergeable = false;
  /** Answers every pull request write with 500, as GitHub does on a bad day. */
  failWrites = false;
  private server: Server | null = null;
  url = '';

  constructor(readonly o: StandInOptions) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
  }

  private repoJson(token: StandInToken) {
    const { owner, repo } = this.o;
    return {
      id: 1296269,
      node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
      name: repo,
      full_name: `${owner}/${repo}`,
      owner: { login: owner, id: 1, type: 'Organization' },
      private: this.o.private ?? true,
      html_url: `https://github.com/${owner}/${repo}`,
      url: `${this.url}/repos/${owner}/${repo}`,
      default_branch: this.o.defaultBranch ?? 'main',
      permissions: { admin: false, maintain: false, push: token.push ?? true, triage: true, pull: true },
    };
  }

  private pullJson(p: StandInPull) {
    const { owner, repo } = this.o;
    return {
      url: `${this.url}/repos/${owner}/${repo}/pulls/${p.number}`,
      id: 1000 + p.number,
      number: p.number,
      state: p.state,
      title: p.title,
      body: p.body,
      draft: p.draft,
      merged: p.merged,
      html_url: `https://github.com/${owner}/${repo}/pull/${p.number}`,
      user: { login: 'ralph-bot' },
      head: { label: `${owner}:${p.head}`, ref: p.head, sha: p.headSha, repo: { full_name: `${owner}/${repo}` } },
      base: { label: `${owner}:${p.base}`, ref: p.base, sha: '0'.repeat(40), repo: { full_name: `${owner}/${repo}` } },
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization ?? '';
    const tokenText = /^(?:token|bearer) (.+)$/i.exec(auth)?.[1] ?? null;
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, token: tokenText });
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      'x-github-media-type': 'github.v3; format=json',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
    };
    const send = (status: number, body: unknown, extra: Record<string, string> = {}) => {
      res.writeHead(status, { ...headers, ...extra });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const error = (status: number, message: string, extra: Record<string, string> = {}, more: Record<string, unknown> = {}) =>
      send(status, { message, ...more, documentation_url: DOCS, status: String(status) }, extra);

    const token = tokenText === null ? null : this.o.tokens[tokenText];
    if (!token) return error(401, 'Bad credentials');
    if (token.scopes !== null) headers['x-oauth-scopes'] = token.scopes.join(', ');
    if (this.rateLimited > 0) {
      this.rateLimited--;
      return error(403, `API rate limit exceeded for user ID 1.`, { 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '5000', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 600) });
    }
    if (this.secondaryLimited > 0) {
      this.secondaryLimited--;
      return error(429, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', { 'retry-after': '60' });
    }

    const { owner, repo } = this.o;
    const method = req.method ?? 'GET';
    const path = url.pathname;
    let body: Record<string, unknown> = {};
    if (chunks.length) {
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        return error(400, 'Problems parsing JSON');
      }
    }
    if (method === 'GET' && path === '/user') return send(200, { login: token.login, id: 1, type: 'User' });
    const prefix = `/repos/${owner}/${repo}`;
    if (!path.startsWith(prefix)) return error(404, 'Not Found');
    const rest = path.slice(prefix.length);
    const canWrite = token.scopes === null ? token.push !== false : token.scopes.includes('repo') || (!(this.o.private ?? true) && token.scopes.includes('public_repo'));
    // A classic token without the repo scope cannot see a private repository at all: GitHub says 404.
    if ((this.o.private ?? true) && token.scopes !== null && !token.scopes.includes('repo')) return error(404, 'Not Found');
    const forbidden = () => error(403, 'Resource not accessible by personal access token', { 'x-accepted-oauth-scopes': 'repo', 'x-accepted-github-permissions': 'pull_requests=write' });

    if (method === 'GET' && rest === '') return send(200, this.repoJson(token));
    if (method === 'GET' && rest === '/pulls') {
      const head = url.searchParams.get('head');
      const state = url.searchParams.get('state') ?? 'open';
      const list = this.pulls.filter((p) => (state === 'all' || p.state === state) && (head === null || `${owner}:${p.head}` === head));
      return send(200, list.map((p) => this.pullJson(p)));
    }
    if (method === 'POST' && rest === '/pulls') {
      if (!canWrite) return forbidden();
      if (this.failWrites) return error(500, 'Server Error');
      const { title, head, base, draft } = body as { title?: string; head?: string; base?: string; draft?: boolean };
      if (!title || !head || !base) return error(422, 'Validation Failed', {}, { errors: [{ resource: 'PullRequest', field: !title ? 'title' : !head ? 'head' : 'base', code: 'missing_field' }] });
      const headRef = head.includes(':') ? head.split(':')[1]! : head;
      if (this.pulls.some((p) => p.state === 'open' && p.head === headRef && p.base === base)) {
        return error(422, 'Validation Failed', {}, { errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${owner}:${headRef}.` }] });
      }
      const pull: StandInPull = { number: this.pulls.length + 1, title, body: String(body.body ?? ''), head: headRef, headSha: this.o.headSha?.(headRef) ?? 'f'.repeat(40), base, draft: draft === true, state: 'open', merged: false };
      this.pulls.push(pull);
      return send(201, this.pullJson(pull), { location: `${this.url}${prefix}/pulls/${pull.number}` });
    }
    const one = /^\/pulls\/(\d+)(\/merge)?$/.exec(rest);
    const pull = one ? this.pulls.find((p) => p.number === Number(one[1])) : undefined;
    if (one && !pull) return error(404, 'Not Found');
    if (pull && !one![2] && method === 'GET') {
      if (this.o.headSha) pull.headSha = this.o.headSha(pull.head);
      return send(200, this.pullJson(pull));
    }
    if (pull && !one![2] && method === 'PATCH') {
      if (!canWrite) return forbidden();
      if (this.failWrites) return error(500, 'Server Error');
      if (typeof body.title === 'string') pull.title = body.title;
      if (typeof body.body === 'string') pull.body = body.body;
      if (body.state === 'closed' || body.state === 'open') pull.state = body.state;
      if (this.o.headSha) pull.headSha = this.o.headSha(pull.head);
      return send(200, this.pullJson(pull));
    }
    if (pull && one![2] && method === 'PUT') {
      if (!canWrite) return forbidden();
      if (this.o.headSha) pull.headSha = this.o.headSha(pull.head);
      if (pull.state !== 'open' || this.unmergeable || pull.draft) return error(405, 'Pull Request is not mergeable');
      if (typeof body.sha === 'string' && body.sha !== pull.headSha) return error(409, 'Head branch was modified. Review and try the merge again.');
      pull.state = 'closed';
      pull.merged = true;
      const sha = this.o.onMerge?.(pull, typeof body.merge_method === 'string' ? body.merge_method : 'merge') ?? 'a'.repeat(40);
      return send(200, { sha, merged: true, message: 'Pull Request successfully merged' });
    }
    return error(404, 'Not Found');
  }
}
