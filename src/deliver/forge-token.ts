// The token ralph talks to GitHub with: GITHUB_TOKEN (or GH_TOKEN, as gh reads it), else what
// `gh auth token` prints for the host. It is never written anywhere and never given to the agent
// (docs/deliver.md "The token").
import { execFile } from 'node:child_process';

export interface TokenSource {
  token: string;
  from: string;
}

function ghToken(host: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('gh', ['auth', 'token', '--hostname', host], { timeout: 10_000, env: { ...process.env, GH_PROMPT_DISABLED: '1' } }, (error, stdout) => {
      const token = stdout.trim();
      resolve(error || token === '' ? null : token);
    });
  });
}

export async function findToken(env: NodeJS.ProcessEnv, host: string, gh: (host: string) => Promise<string | null> = ghToken): Promise<TokenSource | null> {
  for (const name of ['GITHUB_TOKEN', 'GH_TOKEN'] as const) {
    const value = env[name]?.trim();
    if (value) return { token: value, from: name };
  }
  const token = await gh(host);
  return token ? { token, from: 'gh auth token' } : null;
}
