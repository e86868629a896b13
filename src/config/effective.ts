// The settings in effect and where each came from, for `ralph config` (docs/config.md): flags,
// then the plan's front matter, then the config file, then ralph's built-in defaults.
import { AGENT_PRESETS } from '../agents/index.js';
import { DEFAULTS } from '../contract.js';
import type { ExecOptions } from '../loop/types.js';
import type { PlanConfig } from '../plan/index.js';
import { credential } from '../util/credentials.js';
import { formatDuration } from '../util/duration.js';
import type { BatchDefaults, ProjectConfig } from './types.js';

export interface SettingRow {
  /** The setting's name as written in the config file and front matter. */
  setting: string;
  /** null: not set anywhere, and no default. */
  value: string | null;
  /** "flag", "plan", "<file>:<line>", "default", "environment", "preset". */
  source: string;
}

export interface EffectiveInput {
  flags: Partial<ExecOptions>;
  batchFlags: BatchDefaults;
  plan: PlanConfig | null;
  config: ProjectConfig;
  env: NodeJS.ProcessEnv;
}

type Layer<T> = [source: string, value: T | undefined];

function first<T>(setting: string, layers: Layer<T>[], show: (v: T) => string): SettingRow {
  for (const [source, value] of layers) if (value !== undefined) return { setting, value: show(value), source };
  return { setting, value: null, source: 'not set' };
}

const asText = (v: unknown) => String(v);
const asDuration = (ms: number) => formatDuration(ms);
// 0 is what `--max-runtime none` stores: no limit (src/loop/run-config.ts).
const asLimit = (ms: number) => (ms > 0 ? formatDuration(ms) : 'none');

export function effectiveSettings(input: EffectiveInput): SettingRow[] {
  const { flags, plan, config } = input;
  const fm: Partial<PlanConfig> = plan ?? {};
  const fc = config.exec;
  const cfg = (key: string) => config.where[`defaults.${key}`] ?? 'config file';
  const passed = flags.command && flags.command.length > 0 ? flags.command : undefined;

  // Which executor and agent: the same order as resolveConfig (src/loop/run-config.ts).
  const explicit: Layer<string>[] = [
    ['flag', flags.agent !== undefined ? 'command' : flags.executor],
    ['flag (after --)', passed ? 'command' : undefined],
    ['plan', fm.executor ?? (fm.command ? 'command' : undefined)],
  ];
  const chosen = explicit.find(([, v]) => v !== undefined);
  const defaultAgentApplies = flags.agent === undefined && config.agent !== undefined && (chosen === undefined || (chosen[1] === 'command' && !passed && !fm.command));
  const agentRow = first<string>('agent', [['flag', flags.agent], [config.where.agent ?? 'config file', defaultAgentApplies ? config.agent : undefined]], asText);
  const executorRow = first<string>(
    'executor',
    [...explicit, [config.where.agent ?? 'config file', defaultAgentApplies ? 'command' : undefined], ['environment (ANTHROPIC_API_KEY)', credential(input.env, 'ANTHROPIC_API_KEY') ? 'anthropic' : undefined]],
    asText,
  );

  const rows: SettingRow[] = [
    executorRow,
    agentRow,
    first<string>('model', [['flag', flags.model], ['plan', fm.model], [cfg('model'), fc.model]], asText),
    first<number>('max_iterations', [['flag', flags.maxIterations], ['plan', fm.maxIterations], [cfg('max_iterations'), fc.maxIterations], ['default', DEFAULTS.maxIterations]], asText),
    first<number>('max_bailouts', [['flag', flags.maxBailouts], ['plan', fm.maxBailouts], [cfg('max_bailouts'), fc.maxBailouts], ['default', DEFAULTS.maxBailouts]], asText),
    first<number>('max_runtime', [['flag', flags.maxRuntimeMs], ['plan', fm.maxRuntimeMs], [cfg('max_runtime'), fc.maxRuntimeMs], ['default', DEFAULTS.maxRuntimeMs]], asLimit),
    first<number>('max_cost_usd', [['flag', flags.maxCostUsd], ['plan', fm.maxCostUsd], [cfg('max_cost_usd'), fc.maxCostUsd]], (v) => `$${v}`),
    first<number>('silence_timeout', [['flag', flags.silenceTimeoutMs], ['plan', fm.silenceTimeoutMs], [cfg('silence_timeout'), fc.silenceTimeoutMs], ['default', DEFAULTS.silenceTimeoutMs]], asDuration),
    first<number>('max_wait', [['flag', flags.maxWaitMs], ['plan', fm.maxWaitMs], [cfg('max_wait'), fc.maxWaitMs], ['default', DEFAULTS.maxWaitMs]], asDuration),
    first<number>('max_stalls', [['flag', flags.maxStalls], ['plan', fm.maxStalls], [cfg('max_stalls'), fc.maxStalls], ['default', DEFAULTS.maxStalls]], asText),
    first<number>('iteration_timeout', [['flag', flags.iterationTimeoutMs], [cfg('iteration_timeout'), fc.iterationTimeoutMs]], asDuration),
    first<number>('signal_grace', [['flag', flags.signalGraceMs], [cfg('signal_grace'), fc.signalGraceMs], ['default', DEFAULTS.signalGraceMs]], asDuration),
    first<number>('context_budget', [['flag', flags.contextBudget], [cfg('context_budget'), fc.contextBudget], ['default', DEFAULTS.contextBudget]], asText),
    first<number>('max_retries', [['flag', flags.maxRetries], [cfg('max_retries'), fc.maxRetries], ['default', DEFAULTS.maxRetries]], asText),
    first<number>('concurrency', [['flag', input.batchFlags.concurrency], [cfg('concurrency'), config.batch.concurrency], ['default', 1]], asText),
    first<string>('out', [['flag', input.batchFlags.out], [cfg('out'), config.batch.out], ['default', '.ralph/batches/<timestamp>']], asText),
    first<string>('isolate', [['flag', input.batchFlags.isolate], [cfg('isolate'), config.batch.isolate], ['default', 'worktree when concurrency > 1, else none']], asText),
    first<number>('plan_timeout', [['flag', input.batchFlags.planTimeoutMs], [cfg('plan_timeout'), config.batch.planTimeoutMs]], asDuration),
  ];
  return rows;
}

export interface AgentRow {
  name: string;
  command: string[];
  streamFormat: string;
  source: string;
}

/** Every agent --agent can name: the config's first, then the presets it does not replace. */
export function agentRows(config: ProjectConfig): AgentRow[] {
  const rows: AgentRow[] = Object.entries(config.agents).map(([name, a]) => ({ name, command: a.command, streamFormat: a.streamFormat, source: config.where[`agents.${name}`] ?? 'config file' }));
  for (const [name, p] of Object.entries(AGENT_PRESETS)) {
    if (!Object.hasOwn(config.agents, name)) rows.push({ name, command: p.command, streamFormat: p.streamFormat, source: 'preset' });
  }
  return rows;
}
