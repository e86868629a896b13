// The last bytes a child process wrote (stdout and stderr together), kept within a bound whatever
// it writes: hook and notification commands (src/notify/shell.ts) and verify commands
// (src/loop/verify-commands.ts) report it.
export class OutputTail {
  private buf = Buffer.alloc(0);

  constructor(private readonly bytes: number) {}

  /** Bound as a listener: `child.stdout.on('data', tail.push)`. */
  readonly push = (chunk: Buffer): void => {
    this.buf = Buffer.concat([this.buf, chunk]);
    if (this.buf.length > this.bytes) this.buf = this.buf.subarray(this.buf.length - this.bytes);
  };

  text(): string {
    return this.buf.toString('utf8');
  }
}
