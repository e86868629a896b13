// One path for every error an agent reports (docs/agents.md, "One path for every reported error").
import { describe, expect, it } from 'vitest';
import { agentErrorEvents } from '../../../src/executors/command/agent-error.js';
import { isResumeRefusal } from '../../../src/executors/command/resume-args.js';

const now = Date.UTC(2026, 10, 26, 20);
const classify = (text: string, more: { status?: number; code?: string } = {}) => agentErrorEvents({ message: `agent: ${text}`, text, now, ...more });

describe('agentErrorEvents', () => {
  it('the spend cap is fatal at once, with what to do, whatever the status', () => {
    for (const status of [400, 429, undefined]) {
      const [event, ...rest] = classify('You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.', status === undefined ? {} : { status });
      expect(rest).toEqual([]);
      expect(event).toMatchObject({ type: 'error', fatal: true, message: expect.stringMatching(/raise the limit in the provider's console .* then resume the run$/) });
    }
  });

  it('a refused key is fatal by status, by code, or by words alone (Qwen Code, Codex, Gemini CLI)', () => {
    expect(classify('invalid x-api-key', { status: 401 })).toEqual([{ type: 'error', message: 'agent: invalid x-api-key', status: 401, fatal: true }]);
    expect(classify('bad credentials', { code: 'ProviderAuthError' })[0]).toMatchObject({ fatal: true });
    expect(classify('[API Error: 401 Incorrect API key provided: sk-***]')[0]).toMatchObject({ fatal: true });
    expect(classify('API key not valid. Please pass a valid API key.')[0]).toMatchObject({ fatal: true });
  });

  it('a limit is shown once, by its limit event: the status decides the kind, the words the time', () => {
    expect(classify('Too Many Requests', { status: 429 })).toEqual([
      { type: 'error', message: 'agent: Too Many Requests', status: 429, limit: true },
      { type: 'limit', kind: 'rate', message: 'agent: Too Many Requests' },
    ]);
    expect(classify('You exceeded your current quota, please check your plan and billing details.', { status: 429 })[1]).toMatchObject({ kind: 'usage' });
    expect(classify('Overloaded', { status: 529 })[1]).toMatchObject({ kind: 'overloaded' });
    expect(classify("You've hit your limit · resets 9pm (UTC)")[1]).toEqual({
      type: 'limit',
      kind: 'usage',
      message: "agent: You've hit your limit · resets 9pm (UTC)",
      resetsAt: Date.UTC(2026, 10, 26, 21),
      resetFromWords: true,
    });
  });

  it('anything else is an error, neither fatal nor a limit', () => {
    expect(classify('stream disconnected; retrying')).toEqual([{ type: 'error', message: 'agent: stream disconnected; retrying' }]);
  });
});

describe('isResumeRefusal', () => {
  it.each([
    'Error resuming session: No previous sessions found for this project.',
    'No conversation found with session ID: 4f1c2a9e-0000-4000-8000-000000000000',
    'Error: thread 01a21958-e110-7163-b8a9-0f8de21b5274 not found',
    'Session not found',
  ])('%s', (text) => expect(isResumeRefusal(text)).toBe(true));

  it('other failures are not', () => {
    expect(isResumeRefusal('Error: ENOENT: no such file or directory')).toBe(false);
    expect(isResumeRefusal('command not found')).toBe(false);
  });
});
