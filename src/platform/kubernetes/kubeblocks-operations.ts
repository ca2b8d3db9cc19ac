// KubeBlocks OpsRequests: the body of each day-2 operation in the installed KubeBlocks' dialect (1.x or 0.9), and
// their creation, list, read, delete and cancel for the cluster adapter.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { ClusterPort, OperationOptions, OperationRequest, ResourceAmounts } from '../clusters/cluster-port.js';
import { RawOpsRequestSchema, toOperationRecord, type ClusterRecord } from '../clusters/cluster-records.js';
import { PortError } from '../port-errors.js';
import { INSTANCE_LABEL } from '../../lib/kubernetes-labels.js';
import { isNotFound } from './kube-errors.js';
import type { KubeBlocksAccess, KubeBlocksApi } from './kubeblocks-api.js';

const OPS_TYPE_LABEL = 'operations.kubeblocks.io/ops-type';
/** At most this many OpsRequests of one cluster are read for its list (KubeBlocks keeps a bounded history). */
const OPS_LIST_LIMIT = 1000;

const opsParamsOf = (api: KubeBlocksApi) => ({ group: api.opsGroup, version: 'v1alpha1', plural: 'opsrequests' });

const amounts = (given: ResourceAmounts | undefined) =>
  given && (given.cpu || given.memory)
    ? { ...(given.cpu ? { cpu: given.cpu } : {}), ...(given.memory ? { memory: given.memory } : {}) }
    : undefined;

