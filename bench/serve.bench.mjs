// Issue 30's bar: a page of `ralph serve` left open for a 10-minute run adds under 50 MiB to the
// server's memory and under 2% CPU on average (docs/serve.md#how-it-stays-live-and-cheap).
//
// A scripted busy run writes its files as a run does for SERVE_BENCH_SECONDS (default 600): a
// 500-byte transcript line every 100 ms (~3 MB in 10 minutes, some lines 200 KB long), a tool
// call and a usage report every 2 s, a new iteration every minute (STATUS.json rewritten). Two
// `ralph serve` processes (the built CLI) watch the same folder: the baseline has no page open;
// the measured one has the run's page and the overview open in headless Chromium the whole time.
// Printed: each server's RSS at the start and at its peak, and its CPU time over the wall time.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { dataDir, ralphBin, result } from './lib.mjs';

const SECONDS = Number(process.env.SERVE_BENCH_SECONDS ?? 600);
const GOAL_MIB = 50;
const GOAL_CPU = 2;
const CHROMIUM = process.env.RALPH_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(existsSync);
const work = join(dataDir, `serve-${process.pid}`);
const runId = '20261126-020000-bench';
const runDir = join(work, '.ralph', 'runs', runId);
// /proc's CPU times are in clock ticks: USER_HZ, 100 on Linux.
const ticksPerSecond = 100;

function status(state, iteration) {
  const tmp = join(runDir, 'STATUS.json.tmp');
  writeFileSync(tmp, JSON.stringify({ repo: work, plan: join(work, 'plan.md'), started: new Date().toISOString(), mode: 'command', task: 'Task 1', state, iteration, pid: process.pid, updated: new Date().toISOString() }));
  renameSync(tmp, join(runDir, 'STATUS.json'));
}
const event = (e) => appendFileSync(join(runDir, 'events.jsonl'), `${JSON.stringify({ at: new Date().toISOString(), ...e })}\n`);

function startServe() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ralphBin, 'serve', '--port', '0'], { cwd: work, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`ralph serve exited ${code}`)));
  });
}

function sample(pid) {
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { rss, cpuSeconds: (Number(f[11]) + Number(f[12])) / ticksPerSecond };
}

mkdirSync(join(runDir, 'iterations'), { recursive: true });
let browser;
const servers = [];
try {
  if (!CHROMIUM) throw new Error('no chromium (set RALPH_CHROMIUM)');
  let iteration = 1;
  event({ type: 'run-start', runId, runDir, plan: 'bench', planPath: join(work, 'plan.md'), cwd: work, mode: 'new', executor: 'command', maxIterations: 1000, startedAt: new Date().toISOString(), head: null });
  event({ type: 'agent', name: null, command: ['agent'], streamFormat: 'text', formatChosen: 'default' });
  event({ type: 'iteration-start', iteration, maxIterations: 1000, fresh: true, prompt: 'full' });
  status('running', iteration);

  const base = await startServe();
  const measured = await startServe();
  servers.push(base.child, measured.child);
  await new Promise((r) => setTimeout(r, 2_000));
  const start = { base: sample(base.child.pid), measured: sample(measured.child.pid), at: Date.now() };

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const overview = await browser.newPage();
  await overview.goto(measured.url);
  const runPage = await browser.newPage();
  await runPage.goto(`${measured.url}run?key=runs/${runId}`);

  const peak = { base: start.base.rss, measured: start.measured.rss };
  let n = 0;
  const end = Date.now() + SECONDS * 1000;
  while (Date.now() < end) {
    n++;
    const long = n % 600 === 0 ? 'x'.repeat(200_000) : '';
    appendFileSync(join(runDir, 'iterations', `${iteration}.log`), `line ${n}: ${'words '.repeat(80)}${long}\n`);
    if (n % 20 === 0) {
      event({ type: 'tool', iteration, name: 'Bash', summary: `npm test -- ${n}`, phase: 'call' });
      event({ type: 'usage', iteration, tokens: { input: 10, output: 10, cacheRead: 0, cacheWrite: 0 }, costUsd: 0.001, totalCostUsd: n / 1000, totalTokens: { input: n, output: n, cacheRead: 0, cacheWrite: 0 } });
    }
    if (n % 600 === 0) {
      event({ type: 'iteration-end', iteration, exitCode: 0, durationMs: 60_000, decision: 'none' });
      iteration++;
      event({ type: 'iteration-start', iteration, maxIterations: 1000, fresh: false, prompt: 'continue' });
      status('running', iteration);
    }
    if (n % 10 === 0) {
      peak.base = Math.max(peak.base, sample(base.child.pid).rss);
      peak.measured = Math.max(peak.measured, sample(measured.child.pid).rss);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const wall = (Date.now() - start.at) / 1000;
  const last = { base: sample(base.child.pid), measured: sample(measured.child.pid) };
  const shown = await runPage.locator('#transcript div').count();
  const cpu = (k) => (100 * (last[k].cpuSeconds - start[k].cpuSeconds)) / wall;
  const added = peak.measured - start.measured.rss;
  const f = (x) => x.toFixed(1);
  console.log(`run of ${f(wall)} s, ${n} transcript lines, ${iteration} iterations; the page shows ${shown} lines`);
  console.log(`baseline (no page): RSS ${f(start.base.rss)} → peak ${f(peak.base)} MiB, CPU ${cpu('base').toFixed(2)}%`);
  console.log(`with the page open: RSS ${f(start.measured.rss)} → peak ${f(peak.measured)} MiB, CPU ${cpu('measured').toFixed(2)}%`);
  const ok = added < GOAL_MIB && cpu('measured') < GOAL_CPU;
  result('serve', {
    seconds: Math.round(wall),
    added_mib: f(added),
    peak_vs_baseline_mib: f(peak.measured - peak.base),
    cpu_pct: cpu('measured').toFixed(2),
    baseline_cpu_pct: cpu('base').toFixed(2),
    goal: `added<${GOAL_MIB}MiB,cpu<${GOAL_CPU}%`,
    ok,
  });
  process.exitCode = ok ? 0 : 1;
} finally {
  await browser?.close();
  for (const c of servers) c.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
