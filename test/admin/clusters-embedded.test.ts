import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DYNAMIC_PARAMETERS } from '../../src/admin/clusters/falkordb-parameters.js';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import { createEmbeddedClusters } from '../../src/platform/clusters/embedded-clusters.js';
import { useAdminApp } from '../support/admin.js';
import { graphQuery } from '../support/browser.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import { eventually } from '../support/wait.js';

describe('clusters in embedded mode', () => {
  let falkordb: TestFalkorDB;
  let clusters: ClusterPort;
  beforeAll(async () => {
    falkordb = await startTestFalkorDB({ dataDir: await mkdtemp(path.join(os.tmpdir(), 'gdb-embedded-cluster-')) });
    const control = createClient({ url: falkordb.url });
    control.on('error', () => undefined);
    clusters = createEmbeddedClusters({
      falkordb,
      namespace: 'graphdb-system',
      configSet: async (key, value) => {
        if (!control.isOpen) await control.connect();
        await control.sendCommand(['GRAPH.CONFIG', 'SET', key, value]);
      },
      isDynamicParameter: (key) => DYNAMIC_PARAMETERS.has(key),
      logger: pino({ level: 'silent' }),
    });
  });
  // Registered after the FalkorDB's hooks: the app starts after it, and closes before it stops.
  afterAll(() => falkordb.stop());
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
          phase: 'Running',
          topology: 'standalone',
          terminationPolicy: '',
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
    });
  });

  it('applies dynamic parameters with GRAPH.CONFIG SET and refuses static ones with 422', async () => {
    const res = await admin.inject({
      method: 'POST',
      url: '/api/clusters/embedded/reconfigure',
      payload: { parameters: { MAX_INFO_QUERIES: 777 } },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(await configValue('MAX_INFO_QUERIES')).toBe(777);
    const staticKey = await admin.inject({
      method: 'POST',
      url: '/api/clusters/embedded/reconfigure',
      payload: { parameters: { THREAD_COUNT: 8 } },
    });
    expect(staticKey.statusCode).toBe(422);
    expect(staticKey.json()).toEqual({
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: 'Not supported in embedded mode: THREAD_COUNT can only be set at start-up',
    });
  });

  it('answers 422 for operations that do not apply to one embedded process', async () => {
    for (const [url, body] of [
      ['/api/clusters/embedded/scale', { replicas: 2 }],
      ['/api/clusters/embedded/stop', undefined],
    ] as const) {
      const res = await admin.inject({ method: 'POST', url, payload: body });
      expect(res.statusCode, url).toBe(422);
      expect(res.json<{ message: string }>().message).toBe('Not supported in embedded mode');
    }
  });

  it('restarts the child process, keeping the data, and reports the operation', async () => {
    await graphQuery(falkordb, 'survivor', "CREATE (:Kept {name: 'yes'})");
    const pidBefore = falkordb.pid;
    const res = await admin.inject({ method: 'POST', url: '/api/clusters/embedded/restart', payload: {} });
    expect(res.statusCode).toBe(202);
    const name = res.json<{ operation: string }>().operation;
    let operation: Record<string, unknown> | undefined;
    await eventually(async () => {
      operation = (await admin.inject({ method: 'GET', url: '/api/clusters/embedded/operations' }))
        .json<{ operations: Record<string, unknown>[] }>()
        .operations.find((o) => o.name === name);
      return operation?.phase === 'Succeed';
    }, 10_000);
    expect(operation).toMatchObject({ type: 'Restart', phase: 'Succeed', progress: '1/1' });
    expect(falkordb.pid).not.toBe(pidBefore);
    expect(await graphQuery(falkordb, 'survivor', 'MATCH (k:Kept) RETURN k.name')).toEqual([['yes']]);
  });
});
