// Cluster reads and operations with the checks KubeBlocks would only make later: the cluster and component
// exist, quantities parse, counts are sane, and the cluster's phase allows the operation.
import type { ClusterPort, OperationRequest } from '../../platform/clusters/cluster-port.js';
import type { ClusterRecord, ComponentRecord } from '../../platform/clusters/cluster-records.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../shared/http-errors.js';
import { rulesAllow, shippedRulesOf, type PermissionRule, type RoleName } from '../permissions/permissions.js';
import { isKnownParameter } from './falkordb-parameters.js';

const QUANTITY = /^\d+(\.\d+)?(m|k|Ki|M|Mi|G|Gi|T|Ti)?$/;

const ALLOWED_PHASES: Record<OperationRequest['type'], string[]> = {
  Restart: ['Running', 'Failed', 'Abnormal'],
  Stop: ['Running', 'Failed', 'Abnormal'],
  Start: ['Stopped'],
  HorizontalScaling: ['Running'],
  VerticalScaling: ['Running'],
  Reconfiguring: ['Running'],
};

export interface ScaleInput {
  component?: string;
  replicas?: number;
  shards?: number;
  cpu?: string;
  memory?: string;
}

export interface ClusterScope {
  /** The namespace the server manages deployments in (CLUSTER_NAMESPACE). */
  clusterNamespace: string;
  /** features.multi_cluster_mode as the settings say now: other namespaces are visible only while it is on. */
  multiClusterMode: () => Promise<boolean>;
  /** A role's rules (context.rbac.rulesOf); the shipped ones when absent. */
  rulesOf?: (role: RoleName) => Promise<readonly PermissionRule[]>;
}

