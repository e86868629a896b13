// The tamper guard (docs/plans.md#the-tamper-guard): the files the checks depend on are
// fingerprinted when a run starts, and a completion claim made after one of them changed or
// disappeared is rejected. An agent that rewrites the test to `exit 0` has not finished the work.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import type { Plan } from '../plan/index.js';
import type { CheckResult } from './checks.js';
import { SKIPPED_DIRS } from './work-fingerprint.js';

export interface Fingerprint {
  sha256: string;
  bytes: number;
  lines: number;
}

/** What is protected and why: kept in state.json so a resumed run guards the same files. */
export interface ProtectedFiles {
  /** The rules, as a person wrote them: `protect: test/**`, `<files> of "Task 2", named by its check`. */
  rules: string[];
  /** Relative path (with /) → its fingerprint at the start. */
  files: Record<string, Fingerprint>;
}

/** Folders never walked for a protect glob: not the project's checks. */
/** A protect glob that matches more than this is a mistake (protect: "**"), not a guard. */
const MAX_FILES = 5_000;
const MAX_BYTES = 64 * 1024 * 1024;

export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` is any number of folders, `**` at the end anything below.
        if (glob[i + 2] === '/') {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** The folder a glob's matches must be under (its part before the first wildcard). */
function staticPrefix(glob: string): string {
  const parts = glob.split('/');
  const fixed: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (/[*?]/.test(part)) break;
    fixed.push(part);
  }
  return fixed.join('/');
}

function walk(cwd: string, from: string, into: string[]): void {
  let entries;
  try {
    entries = readdirSync(join(cwd, from), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (into.length > MAX_FILES) return;
    const rel = from === '' ? e.name : `${from}/${e.name}`;
    if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) walk(cwd, rel, into);
    else if (e.isFile()) into.push(rel);
  }
}

export function matchGlob(cwd: string, glob: string): string[] {
  const re = globToRegExp(glob);
  const found: string[] = [];
  walk(cwd, staticPrefix(glob), found);
  return found.filter((f) => re.test(f));
}

export function fingerprint(path: string): Fingerprint | undefined {
  try {
    const info = statSync(path);
    if (!info.isFile() || info.size > MAX_BYTES) return undefined;
    const bytes = readFileSync(path);
    let lines = 0;
    for (const b of bytes) if (b === 10) lines++;
    if (bytes.length > 0 && bytes[bytes.length - 1] !== 10) lines++;
    return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, lines };
  } catch {
    return undefined;
  }
}

/** A task's <files>: paths separated by commas, spaces or lines, with any backticks taken off. */
export function listedFiles(files: string | undefined): string[] {
  if (files === undefined) return [];
  return files
    .split(/[\s,]+/)
    .map((f) => f.replace(/^`|`$/g, '').trim())
    .filter((f) => f !== '' && !f.startsWith('/') && !f.split('/').includes('..'));
}

/**
 * Fingerprints what the plan protects: every file matching a `protect` glob (plan, then config),
 * and every file a task lists in <files> that one of the plan's checks names (`node test/a.test.mjs`).
 */
export function fingerprintProtected(cwd: string, plan: Plan, extraGlobs: readonly string[] = []): ProtectedFiles {
  const out: ProtectedFiles = { rules: [], files: {} };
  const add = (rel: string) => {
    const print = fingerprint(join(cwd, rel));
    if (print) out.files[rel] = print;
  };
  for (const glob of [...(plan.config.protect ?? []), ...extraGlobs]) {
    out.rules.push(`protect: ${glob}`);
    for (const rel of matchGlob(cwd, glob)) add(rel);
  }
  const commands = [...plan.config.verify, ...plan.tasks.map((t) => t.verify ?? '')].join('\n');
  for (const task of plan.tasks) {
    const named = listedFiles(task.files)
      .map((f) => normalize(f).split(sep).join('/'))
      .filter((f) => commands.includes(f));
    for (const rel of named) {
      const print = fingerprint(join(cwd, rel));
      if (print === undefined) continue;
      out.rules.push(`${rel}: listed in the <files> of "${task.name}" and run by a check`);
      out.files[rel] = print;
    }
  }
  return out;
}

/** The protected files that changed or went away since the start; an empty list: none did. */
export function tampered(cwd: string, guarded: ProtectedFiles): string[] {
  const changes: string[] = [];
  for (const [rel, before] of Object.entries(guarded.files)) {
    const now = fingerprint(join(cwd, rel));
    if (now === undefined) changes.push(`${rel}: deleted (it had ${before.lines} line(s), ${before.bytes} bytes)`);
    else if (now.sha256 !== before.sha256) {
      const preview = readFileSync(join(cwd, rel), 'utf8').split('\n').slice(0, 3).join(' ⏎ ').slice(0, 160);
      changes.push(`${rel}: changed from ${before.lines} line(s), ${before.bytes} bytes to ${now.lines} line(s), ${now.bytes} bytes; it now begins: ${JSON.stringify(preview)}`);
    }
  }
  return changes;
}

export function tamperCheck(cwd: string, guarded: ProtectedFiles): CheckResult {
  const count = Object.keys(guarded.files).length;
  const changes = tampered(cwd, guarded);
  if (changes.length === 0) return { check: 'protected files', ok: true, reason: `${count} protected file(s) unchanged` };
  const rules = [...new Set(guarded.rules)].join('; ');
  return {
    check: 'protected files',
    ok: false,
    reason:
      `the files the checks depend on were changed, so the checks no longer prove anything: ${changes.join('; ')}. ` +
      `The rule: ${rules}. Restore them (e.g. git checkout -- <file>) and do the work in the code instead; ` +
      `a plan that really means to change them says allow_check_changes: true`,
    evidence: changes.join('\n'),
  };
}
