// Data protection at the FalkorDB Enterprise admin API's paths: backup repositories (/api/backups/repositories/…) and, per deployment, (one file because a feature registers its routes with one xxxRoutes registrar, docs/architecture.md)
// backups, cleanup, policies, schedules (/api/clusters/{clusterName}/backups/…, …/cleanup/) and restores
// (/api/clusters/{clusterName}/restores/…). Permission-checked with `clusters.backups` and `clusters.restores` in the
// cluster's namespace (repositories, which every namespace shares, in the cluster namespace); audited like every
// admin route.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { namespaceOfRequest, onlyClusterNamespaceUnlessMultiCluster } from '../clusters/cluster-scope.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import { ClusterSchema } from '../clusters/schemas.js';
import { authorizerOf, requirePermission } from '../permissions/permissions.js';
import type { BackupService } from './backup-service.js';
import {
  BackupClusterParamsSchema,
  BackupListQuerySchema,
  BackupListSchema,
  BackupNamespaceQuerySchema,
  BackupParamsSchema,
  BackupSchema,
  CleanupQuerySchema,
  CleanupResultSchema,
  CloneBodySchema,
  ClusterScopedListQuerySchema,
  CreateBackupBodySchema,
  CreatePolicyBodySchema,
  CreateRepositoryBodySchema,
  CreateRestoreBodySchema,
  CreateScheduleBodySchema,
  PatchRepositoryBodySchema,
  PatchScheduleBodySchema,
  PolicyListSchema,
  PolicyParamsSchema,
  PolicySchema,
  RepositoryListSchema,
  RepositoryParamsSchema,
  RepositorySchema,
  RestoreListSchema,
  RestoreParamsSchema,
  RestoreSchema,
  ScheduleListSchema,
  ScheduleParamsSchema,
  ScheduleSchema,
} from './schemas.js';

const NO_BODY = z.null().describe('Deleted; no body');

/** What the backup routes call; `clusterNamespace` answers a request that names no namespace. */
export interface BackupRouteDeps {
  backups: BackupService;
  clusters: ClusterService;
  clusterNamespace: string;
}

export function backupRoutes(scope: FastifyInstance, { backups, clusters, clusterNamespace }: BackupRouteDeps): void {
  repositoryRoutes(scope, backups, clusterNamespace);
  void scope.register(function backupScope(backupScope, _options, done) {
    backupScope.addHook('preHandler', onlyClusterNamespaceUnlessMultiCluster(clusters));
    clusterBackupRoutes(backupScope, backups, clusterNamespace);
    restoreRoutes(backupScope, backups, clusterNamespace);
    done();
  });
}

function repositoryRoutes(app: FastifyInstance, backups: BackupService, clusterNamespace: string): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['Backup Repositories'];
  const inClusterNamespace = () => clusterNamespace;
  const BASE = '/api/backups/repositories/';

  routes.get(
    BASE,
    {
      preValidation: requirePermission('clusters.backups', 'list', inClusterNamespace),
      // 422 while multi_cluster_mode is off: repositories are cluster-wide and left alone.
      config: { errorResponses: [422] },
      schema: {
        operationId: 'listBackupRepositories',
        tags,
        summary: 'List backup repositories',
        description:
          'The KubeBlocks BackupRepos (cluster-wide), with their readiness. Embedded mode keeps backups in ' +
          'DATA_DIR/backups and lists none. Credentials are never returned.',
        response: { 200: RepositoryListSchema },
      },
    },
    async () => backups.listRepositories(),
  );

  routes.post(
    BASE,
    {
      preValidation: requirePermission('clusters.backups', 'create', inClusterNamespace),
      config: { errorResponses: [400, 409, 422] },
      schema: {
        operationId: 'createBackupRepository',
        tags,
        summary: 'Create a backup repository',
        description:
          'A BackupRepo of one of the 11 storage types; its credentials go to a Secret in the server namespace ' +
          '(write-only: never returned or logged). The first repository, or one with `isDefault`, becomes the ' +
          'only default. 409 when the name is taken; 422 in embedded mode, and where the Kubernetes API serves no ' +
          'BackupRepos (the KubeBlocks data-protection CRDs are not installed).',
        body: CreateRepositoryBodySchema,
        response: { 201: RepositorySchema },
      },
    },
    async (request, reply) => {
      request.auditResourceName = request.body.name;
      return reply.code(201).send(await backups.createRepository(request.body));
    },
  );

  routes.get(
    `${BASE}:name`,
    {
      preValidation: requirePermission('clusters.backups', 'get', inClusterNamespace),
      // 422 while multi_cluster_mode is off, as the list.
      config: { errorResponses: [404, 422] },
      schema: {
        operationId: 'getBackupRepository',
        tags,
        summary: 'Get a backup repository',
        description: 'One BackupRepo: type, config (without credentials), default mark and readiness.',
        params: RepositoryParamsSchema,
        response: { 200: RepositorySchema },
      },
    },
    async (request) => backups.getRepository(request.params.name),
  );

  routes.patch(
    `${BASE}:name`,
    {
      preValidation: requirePermission('clusters.backups', 'update', inClusterNamespace),
      // 409: the credentials Secret was not written by this server, or a stale version past the retries; 422 while
      // multi_cluster_mode is off, or when Kubernetes refused the changed object.
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'updateBackupRepository',
        tags,
        summary: 'Update a backup repository',
        description:
          'Merges `config` into the repository, replaces its credentials Secret, or makes it the default one.',
        params: RepositoryParamsSchema,
        body: PatchRepositoryBodySchema,
        response: { 200: RepositorySchema },
      },
    },
    async (request) => backups.patchRepository(request.params.name, request.body),
  );

  routes.delete(
    `${BASE}:name`,
    {
      preValidation: requirePermission('clusters.backups', 'delete', inClusterNamespace),
      // 409: Kubernetes answered a conflict (a stale version) past the retries; 422 while multi_cluster_mode is off.
      config: { errorResponses: [404, 409, 422] },
      schema: {
        operationId: 'deleteBackupRepository',
        tags,
        summary: 'Delete a backup repository',
        description: 'Deletes the BackupRepo (its credentials Secret goes with it). Backups already in it stay there.',
        params: RepositoryParamsSchema,
        response: { 204: NO_BODY },
      },
    },
    async (request, reply) => {
      await backups.removeRepository(request.params.name);
      return reply.code(204).send(null);
    },
  );
}

