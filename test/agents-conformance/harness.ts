// Runs one scenario through the BUILT ralph (`ralph exec plan.md --agent NAME --json`) in a fresh
// temp folder, with the agent CLI from the cache first on PATH and a throwaway HOME, and reads back
// what the run left: result.json, events.jsonl, findings.jsonl and the iterations' raw streams.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { planText } from './scenarios.js';
import { BIN as RALPH_BIN, ROOT } from '../helpers/run-ralph.js';

export { ROOT };
/** Where recorded streams go with --update-fixtures (beside the shared real-CLI fixtures) (scripts/test-agents.mjs sets the variable). */
export const RECORDED_DIR = join(ROOT, 'test/fixtures/agents-real');
export const UPDATE_FIXTURES = process.env.RALPH_UPDATE_AGENT_FIXTURES === '1';

export interface RunOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  dir: string;
  /** The agent's HOME for this run. */
  home: string;
  runDir: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  result: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  events: any[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  findings: any[];
  /** iterations/<n>.log, in order. */
  logs: string[];
}

export interface RunSpec {
  agent: string;
  scenario: string;
  binDir: string;
  env: Record<string, string>;
  /** Files to write into the working folder first (relative path → content). */
  files?: Record<string, string>;
  /** Files to write into the throwaway HOME first (the CLI's settings). */
  homeFiles?: Record<string, string>;
  args?: string[];
  /** After `--`, appended to the agent's command. */
  extra?: string[];
  timeoutMs?: number;
}

function jsonl(path: string): unknown[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

export async function runScenario(spec: RunSpec): Promise<RunOutcome> {
  const dir = mkdtempSync(join(tmpdir(), `ralph-agents-${spec.agent}-${spec.scenario}-`));
  // The throwaway HOME lives outside the temp folder: Codex refuses to make its sandbox helper
  // (codex-linux-sandbox, an alias of itself) under a temp folder, and without it every shell
  // command fails on a machine with bubblewrap (`bwrap: execvp codex-linux-sandbox`).
  const home = join(homedir(), '.cache', 'ralph-conformance', basename(dir));
  mkdirSync(home, { recursive: true });
  const work = join(dir, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'plan.md'), planText(spec.scenario));
  for (const [rel, content] of Object.entries(spec.files ?? {})) writeFileSync(join(work, rel), content);
  for (const [rel, content] of Object.entries(spec.homeFiles ?? {})) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), content);
  }
  const runDir = join(work, '.ralph', 'runs', 'conformance');
  const args = [RALPH_BIN, 'exec', 'plan.md', '--agent', spec.agent, '--json', '--run-dir', runDir, '--max-iterations', '4', '--silence-timeout', '60s', ...(spec.args ?? [])];
  if (spec.extra?.length) args.push('--', ...spec.extra);
  const env: NodeJS.ProcessEnv = {
    PATH: `${spec.binDir}:${process.env.PATH ?? ''}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    TMPDIR: tmpdir(),
    LANG: 'C.UTF-8',
    // The common scenarios run as before the sandbox; the sandboxed ones say --sandbox on.
    RALPH_SANDBOX: 'off',
    ...spec.env,
  };
  const child = spawn(process.execPath, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), spec.timeoutMs ?? 150_000);
  const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)));
  clearTimeout(timer);
  const logs: string[] = [];
  const iterDir = join(runDir, 'iterations');
  if (existsSync(iterDir)) {
    const names = readdirSync(iterDir).filter((n) => /^\d+\.log$/.test(n)).sort((a, b) => parseInt(a) - parseInt(b));
    for (const n of names) logs.push(readFileSync(join(iterDir, n), 'utf8'));
  }
  const resultPath = join(runDir, 'result.json');
  return {
    code,
    stdout,
    stderr,
    dir,
    home,
    runDir,
    result: existsSync(resultPath) ? JSON.parse(readFileSync(resultPath, 'utf8')) : undefined,
    events: jsonl(join(runDir, 'events.jsonl')),
    findings: jsonl(join(runDir, 'findings.jsonl')),
    logs,
  };
}

/** With --update-fixtures: the iterations' raw streams become unit-test fixtures. */
export function recordStreams(agentDir: string, scenario: string, outcome: RunOutcome): void {
  if (!UPDATE_FIXTURES) return;
  const out = join(RECORDED_DIR, agentDir, 'recorded');
  mkdirSync(out, { recursive: true });
  const iterDir = join(outcome.runDir, 'iterations');
  outcome.logs.forEach((_, i) => copyFileSync(join(iterDir, `${i + 1}.log`), join(out, `${scenario}-iteration${i + 1}.ndjson`)));
}

export function describeFailure(o: RunOutcome): string {
  return `exit ${o.code}\nresult: ${JSON.stringify(o.result?.reason)}\nstderr: ${o.stderr.slice(-2000)}\nlogs:\n${o.logs.map((l) => l.slice(-3000)).join('\n---\n')}`;
}
