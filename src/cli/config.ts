// `ralph config [plan.md] [options]`: the settings in effect and where each came from (flag,
// plan, the config file's line, default), the agents --agent can name, notification targets
// and hooks (docs/config.md). Secrets are never printed.
import { CONFIG_FILE, LIMITS } from '../contract.js';
import type { RegisterCommand } from './context.js';
import { safeJson, stripControlLine } from '../ui/sanitize.js';
import { Option } from 'commander';
import { addExecOptions, duration, execOptionsFrom, positiveInt, type RawExecFlags } from './exec-options.js';

interface ConfigFlags extends RawExecFlags {
  json?: boolean;
  concurrency?: number;
  out?: string;
  isolate?: 'worktree' | 'none';
  planTimeout?: number;
}

export const registerConfig: RegisterCommand = (program, ctx) => {
  const command = program
    .command('config')
    .description(`show the settings in effect and where each came from (flags, the plan, ${CONFIG_FILE}, defaults)`)
    .argument('[plan]', "a plan whose front matter to include")
    .option('--json', 'one JSON object instead of the table')
    .option('--concurrency <n>', 'as for ralph batch', positiveInt('--concurrency', LIMITS.concurrency))
    .option('--out <dir>', 'as for ralph batch')
    .addOption(new Option('--isolate <mode>', 'as for ralph batch').choices(['worktree', 'none']))
    .option('--plan-timeout <duration>', 'as for ralph batch', duration('--plan-timeout', LIMITS.planTimeoutMs));
  addExecOptions(command, { sandboxPolicy: true }).action(async (planPath: string | undefined, flags: ConfigFlags) => {
    const { effectiveSettings, agentRows } = await import('../config/effective.js');
    const { loadPlan } = await import('../plan/index.js');
    const options = execOptionsFrom(flags, ctx.passThrough, process.cwd());
    // Loaded here: the config file's schema and the notifiers are for the commands that run plans.
    const { loadProject } = await import('./project.js');
    const project = loadProject(options.cwd, ctx.env, flags);
    const plan = planPath !== undefined ? await loadPlan(planPath) : null;
    const batchFlags = {
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      ...(flags.out !== undefined ? { out: flags.out } : {}),
      ...(flags.isolate !== undefined ? { isolate: flags.isolate } : {}),
      ...(flags.planTimeout !== undefined ? { planTimeoutMs: flags.planTimeout } : {}),
    };
    const settings = effectiveSettings({ flags: options, batchFlags, plan: plan?.config ?? null, config: project.config, env: ctx.env });
    const agents = agentRows(project.config);
    const targets = project.targets.map((t) => ({
      target: t.label,
      events: [...t.events],
      ...(t.outcomes ? { outcomes: [...t.outcomes] } : {}),
    }));
    const hooks = Object.entries(project.config.hooks).flatMap(([hook, list]) =>
      (list ?? []).map((h) => ({ hook, run: project.redact(h.run), ...(h.timeoutMs !== undefined ? { timeoutMs: h.timeoutMs } : {}), source: project.config.where[`hooks.${hook}`] ?? 'config file' })),
    );
    const file = project.config.file;
    // The sandbox: the mode in effect here and why; with --sandbox, the policy itself (docs/sandbox.md).
    const { sandboxView } = await import('./sandbox-view.js');
    const sandbox = await sandboxView({ options, plan, project: project.config, env: ctx.env, withPolicy: flags.sandbox !== undefined });
    settings.push(sandbox.row);
    if (flags.json) {
      ctx.stdout.write(`${safeJson({ file, settings, agents, notify: targets, hooks, secrets: project.hideEnv, ...(sandbox.json ? { sandbox: sandbox.json } : {}) }, 2)}\n`);
      return;
    }
    const out: string[] = [file ? `config file: ${file}` : `config file: none (no ${CONFIG_FILE} in ${options.cwd} or a folder above it)`, ''];
    const width = Math.max(...settings.map((s) => s.setting.length));
    const valueWidth = Math.min(40, Math.max(...settings.map((s) => (s.value ?? '—').length)));
    for (const s of settings) out.push(`${s.setting.padEnd(width)}  ${(s.value ?? '—').padEnd(valueWidth)}  ${s.source}`);
    out.push('', 'agents (--agent NAME):');
    for (const a of agents) out.push(`  ${a.name}: ${a.command.join(' ')} [${a.streamFormat}]  (${a.source})`);
    out.push('', targets.length ? 'notify:' : 'notify: none');
    for (const t of targets) out.push(`  ${t.target}: ${t.events.join(', ')}${t.outcomes ? ` (outcomes: ${t.outcomes.join(', ')})` : ''}`);
    out.push('', hooks.length ? 'hooks:' : 'hooks: none');
    for (const h of hooks) out.push(`  ${h.hook}: ${h.run}${h.timeoutMs !== undefined ? ` (timeout ${h.timeoutMs / 1000}s)` : ''}  (${h.source})`);
    if (project.hideEnv.length) out.push('', `kept from the agent: ${project.hideEnv.join(', ')}`);
    if (sandbox.lines.length) out.push('', ...sandbox.lines);
    // Values come from files (a plan's model: the agent can edit): only text reaches the terminal.
    ctx.stdout.write(`${out.map(stripControlLine).join('\n')}\n`);
  });
};
