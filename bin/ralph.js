#!/usr/bin/env -S node --max-semi-space-size=1
// The built CLI lives in dist/bundle/ (compiled and bundled on `npm ci` by the `prepare` script).
// The flag: the agent's output arrives in 64 KiB buffers that are freed only when the young
// generation is collected; a small one is collected often, so a night of streaming stays flat.
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