export function createClusterService(port: ClusterPort, scope: ClusterScope) {
  const { clusterNamespace } = scope;

  async function existing(namespace: string, name: string): Promise<ClusterRecord> {
    const cluster = await port.get(namespace, name);
    if (!cluster) throw new NotFoundError(`Cluster ${name} not found in namespace ${namespace}`);
    return cluster;
  }

  function componentOf(cluster: ClusterRecord, name: string | undefined): ComponentRecord {
    const names = cluster.components.map((c) => c.name);
    const component = name === undefined ? cluster.components[0] : cluster.components.find((c) => c.name === name);
    if (!component)
      throw new BadRequestError(
        `Component ${name ?? ''} does not exist in cluster ${cluster.name} (components: ${names.join(', ') || 'none'})`,
      );
    return component;
  }

  function checkPhase(cluster: ClusterRecord, type: OperationRequest['type'], verb: string): void {
    const allowed = ALLOWED_PHASES[type];
    if (!allowed.includes(cluster.phase))
      throw new ConflictError(
        `Cluster ${cluster.name} is ${cluster.phase}; ${verb} needs it to be ${allowed.join(' or ')}`,
      );
  }

  const create = (namespace: string, cluster: ClusterRecord, request: OperationRequest) =>
    port.createOperation(namespace, cluster, request);

  return {
    /**
     * The deployments a role may read: the cluster namespace only while multi_cluster_mode is off (nothing for
     * another one asked for); with it on, the namespace asked for or all, each filtered by the role's rules.
     */
    async listVisible(role: RoleName, askedNamespace: string | undefined): Promise<ClusterRecord[]> {
      if (!(await scope.multiClusterMode())) {
        if (askedNamespace && askedNamespace !== clusterNamespace) return [];
        return port.list({ namespace: clusterNamespace });
      }
      const [found, rules] = await Promise.all([
        port.list(askedNamespace ? { namespace: askedNamespace } : { allNamespaces: true }),
        scope.rulesOf ? scope.rulesOf(role) : shippedRulesOf(role),
      ]);
      return found.filter((cluster) => rulesAllow(rules, 'clusters', 'list', cluster.namespace));
    },

    /**
     * multi_cluster_mode for every cluster route but the list: while it is off, a cluster or its operations in
     * another namespace are not found (404), before the permission check and any Kubernetes call.
     */
    async assertNamespaceInScope(askedNamespace: string, name: string): Promise<void> {
      if (askedNamespace === clusterNamespace || (await scope.multiClusterMode())) return;
      throw new NotFoundError(`Cluster ${name} not found in namespace ${askedNamespace}`);
    },

    get: existing,

    async listOperations(namespace: string, name: string) {
      await existing(namespace, name);
      return port.listOperations(namespace, name);
    },

    async restart(namespace: string, name: string, components: string[] | undefined): Promise<string[]> {
      const cluster = await existing(namespace, name);
      const names = components ?? cluster.components.map((c) => c.name);
      for (const component of names) componentOf(cluster, component);
      checkPhase(cluster, 'Restart', 'a restart');
      return [await create(namespace, cluster, { type: 'Restart', components: names })];
    },

    async startOrStop(namespace: string, name: string, type: 'Start' | 'Stop'): Promise<string[]> {
      const cluster = await existing(namespace, name);
      checkPhase(cluster, type, type === 'Start' ? 'starting' : 'stopping');
      return [await create(namespace, cluster, { type })];
    },

    async scale(namespace: string, name: string, input: ScaleInput): Promise<string[]> {
      const cluster = await existing(namespace, name);
      const component = componentOf(cluster, input.component);
      if (
        input.replicas === undefined &&
        input.shards === undefined &&
        input.cpu === undefined &&
        input.memory === undefined
      ) {
        throw new BadRequestError('Give replicas, shards, cpu or memory');
      }
      if (input.shards !== undefined && component.kind !== 'sharding')
        throw new BadRequestError(`Component ${component.name} is not sharded; shards apply only to a sharding`);
      for (const [field, value] of [
        ['cpu', input.cpu],
        ['memory', input.memory],
      ] as const) {
        if (value !== undefined && !QUANTITY.test(value))
          throw new BadRequestError(
            `${field} must be a Kubernetes quantity such as 500m, 2 or 4Gi (got ${JSON.stringify(value)})`,
          );
      }
      const requests: OperationRequest[] = [];
      if (input.replicas !== undefined || input.shards !== undefined) {
        checkPhase(cluster, 'HorizontalScaling', 'scaling');
        const horizontal = { type: 'HorizontalScaling', component: component.name, kind: component.kind } as const;
        // KubeBlocks' OpsRequest CRD refuses shards together with scaleOut/scaleIn in one entry (a CEL rule), so
        // the shard count and the replicas per shard are two operations, shards first.
        if (input.shards !== undefined)
          requests.push({ ...horizontal, currentReplicas: component.replicas, shards: input.shards });
        if (input.replicas !== undefined)
          requests.push({ ...horizontal, currentReplicas: component.replicas, replicas: input.replicas });
      }
      if (input.cpu !== undefined || input.memory !== undefined) {
        checkPhase(cluster, 'VerticalScaling', 'scaling');
        requests.push({ type: 'VerticalScaling', component: component.name, cpu: input.cpu, memory: input.memory });
      }
      const names: string[] = [];
      for (const request of requests) names.push(await create(namespace, cluster, request));
      return names;
    },

    async reconfigure(
      namespace: string,
      name: string,
      input: { component?: string; parameters: Record<string, string>; allowUnknownParameters?: boolean },
    ): Promise<string[]> {
      const cluster = await existing(namespace, name);
      const component = componentOf(cluster, input.component);
      const keys = Object.keys(input.parameters);
      if (keys.length === 0) throw new BadRequestError('Give at least one parameter to change');
      const unknown = keys.filter((key) => !isKnownParameter(key));
      if (unknown.length > 0 && !input.allowUnknownParameters) {
        throw new BadRequestError(
          `Unknown FalkorDB parameter ${unknown.join(', ')}; set allowUnknownParameters to true to apply it anyway`,
        );
      }
      checkPhase(cluster, 'Reconfiguring', 'reconfiguring');
      return [
        await create(namespace, cluster, {
          type: 'Reconfiguring',
          component: component.name,
          parameters: input.parameters,
        }),
      ];
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
