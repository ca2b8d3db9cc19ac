// Backups, policies, schedules, repositories and restores against a real API server with the real KubeBlocks 1.x
// data-protection CRDs: every object the server creates must be accepted by the real schema, and the
// controller's status transitions (New → Running → Completed/Failed) are written through the status subresource
// by the admin, as KubeBlocks would. The server runs with the chart's RBAC; a denial fails the suite.
import { afterAll, beforeAll, describe } from 'vitest';
import { sessionsForEveryRole, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { seededClusters } from '../support/cluster-reads.js';
import { applyWithStatus, createWithStatus, readObject, writeStatus } from '../support/kube/real-kubeblocks.js';
import {
  DATA_PROTECTION_CRDS,
  seedDataProtection,
  sharedBackupScenarios,
  type BackupContext,
} from '../support/backup-scenarios.js';

const NS = 'graphdb-system';

describe('backups on KubeBlocks 1.x, real API server with the real data-protection CRDs (chart RBAC with multiClusterRbac)', () => {
  let t: AdminTestApp;
  let context: BackupContext;
  beforeAll(async () => {
    t = await startAdminTestApp('kube-apiserver', {
      kubeBlocks: true,
      // BackupRepos are cluster-scoped: the chart grants them with multiClusterRbac only.
      chartValues: { 'adminServer.multiClusterRbac': 'true' },
      crds: [
        'apps.kubeblocks.io/v1/clusters',
        'operations.kubeblocks.io/v1alpha1/opsrequests',
        ...DATA_PROTECTION_CRDS,
      ],
    });
    const admin = t.real!.api.admin;
    for (const cluster of seededClusters(NS).filter((c) => c.metadata.namespace === NS))
      await createWithStatus(admin, cluster);
    context = {
      app: t.app,
      sessions: await sessionsForEveryRole(t.app),
      namespace: NS,
      apply: (resource, object) => applyWithStatus(admin, resource, object),
      setStatus: (resource, namespace, name, status) => writeStatus(admin, resource, namespace, name, status),
      stored: (resource, namespace, name) => readObject(admin, resource, namespace, name),
      secret: (name) => t.backdoor.secret(name),
      metrics: () => t.metricsText(),
    };
    await seedDataProtection(context);
  });
  afterAll(() => t?.close());

  sharedBackupScenarios(() => context);
});
