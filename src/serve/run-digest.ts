// What the page shows of a run's events.jsonl, folded one event at a time: the timeline of
// iterations (prompt kind, decision, gate verdict and its reason, cost, duration), the last tool
// the agent started, near misses, warnings and findings. Pure: fed the parsed lines in order, it
// keeps a bounded digest (the newest rows of each list), never the events themselves.
import { toolLabel } from '../ui/tool-label.js';
import { cutText } from './transcript-items.js';
import { parseObject } from '../executors/command/untrusted.js';

export interface IterationRow {
  iteration: number;
  prompt: string | null;
  fresh: boolean | null;
  startedAt: string | null;
  durationMs: number | null;
  exitCode: number | null;
  decision: string | null;
  /** The decision's reason or failing check, when it has one. */
  decisionDetail: string | null;
  signals: string[];
  /** The acceptance gate's verdicts in this iteration (a claim can be weighed more than once). */
  gates: { accepted: boolean; reason: string }[];
  stops: string[];
  tools: number;
  nearMisses: number;
  /** Cost of this iteration (the run's total at its end minus at its start), null when unknown. */
  costUsd: number | null;
  waits: string[];
}

export interface Finding {
  iteration: number;
  at: string | null;
  valid: boolean;
  severity: string | null;
  type: string | null;
  title: string;
  file: string | null;
}

export interface RunDigest {
  agent: string | null;
  streamFormat: string | null;
  maxIterations: number | null;
  iteration: number;
  costUsd: number | null;
  lastTool: { label: string; at: string | null; iteration: number } | null;
  nearMisses: number;
  lastNearMiss: string | null;
  warnings: number;
  lastWarnings: string[];
  findings: Finding[];
  findingCount: number;
  iterations: IterationRow[];
  outcome: string | null;
  reason: string | null;
}

const KEEP_ROWS = 200;
const KEEP_WARNINGS = 10;
const KEEP_FINDINGS = 200;
const TEXT = 600;

export function emptyDigest(): RunDigest {
  return {
    agent: null,
    streamFormat: null,
    maxIterations: null,
    iteration: 0,
    costUsd: null,
    lastTool: null,
    nearMisses: 0,
    lastNearMiss: null,
    warnings: 0,
    lastWarnings: [],
    findings: [],
    findingCount: 0,
    iterations: [],
    outcome: null,
    reason: null,
  };
}

type Line = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function row(d: RunDigest, iteration: number): IterationRow {
  let r = d.iterations.find((x) => x.iteration === iteration);
  if (!r) {
    r = { iteration, prompt: null, fresh: null, startedAt: null, durationMs: null, exitCode: null, decision: null, decisionDetail: null, signals: [], gates: [], stops: [], tools: 0, nearMisses: 0, costUsd: null, waits: [] };
    d.iterations.push(r);
    if (d.iterations.length > KEEP_ROWS) d.iterations.shift();
  }
  return r;
}

/** Cost of the run when an iteration started, to tell the iteration's own cost at its end. */
const costAtStart = new WeakMap<IterationRow, number | null>();

