#!/usr/bin/env node
// The built CLI lives in dist/ (compiled on `npm ci` through the `prepare` script).
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
