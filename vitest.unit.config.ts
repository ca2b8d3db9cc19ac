import { defineConfig } from 'vitest/config';

// The unit tier: pure modules only (no process, socket or file beyond fixtures); `npm test` runs it first.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    pool: 'threads',
    testTimeout: 5_000,
    reporters: ['default'],
  },
});
