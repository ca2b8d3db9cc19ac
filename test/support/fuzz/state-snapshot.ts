// What a rejected request must not change, read behind the server's back: FalkorDB (graphs, the content of the
// fixture graph, ACL users with their rules, GRAPH.CONFIG, token metadata) and the admin stores (every ConfigMap,
// Secret and OpsRequest the Kubernetes API double holds: settings, write-only values, admin users, operations).
import type { createClient } from 'redis';
import type { KubeApiDouble } from '../kube/kube-api-double.js';

export type RedisClient = ReturnType<typeof createClient>;

/** Token use is recorded on every authenticated request, rejected or not; that is not a write a rejection may skip. */
const VOLATILE_TOKEN_FIELDS = new Set(['last_used']);
/** The readiness probe's own key: /readyz writes it to prove the store accepts writes (docs/decisions/embedded-database-accounts.md). */
const READINESS_PROBE_KEY = 'graphdb:readiness-probe';
/** The audit log records refusals too: an entry for a rejected call is the log doing its job. */
const AUDIT_KEYS = 'graphdb:audit:';

async function tokenStoreState(client: RedisClient): Promise<Record<string, unknown>> {
  const keys = (await client.keys('graphdb:*'))
    .filter((key) => key !== READINESS_PROBE_KEY && !key.startsWith(AUDIT_KEYS))
    .sort();
  const types = await Promise.all(keys.map((key) => client.type(key)));
  const values = await Promise.all(
    keys.map(async (key, index): Promise<unknown> => {
      const type = types[index];
      if (type === 'hash') {
        const fields = await client.hGetAll(key);
        // Sorted: a hash's field order changes when it is rewritten, which is no change of content.
        return Object.fromEntries(
          Object.entries(fields)
            .filter(([field]) => !VOLATILE_TOKEN_FIELDS.has(field))
            .sort(([a], [b]) => a.localeCompare(b)),
        );
      }
      if (type === 'zset') return client.zRangeWithScores(key, 0, -1);
      if (type === 'string') return client.get(key);
      return type;
    }),
  );
  return Object.fromEntries(keys.map((key, index) => [key, values[index]]));
}

export async function databaseState(client: RedisClient, keptGraph: string): Promise<Record<string, unknown>> {
  const [graphs, acl, config, tokens] = await Promise.all([
    client.sendCommand<string[]>(['GRAPH.LIST']),
    client.sendCommand<string[]>(['ACL', 'LIST']),
    client.sendCommand<unknown[]>(['GRAPH.CONFIG', 'GET', '*']),
    tokenStoreState(client),
  ]);
  const kept = graphs.includes(keptGraph)
    ? await client.sendCommand<unknown[]>([
        'GRAPH.RO_QUERY',
        keptGraph,
        'MATCH (n) OPTIONAL MATCH (n)-[r]->(m) RETURN ID(n), labels(n), properties(n), ID(r), type(r), properties(r), ID(m) ORDER BY ID(n), ID(r)',
      ])
    : null;
  return { graphs: [...graphs].sort(), acl: [...acl].sort(), config, tokens, kept: kept?.[1] ?? null };
}

export function adminState(kube: KubeApiDouble, resources: string[]): Record<string, unknown> {
  return Object.fromEntries(
    resources.map((resource) => [
      resource,
      kube
        .list(resource)
        .map((object) => JSON.stringify(object))
        .sort(),
    ]),
  );
}

/** The first difference between two snapshots, as a readable path, or undefined when they are equal. */
export function firstDifference(before: unknown, after: unknown, where = ''): string | undefined {
  if (JSON.stringify(before) === JSON.stringify(after)) return undefined;
  if (
    before &&
    after &&
    typeof before === 'object' &&
    typeof after === 'object' &&
    !Array.isArray(before) &&
    !Array.isArray(after)
  ) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const key of keys) {
      const difference = firstDifference(
        (before as Record<string, unknown>)[key],
        (after as Record<string, unknown>)[key],
        `${where}.${key}`,
      );
      if (difference) return difference;
    }
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const added = after.filter((item) => !before.some((old) => JSON.stringify(old) === JSON.stringify(item)));
    const removed = before.filter((item) => !after.some((now) => JSON.stringify(now) === JSON.stringify(item)));
    return `${where || '(root)'}: added ${JSON.stringify(added).slice(0, 300)}, removed ${JSON.stringify(removed).slice(0, 300)}`;
  }
  return `${where || '(root)'}: ${JSON.stringify(before)?.slice(0, 200)} -> ${JSON.stringify(after)?.slice(0, 200)}`;
}
