// The iteration state machine of docs/loop.md: one plan, run to one outcome. It never prints and
// never installs process signal handlers; everything it does goes out as events on the bus.
import { existsSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { RALPH_ENV, TASK_COMPLETE_CHECKBOX } from '../contract.js';
import { UsageError } from '../errors.js';
import { createExecutor } from '../executors/index.js';
import { assertCanStart } from '../executors/command/can-start.js';
import { addUsage, type Executor, type Prompt } from '../executors/types.js';
import { FindingsLog } from '../findings/findings-log.js';
import { extractSection, isTaskCompleteChecked, loadPlan, MAX_PLAN_BYTES, type Plan } from '../plan/index.js';
import { buildPrompt, type PromptKind } from '../prompts/build-prompt.js';
import { loadTemplates, type Templates } from '../prompts/templates.js';
import { keepOutOfGit } from '../runs/git-ignore.js';
import { JsonlAppender } from '../runs/jsonl-appender.js';
import { globalStopRequest, type RunPaths } from '../runs/paths.js';
import { acquirePlanLock } from '../runs/plan-lock.js';
import { resumeCommand, settingsOf, withStoredSettings } from '../runs/run-settings.js';
import { saveState, type RunState } from '../runs/run-state.js';
import { writeStatus } from '../runs/status-file.js';
import { Transcript, type TranscriptSummary } from '../runs/transcript.js';
import { decide, type Decision, type Weighed } from '../signals/index.js';
import { readRegularFileSync } from '../util/read-regular-file.js';
import type { Baseline } from './baseline-checks.js';
import { LimitWaits, type DueWait } from './run-waits.js';
import { checkBaseline, limitsOf, openForResume, openNew, openSandboxOf } from './open-run.js';
import { iterationReceipt } from './receipts.js';
import type { IterationLedger, RunContext, Ending } from './run-context.js';
import { finishRun, writeResultSync, type RunEndParts } from './run-end.js';
import { Settler } from './settle.js';
import { checkTasksAfter, startChecks } from './task-progress.js';
import { tasksVerified } from './task-checks.js';
import { diskFullEnding, isDiskFull } from './disk-full.js';
import { killLeftoversNow, processMarker, stopLeftovers } from './leftover-processes.js';
import { preflight } from './preflight.js';
import { setSummaryAside } from './summary-aside.js';
import { RunBus } from './bus.js';
import { systemClock, type Clock } from './clock.js';
import { type SharedLimits } from './limit-wait.js';
import { ownOutputFiles, workFingerprint } from './work-fingerprint.js';
import type { RunEvent } from './events.js';
import { fileClaims, removeStaleSignalFiles, snapshotSignalFiles, type FileClaims, type FileSnapshot } from './file-signals.js';
import { headSha, rootAndHead } from './git.js';
import { runIteration, type IterationResult } from './iteration.js';
import type { RunExtras, RunLifecycle } from './lifecycle.js';
import { resolveConfig, type RunConfig } from './run-config.js';
import { decideSandbox, type RunSandbox, type SandboxDecision } from '../sandbox/index.js';
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

/** What an iteration starts from: its number, context and prompt, and what is needed to weigh it. */
interface IterationStart {
  n: number;
  fresh: boolean;
  prompt: Prompt;
  /** The feedback and resume reason it was given, handed back when the attempt does not count. */
  retry: { feedback: string | null; resumeReason: string | undefined };
  /** The signal files as they were: what it wrote is weighed as its claims. */
  files: FileSnapshot;
  /** The work's fingerprint at the start; undefined when the stall breaker is off. */
  workBefore: string | undefined;
}

class PlanRun implements RunContext {
  readonly plan: Plan;
  readonly config: RunConfig;
  readonly state: RunState;
  readonly paths: RunPaths;
  readonly templates: Templates;
  readonly clock: Clock;
  private readonly bus: RunBus;
  private readonly events: JsonlAppender;
  private readonly findings: FindingsLog;
  private readonly rules: StopRule[];
  private readonly runAbort = new AbortController();
  private resumeReason: string | undefined;
  private readonly waits: LimitWaits;
  /** Notes for the next prompt gathered while an iteration is settled (denied tools, near misses). */
  readonly pendingFeedback: string[] = [];
  /** Findings seen in this session of the run: the same finding again is not progress. */
  private readonly seenFindings = new Set<string>();
  private repo = '';
  /** Hooks and notifications (docs/config.md); none when the caller gave no factory. */
  private readonly lifecycle: RunLifecycle | undefined;
  /** Files ralph writes itself (its run directory, its own output redirected into the tree): never progress. */
  private readonly ownFiles: { files: string[]; dirs: string[] };
  /** The checks run for the iteration being settled, and its rejection: its receipt. */
  readonly ledger: IterationLedger = { checks: [], rejection: null };
  private readonly settler: Settler;
  private readonly ends: RunEndParts;

  constructor(private readonly init: PlanRunInit) {
    this.plan = init.plan;
    this.config = init.config;
    this.state = init.state;
    this.paths = init.paths;
    this.bus = init.bus;
    this.clock = init.clock;
    this.templates = init.templates;
    this.settler = new Settler(this);
    this.waits = new LimitWaits(this, init.hooks.sharedLimits);
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
    this.ends = { sandbox: init.sandbox.run, lifecycle: this.lifecycle };
  }

  get runSignal(): AbortSignal {
    return this.runAbort.signal;
  }

  get verifySandbox(): CommandSandbox | undefined {
    return this.init.sandbox.run?.forVerify();
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

  emit(e: RunEvent): void {
    this.bus.emitEvent(e);
  }

  warn(message: string, iteration?: number): void {
    this.emit({ type: 'warning', message, ...(iteration !== undefined ? { iteration } : {}) });
  }

  status(state: string, wait?: DueWait): void {
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
      writeResultSync(this, this.ends, { outcome: 'interrupted', reason });
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
      return await finishRun(this, this.ends, ending);
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

  /** The story of a run: it starts (or takes up a stopped one), then iterates until something ends it. */
  private async loop(): Promise<Ending> {
    await this.announceStart();
    const resumed = this.init.mode === 'new' ? this.prepareNew() : await this.takeUp();
    if (resumed) return resumed;
    for (;;) {
      const stop = this.whyNotGoOn();
      if (stop) return stop;
      const due = this.waits.dueWait();
      if (due) {
        const ending = await this.waits.waitOut(due);
        if (ending) return ending;
        continue;
      }
      const ending = await this.iterate();
      if (ending) return ending;
    }
  }

  /** run-start, the agent, the sandbox and every warning about the settings, before anything runs. */
  private async announceStart(): Promise<void> {
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
  }

  /** A new run: its checks' first look, stale signal files and summary out of the way. */
  private prepareNew(): undefined {
    const { state, config, plan } = this;
    startChecks(this, this.init.baseline);
    const removed = removeStaleSignalFiles(config.cwd);
    if (removed.length) this.warn(`removed stale signal files before the first iteration: ${removed.join(', ')}`);
    this.summaryAside();
    state.checkboxAtStart = isTaskCompleteChecked(plan.text);
    if (state.checkboxAtStart) {
      this.warn(`the plan already has a checked "[x] ${TASK_COMPLETE_CHECKBOX}" box at the start: it is stale and ignored`);
    }
    return undefined;
  }

  /** A resumed run: the interrupted iteration's claims are weighed first; then a fresh context. */
  private async takeUp(): Promise<Ending | undefined> {
    const { state, config } = this;
    if (this.init.resumeNote) this.warn(this.init.resumeNote);
    // The interrupted iteration counts: its signal files are weighed as its claims first.
    const interrupted = state.iterationStart;
    if (interrupted && state.iteration > 0) {
      const fc = fileClaims(config.cwd, interrupted.files);
      const weighed = [...fc.claims, ...this.checkboxClaim()];
      if (weighed.length > 0) {
        const ending = await this.settler.settle(state.iteration, weighed, fc, undefined);
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
    return undefined;
  }

  /** Before each iteration: a full disk, an interrupt, a limit, a stop request (docs/loop.md#each-iteration). */
  private whyNotGoOn(): Ending | undefined {
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
    return undefined;
  }

  /** One iteration: its prompt, the agent's run, then its settlement; how the run ends, or undefined to go on. */
  private async iterate(): Promise<Ending | undefined> {
    const start = await this.startIteration();
    const result = await this.runAgent(start);
    const cut = this.cutShort(start.n, result);
    if (cut) return cut;
    const { fc, weighed } = this.claimsOf(start, result);
    if (this.notCounted(start, result, weighed)) return undefined;
    this.state.limitStreak = 0;
    const progressed = await this.progressed(start, result, weighed);
    return this.closeIteration(start.n, result, weighed, fc, progressed);
  }

  /** Numbers the iteration, chooses its context and prompt, and notes where the tree and HEAD stand. */
  private async startIteration(): Promise<IterationStart> {
    const { state, config, plan } = this;
    this.ledger.checks = [];
    this.ledger.rejection = null;
    // What an attempt that does not count gives back (notCounted).
    const retry = { feedback: state.feedback, resumeReason: this.resumeReason };
    state.iteration++;
    const n = state.iteration;
    await this.lifecycle?.beforeIteration(n);
    const { fresh, continuesSession } = this.chooseContext(n);
    const planText = this.readPlanText() ?? plan.text;
    const { prompt, kind } = this.promptFor(n, fresh, continuesSession, planText);
    state.feedback = null;
    this.resumeReason = undefined;
    const iterationStart = { head: await headSha(config.cwd), files: snapshotSignalFiles(config.cwd) };
    state.iterationStart = iterationStart;
    const workBefore = config.maxStalls > 0 ? await workFingerprint(config.cwd, planText, iterationStart.head, this.ownFiles) : undefined;
    this.status('running');
    this.emit({ type: 'iteration-start', iteration: n, maxIterations: config.maxIterations, fresh, prompt: kind });
    return { n, fresh, prompt, retry, files: iterationStart.files, workBefore };
  }

  /**
   * Same context only where the agent can really continue one (docs/agents.md): a JSON stream
   * whose agent never reported a session starts fresh, and is told so.
   */
  private chooseContext(n: number): { fresh: boolean; continuesSession: boolean } {
    const continues = this.init.executor.canContinue ? this.init.executor.canContinue() : true;
    let fresh = this.state.nextFresh;
    if (!fresh && continues === false) {
      fresh = true;
      this.resumeReason ??= 'the previous session could not be continued (the agent reported no session id)';
      this.warn(`iteration ${n}: the agent reported no session to continue; starting a fresh context`, n);
    }
    return { fresh, continuesSession: !fresh && continues === true };
  }

  private promptFor(n: number, fresh: boolean, continuesSession: boolean, planText: string): { prompt: Prompt; kind: PromptKind } {
    const { state, config, plan } = this;
    const progress = extractSection(planText, 'Progress');
    const observations = extractSection(planText, 'Observations');
    return buildPrompt({
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
      continuesSession,
    });
  }

  /** The agent's run: its transcript kept, what it left running stopped, its usage and stops counted. */
  private async runAgent({ n, prompt, fresh }: IterationStart): Promise<IterationResult> {
    const { state, config } = this;
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
    return result;
  }

  /** A full disk or an interrupt ends the run in the middle of the iteration. */
  private cutShort(n: number, result: IterationResult): Ending | undefined {
    if (result.stop?.cause === 'disk_full') {
      this.endIteration(n, result, 'none');
      return diskFullEnding(result.stop.detail, this.resumeCommand());
    }
    if (result.stop?.cause === 'interrupt') {
      // Left for --resume: the interrupted iteration's files are weighed then.
      this.addReceipt(n, result, 'none');
      this.endIteration(n, result, 'none');
      return { outcome: 'interrupted', reason: `interrupted during iteration ${n}; resume with: ${this.resumeCommand()}` };
    }
    return undefined;
  }

  /** What the iteration claims: its stream's signals, the signal files it wrote, the checkbox. */
  private claimsOf({ n, files }: IterationStart, result: IterationResult): { fc: FileClaims; weighed: Weighed[] } {
    const fc = fileClaims(this.config.cwd, files);
    for (const why of fc.ignored) this.warn(`${why} in the working directory: ignored (signal files count only as regular files of their own)`, n);
    return { fc, weighed: [...result.weighed, ...fc.claims, ...this.checkboxClaim()] };
  }

  /** An attempt that claimed nothing and was refused for a limit or a missing session does not count: the iteration runs again. */
  private notCounted({ n, fresh, retry }: IterationStart, result: IterationResult, weighed: Weighed[]): boolean {
    const { state } = this;
    if (decide(weighed).kind !== 'none' || (!result.limit && !result.resumeRefused)) return false;
    this.endIteration(n, result, 'none');
    if (!result.limit) {
      this.warn(`iteration ${n}: the agent could not resume its session (${(result.failureDetail ?? 'no such session').split('\n')[0]!.slice(0, 160)}); running it again in a fresh context`, n);
    }
    state.iteration = n - 1;
    state.feedback = retry.feedback;
    state.iterationStart = null;
    if (result.limit) {
      // Again once the limit resets, with the same prompt.
      this.resumeReason = retry.resumeReason;
      state.nextFresh = fresh;
      this.waits.scheduleWait(result.limit);
    } else {
      // The session to continue does not exist (never saved): again at once, in a fresh context (docs/agents.md, "Sessions").
      this.resumeReason = 'the previous session could not be resumed (the agent has no such session)';
      state.nextFresh = true;
    }
    return true;
  }

  /** Progress for the stall breaker (docs/overnight.md): a decision, a new finding, a task that starts to pass, a change to the work. */
  private async progressed({ n, workBefore }: IterationStart, result: IterationResult, weighed: Weighed[]): Promise<boolean> {
    const { config } = this;
    const newFinding = result.findings.filter((key) => !this.seenFindings.has(key)).length > 0;
    for (const key of result.findings) this.seenFindings.add(key);
    // Progress matters only to an iteration that decided nothing: the others skip the git calls.
    const undecided = decide(weighed).kind === 'none';
    // A claim runs the tasks' checks at the gate; other iterations run them here when they are quick.
    const round = !undecided && decide(weighed).kind !== 'bailout' ? undefined : await checkTasksAfter(this, n);
    const tasksProgressed = (round?.newlyPassing.length ?? 0) > 0;
    return (
      !undecided ||
      workBefore === undefined ||
      newFinding ||
      tasksProgressed ||
      (await workFingerprint(config.cwd, this.readPlanText(), await headSha(config.cwd), this.ownFiles)) !== workBefore
    );
  }

  /** The claims settled, the receipt written, the iteration ended; then the hook's word and the next prompt's feedback. */
  private async closeIteration(n: number, result: IterationResult, weighed: Weighed[], fc: FileClaims, progressed: boolean): Promise<Ending | undefined> {
    const ending = await this.settler.settle(n, weighed, fc, result, progressed);
    const decision = decide(weighed).kind;
    this.addReceipt(n, result, decision);
    this.endIteration(n, result, decision);
    const hookStop = await this.lifecycle?.afterIteration(n, decision);
    if (ending) return ending;
    if (hookStop !== undefined) return { outcome: 'exhausted', reason: hookStop };
    this.sandboxFeedback();
    if (this.pendingFeedback.length > 0) {
      this.state.feedback = [this.state.feedback, ...this.pendingFeedback].filter(Boolean).join('\n\n');
      this.pendingFeedback.length = 0;
    }
    return undefined;
  }

  private endIteration(n: number, result: IterationResult, decision: Decision['kind']): void {
    this.emit({ type: 'iteration-end', iteration: n, exitCode: result.exitCode, durationMs: result.durationMs, decision });
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

  stopRequested(): string | undefined {
    return [this.paths.stopRequest, globalStopRequest(this.config.cwd)].find((p) => existsSync(p));
  }

  interruptedOrLimit(): Ending {
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

  private addReceipt(n: number, result: IterationResult, decision: Decision['kind']): void {
    const { config } = this;
    (this.state.receipts ??= []).push(
      iterationReceipt({
        iteration: n,
        durationMs: result.durationMs,
        tokens: result.tokens,
        costUsd: result.costUsd,
        priceKey: config.executor === 'anthropic' ? 'anthropic' : config.streamFormat,
        decision,
        checks: this.ledger.checks,
        rejection: this.ledger.rejection,
      }),
    );
  }

  resumeCommand(): string {
    return resumeCommand({ planPath: this.plan.path, runId: this.state.runId, cwd: this.config.cwd, runDir: this.paths.dir });
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

  startFresh(reason: string): void {
    this.state.nextFresh = true;
    this.resumeReason = reason;
  }
}
