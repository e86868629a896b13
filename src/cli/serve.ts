// `ralph serve`: a live page of this working directory's runs, batches and, with --queue, the
// queue's workers (docs/serve.md). Runs until SIGINT/SIGTERM.
import { UsageError } from '../errors.js';
import { wholeNumber } from './exec-options.js';
import type { RegisterCommand } from './context.js';

export const DEFAULT_SERVE_PORT = 4317;

interface ServeFlags {
  port?: number;
  open?: boolean;
  queue?: string;
  cwd?: string;
}

export const registerServe: RegisterCommand = (program, ctx) => {
  program
    .command('serve')
    .description('a live page of the runs and batches here (and a queue\'s workers), on http://127.0.0.1:<port>/; read-only but for "stop after this iteration"')
    .option('--port <n>', `port on 127.0.0.1 (default ${DEFAULT_SERVE_PORT}; 0: any free port)`, wholeNumber('--port', { min: 0, max: 65535 }))
    .option('--open', 'open the page in the default browser')
    .option('--queue <url>', 'also show the workers of this Redis queue and the plans they run (docs/queue.md)')
    .option('--cwd <dir>', "a folder of the project whose .ralph/ to show (default: the current directory; .ralph/ is at the project's root)")
    .addHelpText('after', '\nThe page is for this machine only: it listens on 127.0.0.1 (use an SSH tunnel to watch from elsewhere).\nStop it with Ctrl+C.')
    .action(async (flags: ServeFlags) => {
      const { startServer } = await import('../serve/index.js');
      const { parseQueueUrl } = await import('../queue/redis-url.js');
      const { resolve } = await import('node:path');
      const queue = flags.queue === undefined ? undefined : parseQueueUrl(flags.queue);
      const port = flags.port ?? DEFAULT_SERVE_PORT;
      let server;
      try {
        server = await startServer({ cwd: resolve(flags.cwd ?? process.cwd()), port, ...(queue ? { queue } : {}) });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new UsageError(`port ${port} on 127.0.0.1 is in use`, 'Choose another with --port N (or --port 0 for any free one).');
        if (code === 'EACCES') throw new UsageError(`port ${port} on 127.0.0.1 is not allowed for this user`, 'Choose a port above 1023 with --port N.');
        throw error;
      }
      ctx.stdout.write(`ralph serve: ${server.url} (Ctrl+C to stop)\n`);
      if (flags.open) openBrowser(server.url, (m) => void ctx.stderr.write(`ralph serve: ${m}\n`));
      await new Promise<void>((done) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          done();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await server.close();
    });
};

function openBrowser(url: string, warn: (m: string) => void): void {
  void import('node:child_process').then(({ spawn }) => {
    const program = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
    const child = spawn(program, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => warn(`could not start ${program}: open ${url} yourself`));
    child.unref();
  });
}
