// Front matter → PlanConfig. Each known key is checked on its own so that every wrong key is
// reported at once, at its own line; unknown keys are allowed (GSD plans carry phase, wave,
// depends_on…) but warned about, with a suggestion when they look like a typo of a known key.
import { isMap, isNode, isScalar, type Document } from 'yaml';
import { LIMITS, type Range } from '../contract.js';
import { didYouMean } from '../util/did-you-mean.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { planIdProblem } from './plan-id.js';
import { readSandboxValue } from '../sandbox/settings.js';
import { EXECUTOR_NAMES, STREAM_FORMATS, TASK_CHECK_MODES, type PlanConfig } from './types.js';

export interface ConfigIssue {
  line: number;
  message: string;
}

export interface ConfigResult {
  config: PlanConfig;
  problems: ConfigIssue[];
  warnings: string[];
  /** The warnings about unknown keys: `ralph validate --strict` makes them errors. */
  unknownKeys: string[];
}

type Checked = { ok: true; value: unknown } | { ok: false; message: string };
type Check = (value: unknown, key: string) => Checked;

const ok = (value: unknown): Checked => ({ ok: true, value });
const fail = (message: string): Checked => ({ ok: false, message });

/** A short, safe rendering of a value the user wrote, for "got …" in messages. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'no value';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return JSON.stringify(shown);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return `${String(value)} (a ${typeof value})`;
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  return 'a mapping';
}

function quoteHint(value: unknown): string {
  return typeof value === 'number' || typeof value === 'boolean' ? `; quote it: "${String(value)}"` : '';
}

const nonEmptyString =
  (what: string): Check =>
  (v, key) =>
    typeof v === 'string' && v.trim() !== '' ? ok(v) : fail(`${key}: expected ${what}, got ${describe(v)}${quoteHint(v)}`);

const oneOf =
  (choices: readonly string[]): Check =>
  (v, key) =>
    typeof v === 'string' && choices.includes(v)
      ? ok(v)
      : fail(`${key}: expected one of ${choices.join(', ')}, got ${describe(v)}`);

// Every number has a useful range (docs/hostile.md "Numbers"): `max_iterations: 1e308` is a typo,
// not a setting, and is refused with the range.
const integerIn =
  (range: Range): Check =>
  (v, key) =>
    typeof v === 'number' && Number.isInteger(v) && v >= range.min && v <= range.max
      ? ok(v)
      : fail(`${key}: expected a whole number from ${range.min} to ${range.max}, got ${describe(v)}`);

const dollarsIn =
  (range: Range): Check =>
  (v, key) =>
    typeof v === 'number' && Number.isFinite(v) && v > range.min && v <= range.max
      ? ok(v)
      : fail(`${key}: expected an amount in US dollars above ${range.min} and at most ${range.max}, got ${describe(v)}`);

const durationIn =
  (range: Range): Check =>
  (v, key) => {
    const ms = typeof v === 'string' || typeof v === 'number' ? parseDuration(v) : undefined;
    if (ms === undefined) return fail(`${key}: expected a duration such as 90m, 45s or 1h30m (a bare number is seconds), got ${describe(v)}`);
    if (ms < range.min || ms > range.max) {
      return fail(`${key}: must be from ${formatDuration(range.min)} to ${formatDuration(range.max)}, got ${describe(v)}`);
    }
    return ok(ms);
  };

const boolean: Check = (v, key) => (typeof v === 'boolean' ? ok(v) : fail(`${key}: expected true or false, got ${describe(v)}`));

const id: Check = (v, key) => {
  const checked = nonEmptyString('a non-empty string')(v, key);
  if (!checked.ok) return checked;
  const problem = planIdProblem(v as string);
  return problem === undefined ? checked : fail(`${key}: ${problem}`);
};

/** Each element a string; `allowEmpty` for arguments, which may legitimately be "". */
function stringList(v: unknown, key: string, allowEmpty: boolean): Checked {
  if (!Array.isArray(v)) return fail(`${key}: expected a list of strings, got ${describe(v)}`);
  for (const [i, item] of v.entries()) {
    if (typeof item !== 'string') return fail(`${key}[${i}]: expected a string, got ${describe(item)}${quoteHint(item)}`);
    if (!allowEmpty && item.trim() === '') return fail(`${key}[${i}]: is empty; remove it or write a command`);
  }
  return ok(v);
}

const command: Check = (v, key) => {
  if (Array.isArray(v) && v.length === 0) return fail(`${key}: is empty; give the program and its arguments, e.g. [claude, -p]`);
  if (typeof v === 'string') return fail(`${key}: expected a list (program and arguments), e.g. [claude, -p], got ${describe(v)}`);
  const checked = stringList(v, key, true);
  if (checked.ok && (v as string[])[0]!.trim() === '') return fail(`${key}[0]: the program name is empty`);
  return checked;
};

// A single command is common enough in hand-written plans to accept as a one-item list.
const verify: Check = (v, key) => {
  if (typeof v === 'string') return v.trim() === '' ? fail(`${key}: is empty; remove it or write a command`) : ok([v]);
  return stringList(v, key, false);
};

