import { Option } from 'commander';
import type { RegisterCommand } from '../context.js';
import { addExecOptions, type RawExecFlags } from '../exec-options.js';

export interface ExecFlags extends RawExecFlags {
  json?: boolean;
  quiet?: boolean;
}

export const registerExec: RegisterCommand = (program, ctx) => {
  const command = program
    .command('exec')
    .description('run one plan to an outcome: ralph exec <plan.md> [options] [-- <command> [args…]]')
    .argument('<plan>', 'the plan file (Markdown with optional YAML front matter)')
    .usage('<plan.md> [options] [-- <command> [args…]]');
  addExecOptions(command)
    .option('--json', 'write every event as NDJSON on stdout, and nothing else there')
    .option('--quiet', "hide the executor's output (ralph's own lines stay)")
    .addOption(new Option('--resume <run>', 'continue an interrupted run: a run id, or latest'))
    .addHelpText(
      'after',
      `
Executors: --executor, else command when -- is given, else the plan's executor, else anthropic
when ANTHROPIC_API_KEY is set. Examples:
  ralph exec plans/demo.md
  ralph exec plan.md -- claude -p --dangerously-skip-permissions
  ralph exec plan.md --stream-format claude-json -- claude -p --output-format stream-json --verbose
  ralph exec plan.md -- codex exec
  ralph exec plan.md --resume latest

Exit codes: 0 complete, 1 failed, 2 blocked, 3 exhausted, 4 off the rails, 64 usage error or
invalid plan, 130 interrupted (resume with --resume).`,
    )
    .action(async (plan: string, flags: ExecFlags) => {
      const { execCommand } = await import('../exec-command.js');
      ctx.exitCode = await execCommand(plan, flags, ctx);
    });
};
