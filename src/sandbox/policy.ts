// The one policy of docs/sandbox.md: what an agent (and the plan's verify commands) may write,
// read and reach. A pure function of where the run is, so `ralph config --sandbox` shows exactly
// what a run would get.
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RUN_FILES } from '../contract.js';
import type { AgentNeeds } from './agent-needs.js';

export interface SandboxPolicy {
  /** Folders (and files) the sandboxed command may write. */
  write: string[];
  /** Inside those, what stays read-only. */
  readOnly: string[];
  /** What it cannot read at all (it sees an empty folder, or no file). */
  hidden: string[];
  /** Hidden paths the user gave back (`sandbox.allow_read:`). */
  readable: string[];
  /** Hosts it may reach (`host` or `host:port`); nothing else. */
  hosts: string[];
}

/** Secrets under the home folder no agent needs: hidden from every sandboxed command. */
export const SECRET_PATHS: readonly string[] = [
  '.ssh',
  '.aws',
  '.config/gh',
  '.config/hub',
  '.netrc',
  '.git-credentials',
  '.docker/config.json',
  '.kube',
  '.gnupg',
  '.password-store',
  '.local/share/keyrings',
  '.config/gcloud',
  '.azure',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.pgpass',
];

export interface PolicyInput {
  /** The working tree: a plan's cwd, a batch's worktree, a worker's checkout. */
  tree: string;
  home: string;
  /** The system temp folder. */
  tmp: string;
  /** The repository's git folder when it is outside the tree (a worktree's common folder). */
  gitCommonDir?: string;
  /** The plan file and the summary, when they are outside the tree: the agent writes them. */
  planFiles?: string[];
  agent: AgentNeeds;
  /** The agent's hosts, base-URL hosts included (agentHosts). */
  agentHosts: string[];
  /** From the config file and the plan: more hosts, more hidden paths, more writable ones. */
  allowHosts?: string[];
  denyRead?: string[];
  allowRead?: string[];
  allowWrite?: string[];
}

/** `~/x` and relative paths as absolute ones: `~` is the home folder, relative is to the tree. */
export function expandPath(path: string, home: string, tree: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(tree, path);
}

export function buildPolicy(input: PolicyInput): SandboxPolicy {
  const { tree, home } = input;
  const expand = (p: string) => expandPath(p, home, tree);
  const write = [tree, input.tmp, ...input.agent.stateDirs.map((d) => resolve(home, d)), ...input.agent.stateFiles.map((f) => join(home, f))];
  for (const file of input.planFiles ?? []) if (!isInside(file, tree)) write.push(file);
  const readOnly = [join(tree, '.git', 'hooks'), join(tree, '.git', 'config'), join(tree, RUN_FILES.root)];
  if (input.gitCommonDir !== undefined && !isInside(input.gitCommonDir, tree)) {
    // A worktree commits into the repository's own git folder: its objects and refs are
    // written, its hooks and config stay as they are. Its `.git` file stays too: pointed at
    // another repository, it would have ralph's own git (outside the sandbox) work there.
    write.push(input.gitCommonDir);
    readOnly.push(join(tree, '.git'), join(input.gitCommonDir, 'hooks'), join(input.gitCommonDir, 'config'));
  }
  write.push(...(input.allowWrite ?? []).map(expand));
  const hidden = [...SECRET_PATHS.map((p) => join(home, p)), ...(input.denyRead ?? []).map(expand)];
  const readable = (input.allowRead ?? []).map(expand);
  const hosts = [...input.agentHosts, ...(input.allowHosts ?? [])];
  return { write: unique(write), readOnly: unique(readOnly), hidden: unique(hidden).filter((h) => !readable.includes(h)), readable: unique(readable), hosts: unique(hosts) };
}

export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Folders the sandbox gives each command its own of on Linux (bubblewrap's `--dev` and `--proc`):
 * a write there (a terminal opened on /dev/ptmx, /dev/shm) stays inside, and is no refusal.
 */
const OWN_TO_EACH_COMMAND = process.platform === 'linux' ? ['/dev', '/proc'] : [];

/** Whether the policy lets a command write `path` (a refusal report for it is kept). */
export function mayWrite(policy: SandboxPolicy, path: string): boolean {
  if (OWN_TO_EACH_COMMAND.some((d) => isInside(path, d))) return true;
  if (policy.hidden.some((h) => isInside(path, h))) return false;
  if (policy.readOnly.some((r) => isInside(path, r))) return false;
  return policy.write.some((w) => isInside(path, w));
}

function unique(list: string[]): string[] {
  return [...new Set(list)];
}
