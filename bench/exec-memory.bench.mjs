// Issue 4's memory bar: 1 GB of agent output through `ralph exec --quiet` keeps ralph's peak RSS
// at or under 100 MiB (docs/signals.md#lines: "Memory never grows with the length of the output").
// The agent (test/fixtures/longrun/gigabyte-agent.mjs) writes ~1 GiB of generated lines with a
// few signals that must not end the run, then a summary and ###PLAN_COMPLETE###. Baseline, in
// the same run: the same agent's output piped into `wc -l`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir, ralphBin, repoDir, timed } from './lib.mjs';

const BYTES = Number(process.env.EXEC_MEMORY_BYTES ?? 1024 ** 3);
const GOAL_MIB = 100;
const agent = join(repoDir, 'test', 'fixtures', 'longrun', 'gigabyte-agent.mjs');
const work = join(dataDir, `exec-memory-${process.pid}`);
const planId = 'exec-memory';

mkdirSync(work, { recursive: true });
try {
  // A project of its own: inside this repository ralph would keep its runs in the repository's .ralph/.
  execFileSync('git', ['init', '-q', work]);
  writeFileSync(
    join(work, 'plan.md'),
    `---\nid: ${planId}\n---\n# Memory\n\nWrite a lot.\n\n<tasks>\n<task><name>Task 1</name><action>write</action></task>\n</tasks>\n`,
  );

  const sh = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
  const baseline = await timed('sh', ['-c', `${sh(process.execPath)} ${sh(agent)} ${BYTES} ${planId} | wc -l`], { stdout: 'pipe', cwd: work });
  if (baseline.code !== 0) throw new Error(`baseline exited ${baseline.code}: ${baseline.stderr}`);

  // The bin itself, as `ralph` or `npx ralph` runs it. --max-log above the output: the bench checks
  // that the transcript holds every byte (the default cap keeps 100 MB, head and tail).
  const run = await timed(ralphBin, ['exec', join(work, 'plan.md'), '--quiet', '--max-log', String(BYTES * 2), '--', process.execPath, agent, String(BYTES), planId], {
    stdout: 'pipe',
    cwd: work,
  });
  const runs = join(work, '.ralph', 'runs');
  const runDir = existsSync(runs) ? join(runs, readdirSync(runs)[0]) : undefined;
  const res = runDir && existsSync(join(runDir, 'result.json')) ? JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')) : undefined;
  if (run.code !== 0 || res?.outcome !== 'complete') {
    throw new Error(`ralph exec exited ${run.code} (${res?.outcome ?? 'no result.json'}): ${res?.reason ?? run.stderr.slice(-2000)}`);
  }
  // The whole stream went through: the transcript holds it all.
  const logged = statSync(join(runDir, 'iterations', '1.log')).size;
  if (logged < BYTES * 0.98) throw new Error(`iterations/1.log holds ${logged} bytes of ${BYTES}`);

  const peakMiB = run.peakKiB / 1024;
  const mib = BYTES / 1024 ** 2;
  console.log(`agent | wc -l: ${(baseline.ms / 1000).toFixed(1)} s   ralph exec --quiet: ${(run.ms / 1000).toFixed(1)} s (${(mib / (run.ms / 1000)).toFixed(0)} MiB/s)   ralph peak RSS: ${peakMiB.toFixed(1)} MiB`);
  // The goal is on memory; the time ratio to `wc -l` is reported for context, with no goal.
  console.log(
    `RESULT exec-memory: peakRssMiB=${peakMiB.toFixed(1)} goal<=${GOAL_MIB} ratio=${(run.ms / baseline.ms).toFixed(1)}x baselineMs=${baseline.ms.toFixed(0)} ralphMs=${run.ms.toFixed(0)} streamMiB=${mib.toFixed(0)}`,
  );
  if (peakMiB > GOAL_MIB) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
