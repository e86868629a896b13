#!/usr/bin/env node
// A SCRIPTED STAND-IN FOR A REAL AGENT. It lets `ralph exec plans/demo.md` run offline with
// no API key: it reads the prompt on stdin like an agent CLI would, does real work in
// examples/demo-work/, and speaks ralph's signals. Iteration 1 writes the module, records its
// progress and bails out; iteration 2 starts from that progress in a fresh context, writes and
// runs the test, writes the summary, reports an observation and claims completion.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const work = join(process.cwd(), 'examples', 'demo-work');
const progressFile = join(work, 'PROGRESS.md');
const iteration = Number(process.env.RALPH_ITERATION ?? '1');
const summaryPath = process.env.RALPH_SUMMARY ?? join(work, 'demo.summary.json');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const say = async (line) => {
  process.stdout.write(`${line}\n`);
  await sleep(120);
};

const prompt = readFileSync(0, 'utf8');
await say(`[demo agent] iteration ${iteration}: read a ${prompt.length}-character prompt (fresh context: ${process.env.RALPH_FRESH_CONTEXT === '1' ? 'yes' : 'no'})`);

if (iteration === 1) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  await say('Task 1: writing examples/demo-work/wordcount.mjs');
  writeFileSync(
    join(work, 'wordcount.mjs'),
    'export function countWords(text) {\n  const words = text.trim().split(/\\s+/);\n  return words[0] === \'\' ? 0 : words.length;\n}\n',
  );
  writeFileSync(progressFile, '- [x] Task 1: word count\n- [ ] Task 2: test\n');
  await say('Saved progress: Task 1 done, Task 2 next.');
  await say('My context is filling up with exploration; handing over to a fresh one.');
  await say('###BAILOUT:context is getting long; Task 1 done, Task 2 next###');
  process.exit(0);
}

const progress = existsSync(progressFile) ? readFileSync(progressFile, 'utf8') : '';
await say(`Resuming from the progress file:\n${progress.trim()}`);
await say('Task 2: writing examples/demo-work/wordcount.test.mjs');
writeFileSync(
  join(work, 'wordcount.test.mjs'),
  [
    "import assert from 'node:assert/strict';",
    "import { countWords } from './wordcount.mjs';",
    "assert.equal(countWords(''), 0);",
    "assert.equal(countWords('   '), 0);",
    "assert.equal(countWords('one two\\tthree\\nfour'), 4);",
    "console.log('wordcount: 3 checks passed');",
    '',
  ].join('\n'),
);
const test = spawnSync(process.execPath, [join(work, 'wordcount.test.mjs')], { encoding: 'utf8' });
await say(`$ node examples/demo-work/wordcount.test.mjs\n${(test.stdout + test.stderr).trim()}`);
if (test.status !== 0) {
  await say('###TEST_FAILED:demo:1###');
  process.exit(1);
}
writeFileSync(progressFile, '- [x] Task 1: word count\n- [x] Task 2: test\n');
await say(`<observation type="insight" severity="low">
  <title>countWords treats any whitespace run as one separator</title>
  <detail>Tabs and new lines separate words too; punctuation is part of a word.</detail>
  <file>examples/demo-work/wordcount.mjs</file>
  <action>none</action>
</observation>`);
mkdirSync(dirname(summaryPath), { recursive: true });
writeFileSync(
  summaryPath,
  `${JSON.stringify(
    {
      plan: 'demo',
      status: 'complete',
      tasks: [
        { name: 'Task 1: word count', status: 'done' },
        { name: 'Task 2: test', status: 'done', notes: '3 checks' },
      ],
      verification: [{ check: 'node examples/demo-work/wordcount.test.mjs', passed: true }],
      files_changed: ['examples/demo-work/wordcount.mjs', 'examples/demo-work/wordcount.test.mjs'],
    },
    null,
    2,
  )}\n`,
);
await say(`Wrote the summary to ${summaryPath}.`);
await say('###PLAN_COMPLETE###');
