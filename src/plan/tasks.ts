// The plan body's elements: one <tasks> holding <task> elements, each with a non-empty <name>
// and optional <files>, <action>, <verify>, <done>; and an optional <verification>.
import { cleanText, findTags, lineIndex, maskCode, type Tag } from './markup.js';
import type { PlanTask } from './types.js';

export interface BodyIssue {
  line?: number;
  message: string;
}

export interface BodyResult {
  tasks: PlanTask[];
  verification?: string;
  problems: BodyIssue[];
  warnings: string[];
}

const CHILDREN = ['name', 'files', 'action', 'verify', 'done'] as const;
type Child = (typeof CHILDREN)[number];
const NAMES: ReadonlySet<string> = new Set(['tasks', 'task', 'verification', ...CHILDREN]);
const isChild = (name: string): name is Child => (CHILDREN as readonly string[]).includes(name);

/** Index of the first tag at or after `from` that matches, or -1 (linear from `from`, not from 0). */
function indexFrom(tags: Tag[], from: number, match: (t: Tag) => boolean): number {
  for (let i = from; i < tags.length; i++) if (match(tags[i]!)) return i;
  return -1;
}

const TASK_SHAPE = '<task><name>…</name><action>…</action></task>';

/** `body` is the plan after its front matter; `bodyLine` the file line where it starts. */
export function parseBody(body: string, bodyLine: number): BodyResult {
  const lineOf = lineIndex(body, bodyLine);
  const tags = findTags(maskCode(body), NAMES);
  const result: BodyResult = { tasks: [], problems: [], warnings: [] };
  const problem = (message: string, at?: Tag): void => {
    result.problems.push(at ? { line: lineOf(at.start), message } : { message });
  };

  readVerification(body, tags, result, problem);

  const openIndex = tags.findIndex((t) => t.name === 'tasks' && !t.close);
  if (openIndex === -1) {
    const stray = tags.find((t) => t.name === 'task' && !t.close);
    problem(
      stray
        ? `<task> on line ${lineOf(stray.start)} is outside any <tasks> element; wrap the tasks in <tasks>…</tasks>`
        : `no <tasks> element; list the work as <tasks>${TASK_SHAPE}</tasks>`,
    );
    return result;
  }
  const open = tags[openIndex]!;
  let closeIndex = indexFrom(tags, openIndex + 1, (t) => t.name === 'tasks');
  if (closeIndex !== -1 && !tags[closeIndex]!.close) {
    problem(`<tasks> opened on line ${lineOf(open.start)} is not closed before this second <tasks>; add </tasks> and keep every task in one <tasks>`, tags[closeIndex]);
    closeIndex = -1;
  } else if (closeIndex === -1) {
    problem(`<tasks> is never closed; add </tasks> after the last </task>`, open);
  } else {
    const again = tags[indexFrom(tags, closeIndex + 1, (t) => t.name === 'tasks' && !t.close)];
    if (again) problem(`a second <tasks> element (the first is on line ${lineOf(open.start)}); keep every task in one <tasks>`, again);
  }

  const inner = tags.slice(openIndex + 1, closeIndex === -1 ? undefined : closeIndex).filter((t) => t.name !== 'tasks');
  readTasks(body, inner, lineOf, result, problem);
  if (result.tasks.length === 0 && !inner.some((t) => t.name === 'task')) problem(`<tasks> holds no <task>; add at least one ${TASK_SHAPE}`, open);

  const seen = new Map<string, number>();
  for (const task of result.tasks) {
    const first = seen.get(task.name);
    if (first !== undefined) result.warnings.push(`line ${task.line}: task name "${task.name}" is also used on line ${first}; summaries name tasks, so make names unique`);
    else seen.set(task.name, task.line);
  }
  return result;
}

function readVerification(body: string, tags: Tag[], result: BodyResult, problem: (m: string, at?: Tag) => void): void {
  const openIndex = tags.findIndex((t) => t.name === 'verification' && !t.close);
  if (openIndex === -1) return;
  const open = tags[openIndex]!;
  const close = tags[indexFrom(tags, openIndex + 1, (t) => t.name === 'verification')];
  if (!close || !close.close) {
    problem('<verification> is never closed; add </verification> after its last line', open);
    return;
  }
  result.verification = cleanText(body.slice(open.end, close.start));
}

function readTasks(
  body: string,
  inner: Tag[],
  lineOf: (offset: number) => number,
  result: BodyResult,
  problem: (m: string, at?: Tag) => void,
): void {
  let number = 0;
  let i = 0;
  while (i < inner.length) {
    const open = inner[i]!;
    if (open.name !== 'task' || open.close) {
      i++;
      continue;
    }
    number++;
    // A task ends at its </task>; one left open ends where the next task (or </tasks>) begins.
    const next = indexFrom(inner, i + 1, (t) => t.name === 'task');
    const closed = next !== -1 && inner[next]!.close;
    if (!closed) problem(`task ${number} is never closed; add </task> after its last element`, open);

    const children = inner.slice(i + 1, next === -1 ? undefined : next);
    const fields = readChildren(body, children, number, problem);
    const name = fields.name;
    if (name === undefined || name === '') {
      problem(
        name === undefined ? `task ${number} has no <name>; give every task a <name>…</name>` : `task ${number} has an empty <name>; write what the task is`,
        open,
      );
    } else {
      const task: PlanTask = { name, line: lineOf(open.start) };
      if (open.attrs.type !== undefined) task.type = open.attrs.type;
      for (const key of ['files', 'action', 'verify', 'done'] as const) if (fields[key] !== undefined) task[key] = fields[key];
      result.tasks.push(task);
    }
    i = next === -1 ? inner.length : closed ? next + 1 : next;
  }
}

/** The task's child elements, in order; text inside one child (even a tag) belongs to it. */
function readChildren(
  body: string,
  tags: Tag[],
  taskNumber: number,
  problem: (m: string, at?: Tag) => void,
): Partial<Record<Child, string>> {
  const fields: Partial<Record<Child, string>> = {};
  let i = 0;
  while (i < tags.length) {
    const open = tags[i]!;
    if (open.close || !isChild(open.name)) {
      i++;
      continue;
    }
    const closeIndex = indexFrom(tags, i + 1, (t) => t.name === open.name && t.close);
    if (closeIndex === -1) {
      problem(`<${open.name}> in task ${taskNumber} is never closed; add </${open.name}>`, open);
      i++;
      continue;
    }
    if (fields[open.name] === undefined) fields[open.name] = cleanText(body.slice(open.end, tags[closeIndex]!.start));
    i = closeIndex + 1;
  }
  return fields;
}
