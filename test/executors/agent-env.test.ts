// The config's secrets are kept from the agent by every executor (docs/config.md: secrets): the
// command executor's environment and the anthropic executor's shell.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { shellEnvironment } from '../../src/executors/anthropic/tools/tool-runner.js';
import { agentEnvironment } from '../../src/executors/types.js';

beforeEach(() => {
  process.env.RALPH_TEST_SECRET_HOOK = 'https://hooks.example/secret';
  process.env.RALPH_TEST_KEPT = 'kept';
});
afterEach(() => {
  delete process.env.RALPH_TEST_SECRET_HOOK;
  delete process.env.RALPH_TEST_KEPT;
});

it('agentEnvironment: ralph env plus the run env, minus hideEnv', () => {
  const env = agentEnvironment({ env: { RALPH_ITERATION: '2' }, hideEnv: ['RALPH_TEST_SECRET_HOOK'] });
  expect(env.RALPH_TEST_SECRET_HOOK).toBeUndefined();
  expect(env.RALPH_TEST_KEPT).toBe('kept');
  expect(env.RALPH_ITERATION).toBe('2');
  expect(agentEnvironment({ env: {} }).RALPH_TEST_SECRET_HOOK).toBe('https://hooks.example/secret');
});

it("the anthropic executor's shell gets neither the key nor the hidden variables", () => {
  const env = shellEnvironment({ RALPH_ITERATION: '1' }, 'sk-test-key', ['RALPH_TEST_SECRET_HOOK']);
  expect(env.RALPH_TEST_SECRET_HOOK).toBeUndefined();
  expect(env.RALPH_TEST_KEPT).toBe('kept');
});
