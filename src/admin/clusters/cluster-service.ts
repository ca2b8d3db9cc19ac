// Cluster reads, scoped to the namespaces multi_cluster_mode and the role allow (day-2 operations: (one file because every read shares the namespace scoping)
// ../operations/operation-service.ts).
import type { ClusterObject, ClusterPort, NewCluster, PodRecord } from '../../platform/clusters/cluster-port.js';
import type { ClusterRecord } from '../../platform/clusters/cluster-records.js';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  UnprocessableError,
} from '../../http/http-errors.js';
import { isCredentialDirective } from '../../platform/clusters/redis-conf.js';
import { parseQuantity } from '../../platform/kubernetes/quantities.js';
import { parseClusterManifest, yamlOf } from './cluster-yaml.js';
import { allowedManifest, assertCallerMetadata } from './manifest-policy.js';
import type { CreateClusterBody, PatchClusterBody } from './schemas.js';
import {
  rulesAllow,
  shippedRulesOf,
  type Authorize,
  type PermissionRule,
  type RoleName,
} from '../permissions/permissions.js';

export interface ClusterScope {
  /** The namespace the server manages deployments in (CLUSTER_NAMESPACE). */
  clusterNamespace: string;
  /** features.multi_cluster_mode as the settings say now: other namespaces are visible only while it is on. */
  multiClusterMode: () => Promise<boolean>;
  /** The namespaces clusters may be created in (MANAGED_NAMESPACES, anchored); the cluster namespace only when absent. */
  managedNamespaces?: RegExp;
  /** A role's rules (context.rbac.rulesOf); the shipped ones when absent. */
  rulesOf?: (role: RoleName) => Promise<readonly PermissionRule[]>;
  /** Runs after a deployment was created (features.backup_auto_schedule adds its default schedule). */
  onCreated?: (cluster: ClusterRecord) => Promise<void>;
  /** RELEASE_NAME: the server's own Helm release, whose pods a deployment of that name would select. */
  releaseName?: string;
}

