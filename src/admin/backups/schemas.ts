// Shapes of the data-protection endpoints (/api/backups/repositories…, /api/clusters/{clusterName}/backups…,
// …/cleanup/, …/restores…): the FalkorDB Enterprise admin API's request bodies and its BackupRepository, Backup, BackupPolicy,
// BackupSchedule and Restore answers. Credentials appear in requests only: no response schema has them.
import { z } from 'zod';
import { DNS_LABEL_CHARACTERS, KUBERNETES_NAME, OBJECT_NAME } from '../../lib/kubernetes-names.js';
import { ClusterNameParamsSchema, ClusterNamespaceQuerySchema, ClusterNamespaceSchema } from '../parameters.js';

/** The real API's name rule for what it creates. */
const NewName = z.string().min(1).max(63).regex(DNS_LABEL_CHARACTERS, 'must be a lowercase DNS label');

const Namespace = ClusterNamespaceSchema;
export const BackupNamespaceQuerySchema = ClusterNamespaceQuerySchema;
export const BackupListQuerySchema = z.object({
  namespace: Namespace,
  clusterName: z.string().optional().meta({ description: 'Accepted for the real API; the path names the cluster.' }),
  status: z.enum(['pending', 'running', 'completed', 'failed']).optional(),
});
export const ClusterScopedListQuerySchema = z.object({
  namespace: Namespace,
  clusterName: z.string().optional().meta({ description: 'Accepted for the real API; the path names the cluster.' }),
});
export const CleanupQuerySchema = z.object({
  namespace: Namespace,
  dryRun: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .meta({ description: 'true: list what would be deleted, delete nothing' }),
});

export const BackupClusterParamsSchema = ClusterNameParamsSchema;
export const BackupParamsSchema = BackupClusterParamsSchema.extend({
  backupName: z.string().regex(OBJECT_NAME, 'must be a backup name'),
});
export const PolicyParamsSchema = BackupClusterParamsSchema.extend({
  policyName: z.string().regex(OBJECT_NAME, 'must be a backup policy name'),
});
export const ScheduleParamsSchema = BackupClusterParamsSchema.extend({
  scheduleName: z.string().regex(OBJECT_NAME, 'must be a backup schedule name'),
});
export const RestoreParamsSchema = BackupClusterParamsSchema.extend({
  restoreName: z.string().regex(OBJECT_NAME, 'must be a restore name'),
});
export const RepositoryParamsSchema = z.object({
  name: z.string().regex(KUBERNETES_NAME, 'must be a repository name'),
});

// ---- repositories ----

const S3Like = {
  bucket: z.string().min(1),
  region: z.string().min(1),
  endpoint: z.string().optional(),
  insecure: z.boolean().optional(),
  noCheckBucket: z.boolean().optional(),
  geesefsMemoryLimit: z.int().min(0).optional(),
  geesefsReadAheadLarge: z.int().min(0).optional(),
  mountOptions: z.string().optional(),
};
const KeyCredentials = z.strictObject({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(1) });
const NoCredentials = z.strictObject({});

/** Each storage type of the real reference: its config and the credentials it takes. */
export const REPOSITORY_TYPES = {
  s3: { config: z.object(S3Like), credentials: KeyCredentials },
  's3-compatible': {
    config: z.object({
      ...S3Like,
      region: z.string().optional(),
      endpoint: z.string().min(1),
      serviceProvider: z.string().optional(),
      forcePathStyle: z.boolean().optional(),
    }),
    credentials: KeyCredentials,
  },
  'gcs-s3comp': {
    config: z.object(S3Like).omit({ noCheckBucket: true }),
    credentials: KeyCredentials,
  },
  azureblob: {
    config: z.object({
      container: z.string().min(1),
      endpoint: z.string().optional(),
      noCheckContainer: z.boolean().optional(),
    }),
    credentials: z.strictObject({ accountName: z.string().min(1), accountKey: z.string().min(1) }),
  },
  nfs: {
    config: z.object({
      nfsServer: z.string().min(1),
      nfsShare: z.string().optional(),
      nfsSubDir: z.string().optional(),
      nfsMountOptions: z.string().optional(),
    }),
    credentials: NoCredentials,
  },
  pvc: {
    config: z.object({
      storageClassName: z.string().optional(),
      accessMode: z.enum(['ReadWriteOnce', 'ReadWriteMany', 'ReadWriteOncePod']).optional(),
      volumeMode: z.enum(['Filesystem', 'Block']).optional(),
    }),
    credentials: NoCredentials,
  },
  minio: {
    config: z.object({ ...S3Like, region: z.string().optional(), endpoint: z.string().min(1) }),
    credentials: KeyCredentials,
  },
  cos: { config: z.object(S3Like), credentials: KeyCredentials },
  ftp: {
    config: z.object({
      ftpHost: z.string().min(1),
      ftpPort: z.int().min(1).max(65535).optional(),
      ftpTls: z.boolean().optional(),
    }),
    credentials: z.strictObject({ ftpUser: z.string().min(1), ftpPassword: z.string().min(1) }),
  },
  obs: { config: z.object(S3Like), credentials: KeyCredentials },
  oss: { config: z.object(S3Like), credentials: KeyCredentials },
} as const;
export type RepositoryType = keyof typeof REPOSITORY_TYPES;
const TYPE_NAMES = Object.keys(REPOSITORY_TYPES) as [RepositoryType, ...RepositoryType[]];

