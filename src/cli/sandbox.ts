// `ralph sandbox check` (docs/sandbox.md#checking-it): tries each kind of escape in the sandbox a
// run here would get, and prints what was stopped. Exit 0 all stopped, 1 one got through, 64 the
// sandbox cannot start here.
import { resolve } from 'node:path';
import type { RegisterCommand } from './context.js';

interface CheckFlags {
  cwd?: string;
  json?: boolean;
  config?: string;
}

export const registerSandbox: RegisterCommand = (program, ctx) => {
  const sandbox = program.command('sandbox').description('the sandbox agents and verify commands run in (docs/sandbox.md)');
  sandbox
    .command('check')
    .description('try each kind of escape in the sandbox a run here would get, and print what was stopped')
    .option('--cwd <dir>', 'the working tree to check (default: the current directory)')
    .option('--config <file>', 'use this config file instead of the nearest ralph.config.yaml')
    .option('--json', 'one JSON object instead of the lines')
    .action(async (flags: CheckFlags) => {
      const { sandboxCheck } = await import('../sandbox/check.js');
      const { sandboxSettings } = await import('../sandbox/settings.js');
      const { loadProject } = await import('./project.js');
      const tree = resolve(flags.cwd ?? process.cwd());
      const project = loadProject(tree, ctx.env, flags);
      const report = await sandboxCheck(tree, sandboxSettings('on', undefined, project.config.sandbox), ctx.env);
      if (flags.json) ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else {
        const lines = [`sandbox check: @anthropic-ai/sandbox-runtime (${process.platform === 'darwin' ? 'sandbox-exec' : 'bubblewrap'}), working tree ${report.tree}`];
        for (const r of report.rows) lines.push(`  ${r.got.padEnd(7)}  ${r.try}${r.detail ? ` (${r.detail})` : ''}${r.got !== 'skipped' && r.got !== r.want ? `  <-- should be ${r.want}` : ''}`);
        lines.push(`${report.stopped} of ${report.tried} escapes stopped${report.ok ? '' : '; see docs/sandbox.md'}`);
        ctx.stdout.write(`${lines.join('\n')}\n`);
      }
      ctx.exitCode = report.ok ? 0 : 1;
    });
};
