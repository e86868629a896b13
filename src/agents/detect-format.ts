// Choosing the stream format from the command itself when that is unambiguous (docs/agents.md):
// `claude -p --output-format stream-json` can only be read as claude-json, `codex exec --json` as
// codex-json, and so on. Anything else stays text unless the user says otherwise.
import { basename } from 'node:path';
import type { StreamFormat } from '../loop/types.js';

/** The value of `--flag value` or `--flag=value` among the arguments (the last one given). */
function flagValue(args: readonly string[], names: readonly string[]): string | undefined {
  let value: string | undefined;
  args.forEach((arg, i) => {
    for (const name of names) {
      if (arg === name && i + 1 < args.length) value = args[i + 1];
      else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
    }
  });
  return value;
}

export function formatFromCommand(command: readonly string[] | undefined): StreamFormat | undefined {
  if (!command || command.length === 0) return undefined;
  const program = basename(command[0] ?? '').replace(/\.(?:cmd|exe|js|mjs)$/i, '');
  const args = command.slice(1);
  const outputFormat = flagValue(args, ['--output-format', '-o']);
  switch (program) {
    case 'claude':
      return flagValue(args, ['--output-format']) === 'stream-json' ? 'claude-json' : undefined;
    case 'codex':
      return args.includes('exec') && (args.includes('--json') || args.includes('--experimental-json')) ? 'codex-json' : undefined;
    case 'gemini':
      return outputFormat === 'stream-json' ? 'gemini-json' : undefined;
    case 'qwen':
      return outputFormat === 'stream-json' ? 'qwen-json' : undefined;
    case 'opencode':
      return args.includes('run') && flagValue(args, ['--format']) === 'json' ? 'opencode-json' : undefined;
    case 'cursor-agent':
      return flagValue(args, ['--output-format']) === 'stream-json' ? 'cursor-json' : undefined;
    case 'amp':
      return args.includes('--stream-json') ? 'amp-json' : undefined;
    default:
      return undefined;
  }
}
