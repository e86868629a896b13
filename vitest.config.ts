import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real agent CLIs' suite installs them from npm: `npm run test:agents` runs it, not `npm test`.
    exclude: ['**/node_modules/**', 'test/agents-conformance/**'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // The other suites test other things: their agents write where they like. The sandbox's own
    // tests (test/sandbox/) ask for it with --sandbox on (docs/sandbox.md).
    env: { RALPH_SANDBOX: 'off' },
    // End-to-end tests spawn the built CLI and agent processes; two cores are all we have.
    maxWorkers: 2,
    // In CI a JSON report as well, from which .ci/run prints its closing "N passed, N failed".
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.ci/vitest-report.json' },
  },
});
