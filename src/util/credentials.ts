// The Anthropic credentials ralph was started with are held in memory and taken out of its
// environment at start (docs/hostile.md "The API key"), so no process ralph starts inherits them
// by accident: not the anthropic executor's bash tool, not the verify commands. An agent CLI run
// by the command executor (claude -p) is given them back explicitly: it is the user's agent and
// may need them to log in.
export const CREDENTIAL_VARS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'] as const;
export type CredentialVar = (typeof CREDENTIAL_VARS)[number];

const held: Partial<Record<CredentialVar, string>> = {};

/** Moves the credentials out of `env` (process.env by default) into memory. */
export function holdCredentials(env: NodeJS.ProcessEnv = process.env): void {
  for (const name of CREDENTIAL_VARS) {
    const value = env[name];
    if (value !== undefined && value !== '') held[name] = value;
    delete env[name];
  }
}

/** `env`'s value, else the one held since start. */
export function credential(env: NodeJS.ProcessEnv, name: CredentialVar): string | undefined {
  return env[name] || held[name];
}

/** The held credentials, as environment variables for a program that is meant to have them. */
export function heldCredentials(): Record<string, string> {
  return { ...held } as Record<string, string>;
}
