// The options of `ralph exec` (docs/commands.md#ralph-exec), declared once so `ralph batch` takes the same ones.
// No commander defaults here: a flag that is not given must not override the plan's front matter.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { AGENT_PRESETS } from '../agents/index.js';
import { CONFIG_FILE, DEFAULTS, EXECUTOR_NAMES, LIMITS, STREAM_FORMATS, type Range } from '../contract.js';
import { DEFAULT_MODEL } from '../executors/anthropic/models.js';
import type { ExecOptions, ExecutorName, StreamFormat } from '../loop/types.js';
import { findProjectRoot } from '../runs/project-root.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { parseSize } from '../util/size.js';
import { SANDBOX_MODES, type SandboxMode } from '../sandbox/settings.js';

// Commander argument parsers, shared with `ralph batch`. Every number has a useful range
// (src/contract.ts LIMITS, docs/hostile.md "Numbers").
export const wholeNumber = (name: string, range: Range) => (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < range.min || n > range.max) {
    throw new InvalidArgumentError(`${name} must be a whole number from ${range.min} to ${range.max}, got "${value}".`);
  }
  return n;
};
export const positiveInt = (name: string, range: Range = { min: 1, max: Number.MAX_SAFE_INTEGER }) => wholeNumber(name, range);
export const duration = (name: string, range: Range = { min: 1, max: 30 * 86_400_000 }) => (value: string) => {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) throw new InvalidArgumentError(`${name} must be a duration such as 90m, 1h30m, 45s or 500ms, got "${value}".`);
  if (ms < range.min || ms > range.max) throw new InvalidArgumentError(`${name} must be from ${formatDuration(range.min)} to ${formatDuration(range.max)}, got "${value}".`);
  return ms;
};
/** A duration, or `none` (0: no limit). */
const durationOrNone = (name: string, range: Range) => (value: string) => (/^(none|off)$/i.test(value.trim()) ? 0 : duration(name, range)(value));
const dollars = (value: string) => {
  const n = Number(value.replace(/^\$/, ''));
  const { min, max } = LIMITS.maxCostUsd;
  if (!Number.isFinite(n) || n <= min || n > max) throw new InvalidArgumentError(`--max-cost must be an amount in USD above ${min} and at most ${max}, such as 5 or 2.50, got "${value}".`);
  return n;
};
const size = (name: string, range: Range) => (value: string) => {
  const bytes = parseSize(value);
  if (bytes === undefined) throw new InvalidArgumentError(`${name} must be a size such as 100MB, 2GB or 512KB, got "${value}".`);
  if (bytes < range.min || bytes > range.max) throw new InvalidArgumentError(`${name} must be from 1KB to 1TB, got "${value}".`);
  return bytes;
};

