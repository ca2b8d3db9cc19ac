// One search over what the caller may list: deployments (clusters:list in their namespace), console users
// (users:list) and roles (rbac:list). Backups and backup repositories are not managed by this server, so they never
// match. `total` counts every match; at most `limit` are returned.
import type { ClusterService } from '../clusters/cluster-service.js';
import { rulesAllow, type Action, type Resource, type RoleName } from '../permissions/permissions.js';
import type { RbacService } from '../rbac/rbac-service.js';
import type { UserService } from '../users/user-service.js';
import type { SearchItem, SearchType } from './schemas.js';

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
      if (wanted('cluster') && (input.namespace === undefined || isAllowed('clusters', 'list', namespace))) {
        const deployments = await deps.clusters.listVisible(role, input.namespace);
        for (const deployment of deployments) {
          if (!isAllowed('clusters', 'list', deployment.namespace)) continue;
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
