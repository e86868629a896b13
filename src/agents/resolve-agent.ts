// `--agent NAME`: a named agent from the project's config (when it has one) or a built-in preset.
import { UsageError } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { AGENT_PRESETS, type AgentSpec } from './presets.js';

export interface ResolvedAgent extends AgentSpec {
  name: string;
  /** Where the definition came from, for the run's first line and `ralph config`. */
}

/**
 * Looks NAME up in `configured` (the config file's `agents:`) first, then in the presets.
 * Arguments given after `--` are appended to the agent's command.
 */
export function resolveAgent(name: string, extraArgs: string[] = [], configured: Readonly<Record<string, AgentSpec>> = {}): ResolvedAgent {
  const fromConfig = Object.hasOwn(configured, name) ? configured[name] : undefined;
  const spec = fromConfig ?? (Object.hasOwn(AGENT_PRESETS, name) ? AGENT_PRESETS[name] : undefined);
  if (spec === undefined) {
    const known = [...new Set([...Object.keys(configured), ...Object.keys(AGENT_PRESETS)])].sort();
    const near = didYouMean(name, known);
    throw new UsageError(`--agent: unknown agent ${JSON.stringify(name)}${near !== undefined ? `; did you mean --agent ${near}?` : ''}`, `Known agents: ${known.join(', ')}.`);
  }
  return { name, command: [...spec.command, ...extraArgs], streamFormat: spec.streamFormat, ...(spec.npm !== undefined ? { npm: spec.npm } : {}) };
}
