// Shapes of the data-protection endpoints (/api/backups/repositories…, /api/clusters/{clusterName}/backups…, (one file because a feature's schemas live in its one schemas.ts, docs/architecture.md)
// …/cleanup/, …/restores…): the FalkorDB Enterprise admin API's request bodies and its BackupRepository, Backup, BackupPolicy,
// BackupSchedule and Restore answers. Credentials appear in requests only: no response schema has them.
import { z } from 'zod';
import { queryBoolean, trueOrFalse } from '../../lib/wire-values.js';
import { DNS_LABEL_CHARACTERS, KUBERNETES_NAME, OBJECT_NAME } from '../../lib/kubernetes-names.js';
import { timestamp } from '../../lib/timestamp-schema.js';
import { ClusterNameParamsSchema, ClusterNamespaceQuerySchema, ClusterNamespaceSchema } from '../parameters.js';

/** The real API's name rule for what it creates. */
const NewName = z.string().min(1).max(63).regex(DNS_LABEL_CHARACTERS, 'must be a lowercase DNS label');

const Namespace = ClusterNamespaceSchema;
export const BackupNamespaceQuerySchema = ClusterNamespaceQuerySchema;
export const BackupListQuerySchema = z.object({
  namespace: Namespace,
  clusterName: z.string().optional().meta({ description: 'Accepted for the real API; the path names the cluster.' }),
  status: z
    .enum(['pending', 'running', 'completed', 'failed'])
    .optional()
    .meta({ description: 'Only the backups in this state' }),
});
export const ClusterScopedListQuerySchema = z.object({
  namespace: Namespace,
  clusterName: z.string().optional().meta({ description: 'Accepted for the real API; the path names the cluster.' }),
});
export const CleanupQuerySchema = z.object({
  namespace: Namespace,
  dryRun: queryBoolean(trueOrFalse().default(false)).meta({
    description: 'true: list what would be deleted, delete nothing',
  }),
});

export const BackupClusterParamsSchema = ClusterNameParamsSchema;
export const BackupParamsSchema = BackupClusterParamsSchema.extend({
  backupName: z
    .string()
    .regex(OBJECT_NAME, 'must be a backup name')
    .meta({ description: 'The backup (KubeBlocks Backup) name', examples: ['orders-nightly-20261128'] }),
});
export const PolicyParamsSchema = BackupClusterParamsSchema.extend({
  policyName: z
    .string()
    .regex(OBJECT_NAME, 'must be a backup policy name')
    .meta({ description: 'The backup policy name', examples: ['orders-falkordb-backup-policy'] }),
});
export const ScheduleParamsSchema = BackupClusterParamsSchema.extend({
  scheduleName: z
    .string()
    .regex(OBJECT_NAME, 'must be a backup schedule name')
    .meta({ description: 'The backup schedule name', examples: ['orders-nightly'] }),
});
export const RestoreParamsSchema = BackupClusterParamsSchema.extend({
  restoreName: z
    .string()
    .regex(OBJECT_NAME, 'must be a restore name')
    .meta({ description: 'The restore name', examples: ['orders-restore-4f2a9c'] }),
});
export const RepositoryParamsSchema = z.object({
  name: z
    .string()
    .regex(KUBERNETES_NAME, 'must be a repository name')
    .meta({ description: 'The backup repository (KubeBlocks BackupRepo) name', examples: ['s3-backups'] }),
});

// ---- repositories ----

const Endpoint = z.string().describe("The storage service URL; the provider's own when absent");
const S3Like = {
  bucket: z.string().min(1).describe('The bucket the backups go to'),
  region: z.string().min(1).describe("The bucket's region"),
  endpoint: Endpoint.optional(),
  insecure: z.boolean().optional().describe('Plain HTTP to the endpoint'),
  noCheckBucket: z.boolean().optional().describe('Do not check that the bucket exists'),
  geesefsMemoryLimit: z.int().min(0).optional().describe('Memory limit of the GeeseFS mount, in MB'),
  geesefsReadAheadLarge: z.int().min(0).optional().describe('Read-ahead of large files of the GeeseFS mount, in KB'),
  mountOptions: z.string().optional().describe('Extra mount options'),
};
const KeyCredentials = z.strictObject({
  accessKeyId: z.string().min(1).describe('The access key ID'),
  secretAccessKey: z.string().min(1).describe('The secret access key'),
});
const NoCredentials = z.strictObject({});

