// The settings in effect and where each came from, for `ralph config` (docs/config.md): flags,
// then the plan's front matter, then the config file, then ralph's built-in defaults.
import { AGENT_PRESETS } from '../agents/index.js';
import type { ExecOptions } from '../loop/types.js';
import type { PlanConfig } from '../plan/index.js';
import { credential } from '../util/credentials.js';
import { formatDuration } from '../util/duration.js';
import { layered, SETTING_LAYERS, type LayeredKey } from './layers.js';
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

  // The same table resolveConfig reads (layers.ts): value and source cannot disagree with a run.
  const sources = { flags, plan: fm, config: fc, configSource: cfg };
  const row = (key: LayeredKey, show: (v: never) => string): SettingRow => {
    const found = layered<never>(key, sources);
    return found === undefined ? { setting: SETTING_LAYERS[key].setting, value: null, source: 'not set' } : { setting: SETTING_LAYERS[key].setting, value: show(found.value), source: found.source };
  };
  const rows: SettingRow[] = [
    executorRow,
    agentRow,
    row('model', asText),
    row('maxIterations', asText),
    row('maxBailouts', asText),
    row('maxRuntimeMs', asLimit),
    row('maxCostUsd', (v: number) => `$${v}`),
    row('silenceTimeoutMs', asDuration),
    row('maxWaitMs', asDuration),
    row('maxStalls', asText),
    row('iterationTimeoutMs', asDuration),
    row('signalGraceMs', asDuration),
    row('contextBudget', asText),
    row('maxRetries', asText),
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