/** Folds one events.jsonl line (parsed) into the digest. Returns true when it changed anything. */
function foldEvent(d: RunDigest, e: Line): boolean {
  const it = num(e.iteration);
  switch (e.type) {
    case 'run-start':
      d.maxIterations = num(e.maxIterations) ?? d.maxIterations;
      d.outcome = null;
      d.reason = null;
      return true;
    case 'agent':
      d.agent = cutText(str(e.name) || (Array.isArray(e.command) ? e.command.map(str).join(' ') : ''), TEXT);
      d.streamFormat = str(e.streamFormat) || null;
      return true;
    case 'iteration-start': {
      if (it === null) return false;
      const r = row(d, it);
      r.prompt = str(e.prompt) || null;
      r.fresh = typeof e.fresh === 'boolean' ? e.fresh : null;
      r.startedAt = str(e.at) || null;
      d.iteration = it;
      d.maxIterations = num(e.maxIterations) ?? d.maxIterations;
      if (!costAtStart.has(r)) costAtStart.set(r, d.costUsd);
      return true;
    }
    case 'tool': {
      if (e.phase !== 'call') return false;
      d.lastTool = { label: cutText(toolLabel(str(e.name), str(e.summary)), 200), at: str(e.at) || null, iteration: it ?? d.iteration };
      if (it !== null) row(d, it).tools++;
      return true;
    }
    case 'usage': {
      const total = num(e.totalCostUsd);
      if (total !== null) d.costUsd = total;
      if (it !== null && total !== null) {
        const r = row(d, it);
        r.costUsd = Math.max(0, total - (costAtStart.get(r) ?? 0));
      }
      return true;
    }
    case 'signal':
      if (it === null) return false;
      row(d, it).signals.push(cutText(`${str(e.name)}${Array.isArray(e.args) && e.args.length ? `:${e.args.map(str).join(':')}` : ''}`, TEXT));
      return true;
    case 'near_miss':
      d.nearMisses++;
      d.lastNearMiss = cutText(`${str(e.text)} (${str(e.hint)})`, TEXT);
      if (it !== null) row(d, it).nearMisses++;
      return true;
    case 'warning':
      d.warnings++;
      d.lastWarnings.push(cutText(str(e.message), TEXT));
      if (d.lastWarnings.length > KEEP_WARNINGS) d.lastWarnings.shift();
      return true;
    case 'observation': {
      const r = (typeof e.record === 'object' && e.record !== null ? e.record : {}) as Line;
      d.findingCount++;
      d.findings.push({
        iteration: it ?? d.iteration,
        at: str(e.at) || null,
        valid: r.valid === true,
        severity: str(r.severity) || null,
        type: str(r.type) || null,
        title: cutText(str(r.title ?? r.error), TEXT),
        file: str(r.file) || null,
      });
      if (d.findings.length > KEEP_FINDINGS) d.findings.shift();
      return true;
    }
    case 'decision': {
      if (it === null) return false;
      const r = row(d, it);
      const dec = (typeof e.decision === 'object' && e.decision !== null ? e.decision : {}) as Line;
      r.decision = str(dec.kind) || null;
      const detail = str(dec.reason) || str(dec.name);
      r.decisionDetail = detail ? cutText(detail, TEXT) : null;
      return true;
    }
    case 'gate':
      if (it === null) return false;
      row(d, it).gates.push({ accepted: e.accepted === true, reason: cutText(str(e.reason), 2000) });
      return true;
    case 'stop':
      if (it === null) return false;
      row(d, it).stops.push(cutText(`${str(e.cause)}: ${str(e.detail)}`, TEXT));
      return true;
    case 'wait_start':
      if (it === null) return false;
      row(d, it).waits.push(cutText(`${str(e.kind)} limit: waited until ${str(e.until)} (${str(e.reason)})`, TEXT));
      return true;
    case 'iteration-end': {
      if (it === null) return false;
      const r = row(d, it);
      r.durationMs = num(e.durationMs);
      r.exitCode = num(e.exitCode);
      r.decision ??= str(e.decision) || null;
      return true;
    }
    case 'run-end':
      d.outcome = str(e.outcome) || null;
      d.reason = cutText(str(e.reason), 2000);
      return true;
    default:
      return false;
  }
}

/** Parses and folds whole lines; a line that is not JSON (a torn last write) is skipped. */
export function foldLines(d: RunDigest, lines: readonly string[]): boolean {
  let changed = false;
  for (const line of lines) {
    const event = parseObject(line);
    if (!event) continue;
    try {
      changed = foldEvent(d, event) || changed;
    } catch {
      // a field an agent made unreadable as text ({"toString": 1}): the event is passed over
    }
  }
  return changed;
}