function clusterBackupRoutes(app: FastifyInstance, backups: BackupService, clusterNamespace: string): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const namespaceOf = namespaceOfRequest(clusterNamespace);
  const can = (action: 'list' | 'get' | 'create' | 'update' | 'delete') =>
    requirePermission('clusters.backups', action, namespaceOf);
  const BASE = '/api/clusters/:clusterName/backups/';

  routes.post(
    '/api/clusters/:clusterName/cleanup/',
    {
      preValidation: can('delete'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'cleanupExpiredBackups',
        tags: ['Backups'],
        summary: 'Cleanup expired backups for a specific cluster',
        description:
          'Deletes the backups of the cluster whose expiration (or completion plus retention) has passed; with ' +
          '`dryRun=true` only lists them.',
        params: BackupClusterParamsSchema,
        querystring: CleanupQuerySchema,
        response: { 200: CleanupResultSchema },
      },
    },
    async (request) => backups.cleanup(namespaceOf(request), request.params.clusterName, request.query.dryRun),
  );

  routes.get(
    BASE,
    {
      preValidation: can('list'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'listBackups',
        tags: ['Backups'],
        summary: 'List all backups for a specific cluster',
        description: "The cluster's backups, newest first, optionally of one `status`.",
        params: BackupClusterParamsSchema,
        querystring: BackupListQuerySchema,
        response: { 200: BackupListSchema },
      },
    },
    async (request) => backups.listBackups(namespaceOf(request), request.params.clusterName, request.query.status),
  );

  routes.post(
    BASE,
    {
      preValidation: can('create'),
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'createBackup',
        tags: ['Backups'],
        summary: 'Create a new backup',
        description:
          'Starts an on-demand backup and answers at once (status pending or running). The policy (the ' +
          "cluster's default when absent) must exist and its repository (or `backupRepoName`) must exist and be " +
          'ready (404, 409); `retentionPeriod` must be a duration (400); a method the platform lacks is a 422. ' +
          'Embedded mode takes an RDB snapshot into DATA_DIR/backups.',
        params: BackupClusterParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        body: CreateBackupBodySchema,
        response: { 201: BackupSchema },
      },
    },
    async (request, reply) => {
      request.auditResourceName = request.body.backupName;
      return reply
        .code(201)
        .send(await backups.createBackup(namespaceOf(request), request.params.clusterName, request.body));
    },
  );

  // Policies and schedules before `:backupName`, so that their static segments are what a reader sees first.
  routes.get(
    `${BASE}policies/`,
    {
      preValidation: can('list'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'listBackupPolicies',
        tags: ['Backup Policies'],
        summary: 'List backup policies for a specific cluster',
        description: "The cluster's BackupPolicies: methods, repository, availability.",
        params: BackupClusterParamsSchema,
        querystring: ClusterScopedListQuerySchema,
        response: { 200: PolicyListSchema },
      },
    },
    async (request) => backups.listPolicies(namespaceOf(request), request.params.clusterName),
  );

  routes.post(
    `${BASE}policies/`,
    {
      preValidation: can('create'),
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'createBackupPolicy',
        tags: ['Backup Policies'],
        summary: 'Create a new backup policy',
        description:
          "A BackupPolicy for the cluster's data pods with FalkorDB's methods (datafile, aof, volume-snapshot), " +
          'into `backupRepoName` or the default repository, which must exist and be ready (404, 409).',
        params: BackupClusterParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        body: CreatePolicyBodySchema,
        response: { 201: PolicySchema },
      },
    },
    async (request, reply) => {
      request.auditResourceName = request.body.policyName;
      return reply
        .code(201)
        .send(await backups.createPolicy(namespaceOf(request), request.params.clusterName, request.body));
    },
  );

  routes.get(
    `${BASE}policies/:policyName`,
    {
      preValidation: can('get'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getBackupPolicy',
        tags: ['Backup Policies'],
        summary: 'Get a specific backup policy',
        description: 'One BackupPolicy of the cluster.',
        params: PolicyParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 200: PolicySchema },
      },
    },
    async (request) => backups.getPolicy(namespaceOf(request), request.params.clusterName, request.params.policyName),
  );

  routes.delete(
    `${BASE}policies/:policyName`,
    {
      preValidation: can('delete'),
      config: { errorResponses: [404, 422] },
      schema: {
        operationId: 'deleteBackupPolicy',
        tags: ['Backup Policies'],
        summary: 'Delete a backup policy',
        description: 'Deletes the BackupPolicy; its backups stay.',
        params: PolicyParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 204: NO_BODY },
      },
    },
    async (request, reply) => {
      await backups.removePolicy(namespaceOf(request), request.params.clusterName, request.params.policyName);
      return reply.code(204).send(null);
    },
  );

  routes.get(
    `${BASE}schedules/`,
    {
      preValidation: can('list'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'listBackupSchedules',
        tags: ['Backup Schedules'],
        summary: 'List backup schedules for a specific cluster',
        description: "The cluster's BackupSchedules, with their next run (UTC) and the outcome of the last one.",
        params: BackupClusterParamsSchema,
        querystring: ClusterScopedListQuerySchema,
        response: { 200: ScheduleListSchema },
      },
    },
    async (request) => backups.listSchedules(namespaceOf(request), request.params.clusterName),
  );

  routes.post(
    `${BASE}schedules/`,
    {
      preValidation: can('create'),
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'createBackupSchedule',
        tags: ['Backup Schedules'],
        summary: 'Create a new backup schedule',
        description:
          'A BackupSchedule: `frequency` a five-field cron expression in UTC and `retentionPeriod` a duration (400 ' +
          'otherwise, default 30d); the policy (default one when absent) must exist and its repository be ready. ' +
          'Embedded mode runs schedules in this process.',
        params: BackupClusterParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        body: CreateScheduleBodySchema,
        response: { 201: ScheduleSchema },
      },
    },
    async (request, reply) => {
      request.auditResourceName = request.body.scheduleName;
      return reply
        .code(201)
        .send(await backups.createSchedule(namespaceOf(request), request.params.clusterName, request.body));
    },
  );

  routes.get(
    `${BASE}schedules/:scheduleName`,
    {
      preValidation: can('get'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getBackupSchedule',
        tags: ['Backup Schedules'],
        summary: 'Get a specific backup schedule',
        description: 'One BackupSchedule of the cluster.',
        params: ScheduleParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 200: ScheduleSchema },
      },
    },
    async (request) =>
      backups.getSchedule(namespaceOf(request), request.params.clusterName, request.params.scheduleName),
  );

  routes.patch(
    `${BASE}schedules/:scheduleName`,
    {
      preValidation: can('update'),
      config: { errorResponses: [400, 404, 422] },
      schema: {
        operationId: 'updateBackupSchedule',
        tags: ['Backup Schedules'],
        summary: 'Update a backup schedule',
        description: 'Changes the given fields (frequency, method, policy, retention, deadline, enabled).',
        params: ScheduleParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        body: PatchScheduleBodySchema,
        response: { 200: ScheduleSchema },
      },
    },
    async (request) =>
      backups.patchSchedule(
        namespaceOf(request),
        request.params.clusterName,
        request.params.scheduleName,
        request.body,
      ),
  );

  routes.delete(
    `${BASE}schedules/:scheduleName`,
    {
      preValidation: can('delete'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'deleteBackupSchedule',
        tags: ['Backup Schedules'],
        summary: 'Delete a backup schedule',
        description: 'Deletes the BackupSchedule; the backups it made stay.',
        params: ScheduleParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 204: NO_BODY },
      },
    },
    async (request, reply) => {
      await backups.removeSchedule(namespaceOf(request), request.params.clusterName, request.params.scheduleName);
      return reply.code(204).send(null);
    },
  );

  routes.get(
    `${BASE}:backupName`,
    {
      preValidation: can('get'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getBackup',
        tags: ['Backups'],
        summary: 'Get a specific backup',
        description: 'One backup of the cluster: status, size, times, whether it can be restored and why not.',
        params: BackupParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 200: BackupSchema },
      },
    },
    async (request) => backups.getBackup(namespaceOf(request), request.params.clusterName, request.params.backupName),
  );

  routes.delete(
    `${BASE}:backupName`,
    {
      preValidation: can('delete'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'deleteBackup',
        tags: ['Backups'],
        summary: 'Delete a backup',
        description: 'Deletes the backup (with deletionPolicy Delete, its data in the repository too).',
        params: BackupParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 204: NO_BODY },
      },
    },
    async (request, reply) => {
      await backups.removeBackup(namespaceOf(request), request.params.clusterName, request.params.backupName);
      return reply.code(204).send(null);
    },
  );
}

