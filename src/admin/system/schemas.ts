// Shapes of the system routes (/api/system/*, /api/metrics/), field for field the FalkorDB Enterprise admin API's.
import { z } from 'zod';

const DateTime = z.iso.datetime({ offset: true });
/** Why a list is shorter than the cluster's (what the server may not read) or empty; absent when complete. */
const Notes = z.array(z.string()).optional();

export const NamespaceListSchema = z.object({
  namespaces: z.array(
    z.object({
      name: z.string(),
      createdAt: DateTime,
      status: z.string().optional(),
      labels: z.record(z.string(), z.string()).optional(),
    }),
  ),
  total: z.int(),
  notes: Notes,
});

export const VersionListSchema = z.object({
  versions: z.array(
    z.object({
      name: z.string(),
      falkordbVersion: z.string(),
      releases: z.array(
        z.object({ version: z.string(), releaseDate: DateTime.optional(), stable: z.boolean().optional() }),
      ),
      componentDefinitions: z.array(z.object({ name: z.string(), version: z.string(), image: z.string().optional() })),
      createdAt: DateTime,
    }),
  ),
  total: z.int(),
  notes: Notes,
});

export const StorageClassListSchema = z.object({
  storageClasses: z.array(
    z.object({
      name: z.string(),
      provisioner: z.string(),
      reclaimPolicy: z.string().optional(),
      volumeBindingMode: z.string().optional(),
      allowVolumeExpansion: z.boolean().optional(),
      isDefault: z.boolean(),
      createdAt: DateTime,
    }),
  ),
  total: z.int(),
  notes: Notes,
});

const Breakdown = z.object({
  system: z.number(),
  falkordbEnterprise: z.number(),
  falkordbDeployments: z.number(),
  other: z.number(),
  available: z.number(),
});
const Capacity = z.object({
  total: z.number(),
  usedByDeployments: z.number(),
  usedBySupport: z.number(),
  usedTotal: z.number(),
  available: z.number(),
  breakdown: Breakdown,
});

/** CPU in cores, memory and storage in bytes. */
export const ClusterResourcesSchema = z.object({
  timestamp: DateTime,
  cpu: Capacity,
  memory: Capacity,
  storage: z.object({
    capacityKnown: z.boolean(),
    total: z.number().nullable(),
    usedByDeployments: z.number(),
    usedBySupport: z.number(),
    usedTotal: z.number(),
    available: z.number().nullable(),
    breakdown: Breakdown.extend({ available: z.number().nullable() }),
  }),
  availableForDeployments: z.object({
    cpu: z.number(),
    memory: z.number(),
    storage: z.number().nullable(),
    limitingResource: z.enum(['cpu', 'memory', 'storage', 'unknown']),
  }),
  supportBreakdown: z.array(
    z.object({
      component: z.string(),
      cpu: z.number(),
      memory: z.number(),
      storage: z.number(),
      podCount: z.int(),
      persistentVolumeClaimCount: z.int(),
    }),
  ),
  scope: z.object({
    mode: z.enum(['cluster-wide', 'namespace-filtered']),
    namespaces: z.array(z.string()).nullable(),
  }),
  notes: z.array(z.string()),
});

/** GET /api/metrics/: the host's CPU and memory (percentages 0–100, bytes) and the visible deployments' health. */
export const SystemMetricsSchema = z.object({
  timestamp: z.string(),
  cpuUsage: z.number(),
  memoryUsage: z.number(),
  cpu: z.object({ usage: z.number(), count: z.number() }),
  memory: z.object({ total: z.number(), used: z.number(), free: z.number(), percentage: z.number() }),
  clusters: z.object({ total: z.number(), healthy: z.number(), unhealthy: z.number() }),
});
