// Bundles the compiled CLI (dist/) into dist/bundle/: one file for what every command needs, and
// one chunk per lazily loaded command. Node loads ~90 small ES modules and their packages' module
// trees one by one, which cost every `ralph` call ~100 ms before any work began.
// fast-xml-parser stays outside: it is loaded with require() only when an observation needs it.
// @anthropic-ai/sandbox-runtime stays outside: it finds its helpers beside its own files.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/bundle`;

// commander requires node:child_process when it loads, for executable subcommands, which ralph
// does not use; loading it (and net, dgram, readline, streams with it) cost every command ~15 ms.
// In commander only, it is replaced by a stand-in that loads the real module on first use.
const LAZY_CHILD_PROCESS = '\0lazy-child-process';
const lazyChildProcess = {
  name: 'lazy-child-process',
  resolveId(source, importer) {
    if ((source === 'node:child_process' || source === 'child_process') && importer?.includes('/node_modules/commander/')) return LAZY_CHILD_PROCESS;
    return null;
  },
  load(id) {
    if (id !== LAZY_CHILD_PROCESS) return null;
    return [
      "import { createRequire } from 'node:module';",
      'const require = createRequire(import.meta.url);',
      "export function spawn(...args) { return require('node:child_process').spawn(...args); }",
      'export default { spawn };',
    ].join('\n');
  },
};

await rm(out, { recursive: true, force: true });
await build({
  input: `${root}dist/cli/main.js`,
  platform: 'node',
  logLevel: 'warn',
  plugins: [lazyChildProcess],
  // The sandbox library finds its own helpers (apply-seccomp, the JVM proxy agent) beside its
  // modules in node_modules: bundled, it would look for them in dist/bundle/.
  external: [/^@anthropic-ai\/sandbox-runtime/],
  output: { dir: out, format: 'esm', minify: true, entryFileNames: 'main.js', chunkFileNames: '[name].js' },
});
