// Backups, policies, schedules, repositories and restores on KubeBlocks 1.x through the Kubernetes API double (issue
// 21): the shared scenarios of test/support/backup-scenarios.ts, with the controller's status written into the double.
import { beforeAll, describe, expect, it } from 'vitest';
import { useAdminApp } from '../support/admin.js';
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
  const t = useAdminApp({
    adapter: 'kubernetes',
    kubeBlocks: true,
    crds: [CLUSTERS_V1, OPS_V1, ...DATA_PROTECTION_CRDS],
  });
  let context: BackupContext;
  beforeAll(async () => {
    const kube = t.kube!;
    for (const cluster of seededClusters(NS)) kube.put(CLUSTERS_V1, cluster.metadata.namespace!, cluster);
    context = {
      app: t.app,
      sessions: t.sessions,
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
      metrics: () => t.metricsText(),
    };
    await seedDataProtection(context);
  });

  sharedBackupScenarios(() => context);
});

describe('backups on a KubeBlocks without the data-protection kinds (API double)', () => {
  const t = useAdminApp({ adapter: 'kubernetes', kubeBlocks: true, crds: [CLUSTERS_V1, OPS_V1] });
  beforeAll(() => {
    for (const cluster of seededClusters(NS)) t.kube!.put(CLUSTERS_V1, cluster.metadata.namespace!, cluster);
  });

  it('lists nothing rather than failing, and refuses a backup for want of its policy', async () => {
    const get = (url: string) => t.as('operator').inject({ method: 'GET', url });
    for (const [url, key] of [
      [`/api/clusters/solo/backups/?namespace=${NS}`, 'backups'],
      [`/api/clusters/solo/backups/schedules/?namespace=${NS}`, 'schedules'],
      [`/api/clusters/solo/backups/policies/?namespace=${NS}`, 'policies'],
      [`/api/clusters/solo/restores/?namespace=${NS}`, 'restores'],
    ] as const) {
      const res = await get(url);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ [key]: [], total: 0 });
    }
    const made = await t.as('operator').inject({
      method: 'POST',
      url: `/api/clusters/solo/backups/?namespace=${NS}`,
      payload: { backupName: 'nowhere', backupMethod: 'datafile' },
    });
    expect(made.statusCode).toBe(404);
    expect(made.json<{ message: string }>().message).toBe(
      `Backup policy solo-falkordb-backup-policy not found for cluster solo in namespace ${NS}`,
    );
  });

  it('refuses to create a backup repository with 422 saying what to install', async () => {
    const settings = await t.as('admin').inject({
      method: 'PATCH',
      url: '/api/settings/',
      payload: { features: { multi_cluster_mode: true } },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const made = await t.as('admin').inject({
      method: 'POST',
      url: '/api/backups/repositories/',
      payload: { name: 'nowhere', storageProviderRef: 'oss', type: 'oss', config: { bucket: 'b', region: 'r' } },
    });
    expect(made.statusCode, made.body).toBe(422);
    expect(made.json<{ message: string }>().message).toContain('install the KubeBlocks data-protection CRDs');
  });
});
