// Every run and batch of a working directory's `.ralph/`, kept current by watching the folders
// the runs write into (inotify through fs.watch): a change to a run's folder re-reads that run's
// small files and the new lines of its events.jsonl, nothing else. Nothing is polled but the
// liveness of running runs (is the process still there?), every few seconds. State stays in the
// run's files: what is held here is the last summary of each run, to tell what changed.
import { existsSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { EventEmitter } from 'eventemitter3';
import { RUN_FILES } from '../contract.js';
import { runPaths, type RunPaths } from '../runs/paths.js';
import { viewRun } from '../runs/run-view.js';
import { readRegularFileSync } from '../util/read-regular-file.js';
import { LineFollower } from './growing-file.js';
import { emptyDigest, foldLines, type RunDigest } from './run-digest.js';
import { BATCHES, batchRunKey, singleRunKey } from './run-key.js';
import { summarize, type RunSummary } from './run-summary.js';
import { lastWords } from './last-words.js';
import { isStreamFormat } from './transcript-items.js';

export interface BatchPlanRow {
  id: string;
  /** The run key of its latest attempt, when one started here. */
  key: string | null;
  attempts: number;
  /** From batch.json once the batch ended. */
  outcome: string | null;
  verdict: string | null;
}

export interface BatchSummary {
  id: string;
  status: string;
  createdAt: string | null;
  queue: string | null;
  plans: BatchPlanRow[];
  complete: number | null;
  hasIndex: boolean;
  hasReport: boolean;
}

export interface RepoWatchOptions {
  /** The `.ralph` folder. */
  root: string;
  /** How many single runs and batches are listed, newest first (running ones always are). */
  keepRuns?: number;
  keepBatches?: number;
  livenessMs?: number;
  now?: () => number;
}

interface RunEntry {
  key: string;
  batch: string | null;
  paths: RunPaths;
  events: LineFollower;
  digest: RunDigest;
  summary: RunSummary | null;
  json: string;
  timer: NodeJS.Timeout | null;
  watchingLogs: boolean;
  words: { iteration: number; size: number; text: string | null } | null;
  wordsTimer: NodeJS.Timeout | null;
}

type Events = { run: [RunSummary]; batch: [BatchSummary] };

const SETTLE_MS = 80;
/** A transcript that grows refreshes its run at most this often (the last words need no more). */
const WORDS_MS = 1_000;

export class RepoWatch extends EventEmitter<Events> {
  readonly root: string;
  private readonly runs = new Map<string, RunEntry>();
  private readonly batches = new Map<string, { summary: BatchSummary; json: string }>();
  private readonly watchers = new Map<string, FSWatcher>();
  private scanTimer: NodeJS.Timeout | null = null;
  private readonly ticker: NodeJS.Timeout;
  private closed = false;
  private readonly keepRuns: number;
  private readonly keepBatches: number;
  private readonly now: () => number;

  constructor(o: RepoWatchOptions) {
    super();
    this.root = o.root;
    this.keepRuns = o.keepRuns ?? 100;
    this.keepBatches = o.keepBatches ?? 20;
    this.now = o.now ?? Date.now;
    this.scan();
    // A process that dies writes nothing: only asking tells a dead run from a quiet one.
    this.ticker = setInterval(() => this.checkLiveness(), o.livenessMs ?? 5_000);
    this.ticker.unref();
  }

  listRuns(): RunSummary[] {
    return [...this.runs.values()].flatMap((e) => (e.summary ? [e.summary] : [])).sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
  }

  listBatches(): BatchSummary[] {
    return [...this.batches.values()].map((b) => b.summary).sort((a, b) => b.id.localeCompare(a.id));
  }

  runPathsOf(key: string): RunPaths | undefined {
    return this.runs.get(key)?.paths;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.ticker);
    if (this.scanTimer) clearTimeout(this.scanTimer);
    for (const e of this.runs.values()) {
      if (e.timer) clearTimeout(e.timer);
      if (e.wordsTimer) clearTimeout(e.wordsTimer);
    }
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    this.removeAllListeners();
  }

  /** Watches `dir` (once) and calls `onChange` on any change inside it. False when it cannot. */
  private watchDir(dir: string, onChange: (name: string | null) => void): boolean {
    if (this.watchers.has(dir)) return true;
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => onChange(name === null ? null : String(name)));
      w.on('error', () => {
        w.close();
        this.watchers.delete(dir);
        this.scheduleScan();
      });
      this.watchers.set(dir, w);
      return true;
    } catch {
      return false;
    }
  }

  private unwatch(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  private scheduleScan(): void {
    if (this.closed || this.scanTimer) return;
    this.scanTimer = setTimeout(() => {
      this.scanTimer = null;
      this.scan();
    }, SETTLE_MS * 2);
  }

  /** Finds runs and batches, starts watching new ones and forgets those no longer listed. */
  private scan(): void {
    if (this.closed) return;
    const runsDir = join(this.root, RUN_FILES.runs);
    const batchesDir = join(this.root, BATCHES);
    // The folders may appear later: the one above them is watched until they do.
    const parent = existsSync(this.root) ? this.root : join(this.root, '..');
    this.watchDir(parent, () => this.scheduleScan());
    if (parent === this.root) this.unwatch(join(this.root, '..'));
    this.watchDir(runsDir, () => this.scheduleScan());
    this.watchDir(batchesDir, () => this.scheduleScan());

    const wanted = new Map<string, { batch: string | null; dir: string }>();
    const singles = subdirs(runsDir).sort().reverse();
    singles.forEach((name, i) => {
      const dir = join(runsDir, name);
      const key = singleRunKey(name);
      if (i < this.keepRuns || this.isLive(key)) wanted.set(key, { batch: null, dir });
    });
    const batchIds = subdirs(batchesDir).sort().reverse().slice(0, this.keepBatches);
    const liveBatches = new Set<string>();
    for (const id of batchIds) {
      const bdir = join(batchesDir, id);
      // Watched before batch.json is there: its arrival is what makes it a batch.
      this.watchDir(bdir, () => this.refreshBatchSoon(id));
      if (!existsSync(join(bdir, 'batch.json'))) continue;
      liveBatches.add(id);
      const brunsDir = join(bdir, RUN_FILES.runs);
      this.watchDir(brunsDir, () => this.scheduleScan());
      for (const name of subdirs(brunsDir)) wanted.set(batchRunKey(id, name), { batch: id, dir: join(brunsDir, name) });
    }
    for (const [key, e] of this.runs) {
      if (wanted.has(key)) continue;
      if (e.timer) clearTimeout(e.timer);
      if (e.wordsTimer) clearTimeout(e.wordsTimer);
      this.unwatch(e.paths.dir);
      this.unwatch(e.paths.iterations);
      this.runs.delete(key);
    }
    for (const [key, w] of wanted) {
      if (this.runs.has(key)) continue;
      const paths = runPaths(w.dir);
      const entry: RunEntry = { key, batch: w.batch, paths, events: new LineFollower(paths.events), digest: emptyDigest(), summary: null, json: '', timer: null, watchingLogs: false, words: null, wordsTimer: null };
      this.runs.set(key, entry);
      this.watchDir(paths.dir, () => this.refreshSoon(entry));
      this.refresh(entry);
    }
    for (const id of [...this.batches.keys()]) {
      if (liveBatches.has(id)) continue;
      this.batches.delete(id);
      this.unwatch(join(batchesDir, id));
      this.unwatch(join(batchesDir, id, RUN_FILES.runs));
    }
    for (const id of liveBatches) this.refreshBatch(id);
  }

  private isLive(key: string): boolean {
    const s = this.runs.get(key)?.summary;
    return s !== undefined && s !== null && s.state !== 'done' && s.state !== 'dead';
  }

  private refreshSoon(e: RunEntry): void {
    if (this.closed || e.timer) return;
    e.timer = setTimeout(() => {
      e.timer = null;
      this.refresh(e);
    }, SETTLE_MS);
  }

  private wordsSoon(e: RunEntry): void {
    if (this.closed || e.wordsTimer) return;
    e.wordsTimer = setTimeout(() => {
      e.wordsTimer = null;
      this.refresh(e);
    }, WORDS_MS);
  }

  private refresh(e: RunEntry): void {
    if (this.closed) return;
    foldLines(e.digest, e.events.readLines());
    const view = viewRun(e.paths, this.now());
    if (!view.state && !view.result && !view.status) return; // not a run yet
    const live = view.health === 'running' || view.health === 'stale';
    // While it runs, its transcripts are watched too: what the agent says changes no other file.
    if (live && this.watchDir(e.paths.iterations, () => this.wordsSoon(e))) e.watchingLogs = true;
    else if (!live && e.watchingLogs) {
      this.unwatch(e.paths.iterations);
      e.watchingLogs = false;
    }
    const format = e.digest.streamFormat ?? view.state?.settings?.streamFormat;
    const iteration = view.status?.iteration ?? e.digest.iteration;
    const words = live && iteration > 0 ? this.wordsOf(e, iteration, isStreamFormat(format) ? format : 'text') : null;
    const summary = summarize(e.key, e.batch, view, e.digest, words);
    const json = JSON.stringify(summary);
    if (json === e.json) return;
    e.summary = summary;
    e.json = json;
    this.emit('run', summary);
    if (e.batch !== null) this.refreshBatchSoon(e.batch);
  }

  /** Read again only when the transcript grew. */
  private wordsOf(e: RunEntry, iteration: number, format: Parameters<typeof lastWords>[2]): string | null {
    let size = -1;
    try {
      size = statSync(e.paths.transcript(iteration)).size;
    } catch {
      return null;
    }
    if (e.words && e.words.iteration === iteration && e.words.size === size) return e.words.text;
    const text = lastWords(e.paths, iteration, format);
    e.words = { iteration, size, text };
    return text;
  }

  private checkLiveness(): void {
    for (const e of this.runs.values()) {
      if (e.summary && e.summary.state !== 'done' && e.summary.state !== 'dead') this.refresh(e);
    }
  }

  private readonly batchTimers = new Map<string, NodeJS.Timeout>();

  private refreshBatchSoon(id: string): void {
    if (this.closed || this.batchTimers.has(id)) return;
    this.batchTimers.set(
      id,
      setTimeout(() => {
        this.batchTimers.delete(id);
        this.scheduleScan();
        this.refreshBatch(id);
      }, SETTLE_MS),
    );
  }

  private refreshBatch(id: string): void {
    const dir = join(this.root, BATCHES, id);
    const file = readJson(join(dir, 'batch.json'));
    if (!file) return;
    const runDirs = subdirs(join(dir, RUN_FILES.runs));
    const plansRaw = Array.isArray(file.plans) ? file.plans : [];
    const results = Array.isArray(file.results) ? file.results : [];
    const plans: BatchPlanRow[] = plansRaw.slice(0, 1000).map((p: unknown) => {
      const pid = String((p as { id?: unknown })?.id ?? '?');
      const attempts = runDirs.filter((n) => n === pid || (n.startsWith(`${pid}.`) && /^\d+$/.test(n.slice(pid.length + 1))));
      const latest = attempts.sort((a, b) => attemptOf(a, pid) - attemptOf(b, pid)).at(-1);
      const r = results.find((x: unknown) => (x as { plan?: unknown })?.plan === pid) as Record<string, unknown> | undefined;
      return {
        id: pid,
        key: latest === undefined ? null : batchRunKey(id, latest),
        attempts: attempts.length,
        outcome: typeof r?.outcome === 'string' ? r.outcome : null,
        verdict: typeof r?.verdict === 'string' ? r.verdict : null,
      };
    });
    const queue = (file.queue as { url?: unknown } | undefined)?.url;
    const summary: BatchSummary = {
      id,
      status: typeof file.status === 'string' ? file.status : '?',
      createdAt: typeof file.createdAt === 'string' ? file.createdAt : null,
      queue: typeof queue === 'string' ? queue : null,
      plans,
      complete: typeof file.complete === 'number' ? file.complete : null,
      hasIndex: existsSync(join(dir, 'index.md')),
      hasReport: existsSync(join(dir, 'report.md')),
    };
    const json = JSON.stringify(summary);
    if (this.batches.get(id)?.json === json) return;
    this.batches.set(id, { summary, json });
    this.emit('batch', summary);
  }
}

function attemptOf(name: string, plan: string): number {
  return name === plan ? 1 : Number(name.slice(plan.length + 1));
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => !n.startsWith('.') && isDir(join(dir, n)));
  } catch {
    return [];
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readRegularFileSync(path, 16 * 1024 * 1024).toString('utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
