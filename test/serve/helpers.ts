// What the `ralph serve` tests share: a scripted run that writes a run's files the way a run does
// (STATUS.json atomically, events.jsonl and transcripts appended), and patient waits. The real
// browser is test/helpers/browser.ts.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import { runPaths, type RunPaths } from '../../src/runs/paths.js';
import { writeStatus } from '../../src/runs/status-file.js';
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
