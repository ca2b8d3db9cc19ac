// The pure rules behind the day-2 operations' pre-validation: Kubernetes quantities, parameter values, and the
// OpsRequest bodies each KubeBlocks dialect gets.
import { describe, expect, it } from 'vitest';
import { needsRestart, parameterValueProblem } from '../../src/platform/falkordb/server-parameters.js';
import { quantityValue } from '../../src/admin/operations/operation-service.js';
import type { ClusterRecord } from '../../src/platform/clusters/cluster-records.js';
import { opsRequestBody } from '../../src/platform/kubernetes/kubeblocks-operations.js';

const V1 = { clusterVersion: 'v1', opsGroup: 'operations.kubeblocks.io' } as const;
const V1ALPHA1 = { clusterVersion: 'v1alpha1', opsGroup: 'apps.kubeblocks.io' } as const;
const cluster = { name: 'db' } as ClusterRecord;

describe('quantityValue', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['1.5', 1.5],
    ['1Gi', 2 ** 30],
    ['512Mi', 512 * 2 ** 20],
    ['1G', 1e9],
    ['20Gi', 20 * 2 ** 30],
  ])('reads %s as %d', (text, value) => expect(quantityValue(text)).toBe(value));

  it.each(['', 'lots', '-1', '0', '1 Gi', '1gi', '1e3', 'Gi', '1.'])('refuses %j', (text) =>
    expect(quantityValue(text)).toBeUndefined(),
  );

  it('compares across units, as a volume that only grows needs', () => {
    expect(quantityValue('1Ti')! > quantityValue('1000Gi')!).toBe(true);
    expect(quantityValue('20Gi')! > quantityValue('20G')!).toBe(true);
  });
});

describe('parameterValueProblem', () => {
  it.each([
    ['TIMEOUT', '0'],
    ['TIMEOUT', '1000'],
    ['RESULTSET_SIZE', '-1'],
    ['CMD_INFO', 'yes'],
    ['CMD_INFO', 'NO'],
    ['THREAD_COUNT', '8'],
    ['BOLT_PORT', '7687'],
    ['IMPORT_FOLDER', '/data/import/'],
  ])('accepts %s=%s', (key, value) => expect(parameterValueProblem(key, value)).toBeUndefined());

  it.each([
    ['TIMEOUT', '-1', 'TIMEOUT takes an integer of at least 0 (got "-1")'],
    ['TIMEOUT', '1.5', 'TIMEOUT takes an integer of at least 0 (got "1.5")'],
    ['THREAD_COUNT', '0', 'THREAD_COUNT takes an integer of at least 1 (got "0")'],
    ['CMD_INFO', 'true', 'CMD_INFO takes yes or no (got "true")'],
    ['BOLT_PORT', '70000', 'BOLT_PORT takes a port number (1-65535) (got "70000")'],
    ['TEMP_FOLDER', 'relative/dir', 'TEMP_FOLDER takes an absolute path (got "relative/dir")'],
  ])('refuses %s=%s', (key, value, problem) => expect(parameterValueProblem(key, value)).toBe(problem));

  it('knows which parameters take effect only after a restart', () => {
    expect(needsRestart('THREAD_COUNT')).toBe(true);
    expect(needsRestart('TIMEOUT')).toBe(false);
  });
});

describe('opsRequestBody', () => {
  it('sends totals as 1.x deltas and 0.9 absolute replicas, never shards with a delta', () => {
    const scale = (replicas: number, api: typeof V1 | typeof V1ALPHA1) =>
      opsRequestBody(
        'ns',
        cluster,
        { type: 'HorizontalScaling', component: 'falkordb', kind: 'component', currentReplicas: 3, replicas },
        api,
      ).spec;
    expect(scale(5, V1)).toMatchObject({
      horizontalScaling: [{ componentName: 'falkordb', scaleOut: { replicaChanges: 2 } }],
    });
    expect(scale(1, V1)).toMatchObject({
      horizontalScaling: [{ componentName: 'falkordb', scaleIn: { replicaChanges: 2 } }],
    });
    expect(scale(5, V1ALPHA1)).toMatchObject({ horizontalScaling: [{ componentName: 'falkordb', replicas: 5 }] });
    const shards = opsRequestBody(
      'ns',
      cluster,
      { type: 'HorizontalScaling', component: 'shard', kind: 'sharding', currentReplicas: 2, shards: 4 },
      V1,
    ).spec as { horizontalScaling: Record<string, unknown>[] };
    expect(shards.horizontalScaling).toEqual([{ componentName: 'shard', shards: 4 }]);
  });

  it('names the candidate as 0.9 instanceName (any when none), and sends force and the deadline to the spec', () => {
    const switchover = { type: 'Switchover', component: 'falkordb', instanceName: 'db-falkordb-0' } as const;
    expect(opsRequestBody('ns', cluster, switchover, V1).spec).toMatchObject({
      switchover: [{ componentName: 'falkordb', instanceName: 'db-falkordb-0' }],
    });
    expect(opsRequestBody('ns', cluster, switchover, V1ALPHA1).spec).toMatchObject({
      switchover: [{ componentName: 'falkordb', instanceName: '*' }],
    });
    expect(
      opsRequestBody(
        'ns',
        cluster,
        {
          type: 'Reconfiguring',
          component: 'falkordb',
          parameters: { TIMEOUT: '5', CACHE_SIZE: null },
          force: true,
          preConditionDeadlineSeconds: 30,
        },
        V1,
      ).spec,
    ).toEqual({
      clusterName: 'db',
      type: 'Reconfiguring',
      force: true,
      preConditionDeadlineSeconds: 30,
      reconfigures: [
        { componentName: 'falkordb', parameters: [{ key: 'TIMEOUT', value: '5' }, { key: 'CACHE_SIZE' }] },
      ],
    });
    expect(
      opsRequestBody('ns', cluster, { type: 'Restart', components: ['falkordb'] }, V1, { force: true }).spec,
    ).toEqual({ clusterName: 'db', type: 'Restart', force: true, restart: [{ componentName: 'falkordb' }] });
  });
});
