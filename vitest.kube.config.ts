import { defineConfig } from 'vitest/config';

// `npm run test:kube` (scripts/test-kube.sh): the admin suites (settings, users, sessions, rbac,
// service accounts and their two-replica revocation), the CLI suites of the KubeBlocks commands and the tests in test/kube/
// against a real kube-apiserver and etcd instead of the API double. Every test app starts its own API server, so the
// files are as independent as under the default configuration.
export default defineConfig({
  test: {
    include: [
      'test/admin/settings.test.ts',
      'test/admin/users.test.ts',
      'test/admin/sessions.test.ts',
      'test/admin/rbac.test.ts',
      'test/admin/service-accounts.test.ts',
      'test/admin/service-account-replicas.test.ts',
      'test/admin/service-account-bootstrap.test.ts',
      'test/kube/**/*.test.ts',
      // The CLI suites of the KubeBlocks commands, over the real API server instead of the double.
      'test/cli/backup-commands.test.ts',
      'test/cli/confirmation.test.ts',
      'test/cli/deployment-commands.test.ts',
      'test/cli/operations-commands.test.ts',
    ],
    environment: 'node',
    // As the default configuration: fails a test during which a response contradicted openapi/openapi.json.
    setupFiles: ['test/support/response-contract-setup.ts'],
    pool: 'forks',
    // test/support/admin.ts runs the admin suites over this adapter only.
    env: { GRAPHDB_TEST_ADAPTERS: 'kube-apiserver' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
