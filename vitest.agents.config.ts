import { defineConfig } from 'vitest/config';

// `npm run test:agents`: the real agent CLIs against local stand-ins of their APIs (docs/agents.md).
// Not part of `npm test`, which stays offline: this suite installs pinned CLIs from npm.
export default defineConfig({
  test: {
    include: ['test/agents-conformance/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 600_000,
    maxWorkers: 2,
  },
});
