// The version catalog of KubeBlocks: its ComponentVersion objects (apps.kubeblocks.io, cluster-scoped), read as
// catalog entries of the FalkorDB releases a deployment may be created with.
import { z } from 'zod';
import type { ClusterPort, VersionCatalogEntry } from '../clusters/cluster-port.js';
import { newestFirst } from '../clusters/versions.js';
import { isNotFound } from './kube-errors.js';
import { CLUSTER_GROUP, type KubeBlocksAccess } from './kubeblocks-api.js';

/** A KubeBlocks ComponentVersion (apps.kubeblocks.io, cluster-scoped): releases and which definitions use them. */
const RawComponentVersionSchema = z.object({
  metadata: z.object({ name: z.string(), creationTimestamp: z.string().optional() }),
  spec: z
    .object({
      releases: z
        .array(
          z.object({
            name: z.string(),
            serviceVersion: z.string(),
            images: z.record(z.string(), z.string()).optional(),
          }),
        )
        .optional(),
      compatibilityRules: z
        .array(z.object({ compDefs: z.array(z.string()).optional(), releases: z.array(z.string()).optional() }))
        .optional(),
    })
    .optional(),
});
/** At most this many ComponentVersion objects are read (a catalog holds a handful). */
const CATALOG_LIMIT = 200;

/** A ComponentVersion as a catalog entry: releases newest first, each compatible definition at its newest release. */
export function toVersionCatalogEntry(raw: z.infer<typeof RawComponentVersionSchema>): VersionCatalogEntry {
  const releases = raw.spec?.releases ?? [];
  const byName = new Map(releases.map((release) => [release.name, release]));
  const componentDefinitions = (raw.spec?.compatibilityRules ?? []).flatMap((rule) => {
    const usable = (rule.releases ?? []).flatMap((name) => byName.get(name) ?? []);
    const newest = usable.sort((a, b) => newestFirst(a.serviceVersion, b.serviceVersion))[0];
    if (!newest) return [];
    const images = Object.entries(newest.images ?? {});
    const image = (newest.images?.falkordb ?? images[0]?.[1]) || undefined;
    return (rule.compDefs ?? []).map((name) => ({ name, version: newest.serviceVersion, ...(image ? { image } : {}) }));
  });
  return {
    name: raw.metadata.name,
    createdAt: raw.metadata.creationTimestamp ?? '',
    releases: [...new Set(releases.map((release) => release.serviceVersion))]
      .sort(newestFirst)
      .map((version) => ({ version })),
    componentDefinitions,
  };
}

/** The version-catalog part of the cluster port. */
export function kubeBlocksVersions(access: KubeBlocksAccess): Required<Pick<ClusterPort, 'versionCatalog'>> {
  return {
    async versionCatalog() {
      const api = await access.apiVersions();
      try {
        const reply = (await access.objects.listClusterCustomObject({
          group: CLUSTER_GROUP,
          version: api.clusterVersion,
          plural: 'componentversions',
          limit: CATALOG_LIMIT,
        })) as { items?: unknown[] };
        return (reply.items ?? []).flatMap((item) => {
          const parsed = RawComponentVersionSchema.safeParse(item);
          return parsed.success && parsed.data.metadata.name.includes('falkordb')
            ? [toVersionCatalogEntry(parsed.data)]
            : [];
        });
      } catch (error) {
        // No ComponentVersion kind (KubeBlocks 0.9 before it had one): an empty catalog, not an error.
        if (isNotFound(error)) return [];
        throw access.failure(error, 'list', 'componentversions');
      }
    },
  };
}
