// The `- [x] TASK_COMPLETE` completion claim (docs/signals.md#the-plans-checkbox): a checked list item, outside code fences.
import { TASK_COMPLETE_CHECKBOX } from '../contract.js';
import { linesWithFences } from './fences.js';

// Any indentation (nested list items), "-", "*" or "+" bullets, "x" or "X"; the name must stand
// alone as a word so "TASK_COMPLETED" or "TASK_COMPLETE_SOON" do not count.
const CHECKED = new RegExp(`^[ \\t]*[-*+][ \\t]+\\[[xX]\\][ \\t]+${TASK_COMPLETE_CHECKBOX}(?![\\w])`);

export function isTaskCompleteChecked(planText: string): boolean {
  for (const { line, fenced } of linesWithFences(planText)) {
    if (!fenced && CHECKED.test(line)) return true;
  }
  return false;
}
