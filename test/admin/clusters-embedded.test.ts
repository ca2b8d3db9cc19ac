import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import { useAdminApp } from '../support/admin.js';
import { graphQuery } from '../support/browser.js';
import {
  startTestFalkorDB,
  testEmbeddedDeployment,
  type TestEmbeddedDeployment,
  type TestFalkorDB,
} from '../support/falkordb.js';
import { eventually } from '../support/wait.js';

describe('clusters in embedded mode', () => {
  let falkordb: TestFalkorDB;
  let clusters: ClusterPort;
  let deployment: TestEmbeddedDeployment | undefined;
  beforeAll(async () => {
    falkordb = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-embedded-cluster-')) });
    deployment = testEmbeddedDeployment(falkordb, 'graphdb-system');
    clusters = deployment.clusters;
  });
  // Registered after the FalkorDB's hooks: the app starts after it, and closes before it stops.
  afterAll(async () => {
    await deployment?.close();
    await falkordb.stop();
  });
  const admin = useAdminApp(() => ({ falkordb, clusters })).as('admin');
  async function configValue(key: string): Promise<unknown> {
    const client = createClient({ url: falkordb.url });
    await client.connect();
    try {
      return (await client.sendCommand<unknown[]>(['GRAPH.CONFIG', 'GET', key]))[1];
    } finally {
      await client.close();
    }
  }

  it('lists the embedded FalkorDB as the deployment "embedded"', async () => {
    const res = await admin.inject({ method: 'GET', url: '/api/clusters' });
    expect(res.json()).toEqual({
      clusters: [
        {
          name: 'embedded',
          namespace: 'graphdb-system',
          creationTimestamp: expect.any(String) as unknown,
          state: 'Running',
          topology: 'standalone',
          replicas: 1,
          version: expect.stringMatching(/^(valkey|redis) /) as unknown,
          persistence: { enabled: false },
          sentinel: { enabled: false },
          sharding: { enabled: false },
          status: { state: 'Running', ready: true, replicas: 1 },
          phase: 'Running',
          createdAt: expect.any(String) as unknown,
          components: [
            {
              name: 'falkordb',
              kind: 'component',
              phase: 'Running',
              replicas: 1,
              serviceVersion: expect.stringMatching(/^(valkey|redis) /) as unknown,
              cpu: '',
              memory: '',
              storage: '',
            },
          ],
        },
      ],
      total: 1,
    });
    const one = await admin.inject({ method: 'GET', url: '/api/clusters/embedded/' });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toEqual(res.json<{ clusters: unknown[] }>().clusters[0]);
    // The one deployment cannot be created next to, or deleted.
    const create = await admin.inject({
      method: 'POST',
      url: '/api/clusters/',
      payload: { name: 'another', namespace: 'graphdb-system', spec: {} },
    });
    expect(create.statusCode, create.body).toBe(422);
    expect(create.json<{ message: string }>().message).toBe('Creating clusters is not supported in embedded mode');
    const remove = await admin.inject({ method: 'DELETE', url: '/api/clusters/embedded' });
    expect(remove.statusCode).toBe(422);
    expect(remove.json<{ message: string }>().message).toBe('Deleting clusters is not supported in embedded mode');
    const definition = await admin.inject({
      method: 'POST',
      url: '/api/clusters/embedded/upgrade',
      payload: { componentDefinition: 'falkordb-2' },
    });
    expect(definition.statusCode).toBe(422);
    expect(definition.json<{ message: string }>().message).toContain('Upgrade does not apply');
    expect((await admin.inject({ method: 'GET', url: '/api/clusters/embedded/credentials' })).statusCode).toBe(422);
    const patch = await admin.inject({ method: 'PATCH', url: '/api/clusters/embedded', payload: { replicas: 2 } });
    expect(patch.statusCode).toBe(422);
    expect(patch.json<{ message: string }>().message).toBe('Updating clusters is not supported in embedded mode');
    const yaml = await admin.inject({ method: 'GET', url: '/api/clusters/embedded/yaml' });
    expect(yaml.statusCode).toBe(422);
    const pods = await admin.inject({ method: 'GET', url: '/api/clusters/embedded/pods' });
    expect(pods.json()).toMatchObject({
      pods: [{ name: 'embedded-falkordb-0', status: 'Running', ready: true, role: 'primary', cpuPercent: null }],
      total: 1,
    });
  });

  const post = (url: string, payload: unknown) => admin.inject({ method: 'POST', url, payload: payload });
  const accepted = (type: string, phase?: string) => ({
    message: expect.stringMatching(
      new RegExp(`^${type} of cluster embedded requested \\(OpsRequest embedded-`),
    ) as unknown,
    opsName: expect.stringMatching(new RegExp(`^embedded-${type.toLowerCase()}-[0-9a-f]{6}$`)) as unknown,
    clusterName: 'embedded',
    type,
    phase: phase ?? (expect.any(String) as unknown),
  });

  it('applies dynamic parameters with GRAPH.CONFIG SET (202 with the real body) and refuses static ones with 422', async () => {
    const res = await post('/api/clusters/embedded/ops/configure', {
      parameters: [{ key: 'MAX_INFO_QUERIES', value: '777' }],
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual(accepted('Reconfiguring', 'Succeed'));
    expect(await configValue('MAX_INFO_QUERIES')).toBe(777);
    const staticKey = await post('/api/clusters/embedded/ops/configure', {
      parameters: [{ key: 'THREAD_COUNT', value: '8' }],
    });
    expect(staticKey.statusCode).toBe(422);
    expect(staticKey.json()).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: 'Not supported in embedded mode: THREAD_COUNT can only be set at start-up',
      code: 'unprocessable',
    });
    const cleared = await post('/api/clusters/embedded/ops/configure', {
      parameters: [{ key: 'TIMEOUT', value: null }],
    });
    expect(cleared.statusCode).toBe(422);
    expect(cleared.json<{ message: string }>().message).toContain('clearing TIMEOUT');
  });

  it('answers 422 with the reason for operations that do not apply to one embedded process', async () => {
    const before = (await admin.inject({ method: 'GET', url: '/api/clusters/embedded/ops' })).json<{
      total: number;
    }>().total;
    for (const [url, body, reason] of [
      ['/api/clusters/embedded/ops/horizontal-scale', { replicas: 2 }, 'HorizontalScaling does not apply'],
      ['/api/clusters/embedded/ops/vertical-scale', { requests: { cpu: '1' } }, 'VerticalScaling does not apply'],
      ['/api/clusters/embedded/ops/volume-expand', { storage: '10Gi' }, 'VolumeExpansion does not apply'],
      ['/api/clusters/embedded/ops/stop', {}, 'Stop does not apply'],
      // Before the phase check: the embedded deployment is always Running, and still Start never applies.
      ['/api/clusters/embedded/ops/start', {}, 'Start does not apply'],
      // Before the catalog check: no version applies, listed or not.
      ['/api/clusters/embedded/upgrade', { version: '9.9.9' }, 'Upgrade does not apply'],
      ['/api/clusters/embedded/ops/switchover', { instanceName: 'embedded-falkordb-0' }, 'a switchover needs a second'],
    ] as const) {
      const res = await post(url, body);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(422);
      expect(res.json<{ message: string }>().message).toContain(reason);
    }
    expect(
      (await admin.inject({ method: 'GET', url: '/api/clusters/embedded/ops' })).json<{ total: number }>().total,
    ).toBe(before);
  });

  it('restarts the child process, keeping the data, and reports, deletes and refuses to cancel the operation', async () => {
    await graphQuery(falkordb, 'survivor', "CREATE (:Kept {name: 'yes'})");
    const pidBefore = falkordb.pid;
    const res = await post('/api/clusters/embedded/ops/restart', {});
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual(accepted('Restart', 'Running'));
    const name = res.json<{ opsName: string }>().opsName;
    let operation: Record<string, unknown> | undefined;
    await eventually(async () => {
      operation = (await admin.inject({ method: 'GET', url: `/api/clusters/embedded/ops/${name}` })).json();
      return operation?.phase === 'Succeed';
    }, 10_000);
    expect(operation).toMatchObject({
      name,
      namespace: 'graphdb-system',
      type: 'Restart',
      phase: 'Succeed',
      progress: '1/1',
    });
    expect(falkordb.pid).not.toBe(pidBefore);
    expect(await graphQuery(falkordb, 'survivor', 'MATCH (k:Kept) RETURN k.name')).toEqual([['yes']]);
    const list = (await admin.inject({ method: 'GET', url: '/api/clusters/embedded/ops' })).json<{
      operations: { name: string }[];
    }>();
    expect(list.operations[0]!.name).toBe(name);
    const cancel = await post(`/api/clusters/embedded/ops/${name}/cancel`, {});
    expect(cancel.statusCode).toBe(409);
    const deleted = await admin.inject({ method: 'DELETE', url: `/api/clusters/embedded/ops/${name}` });
    expect(deleted.statusCode).toBe(204);
    expect((await admin.inject({ method: 'GET', url: `/api/clusters/embedded/ops/${name}` })).statusCode).toBe(404);
  });
});
