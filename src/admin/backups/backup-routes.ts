// Data protection at the FalkorDB Enterprise admin API's paths: backup repositories (/api/backups/repositories/…) and, per deployment, (one file because a feature registers its routes with one xxxRoutes registrar, docs/architecture.md)
// backups, cleanup, policies, schedules (/api/clusters/{clusterName}/backups/…, …/cleanup/) and restores
// (/api/clusters/{clusterName}/restores/…). Permission-checked with `clusters.backups` and `clusters.restores` in the
// cluster's namespace (repositories, which every namespace shares, in the cluster namespace); audited like every
// admin route.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { inDeploymentScope, namespaceOfRequest } from '../clusters/cluster-scope.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import { ClusterSchema } from '../clusters/schemas.js';
import { authorizerOf, requirePermission, type Action, type Resource } from '../permissions/permissions.js';
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
  // Repositories are shared by every namespace: checked in the cluster namespace, outside the deployments' scope.
  const repositories = { backups, resource: 'clusters.backups', namespaceOf: () => clusterNamespace } as const;
  for (const register of REPOSITORY_ROUTES) register(scope, repositories);
  const namespaceOf = namespaceOfRequest(clusterNamespace);
  inDeploymentScope(scope, clusters, (deploymentScope) => {
    for (const register of CLUSTER_BACKUP_ROUTES)
      register(deploymentScope, { backups, resource: 'clusters.backups', namespaceOf });
    for (const register of RESTORE_ROUTES)
      register(deploymentScope, { backups, resource: 'clusters.restores', namespaceOf });
  });
}

/** What the routes of one family share: the service, the resource permission-checked, where it is checked. */
interface Family {
  backups: BackupService;
  resource: Resource;
  namespaceOf: (request: FastifyRequest) => string;
}

/** What a route's one service call is given: the request's namespace and its validated parts. */
interface RouteInput<Params, Query, Body> {
  backups: BackupService;
  namespace: string;
  params: Params;
  query: Query;
  body: Body;
  request: FastifyRequest;
}

/**
 * One data-protection route: method and path, the action checked on its family's resource, its OpenAPI texts and
 * schemas, and the one service call whose result it answers with `status` (204: no body).
 */
interface BackupRoute<Params extends z.ZodType, Query extends z.ZodType, Body extends z.ZodType> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  action: Action;
  /** A permission needed besides the family's (a clone is a new deployment too). */
  alsoRequires?: { resource: Resource; action: Action };
  errorResponses: number[];
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  params?: Params;
  querystring?: Query;
  body?: Body;
  status: 200 | 201 | 204;
  response: z.ZodType;
  /** Names what a create makes in its audit entry, before the call, so that a refused create is named too. */
  auditName?: (body: z.output<Body>) => string;
  call: (input: RouteInput<z.output<Params>, z.output<Query>, z.output<Body>>) => Promise<unknown>;
}

type RegisterRoute = (scope: FastifyInstance, family: Family) => void;

function backupRoute<
  Params extends z.ZodType = z.ZodUndefined,
  Query extends z.ZodType = z.ZodUndefined,
  Body extends z.ZodType = z.ZodUndefined,
>(route: BackupRoute<Params, Query, Body>): RegisterRoute {
  return (scope, { backups, resource, namespaceOf }) => {
    const guard = requirePermission(resource, route.action, namespaceOf);
    scope.withTypeProvider<ZodTypeProvider>().route({
      method: route.method,
      url: route.url,
      preValidation: route.alsoRequires
        ? [guard, requirePermission(route.alsoRequires.resource, route.alsoRequires.action, namespaceOf)]
        : guard,
      config: { errorResponses: route.errorResponses },
      schema: {
        operationId: route.operationId,
        tags: route.tags,
        summary: route.summary,
        description: route.description,
        ...(route.params ? { params: route.params } : {}),
        ...(route.querystring ? { querystring: route.querystring } : {}),
        ...(route.body ? { body: route.body } : {}),
        response: { [route.status]: route.response },
      },
      handler: async (request, reply) => {
        // Parsed by the route's own schemas; the type provider cannot resolve their types for generic schemas.
        const body = request.body as z.output<Body>;
        if (route.auditName) request.auditResourceName = route.auditName(body);
        const result = await route.call({
          backups,
          namespace: namespaceOf(request),
          params: request.params as z.output<Params>,
          query: request.query as z.output<Query>,
          body,
          request,
        });
        return reply.code(route.status).send(route.status === 204 ? null : result);
      },
    });
  };
}

