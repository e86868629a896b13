// A throwaway project for one end-to-end run: a working directory with a plan, and beside it (not
// inside, so `git add -A` and stale-file cleanup never see them) the agent's scenario and the
// records the agent leaves: calls.jsonl (what ralph sent it) and pids.jsonl (what to check is gone).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_FILES } from '../../../src/contract.js';
import type { RunResult } from '../../../src/loop/types.js';
import { BIN, ROOT } from '../../helpers/run-ralph.js';

export { BIN, ROOT };
export const AGENT = join(ROOT, 'test', 'fixtures', 'longrun', 'agent.mjs');

/** One step of test/fixtures/agents/scripted-agent.mjs (see its header). */
export type Step = Record<string, unknown>;

export interface Scenario {
  iterations: Step[][];
  /** Extras of test/fixtures/longrun/agent.mjs. */
  longrun?: { child?: boolean | 'term-proof' };
}

export interface AgentCall {
  iteration: number;
  fresh: string;
  env: Record<string, string>;
  argv: string[];
  cwd: string;
  prompt: string;
}

export interface AgentPids {
  iteration: number;
  pid: number;
  child: number | null;
}

export interface WorkspaceOptions {
  planId?: string;
  /** YAML lines of the plan's front matter (besides `id`). */
  frontMatter?: string[];
  /** Make the working directory a git repository with one commit. */
  git?: boolean;
}

const made: string[] = [];

/** Removes every workspace made so far (call from afterAll). */
export function removeWorkspaces(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export class Workspace {
  readonly root: string;
  /** The working directory ralph runs in (and the plan's folder). */
  readonly cwd: string;
  readonly plan: string;
  readonly planId: string;
  readonly scenarioPath: string;

  constructor(options: WorkspaceOptions = {}) {
    this.root = mkdtempSync(join(tmpdir(), 'ralph-longrun-'));
    made.push(this.root);
    this.cwd = join(this.root, 'work');
    mkdirSync(this.cwd);
    mkdirSync(join(this.root, 'agent'));
    this.planId = options.planId ?? 'longrun';
    this.plan = join(this.cwd, 'plan.md');
    this.scenarioPath = join(this.root, 'agent', 'scenario.json');
    const fm = [`id: ${this.planId}`, ...(options.frontMatter ?? [])];
    writeFileSync(
      this.plan,
      `---\n${fm.join('\n')}\n---\n# Long run\n\nDo the one task.\n\n<tasks>\n<task><name>Task 1</name><action>do it</action><done>done</done></task>\n</tasks>\n\n## Progress\n\n## Observations\n`,
    );
    if (options.git) {
      writeFileSync(join(this.cwd, '.gitignore'), `${RUN_FILES.root}/\n`);
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], { cwd: this.cwd, stdio: 'ignore' });
      git('init', '-q');
      git('add', '-A');
      git('commit', '-qm', 'start');
    }
  }

  /** Writes the agent's scenario; returns the command line that runs it (for after `--`). */
  agent(scenario: Scenario): string[] {
    writeFileSync(this.scenarioPath, JSON.stringify({ plan: this.planId, ...scenario }));
    return [process.execPath, AGENT, this.scenarioPath];
  }

  calls(): AgentCall[] {
    return readJsonl<AgentCall>(`${this.scenarioPath}.calls.jsonl`);
  }

  pids(): AgentPids[] {
    return readJsonl<AgentPids>(`${this.scenarioPath}.pids.jsonl`);
  }

  /** Every pid the agent recorded: the agents themselves and their grandchildren. */
  allPids(): number[] {
    return this.pids().flatMap((p) => (p.child === null ? [p.pid] : [p.pid, p.child]));
  }

  runDirs(): string[] {
    const runs = join(this.cwd, RUN_FILES.root, RUN_FILES.runs);
    if (!existsSync(runs)) return [];
    return readdirSync(runs)
      .sort()
      .map((d) => join(runs, d));
  }

  /** The one run directory (fails the test when there is not exactly one). */
  runDir(): string {
    const dirs = this.runDirs();
    if (dirs.length !== 1) throw new Error(`expected one run directory, found ${dirs.length}: ${dirs.join(', ')}`);
    return dirs[0]!;
  }

  result(): RunResult {
    return JSON.parse(readFileSync(join(this.runDir(), RUN_FILES.result), 'utf8')) as RunResult;
  }

  events(): Array<Record<string, unknown> & { type: string }> {
    return readJsonl(join(this.runDir(), RUN_FILES.events));
  }

  status(): Record<string, unknown> {
    return JSON.parse(readFileSync(join(this.runDir(), RUN_FILES.status), 'utf8')) as Record<string, unknown>;
  }

  /** Paths under the workspace that end in .tmp (a write that was never renamed into place). */
  tmpFiles(): string[] {
    return walk(this.root).filter((p) => /\.tmp$|\.tmp[.-]/.test(p));
  }
}

export function readJsonl<T>(path: string): T[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else out.push(path);
  }
  return out;
}
