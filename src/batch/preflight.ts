// What a batch checks before anything runs (docs/first-hour.md): every plan's agent command can be
// started, and, when plans run in worktrees, that the worktrees will hold the files the user sees.
// Returns the commit the worktrees start from.
import { resolve } from 'node:path';
import { resolveAgent } from '../agents/index.js';
import { InvalidInputError, UsageError, type Problem } from '../errors.js';
import { cannotStartReason } from '../executors/command/can-start.js';
import { loadPlan } from '../plan/index.js';
import { dirtyInputs, filesOfCommand, headCommit, snapshotWorkingTree, type BatchInput } from './dirty-tree.js';
import type { BatchPlan, IsolateMode, SharedExecOptions } from './types.js';

export interface Preflight {
  cwd: string;
  plans: BatchPlan[];
  exec: SharedExecOptions;
  isolate: IsolateMode;
  repo: string | null;
  allowDirty: boolean;
  batchId: string;
}

export async function preflight(p: Preflight): Promise<{ base: string | null }> {
  // `--sandbox on` where the sandbox cannot start: the batch is refused whole (exit 64), not each plan.
  if (p.exec.sandbox === 'on') {
    const { decideSandbox } = await import('../sandbox/index.js');
    decideSandbox({ mode: 'on', modeFrom: 'flag' });
  }
  const execCwd = p.exec.cwd ? resolve(p.cwd, p.exec.cwd) : p.cwd;
  const inputs: BatchInput[] = [];
  const problems: Problem[] = [];
  for (const plan of p.plans) {
    inputs.push({ path: plan.path, role: `plan ${plan.id}` });
    const fm = (await loadPlan(plan.path)).config;
    // The same choice of command as the run makes (src/loop/run-config.ts): --agent's preset first.
    const agent = p.exec.agent !== undefined ? resolveAgent(p.exec.agent, p.exec.command ?? []) : undefined;
    const command = agent ? agent.command : p.exec.command?.length ? p.exec.command : fm.command;
    const executor = agent ? 'command' : p.exec.executor ?? (p.exec.command?.length ? 'command' : fm.executor ?? (fm.command ? 'command' : undefined));
    if (executor !== 'command' || !command?.length) continue;
    const reason = cannotStartReason(command[0]!, execCwd, process.env);
    if (reason !== null) problems.push({ file: plan.path, message: `cannot start "${command[0]}": ${reason}; check the command after -- or the plan's command` });
    for (const path of filesOfCommand(command, execCwd)) inputs.push({ path, role: `agent command of plan ${plan.id}` });
  }
  if (problems.length) throw new InvalidInputError(problems, 'cannot start the batch');
  if (p.isolate !== 'worktree' || p.repo === null) return { base: null };

  const dirty = await dirtyInputs(p.repo, inputs);
  if (dirty.length > 0 && !p.allowDirty) {
    const seen = new Set<string>();
    const lines = dirty.filter((d) => !seen.has(`${d.rel}\0${d.role}`) && seen.add(`${d.rel}\0${d.role}`)).map((d) => `  ${d.rel}: ${d.state} (${d.role})`);
    throw new UsageError(
      `the worktrees of this batch would not hold what you see: these files differ from the last commit:\n${lines.join('\n')}`,
      'Commit them, or pass --allow-dirty to run every plan on a snapshot of the working tree as it is now.',
    );
  }
  if (!p.allowDirty) return { base: await headCommit(p.repo) };
  return { base: await snapshotWorkingTree(p.repo, `ralph: the working tree at the start of batch ${p.batchId} (--allow-dirty)`) };
}
