// Opening a run (docs/loop.md#before-the-first-iteration, #resume): a new run's directory, id and
// state, or a stopped run's state taken up again; its sandbox; and a new run's first look at its
// checks on the untouched tree (docs/plans.md#checks-that-can-fail).
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { DEFAULTS } from '../contract.js';
import { UsageError } from '../errors.js';
import { stopProcesses } from '../executors/process-tree.js';
import { ZERO_USAGE } from '../executors/types.js';
import type { Plan } from '../plan/index.js';
import { findRun } from '../runs/find-run.js';
import { ralphAlive } from '../runs/liveness.js';
import { runPaths, runsRoot } from '../runs/paths.js';
import { newRunId } from '../runs/run-id.js';
import { resumeCommand } from '../runs/run-settings.js';
import { loadState, type RunState } from '../runs/run-state.js';
import { openRunSandbox, type RunSandbox } from '../sandbox/index.js';
import type { CommandSandbox } from '../sandbox/types.js';
import { runBaseline, type Baseline } from './baseline-checks.js';
import { runCheckOptions } from './checks.js';
import type { RunBus } from './bus.js';
import type { Clock } from './clock.js';
import { processMarker } from './leftover-processes.js';
import type { RunConfig } from './run-config.js';
import { chooseTaskCheckMode, tasksOf } from './task-checks.js';
import type { ExecOptions } from './types.js';

/** The run's sandbox; each refusal becomes a `sandbox_denied` event of the iteration it came in. */
export function openSandboxOf(config: RunConfig, plan: Plan, env: NodeJS.ProcessEnv, state: RunState, bus: RunBus): Promise<RunSandbox> {
  const facts = {
    settings: config.sandbox,
    tree: config.cwd,
    planPath: plan.path,
    summaryPath: config.summaryPath,
    executor: config.executor,
    ...(config.command ? { command: config.command } : {}),
    ...(config.agent ? { agentName: config.agent.name } : {}),
    env,
  };
  return openRunSandbox(facts, (r) => bus.emitEvent({ type: 'sandbox_denied', iteration: state.iteration, ...r }), state.sandbox?.refusals);
}

/**
 * A new run's checks, once on the untouched tree (docs/plans.md#checks-that-can-fail); the tasks'
 * states start from it, and how long the tasks' checks took chooses when they run.
 */
export async function checkBaseline(plan: Plan, config: RunConfig, state: RunState, signal: AbortSignal | undefined, sandbox: CommandSandbox | undefined): Promise<Baseline | undefined> {
  const mode = plan.config.taskChecks;
  const tasks = mode === 'off' ? [] : tasksOf(plan);
  state.tasks = tasks;
  if (config.verify.length === 0 && tasks.length === 0) {
    state.taskCheckMode = mode ?? 'gate';
    return undefined;
  }
  const baseline = await runBaseline(config.verify, tasks, runCheckOptions(config, state.runId, signal, sandbox));
  state.taskCheckMode = chooseTaskCheckMode(mode, baseline.aborted ? undefined : baseline.taskChecksMs);
  if (plan.config.strictChecks === true && baseline.vacuous.length > 0) {
    throw new UsageError(
      `strict_checks: ${baseline.vacuous.length} check(s) of ${plan.path} already pass before the agent has changed anything: ${baseline.vacuous.join('; ')}`,
      'Make every check fail until the work is done (a test of what the plan adds), or remove strict_checks: true.',
    );
  }
  return baseline;
}

export function limitsOf(config: RunConfig): RunState['limits'] {
  return {
    maxIterations: config.maxIterations,
    maxBailouts: config.maxBailouts,
    maxCostUsd: config.maxCostUsd ?? null,
    maxRuntimeMs: config.maxRuntimeMs ?? null,
    silenceTimeoutMs: config.silenceTimeoutMs,
    maxWaitMs: config.maxWaitMs,
    maxStalls: config.maxStalls,
  };
}

export function openNew(options: ExecOptions, plan: Plan, config: RunConfig, cwd: string, clock: Clock) {
  const startedAtMs = clock.now();
  const runId = options.runDir !== undefined ? basename(resolve(options.runDir)) : newRunId(new Date(startedAtMs));
  const paths = runPaths(options.runDir !== undefined ? resolve(options.runDir) : resolve(runsRoot(cwd), runId));
  if (existsSync(paths.result) || existsSync(paths.state)) {
    throw new UsageError(`the run directory ${paths.dir} already holds a run`, 'Use --resume to continue it, or choose another --run-dir.');
  }
  const state: RunState = {
    version: 1,
    runId,
    plan: plan.id,
    planPath: plan.path,
    cwd,
    executor: config.executor,
    startedAt: new Date(startedAtMs).toISOString(),
    startedAtMs,
    iteration: 0,
    bailouts: 0,
    consecutiveBailouts: 0,
    consecutiveFailures: 0,
    consecutiveBlockRejections: 0,
    costUsd: null,
    tokens: { ...ZERO_USAGE },
    signals: [],
    warnings: [],
    prUrl: null,
    headAtStart: null,
    iterationStart: null,
    executorPid: null,
    pid: process.pid,
    feedback: null,
    nextFresh: true,
    outcome: null,
    limits: limitsOf(config),
    checkboxAtStart: false,
    runToken: randomBytes(12).toString('hex'),
  };
  return { paths, state, mode: 'new' as const, note: undefined };
}

export async function openForResume(options: ExecOptions, plan: Plan, cwd: string) {
  const paths = findRun(cwd, options.resume, options.runDir);
  const state = loadState(paths.state);
  if (!state) throw new UsageError(`cannot resume ${paths.dir}: it has no readable state.json`);
  if (state.plan !== plan.id) {
    throw new UsageError(`run ${state.runId} is for plan "${state.plan}", not "${plan.id}"`, `Resume it with: ${resumeCommand({ ...state, runDir: paths.dir })}`);
  }
  if (state.outcome === 'complete') throw new UsageError(`run ${state.runId} already ended complete: nothing to resume`);
  if (state.pid !== process.pid && state.outcome === null && ralphAlive(state.pid)) {
    throw new UsageError(`run ${state.runId} is still running (pid ${state.pid})`, `Stop it first: ralph stop ${state.runId}`);
  }
  let note: string | undefined;
  if (state.outcome === null) note = `ralph (pid ${state.pid}) ended without writing a result`;
  // What the dead run left running, its executor's group and what the agent started (setsid
  // daemons included), goes before anything runs again: one pass, one grace.
  const groups = state.executorPid !== null ? [state.executorPid] : [];
  const leftovers = await stopProcesses({ groups, marker: processMarker(state) }, DEFAULTS.killGraceMs);
  state.executorPid = null;
  state.runToken ??= randomBytes(12).toString('hex');
  if (leftovers.length > 0) note = `${note ?? 'resuming'}; ${leftovers.length} process(es) of the run were still running and were stopped`;
  state.pid = process.pid;
  state.outcome = null;
  // Each session of a run has its own --max-wait; a wait in progress goes on for what is left.
  state.waitedMs = 0;
  return { paths, state, mode: 'resume' as const, note };
}
