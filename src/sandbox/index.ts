// The sandbox (docs/sandbox.md): the policy of what an agent and the plan's verify commands may
// write, read and reach, and wrapping a command with @anthropic-ai/sandbox-runtime.
export { agentNeeds, agentHosts, type AgentNeeds } from './agent-needs.js';
export { sandboxAvailability, unavailableMessage, type Availability } from './availability.js';
export { decideSandbox, homeOf, needsOf, openRunSandbox, policyOf, type SandboxDecision, type SandboxFacts } from './open.js';
export { buildPolicy, expandPath, SECRET_PATHS, type SandboxPolicy } from './policy.js';
export { feedbackFor, shortPath, type RefusalCount, type RefusalKind } from './refusals.js';
export { RunSandbox, type DeniedReport, type RefusalBy } from './run-sandbox.js';
export { describeMode, readSandboxValue, SANDBOX_KEYS, SANDBOX_MODES, sandboxFromEnv, sandboxSettings, type SandboxLayer, type SandboxMode, type SandboxSettings } from './settings.js';
export type { CommandSandbox, SandboxedSpawn } from './types.js';
export { checkPolicyOf, openCheckSandbox, type CheckSandboxFacts } from './check-sandbox.js';