/** Each storage type of the real reference: its config and the credentials it takes. */
export const REPOSITORY_TYPES = {
  s3: { config: z.object(S3Like), credentials: KeyCredentials },
  's3-compatible': {
    config: z.object({
      ...S3Like,
      region: z.string().optional().describe("The bucket's region"),
      endpoint: z.string().min(1).describe('The storage service URL'),
      serviceProvider: z.string().optional().describe('The S3-compatible provider (Ceph, Minio, …) as rclone names it'),
      forcePathStyle: z.boolean().optional().describe('Path-style bucket URLs instead of virtual-hosted ones'),
    }),
    credentials: KeyCredentials,
  },
  'gcs-s3comp': {
    config: z.object(S3Like).omit({ noCheckBucket: true }),
    credentials: KeyCredentials,
  },
  azureblob: {
    config: z.object({
      container: z.string().min(1).describe('The blob container the backups go to'),
      endpoint: Endpoint.optional(),
      noCheckContainer: z.boolean().optional().describe('Do not check that the container exists'),
    }),
    credentials: z.strictObject({
      accountName: z.string().min(1).describe('The storage account name'),
      accountKey: z.string().min(1).describe('The storage account key'),
    }),
  },
  nfs: {
    config: z.object({
      nfsServer: z.string().min(1).describe('The NFS server address'),
      nfsShare: z.string().optional().describe('The exported path'),
      nfsSubDir: z.string().optional().describe('A directory under the share'),
      nfsMountOptions: z.string().optional().describe('NFS mount options'),
    }),
    credentials: NoCredentials,
  },
  pvc: {
    config: z.object({
      storageClassName: z.string().optional().describe('The StorageClass of the volume; the default one when absent'),
      accessMode: z
        .enum(['ReadWriteOnce', 'ReadWriteMany', 'ReadWriteOncePod'])
        .optional()
        .describe('The access mode of the volume'),
      volumeMode: z.enum(['Filesystem', 'Block']).optional().describe('The volume mode'),
    }),
    credentials: NoCredentials,
  },
  minio: {
    config: z.object({
      ...S3Like,
      region: z.string().optional().describe("The bucket's region"),
      endpoint: z.string().min(1).describe('The Minio server URL'),
    }),
    credentials: KeyCredentials,
  },
  cos: { config: z.object(S3Like), credentials: KeyCredentials },
  ftp: {
    config: z.object({
      ftpHost: z.string().min(1).describe('The FTP server'),
      ftpPort: z.int().min(1).max(65535).optional().describe('Its port (21 when absent)'),
      ftpTls: z.boolean().optional().describe('FTP over TLS'),
    }),
    credentials: z.strictObject({
      ftpUser: z.string().min(1).describe('The FTP user'),
      ftpPassword: z.string().min(1).describe('Its password'),
    }),
  },
  obs: { config: z.object(S3Like), credentials: KeyCredentials },
  oss: { config: z.object(S3Like), credentials: KeyCredentials },
} as const;
export type RepositoryType = keyof typeof REPOSITORY_TYPES;
const TYPE_NAMES = Object.keys(REPOSITORY_TYPES) as [RepositoryType, ...RepositoryType[]];

