// KubeBlocks data protection through the Kubernetes API (dataprotection.kubeblocks.io/v1alpha1): the backup port
// on Backup, BackupPolicy, BackupSchedule and Restore objects, with the repositories (BackupRepo) from
// kubeblocks-backup-repositories.ts. The objects' records and schemas: kubeblocks-backup-records.ts.
import type { KubeConfig } from '@kubernetes/client-node';
import type {
  BackupPort,
  NewBackup,
  NewPolicy,
  NewRestore,
  NewSchedule,
  ScheduleSpec,
} from '../backups/backup-port.js';
import { COMPONENT_LABEL, INSTANCE_LABEL } from '../../lib/kubernetes-labels.js';
import { PortError } from '../port-errors.js';
import { isNotFound } from './kube-errors.js';
import { dataProtectionAccess, type KubeBlocksBackupsOptions } from './kubeblocks-backup-access.js';
import {
  GROUP,
  LIST_LIMIT,
  POLICY_LABEL,
  RawBackupSchema,
  RawPolicySchema,
  RawRestoreSchema,
  RawScheduleSchema,
  REQUESTED_REPO_ANNOTATION,
  toBackupRecord,
  toPolicyRecord,
  toRestoreRecord,
  toScheduleRecord,
  VERSION,
} from './kubeblocks-backup-records.js';
import { kubeBlocksRepositories } from './kubeblocks-backup-repositories.js';

export type { KubeBlocksBackupsOptions } from './kubeblocks-backup-access.js';
export { DEFAULT_REPO_ANNOTATION, REPO_TYPE_ANNOTATION, repoSecretName } from './kubeblocks-backup-records.js';

export function createKubeBlocksBackups(kubeConfig: KubeConfig, options: KubeBlocksBackupsOptions): BackupPort {
  const access = dataProtectionAccess(kubeConfig, options);
  const { objects, failed, params, parseAll, listOf, getOf, createOf, deleteOf } = access;

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

    ...kubeBlocksRepositories(access, options.secretNamespace),

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
        if (isNotFound(error)) return [];
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
