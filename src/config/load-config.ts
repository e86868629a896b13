// Finding and reading ralph.config.yaml (docs/config.md): from the working directory upward,
// parsed with line numbers, `${VAR}` expanded, validated by zod; every problem is reported at
// once as file:line, with "did you mean" for a key that looks like a known one.
import { existsSync, statSync, type Stats } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { isMap, isNode, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { AGENT_PRESETS } from '../agents/index.js';
import { CONFIG_FILE, HOOK_NAMES } from '../contract.js';
import { InvalidInputError, UsageError, type Problem } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { FileTooLargeError, NotRegularFileError, readRegularFileSync } from '../util/read-regular-file.js';
import { expandEnv, type Path } from './expand-env.js';
import { configSchema, KNOWN_KEYS, type ConfigFileData } from './schema.js';
import { currentIdentity, distrust, trustHint, type Identity } from './trust.js';
import type { HookCommand, ProjectConfig } from './types.js';

/** The config file that applies to `dir`: the nearest one in it or a folder above it. */
export function findConfigFile(dir: string): string | null {
  let at = resolve(dir);
  for (;;) {
    const candidate = join(at, CONFIG_FILE);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    const up = dirname(at);
    if (up === at) return null;
    at = up;
  }
}

export function emptyConfig(): ProjectConfig {
  return { file: null, where: {}, agents: {}, exec: {}, batch: {}, notify: [], hooks: {}, secrets: { vars: [], values: [] }, deliver: {}, land: {} };
}

/** A config file is a page of settings: anything larger is not one (and is not read into memory). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Finds and loads the config for `dir`; `explicit` (a path) wins over the search. A file found by
 * the search must be one the user can trust (src/config/trust.ts); one named is trusted.
 */
export function loadProjectConfig(dir: string, env: NodeJS.ProcessEnv, explicit?: string, who: Identity | undefined = currentIdentity()): ProjectConfig {
  const file = explicit !== undefined ? resolve(explicit) : findConfigFile(dir);
  if (file === null) return emptyConfig();
  const checkTrust = (stats: Stats): void => {
    if (explicit !== undefined || who === undefined) return;
    const why = distrust(file, stats, statSync(dirname(file)), env, who);
    if (why !== undefined) throw new UsageError(`refusing the config file ${file}, found by searching up from ${resolve(dir)}: ${why}`, trustHint(file, env));
  };
  let text: string;
  try {
    text = readRegularFileSync(file, MAX_CONFIG_BYTES, checkTrust).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const message =
      error instanceof FileTooLargeError
        ? `the config file is ${error.size} bytes; a config file is at most ${MAX_CONFIG_BYTES} bytes (1 MiB)`
        : error instanceof NotRegularFileError
          ? `cannot read the config file: it is ${error.kind}, not a regular file`
          : `cannot read the config file: ${(error as Error).message}`;
    throw new InvalidInputError([{ file, message }], 'invalid config file');
  }
  return parseProjectConfig(text, file, env);
}

/** Only what is relative to the current directory, when that is shorter, names the file in messages. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && rel.length < file.length ? rel : file;
}

export function parseProjectConfig(text: string, file: string, env: NodeJS.ProcessEnv): ProjectConfig {
  const name = shown(file);
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const lineOfOffset = (offset: number) => counter.linePos(offset).line;
  const problems: Problem[] = [];
  const add = (message: string, line?: number) => problems.push(line === undefined ? { file: name, message } : { file: name, line, message });
  for (const e of doc.errors) add(e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''), lineOfOffset(e.pos[0]));
  if (problems.length) throw new InvalidInputError(problems, 'invalid config file');

  const lineOf = (path: Path) => lineAt(doc, path, lineOfOffset);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    throw new InvalidInputError([{ file: name, message: (error as Error).message }], 'invalid config file');
  }
  if (refersToItself(raw)) {
    add('an alias (*name) refers to the value that contains it; a config file cannot be circular', 1);
    throw new InvalidInputError(problems, 'invalid config file');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    add('expected a mapping of settings (agents:, defaults:, notify:, hooks:); see `ralph init`', 1);
    throw new InvalidInputError(problems, 'invalid config file');
  }

  const expanded = expandEnv(withoutEmptyKeys(raw as Record<string, unknown>), env);
  for (const m of expanded.missing) {
    add(`\${${m.name}} is not set in the environment; export it, or write \${${m.name}:-} where it may be empty`, lineOf(m.path));
  }
  const parsed = configSchema.safeParse(expanded.value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) reportIssue(issue, doc, lineOf, lineOfOffset, add);
  }
  if (parsed.success && parsed.data.agent !== undefined) {
    const known = [...new Set([...Object.keys(parsed.data.agents ?? {}), ...Object.keys(AGENT_PRESETS)])].sort();
    if (!known.includes(parsed.data.agent)) add(`agent: no agent named "${parsed.data.agent}" in agents: or the presets (known: ${known.join(', ')})`, lineOf(['agent']));
  }
  if (problems.length || !parsed.success) {
    problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    throw new InvalidInputError(problems, 'invalid config file');
  }

  const data: ConfigFileData = parsed.data;
  const where: Record<string, string> = {};
  const at = (key: string, path: Path) => {
    const last = path[path.length - 1];
    const line = typeof last === 'string' ? keyLine(doc, path.slice(0, -1), last, lineOfOffset) : undefined;
    where[key] = `${name}:${line ?? lineOf(path)}`;
  };
  const config = { ...buildConfig(data), file, where };
  if (data.agent !== undefined) at('agent', ['agent']);
  for (const agent of Object.keys(data.agents ?? {})) at(`agents.${agent}`, ['agents', agent]);
  for (const key of Object.keys(data.defaults ?? {})) at(`defaults.${key}`, ['defaults', key]);
  (data.notify ?? []).forEach((_, i) => at(`notify.${i}`, ['notify', i]));
  for (const hook of Object.keys(data.hooks ?? {})) at(`hooks.${hook}`, ['hooks', hook]);
  if (data.sandbox !== undefined) at('sandbox', ['sandbox']);

  // What came from the environment into notify: and hooks: is a secret (docs/config.md).
  const secretUses = expanded.used.filter((u) => u.path[0] === 'notify' || u.path[0] === 'hooks');
  config.secrets = {
    vars: [...new Set(secretUses.map((u) => u.name))],
    values: [...new Set(secretUses.map((u) => env[u.name]).filter((v): v is string => v !== undefined && v !== ''))],
  };
  return config;
}

/** `a: &a [*a]` parses into a value that contains itself. */
function refersToItself(value: unknown, ancestors: Set<unknown> = new Set()): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (ancestors.has(value)) return true;
  ancestors.add(value);
  const children = Array.isArray(value) ? value : Object.values(value);
  const circular = children.some((child) => refersToItself(child, ancestors));
  ancestors.delete(value);
  return circular;
}

