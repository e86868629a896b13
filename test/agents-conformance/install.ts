// Pinned agent CLIs from npm, installed once into .cache/agents/<name>@<version> (npm install
// --prefix) and reused; the conformance suite puts their bin folder first on PATH.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CACHE_DIR = resolve(import.meta.dirname, '../../.cache/agents');

export interface AgentPackage {
  /** The name ralph knows it by (`--agent NAME`). */
  agent: string;
  npm: string;
  version: string;
  bin: string;
}

/** The versions the suite proves (docs/agents.md lists them as tested). */
export const PINNED: Record<string, AgentPackage> = {
  claude: { agent: 'claude', npm: '@anthropic-ai/claude-code', version: '2.1.197', bin: 'claude' },
  codex: { agent: 'codex', npm: '@openai/codex', version: '0.169.0', bin: 'codex' },
  gemini: { agent: 'gemini', npm: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
  qwen: { agent: 'qwen', npm: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen' },
  opencode: { agent: 'opencode', npm: 'opencode-ai', version: '1.18.33', bin: 'opencode' },
};

/** The folder holding the CLI's executable, installing the pinned version first if needed. */
export function ensureInstalled(pkg: AgentPackage): string {
  const prefix = join(CACHE_DIR, `${pkg.agent}@${pkg.version}`);
  const binDir = join(prefix, 'node_modules', '.bin');
  if (!existsSync(join(binDir, pkg.bin))) {
    execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${pkg.npm}@${pkg.version}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 10 * 60_000,
    });
  }
  return binDir;
}
