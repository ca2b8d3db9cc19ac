// FalkorDB versions: their order, the module's version number as text, and KubeBlocks' version catalog.
import { describe, expect, it } from 'vitest';
import { moduleVersionText, newestFirst } from '../../src/platform/clusters/versions.js';
import { toVersionCatalogEntry } from '../../src/platform/kubernetes/kubeblocks-versions.js';

describe('FalkorDB versions', () => {
  it('formats MODULE LIST versions and orders dotted versions newest first', () => {
    expect(moduleVersionText(41205)).toBe('4.12.5');
    expect(moduleVersionText(40800)).toBe('4.8.0');
    expect(['4.8.0', '4.12.5', '4.9.10', '4.12.5-rc1'].sort(newestFirst)).toEqual([
      '4.12.5',
      '4.12.5-rc1',
      '4.9.10',
      '4.8.0',
    ]);
  });

  it('turns a ComponentVersion into a catalog entry', () => {
    expect(
      toVersionCatalogEntry({
        metadata: { name: 'falkordb', creationTimestamp: '2026-01-01T00:00:00Z' },
        spec: {
          releases: [
            { name: 'r1', serviceVersion: '4.8.0', images: { falkordb: 'img:4.8.0' } },
            { name: 'r2', serviceVersion: '4.12.5', images: { other: 'other:1' } },
          ],
          compatibilityRules: [
            { compDefs: ['falkordb-1', 'falkordb-cluster-1'], releases: ['r1', 'r2'] },
            { compDefs: ['unused'], releases: ['missing'] },
          ],
        },
      }),
    ).toEqual({
      name: 'falkordb',
      createdAt: '2026-01-01T00:00:00Z',
      releases: [{ version: '4.12.5' }, { version: '4.8.0' }],
      componentDefinitions: [
        { name: 'falkordb-1', version: '4.12.5', image: 'other:1' },
        { name: 'falkordb-cluster-1', version: '4.12.5', image: 'other:1' },
      ],
    });
  });
});
