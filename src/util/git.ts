// git for batches and the queue: one promise-returning call with a bound on its time, git never
// prompting for a password (an overnight run, or a worker, has nobody to answer), messages in
// English (callers read them), and errors that carry git's own words; tryGit for questions whose
// "no" git reports as an error. The loop's few questions, which want null rather than an error,
// are in src/loop/git.ts.
import { execFile } from 'node:child_process';

export interface GitOptions {
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Output as git wrote it: `--porcelain` lines start with a space that trimming would take. */
  untrimmed?: boolean;
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
    readonly stdout: string,
    message: string,
  ) {
    super(message);
  }
}

/** git's answer, or null where git fails: for questions whose "no" git reports as an error. */
export async function tryGit(cwd: string, args: string[]): Promise<string | null> {
  try {
    return await git(cwd, args);
  } catch {
    return null;
  }
}

export function git(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd,
        timeout: options.timeoutMs ?? 0,
        killSignal: 'SIGKILL',
        maxBuffer: 64 * 1024 * 1024,
        env: { ...(options.env ?? process.env), GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', SSH_ASKPASS: 'true', LC_ALL: 'C' },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(options.untrimmed ? stdout : stdout.trim());
        const e = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
        const words = stderr.trim().split('\n').filter((l) => l.trim() !== '').slice(-3).join(' / ');
        const why = e.killed && options.timeoutMs ? `no answer within ${Math.round(options.timeoutMs / 1000)}s` : words || e.message;
        reject(new GitError(args, stderr, stdout, `git ${args[0]} failed: ${why}`));
      },
    );
  });
}
