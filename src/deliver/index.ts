// The deliver folder's public surface (docs/deliver.md): the forge and its check before a night,
// pull requests for finished plans, and `ralph land`.
export { ForgeError, type Forge, type PullRequest } from './forge.js';
export { openForge, type OpenedForge, type ForgeSettings } from './open-forge.js';
export { deliverPlan, prBranch, type Delivery, type PlanToDeliver, type PrMode } from './deliver-plan.js';
export { prepareExecDelivery, execBranch, type ExecDelivery } from './deliver-exec.js';
export { runLand, type LandOptions, type LandOutcome } from './run-land.js';
export type { LandReport } from './land-report.js';
