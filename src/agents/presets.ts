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
  name: string;
  /** One line for `--help` and the run's first line. */
  description: string;
}

export const AGENT_PRESETS: Readonly<Record<string, AgentPreset>> = Object.freeze({
  claude: {
    name: 'claude',
    description: 'Claude Code, print mode, stream-json events',
    command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'],
    streamFormat: 'claude-json',
  },
  codex: {
    name: 'codex',
    description: 'Codex CLI, exec mode, JSON events, workspace-write sandbox',
    command: ['codex', 'exec', '--json', '--sandbox', 'workspace-write', '--skip-git-repo-check'],
    streamFormat: 'codex-json',
  },
});
