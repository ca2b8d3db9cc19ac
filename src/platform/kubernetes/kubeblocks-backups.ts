// KubeBlocks data protection through the Kubernetes API (dataprotection.kubeblocks.io/v1alpha1): BackupRepo (one file because the five kinds share one API group, one parsing of untyped replies and the repository Secret)
// (cluster-scoped; its credentials in a Secret of the server's namespace, owned by the repo), Backup, BackupPolicy,
// BackupSchedule and Restore. Untyped replies are parsed with zod; objects that do not parse are skipped.
import { ApiException, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';
import type {
  BackupPort,
  BackupRecord,
  NewBackup,
  NewPolicy,
  NewRepository,
  NewRestore,
  NewSchedule,
  PolicyRecord,
  RepositoryChange,
  RepositoryRecord,
  RestoreRecord,
  ScheduleRecord,
  ScheduleSpec,
} from '../backups/backup-port.js';
import type { PlatformLogger } from '../logger.js';
import { PortError } from '../port-errors.js';
import { translateKubeError } from './kube-errors.js';

const GROUP = 'dataprotection.kubeblocks.io';
const VERSION = 'v1alpha1';
const INSTANCE_LABEL = 'app.kubernetes.io/instance';
const COMPONENT_LABEL = 'apps.kubeblocks.io/component-name';
const POLICY_LABEL = 'dataprotection.kubeblocks.io/backup-policy';
const SCHEDULE_LABEL = 'dataprotection.kubeblocks.io/backup-schedule';
const AUTOMATED_LABEL = 'graphdb.falkordb.com/automated';
/** KubeBlocks' mark of the default repository. */
export const DEFAULT_REPO_ANNOTATION = 'dataprotection.kubeblocks.io/is-default-repo';
/** The API's storage type of a repository the server made (KubeBlocks knows only its storage provider). */
export const REPO_TYPE_ANNOTATION = 'graphdb.falkordb.com/repository-type';
/** The repository a user named for one backup (KubeBlocks records the one it used in status.backupRepoName). */
const REQUESTED_REPO_ANNOTATION = 'graphdb.falkordb.com/backup-repo';
const LIST_LIMIT = 1000;
const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
const MANAGED_BY = 'graphdb-admin-server';
/** On a credentials Secret: the repository this server wrote it for. */
const REPO_SECRET_ANNOTATION = 'graphdb.falkordb.com/backup-repo';

const Metadata = z.object({
  name: z.string(),
  namespace: z.string().optional(),
  creationTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  resourceVersion: z.string().optional(),
  uid: z.string().optional(),
});
const Pairs = z.array(z.object({ name: z.string(), value: z.string() })).optional();

const RawRepoSchema = z.object({
  metadata: Metadata,
  spec: z.object({
    storageProviderRef: z.string(),
    config: z.record(z.string(), z.string()).optional(),
    credential: z.object({ name: z.string(), namespace: z.string() }).optional(),
  }),
  status: z
    .object({
      phase: z.string().optional(),
      isDefault: z.boolean().optional(),
      conditions: z.array(z.object({ message: z.string().optional(), status: z.string().optional() })).optional(),
    })
    .optional(),
});
const RawBackupSchema = z.object({
  metadata: Metadata,
  spec: z.object({
    backupPolicyName: z.string(),
    backupMethod: z.string(),
    deletionPolicy: z.string().optional(),
    retentionPeriod: z.string().optional(),
    parentBackupName: z.string().optional(),
    parameters: Pairs,
  }),
  status: z
    .object({
      phase: z.string().optional(),
      backupRepoName: z.string().optional(),
      totalSize: z.string().optional(),
      startTimestamp: z.string().optional(),
      completionTimestamp: z.string().optional(),
      expiration: z.string().optional(),
      failureReason: z.string().optional(),
    })
    .optional(),
});
const RawPolicySchema = z.object({
  metadata: Metadata,
  spec: z.object({
    backupRepoName: z.string().optional(),
    pathPrefix: z.string().optional(),
    backupMethods: z.array(z.object({ name: z.string(), snapshotVolumes: z.boolean().optional() })),
  }),
  status: z.object({ phase: z.string().optional(), message: z.string().optional() }).optional(),
});
const RawScheduleSchema = z.object({
  metadata: Metadata,
  spec: z.object({
    backupPolicyName: z.string(),
    startingDeadlineMinutes: z.number().optional(),
    schedules: z.array(
      z.object({
        backupMethod: z.string(),
        cronExpression: z.string(),
        enabled: z.boolean().optional(),
        retentionPeriod: z.string().optional(),
        name: z.string().optional(),
      }),
    ),
  }),
  status: z
    .object({
      phase: z.string().optional(),
      failureReason: z.string().optional(),
      schedules: z
        .record(
          z.string(),
          z.object({
            phase: z.string().optional(),
            failureReason: z.string().optional(),
            lastScheduleTime: z.string().optional(),
            lastSuccessfulTime: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
});
const RawRestoreSchema = z.object({
  metadata: Metadata,
  spec: z.object({
    backup: z.object({ name: z.string(), namespace: z.string() }),
    restoreTime: z.string().optional(),
  }),
  status: z
    .object({
      phase: z.string().optional(),
      startTimestamp: z.string().optional(),
      completionTimestamp: z.string().optional(),
      conditions: z.array(z.object({ message: z.string().optional() })).optional(),
    })
    .optional(),
});

const clusterOf = (metadata: z.infer<typeof Metadata>) => metadata.labels?.[INSTANCE_LABEL] ?? '';
const created = (metadata: z.infer<typeof Metadata>) => metadata.creationTimestamp ?? '';
const withValue = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined || value === '' ? {} : { [key]: value }) as Partial<Record<K, V>>;

export function toRepositoryRecord(raw: z.infer<typeof RawRepoSchema>): RepositoryRecord {
  const failed = raw.status?.conditions?.find((condition) => condition.status === 'False');
  return {
    name: raw.metadata.name,
    storageProviderRef: raw.spec.storageProviderRef,
    ...withValue('type', raw.metadata.annotations?.[REPO_TYPE_ANNOTATION]),
    isDefault: raw.metadata.annotations?.[DEFAULT_REPO_ANNOTATION] === 'true' || raw.status?.isDefault === true,
    createdAt: created(raw.metadata),
    phase: raw.status?.phase ?? '',
    ...withValue('message', failed?.message),
    config: raw.spec.config ?? {},
  };
}

export function toBackupRecord(raw: z.infer<typeof RawBackupSchema>): BackupRecord {
  const status = raw.status ?? {};
  const labels = raw.metadata.labels ?? {};
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace ?? '',
    cluster: clusterOf(raw.metadata),
    policyName: raw.spec.backupPolicyName,
    method: raw.spec.backupMethod,
    phase: status.phase ?? '',
    ...withValue('scheduleName', labels[SCHEDULE_LABEL]),
    ...(labels[AUTOMATED_LABEL] === 'true' ? { automated: true } : {}),
    ...withValue('repository', status.backupRepoName ?? raw.metadata.annotations?.[REQUESTED_REPO_ANNOTATION]),
    ...withValue('totalSize', status.totalSize),
    createdAt: created(raw.metadata),
    ...withValue('startTime', status.startTimestamp),
    ...withValue('completionTime', status.completionTimestamp),
    ...withValue('expiration', status.expiration),
    ...withValue('retentionPeriod', raw.spec.retentionPeriod),
    ...withValue('deletionPolicy', raw.spec.deletionPolicy),
    ...withValue('parentBackupName', raw.spec.parentBackupName),
    ...(raw.spec.parameters?.length
      ? { parameters: Object.fromEntries(raw.spec.parameters.map((p) => [p.name, p.value])) }
      : {}),
    ...withValue('failureReason', status.failureReason),
  };
}

export function toPolicyRecord(raw: z.infer<typeof RawPolicySchema>): PolicyRecord {
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace ?? '',
    cluster: clusterOf(raw.metadata),
    ...withValue('repository', raw.spec.backupRepoName),
    methods: raw.spec.backupMethods.map((method) => ({
      name: method.name,
      ...(method.snapshotVolumes === undefined ? {} : { snapshotVolumes: method.snapshotVolumes }),
    })),
    ...withValue('pathPrefix', raw.spec.pathPrefix),
    phase: raw.status?.phase ?? '',
    ...withValue('message', raw.status?.message),
    createdAt: created(raw.metadata),
  };
}

export function toScheduleRecord(raw: z.infer<typeof RawScheduleSchema>): ScheduleRecord | undefined {
  const entry = raw.spec.schedules[0];
  if (!entry) return undefined;
  const status =
    raw.status?.schedules?.[entry.name ?? entry.backupMethod] ?? raw.status?.schedules?.[entry.backupMethod];
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace ?? '',
    cluster: clusterOf(raw.metadata),
    policyName: raw.spec.backupPolicyName,
    method: entry.backupMethod,
    cronExpression: entry.cronExpression,
    retentionPeriod: entry.retentionPeriod ?? '',
    enabled: entry.enabled ?? false,
    ...(raw.spec.startingDeadlineMinutes === undefined
      ? {}
      : { startingDeadlineMinutes: raw.spec.startingDeadlineMinutes }),
    phase: raw.status?.phase ?? '',
    ...withValue('failureReason', raw.status?.failureReason ?? status?.failureReason),
    createdAt: created(raw.metadata),
    ...withValue('lastRun', status?.lastScheduleTime),
    ...withValue('lastSucceeded', status?.lastSuccessfulTime),
    ...(status?.phase === 'Failed' ? { lastFailed: true } : {}),
  };
}

export function toRestoreRecord(raw: z.infer<typeof RawRestoreSchema>): RestoreRecord {
  const status = raw.status ?? {};
  const message = status.conditions?.map((condition) => condition.message).find(Boolean);
  return {
    name: raw.metadata.name,
    namespace: raw.metadata.namespace ?? '',
    cluster: clusterOf(raw.metadata),
    backupName: raw.spec.backup.name,
    backupNamespace: raw.spec.backup.namespace,
    ...withValue('restoreTime', raw.spec.restoreTime),
    phase: status.phase ?? '',
    createdAt: created(raw.metadata),
    ...withValue('startTime', status.startTimestamp),
    ...withValue('completionTime', status.completionTimestamp),
    ...withValue('message', message),
  };
}

/** The Secret holding a repository's credentials (in the server's namespace). */
export const repoSecretName = (repo: string) => `graphdb-backup-repo-${repo}`;

export interface KubeBlocksBackupsOptions {
  /** Where repository credentials are written (the server's namespace). */
  secretNamespace: string;
  logger: PlatformLogger;
  onError?: (kind: string) => void;
}

export function createKubeBlocksBackups(kubeConfig: KubeConfig, options: KubeBlocksBackupsOptions): BackupPort {
  const objects = kubeConfig.makeApiClient(CustomObjectsApi);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const failed = (error: unknown, verb: string, what: string, namespace?: string) => {
    if (!(error instanceof ApiException && error.code === 404))
      options.onError?.(error instanceof ApiException ? String(error.code) : 'unreachable');
    return translateKubeError(error, { verb, resource: what, ...(namespace ? { namespace } : {}) });
  };
  const isMissing = (error: unknown) => error instanceof ApiException && error.code === 404;
  const params = (plural: string) => ({ group: GROUP, version: VERSION, plural });

  function parseAll<S extends z.ZodType, R>(schema: S, items: unknown[], to: (raw: z.infer<S>) => R | undefined): R[] {
    return items.flatMap((item) => {
      const parsed = schema.safeParse(item);
      if (!parsed.success) {
        options.logger.warn(
          { reason: parsed.error.issues[0]?.message, name: (item as { metadata?: { name?: string } }).metadata?.name },
          'skipping a data-protection object that does not parse',
        );
        return [];
      }
      const record = to(parsed.data);
      return record === undefined ? [] : [record];
    });
  }

  async function listOf<S extends z.ZodType, R>(
    plural: string,
    namespace: string,
    cluster: string,
    schema: S,
    to: (raw: z.infer<S>) => R | undefined,
  ): Promise<R[]> {
    try {
      const reply = (await objects.listNamespacedCustomObject({
        ...params(plural),
        namespace,
        labelSelector: `${INSTANCE_LABEL}=${cluster}`,
        limit: LIST_LIMIT,
      })) as { items?: unknown[] };
      return parseAll(schema, reply.items ?? [], to);
    } catch (error) {
      // No such kind (KubeBlocks installed without data protection): nothing to list.
      if (isMissing(error)) return [];
      throw failed(error, 'list', plural, namespace);
    }
  }

  async function getOf<S extends z.ZodType, R>(
    plural: string,
    namespace: string,
    name: string,
    schema: S,
    to: (raw: z.infer<S>) => R | undefined,
  ): Promise<R | undefined> {
    try {
      return parseAll(schema, [await objects.getNamespacedCustomObject({ ...params(plural), namespace, name })], to)[0];
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw failed(error, 'get', `${plural}/${name}`, namespace);
    }
  }

  async function createOf<S extends z.ZodType, R>(
    plural: string,
    namespace: string,
    body: Record<string, unknown>,
    schema: S,
    to: (raw: z.infer<S>) => R | undefined,
  ): Promise<R> {
    let reply: unknown;
    try {
      reply = await objects.createNamespacedCustomObject({ ...params(plural), namespace, body });
    } catch (error) {
      throw failed(error, 'create', plural, namespace);
    }
    const [record] = parseAll(schema, [reply], to);
    if (!record) throw new PortError('unavailable', `the API server answered an unreadable ${plural} object`);
    return record;
  }

  async function deleteOf(plural: string, namespace: string, name: string): Promise<boolean> {
    try {
      await objects.deleteNamespacedCustomObject({ ...params(plural), namespace, name });
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw failed(error, 'delete', `${plural}/${name}`, namespace);
    }
  }

  async function readRepo(name: string): Promise<z.infer<typeof RawRepoSchema> | undefined> {
    try {
      const parsed = RawRepoSchema.safeParse(await objects.getClusterCustomObject({ ...params('backuprepos'), name }));
      return parsed.success ? parsed.data : undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw failed(error, 'get', `backuprepos/${name}`);
    }
  }

  async function listRepos(): Promise<RepositoryRecord[]> {
    try {
      const reply = (await objects.listClusterCustomObject({ ...params('backuprepos'), limit: LIST_LIMIT })) as {
        items?: unknown[];
      };
      return parseAll(RawRepoSchema, reply.items ?? [], toRepositoryRecord).sort((a, b) =>
        a.name.localeCompare(b.name),
      );
    } catch (error) {
      if (isMissing(error)) return [];
      throw failed(error, 'list', 'backuprepos');
    }
  }

  /**
   * The repository's credentials Secret as it exists now: undefined when there is none, else whether this server
   * wrote it for that repository (its label and its repository mark or owner reference). A Secret of that name
   * made by anyone else is never replaced: 409 (docs/decisions/tenancy-checks.md).
   */
  async function credentialsSecretOf(repo: string): Promise<{ resourceVersion?: string } | undefined> {
    const name = repoSecretName(repo);
    const namespace = options.secretNamespace;
    let current;
    try {
      current = await core.readNamespacedSecret({ namespace, name });
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw failed(error, 'get', `secrets/${name}`, namespace);
    }
    const metadata = current.metadata ?? {};
    const ours =
      metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY &&
      (metadata.annotations?.[REPO_SECRET_ANNOTATION] === repo ||
        (metadata.ownerReferences ?? []).some((owner) => owner.kind === 'BackupRepo' && owner.name === repo));
    if (!ours)
      throw new PortError(
        'conflict',
        `Secret ${name} in namespace ${namespace} exists and was not created by this server for backup repository ${repo}: remove or rename it first`,
      );
    return { ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}) };
  }

  /** Writes the credentials Secret, owned by the repo so that Kubernetes removes it with the repo. */
  async function writeCredentials(repo: { name: string; uid?: string }, data: Record<string, string>): Promise<void> {
    const name = repoSecretName(repo.name);
    const namespace = options.secretNamespace;
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name,
        namespace,
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY },
        annotations: { [REPO_SECRET_ANNOTATION]: repo.name },
        ...(repo.uid
          ? {
              ownerReferences: [
                { apiVersion: `${GROUP}/${VERSION}`, kind: 'BackupRepo', name: repo.name, uid: repo.uid },
              ],
            }
          : {}),
      },
      type: 'Opaque',
      stringData: data,
    };
    try {
      await core.createNamespacedSecret({ namespace, body });
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 409))
        throw failed(error, 'create', `secrets/${name}`, namespace);
      const current = await credentialsSecretOf(repo.name);
      try {
        await core.replaceNamespacedSecret({
          namespace,
          name,
          body: { ...body, metadata: { ...body.metadata, resourceVersion: current?.resourceVersion } },
        });
      } catch (replaceError) {
        // The Secret's name only: never its content.
        throw failed(replaceError, 'update', `secrets/${name}`, namespace);
      }
    }
  }

  async function replaceRepo(raw: z.infer<typeof RawRepoSchema>, change: (object: Record<string, unknown>) => void) {
    const name = raw.metadata.name;
    try {
      const current = (await objects.getClusterCustomObject({ ...params('backuprepos'), name })) as Record<
        string,
        unknown
      >;
      change(current);
      await objects.replaceClusterCustomObject({ ...params('backuprepos'), name, body: current });
    } catch (error) {
      throw failed(error, 'update', `backuprepos/${name}`);
    }
  }

  /** Only one repository is the default: the others lose the mark. */
  async function onlyDefault(name: string): Promise<void> {
    for (const repo of await listRepos())
      if (repo.name !== name && repo.isDefault) {
        const raw = await readRepo(repo.name);
        if (raw)
          await replaceRepo(raw, (object) => {
            const metadata = object.metadata as { annotations?: Record<string, string> };
            if (metadata.annotations) delete metadata.annotations[DEFAULT_REPO_ANNOTATION];
          });
      }
  }

  const backupBody = (backup: NewBackup) => ({
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Backup',
    metadata: {
      name: backup.name,
      namespace: backup.namespace,
      labels: { [INSTANCE_LABEL]: backup.cluster, [POLICY_LABEL]: backup.policyName, ...(backup.labels ?? {}) },
      ...(backup.repository ? { annotations: { [REQUESTED_REPO_ANNOTATION]: backup.repository } } : {}),
    },
    spec: {
      backupPolicyName: backup.policyName,
      backupMethod: backup.method,
      deletionPolicy: backup.deletionPolicy,
      ...(backup.retentionPeriod ? { retentionPeriod: backup.retentionPeriod } : {}),
      ...(backup.parentBackupName ? { parentBackupName: backup.parentBackupName } : {}),
      ...(backup.parameters && Object.keys(backup.parameters).length > 0
        ? { parameters: Object.entries(backup.parameters).map(([name, value]) => ({ name, value })) }
        : {}),
    },
  });

  const scheduleSpec = (spec: ScheduleSpec) => ({
    backupPolicyName: spec.policyName,
    ...(spec.startingDeadlineMinutes === undefined ? {} : { startingDeadlineMinutes: spec.startingDeadlineMinutes }),
    schedules: [
      {
        name: spec.method,
        backupMethod: spec.method,
        cronExpression: spec.cronExpression,
        enabled: spec.enabled,
        retentionPeriod: spec.retentionPeriod,
      },
    ],
  });

  return {
    kind: 'kubeblocks',
    methods: ['datafile', 'aof', 'volume-snapshot'],
    pointInTimeMethods: ['aof'],
    defaultPolicyName: (cluster, component) => `${cluster}-${component}-backup-policy`,

    listRepositories: listRepos,
    async getRepository(name) {
      const raw = await readRepo(name);
      return raw && toRepositoryRecord(raw);
    },
    async createRepository(repository: NewRepository) {
      const hasCredentials = repository.credentials && Object.keys(repository.credentials).length > 0;
      const body = {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'BackupRepo',
        metadata: {
          name: repository.name,
          annotations: {
            [REPO_TYPE_ANNOTATION]: repository.type,
            ...(repository.isDefault ? { [DEFAULT_REPO_ANNOTATION]: 'true' } : {}),
          },
        },
        spec: {
          storageProviderRef: repository.storageProviderRef,
          pvReclaimPolicy: 'Retain',
          config: repository.config,
          ...(hasCredentials
            ? { credential: { name: repoSecretName(repository.name), namespace: options.secretNamespace } }
            : {}),
        },
      };
      // Before the BackupRepo: a Secret of that name that is not ours refuses the whole create (nothing written).
      if (hasCredentials) await credentialsSecretOf(repository.name);
      let reply: unknown;
      try {
        reply = await objects.createClusterCustomObject({ ...params('backuprepos'), body });
      } catch (error) {
        // A create of a cluster-scoped object finds no collection only when the API server does not serve the type.
        if (isMissing(error))
          throw new PortError(
            'rejected',
            'The Kubernetes API serves no BackupRepos: install the KubeBlocks data-protection CRDs to manage backup repositories',
            { cause: error },
          );
        throw failed(error, 'create', 'backuprepos');
      }
      const parsed = RawRepoSchema.safeParse(reply);
      if (!parsed.success) throw new PortError('unavailable', 'the API server answered an unreadable BackupRepo');
      if (hasCredentials)
        await writeCredentials({ name: repository.name, uid: parsed.data.metadata.uid }, repository.credentials!);
      if (repository.isDefault) await onlyDefault(repository.name);
      return toRepositoryRecord(parsed.data);
    },
    async updateRepository(name, change: RepositoryChange) {
      const raw = await readRepo(name);
      if (!raw) throw new PortError('not-found', `Backup repository ${name} not found`);
      if (change.credentials && Object.keys(change.credentials).length > 0) {
        await credentialsSecretOf(name);
        await writeCredentials({ name, uid: raw.metadata.uid }, change.credentials);
      }
      await replaceRepo(raw, (object) => {
        const metadata = object.metadata as { annotations?: Record<string, string> };
        const spec = object.spec as Record<string, unknown>;
        if (change.config) spec.config = { ...(spec.config as Record<string, string>), ...change.config };
        if (change.credentials && Object.keys(change.credentials).length > 0)
          spec.credential = { name: repoSecretName(name), namespace: options.secretNamespace };
        if (change.isDefault !== undefined) {
          metadata.annotations = { ...(metadata.annotations ?? {}) };
          if (change.isDefault) metadata.annotations[DEFAULT_REPO_ANNOTATION] = 'true';
          else delete metadata.annotations[DEFAULT_REPO_ANNOTATION];
        }
      });
      if (change.isDefault) await onlyDefault(name);
      const updated = await readRepo(name);
      if (!updated) throw new PortError('not-found', `Backup repository ${name} not found`);
      return toRepositoryRecord(updated);
    },
    async repositoryUsers(name) {
      try {
        // Policies live in every namespace: one list across them (repositories are managed only with the
        // multi-cluster ClusterRole, which may list them).
        const reply = (await objects.listClusterCustomObject({ ...params('backuppolicies'), limit: LIST_LIMIT })) as {
          items?: unknown[];
        };
        return (reply.items ?? [])
          .map((item) => RawPolicySchema.safeParse(item))
          .filter((parsed) => parsed.success && parsed.data.spec.backupRepoName === name)
          .map((parsed) => `${parsed.data!.metadata.namespace ?? ''}/${parsed.data!.metadata.name}`)
          .sort();
      } catch (error) {
        if (isMissing(error)) return [];
        throw failed(error, 'list', 'backuppolicies');
      }
    },

    async deleteRepository(name) {
      try {
        await objects.deleteClusterCustomObject({ ...params('backuprepos'), name });
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw failed(error, 'delete', `backuprepos/${name}`);
      }
    },

    listBackups: async (namespace, cluster) =>
      (await listOf('backups', namespace, cluster, RawBackupSchema, toBackupRecord)).sort(
        (a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name),
      ),
    async listBackupsIn(scope) {
      try {
        const reply = (
          'allNamespaces' in scope
            ? await objects.listClusterCustomObject({ ...params('backups'), limit: LIST_LIMIT })
            : await objects.listNamespacedCustomObject({
                ...params('backups'),
                namespace: scope.namespace,
                limit: LIST_LIMIT,
              })
        ) as { items?: unknown[] };
        return parseAll(RawBackupSchema, reply.items ?? [], toBackupRecord);
      } catch (error) {
        if (isMissing(error)) return [];
        throw failed(error, 'list', 'backups', 'namespace' in scope ? scope.namespace : undefined);
      }
    },
    getBackup: (namespace, name) => getOf('backups', namespace, name, RawBackupSchema, toBackupRecord),
    createBackup: (backup) =>
      createOf('backups', backup.namespace, backupBody(backup), RawBackupSchema, toBackupRecord),
    deleteBackup: (namespace, name) => deleteOf('backups', namespace, name),

    listPolicies: (namespace, cluster) => listOf('backuppolicies', namespace, cluster, RawPolicySchema, toPolicyRecord),
    getPolicy: (namespace, name) => getOf('backuppolicies', namespace, name, RawPolicySchema, toPolicyRecord),
    createPolicy: (policy: NewPolicy) =>
      createOf(
        'backuppolicies',
        policy.namespace,
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'BackupPolicy',
          metadata: { name: policy.name, namespace: policy.namespace, labels: { [INSTANCE_LABEL]: policy.cluster } },
          spec: {
            ...(policy.repository ? { backupRepoName: policy.repository } : {}),
            pathPrefix: `/${policy.namespace}/${policy.cluster}`,
            // The FalkorDB addon's methods: an RDB file (datafile), the AOF for point-in-time (aof), a volume snapshot.
            backupMethods: [
              { name: 'datafile', snapshotVolumes: false, actionSetName: 'falkordb-physical-br' },
              { name: 'aof', snapshotVolumes: false, actionSetName: 'falkordb-for-pitr' },
              { name: 'volume-snapshot', snapshotVolumes: true },
            ],
            target: {
              podSelector: {
                matchLabels: { [INSTANCE_LABEL]: policy.cluster, [COMPONENT_LABEL]: policy.component },
                strategy: 'Any',
              },
            },
          },
        },
        RawPolicySchema,
        toPolicyRecord,
      ),
    deletePolicy: (namespace, name) => deleteOf('backuppolicies', namespace, name),

    listSchedules: (namespace, cluster) =>
      listOf('backupschedules', namespace, cluster, RawScheduleSchema, toScheduleRecord),
    getSchedule: (namespace, name) => getOf('backupschedules', namespace, name, RawScheduleSchema, toScheduleRecord),
    createSchedule: (schedule: NewSchedule) =>
      createOf(
        'backupschedules',
        schedule.namespace,
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'BackupSchedule',
          metadata: {
            name: schedule.name,
            namespace: schedule.namespace,
            labels: { [INSTANCE_LABEL]: schedule.cluster },
          },
          spec: scheduleSpec(schedule),
        },
        RawScheduleSchema,
        toScheduleRecord,
      ),
    async updateSchedule(namespace, name, spec) {
      try {
        const current = (await objects.getNamespacedCustomObject({
          ...params('backupschedules'),
          namespace,
          name,
        })) as Record<string, unknown>;
        const reply: unknown = await objects.replaceNamespacedCustomObject({
          ...params('backupschedules'),
          namespace,
          name,
          body: { ...current, spec: { ...(current.spec as object), ...scheduleSpec(spec) } },
        });
        const [record] = parseAll(RawScheduleSchema, [reply], toScheduleRecord);
        if (!record) throw new PortError('unavailable', 'the API server answered an unreadable BackupSchedule');
        return record;
      } catch (error) {
        if (error instanceof PortError) throw error;
        throw failed(error, 'update', `backupschedules/${name}`, namespace);
      }
    },
    deleteSchedule: (namespace, name) => deleteOf('backupschedules', namespace, name),

    listRestores: async (namespace, cluster) =>
      (await listOf('restores', namespace, cluster, RawRestoreSchema, toRestoreRecord)).sort((a, b) =>
        b.createdAt.localeCompare(a.createdAt),
      ),
    getRestore: (namespace, name) => getOf('restores', namespace, name, RawRestoreSchema, toRestoreRecord),
    createRestore: (restore: NewRestore) =>
      createOf(
        'restores',
        restore.namespace,
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Restore',
          metadata: { name: restore.name, namespace: restore.namespace, labels: { [INSTANCE_LABEL]: restore.cluster } },
          spec: {
            backup: restore.backup,
            ...(restore.restoreTime ? { restoreTime: restore.restoreTime } : {}),
            ...(restore.env ? { env: restore.env } : {}),
            ...(restore.parameters && Object.keys(restore.parameters).length > 0
              ? { parameters: Object.entries(restore.parameters).map(([name, value]) => ({ name, value })) }
              : {}),
            ...(restore.backoffLimit === undefined ? {} : { backoffLimit: restore.backoffLimit }),
            ...(restore.serviceAccountName ? { serviceAccountName: restore.serviceAccountName } : {}),
            ...(restore.containerResources ? { containerResources: restore.containerResources } : {}),
            ...(restore.prepareDataConfig ? { prepareDataConfig: restore.prepareDataConfig } : {}),
          },
        },
        RawRestoreSchema,
        toRestoreRecord,
      ),
    deleteRestore: (namespace, name) => deleteOf('restores', namespace, name),
  };
}