// Paths relative to the working directory; `..` or an absolute path would protect files outside it.
const globs: Check = (v, key) => {
  const list = typeof v === 'string' ? [v] : v;
  const checked = stringList(list, key, false);
  if (!checked.ok) return checked;
  for (const [i, g] of (list as string[]).entries()) {
    if (g.startsWith('/') || g.split('/').includes('..')) return fail(`${key}[${i}]: "${g}" must be a path pattern inside the working directory, e.g. test/**`);
  }
  return ok(list);
};

const blockers: Check = (v, key) => {
  const shape = `expected a mapping like { reject: [reason, ...] }`;
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Date) return fail(`${key}: ${shape}, got ${describe(v)}`);
  const record = v as Record<string, unknown>;
  if (!('reject' in record)) return fail(`${key}: has no reject list; ${shape}`);
  const reject = stringList(record.reject, `${key}.reject`, false);
  return reject.ok ? ok({ reject: reject.value }) : reject;
};

const sandbox: Check = (v, key) => {
  const read = readSandboxValue(v, key);
  return 'problem' in read ? fail(read.problem) : ok(read.layer);
};

const KEYS: Record<string, { field: keyof PlanConfig; check: Check }> = {
  id: { field: 'id', check: id },
  executor: { field: 'executor', check: oneOf(EXECUTOR_NAMES) },
  command: { field: 'command', check: command },
  stream_format: { field: 'streamFormat', check: oneOf(STREAM_FORMATS) },
  model: { field: 'model', check: nonEmptyString('a model name') },
  max_iterations: { field: 'maxIterations', check: integerIn(LIMITS.maxIterations) },
  max_bailouts: { field: 'maxBailouts', check: integerIn(LIMITS.maxBailouts) },
  max_cost_usd: { field: 'maxCostUsd', check: dollarsIn(LIMITS.maxCostUsd) },
  max_runtime: { field: 'maxRuntimeMs', check: durationIn(LIMITS.maxRuntimeMs) },
  silence_timeout: { field: 'silenceTimeoutMs', check: durationIn(LIMITS.silenceTimeoutMs) },
  verify_timeout: { field: 'verifyTimeoutMs', check: durationIn(LIMITS.verifyTimeoutMs) },
  max_wait: { field: 'maxWaitMs', check: durationIn(LIMITS.maxWaitMs) },
  max_stalls: { field: 'maxStalls', check: integerIn(LIMITS.maxStalls) },
  summary: { field: 'summary', check: nonEmptyString('a file path relative to the plan') },
  require_summary: { field: 'requireSummary', check: boolean },
  verify: { field: 'verify', check: verify },
  blockers: { field: 'blockers', check: blockers },
  sandbox: { field: 'sandbox', check: sandbox },
  task_checks: { field: 'taskChecks', check: oneOf(TASK_CHECK_MODES) },
  strict_checks: { field: 'strictChecks', check: boolean },
  protect: { field: 'protect', check: globs },
  allow_check_changes: { field: 'allowCheckChanges', check: boolean },
};

export const KNOWN_KEYS = Object.keys(KEYS);

export function defaultConfig(): PlanConfig {
  return { requireSummary: true, verify: [], blockers: { reject: [] } };
}

/**
 * Checks a parsed front-matter document. `lineOf` maps an offset in the YAML text to a file line;
 * `yamlLine` is where a problem about the whole front matter is reported.
 */
export function readPlanConfig(doc: Document.Parsed, lineOf: (offset: number) => number, yamlLine: number): ConfigResult {
  const config = defaultConfig();
  const problems: ConfigIssue[] = [];
  const warnings: string[] = [];
  const unknownKeys: string[] = [];
  const contents = doc.contents;
  if (contents === null || (isScalar(contents) && contents.value === null)) return { config, problems, warnings, unknownKeys };
  if (!isMap(contents)) {
    const got = describe(contents.toJS(doc));
    problems.push({
      line: contents.range ? lineOf(contents.range[0]) : yamlLine,
      message: `front matter must be a mapping of keys to values (e.g. "max_iterations: 10"), got ${got}`,
    });
    return { config, problems, warnings, unknownKeys };
  }

  const target = config as unknown as Record<string, unknown>;
  for (const pair of contents.items) {
    const keyNode = pair.key;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(isNode(keyNode) ? keyNode.toJS(doc) : keyNode);
    const line = isNode(keyNode) && keyNode.range ? lineOf(keyNode.range[0]) : yamlLine;
    // Own keys only: `constructor` or `toString` in a plan is an unknown key, not Object's.
    const spec = Object.hasOwn(KEYS, key) ? KEYS[key] : undefined;
    if (!spec) {
      const hint = didYouMean(key, KNOWN_KEYS);
      const warning = `line ${line}: unknown front-matter key "${key}" is ignored${hint ? ` (did you mean "${hint}"?)` : ''}`;
      warnings.push(warning);
      unknownKeys.push(warning);
      continue;
    }
    const value: unknown = isNode(pair.value) ? pair.value.toJS(doc) : pair.value;
    const checked = spec.check(value, key);
    if (checked.ok) target[spec.field] = checked.value;
    else problems.push({ line, message: checked.message });
  }
  return { config, problems, warnings, unknownKeys };
}
