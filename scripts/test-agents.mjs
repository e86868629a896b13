#!/usr/bin/env node
// `npm run test:agents [-- --update-fixtures] [vitest args…]`: the conformance suite of the real
// agent CLIs (docs/agents.md). With --update-fixtures the streams the CLIs printed are copied into
// test/fixtures/agents-real/, where the unit tests read them.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const update = args.includes('--update-fixtures');
const rest = args.filter((a) => a !== '--update-fixtures');
const env = { ...process.env, ...(update ? { RALPH_UPDATE_AGENT_FIXTURES: '1' } : {}) };
const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', env });
if (build.status !== 0) process.exit(build.status ?? 1);
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', '--config', 'vitest.agents.config.ts', ...rest], { cwd: root, stdio: 'inherit', env });
process.exit(run.status ?? 1);
