export { AGENT_PRESETS, type AgentSpec } from './presets.js';
export { resolveAgent, type ResolvedAgent } from './resolve-agent.js';
export { formatFromCommand } from './detect-format.js';
