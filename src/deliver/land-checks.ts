// One branch's checks on the integrated tree (docs/deliver.md#landing): its plan's verify commands,
// then the land checks, each as a verify command is run (sh -c, a time limit, nothing left
// running), in the sandbox where there is one (docs/deliver.md#checks-in-the-sandbox). The first
// that fails or times out is the reason the branch is not landed.
import { runVerifyCommand } from '../loop/verify-commands.js';
import type { RunSandbox } from '../sandbox/index.js';
import { openForChecks, recordOf, refusalWords, type CheckSandboxChoice, type CheckSandboxRecord } from './land-sandbox.js';
import type { CheckRecord } from './land-state.js';

export interface ChecksToRun {
  id: string;
  tree: string;
  commands: { kind: CheckRecord['kind']; command: string }[];
  sandbox: CheckSandboxChoice;
  env: NodeJS.ProcessEnv;
  home: string;
  timeoutMs: number;
  signal: AbortSignal;
  say: (line: string) => void;
}

export interface ChecksOutcome {
  checks: CheckRecord[];
  /** Why the branch is not landed; null when every check passed. */
  failed: string | null;
  /** Stopped by the signal: the branch is neither landed nor unlanded. */
  interrupted: boolean;
  /** How the checks were sandboxed, and what was refused (absent when there were none to run). */
  sandbox?: CheckSandboxRecord;
}

/** The repository's git folder is read-only to a sandboxed check: git status then skips its index refresh instead of being refused it. */
const SANDBOXED_CHECK_ENV = { GIT_OPTIONAL_LOCKS: '0' };

export async function checkIntegratedTree(o: ChecksToRun): Promise<ChecksOutcome> {
  const checks: CheckRecord[] = [];
  if (o.commands.length === 0) return { checks, failed: null, interrupted: false };
  let box: RunSandbox | undefined;
  try {
    box = await openForChecks(o.sandbox, o.tree, o.env, (r) => o.say(`${o.id}: warning: sandbox refused ${refusalWords(r, o.home)} by a check`));
  } catch (error) {
    return { checks, failed: `its checks could not start in the sandbox: ${(error as Error).message}`, interrupted: false, sandbox: recordOf(o.sandbox, undefined) };
  }
  let failed: string | null = null;
  let interrupted = false;
  let sandbox: CheckSandboxRecord;
  try {
    for (const c of o.commands) {
      o.say(`${o.id}: ${c.kind} check: ${c.command}`);
      const r = await runVerifyCommand(c.command, o.tree, { timeoutMs: o.timeoutMs, signal: o.signal, ...(box ? { sandbox: box.forVerify(), env: SANDBOXED_CHECK_ENV } : {}) });
      if (r.aborted) {
        interrupted = true;
        break;
      }
      checks.push({ kind: c.kind, command: c.command, exitCode: r.exitCode, timedOut: r.timedOut, durationMs: r.durationMs, tail: r.tail });
      if (r.exitCode !== 0 || r.timedOut) {
        failed = `${c.kind === 'verify' ? "the plan's verify command" : 'the land check'} \`${c.command}\` ${r.timedOut ? `timed out after ${Math.round(o.timeoutMs / 1000)}s` : `exited ${r.exitCode ?? 'without a code'}`} on the integrated tree`;
        break;
      }
    }
  } finally {
    await box?.close();
    sandbox = recordOf(o.sandbox, box);
  }
  // A refusal does not fail a check by itself (the exit code decides); where one failed, it may be why.
  if (failed !== null && sandbox.denied > 0) {
    failed += `; the sandbox refused ${sandbox.refusals.slice(0, 3).map((r) => refusalWords(r, o.home)).join(', ')}${sandbox.refusals.length > 3 ? ', …' : ''}`;
  }
  return { checks, failed, interrupted, sandbox };
}