const repositoryVariant = <T extends RepositoryType>(type: T) =>
  z.strictObject({
    name: NewName.meta({ description: "The new repository's name" }),
    storageProviderRef: NewName.meta({ description: 'The KubeBlocks StorageProvider (usually the type itself)' }),
    isDefault: z.boolean().default(false).meta({ description: 'Make it the default repository' }),
    type: z.literal(type).meta({ description: 'The storage type' }),
    config: REPOSITORY_TYPES[type].config.meta({ description: `Where the ${type} storage is` }),
    credentials: REPOSITORY_TYPES[type].credentials.optional().meta({
      description: 'Written to a Secret the repository refers to; never returned or logged',
    }),
  });

export const CreateRepositoryBodySchema = z
  .discriminatedUnion('type', [
    repositoryVariant('s3'),
    repositoryVariant('s3-compatible'),
    repositoryVariant('gcs-s3comp'),
    repositoryVariant('azureblob'),
    repositoryVariant('nfs'),
    repositoryVariant('pvc'),
    repositoryVariant('minio'),
    repositoryVariant('cos'),
    repositoryVariant('ftp'),
    repositoryVariant('obs'),
    repositoryVariant('oss'),
  ])
  .meta({
    examples: [
      {
        name: 's3-backups',
        storageProviderRef: 's3',
        isDefault: true,
        type: 's3',
        config: { bucket: 'acme-graphdb-backups', region: 'eu-west-1' },
        credentials: {
          accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
          secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
        },
      },
    ],
  });
export type CreateRepositoryBody = z.infer<typeof CreateRepositoryBodySchema>;

export const PatchRepositoryBodySchema = z
  .strictObject({
    config: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .meta({ description: 'Config keys to set, merged into the stored config' }),
    credentials: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Replaces the stored credentials; never returned or logged' }),
    isDefault: z.boolean().optional().meta({ description: 'true: make it the only default repository' }),
  })
  .meta({ examples: [{ config: { region: 'eu-central-1' }, isDefault: true }] });
export type PatchRepositoryBody = z.infer<typeof PatchRepositoryBodySchema>;

const REPOSITORY_EXAMPLE = {
  name: 's3-backups',
  storageProviderRef: 's3',
  isDefault: true,
  createdAt: '2026-11-02T10:04:51Z',
  status: 'ready' as const,
  type: 's3',
  config: { bucket: 'acme-graphdb-backups', region: 'eu-west-1' },
};
export const RepositorySchema = z
  .object({
    name: z.string().describe('The repository (KubeBlocks BackupRepo) name'),
    storageProviderRef: z.string().optional().describe('The KubeBlocks StorageProvider it uses'),
    isDefault: z.boolean().describe('Whether backups go here when they name no repository'),
    createdAt: timestamp('When it was created'),
    status: z.enum(['ready', 'error', 'pending']).describe('Whether KubeBlocks can use it'),
    statusMessage: z.string().optional().describe('Why it is not ready'),
    type: z.string().meta({ description: `One of ${TYPE_NAMES.join(', ')} for the repositories this server made` }),
    config: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .describe('Where the storage is (never the credentials)'),
  })
  .meta({
    id: 'BackupRepository',
    description: 'Where backups are stored (credentials never returned)',
    examples: [REPOSITORY_EXAMPLE],
  });
export const RepositoryListSchema = z
  .object({
    repositories: z.array(RepositorySchema).describe('The backup repositories'),
    total: z.number().describe('How many the answer lists'),
  })
  .meta({ examples: [{ repositories: [REPOSITORY_EXAMPLE], total: 1 }] });

// ---- backups ----

const Retention = z
  .string()
  .min(1)
  .max(32)
  .meta({ description: 'A duration such as 7d, 30d, 1y or 12h (units y, mo, w, d, h, m)' });
const Parameters = z.record(z.string().min(1).max(128), z.string().max(1024));

