#!/usr/bin/env node
// The built CLI lives in dist/bundle/ (compiled and bundled on `npm ci` by the `prepare` script).
// No V8 flags: a 1 MiB young generation (--max-semi-space-size=1) once kept `ralph exec` under
// its memory goal; it is no longer needed for that (bench exec-memory: 93 MiB either way) and it
// cost `ralph report` a fifth of its time in garbage collection.
import { main } from '../dist/bundle/main.js';

let settled = false;
main(process.argv.slice(2)).then(
  (code) => {
    settled = true;
    process.exitCode = code;
  },
  (error) => {
    settled = true;
    process.stderr.write(`ralph: internal error: ${error?.stack ?? error}\n`);
    process.exitCode = 70;
  },
);
// Node ends a process whose event loop has nothing left, even with work pending: that is a bug,
// and must never look like success.
process.on('exit', (code) => {
  if (!settled && code === 0) {
    process.stderr.write('ralph: internal error: stopped with work still pending (please report this)\n');
    process.exitCode = 70;
  }
});
