// Facts about the platform for the console: namespaces, FalkorDB versions, StorageClasses, capacity and metrics.
// Cluster-scoped Kubernetes objects are read only in multi-cluster mode, when the chart's ClusterRole
// (adminServer.multiClusterRbac) grants them; otherwise, and in embedded mode, the answer is what the server knows
// (its namespaces and deployments), with `notes` saying so (docs/decisions/system-diagnostics-licensing.md).
import type { z } from 'zod';
import type { ClusterPort, VersionCatalogEntry } from '../../platform/clusters/cluster-port.js';
import type { ClusterRecord } from '../../platform/clusters/cluster-records.js';
import { newestFirst } from '../../platform/clusters/versions.js';
import type { HostFacts } from '../../platform/host.js';
import type { KubeClusterInfo } from '../../platform/kubernetes/kube-cluster-info.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import type { RoleName } from '../permissions/permissions.js';
import { requestedResources } from './quantities.js';
import type {
  ClusterResourcesSchema,
  NamespaceListSchema,
  StorageClassListSchema,
  SystemMetricsSchema,
  VersionListSchema,
} from './schemas.js';

export interface SystemServiceDeps {
  clusters: ClusterService;
  port: ClusterPort;
  /** Present when the server runs against Kubernetes. */
  kube?: KubeClusterInfo;
  clusterNamespace: string;
  multiClusterMode: () => Promise<boolean>;
  host: () => HostFacts;
  /** When this server started (a stand-in creation time where Kubernetes cannot be asked). */
  startedAt: Date;
  now: () => number;
}

export const NOT_READ_NOTE =
  'Cluster-scoped objects are read only in multi-cluster mode (features.multi_cluster_mode with the chart value adminServer.multiClusterRbac)';
const EMBEDDED_NOTE = 'Embedded mode: no Kubernetes';
const SUPPORT_COMPONENT = 'graphdb-admin-server';

const isIso = (value: string) => value !== '' && !Number.isNaN(Date.parse(value));
const round = (value: number) => Math.round(value * 1000) / 1000;

