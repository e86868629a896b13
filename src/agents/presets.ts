// What each agent CLI needs to run unattended under ralph: its command line and the stream
// format ralph reads it with (docs/agents.md). The one place that knows such things as Claude
// Code needing stream-json with --verbose, or Codex needing `exec --json`.
import type { StreamFormat } from '../loop/types.js';

/** How to start one agent: the program and its arguments, and how its output is read. */
export interface AgentSpec {
  command: string[];
  streamFormat: StreamFormat;
  /** The npm package that installs the CLI, for the message when it is not installed. */
  npm?: string;
}

export const AGENT_PRESETS: Readonly<Record<string, AgentSpec>> = Object.freeze({
  // Claude Code, print mode, stream-json events
  claude: {
    command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'],
    streamFormat: 'claude-json',
    npm: '@anthropic-ai/claude-code',
  },
  // Codex CLI, exec mode, JSON events, workspace-write sandbox
  codex: {
    command: ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--skip-git-repo-check'],
    streamFormat: 'codex-json',
    npm: '@openai/codex',
  },
  // Gemini CLI, headless, stream-json events, tools approved (--yolo)
  gemini: {
    command: ['gemini', '--output-format', 'stream-json', '--yolo', '--skip-trust'],
    streamFormat: 'gemini-json',
    npm: '@google/gemini-cli',
  },
  // opencode run, JSON events, permissions approved (--auto)
  opencode: {
    command: ['opencode', 'run', '--format', 'json', '--auto'],
    streamFormat: 'opencode-json',
    npm: 'opencode-ai',
  },
  // Qwen Code, headless, stream-json events (Claude Code shapes), tools approved (--yolo)
  qwen: {
    command: ['qwen', '--output-format', 'stream-json', '--yolo'],
    streamFormat: 'qwen-json',
    npm: '@qwen-code/qwen-code',
  },
  // Amp, execute mode, Claude Code-compatible stream JSON, all tools allowed
  amp: {
    command: ['amp', '--execute', '--stream-json', '--dangerously-allow-all'],
    streamFormat: 'amp-json',
    npm: '@sourcegraph/amp',
  },
});
