// How a run was started, kept in its state.json so that `--resume` needs nothing else
// (docs/first-hour.md): the executor, the command after `--`, the stream format, the limits and
// the other exec options given on the command line. On resume, options given again override the
// stored ones; front matter and defaults apply beneath both, as on the first start. Runs from
// before this was stored have no settings: their command must be given again after `--`.
import { isAbsolute, relative, resolve } from 'node:path';
import type { ExecOptions } from '../loop/types.js';
import { findRun } from './find-run.js';
import { runsRoot } from './paths.js';
import { findProjectRoot } from './project-root.js';
import { loadState } from './run-state.js';

const KEYS = [
  'executor',
  'agent',
  'command',
  'streamFormat',
  'model',
  'maxIterations',
  'maxBailouts',
  'maxRuntimeMs',
  'maxCostUsd',
  'silenceTimeoutMs',
  'iterationTimeoutMs',
  'signalGraceMs',
  'contextBudget',
  'maxRetries',
  'maxWaitMs',
  'maxStalls',
  'verifyTimeoutMs',
  'maxLogBytes',
  'promptsDir',
  'summary',
  'sandbox',
] as const satisfies readonly (keyof ExecOptions)[];

export type RunSettings = Pick<ExecOptions, (typeof KEYS)[number]>;

/** The options a run was started with, paths made absolute (a resume may start elsewhere). */
export function settingsOf(options: ExecOptions): RunSettings {
  const s: Record<string, unknown> = {};
  for (const key of KEYS) if (options[key] !== undefined) s[key] = options[key];
  if (options.summary !== undefined) s.summary = resolve(options.summary);
  if (options.promptsDir !== undefined) s.promptsDir = resolve(options.promptsDir);
  return s as RunSettings;
}

/** The stored settings of the run `options.resume` names, under the options given now. */
export function withStoredSettings(options: ExecOptions): ExecOptions {
  if (options.resume === undefined) return options;
  let stored: RunSettings | undefined;
  try {
    stored = loadState(findRun(resolve(options.cwd), options.resume, options.runDir).state)?.settings;
  } catch {
    return options; // the run is not found: opening it for resume says so
  }
  if (!stored) return options;
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(options)) if (value !== undefined) merged[key] = value;
  // A command given now replaces the stored one; an empty one (no `--`) does not.
  if (options.command === undefined || options.command.length === 0) {
    if (stored.command !== undefined) merged.command = stored.command;
  }
  return merged as unknown as ExecOptions;
}

function quote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function shown(path: string, from: string): string {
  const rel = relative(from, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/**
 * The whole command that resumes a run, to paste into a shell in the current directory: the
 * plan, the run id, and --cwd or --run-dir when the run is not found from here without them.
 */
export function resumeCommand(r: { planPath: string; runId: string; cwd: string; runDir: string }, from = process.cwd()): string {
  const args = ['ralph', 'exec', quote(shown(r.planPath, from)), '--resume', quote(r.runId)];
  const cwd = resolve(r.cwd);
  if (cwd !== findProjectRoot(from)) args.push('--cwd', quote(shown(cwd, from) || '.'));
  if (resolve(runsRoot(cwd), r.runId) !== resolve(r.runDir)) args.push('--run-dir', quote(shown(resolve(r.runDir), from)));
  return args.join(' ');
}
