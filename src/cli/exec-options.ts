// The options of `ralph exec` (docs/commands.md#ralph-exec), declared once so `ralph batch` takes the same ones.
// No commander defaults here: a flag that is not given must not override the plan's front matter.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { AGENT_PRESETS } from '../agents/index.js';
import { DEFAULTS } from '../contract.js';
import { DEFAULT_MODEL } from '../executors/anthropic/models.js';
import type { ExecOptions, ExecutorName, StreamFormat } from '../loop/types.js';
import { parseDuration } from '../util/duration.js';

/** Commander argument parsers, shared with `ralph batch`. */
export const positiveInt = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1, got "${value}".`);
  return Number(value);
};
const nonNegativeInt = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`${name} must be a whole number, got "${value}".`);
  return Number(value);
};
export const duration = (name: string) => (value: string) => {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) throw new InvalidArgumentError(`${name} must be a duration such as 90m, 1h30m, 45s or 500ms, got "${value}".`);
  return ms;
};
/** A duration, or `none` (0: no limit). */
const durationOrNone = (name: string) => (value: string) => (/^(none|off)$/i.test(value.trim()) ? 0 : duration(name)(value));
const dollars = (value: string) => {
  const n = Number(value.replace(/^\$/, ''));
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`--max-cost must be an amount in USD above 0, such as 5 or 2.50, got "${value}".`);
  return n;
};

export function addExecOptions(command: Command): Command {
  return command
    .addOption(new Option('--executor <name>', "which executor runs the plan (default: command when -- is given, else the plan's executor, else anthropic when ANTHROPIC_API_KEY is set)").choices(['anthropic', 'command']))
    .option('--agent <name>', `run a known agent CLI unattended (${Object.keys(AGENT_PRESETS).join(', ')}); args after -- are added to its command`)
    .option('--cwd <dir>', 'working directory of the executor (default: the current directory)')
    .option('--max-iterations <n>', `stop after n iterations (default: ${DEFAULTS.maxIterations})`, positiveInt('--max-iterations'))
    .option('--max-bailouts <n>', `bailouts in a row allowed (default: ${DEFAULTS.maxBailouts})`, nonNegativeInt('--max-bailouts'))
    .option('--max-runtime <duration>', `stop the run after this long, e.g. 90m, or none (default: ${DEFAULTS.maxRuntime})`, durationOrNone('--max-runtime'))
    .option('--max-cost <usd>', 'stop the run once it has cost this much (USD; default: none, as no amount is safe without a price; needs an executor that reports cost)', dollars)
    .option('--silence-timeout <duration>', `no output for this long is off the rails (default: ${DEFAULTS.silenceTimeout})`, duration('--silence-timeout'))
    .option('--max-wait <duration>', 'total time to wait for usage limits to reset before ending exhausted (default: 6h)', duration('--max-wait'))
    .option('--max-stalls <n>', `iterations in a row with no decision and no progress before ending exhausted; 0: never (default: ${DEFAULTS.maxStalls})`, nonNegativeInt('--max-stalls'))
    .option('--iteration-timeout <duration>', 'stop one iteration after this long; it counts as one without a decision (default: none)', duration('--iteration-timeout'))
    .option('--signal-grace <duration>', 'after a failed, blocked or bailout signal, stop the executor after this long (default: 10s)', duration('--signal-grace'))
    .option('--summary <file>', "summary file, relative to the current directory (default: the plan's summary:, else <plan dir>/<plan stem>.summary.json)")
    .option('--run-dir <dir>', 'run directory (default: .ralph/runs/<run-id> in the working directory)')
    .option('--prompts <dir>', 'folder of prompt templates overriding the built-in ones (default: the built-in ones)')
    .option('--model <name>', `model for the anthropic executor (default: the plan's model:, else ${DEFAULT_MODEL})`)
    .option('--context-budget <tokens>', `anthropic: input tokens after which a fresh context starts (default: ${DEFAULTS.contextBudget})`, positiveInt('--context-budget'))
    .option('--max-retries <n>', 'anthropic: API retries for 429/529/5xx (default: 2)', nonNegativeInt('--max-retries'))
    .addOption(new Option('--stream-format <format>', 'how the command executor writes its output (default: text)').choices(['text', 'claude-json', 'codex-json']));
}

export interface RawExecFlags {
  executor?: string;
  agent?: string;
  cwd?: string;
  maxIterations?: number;
  maxBailouts?: number;
  maxRuntime?: number;
  maxCost?: number;
  silenceTimeout?: number;
  iterationTimeout?: number;
  maxWait?: number;
  maxStalls?: number;
  signalGrace?: number;
  summary?: string;
  runDir?: string;
  prompts?: string;
  model?: string;
  contextBudget?: number;
  maxRetries?: number;
  streamFormat?: string;
  resume?: string;
}

/** Commander's parsed flags (plus what came after `--`) as ExecOptions, without the plan path. */
export function execOptionsFrom(flags: RawExecFlags, passThrough: string[], cwd: string): Omit<ExecOptions, 'planPath'> {
  const o: Omit<ExecOptions, 'planPath'> = { cwd: flags.cwd ?? cwd };
  if (flags.executor !== undefined) o.executor = flags.executor as ExecutorName;
  if (passThrough.length > 0) o.command = passThrough;
  if (flags.agent !== undefined) o.agent = flags.agent;
  if (flags.streamFormat !== undefined) o.streamFormat = flags.streamFormat as StreamFormat;
  if (flags.model !== undefined) o.model = flags.model;
  if (flags.maxIterations !== undefined) o.maxIterations = flags.maxIterations;
  if (flags.maxBailouts !== undefined) o.maxBailouts = flags.maxBailouts;
  if (flags.maxRuntime !== undefined) o.maxRuntimeMs = flags.maxRuntime;
  if (flags.maxCost !== undefined) o.maxCostUsd = flags.maxCost;
  if (flags.silenceTimeout !== undefined) o.silenceTimeoutMs = flags.silenceTimeout;
  if (flags.iterationTimeout !== undefined) o.iterationTimeoutMs = flags.iterationTimeout;
  if (flags.signalGrace !== undefined) o.signalGraceMs = flags.signalGrace;
  if (flags.maxWait !== undefined) o.maxWaitMs = flags.maxWait;
  if (flags.maxStalls !== undefined) o.maxStalls = flags.maxStalls;
  if (flags.summary !== undefined) o.summary = flags.summary;
  if (flags.runDir !== undefined) o.runDir = flags.runDir;
  if (flags.prompts !== undefined) o.promptsDir = flags.prompts;
  if (flags.contextBudget !== undefined) o.contextBudget = flags.contextBudget;
  if (flags.maxRetries !== undefined) o.maxRetries = flags.maxRetries;
  if (flags.resume !== undefined) o.resume = flags.resume;
  return o;
}
