// `ralph sandbox check`: the policy a run in this working tree would get, tried from inside the
// sandbox, one kind of escape at a time. Nothing it tries changes a file: a write is an empty
// append to a file that exists, or a new file removed at once.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decideSandbox, homeOf, openRunSandbox } from './open.js';
import { shortPath } from './refusals.js';
import type { SandboxSettings } from './settings.js';
import type { CommandSandbox } from './types.js';

export interface CheckRow {
  try: string;
  /** What the policy wants: escapes stopped, work in the tree allowed. */
  want: 'stopped' | 'allowed';
  got: 'stopped' | 'allowed' | 'skipped';
  detail?: string;
}

export interface CheckReport {
  tree: string;
  rows: CheckRow[];
  /** Escapes stopped, of those tried. */
  stopped: number;
  tried: number;
  ok: boolean;
}

interface Attempt {
  try: string;
  want: 'stopped' | 'allowed';
  /** Shell text; exit 0 means it got through. Undefined: nothing here to try (why). */
  command: string | { skip: string };
  /** Decides from the output instead of the exit code (a read that got a stand-in). */
  judge?: (stdout: string, code: number | null) => boolean;
  cleanup?: () => void;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function attempts(tree: string, home: string, hidden: readonly string[]): Attempt[] {
  const mark = `ralph-sandbox-check-${randomBytes(3).toString('hex')}`;
  const outside = join(home, `.${mark}`);
  const bashrc = join(home, '.bashrc');
  const hook = join(tree, '.git', 'hooks', mark);
  const runFiles = join(tree, '.ralph', mark);
  const secret = firstSecretFile(hidden);
  const inTree = join(tree, `.${mark}`);
  const touch = (p: string) => `: > ${q(p)} && rm -f ${q(p)}`;
  const connect = [
    "const u = new URL(process.env.HTTPS_PROXY || process.env.HTTP_PROXY || 'http://none:1');",
    "const a = u.username ? { 'Proxy-Authorization': 'Basic ' + Buffer.from(decodeURIComponent(u.username) + ':' + decodeURIComponent(u.password)).toString('base64') } : {};",
    "require('http').request({ host: u.hostname, port: u.port, method: 'CONNECT', path: 'example.com:443', headers: a })",
    '.on("connect", (r, s) => { s.destroy(); process.exit(r.statusCode === 200 ? 0 : 1); }).on("error", () => process.exit(1)).end();',
  ].join(' ');
  return [
    { try: `write a file outside the working tree (${shortPath(outside, home)})`, want: 'stopped', command: touch(outside), cleanup: () => rmSync(outside, { force: true }) },
    { try: 'write ~/.bashrc', want: 'stopped', command: existsSync(bashrc) ? `: >> ${q(bashrc)}` : touch(bashrc) },
    {
      try: 'plant a git hook (.git/hooks/)',
      want: 'stopped',
      command: isDir(join(tree, '.git', 'hooks')) ? touch(hook) : { skip: 'no .git/hooks folder in this tree' },
      cleanup: () => rmSync(hook, { force: true }),
    },
    { try: "write ralph's run files (.ralph/)", want: 'stopped', command: `mkdir -p ${q(join(tree, '.ralph'))} && ${touch(runFiles)}`, cleanup: () => rmSync(runFiles, { force: true }) },
    secret === undefined
      ? { try: 'read a secret (~/.ssh, ~/.aws, …)', want: 'stopped', command: { skip: 'no secret file here to try' } }
      : {
          try: `read a secret (${shortPath(secret.path, home)})`,
          want: 'stopped',
          command: `cat ${q(secret.path)}`,
          judge: (stdout) => stdout === secret.text,
        },
    { try: 'connect to a host not on the list (example.com:443)', want: 'stopped', command: `${q(process.execPath)} -e ${q(connect)}` },
    { try: 'write in the working tree', want: 'allowed', command: touch(inTree), cleanup: () => rmSync(inTree, { force: true }) },
  ];
}

export async function sandboxCheck(tree: string, settings: SandboxSettings, env: NodeJS.ProcessEnv): Promise<CheckReport> {
  decideSandbox({ mode: 'on', modeFrom: 'flag' });
  const home = homeOf(env);
  const facts = { settings, tree, planPath: join(tree, 'plan.md'), summaryPath: join(tree, 'plan.summary.json'), executor: 'command' as const, env };
  const sandbox = await openRunSandbox(facts, () => undefined);
  const rows: CheckRow[] = [];
  try {
    const view = sandbox.forVerify();
    for (const a of attempts(tree, home, sandbox.policy.hidden)) {
      if (typeof a.command !== 'string') {
        rows.push({ try: a.try, want: a.want, got: 'skipped', detail: a.command.skip });
        continue;
      }
      const { code, stdout } = await runIn(view, a.command, tree);
      try {
        a.cleanup?.();
      } catch {
        // what is there is not what the attempt made (a mount point the sandbox made): left as is
      }
      const through = a.judge ? a.judge(stdout, code) : code === 0;
      rows.push({ try: a.try, want: a.want, got: through ? 'allowed' : 'stopped' });
    }
  } finally {
    await sandbox.close();
  }
  const escapes = rows.filter((r) => r.want === 'stopped' && r.got !== 'skipped');
  const stopped = escapes.filter((r) => r.got === 'stopped').length;
  return { tree, rows, stopped, tried: escapes.length, ok: rows.every((r) => r.got === 'skipped' || r.got === r.want) };
}

async function runIn(view: CommandSandbox, command: string, cwd: string): Promise<{ code: number | null; stdout: string }> {
  const wrapped = await view.wrapShell(command);
  return new Promise((resolve) => {
    const child = spawn(wrapped.program, wrapped.args, { cwd, env: { ...process.env, ...wrapped.env }, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s.slice(0, 65_536)));
    child.on('error', () => {
      wrapped.done();
      resolve({ code: null, stdout });
    });
    child.on('close', (code) => {
      wrapped.done();
      resolve({ code, stdout });
    });
  });
}

function firstSecretFile(hidden: readonly string[]): { path: string; text: string } | undefined {
  for (const h of hidden) {
    try {
      const s = statSync(h);
      const files = s.isDirectory() ? readdirSync(h, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(h, e.name)) : s.isFile() ? [h] : [];
      for (const f of files) {
        if (statSync(f).size > 65_536) continue;
        return { path: f, text: readFileSync(f, 'utf8') };
      }
    } catch {
      // not there, or not ours to read: try the next
    }
  }
  return undefined;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
