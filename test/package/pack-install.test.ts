// The packed package as a user gets it (docs/first-hour.md): `npm pack`, installed into an empty
// folder, then the installed `ralph` run from another folder: --version, and the demo plan copied
// into a fresh git repository. Offline: the dependencies come from npm's cache, pinned by a
// lockfile built from ours (npm's cache holds their tarballs after `npm ci`, not the registry's
// metadata that resolving a version range would need).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  bin: Record<string, string>;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };

let tmp: string;
let tarball: string;
let installed: string;
let ralph: string;

function npm(args: string[], cwd: string): string {
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  const ran = spawnSync('npm', args, { cwd, env, encoding: 'utf8', timeout: 120_000 });
  if (ran.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${ran.status}):\n${ran.stdout}\n${ran.stderr}`);
  return ran.stdout;
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ralph-pack-'));
  // `npm test` has just built dist/: packing without the prepare script packs that build.
  const name = npm(['pack', '--ignore-scripts', '--pack-destination', tmp], ROOT).trim().split('\n').pop()!;
  tarball = join(tmp, name);

  const prefix = join(tmp, 'prefix');
  mkdirSync(prefix);
  cpSync(tarball, join(prefix, name));
  const spec = `file:${name}`;
  const packages: Record<string, unknown> = {
    '': { name: 'install-test', dependencies: { [manifest.name]: spec } },
    [`node_modules/${manifest.name}`]: {
      version: manifest.version,
      resolved: spec,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev) packages[path] = entry;
  writeFileSync(join(prefix, 'package.json'), JSON.stringify({ name: 'install-test', private: true, dependencies: { [manifest.name]: spec } }));
  writeFileSync(join(prefix, 'package-lock.json'), JSON.stringify({ name: 'install-test', lockfileVersion: 3, requires: true, packages }));
  npm(['ci', '--offline'], prefix);
  installed = join(prefix, 'node_modules', manifest.name);
  ralph = join(prefix, 'node_modules', '.bin', 'ralph');
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the packed package', () => {
  it(`is named ${manifest.name} (not "ralph", which the registry gives to another package) and installs the command ralph`, () => {
    expect(manifest.name).not.toBe('ralph');
    expect(manifest.bin).toEqual({ ralph: 'bin/ralph.js' });
    expect(existsSync(ralph)).toBe(true);
  });

  it('holds the built CLI, the prompts and the demo, and no sources or tests', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    for (const needed of ['package/bin/ralph.js', 'package/dist/bundle/main.js', 'package/prompts/instructions-full.md', 'package/plans/demo.md', 'package/examples/demo-agent.mjs']) {
      expect(files).toContain(needed);
    }
    expect(files.filter((f) => f.startsWith('package/src/') || f.startsWith('package/test/'))).toEqual([]);
  });

  it('explains itself: every docs/ page that --help, the config file ralph init writes and the README point to is in the installed copy, where --help says', () => {
    const elsewhere = mkdtempSync(join(tmp, 'init-'));
    execFileSync(ralph, ['init'], { cwd: elsewhere, encoding: 'utf8' });
    const help = execFileSync(ralph, ['--help'], { cwd: elsewhere, encoding: 'utf8' });
    const commands = [...help.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    const helps = [help, ...commands.map((c) => execFileSync(ralph, [c, '--help'], { cwd: elsewhere, encoding: 'utf8' }))].join('\n');
    const config = readFileSync(join(elsewhere, 'ralph.config.yaml'), 'utf8');
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    const named = new Set([...`${helps}\n${config}\n${readme}`.matchAll(/\bdocs\/[a-z-]+\.md/g)].map((m) => m[0]));
    expect(named).toContain('docs/config.md');
    for (const doc of named) expect(existsSync(join(installed, doc)), doc).toBe(true);
    // --help says where they are: the installed copy's docs/ folder.
    expect(help).toContain(`Documentation (the docs/… pages named in help and in ralph.config.yaml): ${join(realpathSync(installed), 'docs')}`);
  });

  it('ralph --version answers from another folder', () => {
    const elsewhere = mkdtempSync(join(tmp, 'elsewhere-'));
    const out = execFileSync(ralph, ['--version'], { cwd: elsewhere, encoding: 'utf8' });
    expect(out.trim()).toBe(manifest.version);
  });

  it('runs the demo plan to complete in a fresh git repository, and the run state stays out of git', () => {
    const repo = mkdtempSync(join(tmp, 'repo-'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    writeFileSync(join(repo, 'README'), 'a user repository\n');
    cpSync(join(installed, 'plans'), join(repo, 'plans'), { recursive: true });
    cpSync(join(installed, 'examples'), join(repo, 'examples'), { recursive: true });
    git('add', '-A');
    git('commit', '-qm', 'initial');
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    for (const k of Object.keys(env)) if ((k.startsWith('RALPH_') && k !== 'RALPH_SANDBOX') || k === 'ANTHROPIC_API_KEY') delete env[k];
    const ran = spawnSync(ralph, ['exec', 'plans/demo.md'], { cwd: repo, env, encoding: 'utf8', timeout: 60_000 });
    expect(ran.stderr).toMatch(/run complete \(exit 0\)/);
    expect(ran.status).toBe(0);
    const runs = readdirSync(join(repo, '.ralph', 'runs'));
    expect(runs).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(repo, '.ralph', 'runs', runs[0]!, 'result.json'), 'utf8'))).toMatchObject({ outcome: 'complete' });
    // No .gitignore of the user's mentions .ralph: ralph's own keeps it out of `git add -A`.
    git('add', '-A');
    expect(git('status', '--porcelain')).not.toMatch(/\.ralph/);
  });

  // Every cron example of the README and of docs/ (first-hour.md's README section among them).
  const docs = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => join(ROOT, 'docs', n))];
  const cronJobs = [...new Set(docs.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/```cron\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.trim().split('\n').filter((l) => /^[0-9*]/.test(l)))))];

  it('the docs have cron examples, and none of them calls npx', () => {
    expect(cronJobs.length).toBeGreaterThan(0);
    for (const job of cronJobs) expect(job).not.toMatch(/\bnpx\b/);
  });

  it.each(cronJobs)("the cron line works as written in a repository with no .ralph/ yet: %s", (job) => {
    // The command cron runs: what follows the five schedule fields, with the repository's path.
    const command = job.split(/\s+/).slice(5).join(' ');
    expect(command).toMatch(/^cd \/srv\/repo && .*\bralph batch\b/);

    const repo = mkdtempSync(join(tmp, 'cron-repo-'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    mkdirSync(join(repo, 'plans', 'nightly'), { recursive: true });
    cpSync(join(installed, 'plans', 'demo.md'), join(repo, 'plans', 'nightly', 'demo.md'));
    cpSync(join(installed, 'examples'), join(repo, 'examples'), { recursive: true });
    git('add', '-A');
    git('commit', '-qm', 'nightly plans');
    // The agent the line names, as an offline stand-in on PATH: the demo's scripted agent.
    const fakeBin = mkdtempSync(join(tmp, 'bin-'));
    writeFileSync(join(fakeBin, 'claude'), '#!/bin/sh\nexec node examples/demo-agent.mjs\n');
    chmodSync(join(fakeBin, 'claude'), 0o755);
    const env: NodeJS.ProcessEnv = { HOME: process.env.HOME, PATH: [dirname(ralph), fakeBin, dirname(process.execPath), '/usr/bin', '/bin'].join(':') };
    expect(existsSync(join(repo, '.ralph'))).toBe(false);
    const ran = spawnSync('/bin/sh', ['-c', command.replace('/srv/repo', repo)], { env, encoding: 'utf8', timeout: 120_000 });
    const log = readFileSync(join(repo, '.ralph', 'nightly.log'), 'utf8');
    expect(ran.status, log).toBe(0);
    expect(log).toContain('[1/1 plans complete]');
    expect(readFileSync(join(repo, '.ralph', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    // The plan's work is on its branch, committed.
    const branch = git('branch', '--list', 'ralph/*', '--format=%(refname:short)').trim();
    expect(branch).toMatch(/^ralph\/[0-9-]+\/demo$/);
    expect(git('log', '-1', '--format=%s', branch).trim()).toMatch(/^ralph: demo complete \(run .*, attempt 1\)$/);
    expect(git('status', '--porcelain').trim()).toBe('');
  });
});