export const CreateBackupBodySchema = z
  .strictObject({
    backupName: NewName.meta({ description: "The new backup's name" }),
    backupPolicyName: NewName.optional().meta({
      description: "The cluster's default policy (`<cluster>-falkordb-backup-policy`) when absent",
    }),
    backupMethod: z
      .enum(['datafile', 'volume-snapshot'])
      .meta({ description: 'An RDB file of the data (datafile) or a snapshot of the volumes' }),
    backupRepoName: z.string().max(63).optional().meta({ description: "The policy's repository when absent" }),
    retentionPeriod: Retention.optional(),
    deletionPolicy: z
      .enum(['Delete', 'Retain'])
      .default('Delete')
      .meta({ description: 'Whether deleting the backup deletes its data in the repository too (Delete)' }),
    parentBackupName: z.string().max(253).optional().meta({ description: 'The backup an incremental one builds on' }),
    parameters: Parameters.optional().meta({ description: "Parameters of the backup method's action" }),
    tags: z.record(z.string().min(1).max(63), z.string().max(63)).optional().meta({
      description: 'Labels of the Backup object',
    }),
  })
  .meta({
    examples: [
      {
        backupName: 'orders-before-migration',
        backupMethod: 'datafile',
        retentionPeriod: '30d',
        tags: { reason: 'migration' },
      },
    ],
  });
export type CreateBackupBody = z.infer<typeof CreateBackupBodySchema>;

const BACKUP_EXAMPLE = {
  name: 'orders-nightly-20261128',
  cluster: 'orders',
  namespace: 'graphdb',
  backupPolicyName: 'orders-falkordb-backup-policy',
  backupMethodName: 'datafile',
  type: 'full' as const,
  status: 'completed' as const,
  source: 'scheduled' as const,
  repository: 's3-backups',
  size: '1572864',
  startTime: '2026-11-28T03:00:04Z',
  completionTime: '2026-11-28T03:01:12Z',
  expirationDate: '2026-12-28T03:01:12Z',
  retentionPeriod: '30d',
  deletionPolicy: 'Delete',
  canRestore: true,
};
export const BackupSchema = z
  .object({
    name: z.string().describe('The backup (KubeBlocks Backup) name'),
    cluster: z.string().describe('The deployment it backs up'),
    namespace: z.string().describe('Its namespace'),
    backupPolicyName: z.string().optional().describe('The policy it was made under'),
    backupMethodName: z.string().optional().describe('The method: datafile, aof or volume-snapshot'),
    type: z.enum(['snapshot', 'full']).optional().describe('A volume snapshot, or a full copy of the data'),
    status: z.enum(['pending', 'running', 'completed', 'failed']).describe("KubeBlocks' phase in the API's words"),
    source: z
      .enum(['manual', 'scheduled', 'automated'])
      .describe('Asked for, made by a schedule, or made by the server on its own'),
    repository: z.string().describe('The repository it is stored in'),
    size: z.string().optional().describe('Total size of the backed-up data, as KubeBlocks reports it'),
    startTime: timestamp('When it started (when it was created, before it starts)'),
    completionTime: timestamp('When it ended').optional(),
    expirationDate: timestamp('When it expires and may be cleaned up').optional(),
    retentionPeriod: z.string().optional().describe('How long it is kept (`30d`)'),
    deletionPolicy: z.string().optional().describe('Delete or Retain: whether deleting it deletes its data'),
    parentBackupName: z.string().optional().describe('The backup an incremental one builds on'),
    parameters: z.record(z.string(), z.string()).optional().describe("Parameters of the backup method's action"),
    canRestore: z.boolean().describe('Whether it can be restored now (it is completed)'),
    restoreNotReadyReason: z.string().optional().describe('Why it cannot be restored yet'),
  })
  .meta({ id: 'Backup', description: 'A backup of a deployment', examples: [BACKUP_EXAMPLE] });
export const BackupListSchema = z
  .object({
    backups: z.array(BackupSchema).describe("The deployment's backups"),
    total: z.number().describe('How many the answer lists'),
  })
  .meta({
    examples: [
      {
        backups: [
          {
            name: 'orders-before-migration',
            cluster: 'orders',
            namespace: 'graphdb',
            backupPolicyName: 'orders-falkordb-backup-policy',
            backupMethodName: 'datafile',
            type: 'full',
            status: 'running',
            source: 'manual',
            repository: 's3-backups',
            startTime: '2026-11-28T10:12:40Z',
            retentionPeriod: '30d',
            deletionPolicy: 'Delete',
            canRestore: false,
            restoreNotReadyReason: 'The backup is running; only a completed backup can be restored',
          },
          BACKUP_EXAMPLE,
        ],
        total: 2,
      },
    ],
  });
