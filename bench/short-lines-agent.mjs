#!/usr/bin/env node
// The exec-speed bench's agent: writes `bytes` (argv[2]) of 36-byte lines (35 characters and a line
// end: the most lines, so the most per-line work, for the bytes) to stdout as fast as the pipe takes
// them, then a valid summary at $RALPH_SUMMARY (when set; argv[3] is the plan id) and
// ###PLAN_COMPLETE###. The same program is the baseline, piped into `wc -l`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const total = Number(process.argv[2] ?? 200 * 1000 * 1000);
const planId = process.argv[3] ?? 'bench';
const WIDTH = 36;

// One block of ~1 MiB, reused: generating text must not be what is measured.
let blockText = '';
for (let i = 0; blockText.length < 1024 * 1024; i++) blockText += `line ${String(i).padStart(7, '0')} ${'x'.repeat(WIDTH)}`.slice(0, WIDTH - 1) + '\n';
const block = Buffer.from(blockText);
const blocks = Math.max(1, Math.round(total / block.length));

let i = 0;
function write() {
  while (i < blocks) {
    i++;
    if (!process.stdout.write(block)) return void process.stdout.once('drain', write);
  }
  const summary = process.env.RALPH_SUMMARY;
  if (summary) {
    mkdirSync(dirname(summary), { recursive: true });
    writeFileSync(summary, JSON.stringify({ plan: planId, status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] }));
  }
  process.stdout.write('###PLAN_COMPLETE###\n');
}
write();
