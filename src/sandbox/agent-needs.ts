// What each agent CLI needs inside ralph's sandbox (docs/sandbox.md "Agents inside"): the folders
// it keeps its own state in (writable, and made before it starts: the sandbox can only open a
// folder that exists), the hosts its API lives on, the variables that move that API elsewhere,
// and what it must change about itself when it runs inside ralph's sandbox.
import { basename, isAbsolute, join } from 'node:path';

export interface AgentNeeds {
  /** Which agent this is ('command' for a program ralph does not know). */
  name: string;
  /** Folders under the home folder the agent writes its state in (absolute once placed: placeState). */
  stateDirs: readonly string[];
  /** Files directly in the home folder the agent writes (made empty when missing). */
  stateFiles: readonly string[];
  /** It follows the XDG base directories: its `.config/`, `.cache/`, `.local/…` folders move with XDG_CONFIG_HOME, …. */
  xdg?: boolean;
  /** Hosts of the agent's API and sign-in. */
  hosts: readonly string[];
  /** Variables whose URL's host is the API when set (a local stand-in, a gateway). */
  baseUrlEnv: readonly string[];
  /** Arguments adjusted for running inside ralph's sandbox. */
  adjustArgs?: (args: string[]) => string[];
  /** Environment added inside ralph's sandbox. */
  env?: Readonly<Record<string, string>>;
}

/**
 * Codex's own sandbox (Landlock and seccomp) cannot start inside bubblewrap's namespaces, so with
 * ralph's sandbox around it Codex runs without its own; ralph's policy is the stricter one anyway.
 */
function codexWithoutOwnSandbox(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--sandbox' || a === '-s') {
      i++;
      continue;
    }
    if (a.startsWith('--sandbox=') || a === '--full-auto') continue;
    out.push(a);
  }
  const at = out[0] === 'exec' ? 1 : 0;
  out.splice(at, 0, '--dangerously-bypass-approvals-and-sandbox');
  return out;
}

const KNOWN: Readonly<Record<string, Omit<AgentNeeds, 'name'>>> = {
  claude: {
    stateDirs: ['.claude'],
    stateFiles: ['.claude.json'],
    hosts: ['api.anthropic.com', 'console.anthropic.com', 'statsig.anthropic.com'],
    baseUrlEnv: ['ANTHROPIC_BASE_URL'],
    // Claude Code refuses --dangerously-skip-permissions as root unless told it is in a sandbox;
    // inside ralph's it is.
    env: { IS_SANDBOX: '1' },
  },
  codex: {
    stateDirs: ['.codex'],
    stateFiles: [],
    hosts: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'],
    baseUrlEnv: ['OPENAI_BASE_URL'],
    adjustArgs: codexWithoutOwnSandbox,
  },
  gemini: {
    stateDirs: ['.gemini'],
    stateFiles: [],
    hosts: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com'],
    baseUrlEnv: ['GOOGLE_GEMINI_BASE_URL'],
    // Gemini CLI's own sandbox (Docker, Podman, gVisor; seatbelt on macOS), when the user's
    // settings or --sandbox choose it, cannot start inside ralph's: it needs the Docker socket,
    // which ralph's sandbox refuses (through it a command would be out), or a second seatbelt.
    // The variable outranks both.
    env: { GEMINI_SANDBOX: 'false' },
  },
  opencode: {
    stateDirs: ['.local/share/opencode', '.config/opencode', '.cache/opencode', '.local/state/opencode'],
    stateFiles: [],
    xdg: true,
    hosts: ['api.anthropic.com', 'api.openai.com', 'models.dev', 'opencode.ai'],
    baseUrlEnv: ['ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL'],
  },
  qwen: {
    stateDirs: ['.qwen'],
    stateFiles: [],
    hosts: ['dashscope.aliyuncs.com', 'dashscope-intl.aliyuncs.com', 'chat.qwen.ai', 'portal.qwen.ai'],
    baseUrlEnv: ['OPENAI_BASE_URL'],
    // Qwen Code's whole-CLI sandbox (Docker, Podman; seatbelt on macOS): as Gemini CLI's, above.
    env: { QWEN_SANDBOX: 'false' },
  },
  amp: {
    stateDirs: ['.config/amp', '.local/share/amp', '.cache/amp'],
    stateFiles: [],
    hosts: ['ampcode.com'],
    baseUrlEnv: ['AMP_URL'],
  },
  'cursor-agent': {
    stateDirs: ['.cursor', '.config/cursor'],
    stateFiles: [],
    hosts: ['api2.cursor.sh', 'api.cursor.com'],
    baseUrlEnv: [],
  },
};

const XDG_HOMES: readonly (readonly [string, string])[] = [
  ['.config/', 'XDG_CONFIG_HOME'],
  ['.cache/', 'XDG_CACHE_HOME'],
  ['.local/share/', 'XDG_DATA_HOME'],
  ['.local/state/', 'XDG_STATE_HOME'],
];

/**
 * The agent's state folders where it will really write them: for an agent that follows the XDG
 * base directories, a folder such as `.cache/opencode` is `$XDG_CACHE_HOME/opencode` when that
 * variable holds an absolute path (the specification ignores any other); the rest stay relative
 * to the home folder.
 */
export function placeState(needs: AgentNeeds, env: NodeJS.ProcessEnv): AgentNeeds {
  if (!needs.xdg) return needs;
  const place = (dir: string): string => {
    for (const [prefix, name] of XDG_HOMES) {
      const base = env[name];
      if (dir.startsWith(prefix) && base !== undefined && isAbsolute(base)) return join(base, dir.slice(prefix.length));
    }
    return dir;
  };
  return { ...needs, stateDirs: needs.stateDirs.map(place) };
}

/** Any other program: no state folders, and only the API a base-URL variable names. */
const UNKNOWN: Omit<AgentNeeds, 'name'> = { stateDirs: [], stateFiles: [], hosts: [], baseUrlEnv: ['ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL'] };

/** The needs of the agent a command starts, by its preset name or its program's name. */
export function agentNeeds(command: readonly string[] | undefined, presetName?: string): AgentNeeds {
  const program = command?.[0] !== undefined ? basename(command[0]) : undefined;
  for (const name of [presetName, program]) {
    if (name !== undefined && Object.hasOwn(KNOWN, name)) return { name, ...KNOWN[name]! };
  }
  return { name: 'command', ...UNKNOWN };
}

/** The anthropic executor's tools: ralph itself talks to the API, the tools reach nothing. */
export const NO_AGENT: AgentNeeds = { name: 'anthropic', stateDirs: [], stateFiles: [], hosts: [], baseUrlEnv: [] };

/** `host` or `host:port` of a URL, as the sandbox's allow list takes it; undefined when not a URL. */
export function hostOfUrl(url: string | undefined): string | undefined {
  if (url === undefined || url.trim() === '') return undefined;
  try {
    const u = new URL(url);
    return u.port ? `${u.hostname}:${u.port}` : u.hostname;
  } catch {
    return undefined;
  }
}

/** The agent's hosts with those its base-URL variables name. */
export function agentHosts(needs: AgentNeeds, env: NodeJS.ProcessEnv): string[] {
  const hosts = [...needs.hosts];
  for (const name of needs.baseUrlEnv) {
    const host = hostOfUrl(env[name]);
    if (host !== undefined) hosts.push(host);
  }
  return [...new Set(hosts)];
}