/**
 * `agents:` with every entry commented out is null in YAML: an empty section, not an error.
 * The same for the keys of `defaults:`, `hooks:` and `agents:`.
 */
function withoutEmptyKeys(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === null) continue;
    if ((key === 'defaults' || key === 'hooks' || key === 'agents') && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null));
    } else out[key] = value;
  }
  return out;
}

function buildConfig(data: ConfigFileData): Omit<ProjectConfig, 'file' | 'where'> {
  const d = data.defaults ?? {};
  const exec: ProjectConfig['exec'] = {};
  if (d.model !== undefined) exec.model = d.model;
  if (d.max_iterations !== undefined) exec.maxIterations = d.max_iterations;
  if (d.max_bailouts !== undefined) exec.maxBailouts = d.max_bailouts;
  if (d.max_runtime !== undefined) exec.maxRuntimeMs = d.max_runtime;
  if (d.max_cost_usd !== undefined) exec.maxCostUsd = d.max_cost_usd;
  if (d.silence_timeout !== undefined) exec.silenceTimeoutMs = d.silence_timeout;
  if (d.iteration_timeout !== undefined) exec.iterationTimeoutMs = d.iteration_timeout;
  if (d.signal_grace !== undefined) exec.signalGraceMs = d.signal_grace;
  if (d.context_budget !== undefined) exec.contextBudget = d.context_budget;
  if (d.max_retries !== undefined) exec.maxRetries = d.max_retries;
  if (d.max_wait !== undefined) exec.maxWaitMs = d.max_wait;
  if (d.max_stalls !== undefined) exec.maxStalls = d.max_stalls;
  if (d.protect !== undefined) exec.protect = d.protect;
  const batch: ProjectConfig['batch'] = {};
  if (d.concurrency !== undefined) batch.concurrency = d.concurrency;
  if (d.out !== undefined) batch.out = d.out;
  if (d.isolate !== undefined) batch.isolate = d.isolate;
  if (d.plan_timeout !== undefined) batch.planTimeoutMs = d.plan_timeout;
  const agents: ProjectConfig['agents'] = {};
  for (const [name, a] of Object.entries(data.agents ?? {})) agents[name] = { command: a.command, streamFormat: a.stream_format };
  const hooks: ProjectConfig['hooks'] = {};
  for (const hook of HOOK_NAMES) {
    const list = data.hooks?.[hook];
    if (list?.length) hooks[hook] = list.map((h): HookCommand => (h.timeout !== undefined ? { run: h.run, timeoutMs: h.timeout } : { run: h.run }));
  }
  const config: Omit<ProjectConfig, 'file' | 'where'> = {
    agents,
    exec,
    batch,
    notify: data.notify ?? [],
    hooks,
    secrets: { vars: [], values: [] },
    deliver: deliverOf(data.deliver),
    land: landOf(data.land),
  };
  if (data.agent !== undefined) config.agent = data.agent;
  if (data.sandbox !== undefined) config.sandbox = data.sandbox;
  return config;
}