const REPOSITORIES = '/api/backups/repositories/';
const REPOSITORY_TAGS = ['Backup Repositories'];

/** The backup repositories (KubeBlocks BackupRepos), in the order the OpenAPI document lists them. */
const REPOSITORY_ROUTES: RegisterRoute[] = [
  backupRoute({
    method: 'GET',
    url: REPOSITORIES,
    action: 'list',
    // 422 while multi_cluster_mode is off: repositories are cluster-wide and left alone.
    errorResponses: [422],
    operationId: 'listBackupRepositories',
    tags: REPOSITORY_TAGS,
    summary: 'List backup repositories',
    description:
      'The KubeBlocks BackupRepos (cluster-wide), with their readiness. Embedded mode keeps backups in ' +
      'DATA_DIR/backups and lists none. Credentials are never returned.',
    status: 200,
    response: RepositoryListSchema,
    call: ({ backups }) => backups.listRepositories(),
  }),
  backupRoute({
    method: 'POST',
    url: REPOSITORIES,
    action: 'create',
    errorResponses: [400, 409, 422],
    operationId: 'createBackupRepository',
    tags: REPOSITORY_TAGS,
    summary: 'Create a backup repository',
    description:
      'A BackupRepo of one of the 11 storage types; its credentials go to a Secret in the server namespace ' +
      '(write-only: never returned or logged). The first repository, or one with `isDefault`, becomes the ' +
      'only default. 409 when the name is taken; 422 in embedded mode, and where the Kubernetes API serves no ' +
      'BackupRepos (the KubeBlocks data-protection CRDs are not installed).',
    body: CreateRepositoryBodySchema,
    status: 201,
    response: RepositorySchema,
    auditName: (body) => body.name,
    call: ({ backups, body }) => backups.createRepository(body),
  }),
  backupRoute({
    method: 'GET',
    url: `${REPOSITORIES}:name`,
    action: 'get',
    // 422 while multi_cluster_mode is off, as the list.
    errorResponses: [404, 422],
    operationId: 'getBackupRepository',
    tags: REPOSITORY_TAGS,
    summary: 'Get a backup repository',
    description: 'One BackupRepo: type, config (without credentials), default mark and readiness.',
    params: RepositoryParamsSchema,
    status: 200,
    response: RepositorySchema,
    call: ({ backups, params }) => backups.getRepository(params.name),
  }),
  backupRoute({
    method: 'PATCH',
    url: `${REPOSITORIES}:name`,
    action: 'update',
    // 409: the credentials Secret was not written by this server, or a stale version past the retries; 422 while
    // multi_cluster_mode is off, or when Kubernetes refused the changed object.
    errorResponses: [400, 404, 409, 422],
    operationId: 'updateBackupRepository',
    tags: REPOSITORY_TAGS,
    summary: 'Update a backup repository',
    description: 'Merges `config` into the repository, replaces its credentials Secret, or makes it the default one.',
    params: RepositoryParamsSchema,
    body: PatchRepositoryBodySchema,
    status: 200,
    response: RepositorySchema,
    call: ({ backups, params, body }) => backups.patchRepository(params.name, body),
  }),
  backupRoute({
    method: 'DELETE',
    url: `${REPOSITORIES}:name`,
    action: 'delete',
    // 409: Kubernetes answered a conflict (a stale version) past the retries; 422 while multi_cluster_mode is off.
    errorResponses: [404, 409, 422],
    operationId: 'deleteBackupRepository',
    tags: REPOSITORY_TAGS,
    summary: 'Delete a backup repository',
    description: 'Deletes the BackupRepo (its credentials Secret goes with it). Backups already in it stay there.',
    params: RepositoryParamsSchema,
    status: 204,
    response: NO_BODY,
    call: ({ backups, params }) => backups.removeRepository(params.name),
  }),
];

