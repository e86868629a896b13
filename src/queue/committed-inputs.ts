// Workers run what is committed (docs/queue.md, check 4): the plans, and also the repository's
// config file and the agent scripts it or a plan's `command:` names. A local batch refuses such
// files when they differ from the commit; a queued one does too, rather than let workers run a
// version the user is not looking at.
import { resolve } from 'node:path';
import { resolveAgent, type AgentSpec } from '../agents/index.js';
import { UsageError } from '../errors.js';
import { dirtyInputs, filesOfCommand, type BatchInput } from '../batch/dirty-tree.js';
import { loadPlan } from '../plan/index.js';
import type { BatchPlan, SharedExecOptions } from '../batch/index.js';
import type { RepoRemote } from './repo-remote.js';

/** What the coordinator's config file says about agents (the workers read the same file, committed). */
export interface AgentConfig {
  file: string | null;
  agent?: string;
  agents: Readonly<Record<string, AgentSpec>>;
}

export async function checkCommittedInputs(remote: RepoRemote, plans: BatchPlan[], exec: SharedExecOptions, cwd: string, config: AgentConfig | undefined): Promise<void> {
  const execCwd = resolve(cwd, exec.cwd ?? '.');
  const inputs: BatchInput[] = [];
  if (config?.file) inputs.push({ path: config.file, role: 'config file the workers read' });
  const agentName = exec.agent ?? config?.agent;
  if (agentName !== undefined) {
    try {
      for (const path of filesOfCommand(resolveAgent(agentName, [], config?.agents ?? {}).command, execCwd)) inputs.push({ path, role: `command of agent ${agentName}` });
    } catch {
      // an unknown agent is the worker's to report, where it is resolved
    }
  }
  for (const plan of plans) {
    const command = (await loadPlan(plan.path)).config.command;
    if (command) for (const path of filesOfCommand(command, execCwd)) inputs.push({ path, role: `command of plan ${plan.id}` });
  }
  const dirty = await dirtyInputs(remote.top, inputs);
  if (dirty.length === 0) return;
  const seen = new Set<string>();
  const lines = dirty.filter((d) => !seen.has(`${d.rel}\0${d.role}`) && seen.add(`${d.rel}\0${d.role}`)).map((d) => `  ${d.rel}: ${d.state} (${d.role})`);
  throw new UsageError(`workers run these files as committed in ${remote.commit.slice(0, 12)}, and they differ from it:\n${lines.join('\n')}`, 'commit them and push (git commit … && git push), then queue the batch again');
}
