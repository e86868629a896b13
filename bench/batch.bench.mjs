// Batch concurrency: 16 plans whose agent (test/fixtures/batch/sleep-agent.sh) sleeps 1 s in its
// one iteration, run through the built CLI at concurrency 1 (the baseline, measured in the same run) and at concurrency 8.
// Goal: concurrency 8 at least 6x faster.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir, ralphBin, repoDir, timed } from './lib.mjs';

const PLANS = 16;
const SLEEP_MS = 1000;
const GOAL = 6;
const agent = join(repoDir, 'test', 'fixtures', 'batch', 'sleep-agent.sh');

function setup() {
  const dir = mkdtempSync(join(dataDir, 'batch-'));
  mkdirSync(join(dir, 'plans'));
  for (let i = 1; i <= PLANS; i++) {
    const id = `p${String(i).padStart(2, '0')}`;
    writeFileSync(
      join(dir, 'plans', `${id}.md`),
      `# ${id}\n\n<tasks>\n<task><name>only</name><action>sleep</action><done>slept</done></task>\n</tasks>\n`,
    );
  }
  return dir;
}

async function run(concurrency) {
  const dir = setup();
  const out = join(dir, 'out');
  // The bin itself, as users run it (its shebang sets node's flags).
  const r = await timed(ralphBin, ['batch', 'plans', '--out', out, '--concurrency', String(concurrency), '--isolate', 'none', '--', 'sh', agent, String(SLEEP_MS / 1000)], { cwd: dir });
  const first = readFileSync(join(out, 'index.md'), 'utf8').split('\n')[0];
  if (r.code !== 0 || first !== `[${PLANS}/${PLANS} plans complete]`) {
    throw new Error(`concurrency ${concurrency}: exit ${r.code}, index "${first}"\n${r.stderr}`);
  }
  rmSync(dir, { recursive: true, force: true });
  return r.ms;
}

const c1 = await run(1);
const c8 = await run(8);
const ratio = c1 / c8;
console.log(`concurrency 1: ${(c1 / 1000).toFixed(2)} s; concurrency 8: ${(c8 / 1000).toFixed(2)} s (${PLANS} plans, ${SLEEP_MS} ms each)`);
console.log(`RESULT batch: ratio=${ratio.toFixed(1)}x (goal >= ${GOAL}x) baseline_c1_ms=${Math.round(c1)} c8_ms=${Math.round(c8)}`);
process.exitCode = ratio >= GOAL ? 0 : 1;
