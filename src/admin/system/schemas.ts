// Shapes of the system routes (/api/system/*, /api/metrics/), field for field the FalkorDB Enterprise admin API's.
import { z } from 'zod';
import { timestamp } from '../../lib/timestamp-schema.js';

const DateTime = z.iso.datetime({ offset: true });
/** Why a list is shorter than the cluster's (what the server may not read) or empty; absent when complete. */
const Notes = z
  .array(z.string())
  .optional()
  .describe("Why the list is shorter than the Kubernetes cluster's, or empty; absent when complete");
const Total = z.int().describe('How many the answer lists');

export const NamespaceListSchema = z
  .object({
    namespaces: z
      .array(
        z.object({
          name: z.string().describe('The namespace'),
          createdAt: DateTime.describe('When it was created'),
          status: z.string().optional().describe('Its phase: Active or Terminating'),
          labels: z.record(z.string(), z.string()).optional().describe('Its labels'),
        }),
      )
      .describe('The namespaces deployments may live in'),
    total: Total,
    notes: Notes,
  })
  .meta({
    examples: [
      {
        namespaces: [
          {
            name: 'graphdb',
            createdAt: '2026-10-02T08:11:45Z',
            status: 'Active',
            labels: { 'kubernetes.io/metadata.name': 'graphdb' },
          },
          {
            name: 'graphdb-staging',
            createdAt: '2026-10-14T13:40:02Z',
            status: 'Active',
            labels: { 'kubernetes.io/metadata.name': 'graphdb-staging' },
          },
        ],
        total: 2,
      },
    ],
  });

export const VersionListSchema = z
  .object({
    versions: z
      .array(
        z.object({
          name: z.string().describe('The KubeBlocks ComponentVersion'),
          falkordbVersion: z.string().describe("The newest release's version; '' when it lists none"),
          releases: z
            .array(
              z.object({
                version: z.string().describe('A FalkorDB version'),
                releaseDate: DateTime.optional().describe('When it was released'),
                stable: z.boolean().optional().describe('Whether it is a stable release'),
              }),
            )
            .describe('The versions it offers, newest first'),
          componentDefinitions: z
            .array(
              z.object({
                name: z.string().describe('A KubeBlocks ComponentDefinition'),
                version: z.string().describe('The newest version it can run'),
                image: z.string().optional().describe("That version's FalkorDB image"),
              }),
            )
            .describe('The ComponentDefinitions these versions run with'),
          createdAt: DateTime.describe('When the ComponentVersion was created'),
        }),
      )
      .describe('The version catalog'),
    total: Total,
    notes: Notes,
  })
  .meta({
    examples: [
      {
        versions: [
          {
            name: 'falkordb',
            falkordbVersion: '4.14.2',
            releases: [{ version: '4.14.2' }, { version: '4.12.5' }],
            componentDefinitions: [
              { name: 'falkordb-1.0.1', version: '4.14.2', image: 'docker.io/falkordb/falkordb:v4.14.2' },
            ],
            createdAt: '2026-10-02T08:20:13Z',
          },
        ],
        total: 1,
      },
    ],
  });

export const StorageClassListSchema = z
  .object({
    storageClasses: z
      .array(
        z.object({
          name: z.string().describe('The StorageClass'),
          provisioner: z.string().describe('The volume plugin that provisions its volumes'),
          reclaimPolicy: z.string().optional().describe('Delete or Retain: what becomes of a released volume'),
          volumeBindingMode: z
            .string()
            .optional()
            .describe('Immediate or WaitForFirstConsumer: when a volume is bound'),
          allowVolumeExpansion: z.boolean().optional().describe('Whether its volumes can grow (volume-expand)'),
          isDefault: z.boolean().describe('Whether it is the default class'),
          createdAt: DateTime.describe('When it was created'),
        }),
      )
      .describe('The StorageClasses deployment volumes may use'),
    total: Total,
    notes: Notes,
  })
  .meta({
    examples: [
      {
        storageClasses: [
          {
            name: 'standard',
            provisioner: 'pd.csi.storage.gke.io',
            reclaimPolicy: 'Delete',
            volumeBindingMode: 'WaitForFirstConsumer',
            allowVolumeExpansion: true,
            isDefault: true,
            createdAt: '2026-09-30T16:02:51Z',
          },
        ],
        total: 1,
      },
    ],
  });

const Breakdown = z.object({
  system: z.number().describe("Used by Kubernetes' own components (0: not measured)"),
  falkordbEnterprise: z.number().describe('Used by this server'),
  falkordbDeployments: z.number().describe('Requested by the deployments'),
  other: z.number().describe('Used by anything else'),
  available: z.number().describe('Free'),
});
const Capacity = z.object({
  total: z.number().describe('Capacity (0 when unknown)'),
  usedByDeployments: z.number().describe("The deployments' requests"),
  usedBySupport: z.number().describe("This server's measured use"),
  usedTotal: z.number().describe('Both together'),
  available: z.number().describe('What is left'),
  breakdown: Breakdown.describe('The same split by consumer'),
});

