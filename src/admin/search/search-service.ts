// One search over what the caller may list: deployments (clusters:list in their namespace), console users
// (users:list) and roles (rbac:list). Backups and backup repositories are not managed by this server, so they never
// match. `total` counts every match; at most `limit` are returned.
import type { ClusterService } from '../clusters/cluster-service.js';
import { isAllowed, SHIPPED_ROLE_RULES, type AdminRole } from '../permissions/permissions.js';
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
  /** The server's namespace: where users and roles are permission-checked. */
  namespace: string;
  clusterNamespace: string;
}

const ROLE_DESCRIPTIONS: Record<AdminRole, string> = {
  admin: 'Every action on every resource',
  operator: 'Manages deployments, backups and restores; reads settings and system facts',
  viewer: 'Reads deployments, backups, restores and system facts',
};

export function createSearchService(deps: SearchDeps) {
  return {
    async search(role: AdminRole, input: SearchInput) {
      const needle = (input.q ?? '').trim().toLowerCase();
      const wanted = (type: SearchType) => !input.types || input.types.has(type);
      const matches = (item: SearchItem) =>
        needle === '' || [item.name, item.id, item.description].some((text) => text.toLowerCase().includes(needle));
      const items: SearchItem[] = [];

      const namespace = input.namespace ?? deps.clusterNamespace;
      if (wanted('cluster') && (input.namespace === undefined || isAllowed(role, 'clusters', 'list', namespace))) {
        const deployments = await deps.clusters.listVisible(role, input.namespace);
        for (const deployment of deployments) {
          if (!isAllowed(role, 'clusters', 'list', deployment.namespace)) continue;
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
      if (wanted('user') && isAllowed(role, 'users', 'list', deps.namespace)) {
        for (const user of await deps.users.list())
          items.push({
            type: 'user',
            name: user.email,
            id: user.id,
            description: `${user.name} (${user.role})`,
            meta: { role: user.role, provider: user.provider, disabled: user.disabled },
          });
      }
      if (wanted('role') && isAllowed(role, 'rbac', 'list', deps.namespace)) {
        for (const [name, rules] of Object.entries(SHIPPED_ROLE_RULES))
          items.push({
            type: 'role',
            name,
            id: name,
            description: ROLE_DESCRIPTIONS[name as AdminRole],
            meta: { predefined: true, rules: rules.length },
          });
      }
      const found = items.filter(matches);
      return { query: input.q ?? '', total: found.length, items: found.slice(0, input.limit) };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
