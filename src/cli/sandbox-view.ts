// The sandbox in `ralph config`: its row (the mode in effect here and why) and, for
// `ralph config --sandbox`, the policy a run with these settings would get (docs/sandbox.md).
import { resolve } from 'node:path';
import { resolveAgent } from '../agents/index.js';
import type { ProjectConfig } from '../config/types.js';
import type { SettingRow } from '../config/effective.js';
import type { ExecOptions } from '../loop/types.js';
import type { Plan } from '../plan/index.js';
import { decideSandbox, homeOf, policyOf, sandboxFromEnv, sandboxSettings, shortPath, type SandboxFacts } from '../sandbox/index.js';

interface ViewInput {
  options: Omit<ExecOptions, 'planPath'>;
  plan: Plan | null;
  project: ProjectConfig;
  env: NodeJS.ProcessEnv;
  withPolicy: boolean;
}

export async function sandboxView(input: ViewInput): Promise<{ row: SettingRow; lines: string[]; json?: unknown }> {
  const { options, plan, project, env } = input;
  const settings = sandboxSettings(options.sandbox, plan?.config.sandbox, project.sandbox, sandboxFromEnv(env));
  let effect: string;
  let on = false;
  try {
    const decision = decideSandbox(settings);
    on = decision.on;
    effect = decision.on ? 'on here' : decision.warning !== undefined ? `off here: ${decision.warning.replace(/^running WITHOUT a sandbox: /, '')}` : 'off';
  } catch (error) {
    effect = `refused here: ${(error as Error).message.replace(/^--sandbox on: /, '')}`;
  }
  const source = { flag: 'flag', environment: 'environment (RALPH_SANDBOX)', plan: 'plan', config: project.where.sandbox ?? 'config file', default: 'default' }[settings.modeFrom];
  const row: SettingRow = { setting: 'sandbox', value: `${settings.mode} → ${effect}`, source };
  if (!input.withPolicy) return { row, lines: [] };

  const agentName = options.agent ?? (options.command?.length || plan?.config.command ? undefined : project.agent);
  const agent = agentName !== undefined ? resolveAgent(agentName, options.command ?? [], project.agents) : undefined;
  const cwd = resolve(options.cwd);
  const facts: SandboxFacts = {
    settings,
    tree: cwd,
    planPath: plan?.path ?? resolve(cwd, 'plan.md'),
    summaryPath: plan?.summaryPath ?? resolve(cwd, 'plan.summary.json'),
    executor: options.executor ?? (agent || options.command?.length || plan?.config.command ? 'command' : (plan?.config.executor ?? 'command')),
    ...(agent ? { command: agent.command, agentName: agent.name } : options.command?.length ? { command: options.command } : plan?.config.command ? { command: plan.config.command } : {}),
    env,
  };
  const policy = await policyOf(facts, '<temp>/ralph-sandbox-<run> (private to the run)');
  const home = homeOf(env);
  const show = (list: string[]) => (list.length ? list.map((p) => shortPath(p, home)).join(', ') : 'none');
  const lines = [
    `sandbox policy (${on ? 'in effect' : 'not in effect here'}; working tree ${cwd}):`,
    `  write:      ${show(policy.write)}`,
    `  read-only:  ${show(policy.readOnly)}`,
    `  hidden:     ${show(policy.hidden)}`,
    ...(policy.readable.length ? [`  given back: ${show(policy.readable)}`] : []),
    `  hosts:      ${policy.hosts.join(', ') || 'none'}`,
  ];
  return { row, lines, json: { mode: settings.mode, modeFrom: settings.modeFrom, on, policy } };
}
