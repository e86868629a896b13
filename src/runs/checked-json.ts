// A run's JSON files are within the agent's reach (docs/hostile.md "A corrupted .ralph"): read them
// as untrusted, as regular files only, bounded, and checked against the shape their readers rely
// on, so that a `"costUsd": "12"` is reported as what it is instead of breaking the view.
import { basename } from 'node:path';
import { readRegularFileSync } from '../util/read-regular-file.js';

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null' | 'undefined';

const ITEMS: unique symbol = Symbol('items');

/** A list of objects of one shape (or no list at all). */
export interface ListOf {
  readonly [ITEMS]: Shape;
}

export function listOf(shape: Shape): ListOf {
  return { [ITEMS]: shape };
}

/** For each field its allowed kinds, the shape of the object it holds when it holds one, or a list's. */
export interface Shape {
  [field: string]: readonly Kind[] | Shape | ListOf;
}

export type Checked<T> = { value: T } | { problem: string } | { absent: true };

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || t === 'undefined' ? t : 'object';
}

const article = (k: Kind) => (k === 'null' || k === 'undefined' ? (k === 'null' ? 'null' : 'missing') : `${k === 'array' || k === 'object' ? 'an' : 'a'} ${k}`);

/** What is wrong with `value` for `shape`, or undefined. */
export function shapeProblem(value: unknown, shape: Shape, at = ''): string | undefined {
  if (kindOf(value) !== 'object') return `${at ? at.slice(0, -1) : 'it'} is ${article(kindOf(value))}, not an object`;
  const object = value as Record<string, unknown>;
  for (const [field, want] of Object.entries(shape)) {
    const v = object[field];
    if (Array.isArray(want)) {
      if (!(want as readonly Kind[]).includes(kindOf(v))) return `${at}${field} is ${article(kindOf(v))}, expected ${(want as readonly Kind[]).map(article).join(' or ')}`;
    } else if (ITEMS in want) {
      if (v === undefined) continue;
      if (!Array.isArray(v)) return `${at}${field} is ${article(kindOf(v))}, expected a list`;
      for (const [i, item] of v.entries()) {
        const inner = shapeProblem(item, want[ITEMS], `${at}${field}[${i}].`);
        if (inner) return inner;
      }
    } else if (v !== undefined) {
      // A nested shape is of an optional object: absent, or of this shape.
      const inner = shapeProblem(v, want as Shape, `${at}${field}.`);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** A run file, checked: its value, why it cannot be used, or that it is not there. */
export function readChecked<T>(path: string, shape: Shape, maxBytes: number): Checked<T> {
  const name = basename(path);
  let text: string;
  try {
    text = readRegularFileSync(path, maxBytes).toString('utf8');
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return { absent: true };
    return { problem: `${name}: ${e.code === 'ENOTREG' || e.code === 'EFBIG' ? e.message.replace(`${path} `, '') : `cannot be read (${e.code ?? e.message})`}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `${name}: not valid JSON` };
  }
  const problem = shapeProblem(value, shape);
  return problem === undefined ? { value: value as T } : { problem: `${name}: ${problem}` };
}
