// Continuing the previous session (fresh=false) is a matter of arguments, and each agent CLI spells
// it its own way. The prompt always travels on stdin, so no positional prompt is in the way.
//
// - claude-json: `claude -p … --resume <session_id>` (appended).
// - codex-json: `codex exec [flags] resume <thread_id> [-]`: `resume` is a subcommand of `exec`;
//   exec's flags (--json, --full-auto, -m …) stay before it and apply to the resumed session. A
//   trailing `-` (read the prompt from stdin) stays last, after the thread id; with no prompt
//   argument codex reads stdin as well.
// - text: an arbitrary program; there is no session to continue.
//
// A command that already chooses a session itself (claude's --resume/--continue/--session-id,
// codex's `resume`) is left as the user wrote it.
import type { StreamFormat } from '../../loop/types.js';

const CLAUDE_SESSION_FLAGS = ['--resume', '-r', '--continue', '-c', '--session-id'];

function hasFlag(args: readonly string[], flags: readonly string[]): boolean {
  return args.some((arg) => flags.some((flag) => arg === flag || arg.startsWith(`${flag}=`)));
}

/** The arguments to pass after the program, given the session to continue (if any). */
export function argsForRun(format: StreamFormat, args: readonly string[], resumeSession: string | undefined): string[] {
  if (resumeSession === undefined || resumeSession === '') return [...args];
  switch (format) {
    case 'text':
      return [...args];
    case 'claude-json':
      return hasFlag(args, CLAUDE_SESSION_FLAGS) ? [...args] : [...args, '--resume', resumeSession];
    case 'codex-json': {
      if (args.includes('resume')) return [...args];
      const stdinMarker = args.length > 0 && args[args.length - 1] === '-';
      const head = stdinMarker ? args.slice(0, -1) : [...args];
      return [...head, 'resume', resumeSession, ...(stdinMarker ? ['-'] : [])];
    }
    default: {
      const unknown: never = format;
      throw new Error(`unknown stream format: ${String(unknown)}`);
    }
  }
}