/** CPU in cores, memory and storage in bytes. */
export const ClusterResourcesSchema = z
  .object({
    timestamp: DateTime.describe('When the figures were taken'),
    cpu: Capacity.describe('CPU, in cores'),
    memory: Capacity.describe('Memory, in bytes'),
    storage: z
      .object({
        capacityKnown: z.boolean().describe('Whether the storage capacity is known (never, for now)'),
        total: z.number().nullable().describe('Capacity; null when unknown'),
        usedByDeployments: z.number().describe("The deployments' volume requests"),
        usedBySupport: z.number().describe("This server's volumes"),
        usedTotal: z.number().describe('Both together'),
        available: z.number().nullable().describe('What is left; null when unknown'),
        breakdown: Breakdown.extend({
          available: z.number().nullable().describe('Free; null when unknown'),
        }).describe('The same split by consumer'),
      })
      .describe('Storage, in bytes'),
    availableForDeployments: z
      .object({
        cpu: z.number().describe('Cores a new deployment may still request'),
        memory: z.number().describe('Bytes of memory a new deployment may still request'),
        storage: z.number().nullable().describe('Bytes of storage; null when unknown'),
        limitingResource: z
          .enum(['cpu', 'memory', 'storage', 'unknown'])
          .describe('The resource that runs out first; unknown when capacity is'),
      })
      .describe('Room left for deployments'),
    supportBreakdown: z
      .array(
        z.object({
          component: z.string().describe('The support component'),
          cpu: z.number().describe('Cores it uses'),
          memory: z.number().describe('Bytes of memory it uses'),
          storage: z.number().describe('Bytes of storage it uses'),
          podCount: z.int().describe('Its pods'),
          persistentVolumeClaimCount: z.int().describe('Its volume claims'),
        }),
      )
      .describe('What the support components use'),
    scope: z
      .object({
        mode: z
          .enum(['cluster-wide', 'namespace-filtered'])
          .describe('Every namespace (multi-cluster mode), or the listed ones'),
        namespaces: z.array(z.string()).nullable().describe('The namespaces counted; null when all are'),
      })
      .describe('Which deployments are counted'),
    notes: z.array(z.string()).describe('How the figures were obtained and what they leave out'),
  })
  .meta({
    examples: [
      {
        timestamp: '2026-11-28T10:30:00.000Z',
        cpu: {
          total: 0,
          usedByDeployments: 2.6,
          usedBySupport: 0.042,
          usedTotal: 2.642,
          available: 0,
          breakdown: { system: 0, falkordbEnterprise: 0.042, falkordbDeployments: 2.6, other: 0, available: 0 },
        },
        memory: {
          total: 0,
          usedByDeployments: 5100273664,
          usedBySupport: 142606336,
          usedTotal: 5242880000,
          available: 0,
          breakdown: {
            system: 0,
            falkordbEnterprise: 142606336,
            falkordbDeployments: 5100273664,
            other: 0,
            available: 0,
          },
        },
        storage: {
          capacityKnown: false,
          total: null,
          usedByDeployments: 64424509440,
          usedBySupport: 0,
          usedTotal: 64424509440,
          available: null,
          breakdown: {
            system: 0,
            falkordbEnterprise: 0,
            falkordbDeployments: 64424509440,
            other: 0,
            available: null,
          },
        },
        availableForDeployments: { cpu: 0, memory: 0, storage: null, limitingResource: 'unknown' },
        supportBreakdown: [
          {
            component: 'graphdb-admin-server',
            cpu: 0.042,
            memory: 142606336,
            storage: 0,
            podCount: 1,
            persistentVolumeClaimCount: 0,
          },
        ],
        scope: { mode: 'namespace-filtered', namespaces: ['graphdb'] },
        notes: [
          'CPU in cores, memory and storage in bytes; deployments count their resource requests',
          'Support is this replica of graphdb-admin-server only (its measured CPU and resident memory)',
          'Capacity is not known: the server does not read Nodes (the chart grants no such right)',
        ],
      },
    ],
  });

/** GET /api/metrics/: the host's CPU and memory (percentages 0–100, bytes) and the visible deployments' health. */
export const SystemMetricsSchema = z
  .object({
    timestamp: timestamp('When the figures were taken'),
    cpuUsage: z.number().describe("The host's CPU busy share since the previous call, in percent"),
    memoryUsage: z.number().describe("The host's memory in use, in percent"),
    cpu: z
      .object({
        usage: z.number().describe('The same as `cpuUsage`'),
        count: z.number().describe('CPU cores of the host'),
      })
      .describe("The host's CPU"),
    memory: z
      .object({
        total: z.number().describe('Bytes of memory'),
        used: z.number().describe('Bytes in use'),
        free: z.number().describe('Bytes free'),
        percentage: z.number().describe('The same as `memoryUsage`'),
      })
      .describe("The host's memory"),
    clusters: z
      .object({
        total: z.number().describe('Deployments the caller may see'),
        healthy: z.number().describe('Those Running'),
        unhealthy: z.number().describe('The others'),
      })
      .describe('Deployments by health'),
  })
  .meta({
    examples: [
      {
        timestamp: '2026-11-28T10:30:00.000Z',
        cpuUsage: 23.5,
        memoryUsage: 61.27,
        cpu: { usage: 23.5, count: 8 },
        memory: { total: 33554432000, used: 20558381056, free: 12996050944, percentage: 61.27 },
        clusters: { total: 3, healthy: 2, unhealthy: 1 },
      },
    ],
  });
