// Issue 24's speed goal: `ralph exec --quiet` reading 200 MB of 36-byte lines from its agent takes
// at most 6x the wall time of the same agent piped into `wc -l`, measured in the same run, with
// ralph's peak RSS <= 100 MiB and the transcript holding every byte (docs/files.md#transcripts).
// Rounds alternate ralph and the baseline; the medians are compared.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, dataDir, median, ralphBin, result, timed } from './lib.mjs';

const BYTES = Number(process.env.EXEC_SPEED_BYTES ?? 200 * 1000 * 1000);
const ROUNDS = Number(process.env.EXEC_SPEED_ROUNDS ?? 3);
const GOAL = 6;
const GOAL_MIB = 100;
const agent = join(benchDir, 'short-lines-agent.mjs');
const work = join(dataDir, `exec-speed-${process.pid}`);
const planId = 'exec-speed';

// CPU time (user + sys, the children's included: the agent's on both sides) is printed beside wall
// time for context: on a busy machine wall time moves with the load, CPU time much less.
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
async function measured(cmd, args, options) {
  if (!TIME) return { ...(await timed(cmd, args, options)), cpuMs: NaN };
  // GNU time's %M: the largest peak RSS among the processes it waited for (ralph, not its agent).
  const r = await timed(TIME, ['-f', 'RUSAGE %U %S %M', cmd, ...args], options);
  const m = /RUSAGE ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.stderr);
  if (!m) return { ...r, cpuMs: NaN };
  return { ...r, cpuMs: (Number(m[1]) + Number(m[2])) * 1000, peakKiB: Number(m[3]), stderr: r.stderr.slice(0, m.index) };
}

mkdirSync(work, { recursive: true });
try {
  // A project of its own: inside this repository ralph would keep its runs in the repository's .ralph/.
  execFileSync('git', ['init', '-q', work]);
  writeFileSync(
    join(work, 'plan.md'),
    `---\nid: ${planId}\n---\n# Speed\n\nWrite a lot.\n\n<tasks>\n<task><name>Task 1</name><action>write</action></task>\n</tasks>\n`,
  );
  const sh = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
  const baselines = [];
  const runs = [];
  const baseCpu = [];
  const runCpu = [];
  let peakKiB = 0;
  let expected;
  for (let round = 0; round < ROUNDS; round++) {
    const base = await measured('sh', ['-c', `${sh(process.execPath)} ${sh(agent)} ${BYTES} ${planId} | wc -l`], { stdout: 'pipe', cwd: work });
    if (base.code !== 0) throw new Error(`baseline exited ${base.code}: ${base.stderr}`);
    baselines.push(base.ms);
    baseCpu.push(base.cpuMs);

    rmSync(join(work, '.ralph'), { recursive: true, force: true });
    // --max-log above the output: the transcript must hold every byte.
    const run = await measured(ralphBin, ['exec', join(work, 'plan.md'), '--quiet', '--max-iterations', '1', '--max-log', String(BYTES * 2), '--', process.execPath, agent, String(BYTES), planId], {
      stdout: 'pipe',
      cwd: work,
    });
    const runsDir = join(work, '.ralph', 'runs');
    const runDir = join(runsDir, readdirSync(runsDir)[0]);
    const res = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
    if (run.code !== 0 || res.outcome !== 'complete') throw new Error(`ralph exec exited ${run.code} (${res.outcome}): ${res.reason ?? run.stderr.slice(-2000)}`);
    const logged = statSync(join(runDir, 'iterations', '1.log')).size;
    expected ??= logged;
    if (logged !== expected || logged < BYTES * 0.99) throw new Error(`iterations/1.log holds ${logged} bytes; the agent wrote about ${BYTES}`);
    runs.push(run.ms);
    runCpu.push(run.cpuMs);
    peakKiB = Math.max(peakKiB, run.peakKiB);
    console.log(
      `round ${round + 1}: agent | wc -l ${(base.ms / 1000).toFixed(2)} s (cpu ${(base.cpuMs / 1000).toFixed(2)} s)   ralph exec --quiet ${(run.ms / 1000).toFixed(2)} s (cpu ${(run.cpuMs / 1000).toFixed(2)} s)   peak RSS ${(run.peakKiB / 1024).toFixed(1)} MiB`,
    );
  }
  const ratio = median(runs) / median(baselines);
  const peakMiB = peakKiB / 1024;
  result('exec-speed', {
    ratio: `${ratio.toFixed(2)}x`,
    goal: `<=${GOAL}x`,
    cpuRatio: `${(median(runCpu) / median(baseCpu)).toFixed(2)}x`,
    baselineMs: median(baselines).toFixed(0),
    ralphMs: median(runs).toFixed(0),
    peakRssMiB: peakMiB.toFixed(1),
    goalRss: `<=${GOAL_MIB}`,
    transcriptBytes: expected,
  });
  if (ratio > GOAL || peakMiB > GOAL_MIB) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
