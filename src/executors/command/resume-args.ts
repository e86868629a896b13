// Continuing the previous session (fresh=false) is a matter of arguments, and each agent CLI spells
// it its own way. The prompt always travels on stdin, so no positional prompt is in the way.
//
// - claude-json, qwen-json, cursor-json: `… --resume <session_id>` (appended).
// - codex-json: `codex exec [flags] resume <thread_id> [-]`: `resume` is a subcommand of `exec`;
//   exec's flags (--json, --sandbox, -m …) stay before it and apply to the resumed session. A
//   trailing `-` (read the prompt from stdin) stays last, after the thread id; with no prompt
//   argument codex reads stdin as well.
// - gemini-json: `gemini … --resume <session_id>`.
// - opencode-json: `opencode run … --session <session_id>`.
// - text, amp-json: no session ralph can name; every iteration starts a new one.
//
// A command that already chooses a session itself (its resume/continue/session flags, codex's
// `resume`) is left as the user wrote it.
import type { StreamFormat } from '../../loop/types.js';

const CLAUDE_SESSION_FLAGS = ['--resume', '-r', '--continue', '-c', '--session-id'];
const GEMINI_SESSION_FLAGS = ['--resume', '-r'];
const OPENCODE_SESSION_FLAGS = ['--session', '-s', '--continue', '-c'];

function hasFlag(args: readonly string[], flags: readonly string[]): boolean {
  return args.some((arg) => flags.some((flag) => arg === flag || arg.startsWith(`${flag}=`)));
}

/** Whether ralph can continue a session of this format (and so whether a session id matters). */
export function canResume(format: StreamFormat): boolean {
  return format !== 'text' && format !== 'amp-json';
}

/** The arguments to pass after the program, given the session to continue (if any). */
export function argsForRun(format: StreamFormat, args: readonly string[], resumeSession: string | undefined): string[] {
  if (resumeSession === undefined || resumeSession === '') return [...args];
  switch (format) {
    case 'text':
    case 'amp-json':
      return [...args];
    case 'claude-json':
    case 'qwen-json':
    case 'cursor-json':
      return hasFlag(args, CLAUDE_SESSION_FLAGS) ? [...args] : [...args, '--resume', resumeSession];
    case 'gemini-json':
      return hasFlag(args, GEMINI_SESSION_FLAGS) ? [...args] : [...args, '--resume', resumeSession];
    case 'opencode-json':
      return hasFlag(args, OPENCODE_SESSION_FLAGS) ? [...args] : [...args, '--session', resumeSession];
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

/**
 * Arguments that hand the agent what is left of the run's budget, for CLIs that accept one
 * (Claude Code: --max-budget-usd). None when the command already sets it.
 */
export function budgetArgs(format: StreamFormat, args: readonly string[], budgetUsd: number | undefined): string[] {
  if (budgetUsd === undefined || !(budgetUsd > 0)) return [];
  if (format !== 'claude-json' || hasFlag(args, ['--max-budget-usd'])) return [];
  return ['--max-budget-usd', budgetUsd.toFixed(4)];
}

/**
 * What agent CLIs say when the session ralph asked them to resume does not exist (it was never
 * saved, or was removed): Gemini CLI "Error resuming session: No previous sessions found for this
 * project." (exit 42), Claude Code "No conversation found with session ID: …", and the same in
 * other words ("session not found", "thread … not found").
 */
const RESUME_REFUSED =
  /\bError resuming session\b|\bno previous sessions? found\b|\bno conversation found with session id\b|\b(?:session|thread|conversation)(?: (?:id )?[\w.:-]+)? not found\b|\bno (?:such|saved) (?:session|thread|conversation)\b/i;

export function isResumeRefusal(text: string): boolean {
  return RESUME_REFUSED.test(text);
}