function deliverOf(d: ConfigFileData['deliver']): ProjectConfig['deliver'] {
  const out: ProjectConfig['deliver'] = {};
  if (d?.pr !== undefined) out.pr = d.pr === true ? 'ready' : d.pr === false ? 'off' : d.pr;
  if (d?.base !== undefined) out.base = d.base;
  if (d?.remote !== undefined) out.remote = d.remote;
  if (d?.github_url) out.githubUrl = d.github_url;
  if (d?.api_url) out.apiUrl = d.api_url;
  if (d?.checkpoint !== undefined) out.checkpoint = d.checkpoint;
  if (d?.squash !== undefined) out.squash = d.squash;
  return out;
}

function landOf(l: ConfigFileData['land']): ProjectConfig['land'] {
  const out: ProjectConfig['land'] = {};
  if (l?.checks !== undefined) out.checks = l.checks;
  if (l?.strategy !== undefined) out.strategy = l.strategy;
  if (l?.target !== undefined) out.target = l.target;
  if (l?.merge_method !== undefined) out.mergeMethod = l.merge_method;
  if (l?.check_timeout !== undefined) out.checkTimeoutMs = l.check_timeout;
  return out;
}

/** The line of the deepest node along `path` that exists in the document. */
function lineAt(doc: Document.Parsed, path: Path, lineOf: (offset: number) => number): number {
  for (let n = path.length; n >= 0; n--) {
    const node = (n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)) as Node | null | undefined;
    if (isNode(node) && node.range) return lineOf(node.range[0]);
  }
  return 1;
}

/** The key node of `key` in the mapping at `path`, for the line of an unknown key. */
function keyLine(doc: Document.Parsed, path: Path, key: string, lineOf: (offset: number) => number): number | undefined {
  const parent = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (!isMap(parent)) return undefined;
  for (const pair of parent.items) {
    if (isScalar(pair.key) && String(pair.key.value) === key && pair.key.range) return lineOf(pair.key.range[0]);
  }
  return undefined;
}

function dotted(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** KNOWN_KEYS is keyed by the mapping's path with names and indexes below the top as `*`. */
function knownKeysAt(path: Path): readonly string[] {
  const generic = path.map((p, i) => (i === 0 ? String(p) : '*')).join('.');
  return KNOWN_KEYS[generic] ?? [];
}

function reportIssue(
  issue: z.core.$ZodIssue,
  doc: Document.Parsed,
  lineOf: (path: Path) => number,
  lineOfOffset: (offset: number) => number,
  add: (message: string, line?: number) => void,
): void {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys) {
      const hint = didYouMean(key, knownKeysAt(path));
      const where = path.length ? ` in ${dotted(path)}` : '';
      const known = knownKeysAt(path);
      add(
        `unknown key "${key}"${where}${hint ? ` (did you mean "${hint}"?)` : known.length ? ` (known keys: ${known.join(', ')})` : ''}`,
        keyLine(doc, path, key, lineOfOffset) ?? lineOf(path),
      );
    }
    return;
  }
  const label = path.length ? `${dotted(path)}: ` : '';
  // zod leaves the input out of its issues: the value is read back from the document.
  const node = path.length ? doc.getIn(path, true) : doc.contents;
  const value = isNode(node) ? node.toJS(doc) : node;
  add(`${label}${messageOf(issue, value)}`, lineOf(path));
}

function messageOf(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      // A schema's own message says more than the type's name; zod's default starts "Invalid input".
      if (!issue.message.startsWith('Invalid input')) return `${issue.message}, got ${describeValue(value)}`;
      return `expected ${issue.expected === 'record' || issue.expected === 'object' ? 'a mapping' : issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}${value === undefined ? ' (it is missing)' : `, got ${describeValue(value)}`}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => String(v)).join(', ')}, got ${describeValue(value)}`;
    default:
      return issue.message;
  }
}

function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'no value';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return String(v);
}
