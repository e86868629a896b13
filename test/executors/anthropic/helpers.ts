// Shared pieces of the anthropic executor tests: a prompt, a scratch working directory, and a way
// to run one iteration and keep every event it emitted.
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutorEvent, ExecutorRunOptions, Prompt } from '../../../src/executors/types.js';
import type { AnthropicExecutor } from '../../../src/executors/anthropic/index.js';

export const FAKE_KEY = 'sk-ant-test-SECRET123';

export function makePrompt(message = 'Start with the first task.'): Prompt {
  const instructions = 'You are run by ralph. End with a signal line.';
  const plan = '# Plan\n<tasks><task><name>one</name></task></tasks>';
  return { instructions, plan, message, text: `${instructions}\n\n${plan}\n\n${message}` };
}

export async function scratchDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-anthropic-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function collect(
  executor: AnthropicExecutor,
  options: Partial<ExecutorRunOptions> & { cwd: string },
): Promise<ExecutorEvent[]> {
  const events: ExecutorEvent[] = [];
  for await (const e of executor.run({
    prompt: makePrompt(),
    fresh: true,
    iteration: 1,
    env: {},
    signal: new AbortController().signal,
    ...options,
  })) {
    events.push(e);
  }
  return events;
}

export function textOf(events: ExecutorEvent[]): string {
  return events
    .filter((e): e is Extract<ExecutorEvent, { type: 'text' }> => e.type === 'text')
    .map((e) => e.chunk.toString())
    .join('');
}

export function ofType<T extends ExecutorEvent['type']>(events: ExecutorEvent[], type: T): Extract<ExecutorEvent, { type: T }>[] {
  return events.filter((e): e is Extract<ExecutorEvent, { type: T }> => e.type === type);
}

/**
 * Whether a process (or, with a negative id, any process of a group) is still running. A zombie
 * (killed, waiting for init to reap it) is not running: init may take a while to reap it.
 */
export function alive(pid: number): boolean {
  if (pid < 0) {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .some((d) => {
        const stat = procStat(Number(d));
        return stat !== null && stat.pgrp === -pid && stat.state !== 'Z';
      });
  }
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z';
}

function procStat(pid: number): { state: string; pgrp: number } | null {
  try {
    // "pid (comm) state ppid pgrp ..."; comm may hold spaces, so split after its closing paren.
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, pgrp: Number(fields[2]) };
  } catch {
    return null;
  }
}
