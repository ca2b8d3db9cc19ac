// Day-2 operations on a deployment (KubeBlocks OpsRequests, or the embedded FalkorDB), with the checks KubeBlocks (one file because the day-2 operations share the same checks: cluster, component, phase)
// would only make later done first: the cluster and component exist, the cluster's phase allows the operation,
// counts, quantities and parameters are valid. A refusal creates nothing.
import type {
  ClusterPort,
  OperationRequest,
  OperationOptions,
  ResourceAmounts,
  VersionCatalogEntry,
} from '../../platform/clusters/cluster-port.js';
import type { ClusterRecord, ComponentRecord, OperationRecord } from '../../platform/clusters/cluster-records.js';
import { BadRequestError, ConflictError, NotFoundError, UnprocessableError } from '../../http/http-errors.js';
import { parseQuantity, type QuantityForm } from '../../platform/kubernetes/quantities.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import { isKnownParameter, needsRestart, parameterValueProblem } from '../../platform/falkordb/server-parameters.js';
import type { StorageClass } from '../../lib/storage-class.js';

const DEFAULT_COMPONENT = 'falkordb';
const RUNNING_OR_BROKEN = ['Running', 'Failed', 'Abnormal'];
const ALLOWED_PHASES: Record<OperationRequest['type'], string[]> = {
  Restart: RUNNING_OR_BROKEN,
  Stop: RUNNING_OR_BROKEN,
  Start: ['Stopped'],
  HorizontalScaling: ['Running'],
  VerticalScaling: ['Running'],
  VolumeExpansion: ['Running'],
  Reconfiguring: ['Running'],
  Switchover: ['Running'],
  Upgrade: ['Running', 'Stopped'],
};
/** KubeBlocks cancels only these, and only while they run. */
const CANCELLABLE_TYPES = new Set(['HorizontalScaling', 'VerticalScaling']);
const CANCELLABLE_PHASES = new Set(['Creating', 'Running']);