function restoreRoutes(app: FastifyInstance, backups: BackupService, clusterNamespace: string): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const namespaceOf = namespaceOfRequest(clusterNamespace);
  const can = (action: 'list' | 'get' | 'create' | 'delete') =>
    requirePermission('clusters.restores', action, namespaceOf);
  const tags = ['Restores'];
  const BASE = '/api/clusters/:clusterName/restores/';

  routes.get(
    BASE,
    {
      preValidation: can('list'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'listRestores',
        tags,
        summary: 'List restores for a specific cluster',
        description: 'The restores into the cluster, newest first.',
        params: BackupClusterParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 200: RestoreListSchema },
      },
    },
    async (request) => backups.listRestores(namespaceOf(request), request.params.clusterName),
  );

  routes.post(
    BASE,
    {
      preValidation: can('create'),
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'createRestore',
        tags,
        summary: 'Restore a backup into this cluster',
        description:
          'The backup must exist (404) and be Completed (409); `restoreTime` only for a continuous (aof) backup ' +
          '(422). Embedded mode stops the FalkorDB, replaces its data with the snapshot, starts it and checks that ' +
          'the graphs are back. `dryRun` runs the checks only.',
        params: BackupClusterParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        body: CreateRestoreBodySchema,
        response: { 201: RestoreSchema },
      },
    },
    async (request, reply) => {
      const restore = await backups.createRestore(
        namespaceOf(request),
        request.params.clusterName,
        request.body,
        authorizerOf(request),
      );
      request.auditResourceName = restore.name;
      return reply.code(201).send(restore);
    },
  );

  routes.post(
    `${BASE}clone`,
    {
      // A clone is a new deployment too: it needs the right to create one.
      preValidation: [can('create'), requirePermission('clusters', 'create', namespaceOf)],
      config: { errorResponses: [400, 404, 409, 422] },
      schema: {
        operationId: 'cloneClusterFromBackup',
        tags,
        summary: 'Create a new cluster from a backup',
        description:
          "A new deployment with this one's spec, restored by KubeBlocks from a Completed full backup (the " +
          '`kubeblocks.io/restore-from-backup` annotation), at `restoreTime` for a continuous backup. 409 when the ' +
          'name is taken; 422 in embedded mode.',
        params: BackupClusterParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        body: CloneBodySchema,
        response: { 201: ClusterSchema },
      },
    },
    async (request, reply) => {
      request.auditResourceName = request.body.newClusterName;
      return reply
        .code(201)
        .send(
          await backups.clone(namespaceOf(request), request.params.clusterName, request.body, authorizerOf(request)),
        );
    },
  );

  routes.get(
    `${BASE}:restoreName`,
    {
      preValidation: can('get'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'getRestore',
        tags,
        summary: 'Get a specific restore',
        description: 'One restore of the cluster: its backup, status and times.',
        params: RestoreParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 200: RestoreSchema },
      },
    },
    async (request) => backups.getRestore(namespaceOf(request), request.params.clusterName, request.params.restoreName),
  );

  routes.delete(
    `${BASE}:restoreName`,
    {
      preValidation: can('delete'),
      config: { errorResponses: [404] },
      schema: {
        operationId: 'deleteRestore',
        tags,
        summary: 'Delete a restore record',
        description: 'Deletes the record of the restore; it does not undo it.',
        params: RestoreParamsSchema,
        querystring: BackupNamespaceQuerySchema,
        response: { 204: NO_BODY },
      },
    },
    async (request, reply) => {
      await backups.removeRestore(namespaceOf(request), request.params.clusterName, request.params.restoreName);
      return reply.code(204).send(null);
    },
  );
}
