// A small harness for end-to-end tests of `ralph exec`: a temp working directory with a plan and
// a scenario for the scripted agent, the BUILT CLI run in it as a user would, and everything the
// run left behind read back (result.json, STATUS.json, events.jsonl, findings.jsonl, the agent's
// recorded calls), plus any process of the test still running afterwards.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PATIENCE_MS } from '../../helpers/patience.js';
import { BIN as RALPH_BIN, ROOT } from '../../helpers/run-ralph.js';

export { RALPH_BIN, ROOT };
export const SCRIPTED_AGENT = join(ROOT, 'test/fixtures/agents/scripted-agent.mjs');

/** One step of the scripted agent (see the header of scripted-agent.mjs). */
export type Step =
  | { say: string }
  | { stderr: string }
  | { raw: string }
  | { write: string; content?: string }
  | { remove: string }
  | { summary: true | Record<string, unknown> }
  | { check: true }
  | { commit: string }
  | { sleep: number }
  | { heartbeat: { every: number; for: number } }
  | { hang: true }
  | { ignoreTerm: true }
  | { exit: number };

export interface Scenario {
  /** The plan id the agent's summary names (default "test"). */
  plan?: string;
  /** Steps per iteration; past the end the last entry repeats. */
  iterations: Step[][];
}

/** What the scripted agent recorded about one call. */
export interface AgentCall {
  iteration: number;
  fresh: string | undefined;
  env: Record<string, string>;
  argv: string[];
  cwd: string;
  prompt: string;
}

export interface ExecSetup {
  /** The plan file's text (default: planText()); null: no plan file at all. */
  plan?: string | null;
  /** The plan's file name, relative to the working directory (default "plan.md"). */
  planFile?: string;
  scenario?: Scenario;
  /** ralph flags, placed between the plan and `--`. */
  args?: string[];
  /** Files to create in the working directory before the run; a Date sets the mtime. */
  files?: Record<string, string | { content: string; mtime: Date }>;
  /** The command after `--`: default the scripted agent; null for none at all. */
  command?: string[] | null;
  /** Extra environment (undefined removes a variable). */
  env?: Record<string, string | undefined>;
  /** Make the working directory a git repository with one commit. */
  git?: boolean;
  /** Where, relative to the working directory, `.ralph/runs` is expected (with --cwd; default "."). */
  runsUnder?: string;
  /** The run is killed (and the test fails) after this long. */
  timeoutMs?: number;
}

export interface ExecRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The working directory (a fresh temp folder). */
  work: string;
  planPath: string;
  scenarioPath: string;
  /** The run directory, when one was created. */
  runDir: string | undefined;
  result: Record<string, any> | undefined;
  status: Record<string, any> | undefined;
  events: Record<string, any>[];
  findings: Record<string, any>[];
  /** Calls the agent recorded; undefined when it never ran (no calls file). */
  calls: AgentCall[] | undefined;
  /** Pids of processes of this test (the agent, anything it started) still running after ralph exited. */
  leftovers: number[];
  durationMs: number;
}

const tempDirs: string[] = [];

/** afterAll(removeTempDirs) in every file that uses the harness. */
export function removeTempDirs(): void {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function makeTempDir(prefix = 'ralph-e2e-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export interface PlanOptions {
  id?: string;
  /** Extra front-matter lines (YAML), e.g. "max_iterations: 3". */
  frontMatter?: string[];
  /** Extra body text, e.g. "- [ ] TASK_COMPLETE". */
  body?: string;
  progress?: string;
  observations?: string;
}

/** A small valid plan. */
export function planText(o: PlanOptions = {}): string {
  const fm = [`id: ${o.id ?? 'test'}`, ...(o.frontMatter ?? [])];
  return [
    '---',
    ...fm,
    '---',
    '# Test plan',
    '',
    '<tasks>',
    '  <task><name>Task 1</name><action>Do the thing.</action></task>',
    '</tasks>',
    '',
    o.body ?? '',
    '',
    '## Progress',
    o.progress ?? 'Nothing yet.',
    '',
    '## Observations',
    o.observations ?? '',
    '',
  ].join('\n');
}

function readJson(path: string): Record<string, any> | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>) : undefined;
}

export function readJsonl(path: string): Record<string, any>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/** Processes whose command line mentions `needle` (the test's unique temp folder). */
export function processesMentioning(needle: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.includes(needle))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => Number.isInteger(pid) && pid !== process.pid);
}

function gitInit(dir: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(dir, '.gitignore'), '.ralph/\n');
  git('add', '-A');
  git('commit', '-qm', 'initial');
}