const BACKUPS = '/api/clusters/:clusterName/backups/';

/**
 * A deployment's backups, cleanup, policies and schedules, in the order the OpenAPI document lists them: policies
 * and schedules before `:backupName`, so that their static segments are what a reader sees first.
 */
const CLUSTER_BACKUP_ROUTES: RegisterRoute[] = [
  backupRoute({
    method: 'POST',
    url: '/api/clusters/:clusterName/cleanup/',
    action: 'delete',
    errorResponses: [404],
    operationId: 'cleanupExpiredBackups',
    tags: ['Backups'],
    summary: 'Cleanup expired backups for a specific cluster',
    description:
      'Deletes the backups of the cluster whose expiration (or completion plus retention) has passed; with ' +
      '`dryRun=true` only lists them.',
    params: BackupClusterParamsSchema,
    querystring: CleanupQuerySchema,
    status: 200,
    response: CleanupResultSchema,
    call: ({ backups, namespace, params, query }) => backups.cleanup(namespace, params.clusterName, query.dryRun),
  }),
  backupRoute({
    method: 'GET',
    url: BACKUPS,
    action: 'list',
    errorResponses: [404],
    operationId: 'listBackups',
    tags: ['Backups'],
    summary: 'List all backups for a specific cluster',
    description: "The cluster's backups, newest first, optionally of one `status`.",
    params: BackupClusterParamsSchema,
    querystring: BackupListQuerySchema,
    status: 200,
    response: BackupListSchema,
    call: ({ backups, namespace, params, query }) => backups.listBackups(namespace, params.clusterName, query.status),
  }),
  backupRoute({
    method: 'POST',
    url: BACKUPS,
    action: 'create',
    errorResponses: [400, 404, 409, 422],
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
    status: 201,
    response: BackupSchema,
    auditName: (body) => body.backupName,
    call: ({ backups, namespace, params, body }) => backups.createBackup(namespace, params.clusterName, body),
  }),
  backupRoute({
    method: 'GET',
    url: `${BACKUPS}policies/`,
    action: 'list',
    errorResponses: [404],
    operationId: 'listBackupPolicies',
    tags: ['Backup Policies'],
    summary: 'List backup policies for a specific cluster',
    description: "The cluster's BackupPolicies: methods, repository, availability.",
    params: BackupClusterParamsSchema,
    querystring: ClusterScopedListQuerySchema,
    status: 200,
    response: PolicyListSchema,
    call: ({ backups, namespace, params }) => backups.listPolicies(namespace, params.clusterName),
  }),
  backupRoute({
    method: 'POST',
    url: `${BACKUPS}policies/`,
    action: 'create',
    errorResponses: [400, 404, 409, 422],
    operationId: 'createBackupPolicy',
    tags: ['Backup Policies'],
    summary: 'Create a new backup policy',
    description:
      "A BackupPolicy for the cluster's data pods with FalkorDB's methods (datafile, aof, volume-snapshot), " +
      'into `backupRepoName` or the default repository, which must exist and be ready (404, 409).',
    params: BackupClusterParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    body: CreatePolicyBodySchema,
    status: 201,
    response: PolicySchema,
    auditName: (body) => body.policyName,
    call: ({ backups, namespace, params, body }) => backups.createPolicy(namespace, params.clusterName, body),
  }),
  backupRoute({
    method: 'GET',
    url: `${BACKUPS}policies/:policyName`,
    action: 'get',
    errorResponses: [404],
    operationId: 'getBackupPolicy',
    tags: ['Backup Policies'],
    summary: 'Get a specific backup policy',
    description: 'One BackupPolicy of the cluster.',
    params: PolicyParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 200,
    response: PolicySchema,
    call: ({ backups, namespace, params }) => backups.getPolicy(namespace, params.clusterName, params.policyName),
  }),
  backupRoute({
    method: 'DELETE',
    url: `${BACKUPS}policies/:policyName`,
    action: 'delete',
    errorResponses: [404, 422],
    operationId: 'deleteBackupPolicy',
    tags: ['Backup Policies'],
    summary: 'Delete a backup policy',
    description: 'Deletes the BackupPolicy; its backups stay.',
    params: PolicyParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 204,
    response: NO_BODY,
    call: ({ backups, namespace, params }) => backups.removePolicy(namespace, params.clusterName, params.policyName),
  }),
  backupRoute({
    method: 'GET',
    url: `${BACKUPS}schedules/`,
    action: 'list',
    errorResponses: [404],
    operationId: 'listBackupSchedules',
    tags: ['Backup Schedules'],
    summary: 'List backup schedules for a specific cluster',
    description: "The cluster's BackupSchedules, with their next run (UTC) and the outcome of the last one.",
    params: BackupClusterParamsSchema,
    querystring: ClusterScopedListQuerySchema,
    status: 200,
    response: ScheduleListSchema,
    call: ({ backups, namespace, params }) => backups.listSchedules(namespace, params.clusterName),
  }),
  backupRoute({
    method: 'POST',
    url: `${BACKUPS}schedules/`,
    action: 'create',
    errorResponses: [400, 404, 409, 422],
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
    status: 201,
    response: ScheduleSchema,
    auditName: (body) => body.scheduleName,
    call: ({ backups, namespace, params, body }) => backups.createSchedule(namespace, params.clusterName, body),
  }),
  backupRoute({
    method: 'GET',
    url: `${BACKUPS}schedules/:scheduleName`,
    action: 'get',
    errorResponses: [404],
    operationId: 'getBackupSchedule',
    tags: ['Backup Schedules'],
    summary: 'Get a specific backup schedule',
    description: 'One BackupSchedule of the cluster.',
    params: ScheduleParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 200,
    response: ScheduleSchema,
    call: ({ backups, namespace, params }) => backups.getSchedule(namespace, params.clusterName, params.scheduleName),
  }),
  backupRoute({
    method: 'PATCH',
    url: `${BACKUPS}schedules/:scheduleName`,
    action: 'update',
    errorResponses: [400, 404, 422],
    operationId: 'updateBackupSchedule',
    tags: ['Backup Schedules'],
    summary: 'Update a backup schedule',
    description: 'Changes the given fields (frequency, method, policy, retention, deadline, enabled).',
    params: ScheduleParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    body: PatchScheduleBodySchema,
    status: 200,
    response: ScheduleSchema,
    call: ({ backups, namespace, params, body }) =>
      backups.patchSchedule(namespace, params.clusterName, params.scheduleName, body),
  }),
  backupRoute({
    method: 'DELETE',
    url: `${BACKUPS}schedules/:scheduleName`,
    action: 'delete',
    errorResponses: [404],
    operationId: 'deleteBackupSchedule',
    tags: ['Backup Schedules'],
    summary: 'Delete a backup schedule',
    description: 'Deletes the BackupSchedule; the backups it made stay.',
    params: ScheduleParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 204,
    response: NO_BODY,
    call: ({ backups, namespace, params }) =>
      backups.removeSchedule(namespace, params.clusterName, params.scheduleName),
  }),
  backupRoute({
    method: 'GET',
    url: `${BACKUPS}:backupName`,
    action: 'get',
    errorResponses: [404],
    operationId: 'getBackup',
    tags: ['Backups'],
    summary: 'Get a specific backup',
    description: 'One backup of the cluster: status, size, times, whether it can be restored and why not.',
    params: BackupParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 200,
    response: BackupSchema,
    call: ({ backups, namespace, params }) => backups.getBackup(namespace, params.clusterName, params.backupName),
  }),
  backupRoute({
    method: 'DELETE',
    url: `${BACKUPS}:backupName`,
    action: 'delete',
    errorResponses: [404],
    operationId: 'deleteBackup',
    tags: ['Backups'],
    summary: 'Delete a backup',
    description: 'Deletes the backup (with deletionPolicy Delete, its data in the repository too).',
    params: BackupParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 204,
    response: NO_BODY,
    call: ({ backups, namespace, params }) => backups.removeBackup(namespace, params.clusterName, params.backupName),
  }),
];

