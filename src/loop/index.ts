export { runPlan, type RunHooks } from './run-plan.js';
export type { ExecOptions, RunResult, SignalRecord, ExecutorName, StreamFormat } from './types.js';
export type { RunEvent } from './events.js';
export { RunBus } from './bus.js';
