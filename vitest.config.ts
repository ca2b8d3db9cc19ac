import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/kube/ needs a real kube-apiserver: `npm run test:kube` (vitest.kube.config.ts).
    // test/unit/ runs first, on its own (vitest.unit.config.ts).
    exclude: [...configDefaults.exclude, 'test/kube/**', 'test/unit/**'],
    environment: 'node',
    // Fails a test during which a response contradicted openapi/openapi.json (the check: test/support/app.ts).
    setupFiles: ['test/support/response-contract-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers than that only adds contention with the FalkorDB processes the tests start.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
