// A plan id names files and branches (`<out>/<id>.md.partial`, `ralph/<batch>/<id>`), so it is
// checked with the other plan checks (docs/hostile.md "Plan ids"): short enough for a file name,
// printable, no path separators, no byte that was not UTF-8.
import { MAX_PLAN_ID_BYTES } from '../contract.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const ALLOWED = /^[\p{L}\p{N}][\p{L}\p{N}._+@-]*$/u;

/** Why `id` cannot be a plan id, or undefined when it can. */
export function planIdProblem(id: string): string | undefined {
  if (id.includes('\uFFFD')) return `contains a byte that is not valid UTF-8; use letters, digits, ".", "_", "-"`;
  if (CONTROL.test(id)) return `contains a control character (NUL, a line break, …); use letters, digits, ".", "_", "-"`;
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > MAX_PLAN_ID_BYTES) return `is ${bytes} bytes long; at most ${MAX_PLAN_ID_BYTES} (it names the batch's result file)`;
  const shown = JSON.stringify(id.length > 40 ? `${id.slice(0, 37)}...` : id);
  if (!ALLOWED.test(id)) {
    return `${shown} may hold only letters, digits, ".", "_", "+", "@" and "-", and must start with a letter or digit (it names files)`;
  }
  // What the characters above still allow and git refuses in a branch name (git check-ref-format);
  // a batch names a branch by the id.
  if (id.includes('..') || id.endsWith('.') || id.endsWith('.lock')) {
    return `${shown} cannot name a git branch (no "..", and no "." or ".lock" at the end): it names the batch branch ralph/<batch>/<id>`;
  }
  return undefined;
}
