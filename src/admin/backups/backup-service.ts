// Backups, policies, schedules, repositories and restores of deployments (KubeBlocks data protection, or the (one file because a restore checks backups, repositories and policies together, before anything is created)
// embedded FalkorDB's snapshots), with the checks KubeBlocks would only make later done first: the cluster exists,
// the repository exists and is Ready, a backup is Completed before it is restored, a cron expression parses, a
// retention is a duration, a clone's name is free. A refusal creates nothing.
import { randomBytes } from 'node:crypto';
import type { BackupPort, RepositoryRecord } from '../../platform/backups/backup-port.js';
import type { ClusterObject, ClusterPort, ClusterScope } from '../../platform/clusters/cluster-port.js';
import type { ClusterRecord } from '../../platform/clusters/cluster-records.js';
import { cronProblem, retentionMs } from '../../lib/cron.js';
import { BadRequestError, ConflictError, NotFoundError, UnprocessableError } from '../../http/http-errors.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import type { Authorize } from '../permissions/permissions.js';
import { dataComponentOf, toApiCluster } from '../clusters/cluster-view.js';
import { backupHealthOf, type BackupHealth } from './backup-health.js';
import {
  backupStatusOf,
  backupView,
  policyView,
  repositoryView,
  restoreView,
  scheduleView,
  stringConfig,
} from './backup-views.js';
import type {
  CloneBody,
  CreateBackupBody,
  CreateRepositoryBody,
  CreateRestoreBody,
  CreateScheduleBody,
  PatchRepositoryBody,
  PatchScheduleBody,
} from './schemas.js';

/** KubeBlocks' annotation on a new Cluster: restore each named component from a backup. */
export const RESTORE_FROM_BACKUP_ANNOTATION = 'kubeblocks.io/restore-from-backup';
/** Restore fields that choose how the restore job runs: who it runs as, its environment and resources. */
const RESTORE_JOB_FIELDS = ['serviceAccountName', 'env', 'prepareDataConfig', 'containerResources'] as const;
/** The FalkorDB Enterprise admin API's default schedule: daily at 03:00 UTC, kept 30 days. */
export const DEFAULT_SCHEDULE = { cronExpression: '0 3 * * *', retentionPeriod: '30d', method: 'datafile' };

export interface BackupServiceOptions {
  port: BackupPort;
  clusterPort: ClusterPort;
  clusters: ClusterService;
  /**
   * Whether repositories may be read and managed now. BackupRepos are cluster-scoped: on Kubernetes only in
   * multi-cluster mode (the chart grants them with multiClusterRbac only); always elsewhere.
   */
  repositoriesManaged: () => Promise<boolean>;
  /** Whether features.backup_auto_schedule is on now. */
  autoSchedule: () => Promise<boolean>;
  logger: { warn(object: object, message: string): void; info(object: object, message: string): void };
  now: () => number;
}

