// One table of where each setting may come from, in order: a flag, the plan's front matter, the
// config file, ralph's default (docs/config.md#precedence). resolveConfig takes the value from
// it and `ralph config` the value and its source, so the two cannot disagree.
import { DEFAULTS } from '../contract.js';

export type LayeredKey =
  | 'model'
  | 'maxIterations'
  | 'maxBailouts'
  | 'maxRuntimeMs'
  | 'maxCostUsd'
  | 'silenceTimeoutMs'
  | 'maxWaitMs'
  | 'maxStalls'
  | 'iterationTimeoutMs'
  | 'signalGraceMs'
  | 'contextBudget'
  | 'maxRetries'
  | 'verifyTimeoutMs';

interface LayerSpec {
  /** The name as written in the config file and the front matter. */
  setting: string;
  plan: boolean;
  config: boolean;
  fallback?: number;
}

export const SETTING_LAYERS: Readonly<Record<LayeredKey, LayerSpec>> = {
  model: { setting: 'model', plan: true, config: true },
  maxIterations: { setting: 'max_iterations', plan: true, config: true, fallback: DEFAULTS.maxIterations },
  maxBailouts: { setting: 'max_bailouts', plan: true, config: true, fallback: DEFAULTS.maxBailouts },
  maxRuntimeMs: { setting: 'max_runtime', plan: true, config: true, fallback: DEFAULTS.maxRuntimeMs },
  maxCostUsd: { setting: 'max_cost_usd', plan: true, config: true },
  silenceTimeoutMs: { setting: 'silence_timeout', plan: true, config: true, fallback: DEFAULTS.silenceTimeoutMs },
  maxWaitMs: { setting: 'max_wait', plan: true, config: true, fallback: DEFAULTS.maxWaitMs },
  maxStalls: { setting: 'max_stalls', plan: true, config: true, fallback: DEFAULTS.maxStalls },
  iterationTimeoutMs: { setting: 'iteration_timeout', plan: false, config: true },
  signalGraceMs: { setting: 'signal_grace', plan: false, config: true, fallback: DEFAULTS.signalGraceMs },
  contextBudget: { setting: 'context_budget', plan: false, config: true, fallback: DEFAULTS.contextBudget },
  maxRetries: { setting: 'max_retries', plan: false, config: true, fallback: DEFAULTS.maxRetries },
  verifyTimeoutMs: { setting: 'verify_timeout', plan: true, config: false },
};

type Values = Partial<Record<LayeredKey, unknown>>;

export interface LayerSources {
  flags: Values;
  plan: Values;
  config: Values;
  /** How the config file's value of a setting is named: its file:line when known. */
  configSource?: (setting: string) => string;
}

/** The value in effect and where it came from; undefined when no layer sets it and it has no default. */
export function layered<T>(key: LayeredKey, s: LayerSources): { value: T; source: string } | undefined {
  const spec = SETTING_LAYERS[key];
  const layers: [string, unknown][] = [['flag', s.flags[key]]];
  if (spec.plan) layers.push(['plan', s.plan[key]]);
  if (spec.config) layers.push([s.configSource?.(spec.setting) ?? 'config file', s.config[key]]);
  layers.push(['default', spec.fallback]);
  for (const [source, value] of layers) if (value !== undefined) return { value: value as T, source };
  return undefined;
}
