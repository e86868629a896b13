// Flags over front matter over defaults (docs/commands.md#ralph-exec), and the choice of executor.
import { resolve } from 'node:path';
import { resolveAgent, type ResolvedAgent } from '../agents/index.js';
import { DEFAULTS } from '../contract.js';
import { UsageError } from '../errors.js';
import type { Plan } from '../plan/index.js';
import type { ExecOptions, ExecutorName, StreamFormat } from './types.js';

export interface RunConfig {
  cwd: string;
  summaryPath: string;
  executor: ExecutorName;
  command?: string[];
  streamFormat: StreamFormat;
  model?: string;
  maxIterations: number;
  maxBailouts: number;
  maxCostUsd?: number;
  maxRuntimeMs?: number;
  silenceTimeoutMs: number;
  iterationTimeoutMs?: number;
  maxWaitMs: number;
  maxStalls: number;
  requireSummary: boolean;
  verify: string[];
  rejectBlockers: string[];
  contextBudget: number;
  maxRetries?: number;
  signalGraceMs: number;
  promptsDir?: string;
  /** --agent: which named agent the command came from. */
  agent?: ResolvedAgent;
}

export function resolveConfig(options: ExecOptions, plan: Plan, env: NodeJS.ProcessEnv): RunConfig {
  const fm = plan.config;
  const cwd = resolve(options.cwd);
  if (options.agent !== undefined && options.executor === 'anthropic') {
    throw new UsageError('--agent runs an agent CLI; it cannot be combined with --executor anthropic', 'Drop one of the two.');
  }
  const agent = options.agent !== undefined ? resolveAgent(options.agent, options.command ?? []) : undefined;
  const command = agent ? agent.command : options.command && options.command.length > 0 ? options.command : fm.command;
  const executor: ExecutorName | undefined =
    (agent ? 'command' : undefined) ??
    options.executor ??
    (options.command && options.command.length > 0 ? 'command' : undefined) ??
    fm.executor ??
    (fm.command ? 'command' : undefined) ??
    (env.ANTHROPIC_API_KEY ? 'anthropic' : undefined);
  if (executor === undefined) {
    throw new UsageError(
      'no executor to run the plan with',
      'Choose one: `ralph exec plan.md -- <agent command>` (e.g. -- claude -p), `executor: command` with `command:` in the plan, or set ANTHROPIC_API_KEY for --executor anthropic.',
    );
  }
  if (executor === 'command' && (!command || command.length === 0)) {
    throw new UsageError(
      'the command executor needs a program to run',
      'Give it after --, e.g. `ralph exec plan.md -- claude -p --dangerously-skip-permissions`, or as `command: [...]` in the plan.',
    );
  }
  if (executor === 'anthropic' && !env.ANTHROPIC_API_KEY) {
    throw new UsageError('the anthropic executor needs ANTHROPIC_API_KEY', 'Export your API key, or run an agent CLI with `-- <command>`.');
  }
  const summaryPath = options.summary !== undefined ? resolve(options.summary) : plan.summaryPath;
  const config: RunConfig = {
    cwd,
    summaryPath,
    executor,
    streamFormat: options.streamFormat ?? agent?.streamFormat ?? fm.streamFormat ?? 'text',
    maxIterations: options.maxIterations ?? fm.maxIterations ?? DEFAULTS.maxIterations,
    maxBailouts: options.maxBailouts ?? fm.maxBailouts ?? DEFAULTS.maxBailouts,
    silenceTimeoutMs: options.silenceTimeoutMs ?? fm.silenceTimeoutMs ?? 10 * 60_000,
    maxWaitMs: options.maxWaitMs ?? fm.maxWaitMs ?? DEFAULTS.maxWaitMs,
    maxStalls: options.maxStalls ?? fm.maxStalls ?? DEFAULTS.maxStalls,
    requireSummary: fm.requireSummary,
    verify: fm.verify,
    rejectBlockers: fm.blockers.reject,
    contextBudget: options.contextBudget ?? DEFAULTS.contextBudget,
    signalGraceMs: options.signalGraceMs ?? DEFAULTS.signalGraceMs,
  };
  if (executor === 'command') config.command = command;
  if (agent !== undefined) config.agent = agent;
  const model = options.model ?? fm.model;
  if (model !== undefined) config.model = model;
  const maxCost = options.maxCostUsd ?? fm.maxCostUsd;
  if (maxCost !== undefined) config.maxCostUsd = maxCost;
  // 0 is `--max-runtime none`: no runtime limit at all (docs/first-hour.md).
  const maxRuntime = options.maxRuntimeMs ?? fm.maxRuntimeMs ?? DEFAULTS.maxRuntimeMs;
  if (maxRuntime > 0) config.maxRuntimeMs = maxRuntime;
  if (options.iterationTimeoutMs !== undefined) config.iterationTimeoutMs = options.iterationTimeoutMs;
  if (options.maxRetries !== undefined) config.maxRetries = options.maxRetries;
  if (options.promptsDir !== undefined) config.promptsDir = resolve(options.promptsDir);
  return config;
}
