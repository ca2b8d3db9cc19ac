// The KubeBlocks 1.x Cluster object (apps.kubeblocks.io/v1) of a new FalkorDB deployment, in the FalkorDB addon's
// layout: components `falkordb` and `falkordb-sent` (replication), or the sharding `shard` (cluster topology).
import type { ComponentService, NewCluster, ResourceAmounts, Scheduling } from '../clusters/cluster-port.js';

const CLUSTER_DEFINITION_LABEL = 'clusterdefinition.kubeblocks.io/name';

type Resources = NewCluster['resources'];

const amounts = (given: ResourceAmounts | undefined) =>
  given && (given.cpu || given.memory)
    ? { ...(given.cpu ? { cpu: given.cpu } : {}), ...(given.memory ? { memory: given.memory } : {}) }
    : undefined;

function resourcesOf(resources: Resources) {
  const requests = amounts(resources?.requests);
  const limits = amounts(resources?.limits);
  return requests || limits ? { resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } } : {};
}

function volumesOf(storage: NewCluster['storage']) {
  if (!storage) return {};
  return {
    volumeClaimTemplates: [
      {
        name: 'data',
        spec: {
          accessModes: ['ReadWriteOnce'],
          ...(storage.storageClass ? { storageClassName: storage.storageClass } : {}),
          resources: { requests: { storage: storage.size } },
        },
      },
    ],
  };
}

function servicesOf(services: ComponentService[] | undefined) {
  if (!services || services.length === 0) return {};
  return {
    services: services.map((service) => ({
      name: service.name,
      serviceType: service.serviceType,
      ...(service.annotations && Object.keys(service.annotations).length > 0
        ? { annotations: service.annotations }
        : {}),
      ...(service.podService !== undefined ? { podService: service.podService } : {}),
    })),
  };
}

function schedulingOf(scheduling: Scheduling | undefined) {
  if (!scheduling || (!scheduling.nodeSelector && !scheduling.tolerations)) return {};
  return {
    schedulingPolicy: {
      ...(scheduling.nodeSelector ? { nodeSelector: scheduling.nodeSelector } : {}),
      ...(scheduling.tolerations ? { tolerations: scheduling.tolerations } : {}),
    },
  };
}

export function clusterManifest(cluster: NewCluster): Record<string, unknown> {
  const data = {
    ...(cluster.version ? { serviceVersion: cluster.version } : {}),
    replicas: cluster.replicas,
    ...resourcesOf(cluster.resources),
    ...volumesOf(cluster.storage),
    ...servicesOf(cluster.services),
    ...schedulingOf(cluster.dataScheduling),
    ...(cluster.disableExporter ? { disableExporter: true } : {}),
  };
  const layout =
    cluster.topology === 'cluster'
      ? { shardings: [{ name: 'shard', shards: cluster.shards ?? 3, template: { name: 'falkordb', ...data } }] }
      : {
          componentSpecs: [
            { name: 'falkordb', ...data },
            ...(cluster.sentinel
              ? [
                  {
                    name: 'falkordb-sent',
                    ...(cluster.version ? { serviceVersion: cluster.version } : {}),
                    replicas: cluster.sentinel.replicas,
                    ...resourcesOf(cluster.sentinel.resources),
                    ...volumesOf(cluster.sentinel.storage),
                    ...servicesOf(cluster.sentinel.services),
                    ...schedulingOf(cluster.sentinel.scheduling),
                  },
                ]
              : []),
          ],
        };
  return {
    apiVersion: 'apps.kubeblocks.io/v1',
    kind: 'Cluster',
    metadata: {
      name: cluster.name,
      namespace: cluster.namespace,
      labels: { ...cluster.labels, [CLUSTER_DEFINITION_LABEL]: 'falkordb' },
      ...(cluster.annotations && Object.keys(cluster.annotations).length > 0
        ? { annotations: cluster.annotations }
        : {}),
    },
    spec: {
      clusterDef: 'falkordb',
      topology: cluster.topology,
      terminationPolicy: cluster.terminationPolicy,
      ...schedulingOf(cluster.scheduling),
      ...layout,
    },
  };
}