const repositoryVariant = <T extends RepositoryType>(type: T) =>
  z.strictObject({
    name: NewName,
    storageProviderRef: NewName.meta({ description: 'The KubeBlocks StorageProvider (usually the type itself)' }),
    isDefault: z.boolean().default(false),
    type: z.literal(type),
    config: REPOSITORY_TYPES[type].config,
    credentials: REPOSITORY_TYPES[type].credentials.optional().meta({
      description: 'Written to a Secret the repository refers to; never returned or logged',
    }),
  });

export const CreateRepositoryBodySchema = z.discriminatedUnion('type', [
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
]);
export type CreateRepositoryBody = z.infer<typeof CreateRepositoryBodySchema>;

export const PatchRepositoryBodySchema = z.strictObject({
  config: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  credentials: z
    .record(z.string(), z.string())
    .optional()
    .meta({ description: 'Replaces the stored credentials; never returned or logged' }),
  isDefault: z.boolean().optional(),
});
export type PatchRepositoryBody = z.infer<typeof PatchRepositoryBodySchema>;

export const RepositorySchema = z
  .object({
    name: z.string(),
    storageProviderRef: z.string().optional(),
    isDefault: z.boolean(),
    createdAt: z.string(),
    status: z.enum(['ready', 'error', 'pending']),
    statusMessage: z.string().optional(),
    type: z.string().meta({ description: `One of ${TYPE_NAMES.join(', ')} for the repositories this server made` }),
    config: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  })
  .meta({ id: 'BackupRepository' });
export const RepositoryListSchema = z.object({ repositories: z.array(RepositorySchema), total: z.number() });

// ---- backups ----

const Retention = z
  .string()
  .min(1)
  .max(32)
  .meta({ description: 'A duration such as 7d, 30d, 1y or 12h (units y, mo, w, d, h, m)' });
const Parameters = z.record(z.string().min(1).max(128), z.string().max(1024));

export const CreateBackupBodySchema = z.strictObject({
  backupName: NewName,
  backupPolicyName: NewName.optional().meta({
    description: "The cluster's default policy (`<cluster>-falkordb-backup-policy`) when absent",
  }),
  backupMethod: z.enum(['datafile', 'volume-snapshot']),
  backupRepoName: z.string().max(63).optional(),
  retentionPeriod: Retention.optional(),
  deletionPolicy: z.enum(['Delete', 'Retain']).default('Delete'),
  parentBackupName: z.string().max(253).optional(),
  parameters: Parameters.optional(),
  tags: z.record(z.string().min(1).max(63), z.string().max(63)).optional().meta({
    description: 'Labels of the Backup object',
  }),
});
export type CreateBackupBody = z.infer<typeof CreateBackupBodySchema>;

export const BackupSchema = z
  .object({
    name: z.string(),
    cluster: z.string(),
    namespace: z.string(),
    backupPolicyName: z.string().optional(),
    backupMethodName: z.string().optional(),
    type: z.enum(['snapshot', 'full']).optional(),
    status: z.enum(['pending', 'running', 'completed', 'failed']),
    source: z.enum(['manual', 'scheduled', 'automated']),
    repository: z.string(),
    size: z.string().optional(),
    startTime: z.string(),
    completionTime: z.string().optional(),
    expirationDate: z.string().optional(),
    retentionPeriod: z.string().optional(),
    deletionPolicy: z.string().optional(),
    parentBackupName: z.string().optional(),
    parameters: z.record(z.string(), z.string()).optional(),
    canRestore: z.boolean(),
    restoreNotReadyReason: z.string().optional(),
  })
  .meta({ id: 'Backup' });
export const BackupListSchema = z.object({ backups: z.array(BackupSchema), total: z.number() });
export const CleanupResultSchema = z.object({
  success: z.boolean(),
  deletedBackups: z.array(z.string()),
  message: z.string(),
});

// ---- policies ----

