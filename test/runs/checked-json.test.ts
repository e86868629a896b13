import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listOf, readChecked, shapeProblem, type Shape } from '../../src/runs/checked-json.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-checked-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHAPE: Shape = { run: ['string'], costUsd: ['number', 'null'], note: ['string', 'undefined'], tokens: { input: ['number'] }, tasks: listOf({ name: ['string'] }) };

describe('run files are checked before they are believed (docs/hostile.md)', () => {
  it('names the first field of the wrong type, nested ones by their path', () => {
    expect(shapeProblem({ run: 'r', costUsd: null, tokens: { input: 1 } }, SHAPE)).toBeUndefined();
    expect(shapeProblem({ run: 'r', costUsd: '12', tokens: { input: 1 } }, SHAPE)).toBe('costUsd is a string, expected a number or null');
    expect(shapeProblem({ run: 'r', costUsd: 1, note: 5, tokens: { input: 1 } }, SHAPE)).toBe('note is a number, expected a string or missing');
    expect(shapeProblem({ run: 'r', costUsd: 1, tokens: { input: [] } }, SHAPE)).toBe('tokens.input is an array, expected a number');
    expect(shapeProblem({ run: 'r', costUsd: 1 }, SHAPE)).toBeUndefined();
    expect(shapeProblem({ run: 'r', costUsd: 1, tokens: 3 }, SHAPE)).toBe('tokens is a number, not an object');
    expect(shapeProblem([1], SHAPE)).toBe('it is an array, not an object');
    expect(shapeProblem({ run: 'r', costUsd: 1, tasks: [{ name: 'a' }, { name: 2 }] }, SHAPE)).toBe('tasks[1].name is a number, expected a string');
    expect(shapeProblem({ run: 'r', costUsd: 1, tasks: 'all' }, SHAPE)).toBe('tasks is a string, expected a list');
  });

  it('a file: absent, not JSON, a FIFO, or the value', () => {
    expect(readChecked(join(dir, 'none.json'), SHAPE, 1000)).toEqual({ absent: true });
    writeFileSync(join(dir, 'torn.json'), '{"run": "r", "cost');
    expect(readChecked(join(dir, 'torn.json'), SHAPE, 1000)).toEqual({ problem: 'torn.json: not valid JSON' });
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    expect(readChecked(join(dir, 'fifo.json'), SHAPE, 1000)).toEqual({ problem: 'fifo.json: is not a regular file (it is a FIFO (named pipe), or a pipe such as <(…))' });
    writeFileSync(join(dir, 'ok.json'), JSON.stringify({ run: 'r', costUsd: null, tokens: { input: 2 } }));
    expect(readChecked(join(dir, 'ok.json'), SHAPE, 1000)).toEqual({ value: { run: 'r', costUsd: null, tokens: { input: 2 } } });
  });
});
