// What the `ralph serve` tests share: a scripted run that writes a run's files the way a run does
// (STATUS.json atomically, events.jsonl and transcripts appended), and real Chromium through
// playwright-core, found as the report's browser test finds it (skipped loudly where missing,
// a failure under .ci/run).
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect, vi } from 'vitest';
import { runPaths, type RunPaths } from '../../src/runs/paths.js';
import { writeStatus } from '../../src/runs/status-file.js';
import { isRunning } from '../helpers/processes.js';
import { findProgram, systemDepAvailable } from '../helpers/system-deps.js';
import { PATIENCE_MS } from '../helpers/patience.js';

export class ScriptedRun {
  readonly paths: RunPaths;
  readonly started = new Date().toISOString();
  iteration = 0;

  constructor(
    cwd: string,
    readonly id: string,
    readonly plan = 'demo',
  ) {
    this.paths = runPaths(join(cwd, '.ralph', 'runs', id));
    mkdirSync(this.paths.iterations, { recursive: true });
  }

  status(state: string, extra: Record<string, unknown> = {}): void {
    writeStatus(this.paths.status, { repo: '/r', plan: `/r/plans/${this.plan}.md`, started: this.started, mode: 'command', task: 'Task 1: build', state, iteration: this.iteration, pid: process.pid, ...extra });
  }

  event(e: Record<string, unknown>): void {
    appendFileSync(this.paths.events, `${JSON.stringify({ at: new Date().toISOString(), ...e })}\n`);
  }

  say(text: string | Buffer): void {
    appendFileSync(this.paths.transcript(this.iteration), text);
  }

  start(maxIterations = 5): void {
    this.event({ type: 'run-start', runId: this.id, runDir: this.paths.dir, plan: this.plan, planPath: `/r/plans/${this.plan}.md`, cwd: '/r', mode: 'new', executor: 'command', maxIterations, startedAt: this.started, head: null });
    this.event({ type: 'agent', name: null, command: ['agent'], streamFormat: 'text', formatChosen: 'default' });
    this.status('starting');
  }

  nextIteration(): void {
    this.iteration++;
    this.event({ type: 'iteration-start', iteration: this.iteration, maxIterations: 5, fresh: true, prompt: this.iteration === 1 ? 'full' : 'condensed' });
    this.status('running');
  }

  finish(outcome: string, reason: string): void {
    const result = { run: this.id, plan: this.plan, outcome, exitCode: outcome === 'complete' ? 0 : 1, reason, iterations: this.iteration, bailouts: 0, signals: [], stops: [], prUrl: null, costUsd: 0.25, tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, startedAt: this.started, endedAt: new Date().toISOString(), warnings: [], runDir: this.paths.dir };
    this.event({ type: 'run-end', outcome, exitCode: result.exitCode, reason, result });
    writeFileSync(this.paths.result, JSON.stringify(result, null, 2));
    this.status(outcome, { task: null });
  }
}

// An inert switch that lets the tests find the browser's processes to check they all ended.
const MARKER = `--ralph-serve-test=${randomUUID()}`;
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', MARKER];
const CHROMIUM = findProgram('RALPH_CHROMIUM', ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']);
const HINT = 'Install a browser (Debian: apt-get install chromium) or point RALPH_CHROMIUM at one; .ci/run installs it.';

async function startProblem(): Promise<string | undefined> {
  if (CHROMIUM === undefined) return process.env.RALPH_CHROMIUM ? `RALPH_CHROMIUM=${process.env.RALPH_CHROMIUM} is not an executable file` : 'no chromium on PATH and RALPH_CHROMIUM not set';
  try {
    const probe = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: PATIENCE_MS });
    await probe.close();
    return undefined;
  } catch (error) {
    return `${CHROMIUM} did not start (${String((error as Error).message).split('\n')[0]})`;
  }
}

export async function browserAvailable(what: string): Promise<boolean> {
  return systemDepAvailable(what, await startProblem(), HINT);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
}

/** Closes the browser and checks none of its processes is left. */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  if (!browser) return;
  const pids = browserPids();
  await browser.close();
  await vi.waitFor(() => expect(pids.filter(isRunning)).toEqual([]), { timeout: PATIENCE_MS, interval: 100 });
}

export interface Watched {
  page: Page;
  dialogs: string[];
  requests: string[];
  errors: string[];
}

/** A page that records dialogs, requests, script errors and CSP violations. */
export async function openPage(browser: Browser, url: string): Promise<Watched> {
  const page = await browser.newPage();
  const w: Watched = { page, dialogs: [], requests: [], errors: [] };
  page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r) => w.requests.push(r.url()));
  page.on('pageerror', (e) => w.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') w.errors.push(m.text());
  });
  // A string, not a function: this file is compiled without DOM types.
  await page.addInitScript(`
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  `);
  await page.goto(url, { waitUntil: 'load' });
  // Set once; still there later means the page was never reloaded.
  await page.evaluate('window.__loadedOnce = true');
  return w;
}

function browserPids(): number[] {
  const parent = new Map<number, number>();
  const roots: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(MARKER)) roots.push(pid);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while we looked
    }
  }
  const all = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!all.has(pid) && all.has(ppid)) {
        all.add(pid);
        grew = true;
      }
    }
  }
  return [...all];
}

/**
 * expect.poll and vi.waitFor with room for a busy machine: they wait for an event (a page
 * update, a file change) and give up only after `timeout` (vitest's default is one second).
 */
export function poll<T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}) {
  return expect.poll(fn, { timeout: o.timeout ?? PATIENCE_MS, interval: 50 });
}

export function waitFor<T>(fn: () => T | Promise<T>, o: { timeout?: number } = {}): Promise<T> {
  return vi.waitFor(fn, { timeout: o.timeout ?? PATIENCE_MS, interval: 50 });
}
