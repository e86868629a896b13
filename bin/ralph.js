#!/usr/bin/env -S node --max-semi-space-size=1
// The built CLI lives in dist/ (compiled on `npm ci` through the `prepare` script).
// The flag: the agent's output arrives in 64 KiB buffers that are freed only when the young
// generation is collected; a small one is collected often, so a night of streaming stays flat.
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`ralph: internal error: ${error?.stack ?? error}\n`);
    process.exitCode = 70;
  },
);