const RESTORES = '/api/clusters/:clusterName/restores/';
const RESTORE_TAGS = ['Restores'];

/** Restores into a deployment and clones from its backups, in the order the OpenAPI document lists them. */
const RESTORE_ROUTES: RegisterRoute[] = [
  backupRoute({
    method: 'GET',
    url: RESTORES,
    action: 'list',
    errorResponses: [404],
    operationId: 'listRestores',
    tags: RESTORE_TAGS,
    summary: 'List restores for a specific cluster',
    description: 'The restores into the cluster, newest first.',
    params: BackupClusterParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 200,
    response: RestoreListSchema,
    call: ({ backups, namespace, params }) => backups.listRestores(namespace, params.clusterName),
  }),
  backupRoute({
    method: 'POST',
    url: RESTORES,
    action: 'create',
    errorResponses: [400, 404, 409, 422],
    operationId: 'createRestore',
    tags: RESTORE_TAGS,
    summary: 'Restore a backup into this cluster',
    description:
      'The backup must exist (404) and be Completed (409); `restoreTime` only for a continuous (aof) backup ' +
      '(422). Embedded mode stops the FalkorDB, replaces its data with the snapshot, starts it and checks that ' +
      'the graphs are back. `dryRun` runs the checks only.',
    params: BackupClusterParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    body: CreateRestoreBodySchema,
    status: 201,
    response: RestoreSchema,
    // The restore's name is the service's choice: the audit entry names it once it is made.
    call: async ({ backups, namespace, params, body, request }) => {
      const restore = await backups.createRestore(namespace, params.clusterName, body, authorizerOf(request));
      request.auditResourceName = restore.name;
      return restore;
    },
  }),
  backupRoute({
    method: 'POST',
    url: `${RESTORES}clone`,
    action: 'create',
    // A clone is a new deployment too: it needs the right to create one.
    alsoRequires: { resource: 'clusters', action: 'create' },
    errorResponses: [400, 404, 409, 422],
    operationId: 'cloneClusterFromBackup',
    tags: RESTORE_TAGS,
    summary: 'Create a new cluster from a backup',
    description:
      "A new deployment with this one's spec, restored by KubeBlocks from a Completed full backup (the " +
      '`kubeblocks.io/restore-from-backup` annotation), at `restoreTime` for a continuous backup. 409 when the ' +
      'name is taken; 422 in embedded mode.',
    params: BackupClusterParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    body: CloneBodySchema,
    status: 201,
    response: ClusterSchema,
    auditName: (body) => body.newClusterName,
    call: ({ backups, namespace, params, body, request }) =>
      backups.clone(namespace, params.clusterName, body, authorizerOf(request)),
  }),
  backupRoute({
    method: 'GET',
    url: `${RESTORES}:restoreName`,
    action: 'get',
    errorResponses: [404],
    operationId: 'getRestore',
    tags: RESTORE_TAGS,
    summary: 'Get a specific restore',
    description: 'One restore of the cluster: its backup, status and times.',
    params: RestoreParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 200,
    response: RestoreSchema,
    call: ({ backups, namespace, params }) => backups.getRestore(namespace, params.clusterName, params.restoreName),
  }),
  backupRoute({
    method: 'DELETE',
    url: `${RESTORES}:restoreName`,
    action: 'delete',
    errorResponses: [404],
    operationId: 'deleteRestore',
    tags: RESTORE_TAGS,
    summary: 'Delete a restore record',
    description: 'Deletes the record of the restore; it does not undo it.',
    params: RestoreParamsSchema,
    querystring: BackupNamespaceQuerySchema,
    status: 204,
    response: NO_BODY,
    call: ({ backups, namespace, params }) => backups.removeRestore(namespace, params.clusterName, params.restoreName),
  }),
];
