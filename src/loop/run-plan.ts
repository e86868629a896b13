// The iteration state machine of docs/loop.md: one plan, run to one outcome. It never prints and
// never installs process signal handlers; everything it does goes out as events on the bus.
import { existsSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { DEFAULTS, EXIT_CODES, RALPH_ENV, SIGNAL_FILES, TASK_COMPLETE_CHECKBOX, SIGNAL, type Outcome } from '../contract.js';
import { UsageError } from '../errors.js';
import { createExecutor } from '../executors/index.js';
import { assertCanStart } from '../executors/command/can-start.js';
import { stopProcesses } from '../executors/process-tree.js';
import { addUsage, ZERO_USAGE, type Executor } from '../executors/types.js';
import { FindingsLog } from '../findings/findings-log.js';
import { extractSection, isTaskCompleteChecked, loadPlan, MAX_PLAN_BYTES, type Plan } from '../plan/index.js';
import { buildPrompt } from '../prompts/build-prompt.js';
import { loadTemplates, render, type Templates } from '../prompts/templates.js';
import { findRun } from '../runs/find-run.js';
import { keepOutOfGit } from '../runs/git-ignore.js';
import { JsonlAppender } from '../runs/jsonl-appender.js';
import { ralphAlive } from '../runs/liveness.js';
import { globalStopRequest, runPaths, runsRoot, type RunPaths } from '../runs/paths.js';
import { acquirePlanLock } from '../runs/plan-lock.js';
import { newRunId } from '../runs/run-id.js';
import { resumeCommand, settingsOf, withStoredSettings } from '../runs/run-settings.js';
import { loadState, saveState, type RunState } from '../runs/run-state.js';
import { writeStatus } from '../runs/status-file.js';
import { Transcript, type TranscriptSummary } from '../runs/transcript.js';
import { decide, type Decision, type Weighed } from '../signals/index.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { readRegularFileSync } from '../util/read-regular-file.js';
import { acceptanceGate } from './acceptance-gate.js';
import { runBaseline, type Baseline } from './baseline-checks.js';
import type { CheckResult } from './checks.js';
import { normaliseToolError } from './error-loop.js';
import { fingerprintProtected, globToRegExp } from './protected-files.js';
import { iterationReceipt, taskReceipts } from './receipts.js';
import { checkTasks, chooseTaskCheckMode, firstFailing, tasksOf, tasksVerified, type TaskRound } from './task-checks.js';
import { diskFullEnding, isDiskFull } from './disk-full.js';
import { killLeftoversNow, processMarker, stopLeftovers } from './leftover-processes.js';
import { preflight } from './preflight.js';
import { setSummaryAside } from './summary-aside.js';
import { checkBlocker } from './blocker-check.js';
import { RunBus } from './bus.js';
import { systemClock, type Clock } from './clock.js';
import { planWait, sleepUntil, type LimitReport, type SharedLimits } from './limit-wait.js';
import { ownOutputFiles, workFingerprint } from './work-fingerprint.js';
import { formatDuration } from '../util/duration.js';
import { localTime } from '../ui/wait-line.js';
import type { RunEvent } from './events.js';
import { fileClaims, findPrUrl, moveAside, removeStaleSignalFiles, snapshotSignalFiles, type FileClaims } from './file-signals.js';
import { commitsSince, headSha, rootAndHead } from './git.js';
import { runIteration, type IterationResult } from './iteration.js';
import type { RunExtras, RunLifecycle } from './lifecycle.js';
import { SETUP_FAILURES, SetupFailures } from './setup-failures.js';
import { resolveConfig, type RunConfig } from './run-config.js';
import { decideSandbox, openRunSandbox, type RunSandbox, type SandboxDecision } from '../sandbox/index.js';
import type { CommandSandbox } from '../sandbox/types.js';
import { costIs, firstLimit, iterationCountIs, runtimeIs, type StopRule } from './stop-rules.js';
import { watchToolFailureStreak } from './tool-failure-streak.js';
import type { ExecOptions, RunResult } from './types.js';

export interface RunHooks extends RunExtras {
  /** Aborting it interrupts the run: the executor is stopped, state saved, outcome `interrupted`. */
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  bus?: RunBus;
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  /** Whether output text is decoded into `output` events (someone shows it). */
  wantOutput?: boolean;
  /**
   * Called once the run directory exists, with a function that writes an `interrupted` result
   * synchronously and returns the reason it wrote (the resume command in it), for the last line.
   */
  onEmergencyExit?: (writeNow: () => string) => void;
  /** A batch's plans that use the same agent wait for its limits together. */
  sharedLimits?: SharedLimits;
}

interface DueWait extends LimitReport {
  until: number;
  basis: 'reset' | 'retry-after' | 'backoff' | 'shared';
}

type Ending = { outcome: Outcome; reason: string };

export async function runPlan(given: ExecOptions, hooks: RunHooks = {}): Promise<RunResult> {
  const clock = hooks.clock ?? systemClock;
  const env = hooks.env ?? process.env;
  const bus = hooks.bus ?? new RunBus();
  if (hooks.onEvent) bus.on('event', hooks.onEvent);

  const cwd = resolve(given.cwd);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new UsageError(`the working directory ${cwd} does not exist`, 'Pass an existing folder with --cwd.');
  }
  // A resumed run starts as it was started (docs/first-hour.md): stored options under the given ones.
  const options = withStoredSettings(given);
  const plan = await loadPlan(resolve(options.planPath));
  const config = resolveConfig(options, plan, env, hooks.project);
  if (config.executor === 'command') assertCanStart(config.command, config.cwd, env, '', config.agent);
  // `--sandbox on` where it cannot start is refused here, before the run exists (exit 64).
  const sandboxChoice = decideSandbox(config.sandbox);
  const templates = loadTemplates(config.promptsDir);
  const opened = options.resume !== undefined ? await openForResume(options, plan, cwd) : openNew(options, plan, config, cwd, clock);
  const { paths, state } = opened;
  preflight({
    cwd,
    runDir: paths.dir,
    runDirGiven: options.runDir !== undefined,
    summaryPath: config.summaryPath,
    requireSummary: config.requireSummary,
    fresh: opened.mode === 'new',
  });
  state.limits = limitsOf(config);
  state.settings = settingsOf(options);
  const lock = acquirePlanLock({ cwd, planPath: plan.path, planId: plan.id, runId: state.runId, runDir: paths.dir });
  try {
    keepOutOfGit(paths.dir, cwd);
    const sandbox = sandboxChoice.on ? await openSandboxOf(config, plan, env, state, bus) : undefined;
    try {
      // The checks run where the agent's work will be checked: in the sandbox, when there is one.
      const baseline = opened.mode === 'new' ? await checkBaseline(plan, config, state, hooks.signal, sandbox?.forVerify()) : undefined;
      const executor = await createExecutor(config, env, sandbox?.forAgent());
      const run = new PlanRun({ plan, config, templates, paths, state, executor, bus, clock, hooks, mode: opened.mode, resumeNote: opened.note, sandbox: { choice: sandboxChoice, run: sandbox }, baseline });
      return await run.execute();
    } finally {
      await sandbox?.close();
    }
  } finally {
    lock.release();
  }
}

