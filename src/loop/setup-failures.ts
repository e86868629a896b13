// Failures that point at the setup rather than the work (docs/agents.md, "Why an agent failed"):
// the agent exits non-zero quickly, before saying or doing anything, the same way each time.
import type { IterationResult } from './iteration.js';

/** Failures in a row that make a setup problem when they are quick, identical, and before any output. */
export const SETUP_FAILURES = 3;
const QUICK_FAILURE_MS = 60_000;

export class SetupFailures {
  private signature: string | undefined;
  private count = 0;

  /** Records one failed iteration; true when the last SETUP_FAILURES were quick and identical. */
  note(result: IterationResult): boolean {
    const quick = !result.agentActive && result.durationMs < QUICK_FAILURE_MS;
    const signature = `${result.exitCode}|${result.exitError ?? ''}|${result.failureDetail ?? ''}`;
    if (!quick) {
      this.reset();
      return false;
    }
    this.count = signature === this.signature ? this.count + 1 : 1;
    this.signature = signature;
    return this.count >= SETUP_FAILURES;
  }

  reset(): void {
    this.signature = undefined;
    this.count = 0;
  }
}