export function createBackupService(options: BackupServiceOptions) {
  const { port, clusterPort, clusters, now } = options;
  const local = port.kind === 'local';
  const LOCAL_REPOSITORY = 'local';

  const componentOf = (cluster: ClusterRecord) => dataComponentOf(cluster)?.name ?? 'falkordb';

  function retention(text: string | undefined, field = 'retentionPeriod'): void {
    if (text !== undefined && retentionMs(text) === undefined)
      throw new BadRequestError(`${field} must be a duration such as 7d, 30d, 1y or 12h (got ${JSON.stringify(text)})`);
  }

  function cron(text: string): void {
    const problem = cronProblem(text);
    if (problem) throw new BadRequestError(`frequency is not a cron expression: ${problem}`);
  }

  function method(name: string): void {
    if (!port.methods.includes(name))
      throw new UnprocessableError(
        `Backup method ${name} is not available here (available: ${port.methods.join(', ')})`,
      );
  }

  /** A repository that exists (404) and is Ready (409): the named one, or the default one. */
  async function readyRepository(name: string | undefined): Promise<string> {
    if (local) {
      if (name !== undefined && name !== LOCAL_REPOSITORY)
        throw new NotFoundError(
          `Backup repository ${name} not found (embedded mode keeps backups in DATA_DIR/backups)`,
        );
      return LOCAL_REPOSITORY;
    }
    // Unreadable here (single-namespace mode): KubeBlocks judges the repository when it runs the backup.
    if (!(await options.repositoriesManaged())) return name ?? '';
    let repository: RepositoryRecord | undefined;
    if (name !== undefined) {
      repository = await port.getRepository(name);
      if (!repository) throw new NotFoundError(`Backup repository ${name} not found`);
    } else {
      repository = (await port.listRepositories()).find((repo) => repo.isDefault);
      if (!repository)
        throw new NotFoundError('No default backup repository: create one (POST /api/backups/repositories/)');
    }
    if (repository.phase !== 'Ready')
      throw new ConflictError(
        `Backup repository ${repository.name} is not ready (${repository.phase || 'not yet checked'}${
          repository.message ? `: ${repository.message}` : ''
        })`,
      );
    return repository.name;
  }

  /** The named policy of the cluster (or its default one); 404 when there is none. */
  async function policyOf(namespace: string, cluster: ClusterRecord, name: string | undefined) {
    const policyName = name ?? port.defaultPolicyName(cluster.name, componentOf(cluster));
    const policy = await port.getPolicy(namespace, policyName);
    if (!policy || policy.cluster !== cluster.name)
      throw new NotFoundError(
        `Backup policy ${policyName} not found for cluster ${cluster.name} in namespace ${namespace}`,
      );
    return policy;
  }

  async function existingBackup(namespace: string, cluster: string, name: string) {
    await clusters.get(namespace, cluster);
    const found = await port.getBackup(namespace, name);
    if (!found || found.cluster !== cluster)
      throw new NotFoundError(`Backup ${name} not found for cluster ${cluster} in namespace ${namespace}`);
    return found;
  }

  async function existingSchedule(namespace: string, cluster: string, name: string) {
    await clusters.get(namespace, cluster);
    const found = await port.getSchedule(namespace, name);
    if (!found || found.cluster !== cluster)
      throw new NotFoundError(`Backup schedule ${name} not found for cluster ${cluster} in namespace ${namespace}`);
    return found;
  }

  /**
   * A Completed backup of the namespace (404, 409): what a restore or a clone starts from. A backup of another
   * namespace than the target's is read only by who may read it there (`clusters.backups:get`, 403 otherwise),
   * before anything about it is told.
   */
  async function completedBackup(namespace: string, name: string, target: string, authorize: Authorize) {
    if (namespace !== target) await authorize('clusters.backups', 'get', namespace);
    const backup = await port.getBackup(namespace, name);
    if (!backup) throw new NotFoundError(`Backup ${name} not found in namespace ${namespace}`);
    if (backupStatusOf(backup.phase) !== 'completed')
      throw new ConflictError(`Backup ${name} is ${backup.phase || 'New'}; only a Completed backup can be restored`);
    return backup;
  }

  function pointInTime(backupMethod: string, restoreTime: string | undefined): void {
    if (restoreTime !== undefined && !port.pointInTimeMethods.includes(backupMethod))
      throw new UnprocessableError(
        `A point-in-time restore needs a continuous backup (${port.pointInTimeMethods.join(', ') || 'none here'}); this one is ${backupMethod}`,
      );
  }

  const fallbackRepository = local ? LOCAL_REPOSITORY : '';

  async function assertRepositoriesManaged(): Promise<void> {
    if (!(await options.repositoriesManaged()))
      throw new UnprocessableError(
        'Backup repositories are cluster-wide: this server manages them only in multi-cluster mode ' +
          "(features.multi_cluster_mode, with the chart's adminServer.multiClusterRbac)",
      );
  }

  /**
   * features.backup_auto_schedule: a new deployment gets the default schedule (daily at 03:00, 30 days). Turning
   * the feature off only stops adding them. A failure is logged: the deployment itself was created.
   */
  async function afterClusterCreated(cluster: ClusterRecord): Promise<void> {
    if (!(await options.autoSchedule())) return;
    const component = componentOf(cluster);
    const name = `${cluster.name}-${component}-backup-schedule`;
    try {
      await port.createSchedule({
        name,
        namespace: cluster.namespace,
        cluster: cluster.name,
        policyName: port.defaultPolicyName(cluster.name, component),
        method: DEFAULT_SCHEDULE.method,
        cronExpression: DEFAULT_SCHEDULE.cronExpression,
        retentionPeriod: DEFAULT_SCHEDULE.retentionPeriod,
        enabled: true,
      });
      options.logger.info({ cluster: cluster.name, schedule: name }, 'created the default backup schedule');
    } catch (error) {
      options.logger.warn({ err: error, cluster: cluster.name }, 'could not create the default backup schedule');
    }
  }

  return {
    // ---- repositories ----
    async listRepositories() {
      await assertRepositoriesManaged();
      const found = await port.listRepositories();
      return { repositories: found.map(repositoryView), total: found.length };
    },
    async getRepository(name: string) {
      await assertRepositoriesManaged();
      const found = await port.getRepository(name);
      if (!found) throw new NotFoundError(`Backup repository ${name} not found`);
      return repositoryView(found);
    },
    /** The first repository becomes the default one; a new default takes the mark from the old one. */
    async createRepository(body: CreateRepositoryBody) {
      await assertRepositoriesManaged();
      if (!port.createRepository)
        throw new UnprocessableError(
          'Backup repositories are not managed in embedded mode: backups are kept in DATA_DIR/backups',
        );
      if (await port.getRepository(body.name)) throw new ConflictError(`Backup repository ${body.name} already exists`);
      const isDefault = body.isDefault || (await port.listRepositories()).length === 0;
      const created = await port.createRepository({
        name: body.name,
        storageProviderRef: body.storageProviderRef,
        type: body.type,
        isDefault,
        config: stringConfig(body.config),
        ...(body.credentials ? { credentials: stringConfig(body.credentials) } : {}),
      });
      return repositoryView(created);
    },
    async patchRepository(name: string, body: PatchRepositoryBody) {
      await assertRepositoriesManaged();
      if (!port.updateRepository) throw new NotFoundError(`Backup repository ${name} not found`);
      if (!(await port.getRepository(name))) throw new NotFoundError(`Backup repository ${name} not found`);
      const updated = await port.updateRepository(name, {
        ...(body.config ? { config: stringConfig(body.config) } : {}),
        ...(body.credentials ? { credentials: body.credentials } : {}),
        ...(body.isDefault === undefined ? {} : { isDefault: body.isDefault }),
      });
      return repositoryView(updated);
    },
    async removeRepository(name: string) {
      await assertRepositoriesManaged();
      // KubeBlocks would leave such policies pointing at nothing: their next backups would fail.
      const users = (await port.repositoryUsers?.(name)) ?? [];
      if (users.length > 0)
        throw new ConflictError(
          `Backup repository ${name} is used by backup policies ${users.slice(0, 10).join(', ')}${users.length > 10 ? ` and ${users.length - 10} more` : ''}`,
        );
      if (!port.deleteRepository || !(await port.deleteRepository(name)))
        throw new NotFoundError(`Backup repository ${name} not found`);
    },

    // ---- backups ----
    /** The backups of the deployments of `scope` by status, and the newest failure (the backup metrics). */
    async health(scope: ClusterScope): Promise<BackupHealth> {
      const [found, deployments] = await Promise.all([port.listBackupsIn(scope), clusterPort.list(scope)]);
      return backupHealthOf(found, new Set(deployments.map((cluster) => `${cluster.namespace}/${cluster.name}`)));
    },
    async listBackups(namespace: string, cluster: string, status?: string) {
      await clusters.get(namespace, cluster);
      const found = (await port.listBackups(namespace, cluster)).map((record) =>
        backupView(record, fallbackRepository),
      );
      const shown = status ? found.filter((backup) => backup.status === status) : found;
      return { backups: shown, total: shown.length };
    },
    async getBackup(namespace: string, cluster: string, name: string) {
      return backupView(await existingBackup(namespace, cluster, name), fallbackRepository);
    },
    async createBackup(namespace: string, clusterName: string, body: CreateBackupBody) {
      const cluster = await clusters.get(namespace, clusterName);
      method(body.backupMethod);
      retention(body.retentionPeriod);
      const policy = await policyOf(namespace, cluster, body.backupPolicyName);
      if (!policy.methods.some((m) => m.name === body.backupMethod))
        throw new UnprocessableError(`Backup policy ${policy.name} has no method ${body.backupMethod}`);
      const repository = await readyRepository(body.backupRepoName ?? policy.repository);
      if (await port.getBackup(namespace, body.backupName))
        throw new ConflictError(`Backup ${body.backupName} already exists in namespace ${namespace}`);
      const created = await port.createBackup({
        name: body.backupName,
        namespace,
        cluster: cluster.name,
        policyName: policy.name,
        method: body.backupMethod,
        ...(body.backupRepoName ? { repository: body.backupRepoName } : {}),
        ...(body.retentionPeriod ? { retentionPeriod: body.retentionPeriod } : {}),
        deletionPolicy: body.deletionPolicy,
        ...(body.parentBackupName ? { parentBackupName: body.parentBackupName } : {}),
        ...(body.parameters ? { parameters: body.parameters } : {}),
        ...(body.tags ? { labels: body.tags } : {}),
      });
      return backupView(created, repository);
    },
    async removeBackup(namespace: string, cluster: string, name: string) {
      await existingBackup(namespace, cluster, name);
      if (!(await port.deleteBackup(namespace, name)))
        throw new NotFoundError(`Backup ${name} not found for cluster ${cluster} in namespace ${namespace}`);
    },
    /** Deletes the cluster's backups whose expiration has passed (only lists them with dryRun). */
    async cleanup(namespace: string, cluster: string, dryRun: boolean) {
      await clusters.get(namespace, cluster);
      const at = now();
      const expired = (await port.listBackups(namespace, cluster)).filter((backup) => {
        if (backup.expiration) return Date.parse(backup.expiration) <= at;
        const kept = backup.retentionPeriod ? retentionMs(backup.retentionPeriod) : undefined;
        const since = backup.completionTime ?? backup.createdAt;
        return kept !== undefined && since !== '' && Date.parse(since) + kept <= at;
      });
      const names = expired.map((backup) => backup.name);
      if (!dryRun) for (const name of names) await port.deleteBackup(namespace, name);
      return {
        success: true,
        deletedBackups: names,
        message: dryRun
          ? `${names.length} expired backup(s) of cluster ${cluster} would be deleted`
          : `${names.length} expired backup(s) of cluster ${cluster} deleted`,
      };
    },

    // ---- policies ----
    async listPolicies(namespace: string, cluster: string) {
      await clusters.get(namespace, cluster);
      const found = await port.listPolicies(namespace, cluster);
      return { policies: found.map(policyView), total: found.length };
    },
    async getPolicy(namespace: string, cluster: string, name: string) {
      return policyView(await policyOf(namespace, await clusters.get(namespace, cluster), name));
    },
    async createPolicy(namespace: string, clusterName: string, body: { policyName: string; backupRepoName?: string }) {
      const cluster = await clusters.get(namespace, clusterName);
      if (!port.createPolicy)
        throw new UnprocessableError('Embedded mode has one built-in backup policy; policies cannot be added');
      const repository = await readyRepository(body.backupRepoName);
      if (await port.getPolicy(namespace, body.policyName))
        throw new ConflictError(`Backup policy ${body.policyName} already exists in namespace ${namespace}`);
      const created = await port.createPolicy({
        name: body.policyName,
        namespace,
        cluster: cluster.name,
        repository,
        component: componentOf(cluster),
      });
      return policyView(created);
    },
    async removePolicy(namespace: string, cluster: string, name: string) {
      await policyOf(namespace, await clusters.get(namespace, cluster), name);
      if (!port.deletePolicy)
        throw new UnprocessableError('The built-in backup policy of embedded mode cannot be deleted');
      if (!(await port.deletePolicy(namespace, name)))
        throw new NotFoundError(`Backup policy ${name} not found for cluster ${cluster} in namespace ${namespace}`);
    },

    // ---- schedules ----
    async listSchedules(namespace: string, cluster: string) {
      await clusters.get(namespace, cluster);
      const found = await port.listSchedules(namespace, cluster);
      return { schedules: found.map((record) => scheduleView(record, now())), total: found.length };
    },
    async getSchedule(namespace: string, cluster: string, name: string) {
      return scheduleView(await existingSchedule(namespace, cluster, name), now());
    },
    async createSchedule(namespace: string, clusterName: string, body: CreateScheduleBody) {
      const cluster = await clusters.get(namespace, clusterName);
      cron(body.frequency);
      retention(body.retentionPeriod);
      method(body.backupMethod);
      const policy = await policyOf(namespace, cluster, body.backupPolicyName);
      await readyRepository(policy.repository);
      if (await port.getSchedule(namespace, body.scheduleName))
        throw new ConflictError(`Backup schedule ${body.scheduleName} already exists in namespace ${namespace}`);
      const created = await port.createSchedule({
        name: body.scheduleName,
        namespace,
        cluster: cluster.name,
        policyName: policy.name,
        method: body.backupMethod,
        cronExpression: body.frequency.trim(),
        retentionPeriod: body.retentionPeriod,
        enabled: body.enabled,
        ...(body.startingDeadlineMinutes === undefined
          ? {}
          : { startingDeadlineMinutes: body.startingDeadlineMinutes }),
      });
      return scheduleView(created, now());
    },
    async patchSchedule(namespace: string, clusterName: string, name: string, body: PatchScheduleBody) {
      const current = await existingSchedule(namespace, clusterName, name);
      if (body.frequency !== undefined) cron(body.frequency);
      retention(body.retentionPeriod);
      if (body.backupMethod !== undefined) method(body.backupMethod);
      if (body.backupPolicyName !== undefined)
        await policyOf(namespace, await clusters.get(namespace, clusterName), body.backupPolicyName);
      const updated = await port.updateSchedule(namespace, name, {
        policyName: body.backupPolicyName ?? current.policyName,
        method: body.backupMethod ?? current.method,
        cronExpression: body.frequency?.trim() ?? current.cronExpression,
        retentionPeriod: body.retentionPeriod ?? current.retentionPeriod,
        enabled: body.enabled ?? current.enabled,
        ...((body.startingDeadlineMinutes ?? current.startingDeadlineMinutes) === undefined
          ? {}
          : { startingDeadlineMinutes: body.startingDeadlineMinutes ?? current.startingDeadlineMinutes }),
      });
      return scheduleView(updated, now());
    },
    async removeSchedule(namespace: string, cluster: string, name: string) {
      await existingSchedule(namespace, cluster, name);
      if (!(await port.deleteSchedule(namespace, name)))
        throw new NotFoundError(`Backup schedule ${name} not found for cluster ${cluster} in namespace ${namespace}`);
    },

    afterClusterCreated,

    // ---- restores ----
    async listRestores(namespace: string, cluster: string) {
      await clusters.get(namespace, cluster);
      const found = await port.listRestores(namespace, cluster);
      return { restores: found.map(restoreView), total: found.length };
    },
    async getRestore(namespace: string, cluster: string, name: string) {
      await clusters.get(namespace, cluster);
      const found = await port.getRestore(namespace, name);
      if (!found || found.cluster !== cluster)
        throw new NotFoundError(`Restore ${name} not found for cluster ${cluster} in namespace ${namespace}`);
      return restoreView(found);
    },
    /** Restores a Completed backup into this deployment; with dryRun only the checks run. */
    async createRestore(namespace: string, clusterName: string, body: CreateRestoreBody, authorize: Authorize) {
      const cluster = await clusters.get(namespace, clusterName);
      // The restore job's identity, environment and resources: only with clusters.restores:escalate, which `*`
      // actions do not grant (docs/decisions/escalation-rule.md).
      const shaping = RESTORE_JOB_FIELDS.filter((field) => body[field] !== undefined);
      if (shaping.length > 0) await authorize('clusters.restores', 'escalate', namespace);
      const backupNamespace = body.backup.namespace ?? namespace;
      const backup = await completedBackup(backupNamespace, body.backup.name, namespace, authorize);
      pointInTime(backup.method, body.restoreTime);
      const name = `${cluster.name}-restore-${randomBytes(3).toString('hex')}`;
      if (body.dryRun)
        return restoreView({
          name,
          namespace,
          cluster: cluster.name,
          backupName: backup.name,
          backupNamespace,
          ...(body.restoreTime ? { restoreTime: body.restoreTime } : {}),
          phase: '',
          createdAt: new Date(now()).toISOString(),
          message: 'Dry run: the restore may be created; nothing was',
        });
      const created = await port.createRestore({
        name,
        namespace,
        cluster: cluster.name,
        backup: { name: backup.name, namespace: backupNamespace },
        ...(body.restoreTime ? { restoreTime: body.restoreTime } : {}),
        ...(body.env ? { env: body.env } : {}),
        ...(body.parameters ? { parameters: body.parameters } : {}),
        ...(body.backoffLimit === undefined ? {} : { backoffLimit: body.backoffLimit }),
        ...(body.serviceAccountName ? { serviceAccountName: body.serviceAccountName } : {}),
        ...(body.containerResources ? { containerResources: body.containerResources } : {}),
        ...(body.prepareDataConfig ? { prepareDataConfig: body.prepareDataConfig } : {}),
      });
      return restoreView(created);
    },
    async removeRestore(namespace: string, cluster: string, name: string) {
      await clusters.get(namespace, cluster);
      const found = await port.getRestore(namespace, name);
      if (!found || found.cluster !== cluster || !(await port.deleteRestore(namespace, name)))
        throw new NotFoundError(`Restore ${name} not found for cluster ${cluster} in namespace ${namespace}`);
    },

    /**
     * A new deployment from a Completed backup of this one: the source's Cluster object under the new name, with
     * KubeBlocks' restore-from-backup annotation naming the backup for the data component. 409 when the name is
     * taken; 422 where deployments cannot be created (embedded mode).
     */
    async clone(namespace: string, clusterName: string, body: CloneBody, authorize: Authorize) {
      const source = await clusters.get(namespace, clusterName);
      clusters.assertNotReleaseName(body.newClusterName);
      if (!clusterPort.getClusterObject || !clusterPort.createClusterObject)
        throw new UnprocessableError(
          'Cloning creates a new deployment, which embedded mode cannot do: restore into this one instead',
        );
      const backupNamespace = body.backupNamespace ?? namespace;
      const backup = await completedBackup(backupNamespace, body.backupName, namespace, authorize);
      if (backup.cluster !== source.name)
        throw new BadRequestError(`Backup ${backup.name} is of cluster ${backup.cluster}, not ${source.name}`);
      pointInTime(backup.method, body.restoreTime);
      if (await clusterPort.get(namespace, body.newClusterName))
        throw new ConflictError(`Cluster ${body.newClusterName} already exists in namespace ${namespace}`);
      const object = await clusterPort.getClusterObject(namespace, source.name);
      if (!object) throw new NotFoundError(`Cluster ${source.name} not found in namespace ${namespace}`);
      const metadata = (object.metadata ?? {}) as {
        labels?: Record<string, string>;
        annotations?: Record<string, string>;
      };
      const restoreFrom = {
        [componentOf(source)]: {
          name: backup.name,
          namespace: backupNamespace,
          volumeRestorePolicy: body.volumeRestorePolicy,
          ...(body.restoreTime ? { restoreTime: body.restoreTime } : {}),
        },
      };
      const clone: ClusterObject = {
        apiVersion: object.apiVersion as string,
        kind: 'Cluster',
        metadata: {
          name: body.newClusterName,
          namespace,
          ...(metadata.labels ? { labels: metadata.labels } : {}),
          annotations: { [RESTORE_FROM_BACKUP_ANNOTATION]: JSON.stringify(restoreFrom) },
        },
        spec: object.spec,
      };
      const created = await clusterPort.createClusterObject(clone);
      await afterClusterCreated(created);
      return toApiCluster(created);
    },
  };
}

export type BackupService = ReturnType<typeof createBackupService>;
