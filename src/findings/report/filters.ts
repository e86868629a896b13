// Turning --min-severity/--type/--action/--plan/--since into a ReportFilters, and applying it.
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES, type Action, type ObservationType, type Severity } from '../../contract.js';
import { UsageError } from '../../errors.js';
import { parseDuration } from '../../util/duration.js';
import type { FindingRecord, ReportFilters } from './types.js';

export interface RawFilterOptions {
  minSeverity?: string;
  /** Each entry may itself be a comma-separated list. */
  type?: string[];
  action?: string[];
  plan?: string[];
  since?: string;
}

export function parseFilters(raw: RawFilterOptions, now: Date = new Date()): ReportFilters {
  const filters: ReportFilters = {};
  if (raw.minSeverity !== undefined) filters.minSeverity = oneOf('--min-severity', raw.minSeverity.trim(), SEVERITIES);
  const types = list(raw.type);
  if (types.length > 0) filters.types = types.map((t) => oneOf('--type', t, OBSERVATION_TYPES));
  const actions = list(raw.action);
  if (actions.length > 0) filters.actions = actions.map((a) => oneOf('--action', a, ACTIONS));
  const plans = list(raw.plan);
  if (plans.length > 0) filters.plans = plans;
  if (raw.since !== undefined) filters.since = parseSince(raw.since, now);
  return filters;
}

/** "24h", "7d", "90m" back from now, or an ISO date / date-time. */
export function parseSince(text: string, now: Date): string {
  const s = text.trim();
  const ms = parseDuration(s);
  // A bare number would read as seconds, which nobody means by --since; require a unit.
  if (ms !== undefined && !/^\d+(\.\d+)?$/.test(s)) return new Date(now.getTime() - ms).toISOString();
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s)) {
    const t = Date.parse(s);
    if (!Number.isNaN(t)) return new Date(t).toISOString();
  }
  throw new UsageError(
    `--since: cannot read ${JSON.stringify(text)} as a duration or a date`,
    'Use a duration back from now such as 24h, 7d or 90m, or an ISO date such as 2026-01-31 or 2026-01-31T08:00:00Z.',
  );
}

function oneOf<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag}: unknown value ${JSON.stringify(value)}`, `Choose one of: ${choices.join(', ')}.`);
}

function list(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** 0 for critical … 4 for info. */
export function severityRank(s: Severity): number {
  switch (s) {
    case 'critical':
      return 0;
    case 'high':
      return 1;
    case 'medium':
      return 2;
    case 'low':
      return 3;
    case 'info':
      return 4;
    default: {
      const never: never = s;
      return SEVERITIES.indexOf(never);
    }
  }
}

export interface CompiledFilters {
  finding(record: FindingRecord): boolean;
  /** Invalid observations have no trustworthy type/severity/action: only plan and time apply. */
  planAndTime(plan: string, at: string): boolean;
  plan(plan: string | null): boolean;
  sinceMs: number | null;
}

export function compileFilters(f: ReportFilters): CompiledFilters {
  const maxRank = f.minSeverity !== undefined ? severityRank(f.minSeverity) : Infinity;
  const types: ReadonlySet<ObservationType> | null = f.types ? new Set(f.types) : null;
  const actions: ReadonlySet<Action> | null = f.actions ? new Set(f.actions) : null;
  const plans: ReadonlySet<string> | null = f.plans ? new Set(f.plans) : null;
  const sinceMs = f.since !== undefined ? Date.parse(f.since) : null;
  // A record whose time cannot be read cannot be shown to be recent, so --since leaves it out.
  const recent = (at: string): boolean => sinceMs === null || Date.parse(at) >= sinceMs;
  const plan = (p: string | null): boolean => plans === null || (p !== null && plans.has(p));
  return {
    sinceMs,
    plan,
    planAndTime: (p, at) => plan(p) && recent(at),
    finding: (r) =>
      severityRank(r.severity) <= maxRank &&
      (types === null || types.has(r.type)) &&
      (actions === null || actions.has(r.action)) &&
      plan(r.plan) &&
      recent(r.at),
  };
}