/** The OpsRequest body for one operation, in the dialect of the installed KubeBlocks. */
export function opsRequestBody(
  namespace: string,
  cluster: ClusterRecord,
  request: OperationRequest,
  api: KubeBlocksApi,
  options: OperationOptions = {},
): Record<string, unknown> {
  const legacy = api.clusterVersion === 'v1alpha1';
  const spec: Record<string, unknown> = { clusterName: cluster.name, type: request.type };
  if (options.force) spec.force = true;
  switch (request.type) {
    case 'Restart':
      spec.restart = request.components.map((componentName) => ({ componentName }));
      break;
    case 'Upgrade':
      spec.upgrade = {
        components: request.components.map((componentName) => ({
          componentName,
          ...(request.serviceVersion ? { serviceVersion: request.serviceVersion } : {}),
          ...(request.componentDefinition ? { componentDefinitionName: request.componentDefinition } : {}),
        })),
      };
      break;
    case 'Start':
    case 'Stop':
      break;
    case 'HorizontalScaling': {
      const entry: Record<string, unknown> = { componentName: request.component };
      if (request.shards !== undefined) entry.shards = request.shards;
      if (request.replicas !== undefined) {
        if (legacy) entry.replicas = request.replicas;
        else {
          // KubeBlocks 1.x takes deltas: scale out or in by the difference from the current count.
          const delta = request.replicas - request.currentReplicas;
          if (delta > 0) entry.scaleOut = { replicaChanges: delta };
          if (delta < 0) entry.scaleIn = { replicaChanges: -delta };
        }
      }
      spec.horizontalScaling = [entry];
      break;
    }
    case 'VerticalScaling': {
      const requests = amounts(request.requests);
      const limits = amounts(request.limits);
      spec.verticalScaling = [
        { componentName: request.component, ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
      ];
      break;
    }
    case 'Reconfiguring': {
      // A null value clears the parameter: the entry names the key without a value.
      const parameters = Object.entries(request.parameters).map(([key, value]) =>
        value === null ? { key } : { key, value },
      );
      if (request.force) spec.force = true;
      if (request.preConditionDeadlineSeconds) spec.preConditionDeadlineSeconds = request.preConditionDeadlineSeconds;
      if (legacy)
        spec.reconfigure = {
          componentName: request.component,
          configurations: [{ name: 'falkordb-config', keys: [{ key: 'redis.conf', parameters }] }],
        };
      else spec.reconfigures = [{ componentName: request.component, parameters }];
      break;
    }
    case 'Switchover':
      // 1.x: the instance to demote and, optionally, the one to promote; 0.9: the one to promote ("*": any).
      spec.switchover = [
        legacy
          ? { componentName: request.component, instanceName: request.candidateName ?? '*' }
          : {
              componentName: request.component,
              instanceName: request.instanceName,
              ...(request.candidateName ? { candidateName: request.candidateName } : {}),
            },
      ];
      break;
    case 'VolumeExpansion':
      spec.volumeExpansion = [
        {
          componentName: request.component,
          volumeClaimTemplates: [{ name: request.volumeName, storage: request.storage }],
        },
      ];
      break;
  }
  const type = request.type.toLowerCase();
  return {
    apiVersion: `${api.opsGroup}/v1alpha1`,
    kind: 'OpsRequest',
    metadata: {
      generateName: `${cluster.name}-${type}-`,
      namespace,
      labels: { [INSTANCE_LABEL]: cluster.name, [OPS_TYPE_LABEL]: request.type },
    },
    spec,
  };
}

/** The OpsRequest half of the cluster port. */
export function kubeBlocksOperations(
  access: KubeBlocksAccess,
): Pick<ClusterPort, 'createOperation' | 'listOperations' | 'getOperation' | 'deleteOperation' | 'cancelOperation'> {
  const { objects } = access;
  return {
    async createOperation(namespace, cluster, request, options) {
      const api = await access.apiVersions();
      // KubeBlocks 0.9's OpsRequest has no shard count (its schema would silently drop one, leaving an operation
      // that changes nothing): 0.9 reshards only through the Cluster's spec.shardingSpecs.
      if (api.clusterVersion === 'v1alpha1' && request.type === 'HorizontalScaling' && request.shards !== undefined)
        throw new PortError(
          'rejected',
          `KubeBlocks 0.9 cannot change the shard count of ${request.component} with an OpsRequest; change spec.shardingSpecs of cluster ${cluster.name} instead`,
        );
      try {
        const created = (await objects.createNamespacedCustomObject({
          ...opsParamsOf(api),
          namespace,
          body: opsRequestBody(namespace, cluster, request, api, options),
        })) as { metadata?: { name?: string } };
        return created.metadata?.name ?? '';
      } catch (error) {
        throw access.failure(error, 'create', 'OpsRequest');
      }
    },

    async listOperations(namespace, cluster) {
      const opsParams = opsParamsOf(await access.apiVersions());
      try {
        const reply = (await objects.listNamespacedCustomObject({
          ...opsParams,
          namespace,
          labelSelector: `${INSTANCE_LABEL}=${cluster}`,
          limit: OPS_LIST_LIMIT,
        })) as { items?: unknown[] };
        return (reply.items ?? [])
          .flatMap((item) => {
            const parsed = RawOpsRequestSchema.safeParse(item);
            return parsed.success ? [toOperationRecord(parsed.data)] : [];
          })
          .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name));
      } catch (error) {
        throw access.failure(error, 'list', 'OpsRequests');
      }
    },

    async getOperation(namespace, cluster, name) {
      const opsParams = opsParamsOf(await access.apiVersions());
      try {
        const parsed = RawOpsRequestSchema.safeParse(
          await objects.getNamespacedCustomObject({ ...opsParams, namespace, name }),
        );
        if (!parsed.success) return undefined;
        const record = toOperationRecord(parsed.data);
        return record.cluster === cluster ? record : undefined;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw access.failure(error, 'get', `OpsRequest ${namespace}/${name}`);
      }
    },

    async deleteOperation(namespace, name) {
      const opsParams = opsParamsOf(await access.apiVersions());
      try {
        await objects.deleteNamespacedCustomObject({ ...opsParams, namespace, name });
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw access.failure(error, 'delete', `OpsRequest ${namespace}/${name}`);
      }
    },

    async cancelOperation(namespace, name) {
      const opsParams = opsParamsOf(await access.apiVersions());
      try {
        await objects.patchNamespacedCustomObject(
          { ...opsParams, namespace, name, body: { spec: { cancel: true } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      } catch (error) {
        throw access.failure(error, 'patch', `OpsRequest ${namespace}/${name}`);
      }
    },
  };
}