export const CleanupResultSchema = z
  .object({
    success: z.boolean().describe('Always true (a failure answers an error)'),
    deletedBackups: z.array(z.string()).describe('The expired backups deleted (with dryRun: that would be)'),
    message: z.string().describe('What was done, in words'),
  })
  .meta({
    examples: [
      {
        success: true,
        deletedBackups: ['orders-nightly-20261026', 'orders-nightly-20261027'],
        message: '2 expired backup(s) of cluster orders deleted',
      },
    ],
  });

// ---- policies ----

export const CreatePolicyBodySchema = z
  .strictObject({
    policyName: NewName.meta({ description: "The new policy's name" }),
    backupRepoName: NewName.optional().meta({ description: 'The default repository when absent' }),
  })
  .meta({ examples: [{ policyName: 'orders-offsite', backupRepoName: 's3-backups' }] });
const POLICY_EXAMPLE = {
  name: 'orders-falkordb-backup-policy',
  cluster: 'orders',
  namespace: 'graphdb',
  backupRepoName: 's3-backups',
  backupMethods: [
    { name: 'datafile', snapshotVolumes: false },
    { name: 'aof', snapshotVolumes: false },
    { name: 'volume-snapshot', snapshotVolumes: true },
  ],
  pathPrefix: '/graphdb/orders',
  status: 'Available' as const,
  createdAt: '2026-11-20T09:15:03Z',
};
export const PolicySchema = z
  .object({
    name: z.string().describe('The policy (KubeBlocks BackupPolicy) name'),
    cluster: z.string().describe('The deployment it backs up'),
    namespace: z.string().describe('Its namespace'),
    backupRepoName: z.string().optional().describe('Where its backups go; the default repository when absent'),
    backupMethods: z
      .array(
        z.object({
          name: z.string().min(1).describe('The method name (datafile, aof, volume-snapshot)'),
          snapshotVolumes: z.boolean().optional().describe('Whether it snapshots the volumes'),
        }),
      )
      .describe('The ways it can back up'),
    pathPrefix: z.string().optional().describe('The path under the repository its backups are written to'),
    status: z.enum(['Available', 'Unavailable']).optional().describe('Whether KubeBlocks can use it'),
    message: z.string().optional().describe('Why it is unavailable'),
    createdAt: timestamp('When it was created'),
    updatedAt: timestamp('When it was last changed').optional(),
  })
  .meta({ id: 'BackupPolicy', description: 'How a deployment is backed up', examples: [POLICY_EXAMPLE] });
export const PolicyListSchema = z
  .object({
    policies: z.array(PolicySchema).describe("The deployment's backup policies"),
    total: z.number().describe('How many the answer lists'),
  })
  .meta({ examples: [{ policies: [POLICY_EXAMPLE], total: 1 }] });

// ---- schedules ----

const Method = z.enum(['datafile', 'aof', 'volume-snapshot']);
const Frequency = z
  .string()
  .min(1)
  .max(128)
  .meta({ description: 'A five-field cron expression in UTC (minute hour day month weekday), e.g. `0 3 * * *`' });
const ScheduleMethod = Method.meta({ description: 'An RDB file (datafile), the AOF (aof) or a volume snapshot' });
const SchedulePolicy = NewName.meta({
  description: "The policy to back up under; the cluster's default policy when absent",
});
const StartingDeadline = z
  .int()
  .min(0)
  .max(1440)
  .meta({ description: 'Minutes after its time within which a missed run may still start' });
