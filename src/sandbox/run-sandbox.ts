// One run's sandbox: its policy, its lease on the process's sandbox session, and what it refused.
// Every refusal becomes a `sandbox_denied` event (the first time, and with its count when an
// iteration ends if it came again), a count in result.json, and a line in the next prompt.
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AgentNeeds } from './agent-needs.js';
import { mayWrite, type SandboxPolicy } from './policy.js';
import { feedbackFor, isRuntimeProbe, parseViolation, RefusalTally, type Refusal, type RefusalCount } from './refusals.js';
import { acquireSandbox, type Lease } from './runtime.js';
import { HiddenReadScanner } from './hidden-reads.js';
import { Decoys, withDecoys } from './decoys.js';
import type { CommandSandbox, SandboxedSpawn } from './types.js';

export type RefusalBy = 'agent' | 'verify';

export interface DeniedReport extends RefusalCount {
  by: RefusalBy;
}

export interface RunSandboxOptions {
  policy: SandboxPolicy;
  agent: AgentNeeds;
  home: string;
  /** The run's private temp folder (TMPDIR inside), removed when the run's sandbox closes. */
  tmp: string;
  /** Where the stand-ins for hidden secrets are made (removed when the sandbox closes). */
  decoyDir: string;
  /** Refusals of an earlier session of the same run (--resume), counted on. */
  seed?: readonly RefusalCount[];
  /** Called for the first refusal of each target, and again with the new count (flush). */
  onDenied: (report: DeniedReport) => void;
}

const SHELL = '/bin/bash';

export class RunSandbox {
  private readonly tally: RefusalTally;
  /** Refusals since the last prompt was built, for the next prompt. */
  private sincePrompt = new RefusalTally();
  /** Targets whose count grew since it was last reported. */
  private readonly grown = new Map<string, DeniedReport>();
  private readonly scanner: HiddenReadScanner;
  private readonly decoys: Decoys;

  private constructor(
    private readonly options: RunSandboxOptions,
    private readonly lease: Lease,
  ) {
    this.tally = new RefusalTally(options.seed);
    this.scanner = new HiddenReadScanner(options.policy.hidden, (r) => this.refused(r, 'agent'));
    this.decoys = new Decoys(options.policy.hidden, options.decoyDir);
  }

  static async open(options: RunSandboxOptions): Promise<RunSandbox> {
    makeStateFolders(options.agent, options.home);
    let self: RunSandbox | undefined;
    const pending: [string, string][] = [];
    const lease = await acquireSandbox(options.policy, options.tmp, (line, tag) => (self ? self.violation(line, tag) : pending.push([line, tag])));
    self = new RunSandbox(options, lease);
    for (const [line, tag] of pending) self.violation(line, tag);
    return self;
  }

  get policy(): SandboxPolicy {
    return this.options.policy;
  }

  /** Total refusals of the run, and each target's count. */
  summary(): { denied: number; refusals: RefusalCount[] } {
    return { denied: this.tally.count, refusals: this.tally.list() };
  }

  /** The agent's view: its command wrapped, with what the agent needs inside. */
  forAgent(): CommandSandbox {
    return this.view('agent', this.options.agent);
  }

  /** The verify commands' view: the same policy. */
  forVerify(): CommandSandbox {
    return this.view('verify', undefined);
  }

  /** Reports the counts that grew since their first report (at the end of an iteration). */
  flush(): void {
    for (const target of this.decoys.takeReads()) this.refused({ what: 'read', target }, 'agent');
    for (const report of this.grown.values()) this.options.onDenied(report);
    this.grown.clear();
  }

  /** The line for the next prompt about what was refused since the last one, if anything was. */
  takeFeedback(): string | undefined {
    const line = feedbackFor(this.sincePrompt.list(), this.options.home);
    this.sincePrompt = new RefusalTally();
    return line;
  }

  async close(): Promise<void> {
    this.flush();
    await this.lease.release();
    rmSync(this.options.tmp, { recursive: true, force: true });
    rmSync(this.options.decoyDir, { recursive: true, force: true });
  }

  private view(tag: RefusalBy, agent: AgentNeeds | undefined): CommandSandbox {
    const spawnOf = (wrapped: string): SandboxedSpawn => {
      let ended = false;
      const done = () => {
        if (ended) return;
        ended = true;
        this.lease.commandEnded();
      };
      return { program: SHELL, args: ['-c', withDecoys(wrapped, this.decoys.list())], env: { ...(agent?.env ?? {}) }, done };
    };
    return {
      wrapArgv: async (argv) => {
        const [program, ...args] = argv;
        const adjusted = agent?.adjustArgs ? agent.adjustArgs(args) : args;
        return spawnOf(await this.lease.wrap([program!, ...adjusted].map(shellQuote).join(' '), tag));
      },
      wrapShell: async (command) => spawnOf(await this.lease.wrap(`sh -c ${shellQuote(command)}`, tag)),
      noticeOutput: (chunk) => this.scanner.push(chunk),
    };
  }

  private violation(line: string, tag: string): void {
    const refusal = refusalOf(line, this.options.policy, this.options.agent, this.options.home);
    if (refusal !== undefined) this.refused(refusal, tag === 'verify' ? 'verify' : 'agent');
  }

  private refused(refusal: Refusal, by: RefusalBy): void {
    const count = this.tally.add(refusal);
    this.sincePrompt.add(refusal);
    if (count === undefined) return;
    const report: DeniedReport = { ...refusal, count, by };
    if (count === 1) this.options.onDenied(report);
    else this.grown.set(`${refusal.what}\0${refusal.target}`, report);
  }
}

/** What a violation line of the library's means for the run: a refusal to report, or nothing. */
export function refusalOf(line: string, policy: SandboxPolicy, agent: AgentNeeds, home: string): Refusal | undefined {
  const refusal = parseViolation(line);
  if (refusal === undefined || isRuntimeProbe(refusal)) return undefined;
  if (refusal.what !== 'write') return refusal;
  // The monitor reports every write outside the library's defaults; the run's policy allowed some.
  if (mayWrite(policy, refusal.target)) return undefined;
  // It reports attempts: a folder made where one is already (`mkdir -p`) changed nothing.
  if (/^deny mkdir(?:at)? /.test(line) && isDirectory(refusal.target)) return undefined;
  // An agent replacing a state file of its own in the home folder (Claude Code: a lock folder and
  // a temp file beside ~/.claude.json, then a rename) is refused beside it, as the home folder is
  // not writable: counted as that file, whose name the user knows, not as each temp file's.
  for (const file of agent.stateFiles) {
    const path = resolve(home, file);
    if (refusal.target.startsWith(`${path}.`)) return { what: 'write', target: path };
  }
  return refusal;
}

/** The sandbox can only bind what exists: the agent's state folders and files are made first. */
function makeStateFolders(agent: AgentNeeds, home: string): void {
  for (const dir of agent.stateDirs) mkdirSync(resolve(home, dir), { recursive: true });
  for (const file of agent.stateFiles) {
    const path = `${home}/${file}`;
    if (existsSync(path)) continue;
    mkdirSync(dirname(path), { recursive: true });
    // Valid JSON: an agent that reads its state file at start must not find it broken.
    writeFileSync(path, '{}\n', { flag: 'wx' });
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