/** Sets up a working directory, runs `node bin/ralph.js exec <plan> [args] -- <agent>` in it. */
export async function runExec(setup: ExecSetup = {}): Promise<ExecRun> {
  const root = makeTempDir();
  const work = join(root, 'work');
  const agentDir = join(root, 'agent');
  mkdirSync(work);
  mkdirSync(agentDir);
  if (setup.git) gitInit(work);

  const planFile = setup.planFile ?? 'plan.md';
  const planPath = join(work, planFile);
  if (setup.plan !== null) {
    mkdirSync(dirname(planPath), { recursive: true });
    writeFileSync(planPath, setup.plan ?? planText());
  }
  for (const [name, spec] of Object.entries(setup.files ?? {})) {
    const path = join(work, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof spec === 'string' ? spec : spec.content);
    if (typeof spec !== 'string') utimesSync(path, spec.mtime, spec.mtime);
  }
  const scenarioPath = join(agentDir, 'scenario.json');
  writeFileSync(scenarioPath, JSON.stringify(setup.scenario ?? { iterations: [[]] }));

  const command = setup.command === undefined ? [process.execPath, SCRIPTED_AGENT, scenarioPath] : setup.command;
  const argv = [RALPH_BIN, 'exec', planFile, ...(setup.args ?? []), ...(command === null ? [] : ['--', ...command])];
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  // The run must not inherit a key or the variables of an outer ralph run.
  delete env.ANTHROPIC_API_KEY;
  for (const k of Object.keys(env)) if (k.startsWith('RALPH_') && k !== 'RALPH_SANDBOX') delete env[k]; // the suite's sandbox mode stays (vitest.config.ts)
  for (const [k, v] of Object.entries(setup.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }

  const started = Date.now();
  const callsPath = `${scenarioPath}.calls.jsonl`;
  let ran = await spawnRalph(argv, work, env, root, setup.timeoutMs ?? PATIENCE_MS);
  // Others rebuild dist/ in this shared tree while tests run: a CLI that could not even load its
  // modules ran nothing, so it is tried again. A real packaging bug fails every attempt.
  const ranNothing = () => !existsSync(join(work, setup.runsUnder ?? '.', '.ralph')) && !existsSync(callsPath);
  for (let attempt = 1; attempt < 3 && loadFailed(ran) && ranNothing(); attempt++) {
    await new Promise((r) => setTimeout(r, 1_000));
    ran = await spawnRalph(argv, work, env, root, setup.timeoutMs ?? PATIENCE_MS);
  }
  const durationMs = Date.now() - started;

  const leftovers = processesMentioning(root);
  // Never leave them running for the next test; the assertion on `leftovers` reports them.
  for (const pid of leftovers) killQuietly(pid);

  const runsDir = join(work, setup.runsUnder ?? '.', '.ralph', 'runs');
  const runIds = existsSync(runsDir) ? readdirSync(runsDir) : [];
  const runDir = runIds.length === 1 ? join(runsDir, runIds[0]!) : undefined;
  return {
    ...ran,
    work,
    planPath,
    scenarioPath,
    runDir,
    result: runDir ? readJson(join(runDir, 'result.json')) : undefined,
    status: runDir ? readJson(join(runDir, 'STATUS.json')) : undefined,
    events: runDir ? readJsonl(join(runDir, 'events.jsonl')) : [],
    findings: runDir ? readJsonl(join(runDir, 'findings.jsonl')) : [],
    calls: existsSync(callsPath) ? (readJsonl(callsPath) as unknown as AgentCall[]) : undefined,
    leftovers,
    durationMs,
  };
}

function loadFailed(ran: { code: number | null; stderr: string }): boolean {
  return ran.code !== 0 && /does not provide an export named|ERR_MODULE_NOT_FOUND|Cannot find module/.test(ran.stderr);
}

function spawnRalph(
  argv: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  root: string,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      for (const pid of processesMentioning(root)) killQuietly(pid);
      fail(new Error(`ralph exec did not end within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The iterations the agent was actually called for, in order. */
export function iterationsCalled(run: ExecRun): number[] {
  return (run.calls ?? []).map((c) => c.iteration);
}

/** The warning every run of a plan without any check starts with (planText() has none: docs/plans.md#checks-that-can-fail). */
export const NO_CHECK_WARNING = 'the plan has no check: completion will be accepted on the summary alone';

/** The run's warnings but that one, for tests about other warnings. */
export function otherWarnings(warnings: string[] | undefined): string[] {
  return (warnings ?? []).filter((w) => !w.includes(NO_CHECK_WARNING));
}

/** Events of one type. */
export function eventsOf(run: ExecRun, type: string): Record<string, any>[] {
  return run.events.filter((e) => e.type === type);
}

/** A readable summary for failure messages: exit code, reason, stderr. */
export function describeRun(run: ExecRun): string {
  return `exit ${run.code}; reason: ${run.result?.reason}\nstderr:\n${run.stderr}`;
}

export function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist/cli/main.js')) || !existsSync(join(ROOT, 'dist/loop/run-plan.js'))) {
    throw new Error('dist/ is not built: run `npx tsc -p tsconfig.build.json` (npm test does it) first');
  }
}

/** Scenario steps the exec tests share. */
export const steps = {
  /** A valid summary, then the completion signal. */
  complete: [{ summary: true }, { say: '###PLAN_COMPLETE###' }] as Step[],
  /** Output without any signal. */
  nothing: [{ say: 'working on it' }] as Step[],
  blockerObservation: (title: string): Step => ({
    say: `<observation type="blocker" severity="high">\n<title>${title}</title>\n<detail>The staging database refuses our credentials.</detail>\n</observation>`,
  }),
};

/** Short grace so a signalled agent that hangs is stopped quickly. */
export const GRACE = ['--signal-grace', '300ms'];
