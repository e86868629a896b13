// The parser's goal (docs/parser.md): `ralph parse` over a 200 MB transcript in at most 6x the
// wall time of `grep -c '###'` on the same file, measured in the same run, with peak RSS <= 64 MiB.
import { createWriteStream, existsSync, statSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { dataDir, median, ralphBin, result, timed } from './lib.mjs';

const TARGET = 200 * 1024 * 1024;
const GOAL = 6;
const file = join(dataDir, 'transcript-200mb.txt');

async function generate() {
  const tmp = `${file}.tmp`;
  const out = createWriteStream(tmp);
  let size = 0;
  let i = 0;
  // Deterministic pseudo-random mix of what agents write.
  let seed = 42;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const prose = [
    'Reading src/rate-limit/bucket.ts to see how refill is computed.',
    'Running `npm test -- bucket` now; expecting three failures before the fix.',
    '  at Object.<anonymous> (/home/dev/widgets/test/bucket.test.ts:41:17)',
    '### Progress',
    '- [x] Task 1: token bucket',
    'export function refill(bucket: Bucket, now: number): Bucket {',
    '    return { ...bucket, tokens: Math.min(bucket.capacity, bucket.tokens + rate * (now - bucket.at)) };',
    '',
  ];
  while (size < TARGET) {
    let block = '';
    for (let k = 0; k < 200; k++) {
      const r = rnd();
      if (r < 0.0005) block += '###BAILOUT:context is getting long###\n';
      else if (r < 0.001) block += '```bash\n###PLAN_COMPLETE###\nnpm test\n```\n';
      else if (r < 0.0015) block += '<observation type="bug" severity="high">\n  <title>Refill overflows</title>\n  <detail>tokens exceed capacity</detail>\n  <file>src/bucket.ts</file>\n</observation>\n';
      else if (r < 0.002) block += '###NOT_A_SIGNAL###\n';
      else block += prose[Math.floor(rnd() * prose.length)] + '\n';
    }
    i++;
    size += Buffer.byteLength(block);
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end('###PLAN_COMPLETE###\n');
  await once(out, 'finish');
  renameSync(tmp, file);
}

if (!existsSync(file)) {
  console.log('generating a 200 MB transcript (once) ...');
  await generate();
}
console.log(`transcript: ${(statSync(file).size / 1048576).toFixed(0)} MiB`);

// CPU time (user + sys) is reported beside wall time: other work on the machine inflates wall
// time, not the CPU a run needs. GNU time measures both, and the peak RSS, when it is there.
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
async function run(cmd, args) {
  if (!TIME) return { ...(await timed(cmd, args, { stdout: 'pipe' })), cpuMs: NaN };
  const r = await timed(TIME, ['-f', 'RUSAGE %U %S %M', cmd, ...args], { stdout: 'pipe' });
  const m = /RUSAGE ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.stderr);
  if (!m) return { ...r, cpuMs: NaN };
  return { ...r, cpuMs: (Number(m[1]) + Number(m[2])) * 1000, peakKiB: Number(m[3]), stderr: r.stderr.slice(0, m.index) };
}

const runs = 5;
const grep = [];
const ralph = [];
const grepCpu = [];
const ralphCpu = [];
let peak = 0;
for (let i = 0; i < runs; i++) {
  const g = await run('grep', ['-c', '###', file]);
  grep.push(g.ms);
  grepCpu.push(g.cpuMs);
  const r = await run(ralphBin, ['parse', file]);
  if (r.code !== 0) throw new Error(`ralph parse exited ${r.code}: ${r.stderr}`);
  ralph.push(r.ms);
  ralphCpu.push(r.cpuMs);
  peak = Math.max(peak, r.peakKiB);
}
const g = median(grep);
const p = median(ralph);
const gc = median(grepCpu);
const pc = median(ralphCpu);
console.log(`grep -c '###': ${g.toFixed(0)} ms (cpu ${gc.toFixed(0)} ms)   ralph parse: ${p.toFixed(0)} ms (cpu ${pc.toFixed(0)} ms)   (median of ${runs})`);
result('parse', {
  ratio: `${(p / g).toFixed(2)}x`,
  goal: `<=${GOAL}x`,
  cpuRatio: `${(pc / gc).toFixed(2)}x`,
  peakRssMiB: (peak / 1024).toFixed(1),
  rssGoal: '<=64MiB',
});
if (p / g > GOAL || peak / 1024 > 64) process.exitCode = 1;
