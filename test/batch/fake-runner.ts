// A stand-in for the loop's runPlan: each plan follows a script of attempts, writes a run
// directory like the real one (result.json, findings.jsonl) and reports events.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitCodeOf, RUN_FILES, type Outcome } from '../../src/contract.js';
import { UsageError } from '../../src/errors.js';
import type { RunEvent } from '../../src/loop/events.js';
import type { ExecOptions, RunResult } from '../../src/loop/types.js';
import type { RunPlanFn } from '../../src/batch/index.js';

export type Step =
  | { outcome: Outcome; findings?: Array<Record<string, unknown>>; iterations?: number; costUsd?: number | null; reason?: string; summary?: unknown; delayMs?: number }
  | { throw: 'crash' | 'usage' }
  /** Runs until aborted, then ends interrupted (or never ends when `stuck`). */
  | { hang: true; stuck?: boolean };

export interface FakeCall {
  plan: string;
  options: ExecOptions;
  hooks: Parameters<RunPlanFn>[1];
}

export function finding(type: string, severity: string, title: string, valid = true): Record<string, unknown> {
  return { run: 'r', plan: 'p', iteration: 1, at: new Date().toISOString(), valid, type, severity, title, detail: 'd', file: null, action: 'none' };
}

function planIdOf(options: ExecOptions): string {
  // Run directories are runs/<id> or runs/<id>.<n>.
  const dir = options.runDir!.split('/').pop()!;
  return dir.replace(/\.\d+$/, '');
}

export function fakeRunner(scripts: Record<string, Step[]>) {
  const calls: FakeCall[] = [];
  let running = 0;
  let maxRunning = 0;
  const runPlan: RunPlanFn = async (options, hooks) => {
    const plan = planIdOf(options);
    const attempt = calls.filter((c) => c.plan === plan).length;
    calls.push({ plan, options, hooks });
    const step = scripts[plan]?.[attempt] ?? scripts[plan]?.at(-1) ?? { outcome: 'complete' };
    running++;
    maxRunning = Math.max(maxRunning, running);
    try {
      const startedAt = new Date().toISOString();
      const emit = (e: RunEvent) => hooks?.onEvent?.(e);
      emit({ type: 'run-start', runId: plan, runDir: options.runDir!, plan, planPath: options.planPath, cwd: options.cwd, mode: 'new', executor: 'command', maxIterations: 20, startedAt, head: null });
      emit({ type: 'iteration-start', iteration: 1, maxIterations: 20, fresh: true, prompt: 'full' });
      if ('throw' in step) {
        if (step.throw === 'usage') throw new UsageError(`${options.planPath}: invalid plan`);
        throw new Error('executor exploded');
      }
      mkdirSync(options.runDir!, { recursive: true });
      let outcome: Outcome;
      let reason: string;
      let iterations = 1;
      let costUsd: number | null = 0.01;
      if ('hang' in step) {
        await new Promise<void>((resolve) => {
          if (step.stuck) return; // never settles
          if (hooks?.signal?.aborted) return resolve();
          hooks?.signal?.addEventListener('abort', () => resolve(), { once: true });
        });
        outcome = 'interrupted';
        reason = 'interrupted by a signal';
      } else {
        if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
        outcome = step.outcome;
        reason = step.reason ?? `ended ${step.outcome}`;
        iterations = step.iterations ?? 1;
        costUsd = step.costUsd === undefined ? 0.01 : step.costUsd;
        if (step.findings) writeFileSync(join(options.runDir!, RUN_FILES.findings), step.findings.map((f) => JSON.stringify(f)).join('\n') + '\n');
        if (step.summary !== undefined) {
          writeFileSync(options.planPath.replace(/\.md$/, '.summary.json'), JSON.stringify(step.summary));
        }
        if (outcome === 'complete') emit({ type: 'signal', iteration: 1, name: 'PLAN_COMPLETE', args: [], source: 'stdout', line: 3 });
      }
      const result: RunResult = {
        run: plan,
        plan,
        outcome,
        exitCode: exitCodeOf(outcome),
        reason,
        iterations,
        bailouts: 0,
        signals: [],
        prUrl: null,
        costUsd,
        tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        startedAt,
        endedAt: new Date().toISOString(),
        warnings: [],
        runDir: options.runDir!,
      };
      writeFileSync(join(options.runDir!, RUN_FILES.result), JSON.stringify(result));
      emit({ type: 'run-end', outcome, exitCode: result.exitCode, reason, result });
      return result;
    } finally {
      running--;
    }
  };
  return { runPlan, calls, maxRunning: () => maxRunning };
}