/** What a request may name: plain decimals, the suffixes KubeBlocks documents, more than zero. */
const REQUESTED: QuantityForm = {
  suffixes: ['', 'm', 'k', 'M', 'G', 'T', 'P', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'],
  positive: true,
};

/** A Kubernetes quantity as a number (500m → 0.5, 1Gi → 1073741824), or undefined when it is not one. */
export const quantityValue = (text: string): number | undefined => parseQuantity(text, REQUESTED);

export interface OpsAccepted {
  message: string;
  opsName: string;
  clusterName: string;
  type: string;
  phase?: string;
}

export interface OpsRequestSummary {
  name: string;
  namespace: string;
  type?: string;
  phase?: string;
  progress?: string;
  startTimestamp?: string;
  completionTimestamp?: string;
  creationTimestamp?: string;
  message?: string;
}

function summaryOf(namespace: string, record: OperationRecord): OpsRequestSummary {
  return {
    name: record.name,
    namespace,
    type: record.type,
    phase: record.phase,
    progress: record.progress,
    ...(record.startedAt ? { startTimestamp: record.startedAt } : {}),
    ...(record.completedAt ? { completionTimestamp: record.completedAt } : {}),
    ...(record.createdAt ? { creationTimestamp: record.createdAt } : {}),
    ...(record.message ? { message: record.message } : {}),
  };
}

export interface HorizontalScaleInput {
  replicas?: number;
  shardCount?: number;
  componentName?: string;
}
export interface VerticalScaleInput {
  requests?: ResourceAmounts;
  limits?: ResourceAmounts;
  componentName?: string;
}
export interface ConfigureInput {
  parameters: { key: string; value: string | null }[];
  componentName?: string;
  force?: boolean;
  preConditionDeadlineSeconds?: number;
}

const isSentinel = (component: ComponentRecord) => component.name.endsWith('-sent');

/** What the StorageClasses say about expansion; only readable with the multi-cluster ClusterRole. */
/** What a volume expansion reads of a StorageClass. */
export type StorageClassView = Pick<StorageClass, 'name' | 'isDefault' | 'allowVolumeExpansion'>;

export interface OperationServiceOptions {
  /** The StorageClasses when they may be read now (multi-cluster mode on Kubernetes); undefined otherwise. */
  storageClasses?: () => Promise<StorageClassView[] | undefined>;
  /** The version catalog when it may be read now; undefined otherwise (the version is then KubeBlocks' to judge). */
  versionCatalog?: () => Promise<VersionCatalogEntry[] | undefined>;
}

export function createOperationService(
  port: ClusterPort,
  clusters: ClusterService,
  options: OperationServiceOptions = {},
) {
  /**
   * Whether the volume's StorageClass (the named one, or the default) refuses expansion: its name when it does.
   * Unknown (classes unreadable, or the class not found) is not a refusal: KubeBlocks then reports it.
   */
  async function classRefusingExpansion(component: ComponentRecord): Promise<string | undefined> {
    const classes = await options.storageClasses?.().catch(() => undefined);
    if (!classes) return undefined;
    const used = component.storageClass
      ? classes.find((c) => c.name === component.storageClass)
      : classes.find((c) => c.isDefault);
    return used && used.allowVolumeExpansion !== true ? used.name : undefined;
  }

  function componentOf(cluster: ClusterRecord, name: string | undefined): ComponentRecord {
    const component =
      name === undefined
        ? (cluster.components.find((c) => c.name === DEFAULT_COMPONENT) ?? cluster.components[0])
        : cluster.components.find((c) => c.name === name);
    if (!component)
      throw new BadRequestError(
        `Component ${name ?? DEFAULT_COMPONENT} does not exist in cluster ${cluster.name} (components: ${
          cluster.components.map((c) => c.name).join(', ') || 'none'
        })`,
      );
    return component;
  }

  function checkPhase(cluster: ClusterRecord, type: OperationRequest['type']): void {
    const allowed = ALLOWED_PHASES[type];
    if (!allowed.includes(cluster.phase))
      throw new ConflictError(
        `Cluster ${cluster.name} is ${cluster.phase}; ${type} needs it to be ${allowed.join(' or ')}`,
      );
  }

  /** 422 for an operation this platform has no counterpart for, whatever the request asks. */
  function checkApplies(type: OperationRequest['type']): void {
    const reason = port.inapplicable?.(type);
    if (reason !== undefined) throw new UnprocessableError(reason);
  }

  async function submit(
    namespace: string,
    cluster: ClusterRecord,
    request: OperationRequest,
    options: OperationOptions = {},
    note = '',
  ): Promise<OpsAccepted> {
    checkApplies(request.type);
    checkPhase(cluster, request.type);
    const opsName = await port.createOperation(namespace, cluster, request, options);
    // The embedded platform may have finished already; a new OpsRequest is Pending until KubeBlocks takes it.
    const created = await port.getOperation(namespace, cluster.name, opsName).catch(() => undefined);
    return {
      message: `${request.type} of cluster ${cluster.name} requested (OpsRequest ${opsName})${note}`,
      opsName,
      clusterName: cluster.name,
      type: request.type,
      phase: created?.phase ?? 'Pending',
    };
  }

  async function existingOperation(namespace: string, cluster: string, name: string): Promise<OperationRecord> {
    await clusters.get(namespace, cluster);
    const found = await port.getOperation(namespace, cluster, name);
    if (!found)
      throw new NotFoundError(`OpsRequest ${name} not found for cluster ${cluster} in namespace ${namespace}`);
    return found;
  }

  function quantity(field: string, text: string): number {
    const value = quantityValue(text);
    if (value === undefined)
      throw new BadRequestError(
        `${field} must be a Kubernetes quantity such as 500m, 2 or 4Gi (got ${JSON.stringify(text)})`,
      );
    return value;
  }

  return {
    async list(namespace: string, name: string, page: { limit: number; offset: number }) {
      await clusters.get(namespace, name);
      const all = await port.listOperations(namespace, name);
      return {
        operations: all.slice(page.offset, page.offset + page.limit).map((record) => summaryOf(namespace, record)),
        total: all.length,
      };
    },

    async get(namespace: string, cluster: string, name: string): Promise<OpsRequestSummary> {
      return summaryOf(namespace, await existingOperation(namespace, cluster, name));
    },

    /** Deletes the record, as the real API does, whatever its phase (a running scaling is cancelled instead). */
    async remove(namespace: string, cluster: string, name: string): Promise<void> {
      await existingOperation(namespace, cluster, name);
      if (!(await port.deleteOperation(namespace, name)))
        throw new NotFoundError(`OpsRequest ${name} not found for cluster ${cluster} in namespace ${namespace}`);
    },

    async cancel(namespace: string, cluster: string, name: string): Promise<OpsAccepted> {
      const found = await existingOperation(namespace, cluster, name);
      if (!CANCELLABLE_TYPES.has(found.type))
        throw new ConflictError(
          `OpsRequest ${name} is a ${found.type}; only HorizontalScaling and VerticalScaling can be cancelled`,
        );
      if (!CANCELLABLE_PHASES.has(found.phase))
        throw new ConflictError(
          `OpsRequest ${name} is ${found.phase}; only a Creating or Running one can be cancelled`,
        );
      await port.cancelOperation(namespace, name);
      return {
        message: `Cancellation of OpsRequest ${name} requested; KubeBlocks rolls the ${found.type} back`,
        opsName: name,
        clusterName: cluster,
        type: found.type,
        phase: 'Cancelling',
      };
    },

    async restart(namespace: string, name: string, input: { componentName?: string; force?: boolean } = {}) {
      const cluster = await clusters.get(namespace, name);
      const component = componentOf(cluster, input.componentName);
      return submit(namespace, cluster, { type: 'Restart', components: [component.name] }, { force: input.force });
    },

    /**
     * Upgrades the FalkorDB components (not the sentinel) to a service version and/or component definition: 400 for
     * a Failed cluster or a version the catalog (when readable) does not list; 409 when it already runs it.
     */
    async upgrade(namespace: string, name: string, input: { version?: string; componentDefinition?: string }) {
      const cluster = await clusters.get(namespace, name);
      if (input.version === undefined && input.componentDefinition === undefined)
        throw new BadRequestError('Give version or componentDefinition');
      checkApplies('Upgrade');
      if (cluster.phase === 'Failed')
        throw new BadRequestError(`Cluster ${name} is Failed; repair it before upgrading`);
      const data = cluster.components.filter((c) => !/sent/.test(c.name));
      if (input.version !== undefined) {
        const catalog = await options.versionCatalog?.().catch(() => undefined);
        if (catalog && catalog.length > 0 && !catalog.some((e) => e.releases.some((r) => r.version === input.version)))
          throw new BadRequestError(`Version ${input.version} is not in the version catalog`);
        if (input.componentDefinition === undefined && data.every((c) => c.serviceVersion === input.version))
          throw new ConflictError(`Cluster ${name} already runs version ${input.version}`);
      }
      const accepted = await submit(namespace, cluster, {
        type: 'Upgrade',
        components: data.map((c) => c.name),
        ...(input.version === undefined ? {} : { serviceVersion: input.version }),
        ...(input.componentDefinition === undefined ? {} : { componentDefinition: input.componentDefinition }),
      });
      return {
        message: accepted.message,
        clusterName: name,
        opsName: accepted.opsName,
        ...(input.version === undefined ? {} : { version: input.version }),
        ...(input.componentDefinition === undefined ? {} : { componentDefinition: input.componentDefinition }),
      };
    },

    async startOrStop(namespace: string, name: string, type: 'Start' | 'Stop') {
      const cluster = await clusters.get(namespace, name);
      return submit(namespace, cluster, { type });
    },

    async horizontalScale(namespace: string, name: string, input: HorizontalScaleInput) {
      const cluster = await clusters.get(namespace, name);
      if (input.replicas === undefined && input.shardCount === undefined)
        throw new BadRequestError('Give replicas or shardCount (the desired totals)');
      const sharding = input.componentName === undefined && input.shardCount !== undefined;
      const component = sharding
        ? (cluster.components.find((c) => c.kind === 'sharding') ?? componentOf(cluster, undefined))
        : componentOf(cluster, input.componentName);
      if (input.shardCount !== undefined && component.kind !== 'sharding')
        throw new BadRequestError(
          `Component ${component.name} is not sharded; shardCount applies only to a sharded cluster`,
        );
      checkPhase(cluster, 'HorizontalScaling');
      const replicas = input.replicas === component.replicas ? undefined : input.replicas;
      const shards = input.shardCount === component.shards ? undefined : input.shardCount;
      if (replicas === undefined && shards === undefined)
        throw new ConflictError(
          `Component ${component.name} already has ${component.replicas} replicas${
            component.shards === undefined ? '' : ` and ${component.shards} shards`
          }; nothing to scale`,
        );
      if (replicas !== undefined && shards !== undefined)
        throw new BadRequestError(
          'KubeBlocks changes replicas and shards in separate operations: give replicas or shardCount, then the other',
        );
      if (replicas !== undefined) {
        if (isSentinel(component) && (replicas < 3 || replicas % 2 === 0))
          throw new UnprocessableError(
            `Sentinel component ${component.name} needs an odd number of replicas, at least 3 (got ${replicas})`,
          );
        const highlyAvailable =
          component.kind === 'sharding' || (cluster.topology.includes('replication') && !isSentinel(component));
        if (highlyAvailable && replicas < 2)
          throw new UnprocessableError(
            `Component ${component.name} of a ${component.kind === 'sharding' ? 'sharded' : 'replication'} cluster needs at least 2 replicas (got ${replicas})`,
          );
      }
      return submit(namespace, cluster, {
        type: 'HorizontalScaling',
        component: component.name,
        kind: component.kind,
        currentReplicas: component.replicas,
        ...(replicas === undefined ? {} : { replicas }),
        ...(shards === undefined ? {} : { shards }),
      });
    },

    async verticalScale(namespace: string, name: string, input: VerticalScaleInput) {
      const cluster = await clusters.get(namespace, name);
      const component = componentOf(cluster, input.componentName);
      const given = (amounts: ResourceAmounts | undefined) =>
        amounts?.cpu !== undefined || amounts?.memory !== undefined;
      if (!given(input.requests) && !given(input.limits))
        throw new BadRequestError('Give requests or limits (cpu and/or memory)');
      const values: Record<string, number | undefined> = {};
      for (const side of ['requests', 'limits'] as const)
        for (const resource of ['cpu', 'memory'] as const) {
          const text = input[side]?.[resource];
          if (text !== undefined) values[`${side}.${resource}`] = quantity(`${side}.${resource}`, text);
        }
      for (const resource of ['cpu', 'memory'] as const) {
        const request = values[`requests.${resource}`];
        const limit = values[`limits.${resource}`];
        if (request !== undefined && limit !== undefined && request > limit)
          throw new UnprocessableError(
            `requests.${resource} (${input.requests?.[resource]}) is more than limits.${resource} (${input.limits?.[resource]})`,
          );
      }
      return submit(namespace, cluster, {
        type: 'VerticalScaling',
        component: component.name,
        ...(input.requests ? { requests: input.requests } : {}),
        ...(input.limits ? { limits: input.limits } : {}),
      });
    },

    async volumeExpand(
      namespace: string,
      name: string,
      input: { storage: string; volumeName: string; componentName?: string },
    ) {
      const cluster = await clusters.get(namespace, name);
      const component = componentOf(cluster, input.componentName);
      const wanted = quantity('storage', input.storage);
      const current = input.volumeName === 'data' ? quantityValue(component.storage) : undefined;
      if (current !== undefined && wanted <= current)
        throw new UnprocessableError(
          `Volume ${input.volumeName} of ${component.name} is ${component.storage}; a volume can only grow (asked for ${input.storage})`,
        );
      checkPhase(cluster, 'VolumeExpansion');
      const refusing = await classRefusingExpansion(component);
      if (refusing)
        throw new UnprocessableError(
          `StorageClass ${refusing} does not allow volume expansion (allowVolumeExpansion is not true)`,
        );
      return submit(namespace, cluster, {
        type: 'VolumeExpansion',
        component: component.name,
        volumeName: input.volumeName,
        storage: input.storage,
      });
    },

    async configure(namespace: string, name: string, input: ConfigureInput) {
      const cluster = await clusters.get(namespace, name);
      const component = componentOf(cluster, input.componentName);
      const parameters: Record<string, string | null> = {};
      for (const { key, value } of input.parameters) {
        if (key in parameters) throw new BadRequestError(`Parameter ${key} is given twice`);
        if (!isKnownParameter(key)) throw new BadRequestError(`Unknown FalkorDB parameter ${key}`);
        const problem = value === null ? undefined : parameterValueProblem(key, value);
        if (problem) throw new BadRequestError(problem);
        parameters[key] = value;
      }
      const restartNeeded = Object.keys(parameters).filter(needsRestart);
      return submit(
        namespace,
        cluster,
        {
          type: 'Reconfiguring',
          component: component.name,
          parameters,
          ...(input.force ? { force: true } : {}),
          ...(input.preConditionDeadlineSeconds
            ? { preConditionDeadlineSeconds: input.preConditionDeadlineSeconds }
            : {}),
        },
        {},
        restartNeeded.length === 0
          ? ''
          : `; ${restartNeeded.join(', ')} ${restartNeeded.length === 1 ? 'takes' : 'take'} effect after a restart`,
      );
    },

    async switchover(
      namespace: string,
      name: string,
      input: { instanceName: string; candidateName?: string; componentName?: string },
    ) {
      const cluster = await clusters.get(namespace, name);
      const component = componentOf(cluster, input.componentName);
      if (isSentinel(component))
        throw new BadRequestError(`Component ${component.name} is a sentinel; it has no primary to switch over`);
      if (!input.instanceName.startsWith(`${cluster.name}-`))
        throw new BadRequestError(`Instance ${input.instanceName} is not one of cluster ${cluster.name}'s pods`);
      if (input.candidateName !== undefined && !input.candidateName.startsWith(`${cluster.name}-`))
        throw new BadRequestError(`Candidate ${input.candidateName} is not one of cluster ${cluster.name}'s pods`);
      if (input.candidateName === input.instanceName)
        throw new BadRequestError('The candidate must be another instance than the one to demote');
      if (component.replicas < 2)
        throw new UnprocessableError(
          `Component ${component.name} has ${component.replicas} replica; a switchover needs a second one to promote`,
        );
      return submit(namespace, cluster, {
        type: 'Switchover',
        component: component.name,
        instanceName: input.instanceName,
        ...(input.candidateName ? { candidateName: input.candidateName } : {}),
      });
    },
  };
}

export type OperationService = ReturnType<typeof createOperationService>;
