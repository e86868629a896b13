// The sandbox of a check that no agent runs in: `ralph land`'s checks on the integrated tree
// (docs/deliver.md#landing). It may write the tree and a private temp folder, read everything
// but the secrets, and reach only `sandbox.allow_hosts`. Unlike a run's, the repository's git
// folder stays read-only, and so does the tree's `.git`: a check that could write there could
// move the very branch it is checking for, or point ralph's own git elsewhere.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NO_AGENT } from './agent-needs.js';
import { homeOf } from './open.js';
import { buildPolicy, type SandboxPolicy } from './policy.js';
import { RunSandbox, type DeniedReport } from './run-sandbox.js';
import type { SandboxSettings } from './settings.js';

export interface CheckSandboxFacts {
  settings: Pick<SandboxSettings, 'allowHosts' | 'denyRead' | 'allowRead' | 'allowWrite'>;
  /** The tree the checks run in (the landing's scratch worktree). */
  tree: string;
  env: NodeJS.ProcessEnv;
}

export function checkPolicyOf(facts: CheckSandboxFacts, tmp = tmpdir()): SandboxPolicy {
  const tree = resolve(facts.tree);
  const policy = buildPolicy({
    tree,
    home: homeOf(facts.env),
    tmp,
    agent: NO_AGENT,
    agentHosts: [],
    allowHosts: facts.settings.allowHosts,
    denyRead: facts.settings.denyRead,
    allowRead: facts.settings.allowRead,
    allowWrite: facts.settings.allowWrite,
  });
  return { ...policy, readOnly: [...new Set([...policy.readOnly, join(tree, '.git')])] };
}

/** Opens a sandbox for checks in `facts.tree`, with its own temp folder; close() removes it. */
export async function openCheckSandbox(facts: CheckSandboxFacts, onDenied: (r: DeniedReport) => void = () => undefined): Promise<RunSandbox> {
  const tmp = mkdtempSync(join(tmpdir(), 'ralph-sandbox-'));
  const decoyDir = mkdtempSync(join(tmpdir(), 'ralph-hidden-'));
  try {
    return await RunSandbox.open({ policy: checkPolicyOf(facts, tmp), agent: NO_AGENT, home: homeOf(facts.env), onDenied, tmp, decoyDir });
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(decoyDir, { recursive: true, force: true });
    throw error;
  }
}