export const CreateScheduleBodySchema = z
  .strictObject({
    scheduleName: NewName.meta({ description: "The new schedule's name" }),
    frequency: Frequency,
    backupMethod: ScheduleMethod,
    backupPolicyName: SchedulePolicy.optional(),
    retentionPeriod: Retention.default('30d'),
    startingDeadlineMinutes: StartingDeadline.optional(),
    enabled: z.boolean().default(true).meta({ description: 'Whether it runs (default true)' }),
  })
  .meta({
    examples: [
      { scheduleName: 'orders-nightly', frequency: '0 3 * * *', backupMethod: 'datafile', retentionPeriod: '30d' },
    ],
  });
export type CreateScheduleBody = z.infer<typeof CreateScheduleBodySchema>;
export const PatchScheduleBodySchema = z
  .strictObject({
    frequency: Frequency.optional(),
    backupMethod: ScheduleMethod.optional(),
    backupPolicyName: SchedulePolicy.optional(),
    retentionPeriod: Retention.optional(),
    startingDeadlineMinutes: StartingDeadline.optional(),
    enabled: z.boolean().optional().meta({ description: 'false pauses it, true resumes it' }),
  })
  .meta({ examples: [{ frequency: '30 2 * * *', enabled: true }] });
export type PatchScheduleBody = z.infer<typeof PatchScheduleBodySchema>;
const SCHEDULE_EXAMPLE = {
  name: 'orders-nightly',
  cluster: 'orders',
  namespace: 'graphdb',
  frequency: '0 3 * * *',
  backupMethod: 'datafile',
  backupPolicyName: 'orders-falkordb-backup-policy',
  retentionPeriod: '30d',
  status: 'Available' as const,
  nextRun: '2026-11-29T03:00:00.000Z',
  enabled: true,
  lastRun: '2026-11-28T03:00:00Z',
  lastStatus: 'success' as const,
  createdAt: '2026-11-20T09:30:12Z',
};
export const ScheduleSchema = z
  .object({
    name: z.string().describe('The schedule (KubeBlocks BackupSchedule) name'),
    cluster: z.string().describe('The deployment it backs up'),
    namespace: z.string().describe('Its namespace'),
    frequency: z.string().describe('Its five-field cron expression, in UTC'),
    backupMethod: z.string().describe('The backup method: datafile, aof or volume-snapshot'),
    backupPolicyName: z.string().describe('The policy it backs up under'),
    retentionPeriod: z.string().describe("How long its backups are kept (`30d`); '' when forever"),
    startingDeadlineMinutes: z.int().optional().describe('Minutes within which a missed run may still start'),
    status: z.enum(['Available', 'Failed', 'Deleting']).optional().describe("KubeBlocks' phase of the schedule"),
    failureReason: z.string().optional().describe('Why it failed'),
    nextRun: timestamp('When it runs next (enabled only)').optional(),
    enabled: z.boolean().describe('Whether it runs'),
    lastRun: timestamp('When it last ran').optional(),
    lastStatus: z.enum(['success', 'failed']).optional().describe('How its last run ended'),
    createdAt: timestamp('When it was created'),
  })
  .meta({ id: 'BackupSchedule', description: 'Backups of a deployment at set times', examples: [SCHEDULE_EXAMPLE] });
export const ScheduleListSchema = z
  .object({
    schedules: z.array(ScheduleSchema).describe("The deployment's backup schedules"),
    total: z.number().describe('How many the answer lists'),
  })
  .meta({ examples: [{ schedules: [SCHEDULE_EXAMPLE], total: 1 }] });

// ---- restores ----

const RestoreTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'must be a UTC time such as 2026-01-31T12:00:00Z')
  .meta({ format: 'date-time' });
