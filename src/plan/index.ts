// The plan folder's public surface: reading plan.md, its sections and completion checkbox, and
// the summary file an agent writes when it is done.
export type { Plan, PlanConfig, PlanTask, TaskCheckMode } from './types.js';
export { TASK_CHECK_MODES } from './types.js';
export { parsePlan, loadPlan, MAX_PLAN_BYTES, NO_CHECK_WARNING } from './parse-plan.js';
export { planIdProblem } from './plan-id.js';
export { isTaskCompleteChecked } from './checkbox.js';
export { extractSection } from './sections.js';
export { summarySchema, checkSummary, MAX_SUMMARY_BYTES, type Summary } from './summary.js';