/** A duration as kubectl prints ages: 45s, 12m, 5h, 3d. */
export function ageOf(since: string, now: number): string {
  const started = Date.parse(since);
  if (Number.isNaN(started)) return '';
  const seconds = Math.max(0, Math.floor((now - started) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 2 * 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

function podView(pod: PodRecord, now: number) {
  return {
    name: pod.name,
    namespace: pod.namespace,
    status: pod.status,
    ready: pod.ready,
    restartCount: pod.restartCount,
    age: ageOf(pod.createdAt, now),
    role: pod.role,
    ...(pod.shardId ? { shardId: pod.shardId } : {}),
    hostname: pod.hostname,
    ports: pod.ports,
    // Usage needs the metrics API, which GET …/metrics reads; the list does not ask for it.
    cpuPercent: null,
    memoryPercent: null,
    dns: pod.dns,
  };
}

/** Spec fields of the real create form this server cannot apply yet: refused (422) rather than silently dropped. */
const NOT_YET_APPLIED = ['componentVersion', 'modules', 'falkordbArgs', 'enterpriseConfig', 'externalDomain'] as const;
/** The same for the sentinel's and the shards' own fields. */
const SENTINEL_NOT_YET_APPLIED = ['componentDefinition'] as const;

const storageOf = (persistence: { enabled: boolean; size?: string; storageClass?: string } | undefined) =>
  persistence?.enabled === false
    ? undefined
    : {
        size: persistence?.size ?? DEFAULT_STORAGE,
        ...(persistence?.storageClass ? { storageClass: persistence.storageClass } : {}),
      };

/** Default data volume size of a new deployment (docs/decisions/cluster-lifecycle.md). */
export const DEFAULT_STORAGE = '10Gi';

/** The create body as the port's NewCluster: topology inferred, the FalkorDB Enterprise admin API's scaling rules (§1.11) checked. */
export function newClusterOf(body: CreateClusterBody): NewCluster {
  const { spec } = body;
  assertCallerMetadata(body.labels, body.annotations);
  const unsupported = [
    ...NOT_YET_APPLIED.filter((field) => spec[field] !== undefined).map((field) => `spec.${field}`),
    ...SENTINEL_NOT_YET_APPLIED.filter((field) => spec.sentinel?.[field] !== undefined).map(
      (field) => `spec.sentinel.${field}`,
    ),
  ];
  if (unsupported.length > 0)
    throw new UnprocessableError(`Not supported by this server yet: ${unsupported.join(', ')}`);
  const topology =
    spec.topology ?? (spec.sharding?.enabled ? 'cluster' : spec.sentinel?.enabled ? 'replication' : 'standalone');
  if (topology !== 'cluster' && spec.sharding?.enabled)
    throw new BadRequestError(`spec.sharding.enabled needs topology cluster (got ${topology})`);
  if (topology !== 'replication' && spec.sentinel?.enabled)
    throw new BadRequestError(`spec.sentinel.enabled needs topology replication (got ${topology})`);
  const replicas =
    topology === 'cluster'
      ? (spec.sharding?.replicas ?? spec.replicas ?? 2)
      : (spec.replicas ?? (topology === 'replication' ? 2 : 1));
  if (topology !== 'standalone' && replicas < 2)
    throw new BadRequestError(`A ${topology} deployment needs at least 2 replicas (got ${replicas})`);
  const sentinelReplicas = spec.sentinel?.replicas ?? 3;
  if (topology === 'replication' && (sentinelReplicas < 3 || sentinelReplicas % 2 === 0))
    throw new BadRequestError(`The sentinel needs an odd number of replicas, at least 3 (got ${sentinelReplicas})`);
  const persistence = (topology === 'cluster' ? spec.sharding?.persistence : undefined) ?? spec.persistence;
  const resources = (topology === 'cluster' ? spec.sharding?.resources : undefined) ?? spec.resources;
  const services = (topology === 'cluster' ? spec.sharding?.services : undefined) ?? spec.services;
  const dataScheduling = topology === 'cluster' ? spec.sharding?.schedulingPolicy : undefined;
  const sentinelStorage = spec.sentinel?.persistence ? storageOf(spec.sentinel.persistence) : undefined;
  return {
    name: body.name,
    namespace: body.namespace,
    ...(body.labels ? { labels: body.labels } : {}),
    ...(body.annotations ? { annotations: body.annotations } : {}),
    topology,
    ...(spec.version ? { version: spec.version } : {}),
    replicas,
    ...(topology === 'cluster' ? { shards: spec.sharding?.shardCount ?? 3 } : {}),
    ...(resources ? { resources } : {}),
    ...(persistence?.enabled === false ? {} : { storage: storageOf(persistence) }),
    ...(services ? { services } : {}),
    ...(spec.disableExporter ? { disableExporter: true } : {}),
    ...(dataScheduling ? { dataScheduling } : {}),
    ...(topology === 'replication'
      ? {
          sentinel: {
            replicas: sentinelReplicas,
            ...(spec.sentinel?.resources ? { resources: spec.sentinel.resources } : {}),
            ...(sentinelStorage ? { storage: sentinelStorage } : {}),
            ...(spec.sentinel?.services ? { services: spec.sentinel.services } : {}),
            ...(spec.sentinel?.schedulingPolicy ? { scheduling: spec.sentinel.schedulingPolicy } : {}),
          },
        }
      : {}),
    terminationPolicy: spec.terminationPolicy ?? 'Delete',
    ...(spec.schedulingPolicy ? { scheduling: spec.schedulingPolicy } : {}),
  };
}

const PATCH_NOT_YET_APPLIED = ['version', 'componentDefinition', 'modules', 'falkordbArgs', 'externalDomain'] as const;

/** The API's Service list as KubeBlocks' ClusterComponentService list (an empty list removes them all). */
const componentServicesOf = (services: NonNullable<PatchClusterBody['services']>) =>
  services.map((service) => ({
    name: service.name,
    serviceType: service.serviceType,
    ...(service.annotations && Object.keys(service.annotations).length > 0 ? { annotations: service.annotations } : {}),
    ...(service.podService !== undefined ? { podService: service.podService } : {}),
  }));

/** A volume size as the real shape writes it: whole Mi, Gi or Ti. */
const bytesOf = (size: string) => parseQuantity(size, { suffixes: ['Mi', 'Gi', 'Ti'], integer: true });

type Spec = Record<string, unknown> & { resources?: unknown; replicas?: number; volumeClaimTemplates?: unknown };

/** Applies a PATCH body to a stored Cluster object (a copy), refusing what KubeBlocks would refuse. */
export function patchedClusterObject(object: Record<string, unknown>, body: PatchClusterBody): Record<string, unknown> {
  const unsupported = PATCH_NOT_YET_APPLIED.filter((field) => body[field] !== undefined);
  if (unsupported.length > 0) {
    const hint = unsupported.includes('version') ? ' (use POST …/upgrade for the version)' : '';
    throw new UnprocessableError(`Not supported by this server yet: ${unsupported.join(', ')}${hint}`);
  }
  const copy = structuredClone(object) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  const spec = copy.spec;
  const components = (spec.componentSpecs ?? []) as Spec[];
  const shardings = (spec.shardings ?? spec.shardingSpecs ?? []) as { shards?: number; template: Spec }[];
  const data: Spec | undefined = shardings[0]?.template ?? components.find((c) => !/sent/.test(String(c.name)));
  const sentinel = components.find((c) => /sent/.test(String(c.name)));
  if (!data) throw new UnprocessableError('The cluster has no FalkorDB component to change');
  const sharded = shardings.length > 0;
  if (body.sharding && !sharded) throw new BadRequestError('sharding applies only to a sharded cluster');
  if (body.sentinel && !sentinel) throw new BadRequestError('sentinel applies only to a cluster with a sentinel');

  const replicas = sharded ? (body.sharding?.replicas ?? body.replicas) : body.replicas;
  if (replicas !== undefined) {
    if ((sharded || sentinel) && replicas < 2)
      throw new BadRequestError(`A ${sharded ? 'cluster' : 'replication'} deployment needs at least 2 replicas`);
    data.replicas = replicas;
  }
  const resources = (sharded ? body.sharding?.resources : undefined) ?? body.resources;
  if (resources) data.resources = { ...(data.resources as object), ...resources };
  const persistence = (sharded ? body.sharding?.persistence : undefined) ?? body.persistence;
  if (persistence?.size) {
    const claims = (data.volumeClaimTemplates ?? []) as {
      name: string;
      spec: { resources?: { requests?: { storage?: string } } };
    }[];
    const claim = claims.find((c) => c.name === 'data') ?? claims[0];
    if (!claim) throw new UnprocessableError('The cluster has no data volume to resize');
    const current = claim.spec.resources?.requests?.storage;
    const [now, wanted] = [current === undefined ? undefined : bytesOf(current), bytesOf(persistence.size)];
    if (now !== undefined && wanted !== undefined && wanted < now)
      throw new BadRequestError(`Volumes only grow: ${persistence.size} is less than the current ${current}`);
    claim.spec.resources = {
      ...claim.spec.resources,
      requests: { ...claim.spec.resources?.requests, storage: persistence.size },
    };
  }
  if (body.sharding?.shardCount !== undefined) shardings[0]!.shards = body.sharding.shardCount;
  if (body.sentinel?.replicas !== undefined) {
    if (body.sentinel.replicas < 3 || body.sentinel.replicas % 2 === 0)
      throw new BadRequestError(
        `The sentinel needs an odd number of replicas, at least 3 (got ${body.sentinel.replicas})`,
      );
    sentinel!.replicas = body.sentinel.replicas;
  }
  if (body.sentinel?.resources)
    sentinel!.resources = { ...(sentinel!.resources as object), ...body.sentinel.resources };
  // Services replace the component's list as a whole: the console sends the list it shows.
  const services = (sharded ? body.sharding?.services : undefined) ?? body.services;
  if (services) data.services = componentServicesOf(services);
  if (body.sentinel?.services) sentinel!.services = componentServicesOf(body.sentinel.services);
  if (body.disableExporter !== undefined) data.disableExporter = body.disableExporter;
  if (body.terminationPolicy) spec.terminationPolicy = body.terminationPolicy;
  assertCallerMetadata(body.labels, body.annotations);
  if (body.labels) copy.metadata.labels = { ...(copy.metadata.labels as object), ...body.labels };
  if (body.annotations) copy.metadata.annotations = { ...(copy.metadata.annotations as object), ...body.annotations };
  delete (copy as { status?: unknown }).status;
  return copy;
}

export function createClusterService(port: ClusterPort, scope: ClusterScope) {
  const { clusterNamespace } = scope;

  async function existing(namespace: string, name: string): Promise<ClusterRecord> {
    const cluster = await port.get(namespace, name);
    if (!cluster) throw new NotFoundError(`Cluster ${name} not found in namespace ${namespace}`);
    return cluster;
  }

  /** Creates only in a managed namespace, and outside the cluster namespace only with multi_cluster_mode on (403). */
  async function assertManaged(namespace: string): Promise<void> {
    const managed = scope.managedNamespaces ?? new RegExp(`^${clusterNamespace}$`);
    if (!managed.test(namespace)) throw new ForbiddenError(`Namespace ${namespace} is not managed by this server`);
    if (namespace !== clusterNamespace && !(await scope.multiClusterMode()))
      throw new ForbiddenError(`Namespace ${namespace} is not the cluster namespace, and multi_cluster_mode is off`);
  }

  /** A name the server's own pods are selected by (RELEASE_NAME) is not a deployment's (400). */
  function assertNotReleaseName(name: string): void {
    if (scope.releaseName !== undefined && name === scope.releaseName)
      throw new BadRequestError(
        `The name ${name} is this server's own Helm release (its pods carry app.kubernetes.io/instance=${name}): choose another`,
      );
  }

  return {
    assertNotReleaseName,

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

    /**
     * Creates a deployment: only in a managed namespace (403 otherwise, and outside the cluster namespace only with
     * multi_cluster_mode on), a name not taken (409), where the platform can create deployments (422 otherwise).
     */
    async create(body: CreateClusterBody, authorize: Authorize): Promise<ClusterRecord> {
      await authorize('clusters', 'create', body.namespace);
      await assertManaged(body.namespace);
      assertNotReleaseName(body.name);
      const wanted = newClusterOf(body);
      if (!port.createCluster) throw new UnprocessableError('Creating clusters is not supported in embedded mode');
      if (await port.get(body.namespace, body.name))
        throw new ConflictError(`Cluster ${body.name} already exists in namespace ${body.namespace}`);
      const created = await port.createCluster(wanted);
      await scope.onCreated?.(created);
      return created;
    },

    /**
     * How to connect: the data component's Service and its default account (KubeBlocks' account Secret). 404 when
     * the cluster or the Secret does not exist; 422 where there is no such account (embedded mode).
     */
    async credentials(namespace: string, name: string) {
      const cluster = await existing(namespace, name);
      if (!port.readAccount)
        throw new UnprocessableError(
          'Embedded mode has no account Secret: the embedded FalkorDB\'s administrator is user "admin", its password ' +
            "is in the file falkordb-admin-password in the server's DATA_DIR (on the server's machine, mode 0600); " +
            'with an external FalkorDB, use the credentials the server was configured with',
        );
      const component =
        cluster.components.find((c) => c.kind === 'sharding') ?? cluster.components.find((c) => !/sent/.test(c.name));
      const componentName = component?.name ?? 'falkordb';
      const account = await port.readAccount(namespace, name, componentName);
      if (!account) throw new NotFoundError(`No account Secret for cluster ${name} in namespace ${namespace}`);
      const internalHostname = `${name}-${componentName}.${namespace}.svc.cluster.local`;
      return {
        hostname: internalHostname,
        port: 6379,
        username: account.username,
        password: account.password,
        internalHostname,
      };
    },

    /** Changes replicas, resources, storage, shards, sentinel, terminationPolicy, labels of a cluster (200). */
    async patch(namespace: string, name: string, body: PatchClusterBody): Promise<ClusterRecord> {
      await existing(namespace, name);
      if (!port.getClusterObject || !port.replaceClusterObject)
        throw new UnprocessableError('Updating clusters is not supported in embedded mode');
      const object = await port.getClusterObject(namespace, name);
      if (!object) throw new NotFoundError(`Cluster ${name} not found in namespace ${namespace}`);
      await port.replaceClusterObject(patchedClusterObject(object, body) as ClusterObject);
      return existing(namespace, name);
    },

    /** The stored Cluster object as YAML. */
    async yaml(namespace: string, name: string): Promise<{ yaml: string }> {
      await existing(namespace, name);
      if (!port.getClusterObject) throw new UnprocessableError('Cluster manifests do not exist in embedded mode');
      const object = await port.getClusterObject(namespace, name);
      if (!object) throw new NotFoundError(`Cluster ${name} not found in namespace ${namespace}`);
      return { yaml: yamlOf(object) };
    },

    /** Creates a cluster from a raw manifest: the same namespace rules and 409 as the structured create. */
    async createFromYaml(text: string, authorize: Authorize): Promise<ClusterRecord> {
      const parsed = parseClusterManifest(text);
      await authorize('clusters', 'create', parsed.metadata.namespace);
      const object = allowedManifest(parsed);
      const { name, namespace } = object.metadata;
      await assertManaged(namespace);
      assertNotReleaseName(name);
      if (!port.createClusterObject)
        throw new UnprocessableError('Creating clusters is not supported in embedded mode');
      if (await port.get(namespace, name))
        throw new ConflictError(`Cluster ${name} already exists in namespace ${namespace}`);
      const created = await port.createClusterObject(object);
      await scope.onCreated?.(created);
      return created;
    },

    /** Replaces an existing cluster's object from a manifest naming the same cluster. */
    async replaceFromYaml(namespace: string, name: string, text: string): Promise<void> {
      const parsed = parseClusterManifest(text);
      if (parsed.metadata.name !== name || parsed.metadata.namespace !== namespace)
        throw new BadRequestError(`The manifest must name cluster ${name} in namespace ${namespace}`);
      await existing(namespace, name);
      if (!port.replaceClusterObject || !port.getClusterObject)
        throw new UnprocessableError('Updating clusters is not supported in embedded mode');
      const stored = await port.getClusterObject(namespace, name);
      if (!stored) throw new NotFoundError(`Cluster ${name} not found in namespace ${namespace}`);
      await port.replaceClusterObject(allowedManifest(parsed, stored));
    },

    /** Deletes a deployment (404 when there is none; 422 where the platform cannot delete deployments). */
    async remove(namespace: string, name: string, options: { gracePeriodSeconds?: number } = {}): Promise<void> {
      await existing(namespace, name);
      if (!port.deleteCluster) throw new UnprocessableError('Deleting clusters is not supported in embedded mode');
      if (!(await port.deleteCluster(namespace, name, options)))
        throw new NotFoundError(`Cluster ${name} not found in namespace ${namespace}`);
    },

    /** The cluster's Pods in the FalkorDB Enterprise admin API's shape (404 when the cluster does not exist). */
    /** The data component's FalkorDB configuration, credentials left out. */
    async config(namespace: string, name: string) {
      await existing(namespace, name);
      const found = port.readConfig ? await port.readConfig(namespace, name) : undefined;
      if (!found) throw new NotFoundError(`No configuration found for cluster ${name} in namespace ${namespace}`);
      return {
        configMapName: found.configMapName,
        parameters: found.parameters.filter((parameter) => !isCredentialDirective(parameter.key)),
      };
    },

    async pods(namespace: string, name: string, now = Date.now()) {
      await existing(namespace, name);
      const pods = port.listPods ? await port.listPods(namespace, name) : [];
      return { pods: pods.map((pod) => podView(pod, now)), total: pods.length };
    },
  };
}

export type ClusterService = ReturnType<typeof createClusterService>;
