// What each agent CLI needs to run unattended under ralph: its command line and the stream
// format ralph reads it with (docs/agents.md). The one place that knows such things as Claude
// Code needing stream-json with --verbose, or Codex needing `exec --json`.
import type { StreamFormat } from '../loop/types.js';

/** How to start one agent: the program and its arguments, and how its output is read. */
export interface AgentSpec {
  command: string[];
  streamFormat: StreamFormat;
}

export interface AgentPreset extends AgentSpec {
  /** What the preset runs, in one line (not yet shown anywhere: --help lists the names). */
  description: string;
}

export const AGENT_PRESETS: Readonly<Record<string, AgentPreset>> = Object.freeze({
  claude: {
    description: 'Claude Code, print mode, stream-json events',
    command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'],
    streamFormat: 'claude-json',
  },
  codex: {
    description: 'Codex CLI, exec mode, JSON events, workspace-write sandbox',
    command: ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--skip-git-repo-check'],
    streamFormat: 'codex-json',
  },
  gemini: {
    description: 'Gemini CLI, headless, stream-json events, tools approved (--yolo)',
    command: ['gemini', '--output-format', 'stream-json', '--yolo', '--skip-trust'],
    streamFormat: 'gemini-json',
  },
  opencode: {
    description: 'opencode run, JSON events, permissions approved (--auto)',
    command: ['opencode', 'run', '--format', 'json', '--auto'],
    streamFormat: 'opencode-json',
  },
  qwen: {
    description: 'Qwen Code, headless, stream-json events (Claude Code shapes), tools approved (--yolo)',
    command: ['qwen', '--output-format', 'stream-json', '--yolo'],
    streamFormat: 'qwen-json',
  },
  amp: {
    description: 'Amp, execute mode, Claude Code-compatible stream JSON, all tools allowed',
    command: ['amp', '--execute', '--stream-json', '--dangerously-allow-all'],
    streamFormat: 'amp-json',
  },
});