export const CreateRestoreBodySchema = z
  .strictObject({
    backup: z
      .strictObject({
        name: z.string().min(1).max(253).meta({ description: 'The backup to restore' }),
        namespace: z
          .string()
          .regex(KUBERNETES_NAME)
          .optional()
          .meta({ description: "Its namespace; the cluster's when absent" }),
      })
      .meta({ description: 'The completed backup to restore' }),
    restoreTime: RestoreTime.optional().meta({ description: 'Point in time; only for a continuous (aof) backup' }),
    prepareDataConfig: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "KubeBlocks' prepareDataConfig of the restore (how volumes are prepared)" }),
    serviceAccountName: z
      .string()
      .max(253)
      .optional()
      .meta({ description: 'The ServiceAccount the restore jobs run as' }),
    env: z
      .array(
        z.strictObject({
          name: z.string().min(1).max(253).meta({ description: 'The variable name' }),
          value: z.string().optional().meta({ description: 'Its value' }),
        }),
      )
      .max(64)
      .optional()
      .meta({ description: 'Environment variables of the restore jobs' }),
    containerResources: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Kubernetes resource requests and limits of the restore jobs' }),
    parameters: Parameters.optional().meta({ description: "Parameters of the backup method's restore action" }),
    backoffLimit: z.int().min(0).max(100).optional().meta({ description: 'Retries of a failed restore job' }),
    dryRun: z.boolean().default(false).meta({ description: 'true: validate only, create nothing' }),
  })
  .meta({ examples: [{ backup: { name: 'orders-nightly-20261128', namespace: 'graphdb' } }] });
export type CreateRestoreBody = z.infer<typeof CreateRestoreBodySchema>;
const RESTORE_EXAMPLE = {
  name: 'orders-restore-4f2a9c',
  cluster: 'orders',
  namespace: 'graphdb',
  backupRef: { name: 'orders-nightly-20261128', namespace: 'graphdb' },
  status: 'completed' as const,
  startTime: '2026-11-28T11:02:17Z',
  completionTime: '2026-11-28T11:03:40Z',
};
export const RestoreSchema = z
  .object({
    name: z.string().describe('The restore (KubeBlocks Restore) name'),
    cluster: z.string().describe('The deployment restored into'),
    namespace: z.string().describe('Its namespace'),
    backupRef: z
      .object({
        name: z.string().describe('The backup restored'),
        namespace: z.string().describe('Its namespace'),
      })
      .describe('The backup restored'),
    restoreTime: timestamp('The point in time restored to (continuous backups)').optional(),
    status: z.enum(['pending', 'running', 'completed', 'failed']).describe("KubeBlocks' phase in the API's words"),
    startTime: timestamp('When it started (when it was created, before it starts)'),
    completionTime: timestamp('When it ended').optional(),
    message: z.string().optional().describe('What KubeBlocks says about it (why it failed)'),
  })
  .meta({ id: 'Restore', description: 'A restore of a backup into a deployment', examples: [RESTORE_EXAMPLE] });
export const RestoreListSchema = z
  .object({
    restores: z.array(RestoreSchema).describe("The deployment's restores"),
    total: z.number().describe('How many the answer lists'),
  })
  .meta({ examples: [{ restores: [RESTORE_EXAMPLE], total: 1 }] });
export const CloneBodySchema = z
  .strictObject({
    newClusterName: z
      .string()
      .regex(KUBERNETES_NAME, 'must be a cluster name')
      .meta({ description: 'The name of the new deployment' }),
    backupName: z.string().min(1).max(253).meta({ description: 'The completed full backup to clone from' }),
    backupNamespace: z
      .string()
      .regex(KUBERNETES_NAME)
      .optional()
      .meta({ description: "Its namespace; the cluster's when absent" }),
    volumeRestorePolicy: z
      .enum(['Parallel', 'Serial'])
      .default('Parallel')
      .meta({ description: 'Restore the volumes of the pods all at once (Parallel) or one after the other' }),
    restoreTime: RestoreTime.optional().meta({
      description: 'Not in the real API: point in time, for a continuous (aof) backup',
    }),
  })
  .meta({ examples: [{ newClusterName: 'orders-copy', backupName: 'orders-nightly-20261128' }] });
export type CloneBody = z.infer<typeof CloneBodySchema>;
