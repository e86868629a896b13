// Flags over front matter over the config file over built-in defaults (docs/config.md,
// docs/commands.md#ralph-exec), and the choice of executor.
import { resolve } from 'node:path';
import { layered, type LayeredKey } from '../config/layers.js';
import { AGENT_PRESETS, formatFromCommand, resolveAgent, type AgentSpec, type ResolvedAgent } from '../agents/index.js';
import { DEFAULTS } from '../contract.js';
import { UsageError } from '../errors.js';
import { credential } from '../util/credentials.js';
import type { Plan } from '../plan/index.js';
import { sandboxFromEnv, sandboxSettings, type SandboxLayer, type SandboxSettings } from '../sandbox/settings.js';
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
  /** Each verify command's limit (docs/hostile.md); undefined: DEFAULTS.verifyTimeoutMs. */
  verifyTimeoutMs?: number;
  requireSummary: boolean;
  verify: string[];
  rejectBlockers: string[];
  contextBudget: number;
  maxRetries?: number;
  signalGraceMs: number;
  /** Bytes of one iteration's transcript kept, head and tail (docs/hostile.md). */
  maxLogBytes: number;
  promptsDir?: string;
  /** --agent: which named agent the command came from. */
  agent?: ResolvedAgent;
  /** Whether and how the agent and verify commands are sandboxed (docs/sandbox.md). */
  sandbox: SandboxSettings;
  /** The config file's protect: globs, besides the plan's own. */
  protect: string[];
  /** Where the stream format came from, for the run's `agent` event. */
  formatChosen: 'flag' | 'preset' | 'plan' | 'command' | 'default';
}

/**
 * Exec options the config file's `defaults:` can set (below the plan's front matter): the
 * layered settings SETTING_LAYERS marks `config: true` (all but verify_timeout), and `protect`.
 */
export type ExecDefaults = Pick<ExecOptions, Exclude<LayeredKey, 'verifyTimeoutMs'> | 'protect'>;

/** What the project's config file adds to one run (docs/config.md); the loop never reads the file. */
export interface ConfigLayer {
  /** The config file in effect (absolute), null for none; said at the start of every run. */
  file?: string | null;
  /** Named agents: `--agent NAME` looks here before the built-in presets. */
  agents: Readonly<Record<string, AgentSpec>>;
  /** The agent that runs when neither the flags nor the plan choose an executor or command. */
  agent?: string;
  exec: ExecDefaults;
  /** `sandbox:` (docs/sandbox.md). */
  sandbox?: SandboxLayer;
}

const NO_CONFIG: ConfigLayer = { agents: {}, exec: {} };

