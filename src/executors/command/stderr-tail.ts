// The last lines a program wrote to stderr, to say why it failed (docs/agents.md, "Why an agent
// failed"). Only the last few KiB are kept, whatever the program writes.
import { OutputTail } from '../../util/output-tail.js';

const KEEP_BYTES = 4096;
const MAX_LINES = 5;

export class StderrTail {
  private readonly tail = new OutputTail(KEEP_BYTES);

  readonly push = this.tail.push;

  /** The last non-empty lines, without terminal escapes; undefined when there were none. */
  lines(): string | undefined {
    const text = this.tail
      .text()
      // eslint-disable-next-line no-control-regex
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
      // eslint-disable-next-line no-control-regex
      .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
    const lines = text
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => l.trim() !== '');
    if (lines.length === 0) return undefined;
    return lines.slice(-MAX_LINES).join('\n').slice(-1000);
  }
}