/** `sandboxPolicy`: `ralph config`, where a bare `--sandbox` asks for the policy itself. */
export function addExecOptions(command: Command, o: { sandboxPolicy?: boolean } = {}): Command {
  return command
    .addOption(new Option('--executor <name>', "which executor runs the plan (default: command when -- is given, else the plan's executor, else anthropic when ANTHROPIC_API_KEY is set)").choices(EXECUTOR_NAMES))
    .option('--agent <name>', `run a known agent CLI unattended (${Object.keys(AGENT_PRESETS).join(', ')}); args after -- are added to its command`)
    .option('--cwd <dir>', `working directory of the executor (default: the project's root, the nearest folder up from here with .git or ${CONFIG_FILE})`)
    .option('--max-iterations <n>', `stop after n iterations (default: ${DEFAULTS.maxIterations})`, wholeNumber('--max-iterations', LIMITS.maxIterations))
    .option('--max-bailouts <n>', `bailouts in a row allowed (default: ${DEFAULTS.maxBailouts})`, wholeNumber('--max-bailouts', LIMITS.maxBailouts))
    .option('--max-runtime <duration>', `stop the run after this long, e.g. 90m, or none (default: ${formatDuration(DEFAULTS.maxRuntimeMs)})`, durationOrNone('--max-runtime', LIMITS.maxRuntimeMs))
    .option('--max-cost <usd>', 'stop the run once it has cost this much (USD; default: none, as no amount is safe without a price; needs an executor that reports cost)', dollars)
    .option('--silence-timeout <duration>', `no output for this long is off the rails (default: ${formatDuration(DEFAULTS.silenceTimeoutMs)})`, duration('--silence-timeout', LIMITS.silenceTimeoutMs))
    .option('--max-wait <duration>', `total time to wait for usage limits to reset before ending exhausted (default: ${formatDuration(DEFAULTS.maxWaitMs)})`, duration('--max-wait', LIMITS.maxWaitMs))
    .option('--max-stalls <n>', `iterations in a row with no decision and no progress before ending exhausted; 0: never (default: ${DEFAULTS.maxStalls})`, wholeNumber('--max-stalls', LIMITS.maxStalls))
    .option('--iteration-timeout <duration>', 'stop one iteration after this long; it counts as one without a decision (default: none)', duration('--iteration-timeout', LIMITS.iterationTimeoutMs))
    .option('--signal-grace <duration>', 'after a failed, blocked or bailout signal, stop the executor after this long (default: 10s)', duration('--signal-grace', LIMITS.signalGraceMs))
    .option('--verify-timeout <duration>', 'limit of each verify command; past it the command fails (default: 10m)', duration('--verify-timeout', LIMITS.verifyTimeoutMs))
    .option('--max-log <size>', `bytes of one iteration's transcript kept, head and tail (default: ${DEFAULTS.maxLogBytes / 1024 / 1024}MB)`, size('--max-log', LIMITS.maxLogBytes))
    .option('--summary <file>', "summary file, relative to the current directory (default: the plan's summary:, else <plan dir>/<plan stem>.summary.json)")
    .option('--run-dir <dir>', 'run directory (default: .ralph/runs/<run-id> in the working directory)')
    .option('--prompts <dir>', 'folder of prompt templates overriding the built-in ones (default: the built-in ones)')
    .option('--model <name>', `model for the anthropic executor (default: the plan's model:, else ${DEFAULT_MODEL})`)
    .option('--context-budget <tokens>', `anthropic: input tokens after which a fresh context starts (default: ${DEFAULTS.contextBudget})`, wholeNumber('--context-budget', LIMITS.contextBudget))
    .option('--max-retries <n>', 'anthropic: API retries for 429/529/5xx (default: 2)', wholeNumber('--max-retries', LIMITS.maxRetries))
    .addOption(new Option('--stream-format <format>', 'how the agent writes its output (default: chosen from the command, else text)').choices([...STREAM_FORMATS]))
    .option('--notify <target>', 'also notify this target: a webhook URL, slack:URL, ntfy:URL or command:"shell command" (repeatable)', collect, [] as string[])
    .option('--config <file>', `use this config file instead of the nearest ${CONFIG_FILE}`)
    .addOption(
      new Option(
        o.sandboxPolicy ? '--sandbox [mode]' : '--sandbox <mode>',
        o.sandboxPolicy
          ? 'show the sandbox policy (what is writable, read-only, hidden, and the hosts); with a mode, as for ralph exec'
          : "run the agent and the verify commands in a sandbox: on, off, or auto (on where it can start; default: RALPH_SANDBOX, else the plan's sandbox:, else the config's, else auto)",
      ).choices([...SANDBOX_MODES]),
    );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
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
  verifyTimeout?: number;
  maxLog?: number;
  summary?: string;
  runDir?: string;
  prompts?: string;
  model?: string;
  contextBudget?: number;
  maxRetries?: number;
  streamFormat?: string;
  resume?: string;
  /** --notify: targets (kept out of ExecOptions, which a batch stores: they may hold secrets). */
  notify?: string[];
  config?: string;
  sandbox?: string | true;
}

/** Commander's parsed flags (plus what came after `--`) as ExecOptions, without the plan path. */
export function execOptionsFrom(flags: RawExecFlags, passThrough: string[], cwd: string): Omit<ExecOptions, 'planPath'> {
  const o: Omit<ExecOptions, 'planPath'> = { cwd: flags.cwd ?? findProjectRoot(cwd) };
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
  if (flags.verifyTimeout !== undefined) o.verifyTimeoutMs = flags.verifyTimeout;
  if (flags.maxLog !== undefined) o.maxLogBytes = flags.maxLog;
  if (flags.summary !== undefined) o.summary = flags.summary;
  if (flags.runDir !== undefined) o.runDir = flags.runDir;
  if (flags.prompts !== undefined) o.promptsDir = flags.prompts;
  if (flags.contextBudget !== undefined) o.contextBudget = flags.contextBudget;
  if (flags.maxRetries !== undefined) o.maxRetries = flags.maxRetries;
  if (flags.resume !== undefined) o.resume = flags.resume;
  if (typeof flags.sandbox === 'string') o.sandbox = flags.sandbox as SandboxMode;
  return o;
}