export function resolveConfig(options: ExecOptions, plan: Plan, env: NodeJS.ProcessEnv, project: ConfigLayer = NO_CONFIG): RunConfig {
  const fm = plan.config;
  const fc = project.exec;
  const cwd = resolve(options.cwd);
  if (options.agent !== undefined && options.executor === 'anthropic') {
    throw new UsageError('--agent runs an agent CLI; it cannot be combined with --executor anthropic', 'Drop one of the two.');
  }
  const flagAgent = options.agent !== undefined ? resolveAgent(options.agent, options.command ?? [], project.agents) : undefined;
  const passed = options.command && options.command.length > 0 ? options.command : undefined;
  const chosen: ExecutorName | undefined =
    (flagAgent ? 'command' : undefined) ?? options.executor ?? (passed ? 'command' : undefined) ?? fm.executor ?? (fm.command ? 'command' : undefined);
  // The config's default agent fills in only what flags and plan left open: no executor at all,
  // or the command executor with no command.
  const defaultAgent =
    flagAgent === undefined && project.agent !== undefined && (chosen === undefined || (chosen === 'command' && !passed && !fm.command))
      ? resolveAgent(project.agent, [], project.agents)
      : undefined;
  const agent = flagAgent ?? defaultAgent;
  const command = flagAgent ? flagAgent.command : (passed ?? fm.command ?? defaultAgent?.command);
  const executor: ExecutorName | undefined = chosen ?? (defaultAgent ? 'command' : undefined) ?? (credential(env, 'ANTHROPIC_API_KEY') ? 'anthropic' : undefined);
  if (executor === undefined) {
    throw new UsageError(
      'no executor to run the plan with',
      `Choose an agent: \`ralph exec plan.md --agent claude\` (or ${Object.keys(AGENT_PRESETS).filter((n) => n !== 'claude').join(', ')}), any agent CLI after \`--\`, \`agent:\` in ralph.config.yaml, or set ANTHROPIC_API_KEY for --executor anthropic.`,
    );
  }
  if (executor === 'command' && (!command || command.length === 0)) {
    throw new UsageError(
      'the command executor needs a program to run',
      'Choose an agent with `--agent claude` (or another preset), give a program after `--`, or write `command: [...]` in the plan.',
    );
  }
  if (executor === 'anthropic' && !credential(env, 'ANTHROPIC_API_KEY')) {
    throw new UsageError('the anthropic executor needs ANTHROPIC_API_KEY', 'Export your API key, or run an agent CLI with `-- <command>`.');
  }
  const summaryPath = options.summary !== undefined ? resolve(options.summary) : plan.summaryPath;
  // Flag over --agent over front matter over the config's default agent; else chosen from the
  // command when it says (docs/agents.md).
  const detected = executor === 'command' ? formatFromCommand(command) : undefined;
  const [streamFormat, formatChosen]: [StreamFormat, RunConfig['formatChosen']] =
    options.streamFormat !== undefined
      ? [options.streamFormat, 'flag']
      : flagAgent !== undefined
        ? [flagAgent.streamFormat, 'preset']
        : fm.streamFormat !== undefined
          ? [fm.streamFormat, 'plan']
          : defaultAgent !== undefined
            ? [defaultAgent.streamFormat, 'preset']
            : detected !== undefined
              ? [detected, 'command']
              : ['text', 'default'];
  // Flag, front matter, config file, default: the one table `ralph config` reads too.
  const sources = { flags: options, plan: fm, config: fc };
  const value = <T>(key: LayeredKey): T | undefined => layered<T>(key, sources)?.value;
  const config: RunConfig = {
    cwd,
    summaryPath,
    executor,
    streamFormat,
    formatChosen,
    maxIterations: value<number>('maxIterations')!,
    maxBailouts: value<number>('maxBailouts')!,
    silenceTimeoutMs: value<number>('silenceTimeoutMs')!,
    maxWaitMs: value<number>('maxWaitMs')!,
    maxStalls: value<number>('maxStalls')!,
    requireSummary: fm.requireSummary,
    verify: fm.verify,
    rejectBlockers: fm.blockers.reject,
    contextBudget: value<number>('contextBudget')!,
    signalGraceMs: value<number>('signalGraceMs')!,
    maxLogBytes: options.maxLogBytes ?? DEFAULTS.maxLogBytes,
    sandbox: sandboxSettings(options.sandbox, fm.sandbox, project.sandbox, sandboxFromEnv(env)),
    protect: fc.protect ?? [],
  };
  if (executor === 'command') config.command = command;
  if (agent !== undefined) config.agent = agent;
  const model = value<string>('model');
  if (model !== undefined) config.model = model;
  const maxCost = value<number>('maxCostUsd');
  if (maxCost !== undefined) config.maxCostUsd = maxCost;
  // 0 is `--max-runtime none`: no runtime limit at all (docs/first-hour.md).
  const maxRuntime = value<number>('maxRuntimeMs')!;
  if (maxRuntime > 0) config.maxRuntimeMs = maxRuntime;
  const iterationTimeout = value<number>('iterationTimeoutMs');
  if (iterationTimeout !== undefined) config.iterationTimeoutMs = iterationTimeout;
  const verifyTimeout = value<number>('verifyTimeoutMs');
  if (verifyTimeout !== undefined) config.verifyTimeoutMs = verifyTimeout;
  const maxRetries = value<number>('maxRetries');
  if (maxRetries !== undefined) config.maxRetries = maxRetries;
  if (options.promptsDir !== undefined) config.promptsDir = resolve(options.promptsDir);
  return config;
}
