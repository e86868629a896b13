// From a run's facts to its sandbox: whether it is on (auto: where it can start), the policy for
// its working tree and agent, and the run's sandbox opened. `on` on a machine that cannot sandbox
// is refused before anything runs (exit 64), with what to install.
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { git } from '../util/git.js';
import { agentHosts, agentNeeds, NO_AGENT, placeState, type AgentNeeds } from './agent-needs.js';
import { sandboxAvailability, unavailableMessage, type Availability } from './availability.js';
import { buildPolicy, type SandboxPolicy } from './policy.js';
import type { RefusalCount } from './refusals.js';
import { RunSandbox, type DeniedReport } from './run-sandbox.js';
import { describeMode, type SandboxSettings } from './settings.js';

export interface SandboxFacts {
  settings: SandboxSettings;
  /** The working tree. */
  tree: string;
  planPath: string;
  summaryPath: string;
  executor: 'command' | 'anthropic';
  command?: readonly string[];
  /** The preset's name when the agent came from --agent or the config's agents. */
  agentName?: string;
  env: NodeJS.ProcessEnv;
}

export type SandboxDecision = { on: true; why: string } | { on: false; why: string; warning?: string };

/** On, off, or off with a warning (auto where it cannot start); throws for `on` where it cannot. */
export function decideSandbox(settings: Pick<SandboxSettings, 'mode' | 'modeFrom'>, availability: () => Availability = sandboxAvailability): SandboxDecision {
  const why = describeMode(settings);
  if (settings.mode === 'off') return { on: false, why };
  const a = availability();
  if (a.ok) return { on: true, why };
  if (settings.mode === 'on') throw new UsageError(`--sandbox on: ${unavailableMessage(a)}`);
  return { on: false, why, warning: `running WITHOUT a sandbox: ${unavailableMessage(a)} (docs/sandbox.md)` };
}

export function homeOf(env: NodeJS.ProcessEnv): string {
  return resolve(env.HOME ?? homedir());
}

/** The agent a run starts, and what it needs (its state folders where they really are). */
export function needsOf(facts: Pick<SandboxFacts, 'executor' | 'command' | 'agentName' | 'env'>): AgentNeeds {
  return facts.executor === 'anthropic' ? NO_AGENT : placeState(agentNeeds(facts.command, facts.agentName), facts.env);
}

export async function policyOf(facts: SandboxFacts, tmp = tmpdir()): Promise<SandboxPolicy> {
  return policyFor(facts, needsOf(facts), homeOf(facts.env), tmp);
}

async function policyFor(facts: SandboxFacts, agent: AgentNeeds, home: string, tmp: string): Promise<SandboxPolicy> {
  const tree = resolve(facts.tree);
  const gitCommonDir = await gitCommonDirOf(tree);
  return buildPolicy({
    tree,
    home,
    tmp,
    ...(gitCommonDir !== undefined ? { gitCommonDir } : {}),
    planFiles: [resolve(facts.planPath), resolve(facts.summaryPath)],
    agent,
    agentHosts: agentHosts(agent, facts.env),
    allowHosts: facts.settings.allowHosts,
    denyRead: facts.settings.denyRead,
    allowRead: facts.settings.allowRead,
    allowWrite: facts.settings.allowWrite,
  });
}

/** The repository's git folder (a worktree's common one), or undefined outside a repository. */
async function gitCommonDirOf(tree: string): Promise<string | undefined> {
  try {
    const out = await git(tree, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
    return out === '' ? undefined : out;
  } catch {
    return undefined;
  }
}

/**
 * Opens the run's sandbox: a private temp folder (TMPDIR inside; the rest of the system temp
 * folder stays read-only, so one run cannot touch another's files there), the policy, the lease.
 */
export async function openRunSandbox(facts: SandboxFacts, onDenied: (r: DeniedReport) => void, seed?: readonly RefusalCount[]): Promise<RunSandbox> {
  const agent = needsOf(facts);
  const home = homeOf(facts.env);
  const tmp = mkdtempSync(join(tmpdir(), 'ralph-sandbox-'));
  const decoyDir = mkdtempSync(join(tmpdir(), 'ralph-hidden-'));
  try {
    const policy = await policyFor(facts, agent, home, tmp);
    return await RunSandbox.open({ policy, agent, home, onDenied, tmp, decoyDir, ...(seed ? { seed } : {}) });
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(decoyDir, { recursive: true, force: true });
    throw error;
  }
}
