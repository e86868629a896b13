// Bench: `ralph report` over 100,000 findings in 500 runs against a bare Node script that reads
// the same files and JSON.parses every line. Goal: the report takes at most 4x the baseline, in
// each format, measured in the same run, and the md output fits a PR comment (65,536 characters).
// Exits 1 when either is missed.
// Both are run as fresh processes, alternately, REPS times each; medians are compared.
// Run: npm run build && node bench/report.bench.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, '..');
const DATA = join(HERE, '.data', 'report');
const RUNS = 500;
const PER_RUN = 200;
// Nine of each: with five, the median baseline moved by a third between runs on a shared machine.
const REPS = 9;
const GOAL = 4;
/** GitHub's limit on a PR comment. */
const MD_MAX_CHARS = 65_536;

const TYPES = ['bug', 'stub', 'api-issue', 'insight', 'technical-debt', 'assumption', 'dependency', 'test-failed'];
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];
const ACTIONS = ['needs-fix', 'needs-implementation', 'needs-investigation', 'needs-plan', 'none'];

// Deterministic data: the same files on every machine and every run.
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

function generate() {
  const marker = join(DATA, `.complete-${RUNS}x${PER_RUN}`);
  if (existsSync(marker)) return;
  rmSync(DATA, { recursive: true, force: true });
  for (let r = 0; r < RUNS; r++) {
    const run = `2026010${r % 9}-run-${String(r).padStart(4, '0')}`;
    const plan = `plan-${r % 40}`;
    const dir = join(DATA, 'runs', run);
    mkdirSync(dir, { recursive: true });
    const lines = [];
    for (let i = 0; i < PER_RUN; i++) {
      // A third of the findings recur across runs (the same 2,000 issues seen again), the rest are new.
      const recurring = rand() < 0.33;
      const n = recurring ? Math.floor(rand() * 2000) : r * PER_RUN + i;
      const at = new Date(Date.UTC(2026, 0, 1 + (r % 28), 0, 0, i)).toISOString();
      if (i % 97 === 96) {
        lines.push(JSON.stringify({ run, plan, iteration: 1 + (i % 7), at, valid: false, type: null, severity: null, title: null, detail: null, file: null, action: null, raw: `<observation type="bogus">${'x'.repeat(120)}`, error: 'unknown type "bogus"' }));
        continue;
      }
      lines.push(
        JSON.stringify({
          run, plan, iteration: 1 + (i % 7), at, valid: true,
          type: TYPES[n % TYPES.length], severity: recurring ? SEVERITIES[n % 5] : pick(SEVERITIES),
          title: `${recurring ? 'Recurring' : 'Finding'} ${n}: ${pick(['null dereference in', 'missing test for', 'slow query in', 'unused export in'])} module ${n % 300}`,
          detail: `Observed while working on task ${i}. ${'The code path does something questionable and should be revisited. '.repeat(1 + (n % 3))}`,
          file: n % 5 === 0 ? null : `src/module-${n % 300}/file-${n % 17}.ts`,
          action: ACTIONS[n % ACTIONS.length],
        }),
      );
    }
    writeFileSync(join(dir, 'findings.jsonl'), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'result.json'), JSON.stringify({ run, plan, outcome: r % 7 === 0 ? 'failed' : 'complete', exitCode: r % 7 === 0 ? 1 : 0, reason: 'done', iterations: 3, bailouts: 0, signals: [], prUrl: `https://github.com/acme/app/pull/${r}`, costUsd: 0.5 + (r % 10) / 10, tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T01:00:00.000Z', warnings: [] }, null, 2));
  }
  writeFileSync(marker, '');
}

const BASELINE = `
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
let lines = 0;
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name === 'findings.jsonl') {
      for (const line of readFileSync(p, 'utf8').split('\\n')) if (line !== '') { JSON.parse(line); lines++; }
    } else if (e.name === 'result.json') JSON.parse(readFileSync(p, 'utf8'));
  }
};
walk(process.argv[1]);
if (lines !== ${RUNS * PER_RUN}) throw new Error('read ' + lines + ' lines');
`;

// CPU time of waited-for children (Linux /proc/self/stat cutime + cstime, in clock ticks): on a
// shared, busy machine it says more about the work done than wall time does.
const TICK_MS = 10;
function childCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) * TICK_MS;
  } catch {
    return NaN;
  }
}

function time(args) {
  const cpu0 = childCpuMs();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.slice(0, 2).join(' ')} failed (${r.status}): ${r.stderr}`);
  return { ms, cpu: childCpuMs() - cpu0 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const show = (xs) => `median ${median(xs.map((x) => x.ms)).toFixed(0)} ms wall, ${median(xs.map((x) => x.cpu)).toFixed(0)} ms cpu (wall: ${xs.map((x) => x.ms.toFixed(0)).join(', ')})`;

if (!existsSync(join(REPO, 'dist', 'cli', 'main.js'))) {
  console.error('dist/ is missing: run `npm run build` first');
  process.exit(1);
}
const genStart = Date.now();
generate();
console.log(`data: ${RUNS} runs x ${PER_RUN} findings in ${DATA} (ready in ${Date.now() - genStart} ms)`);

const formats = ['md', 'html', 'json'];
const base = [];
const rep = Object.fromEntries(formats.map((f) => [f, []]));
for (let i = 0; i < REPS; i++) {
  base.push(time(['-e', BASELINE, DATA]));
  for (const f of formats) rep[f].push(time([join(REPO, 'bin', 'ralph.js'), 'report', '--runs', DATA, '--format', f]));
}
// md is meant to fit a PR comment (GitHub: 65,536 characters) however many findings there are.
const md = spawnSync(process.execPath, [join(REPO, 'bin', 'ralph.js'), 'report', '--runs', DATA, '--format', 'md'], { cwd: REPO, encoding: 'utf8', maxBuffer: 1 << 26 });
console.log(`RESULT report-md-size: chars=${md.stdout.length} (goal <= ${MD_MAX_CHARS})`);
if (md.stdout.length > MD_MAX_CHARS) process.exitCode = 1;
const bWall = median(base.map((x) => x.ms));
const bCpu = median(base.map((x) => x.cpu));
console.log(`baseline (read + JSON.parse every line): ${show(base)}`);
for (const f of formats) console.log(`ralph report --format ${f}: ${show(rep[f])}`);
for (const f of formats) {
  const wall = median(rep[f].map((x) => x.ms));
  const cpu = median(rep[f].map((x) => x.cpu));
  console.log(
    `RESULT report-${f}: ratio=${(wall / bWall).toFixed(2)}x (goal <= ${GOAL}x: ${wall / bWall <= GOAL ? 'met' : 'NOT met'}) cpu-ratio=${(cpu / bCpu).toFixed(2)}x report=${wall.toFixed(0)}ms baseline=${bWall.toFixed(0)}ms findings=${RUNS * PER_RUN} runs=${RUNS}`,
  );
  if (wall / bWall > GOAL) process.exitCode = 1;
}
