#!/usr/bin/env node
// How much ralph sends to an agent that resumes its own session, against the first prompt
// (docs/agents.md, "Prompts of a resumed session"). A 10-task plan with realistic paths; the
// resumed (continue) prompt must stay at most a quarter of the first. Run after `npm run build`:
//   node bench/prompt-size.bench.mjs
import { buildPrompt } from '../dist/prompts/build-prompt.js';
import { loadTemplates } from '../dist/prompts/templates.js';

const tasks = Array.from(
  { length: 10 },
  (_, i) =>
    `<task>\n<name>Task ${i + 1}: step ${i + 1} of the rate limiter</name>\n<files>src/limiter/part-${i + 1}.ts</files>\n<action>Implement part ${i + 1} and its unit test.</action>\n<verify>npm test -- part-${i + 1}</verify>\n<done>part ${i + 1} passes its test</done>\n</task>`,
).join('\n');
const planText = `---\nid: add-rate-limiting\nverify: [npm test]\n---\n# Add rate limiting\n\nLimit each API key to 100 requests a minute.\n\n<tasks>\n${tasks}\n</tasks>\n\n## Progress\nTask 1 done.\n\n## Observations\n`;
const base = {
  templates: loadTemplates(),
  maxIterations: 20,
  cwd: '/home/dev/src/acme-api',
  planPath: '/home/dev/src/acme-api/plans/add-rate-limiting.md',
  planId: 'add-rate-limiting',
  planText,
  summaryPath: '/home/dev/src/acme-api/plans/add-rate-limiting.summary.json',
};
const bytes = (p) => Buffer.byteLength(p.prompt.text, 'utf8');
const first = buildPrompt({ ...base, iteration: 1, fresh: true });
const resumed = buildPrompt({ ...base, iteration: 2, fresh: false, continuesSession: true });
const rejected = buildPrompt({
  ...base,
  iteration: 3,
  fresh: false,
  continuesSession: true,
  feedback: 'Your completion claim (PLAN_COMPLETE) was rejected: verify command `npm test` exited 1; the tail of its output:\n2 failing',
});
const rows = [
  ['first prompt (iteration 1)', first],
  ['resumed session (continue)', resumed],
  ['resumed, after a rejection', rejected],
];
for (const [label, p] of rows) console.log(`${label.padEnd(30)} ${String(bytes(p)).padStart(6)} bytes  (${p.kind})`);
const ratio = bytes(resumed) / bytes(first);
console.log(`ratio continue/first: ${ratio.toFixed(3)} (goal: at most 0.25)`);
process.exitCode = ratio <= 0.25 && bytes(rejected) / bytes(first) <= 0.25 ? 0 : 1;