export function createSystemService(deps: SystemServiceDeps) {
  const { clusters, port, kube, clusterNamespace } = deps;
  const startedAt = deps.startedAt.toISOString();
  /** Cluster-scoped reads are allowed (Kubernetes, multi-cluster mode). */
  const clusterWide = async () => kube !== undefined && (await deps.multiClusterMode());
  const earliest = (deployments: readonly ClusterRecord[]) =>
    deployments
      .map((deployment) => deployment.createdAt)
      .filter(isIso)
      .sort()[0] ?? startedAt;

  /** Versions the deployments in view run, when no catalog can be read. */
  function versionsInUse(deployments: readonly ClusterRecord[]): VersionCatalogEntry[] {
    const versions = [
      ...new Set(deployments.flatMap((d) => d.components.map((c) => c.serviceVersion)).filter(Boolean)),
    ].sort(newestFirst);
    if (versions.length === 0) return [];
    return [
      {
        name: 'falkordb',
        createdAt: earliest(deployments),
        releases: versions.map((version) => ({ version })),
        componentDefinitions: [],
      },
    ];
  }

  return {
    async namespaces(role: RoleName): Promise<z.input<typeof NamespaceListSchema>> {
      if (await clusterWide()) {
        const namespaces = (await kube!.namespaces()).map((ns) => ({
          ...ns,
          createdAt: isIso(ns.createdAt) ? ns.createdAt : startedAt,
        }));
        return { namespaces, total: namespaces.length };
      }
      // The one namespace deployments may live in; its creation time is not readable without the ClusterRole.
      const deployments = await clusters.listVisible(role, clusterNamespace);
      return {
        namespaces: [{ name: clusterNamespace, createdAt: earliest(deployments), status: kube ? 'Unknown' : 'Active' }],
        total: 1,
        notes: [
          kube
            ? `${NOT_READ_NOTE}; only the cluster namespace is listed, its creation time estimated`
            : `${EMBEDDED_NOTE}: the embedded deployment's namespace`,
        ],
      };
    },

    async falkordbVersions(role: RoleName): Promise<z.input<typeof VersionListSchema>> {
      let catalog: VersionCatalogEntry[];
      let notes: string[] | undefined;
      if (!kube) catalog = (await port.versionCatalog?.()) ?? [];
      else if (await clusterWide()) catalog = (await port.versionCatalog?.()) ?? [];
      else {
        catalog = versionsInUse(await clusters.listVisible(role, clusterNamespace));
        notes = [`${NOT_READ_NOTE}; listed are the versions the deployments in ${clusterNamespace} run`];
      }
      const versions = catalog.map((entry) => ({
        name: entry.name,
        falkordbVersion: entry.releases[0]?.version ?? '',
        releases: entry.releases,
        componentDefinitions: entry.componentDefinitions,
        createdAt: isIso(entry.createdAt) ? entry.createdAt : startedAt,
      }));
      return { versions, total: versions.length, ...(notes ? { notes } : {}) };
    },

    async storageClasses(): Promise<z.input<typeof StorageClassListSchema>> {
      if (!kube)
        return { storageClasses: [], total: 0, notes: [`${EMBEDDED_NOTE}: data is kept in DATA_DIR, not on volumes`] };
      if (!(await clusterWide())) return { storageClasses: [], total: 0, notes: [NOT_READ_NOTE] };
      const storageClasses = (await kube.storageClasses()).map((sc) => ({
        ...sc,
        createdAt: isIso(sc.createdAt) ? sc.createdAt : startedAt,
      }));
      return { storageClasses, total: storageClasses.length };
    },

    async clusterResources(role: RoleName): Promise<z.input<typeof ClusterResourcesSchema>> {
      const wide = await deps.multiClusterMode();
      const deployments = await clusters.listVisible(role, wide ? undefined : clusterNamespace);
      const requested = requestedResources(deployments);
      const host = deps.host();
      const support = { cpu: host.processCores, memory: host.processRss };
      const notes = [
        'CPU in cores, memory and storage in bytes; deployments count their resource requests',
        `Support is this replica of ${SUPPORT_COMPONENT} only (its measured CPU and resident memory)`,
      ];
      let cpuTotal = 0;
      let memoryTotal = 0;
      let memoryFree = 0;
      if (kube) notes.push('Capacity is not known: the server does not read Nodes (the chart grants no such right)');
      else {
        cpuTotal = host.cpuCount;
        memoryTotal = host.memoryTotal;
        memoryFree = host.memoryFree;
        notes.push(`${EMBEDDED_NOTE}: capacity is this host's; storage capacity is not measured`);
      }
      const cpuUsed = round(requested.cpu + support.cpu);
      const cpuAvailable = round(Math.max(0, cpuTotal - cpuUsed));
      const memoryUsed = requested.memory + support.memory;
      const memoryAvailable = kube ? 0 : memoryFree;
      const memoryOther = kube ? 0 : Math.max(0, memoryTotal - memoryFree - memoryUsed);
      const limitingResource = kube
        ? ('unknown' as const)
        : cpuAvailable / Math.max(cpuTotal, 1) <= memoryAvailable / Math.max(memoryTotal, 1)
          ? ('cpu' as const)
          : ('memory' as const);
      return {
        timestamp: new Date(deps.now()).toISOString(),
        cpu: {
          total: cpuTotal,
          usedByDeployments: requested.cpu,
          usedBySupport: support.cpu,
          usedTotal: cpuUsed,
          available: cpuAvailable,
          breakdown: {
            system: 0,
            falkordbEnterprise: support.cpu,
            falkordbDeployments: requested.cpu,
            other: 0,
            available: cpuAvailable,
          },
        },
        memory: {
          total: memoryTotal,
          usedByDeployments: requested.memory,
          usedBySupport: support.memory,
          usedTotal: memoryUsed,
          available: memoryAvailable,
          breakdown: {
            system: 0,
            falkordbEnterprise: support.memory,
            falkordbDeployments: requested.memory,
            other: memoryOther,
            available: memoryAvailable,
          },
        },
        storage: {
          capacityKnown: false,
          total: null,
          usedByDeployments: requested.storage,
          usedBySupport: 0,
          usedTotal: requested.storage,
          available: null,
          breakdown: {
            system: 0,
            falkordbEnterprise: 0,
            falkordbDeployments: requested.storage,
            other: 0,
            available: null,
          },
        },
        availableForDeployments: { cpu: cpuAvailable, memory: memoryAvailable, storage: null, limitingResource },
        supportBreakdown: [
          {
            component: SUPPORT_COMPONENT,
            cpu: support.cpu,
            memory: support.memory,
            storage: 0,
            podCount: 1,
            persistentVolumeClaimCount: 0,
          },
        ],
        scope: wide
          ? { mode: 'cluster-wide', namespaces: null }
          : { mode: 'namespace-filtered', namespaces: [clusterNamespace] },
        notes,
      };
    },

    async metrics(role: RoleName): Promise<z.input<typeof SystemMetricsSchema>> {
      const host = deps.host();
      const deployments = await clusters.listVisible(role, undefined);
      const healthy = deployments.filter((deployment) => deployment.phase === 'Running').length;
      const used = host.memoryTotal - host.memoryFree;
      const percentage = host.memoryTotal > 0 ? Math.round((used / host.memoryTotal) * 10000) / 100 : 0;
      return {
        timestamp: new Date(deps.now()).toISOString(),
        cpuUsage: host.cpuBusyPercent,
        memoryUsage: percentage,
        cpu: { usage: host.cpuBusyPercent, count: host.cpuCount },
        memory: { total: host.memoryTotal, used, free: host.memoryFree, percentage },
        clusters: { total: deployments.length, healthy, unhealthy: deployments.length - healthy },
      };
    },
  };
}

export type SystemService = ReturnType<typeof createSystemService>;
