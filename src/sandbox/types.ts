// What the command executor and the verify-command runner see of a sandbox: something that turns
// a command into one that runs sandboxed. They know nothing else of it.

export interface SandboxedSpawn {
  program: string;
  args: string[];
  /** Added to the command's environment. */
  env: Record<string, string>;
  /**
   * Call once the command has exited: the sandbox removes the empty files and folders it made in
   * the tree to mount over (paths it keeps from being created).
   */
  done(): void;
}

export interface CommandSandbox {
  /** A program and its arguments (run without a shell) as a sandboxed spawn. */
  wrapArgv(argv: readonly string[]): Promise<SandboxedSpawn>;
  /** A shell command (`sh -c`) as a sandboxed spawn. */
  wrapShell(command: string): Promise<SandboxedSpawn>;
  /** Output of a sandboxed command: refused reads are seen there (Linux reports only writes). */
  noticeOutput(chunk: Buffer | string): void;
}
