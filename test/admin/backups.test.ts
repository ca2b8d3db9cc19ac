// Backups, policies, schedules, repositories and restores on KubeBlocks 1.x through the Kubernetes API double (issue
// 21): the shared scenarios of test/support/backup-scenarios.ts, with the controller's status written into the double.
import { describe, beforeAll, afterAll } from 'vitest';
import { sessionsForEveryRole, startAdminTestApp, type AdminTestApp } from '../support/admin.js';
import { seededClusters } from '../support/cluster-reads.js';
import { CLUSTERS_V1, OPS_V1 } from '../support/kube/kubeblocks-fixtures.js';
import {
  DATA_PROTECTION_CRDS,
  seedDataProtection,
  sharedBackupScenarios,
  type BackupContext,
} from '../support/backup-scenarios.js';

const NS = 'graphdb-system';

describe('backups on KubeBlocks 1.x (API double), against the real schemas', () => {
  let t: AdminTestApp;
  let context: BackupContext;
  beforeAll(async () => {
    t = await startAdminTestApp('kubernetes', {
      kubeBlocks: true,
      crds: [CLUSTERS_V1, OPS_V1, ...DATA_PROTECTION_CRDS],
    });
    const kube = t.kube!;
    for (const cluster of seededClusters(NS)) kube.put(CLUSTERS_V1, cluster.metadata.namespace!, cluster);
    context = {
      app: t.app,
      sessions: await sessionsForEveryRole(t.app),
      namespace: NS,
      apply: (resource, object) => {
        kube.put(resource, object.metadata.namespace ?? '', object);
        return Promise.resolve();
      },
      setStatus: (resource, namespace, name, status) => {
        const current = kube.get(resource, namespace, name);
        if (!current) throw new Error(`no ${resource} ${namespace}/${name}`);
        kube.put(resource, namespace, { ...current, status });
        return Promise.resolve();
      },
      stored: (resource, namespace, name) => Promise.resolve(kube.get(resource, namespace, name)),
      secret: (name) => t.backdoor.secret(name),
    };
    await seedDataProtection(context);
  });
  afterAll(() => t?.close());

  sharedBackupScenarios(() => context);
});
