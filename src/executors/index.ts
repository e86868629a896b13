// Builds the executor a run asked for. The anthropic SDK is loaded only when it is used.
import type { RunConfig } from '../loop/run-config.js';
import type { Executor } from './types.js';
import type { CommandSandbox } from '../sandbox/types.js';
import { credential } from '../util/credentials.js';

/** `sandbox`: where the agent runs sandboxed (docs/sandbox.md), what wraps its command. */
export async function createExecutor(config: RunConfig, env: NodeJS.ProcessEnv, sandbox?: CommandSandbox): Promise<Executor> {
  switch (config.executor) {
    case 'command': {
      const { createCommandExecutor } = await import('./command/index.js');
      return createCommandExecutor({ command: config.command!, streamFormat: config.streamFormat, ...(sandbox ? { sandbox } : {}) });
    }
    case 'anthropic': {
      const { createAnthropicExecutor } = await import('./anthropic/index.js');
      return createAnthropicExecutor({
        ...(sandbox ? { sandbox } : {}),
        apiKey: credential(env, 'ANTHROPIC_API_KEY')!,
        ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
        ...(config.model !== undefined ? { model: config.model } : {}),
        ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
      });
    }
    default: {
      const never: never = config.executor;
      throw new Error(`unknown executor ${String(never)}`);
    }
  }
}

export type { Executor } from './types.js';
