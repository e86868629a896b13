export { AGENT_PRESETS, type AgentPreset, type AgentSpec } from './presets.js';
export { resolveAgent, type ResolvedAgent } from './resolve-agent.js';
