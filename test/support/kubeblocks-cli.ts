// The compiled graphdb-admin signed in to an admin app with KubeBlocks, for the CLI suites of the deployment and
// operation commands: the deployment `orders` (replication) and its data pod in graphdb-system, a simulated
// KubeBlocks controller advancing every OpsRequest, over the Kubernetes API double or, under `npm run test:kube`,
// the real kube-apiserver with the real KubeBlocks CRDs.
import { KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { cliIn } from '../cli/harness.js';
import { ADAPTERS, ADMIN, startAdminTestApp, type AdminTestApp } from './admin.js';
import { advanceOpsRequest, CLUSTERS_V1, OPS_V1, replication } from './kube/kubeblocks-fixtures.js';
import type { KubeObject } from './kube/kube-api-double.js';
import { objectStoreOf, type ObjectStore } from './kube/object-store.js';
import { advanceOpsRequest as advanceRealOpsRequest } from './kube/real-kubeblocks.js';

export const KUBEBLOCKS_CLI_NAMESPACE = 'graphdb-system';
/** The data pod of the deployment `orders`. */
export const ORDERS_POD = 'orders-falkordb-0';
// The API double, or under `npm run test:kube` the real kube-apiserver with the real KubeBlocks CRDs.
export const KUBEBLOCKS_CLI_ADAPTER = ADAPTERS.includes('kube-apiserver') ? 'kube-apiserver' : 'kubernetes';

export interface KubeBlocksCli {
  t: AdminTestApp;
  /** The app's base URL over real HTTP. */
  server: string;
  cli: ReturnType<typeof cliIn>;
  /** graphdb-admin's home and configuration folder, where a test may also write its files. */
  workDir: string;
  objects: ObjectStore;
  /** A core object (a pod, a Secret, a ConfigMap) in the namespace, as the admin's kubectl would create it. */
  putCore(resource: 'pods' | 'secrets' | 'configmaps', object: KubeObject): Promise<void>;
  close(): Promise<void>;
}

export async function startKubeBlocksCli(options: {
  /** The prefix of the temporary work folder. */
  workDirPrefix: string;
  /** The data container's resources (the metrics commands compare usage with its limits). */
  podResources?: Record<string, unknown>;
  /** Objects the suite needs before graphdb-admin signs in (a Secret, a ConfigMap, a pod log). */
  prepare?: (fixture: Pick<KubeBlocksCli, 't' | 'putCore'>) => Promise<void>;
}): Promise<KubeBlocksCli> {
  const ns = KUBEBLOCKS_CLI_NAMESPACE;
  const t = await startAdminTestApp(KUBEBLOCKS_CLI_ADAPTER, { kubeBlocks: true, crds: [CLUSTERS_V1, OPS_V1] });
  const objects = objectStoreOf(t);
  const putCore = async (resource: 'pods' | 'secrets' | 'configmaps', object: KubeObject): Promise<void> => {
    if (t.kube) t.kube.put(resource, ns, object);
    else await KubernetesObjectApi.makeApiClient(t.real!.api.admin).create(object as KubernetesObject);
  };
  await objects.put(CLUSTERS_V1, ns, replication('orders', ns));
  await putCore('pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: ORDERS_POD,
      namespace: ns,
      labels: { 'app.kubernetes.io/instance': 'orders', 'app.kubernetes.io/managed-by': 'kubeblocks' },
    },
    spec: {
      containers: [
        {
          name: 'falkordb',
          image: 'falkordb/falkordb',
          ...(options.podResources ? { resources: options.podResources } : {}),
        },
      ],
    },
  });
  await options.prepare?.({ t, putCore });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const server = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const workDir = await mkdtemp(path.join(os.tmpdir(), options.workDirPrefix));
  const cli = cliIn(workDir);
  // The simulated KubeBlocks controller: every OpsRequest advances a phase every 50 ms (one pass at a time).
  let passing = false;
  const controller = setInterval(() => {
    if (passing) return;
    passing = true;
    void (async () => {
      for (const ops of await objects.list(OPS_V1)) {
        const phase = (ops.status as { phase?: string } | undefined)?.phase;
        if (phase === 'Succeed' || phase === 'Failed' || phase === 'Cancelled') continue;
        const name = ops.metadata.name!;
        if (t.kube) advanceOpsRequest(t.kube, OPS_V1, ns, name);
        else
          await advanceRealOpsRequest(t.real!.api.admin, {
            apiVersion: 'operations.kubeblocks.io/v1alpha1',
            namespace: ns,
            name,
          });
      }
    })()
      .catch(() => {
        // An OpsRequest changed between the read and the write: the next pass sees the new state.
      })
      .finally(() => (passing = false));
  }, 50);
  const close = async () => {
    clearInterval(controller);
    await t.close();
  };
  try {
    const login = await cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin'], ADMIN.password);
    expect(login.code, login.stderr).toBe(0);
  } catch (error) {
    await close();
    throw error;
  }
  return { t, server, cli, workDir, objects, putCore, close };
}