export const CreatePolicyBodySchema = z.strictObject({
  policyName: NewName,
  backupRepoName: NewName.optional().meta({ description: 'The default repository when absent' }),
});
export const PolicySchema = z
  .object({
    name: z.string(),
    cluster: z.string(),
    namespace: z.string(),
    backupRepoName: z.string().optional(),
    backupMethods: z.array(z.object({ name: z.string().min(1), snapshotVolumes: z.boolean().optional() })),
    pathPrefix: z.string().optional(),
    status: z.enum(['Available', 'Unavailable']).optional(),
    message: z.string().optional(),
    createdAt: z.string(),
    updatedAt: z.string().optional(),
  })
  .meta({ id: 'BackupPolicy' });
export const PolicyListSchema = z.object({ policies: z.array(PolicySchema), total: z.number() });

// ---- schedules ----

const Method = z.enum(['datafile', 'aof', 'volume-snapshot']);
const Frequency = z
  .string()
  .min(1)
  .max(128)
  .meta({ description: 'A five-field cron expression in UTC (minute hour day month weekday), e.g. `0 3 * * *`' });
export const CreateScheduleBodySchema = z.strictObject({
  scheduleName: NewName,
  frequency: Frequency,
  backupMethod: Method,
  backupPolicyName: NewName.optional(),
  retentionPeriod: Retention.default('30d'),
  startingDeadlineMinutes: z.int().min(0).max(1440).optional(),
  enabled: z.boolean().default(true),
});
export type CreateScheduleBody = z.infer<typeof CreateScheduleBodySchema>;
export const PatchScheduleBodySchema = z.strictObject({
  frequency: Frequency.optional(),
  backupMethod: Method.optional(),
  backupPolicyName: NewName.optional(),
  retentionPeriod: Retention.optional(),
  startingDeadlineMinutes: z.int().min(0).max(1440).optional(),
  enabled: z.boolean().optional(),
});
export type PatchScheduleBody = z.infer<typeof PatchScheduleBodySchema>;
export const ScheduleSchema = z
  .object({
    name: z.string(),
    cluster: z.string(),
    namespace: z.string(),
    frequency: z.string(),
    backupMethod: z.string(),
    backupPolicyName: z.string(),
    retentionPeriod: z.string(),
    startingDeadlineMinutes: z.int().optional(),
    status: z.enum(['Available', 'Failed', 'Deleting']).optional(),
    failureReason: z.string().optional(),
    nextRun: z.string().optional(),
    enabled: z.boolean(),
    lastRun: z.string().optional(),
    lastStatus: z.enum(['success', 'failed']).optional(),
    createdAt: z.string(),
  })
  .meta({ id: 'BackupSchedule' });
export const ScheduleListSchema = z.object({ schedules: z.array(ScheduleSchema), total: z.number() });

// ---- restores ----

const RestoreTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'must be a UTC time such as 2026-01-31T12:00:00Z');
export const CreateRestoreBodySchema = z.strictObject({
  backup: z.strictObject({ name: z.string().min(1).max(253), namespace: z.string().regex(KUBERNETES_NAME).optional() }),
  restoreTime: RestoreTime.optional().meta({ description: 'Point in time; only for a continuous (aof) backup' }),
  prepareDataConfig: z.record(z.string(), z.unknown()).optional(),
  serviceAccountName: z.string().max(253).optional(),
  env: z
    .array(z.strictObject({ name: z.string().min(1).max(253), value: z.string().optional() }))
    .max(64)
    .optional(),
  containerResources: z.record(z.string(), z.unknown()).optional(),
  parameters: Parameters.optional(),
  backoffLimit: z.int().min(0).max(100).optional(),
  dryRun: z.boolean().default(false).meta({ description: 'true: validate only, create nothing' }),
});
export type CreateRestoreBody = z.infer<typeof CreateRestoreBodySchema>;
export const RestoreSchema = z
  .object({
    name: z.string(),
    cluster: z.string(),
    namespace: z.string(),
    backupRef: z.object({ name: z.string(), namespace: z.string() }),
    restoreTime: z.string().optional(),
    status: z.enum(['pending', 'running', 'completed', 'failed']),
    startTime: z.string(),
    completionTime: z.string().optional(),
    message: z.string().optional(),
  })
  .meta({ id: 'Restore' });
export const RestoreListSchema = z.object({ restores: z.array(RestoreSchema), total: z.number() });
export const CloneBodySchema = z.strictObject({
  newClusterName: z.string().regex(KUBERNETES_NAME, 'must be a cluster name'),
  backupName: z.string().min(1).max(253),
  backupNamespace: z.string().regex(KUBERNETES_NAME).optional(),
  volumeRestorePolicy: z.enum(['Parallel', 'Serial']).default('Parallel'),
  restoreTime: RestoreTime.optional().meta({
    description: 'Not in the real API: point in time, for a continuous (aof) backup',
  }),
});
export type CloneBody = z.infer<typeof CloneBodySchema>;
