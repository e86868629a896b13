// One findings.jsonl line → a valid finding, an invalid observation, or a reason it is broken.
// The log is written by ralph, but what is inside came from an agent: check every field.
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES, type Action, type ObservationType, type Severity } from '../../contract.js';
import { MAX_RAW_CHARS, type FindingRecord } from './types.js';

export type ParsedLine =
  | { kind: 'finding'; record: FindingRecord }
  | { kind: 'invalid'; record: { run: string; plan: string; iteration: number | null; at: string; raw: string; error: string } }
  | { kind: 'blank' }
  | { kind: 'broken'; reason: string };

const TYPES: ReadonlySet<string> = new Set(OBSERVATION_TYPES);
const SEVERITY_SET: ReadonlySet<string> = new Set(SEVERITIES);
const ACTION_SET: ReadonlySet<string> = new Set(ACTIONS);
const DEFAULT_ACTION: Action = 'none';

/** `fallbackRun` names the run when a record lacks its own `run` field (older or hand-made logs). */
export function parseFindingLine(text: string, fallbackRun: string): ParsedLine {
  // A record starts with '{': trim() only for lines that may be blank.
  if (text.charCodeAt(0) !== 0x7b && text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'broken', reason: `not JSON (${(error as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'broken', reason: 'not a JSON object' };
  }
  const o = value as Record<string, unknown>;
  if (typeof o.valid !== 'boolean') return { kind: 'broken', reason: 'no boolean "valid" field' };
  const run = typeof o.run === 'string' && o.run !== '' ? o.run : fallbackRun;
  const plan = typeof o.plan === 'string' ? o.plan : '';
  const iteration = typeof o.iteration === 'number' && Number.isFinite(o.iteration) ? o.iteration : null;
  const at = typeof o.at === 'string' ? o.at : '';

  if (!o.valid) {
    const raw = typeof o.raw === 'string' ? o.raw : o.raw === undefined ? '' : JSON.stringify(o.raw);
    const error = typeof o.error === 'string' && o.error !== '' ? o.error : 'no reason recorded';
    return { kind: 'invalid', record: { run, plan, iteration, at, raw: clip(raw), error: clip(error) } };
  }

  if (typeof o.type !== 'string' || !TYPES.has(o.type)) return { kind: 'broken', reason: `valid record with unknown type ${show(o.type)}` };
  if (typeof o.severity !== 'string' || !SEVERITY_SET.has(o.severity)) {
    return { kind: 'broken', reason: `valid record with unknown severity ${show(o.severity)}` };
  }
  const title = typeof o.title === 'string' ? o.title.trim() : '';
  if (title === '') return { kind: 'broken', reason: 'valid record without a title' };
  let action: Action = DEFAULT_ACTION;
  if (o.action !== undefined && o.action !== null) {
    if (typeof o.action !== 'string' || !ACTION_SET.has(o.action)) return { kind: 'broken', reason: `valid record with unknown action ${show(o.action)}` };
    action = o.action as Action;
  }
  const file = typeof o.file === 'string' && o.file.trim() !== '' ? o.file : null;
  return {
    kind: 'finding',
    record: {
      run,
      plan,
      iteration,
      at,
      type: o.type as ObservationType,
      severity: o.severity as Severity,
      title,
      detail: typeof o.detail === 'string' ? o.detail : '',
      file,
      action,
    },
  };
}

function clip(s: string): string {
  return s.length > MAX_RAW_CHARS ? `${s.slice(0, MAX_RAW_CHARS)}... (${s.length - MAX_RAW_CHARS} more characters)` : s;
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
