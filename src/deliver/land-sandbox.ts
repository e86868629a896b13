// Where `ralph land` runs a branch's checks (docs/deliver.md#checks-in-the-sandbox): in the
// sandbox where there is one, chosen as a run chooses it (--sandbox over RALPH_SANDBOX over the
// plan's `sandbox:` over the config file's, default auto). The choice is made for every branch
// before anything lands, so `on` where the sandbox cannot start is refused up front (exit 64) and
// `auto` warns once, not once per branch.
import {
  decideSandbox,
  openCheckSandbox,
  sandboxAvailability,
  sandboxFromEnv,
  sandboxSettings,
  shortPath,
  type Availability,
  type DeniedReport,
  type RefusalCount,
  type RunSandbox,
  type SandboxLayer,
  type SandboxMode,
  type SandboxSettings,
} from '../sandbox/index.js';

export interface LandSandboxOptions {
  /** --sandbox on `ralph land`. */
  flag?: SandboxMode;
  /** The config file's `sandbox:`. */
  config?: SandboxLayer;
}

export interface CheckSandboxChoice {
  on: boolean;
  /** The mode and where it came from: "on (from --sandbox)". */
  why: string;
  settings: SandboxSettings;
}

/** What the sandbox did for one branch's checks, as land.json and the report keep it. */
export interface CheckSandboxRecord {
  on: boolean;
  why: string;
  /** Refusals in all, and each path or host with its count (the sandboxed process's words: shown escaped). */
  denied: number;
  refusals: RefusalCount[];
}

/** Each plan's choice (its front matter's `sandbox:` is its layer), and the one warning of `auto` where it cannot start. */
export function chooseCheckSandboxes(
  o: LandSandboxOptions,
  env: NodeJS.ProcessEnv,
  planLayers: readonly (SandboxLayer | undefined)[],
  availability: () => Availability = sandboxAvailability,
): { choices: CheckSandboxChoice[]; warning?: string } {
  let known: Availability | undefined;
  const once = () => (known ??= availability());
  const fromEnv = sandboxFromEnv(env);
  let warning: string | undefined;
  const choices = planLayers.map((layer): CheckSandboxChoice => {
    const settings = sandboxSettings(o.flag, layer, o.config, fromEnv);
    const decision = decideSandbox(settings, once);
    if (!decision.on && decision.warning !== undefined) warning ??= decision.warning;
    return { on: decision.on, why: decision.why, settings };
  });
  return { choices, ...(warning !== undefined ? { warning } : {}) };
}

/** The sandbox for one branch's checks in the scratch worktree, or undefined when they run without one. */
export async function openForChecks(choice: CheckSandboxChoice, tree: string, env: NodeJS.ProcessEnv, onDenied: (r: DeniedReport) => void): Promise<RunSandbox | undefined> {
  return choice.on ? openCheckSandbox({ settings: choice.settings, tree, env }, onDenied) : undefined;
}

export function recordOf(choice: CheckSandboxChoice, box: RunSandbox | undefined): CheckSandboxRecord {
  const { denied, refusals } = box ? box.summary() : { denied: 0, refusals: [] };
  return { on: choice.on, why: choice.why, denied, refusals };
}

const REFUSED = { write: 'a write to', read: 'a read of', network: 'a connection to' } as const;

/** "a write to ~/x.txt (2 times)": for the terminal and the reason, the target cut and free of control characters. */
export function refusalWords(r: RefusalCount, home: string): string {
  const target = shortPath(r.target, home).replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200);
  return `${REFUSED[r.what]} ${target}${r.count > 1 ? ` (${r.count} times)` : ''}`;
}
