// What a caller's Cluster manifest may carry (src/admin/clusters/manifest-policy.ts): the documented fields only.
import { describe, expect, it } from 'vitest';
import { allowedManifest, assertCallerMetadata, isReservedKey } from '../../src/admin/clusters/manifest-policy.js';
import { BadRequestError } from '../../src/http/http-errors.js';

const base = () => ({
  apiVersion: 'apps.kubeblocks.io/v1',
  kind: 'Cluster',
  metadata: { name: 'solo', namespace: 'team-a', labels: { team: 'a' }, annotations: { 'team/owner': 'graphs' } },
  spec: {
    clusterDef: 'falkordb',
    topology: 'standalone',
    terminationPolicy: 'Delete',
    componentSpecs: [{ name: 'falkordb', componentDef: 'falkordb-1.0.0', serviceVersion: '4.12.5', replicas: 1 }],
  },
});

describe('deployment manifest policy', () => {
  it('keeps the documented fields and sets the FalkorDB label', () => {
    expect(allowedManifest(base())).toEqual({
      ...base(),
      metadata: { ...base().metadata, labels: { team: 'a', 'clusterdefinition.kubeblocks.io/name': 'falkordb' } },
    });
  });

  it.each([
    ['metadata.ownerReferences', (m: ReturnType<typeof base>) => Object.assign(m.metadata, { ownerReferences: [{}] })],
    ['metadata.finalizers', (m: ReturnType<typeof base>) => Object.assign(m.metadata, { finalizers: ['x'] })],
    ['metadata.generateName', (m: ReturnType<typeof base>) => Object.assign(m.metadata, { generateName: 'x-' })],
    [
      'kubeblocks.io annotation',
      (m: ReturnType<typeof base>) =>
        Object.assign(m.metadata.annotations, { 'kubeblocks.io/restore-from-backup': '{}' }),
    ],
    [
      'subdomain annotation',
      (m: ReturnType<typeof base>) => Object.assign(m.metadata.annotations, { 'apps.kubeblocks.io/x': '1' }),
    ],
    [
      'pod-selection label',
      (m: ReturnType<typeof base>) =>
        Object.assign(m.metadata.labels, { 'app.kubernetes.io/managed-by': 'kubeblocks' }),
    ],
    [
      'another engine',
      (m: ReturnType<typeof base>) => Object.assign(m.spec.componentSpecs[0]!, { componentDef: 'redis' }),
    ],
    [
      'a service account',
      (m: ReturnType<typeof base>) => Object.assign(m.spec.componentSpecs[0]!, { serviceAccountName: 'x' }),
    ],
    [
      'instances',
      (m: ReturnType<typeof base>) => Object.assign(m.spec.componentSpecs[0]!, { instances: [{ image: 'x' }] }),
    ],
    [
      'nodeName',
      (m: ReturnType<typeof base>) =>
        Object.assign(m.spec.componentSpecs[0]!, { schedulingPolicy: { nodeName: 'control-plane' } }),
    ],
    ['a spec field not documented', (m: ReturnType<typeof base>) => Object.assign(m.spec, { runtimeClassName: 'x' })],
  ])('refuses %s on a create (400)', (_what, change) => {
    const manifest = base();
    change(manifest);
    expect(() => allowedManifest(manifest)).toThrow(BadRequestError);
  });

  it('keeps the stored reserved metadata on a replace, and refuses to change it', () => {
    const stored = {
      ...base(),
      metadata: {
        ...base().metadata,
        annotations: { 'kubeblocks.io/ops-request': '[]' },
        finalizers: ['cluster.kubeblocks.io/finalizer'],
      },
    };
    const sent = { ...base(), metadata: { ...base().metadata, annotations: { 'kubeblocks.io/ops-request': '[]' } } };
    expect(allowedManifest(sent, stored).metadata).toMatchObject({
      annotations: { 'kubeblocks.io/ops-request': '[]' },
      finalizers: ['cluster.kubeblocks.io/finalizer'],
    });
    const changed = { ...base(), metadata: { ...base().metadata, annotations: { 'kubeblocks.io/ops-request': 'x' } } };
    expect(() => allowedManifest(changed, stored)).toThrow(/cannot be changed/);
    // Left out, it is kept.
    expect(allowedManifest(base(), stored).metadata.annotations).toEqual({
      'team/owner': 'graphs',
      'kubeblocks.io/ops-request': '[]',
    });
    const dropped = { ...base(), metadata: { ...base().metadata, finalizers: [] } };
    expect(() => allowedManifest(dropped, stored)).toThrow(/finalizers/);
  });

  it('reserves kubeblocks.io, graphdb.falkordb.com and pod-selection keys for the platform', () => {
    expect(isReservedKey('kubeblocks.io/restore-from-backup', 'annotation')).toBe(true);
    expect(isReservedKey('dataprotection.kubeblocks.io/x', 'annotation')).toBe(true);
    expect(isReservedKey('graphdb.falkordb.com/backup-repo', 'label')).toBe(true);
    expect(isReservedKey('app.kubernetes.io/instance', 'label')).toBe(true);
    expect(isReservedKey('app.kubernetes.io/instance', 'annotation')).toBe(false);
    expect(isReservedKey('notkubeblocks.io/x', 'annotation')).toBe(false);
    expect(isReservedKey('team/owner', 'label')).toBe(false);
    expect(() => assertCallerMetadata({ team: 'a' }, { 'kubeblocks.io/x': '1' })).toThrow(
      /annotation kubeblocks.io\/x is reserved/,
    );
  });
});
