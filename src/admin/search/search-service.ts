// One search over what the caller may list: deployments (clusters:list in their namespace), their backups
// (clusters.backups:list there; of at most SEARCHED_BACKUP_CLUSTERS deployments, one list each), backup repositories
// (clusters.backups:list in the cluster namespace, where repositories are managed), console users (users:list) and
// roles (rbac:list). `total` counts every match; at most `limit` are returned.
import type { ClusterService } from '../clusters/cluster-service.js';
import { rulesAllow, type Action, type Resource, type RoleName } from '../permissions/permissions.js';
import type { RbacService } from '../rbac/rbac-service.js';
import type { UserService } from '../users/user-service.js';
import type { SearchItem, SearchType } from './schemas.js';
import type { BackupPort } from '../../platform/backups/backup-port.js';
import { backupStatusOf } from '../backups/backup-views.js';

/** The deployments whose backups one search lists (one Kubernetes list each): a search stays bounded. */
export const SEARCHED_BACKUP_CLUSTERS = 50;

export interface SearchInput {
  q?: string;
  namespace?: string;
  types?: Set<SearchType>;
  limit: number;
}

export interface SearchDeps {
  users: UserService;
  clusters: ClusterService;
  /** The roles: what the caller may list, and the roles themselves. */
  rbac: RbacService;
  /** The server's namespace: where users and roles are permission-checked. */
  namespace: string;
  clusterNamespace: string;
  /** Backups and repositories; none searched when absent. */
  backups?: { port: BackupPort; repositoriesManaged: () => Promise<boolean> };
}

export function createSearchService(deps: SearchDeps) {
  return {
    async search(role: RoleName, input: SearchInput) {
      const rules = await deps.rbac.rulesOf(role);
      const isAllowed = (resource: Resource, action: Action, namespace: string) =>
        rulesAllow(rules, resource, action, namespace);
      const needle = (input.q ?? '').trim().toLowerCase();
      const wanted = (type: SearchType) => !input.types || input.types.has(type);
      const matches = (item: SearchItem) =>
        needle === '' || [item.name, item.id, item.description].some((text) => text.toLowerCase().includes(needle));
      const items: SearchItem[] = [];

      const namespace = input.namespace ?? deps.clusterNamespace;
      const deploymentsInScope =
        (wanted('cluster') || wanted('backup')) &&
        (input.namespace === undefined || isAllowed('clusters', 'list', namespace))
          ? (await deps.clusters.listVisible(role, input.namespace)).filter((deployment) =>
              isAllowed('clusters', 'list', deployment.namespace),
            )
          : [];
      if (wanted('cluster')) {
        for (const deployment of deploymentsInScope) {
          const version = deployment.components[0]?.serviceVersion ?? '';
          items.push({
            type: 'cluster',
            name: deployment.name,
            namespace: deployment.namespace,
            id: `${deployment.namespace}/${deployment.name}`,
            description: `${deployment.topology || 'FalkorDB'} deployment, ${deployment.phase}`,
            meta: { phase: deployment.phase, topology: deployment.topology, version },
          });
        }
      }
      const backups = deps.backups;
      if (backups && wanted('backup')) {
        const searched = deploymentsInScope
          .filter((deployment) => isAllowed('clusters.backups', 'list', deployment.namespace))
          .slice(0, SEARCHED_BACKUP_CLUSTERS);
        const lists = await Promise.all(
          searched.map((deployment) => backups.port.listBackups(deployment.namespace, deployment.name)),
        );
        for (const backup of lists.flat()) {
          const status = backupStatusOf(backup.phase);
          items.push({
            type: 'backup',
            name: backup.name,
            namespace: backup.namespace,
            id: `${backup.namespace}/${backup.name}`,
            description: `${backup.method} backup of ${backup.cluster}, ${status}`,
            meta: { cluster: backup.cluster, status, method: backup.method, createdAt: backup.createdAt },
          });
        }
      }
      if (
        backups &&
        wanted('backup-repository') &&
        isAllowed('clusters.backups', 'list', deps.clusterNamespace) &&
        (await backups.repositoriesManaged())
      ) {
        for (const repository of await backups.port.listRepositories())
          items.push({
            type: 'backup-repository',
            name: repository.name,
            id: repository.name,
            description: `${repository.type ?? repository.storageProviderRef} repository${repository.isDefault ? ' (default)' : ''}, ${repository.phase || 'pending'}`,
            meta: {
              type: repository.type ?? repository.storageProviderRef,
              isDefault: repository.isDefault,
              phase: repository.phase,
            },
          });
      }
      if (wanted('user') && isAllowed('users', 'list', deps.namespace)) {
        for (const user of await deps.users.list())
          items.push({
            type: 'user',
            name: user.email,
            id: user.id,
            description: `${user.name} (${user.role})`,
            meta: { role: user.role, provider: user.provider, disabled: user.disabled },
          });
      }
      if (wanted('role') && isAllowed('rbac', 'list', deps.namespace)) {
        for (const found of await deps.rbac.listRoles())
          items.push({
            type: 'role',
            name: found.name,
            id: found.name,
            description: found.description ?? '',
            meta: { predefined: found.predefined ?? false, rules: found.rules.length },
          });
      }
      const found = items.filter(matches);
      return { query: input.q ?? '', total: found.length, items: found.slice(0, input.limit) };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