/** The run's sandbox; each refusal becomes a `sandbox_denied` event of the iteration it came in. */
function openSandboxOf(config: RunConfig, plan: Plan, env: NodeJS.ProcessEnv, state: RunState, bus: RunBus): Promise<RunSandbox> {
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
async function checkBaseline(plan: Plan, config: RunConfig, state: RunState, signal: AbortSignal | undefined, sandbox: CommandSandbox | undefined): Promise<Baseline | undefined> {
  const mode = plan.config.taskChecks;
  const tasks = mode === 'off' ? [] : tasksOf(plan);
  state.tasks = tasks;
  if (config.verify.length === 0 && tasks.length === 0) {
    state.taskCheckMode = mode ?? 'gate';
    return undefined;
  }
  const baseline = await runBaseline(config.verify, tasks, {
    cwd: config.cwd,
    ...(signal ? { signal } : {}),
    ...(config.verifyTimeoutMs !== undefined ? { timeoutMs: config.verifyTimeoutMs } : {}),
    env: { [RALPH_ENV.runId]: state.runId },
    ...(sandbox ? { sandbox } : {}),
  });
  state.taskCheckMode = chooseTaskCheckMode(mode, baseline.aborted ? undefined : baseline.taskChecksMs);
  if (plan.config.strictChecks === true && baseline.vacuous.length > 0) {
    throw new UsageError(
      `strict_checks: ${baseline.vacuous.length} check(s) of ${plan.path} already pass before the agent has changed anything: ${baseline.vacuous.join('; ')}`,
      'Make every check fail until the work is done (a test of what the plan adds), or remove strict_checks: true.',
    );
  }
  return baseline;
}

function limitsOf(config: RunConfig): RunState['limits'] {
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

function openNew(options: ExecOptions, plan: Plan, config: RunConfig, cwd: string, clock: Clock) {
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

async function openForResume(options: ExecOptions, plan: Plan, cwd: string) {
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

interface PlanRunInit {
  plan: Plan;
  config: RunConfig;
  templates: Templates;
  paths: RunPaths;
  state: RunState;
  executor: Executor;
  bus: RunBus;
  clock: Clock;
  hooks: RunHooks;
  mode: 'new' | 'resume';
  resumeNote: string | undefined;
  sandbox: { choice: SandboxDecision; run: RunSandbox | undefined };
  /** A new run's checks on the untouched tree. */
  baseline: Baseline | undefined;
}

class PlanRun {
  private readonly plan: Plan;
  private readonly config: RunConfig;
  private readonly state: RunState;
  private readonly paths: RunPaths;
  private readonly bus: RunBus;
  private readonly clock: Clock;
  private readonly events: JsonlAppender;
  private readonly findings: FindingsLog;
  private readonly rules: StopRule[];
  private readonly runAbort = new AbortController();
  private resumeReason: string | undefined;
  private waitBasis: DueWait['basis'] = 'reset';
  /** Notes for the next prompt gathered while an iteration is settled (denied tools, near misses). */
  private pendingFeedback: string[] = [];
  /** Findings seen in this session of the run: the same finding again is not progress. */
  private readonly seenFindings = new Set<string>();
  private repo = '';
  /** Hooks and notifications (docs/config.md); none when the caller gave no factory. */
  private readonly lifecycle: RunLifecycle | undefined;
  private readonly setupFailures = new SetupFailures();
  /** Files ralph writes itself (its run directory, its own output redirected into the tree): never progress. */
  private readonly ownFiles: { files: string[]; dirs: string[] };
  /** Near misses of the stalled iterations in a row, for the no_progress reason. */
  private stallNearMisses: string[] = [];
  /** The checks run for the iteration being settled, and its rejection: its receipt. */
  private iterationChecks: CheckResult[] = [];
  private iterationRejection: string | null = null;

  constructor(private readonly init: PlanRunInit) {
    this.plan = init.plan;
    this.config = init.config;
    this.state = init.state;
    this.paths = init.paths;
    this.bus = init.bus;
    this.clock = init.clock;
    this.ownFiles = { files: ownOutputFiles(), dirs: [this.paths.dir] };
    this.events = new JsonlAppender(this.paths.events);
    this.findings = new FindingsLog(this.paths.findings);
    this.rules = [iterationCountIs(this.config.maxIterations)];
    if (this.config.maxCostUsd !== undefined) this.rules.push(costIs(this.config.maxCostUsd));
    if (this.config.maxRuntimeMs !== undefined) this.rules.push(runtimeIs(this.config.maxRuntimeMs));
    this.bus.on('event', (e) => this.record(e));
    watchToolFailureStreak(this.bus);
    const { runId, cwd } = this.state;
    this.lifecycle = init.hooks.lifecycle?.({ runId, runDir: this.paths.dir, plan: this.plan.id, planPath: this.plan.path, cwd, mode: init.mode }, this.bus);
  }

  /** events.jsonl gets every event but raw output (that is in the transcripts); findings.jsonl gets observations. */
  private record(e: RunEvent): void {
    if (e.type === 'output') return;
    const at = new Date(this.clock.now()).toISOString();
    this.events.append({ at, ...e });
    if (e.type === 'observation') {
      this.findings.append({ run: this.state.runId, plan: this.state.plan, iteration: e.iteration, at, record: e.record });
    }
    if (e.type === 'warning' && !this.state.warnings.includes(e.message)) this.state.warnings.push(e.message);
  }

  private emit(e: RunEvent): void {
    this.bus.emitEvent(e);
  }

  private warn(message: string, iteration?: number): void {
    this.emit({ type: 'warning', message, ...(iteration !== undefined ? { iteration } : {}) });
  }

  private status(state: string, wait?: DueWait): void {
    writeStatus(this.paths.status, {
      ...(wait ? { waitingUntil: new Date(wait.until).toISOString(), waitingFor: `${wait.kind} limit` } : {}),
      repo: this.repo,
      plan: this.plan.path,
      started: this.state.startedAt,
      mode: this.config.executor,
      task: this.state.outcome === null ? this.currentTask() : null,
      state,
      iteration: this.state.iteration,
      pid: process.pid,
      ...(this.state.tasks?.length
        ? {
            tasksVerified: tasksVerified(this.state.tasks),
            tasks: this.state.tasks.map((t) => ({ name: t.name, status: t.status, firstPassedIteration: t.firstPassedIteration, ...(t.reason ? { reason: t.reason } : {}), ...(t.tail ? { tail: t.tail } : {}) })),
          }
        : {}),
    });
    saveState(this.paths.state, this.state);
  }

  /** The first task whose name the plan's Progress section does not mention yet. */
  private currentTask(): string | null {
    const text = this.readPlanText();
    const progress = (text !== undefined && extractSection(text, 'Progress')) || '';
    return this.plan.tasks.find((t) => !progress.includes(t.name))?.name ?? null;
  }

  private readPlanText(): string | undefined {
    try {
      // The agent edits the plan; one that made it a FIFO must not hang the loop.
      return readRegularFileSync(this.plan.path, MAX_PLAN_BYTES).toString('utf8');
    } catch {
      return undefined;
    }
  }

  private elapsedMs(): number {
    return this.clock.now() - this.state.startedAtMs;
  }

  async execute(): Promise<RunResult> {
    const { hooks } = this.init;
    hooks.onEmergencyExit?.(() => {
      if (this.state.executorPid !== null) {
        try {
          process.kill(-this.state.executorPid, 'SIGKILL');
        } catch {
          // already gone
        }
        this.state.executorPid = null;
      }
      killLeftoversNow(processMarker(this.state));
      const reason = `interrupted twice: stopped at once; resume with: ${this.resumeCommand()}`;
      this.writeResultSync({ outcome: 'interrupted', reason });
      return reason;
    });
    const onAbort = () => this.runAbort.abort('interrupt');
    if (hooks.signal?.aborted) onAbort();
    else hooks.signal?.addEventListener('abort', onAbort, { once: true });
    let runtimeTimer: unknown;
    if (this.config.maxRuntimeMs !== undefined) {
      const left = Math.max(0, this.config.maxRuntimeMs - this.elapsedMs());
      runtimeTimer = this.clock.setTimeout(() => {
        const reason = firstLimit([runtimeIs(this.config.maxRuntimeMs!)], this.limitContext())?.reason ?? 'max_runtime reached';
        this.runAbort.abort({ limit: reason });
      }, left);
    }
    try {
      let ending: Ending;
      try {
        ending = await this.loop();
      } catch (error) {
        // A full disk ends the run with a documented outcome, not an internal error (docs/hostile.md).
        if (!isDiskFull(error)) throw error;
        const e = error as NodeJS.ErrnoException;
        ending = diskFullEnding(`${e.code} writing ${e.path ?? 'a run file'}`, this.resumeCommand());
      }
      return await this.finish(ending);
    } finally {
      if (runtimeTimer !== undefined) this.clock.clearTimeout(runtimeTimer);
      hooks.signal?.removeEventListener('abort', onAbort);
      await this.init.executor.close?.();
      this.events.close();
      this.findings.close();
    }
  }

  private limitContext() {
    return { iteration: this.state.iteration, costUsd: this.state.costUsd, elapsedMs: this.elapsedMs() };
  }

  private async loop(): Promise<Ending> {
    const { state, config, plan } = this;
    const { root, head } = await rootAndHead(config.cwd);
    this.repo = root ?? config.cwd;
    if (this.init.mode === 'new') state.headAtStart = head;
    this.emit({
      type: 'run-start',
      runId: state.runId,
      runDir: this.paths.dir,
      plan: plan.id,
      planPath: plan.path,
      cwd: config.cwd,
      mode: this.init.mode,
      executor: config.executor,
      ...(config.agent !== undefined ? { agent: config.agent.name } : {}),
      maxIterations: config.maxIterations,
      startedAt: state.startedAt,
      head: state.headAtStart,
      config: this.init.hooks.project?.file ?? null,
    });
    if (config.executor === 'command' && config.command) {
      // The expanded command and how it is read, so users can copy and adapt it (docs/agents.md).
      this.emit({ type: 'agent', name: config.agent?.name ?? null, command: config.command, streamFormat: config.streamFormat, formatChosen: config.formatChosen });
    }
    this.announceSandbox();
    this.status('starting');

    if (config.maxCostUsd !== undefined && config.executor === 'command' && config.streamFormat === 'text') {
      this.warn('--max-cost cannot be enforced: a plain text stream reports no cost (use --stream-format claude-json, or the anthropic executor)');
    }
    // The plan's own warnings (unknown front-matter keys, …), worded as `ralph validate` words them.
    for (const w of plan.warnings) this.warn(`${plan.path}: ${w}`);
    if (this.init.mode === 'new') {
      this.startChecks();
      const removed = removeStaleSignalFiles(config.cwd);
      if (removed.length) this.warn(`removed stale signal files before the first iteration: ${removed.join(', ')}`);
      this.summaryAside();
      state.checkboxAtStart = isTaskCompleteChecked(plan.text);
      if (state.checkboxAtStart) {
        this.warn(`the plan already has a checked "[x] ${TASK_COMPLETE_CHECKBOX}" box at the start: it is stale and ignored`);
      }
    } else {
      if (this.init.resumeNote) this.warn(this.init.resumeNote);
      // The interrupted iteration counts: its signal files are weighed as its claims first.
      const interrupted = state.iterationStart;
      if (interrupted && state.iteration > 0) {
        const fc = fileClaims(config.cwd, interrupted.files);
        const weighed = [...fc.claims, ...this.checkboxClaim()];
        if (weighed.length > 0) {
          const ending = await this.settle(state.iteration, weighed, fc, undefined);
          if (ending) return ending;
        } else {
          this.resumeReason = 'the previous run was interrupted';
        }
      } else {
        this.resumeReason = 'the previous run was interrupted';
      }
      state.iterationStart = null;
      state.nextFresh = true;
      this.resumeReason ??= 'the previous run was interrupted';
    }

    for (;;) {
      const unwritable = [this.events, this.findings.log].find((f) => f.error !== undefined);
      if (unwritable) {
        if (!isDiskFull(unwritable.error)) throw unwritable.error;
        return diskFullEnding(`${unwritable.error!.code} writing ${unwritable.path}`, this.resumeCommand());
      }
      if (this.runAbort.signal.aborted) return this.interruptedOrLimit();
      const limit = firstLimit(this.rules, this.limitContext());
      if (limit) return { outcome: 'exhausted', reason: limit.reason };
      const stopFile = this.stopRequested();
      if (stopFile) {
        // A directory made there mid-run is still a request to stop (docs/hostile.md).
        rmSync(stopFile, { force: true, recursive: true });
        return { outcome: 'interrupted', reason: `stop requested (${stopFile}); resume with: ${this.resumeCommand()}` };
      }
      const due = this.dueWait();
      if (due) {
        const ending = await this.waitOut(due);
        if (ending) return ending;
        continue;
      }

      this.iterationChecks = [];
      this.iterationRejection = null;
      const feedbackUsed = state.feedback;
      const resumeReasonUsed = this.resumeReason;
      state.iteration++;
      const n = state.iteration;
      await this.lifecycle?.beforeIteration(n);
      // Same context only where the agent can really continue one (docs/agents.md): a JSON stream
      // whose agent never reported a session starts fresh, and is told so.
      const continues = this.init.executor.canContinue ? this.init.executor.canContinue() : true;
      let fresh = state.nextFresh;
      if (!fresh && continues === false) {
        fresh = true;
        this.resumeReason ??= 'the previous session could not be continued (the agent reported no session id)';
        this.warn(`iteration ${n}: the agent reported no session to continue; starting a fresh context`, n);
      }
      const planText = this.readPlanText() ?? plan.text;
      const progress = extractSection(planText, 'Progress');
      const observations = extractSection(planText, 'Observations');
      const { prompt, kind } = buildPrompt({
        templates: this.init.templates,
        iteration: n,
        maxIterations: config.maxIterations,
        cwd: config.cwd,
        planPath: plan.path,
        planId: plan.id,
        planText,
        summaryPath: config.summaryPath,
        fresh,
        ...(fresh && this.resumeReason !== undefined ? { resumeReason: this.resumeReason } : {}),
        ...(progress !== undefined ? { progress } : {}),
        ...(observations !== undefined ? { observations } : {}),
        ...(state.feedback ? { feedback: state.feedback } : {}),
        continuesSession: !fresh && continues === true,
      });
      state.feedback = null;
      this.resumeReason = undefined;
      state.iterationStart = {
        head: await headSha(config.cwd),
        files: snapshotSignalFiles(config.cwd),
      };
      const workBefore = config.maxStalls > 0 ? await workFingerprint(config.cwd, planText, state.iterationStart.head, this.ownFiles) : undefined;
      this.status('running');
      this.emit({ type: 'iteration-start', iteration: n, maxIterations: config.maxIterations, fresh, prompt: kind });

      const transcript = new Transcript(this.paths.transcript(n), config.maxLogBytes);
      let result: IterationResult;
      let kept: TranscriptSummary | undefined;
      try {
        result = await runIteration({
          executor: this.init.executor,
          prompt,
          fresh,
          iteration: n,
          cwd: config.cwd,
          env: this.executorEnv(n, fresh),
          ...(this.init.hooks.hideEnv?.length ? { hideEnv: this.init.hooks.hideEnv } : {}),
          bus: this.bus,
          transcript,
          clock: this.clock,
          silenceTimeoutMs: config.silenceTimeoutMs,
          ...(config.iterationTimeoutMs !== undefined ? { iterationTimeoutMs: config.iterationTimeoutMs } : {}),
          signalGraceMs: config.signalGraceMs,
          runSignal: this.runAbort.signal,
          costBefore: state.costUsd,
          tokensBefore: state.tokens,
          ...(config.maxCostUsd !== undefined ? { maxCostUsd: config.maxCostUsd, budgetUsd: Math.max(0, config.maxCostUsd - (state.costUsd ?? 0)) } : {}),
          wantOutput: this.init.hooks.wantOutput ?? false,
          maxLogBytes: config.maxLogBytes,
          onProcess: (pid) => {
            state.executorPid = pid;
            saveState(this.paths.state, state);
          },
        });
      } finally {
        kept = transcript.close();
      }
      if (kept.droppedBytes > 0) this.emit({ type: 'transcript-cut', iteration: n, ...kept });
      state.executorPid = null;
      await stopLeftovers(processMarker(state), n, this.bus, this.init.executor.keptProcesses?.() ?? []);
      // The live `usage` events already carried these, with the run's totals (docs/agents.md).
      state.tokens = addUsage(state.tokens, result.tokens);
      if (result.costUsd !== null) state.costUsd = (state.costUsd ?? 0) + result.costUsd;
      if (result.stop) (state.stops ??= []).push({ iteration: n, cause: result.stop.cause, detail: result.stop.detail });

      if (result.stop?.cause === 'disk_full') {
        this.emit({ type: 'iteration-end', iteration: n, exitCode: result.exitCode, durationMs: result.durationMs, decision: 'none' });
        return diskFullEnding(result.stop.detail, this.resumeCommand());
      }
      if (result.stop?.cause === 'interrupt') {
        // Left for --resume: the interrupted iteration's files are weighed then.
        this.addReceipt(n, result, 'none');
        this.emit({ type: 'iteration-end', iteration: n, exitCode: result.exitCode, durationMs: result.durationMs, decision: 'none' });
        return { outcome: 'interrupted', reason: `interrupted during iteration ${n}; resume with: ${this.resumeCommand()}` };
      }
      const fc = fileClaims(config.cwd, state.iterationStart.files);
      for (const why of fc.ignored) this.warn(`${why} in the working directory: ignored (signal files count only as regular files of their own)`, n);
      const weighed = [...result.weighed, ...fc.claims, ...this.checkboxClaim()];
      if (result.limit && decide(weighed).kind === 'none') {
        // Refused for a limit: this attempt does not count, and the same iteration runs again
        // once the limit resets (with the same prompt).
        this.emit({ type: 'iteration-end', iteration: n, exitCode: result.exitCode, durationMs: result.durationMs, decision: 'none' });
        state.iteration = n - 1;
        state.feedback = feedbackUsed;
        this.resumeReason = resumeReasonUsed;
        state.nextFresh = fresh;
        state.iterationStart = null;
        this.scheduleWait(result.limit);
        continue;
      }
      if (result.resumeRefused && decide(weighed).kind === 'none') {
        // The session to continue does not exist (never saved): this attempt does not count, and
        // the same iteration runs at once in a fresh context (docs/agents.md, "Sessions").
        this.emit({ type: 'iteration-end', iteration: n, exitCode: result.exitCode, durationMs: result.durationMs, decision: 'none' });
        this.warn(`iteration ${n}: the agent could not resume its session (${(result.failureDetail ?? 'no such session').split('\n')[0]!.slice(0, 160)}); running it again in a fresh context`, n);
        state.iteration = n - 1;
        state.feedback = feedbackUsed;
        this.resumeReason = 'the previous session could not be resumed (the agent has no such session)';
        state.nextFresh = true;
        state.iterationStart = null;
        continue;
      }
      state.limitStreak = 0;
      const newFinding = result.findings.filter((key) => !this.seenFindings.has(key)).length > 0;
      for (const key of result.findings) this.seenFindings.add(key);
      // Progress matters only to an iteration that decided nothing: the others skip the git calls.
      const undecided = decide(weighed).kind === 'none';
      // A claim runs the tasks' checks at the gate; other iterations run them here when they are quick.
      const round = !undecided && decide(weighed).kind !== 'bailout' ? undefined : await this.checkTasksAfter(n);
      const tasksProgressed = (round?.newlyPassing.length ?? 0) > 0;
      const progressed =
        !undecided ||
        workBefore === undefined ||
        newFinding ||
        tasksProgressed ||
        (await workFingerprint(config.cwd, this.readPlanText(), await headSha(config.cwd), this.ownFiles)) !== workBefore;
      const ending = await this.settle(n, weighed, fc, result, progressed);
      this.addReceipt(n, result, decide(weighed).kind);
      this.emit({ type: 'iteration-end', iteration: n, exitCode: result.exitCode, durationMs: result.durationMs, decision: decide(weighed).kind });
      const hookStop = await this.lifecycle?.afterIteration(n, decide(weighed).kind);
      if (ending) return ending;
      if (hookStop !== undefined) return { outcome: 'exhausted', reason: hookStop };
      this.sandboxFeedback();
      if (this.pendingFeedback.length > 0) {
        state.feedback = [state.feedback, ...this.pendingFeedback].filter(Boolean).join('\n\n');
        this.pendingFeedback = [];
      }
    }
  }

  /** Whether the agent runs sandboxed, said once at the start (a warning when auto could not). */
  private announceSandbox(): void {
    const { choice, run } = this.init.sandbox;
    if (!choice.on) {
      if (choice.warning !== undefined) this.warn(choice.warning);
      this.emit({ type: 'sandbox', mode: 'off', why: choice.why });
      return;
    }
    this.emit({ type: 'sandbox', mode: 'on', why: choice.why, writable: run!.policy.write, hosts: run!.policy.hosts });
  }

  /** Refusals of the iteration: their counts reported, kept for --resume, named in the next prompt. */
  private sandboxFeedback(): void {
    const run = this.init.sandbox.run;
    if (run === undefined) return;
    run.flush();
    this.state.sandbox = { mode: 'on', ...run.summary() };
    const line = run.takeFeedback();
    if (line !== undefined) this.pendingFeedback.push(line);
  }

  private stopRequested(): string | undefined {
    return [this.paths.stopRequest, globalStopRequest(this.config.cwd)].find((p) => existsSync(p));
  }

  private limitKey(): string {
    const { config } = this;
    return config.executor === 'anthropic' ? 'anthropic' : `${config.command?.[0] ?? ''}|${config.streamFormat}`;
  }

  /** Records when to run the refused iteration again; ends the run when that is past --max-wait. */
  private scheduleWait(limit: LimitReport): void {
    const { state } = this;
    const now = this.clock.now();
    const planned = planWait(limit, now, state.limitStreak ?? 0);
    state.limitStreak = (state.limitStreak ?? 0) + 1;
    this.init.hooks.sharedLimits?.record(this.limitKey(), planned.until, limit);
    state.waitUntil = planned.until;
    state.waitLimit = { kind: limit.kind, message: limit.message };
    this.waitBasis = planned.basis;
    saveState(this.paths.state, state);
  }

  /** A wait in force: one this run scheduled (or was in when it stopped), or one shared in a batch. */
  private dueWait(): DueWait | undefined {
    const { state } = this;
    const now = this.clock.now();
    if (state.waitUntil !== undefined && state.waitUntil !== null) {
      if (state.waitUntil > now) {
        const limit = state.waitLimit ?? { kind: 'usage' as const, message: 'a limit' };
        return { ...limit, until: state.waitUntil, basis: this.waitBasis };
      }
      state.waitUntil = null;
      state.waitLimit = null;
    }
    const shared = this.init.hooks.sharedLimits?.active(this.limitKey(), now);
    return shared ? { ...shared.limit, until: shared.until, basis: 'shared' } : undefined;
  }

  /** Waits for `due`; undefined when the wait is over and the loop goes on, else how the run ends. */
  private async waitOut(due: DueWait): Promise<Ending | undefined> {
    const { state, config, clock } = this;
    const start = clock.now();
    const waited = state.waitedMs ?? 0;
    const iteration = state.iteration + 1;
    const until = new Date(due.until).toISOString();
    if (waited + (due.until - start) > config.maxWaitMs) {
      return {
        outcome: 'exhausted',
        reason:
          `usage_limit: the ${due.kind} limit (${due.message.slice(0, 200)}) lifts at ${localTime(due.until)}, past --max-wait ${formatDuration(config.maxWaitMs)}` +
          ` (${formatDuration(waited)} waited already); resume after it lifts with: ${this.resumeCommand()}`,
      };
    }
    state.waitUntil = due.until;
    state.waitLimit = { kind: due.kind, message: due.message };
    this.status('waiting', due);
    this.emit({ type: 'wait_start', iteration, kind: due.kind, until, reason: due.message, basis: due.basis });
    const end = await sleepUntil(clock, due.until, this.runAbort.signal, () => this.stopRequested() !== undefined);
    const waitedNow = clock.now() - start;
    state.waitedMs = waited + waitedNow;
    this.emit({ type: 'wait_end', iteration, kind: due.kind, until, reason: due.message, waitedMs: waitedNow, end });
    switch (end) {
      case 'done':
        state.waitUntil = null;
        state.waitLimit = null;
        saveState(this.paths.state, state);
        return undefined;
      case 'aborted':
        // state.waitUntil stays: a resumed run waits for the rest.
        return this.interruptedOrLimit();
      case 'stop-requested': {
        const stopFile = this.stopRequested();
        if (stopFile) rmSync(stopFile, { force: true });
        return { outcome: 'interrupted', reason: `stop requested while waiting for the ${due.kind} limit; resume with: ${this.resumeCommand()}` };
      }
      default: {
        const never: never = end;
        return never;
      }
    }
  }

  private interruptedOrLimit(): Ending {
    const reason = this.runAbort.signal.reason;
    if (reason && typeof reason === 'object' && 'limit' in reason) return { outcome: 'exhausted', reason: String((reason as { limit: string }).limit) };
    return { outcome: 'interrupted', reason: `interrupted; resume with: ${this.resumeCommand()}` };
  }

  /** A checked box claims in every iteration, unless it was already checked when the run started (stale). */
  private checkboxClaim(): Weighed[] {
    const text = this.readPlanText();
    if (this.state.checkboxAtStart || text === undefined || !isTaskCompleteChecked(text)) return [];
    return [{ class: 'complete', name: `[x] ${TASK_COMPLETE_CHECKBOX}`, args: [], source: 'checkbox' }];
  }

  private executorEnv(iteration: number, fresh: boolean): Record<string, string> {
    return {
      [RALPH_ENV.runId]: this.state.runId,
      [RALPH_ENV.runDir]: this.paths.dir,
      [RALPH_ENV.plan]: this.plan.path,
      [RALPH_ENV.summary]: this.config.summaryPath,
      [RALPH_ENV.iteration]: String(iteration),
      [RALPH_ENV.freshContext]: fresh ? '1' : '0',
      [RALPH_ENV.runToken]: this.state.runToken!,
    };
  }

  /**
   * Weighs one iteration's signals and claims and applies the decision. Returns how the run
   * ends, or undefined to go on (with state.nextFresh and state.feedback set for the next one).
   */
  private async settle(n: number, weighed: Weighed[], fc: FileClaims, result: IterationResult | undefined, progressed = true): Promise<Ending | undefined> {
    const { state, config } = this;
    for (const w of weighed) state.signals.push({ iteration: n, name: w.name, args: w.args, source: w.source });
    const prUrl = findPrUrl(config.cwd);
    if (prUrl) state.prUrl = prUrl;

    let decision: Decision = decide(weighed);
    const stop = result?.stop;
    let recovered = false;
    if (stop?.cause === 'silence') {
      if (decision.kind === 'none') {
        const commits = await commitsSince(config.cwd, state.iterationStart?.head ?? null);
        if (commits === 0) return { outcome: 'off_rails', reason: `off the rails: ${stop.detail}; no completion file and no commits to recover from` };
        decision = { kind: 'complete', name: 'recovery', source: `${commits} commit(s)` };
        this.warn(`recovered after silence: ${commits} commit(s) since iteration ${n} started count as a completion claim`, n);
      } else if (decision.kind === 'complete') {
        this.warn(`recovered after silence: ${decision.source} counts as a completion claim`, n);
      }
      recovered = decision.kind === 'complete';
    }
    if (stop?.cause === 'flood' && decision.kind === 'none') {
      return { outcome: 'off_rails', reason: `off the rails: ${stop.detail} without a decision` };
    }
    if (stop?.cause === 'error_loop' && (decision.kind === 'none' || decision.kind === 'bailout')) {
      return { outcome: 'off_rails', reason: `off the rails: ${stop.detail}` };
    }
    this.emit({ type: 'decision', iteration: n, decision });

    if (decision.kind !== 'complete') state.rejection = null;
    if (decision.kind !== 'bailout') state.consecutiveBailouts = 0;
    if (decision.kind !== 'none') {
      state.consecutiveFailures = 0;
      this.setupFailures.reset();
    }
    if (decision.kind !== 'blocked') state.consecutiveBlockRejections = 0;
    if (decision.kind !== 'none') {
      state.consecutiveStalls = 0;
      this.stallNearMisses = [];
    }
    if (decision.kind === 'none') {
      this.explainNearMisses(result);
      const denied = this.countDenials(result, progressed);
      if (denied) return denied;
    } else {
      state.consecutiveDenials = 0;
    }

    switch (decision.kind) {
      case 'complete': {
        this.status('verifying');
        let round: TaskRound | undefined;
        const gate = await acceptanceGate(
          {
          planId: this.plan.id,
          summaryPath: config.summaryPath,
          requireSummary: config.requireSummary,
          verify: config.verify,
          cwd: config.cwd,
          runStartedAtMs: state.startedAtMs,
          ...(state.summaryAtStart !== undefined ? { summaryAtStart: state.summaryAtStart } : {}),
          ...(config.verifyTimeoutMs !== undefined ? { verifyTimeoutMs: config.verifyTimeoutMs } : {}),
          env: { [RALPH_ENV.runId]: state.runId },
          signal: this.runAbort.signal,
          ...(this.init.sandbox.run ? { sandbox: this.init.sandbox.run.forVerify() } : {}),
          iteration: n,
          ...(state.tasks?.length ? { tasks: state.tasks } : {}),
          ...(state.guarded ? { guarded: state.guarded } : {}),
          },
          (r) => {
            round = r;
            this.noteTaskRound(n, r, false);
          },
        );
        // Each task's result, then the verdict on all of them.
        for (const c of gate.checks ?? []) this.iterationChecks.push(...(c.check === 'tasks' && round ? round.results : []), c);
        this.emit({ type: 'gate', iteration: n, accepted: gate.complete, reason: gate.reason, ...(gate.verify ? { verify: gate.verify } : {}) });
        if (gate.complete) return { outcome: 'complete', reason: `${decision.name} accepted: ${gate.reason}` };
        if (this.runAbort.signal.aborted) return this.interruptedOrLimit();
        if (recovered) return { outcome: 'off_rails', reason: `off the rails: ${stop!.detail}; the recovery claim was rejected: ${gate.reason}` };
        const moved = moveAside(config.cwd, fc.files.filter((f) => f !== SIGNAL_FILES.blocked), this.paths.rejected(n));
        if (moved.length) this.warn(`moved the rejected claim's files into ${this.paths.rejected(n)}: ${moved.join(', ')}`, n);
        const repeated = this.rejectedAgain(gate.reason);
        if (repeated) return repeated;
        state.feedback = render(this.init.templates['feedback-completion-rejected'], { claim: decision.name, reason: gate.reason });
        state.nextFresh = false;
        return undefined;
      }
      case 'bailout': {
        state.bailouts++;
        state.consecutiveBailouts++;
        if (state.consecutiveBailouts > config.maxBailouts) {
          return { outcome: 'exhausted', reason: `max_bailouts reached: ${state.consecutiveBailouts} bailouts in a row (limit ${config.maxBailouts}); last: ${decision.reason}` };
        }
        this.startFresh(decision.reason);
        return undefined;
      }
      case 'failed':
        return { outcome: 'failed', reason: decision.reason };
      case 'blocked': {
        const verdict = checkBlocker({
          reason: decision.reason,
          hasEvidence: (result?.blockerObservation ?? false) || fc.blockedEvidence !== undefined,
          reject: config.rejectBlockers,
        });
        if (verdict.valid) return this.escalate(decision.reason, fc, 'blocked');
        state.consecutiveBlockRejections++;
        this.emit({ type: 'gate', iteration: n, accepted: false, reason: `blocker rejected: ${verdict.why}` });
        this.iterationRejection = `blocker rejected: ${verdict.why}`;
        if (state.consecutiveBlockRejections >= 2) {
          return this.escalate(decision.reason, fc, `escalated after blocker claims were rejected in two iterations in a row (last: ${verdict.why})`);
        }
        moveAside(config.cwd, fc.files.filter((f) => f === SIGNAL_FILES.blocked), this.paths.rejected(n));
        // A hard failure of the same iteration is never lost with the rejected blocker.
        const failed = decide(weighed.filter((w) => w.class !== 'blocked'));
        if (failed.kind === 'failed') {
          this.emit({ type: 'decision', iteration: n, decision: failed });
          return { outcome: 'failed', reason: failed.reason };
        }
        state.feedback = render(this.init.templates['feedback-blocker-rejected'], { reason: decision.reason, why: verdict.why });
        state.nextFresh = false;
        return undefined;
      }
      case 'none': {
        if (result?.fatal) return { outcome: 'failed', reason: result.exitError ?? 'the executor could not run' };
        const stoppedByUs = result?.stop !== undefined;
        if (result && !stoppedByUs && result.exitCode !== 0) {
          state.consecutiveFailures++;
          // exitError already says who failed ("the Anthropic API failed …"): never "the executor the …".
          const why = result.exitError ?? `exited ${result.exitCode ?? 'by a signal'}`;
          const said = result.failureDetail !== undefined ? `: ${result.failureDetail}` : '';
          this.warn(`iteration ${n} ended without a decision: ${result.exitError ?? `the executor ${why}`}${said}`, n);
          const setup = this.setupFailures.note(result);
          if (state.consecutiveFailures >= 3) {
            if (setup) {
              return {
                outcome: 'failed',
                reason: `setup problem: the agent failed the same way ${SETUP_FAILURES} times in a row before doing anything (${why})${said}`,
              };
            }
            return { outcome: 'failed', reason: `the executor exited non-zero without a decision 3 times in a row (last: ${why}${said})` };
          }
        } else {
          state.consecutiveFailures = 0;
          this.setupFailures.reset();
        }
        if (result && config.maxStalls > 0 && !progressed) {
          state.consecutiveStalls = (state.consecutiveStalls ?? 0) + 1;
          if (result.nearMisses.length > 0) this.stallNearMisses.push(result.nearMisses.at(-1)!.text);
          if (state.consecutiveStalls >= config.maxStalls) {
            // An agent that wrote its signal wrong every time did not simply stall: say so.
            const misses = this.stallNearMisses.length;
            const nearMiss = misses > 0 ? `; ${misses} of them wrote a signal that was not one (last: \`${this.stallNearMisses.at(-1)!.slice(0, 120)}\`): the agent may think it signalled (docs/signals.md#near-misses)` : '';
            return {
              outcome: 'exhausted',
              reason: `no_progress: ${state.consecutiveStalls} iterations in a row ended with no decision and no change to the working tree, HEAD, the plan's Progress or the findings${nearMiss}`,
            };
          }
          this.warn(`iteration ${n} made no progress (${state.consecutiveStalls} of ${config.maxStalls} in a row before the run ends no_progress)`, n);
        } else {
          state.consecutiveStalls = 0;
          this.stallNearMisses = [];
        }
        if (result && result.contextTokens > config.contextBudget) {
          state.bailouts++;
          state.consecutiveBailouts++;
          state.signals.push({ iteration: n, name: SIGNAL.BAILOUT, args: ['context_budget'], source: 'ralph' });
          if (state.consecutiveBailouts > config.maxBailouts) {
            return { outcome: 'exhausted', reason: `max_bailouts reached: ${state.consecutiveBailouts} bailouts in a row (last: context_budget)` };
          }
          this.startFresh('context_budget');
          return undefined;
        }
        state.nextFresh = false;
        return undefined;
      }
      default: {
        const never: never = decision;
        throw new Error(`unknown decision ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * The same rejection in max_stalls iterations in a row ends the run: the agent is not getting
   * anywhere with it (docs/loop.md#limits). Reasons are compared with numbers and paths folded.
   */
  private rejectedAgain(reason: string): Ending | undefined {
    const { state, config } = this;
    this.iterationRejection = reason;
    const key = normaliseToolError(reason);
    const count = state.rejection?.key === key ? state.rejection.count + 1 : 1;
    state.rejection = { key, count };
    if (config.maxStalls > 0 && count >= config.maxStalls) {
      const quoted = reason.length > 600 ? `${reason.slice(0, 600)}…` : reason;
      return { outcome: 'exhausted', reason: `rejected_repeatedly: the same completion claim was rejected for the same reason in ${count} iterations in a row (max_stalls ${config.maxStalls}): ${quoted}` };
    }
    return undefined;
  }

  /** A new run's checks: what the baseline found, the tamper guard's fingerprints, when the tasks' checks run. */
  private startChecks(): void {
    const { state, plan, config } = this;
    const baseline = this.init.baseline;
    for (const v of baseline?.vacuous ?? []) this.warn(v);
    for (const c of baseline?.notCommands ?? []) this.warn(c);
    if (plan.config.allowCheckChanges !== true) {
      state.guarded = fingerprintProtected(config.cwd, plan, config.protect);
      const files = Object.keys(state.guarded.files);
      const empty = [...(plan.config.protect ?? []), ...config.protect].filter((g) => !files.some((f) => globToRegExp(g).test(f)));
      if (empty.length) this.warn(`protect: ${empty.join(', ')} matches no file in ${config.cwd}: nothing is protected by it`);
    }
    if (state.tasks?.length) {
      const when = state.taskCheckMode === 'iteration' ? 'after every iteration and at the gate' : 'at the gate';
      const passing = state.tasks.filter((t) => t.status === 'passing').map((t) => t.name);
      this.emit({ type: 'tasks', iteration: 0, verified: tasksVerified(state.tasks), passing, regressed: [], mode: state.taskCheckMode ?? 'gate', detail: `the tasks' own checks run ${when}` });
    }
  }

  /** The tasks' checks after an iteration without a claim, when they run after every iteration. */
  private async checkTasksAfter(n: number): Promise<TaskRound | undefined> {
    const { state, config } = this;
    if (state.taskCheckMode !== 'iteration' || !state.tasks?.length || this.runAbort.signal.aborted) return undefined;
    this.status('checking');
    const round = await checkTasks(state.tasks, n, {
      cwd: config.cwd,
      signal: this.runAbort.signal,
      ...(config.verifyTimeoutMs !== undefined ? { timeoutMs: config.verifyTimeoutMs } : {}),
      env: { [RALPH_ENV.runId]: state.runId },
      ...(this.init.sandbox.run ? { sandbox: this.init.sandbox.run.forVerify() } : {}),
    });
    if (round.results.some((r) => r.aborted)) return undefined;
    this.iterationChecks.push(...round.results);
    this.noteTaskRound(n, round, true);
    return round;
  }

  /** Tells what a round of task checks found: regressions always, the first failing task when asked. */
  private noteTaskRound(n: number, round: TaskRound, nameFirstFailing: boolean): void {
    const tasks = this.state.tasks ?? [];
    this.emit({ type: 'tasks', iteration: n, verified: tasksVerified(tasks), passing: round.newlyPassing, regressed: round.regressions });
    if (round.regressions.length > 0) {
      this.warn(`regression: ${round.regressions.map((t) => `task "${t}"`).join(', ')} passed before and fail${round.regressions.length === 1 ? 's' : ''} now`, n);
      const lines = tasks.filter((t) => round.regressions.includes(t.name)).map((t) => `- "${t.name}": ${t.reason ?? ''}`);
      this.pendingFeedback.push(render(this.init.templates['feedback-task-regressed'], { tasks: lines.join('\n') }));
    }
    const failing = firstFailing(tasks);
    if (nameFirstFailing && failing) {
      this.pendingFeedback.push(
        render(this.init.templates['feedback-task-check'], { verified: tasksVerified(tasks), task: failing.name, reason: failing.reason ?? '', tail: failing.tail || '(no output)' }),
      );
    }
  }

  private addReceipt(n: number, result: IterationResult, decision: string): void {
    const { config } = this;
    (this.state.receipts ??= []).push(
      iterationReceipt({
        iteration: n,
        durationMs: result.durationMs,
        tokens: result.tokens,
        costUsd: result.costUsd,
        priceKey: config.executor === 'anthropic' ? 'anthropic' : config.streamFormat,
        decision,
        checks: this.iterationChecks,
        rejection: this.iterationRejection,
      }),
    );
  }

  /** Lines that were almost signals, quoted in the next prompt with how to write them. */
  private explainNearMisses(result: IterationResult | undefined): void {
    const misses = result?.nearMisses ?? [];
    if (misses.length === 0) return;
    const lines = misses.slice(-5).map((m) => `- line ${m.line}: \`${m.text.replace(/`/g, "'").slice(0, 160)}\` — ${m.hint}`);
    this.pendingFeedback.push(render(this.init.templates['feedback-near-miss'], { lines: lines.join('\n') }));
  }

  private resumeCommand(): string {
    return resumeCommand({ planPath: this.plan.path, runId: this.state.runId, cwd: this.config.cwd, runDir: this.paths.dir });
  }

  /**
   * Tool calls the agent's permissions refused: named in the next prompt; in --max-stalls
   * iterations in a row they end the run blocked, as only a person can change the permissions.
   */
  private countDenials(result: IterationResult | undefined, progressed: boolean): Ending | undefined {
    const { state, config } = this;
    const denials = result?.denials ?? [];
    // Denials beside real work are harmless: only an iteration that got nowhere counts them.
    if (denials.length === 0 || progressed) state.consecutiveDenials = 0;
    if (denials.length === 0) return undefined;
    if (!progressed) state.consecutiveDenials = (state.consecutiveDenials ?? 0) + 1;
    const calls = denials.map((d) => `${d.tool}${d.summary ? ` (${d.summary.slice(0, 120)})` : ''}`);
    if (config.maxStalls > 0 && (state.consecutiveDenials ?? 0) >= config.maxStalls) {
      const fc: FileClaims = { claims: [], files: [], ignored: [] };
      return this.escalate(
        `permission_denied: the agent's permissions refused tool calls in ${state.consecutiveDenials} iterations in a row (last: ${calls.slice(0, 5).join('; ')})`,
        fc,
        'the agent cannot do its work with the permissions it has: change them (its settings or command-line flags) and resume',
      );
    }
    this.pendingFeedback.push(render(this.init.templates['feedback-permission-denied'], { calls: calls.map((c) => `- ${c}`).join('\n') }));
    return undefined;
  }

  /** A summary from before the run is moved aside: only one written during the run counts. */
  private summaryAside(): void {
    const aside = setSummaryAside(this.config.summaryPath, this.paths.dir);
    if (aside.kind === 'moved') this.warn(`a summary file was already there before the run started: moved it to ${aside.to}; only a summary written during this run counts`);
    if (aside.kind === 'kept') {
      this.state.summaryAtStart = aside.sha256;
      this.warn(`a summary file was already there before the run started and could not be moved aside (${aside.why}): that content will not be accepted`);
    }
  }

  private startFresh(reason: string): void {
    this.state.nextFresh = true;
    this.resumeReason = reason;
  }

  private escalate(reason: string, fc: FileClaims, how: string): Ending {
    const lines = [
      '# Blocked',
      '',
      `Run: ${this.state.runId}`,
      `Plan: ${this.plan.id} (${this.plan.path})`,
      `Iteration: ${this.state.iteration}`,
      `Reason: ${reason}`,
      `Escalation: ${how}`,
      '',
    ];
    if (fc.blockedEvidence !== undefined) lines.push('## Evidence (BLOCKED.md)', '', fc.blockedEvidence, '');
    writeFileAtomicSync(this.paths.blocked, `${lines.join('\n')}\n`);
    return { outcome: 'blocked', reason: how === 'blocked' ? reason : `${reason} (${how})` };
  }

  private buildResult(ending: Ending, endedAt?: string): RunResult {
    const s = this.state;
    const sandbox = this.init.sandbox.run;
    // Counts that grew in the last iteration are reported before the run ends.
    sandbox?.flush();
    return {
      run: s.runId,
      plan: s.plan,
      outcome: ending.outcome,
      exitCode: EXIT_CODES[ending.outcome],
      reason: ending.reason,
      iterations: s.iteration,
      bailouts: s.bailouts,
      signals: s.signals,
      stops: s.stops ?? [],
      prUrl: s.prUrl,
      costUsd: s.costUsd,
      tokens: s.tokens,
      startedAt: s.startedAt,
      endedAt: endedAt ?? new Date(this.clock.now()).toISOString(),
      warnings: [...s.warnings],
      ...(s.tasks?.length ? { tasksVerified: tasksVerified(s.tasks), tasks: taskReceipts(s.tasks, s.receipts ?? []) } : {}),
      receipts: s.receipts ?? [],
      runDir: this.paths.dir,
      sandbox: sandbox ? { mode: 'on', ...sandbox.summary() } : { mode: 'off', denied: 0, refusals: [] },
    };
  }

  private writeResultSync(ending: Ending, endedAt?: string): RunResult {
    const result = this.buildResult(ending, endedAt);
    this.state.outcome = ending.outcome;
    if (ending.outcome !== 'interrupted') this.state.iterationStart = null;
    writeFileAtomicSync(this.paths.result, `${JSON.stringify(result, null, 2)}\n`);
    this.status(ending.outcome);
    return result;
  }

  private async finish(ending: Ending): Promise<RunResult> {
    let result: RunResult;
    try {
      result = this.writeResultSync(ending);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      // No room for result.json: the outcome is still reported, and said to be unwritten.
      result = this.buildResult({ ...ending, reason: `${ending.reason}; result.json could not be written (${(error as Error).message})` });
    }
    this.emit({ type: 'run-end', outcome: result.outcome, exitCode: result.exitCode, reason: result.reason, result });
    if (this.lifecycle === undefined) return result;
    // on_outcome hooks and notifications: their warnings belong in result.json too.
    const warningsBefore = this.state.warnings.length;
    await this.lifecycle.end(result);
    return this.state.warnings.length > warningsBefore ? this.writeResultSync(ending, result.endedAt) : result;
  }
}
