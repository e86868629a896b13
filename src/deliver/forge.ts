// What ralph asks of a forge (docs/deliver.md "Forges"): one repository, its pull requests by
// head branch, and merging one. GitHub implements it (github-forge.ts); a GitLab merge request is
// the same shape (head = source branch, base = target branch, draft = "Draft:" title), so a
// GitLab forge is one more implementation of this interface, not a change to its callers.

export interface PullRequest {
  number: number;
  url: string;
  draft: boolean;
  /** The branch it proposes (its head) and the one it would change (its base). */
  head: string;
  base: string;
  /** The commit its head branch points at. */
  headSha: string;
}

export interface PullRequestInput {
  head: string;
  base: string;
  title: string;
  body: string;
  draft: boolean;
}

export interface RepositoryInfo {
  /** "owner/name" as the forge spells it. */
  fullName: string;
  defaultBranch: string;
  /** Whether the token may push and open pull requests. */
  canPush: boolean;
}

export interface Forge {
  /** For messages: "GitHub acme/widgets". */
  readonly name: string;
  repository(): Promise<RepositoryInfo>;
  /** The open pull request whose head is `head` (a branch of this repository), or null. */
  findOpenPull(head: string): Promise<PullRequest | null>;
  openPull(input: PullRequestInput): Promise<PullRequest>;
  updatePull(number: number, change: { title: string; body: string }): Promise<PullRequest>;
  /** Merges the pull request into its base; `sha` guards against a head that moved since it was checked. */
  mergePull(number: number, o: { method: 'merge' | 'squash' | 'rebase'; sha: string }): Promise<{ sha: string }>;
}

/**
 * A forge request that failed, in words a person can act on. `kind` tells callers what it was:
 * `exists` (a pull request for that head is already open) is the one they recover from.
 */
export class ForgeError extends Error {
  constructor(
    message: string,
    readonly kind: 'auth' | 'scope' | 'not-found' | 'exists' | 'rate-limit' | 'invalid' | 'unmergeable' | 'network' | 'other',
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'ForgeError';
  }
}
