// The scripted batch agent (test/fixtures/batch/agent.mjs) and a plan whose comment tells it how
// to behave (`complete`, `fail`, `block`, `hang`, `edit <file>`, … — see the agent's header).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './run-ralph.js';

export const BATCH_AGENT = join(ROOT, 'test', 'fixtures', 'batch', 'agent.mjs');

/** Writes `<dir>/<id>.md`: one task, at most 3 iterations, the agent told `behaviour`. */
export function writeBatchPlan(dir: string, id: string, behaviour: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${id}.md`),
    `---\nmax_iterations: 3\n---\n# ${id}\n\n<!-- agent: ${behaviour} -->\n\nDo it.\n\n<tasks>\n<task><name>only</name><action>do it</action><done>done</done></task>\n</tasks>\n`,
  );
}
