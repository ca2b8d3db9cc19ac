// Sentinel discovery: which node a Sentinel-managed database is on now. The sentinels are asked in order for the
// primary (or a healthy replica, for a Read-Only pool) and for the replicas a command must reach on every node.
import { withSentinel } from '../redis/sentinel-session.js';
import { DatabaseUnavailableError } from './database-errors.js';
import type { DbCredentials, PoolOptions, SentinelTopology } from './database-pool.js';
import type { NodeRole } from './replica-confirmation.js';

/** Longest wait for one sentinel's answer: a silent sentinel must not hold a connection attempt for long. */
const SENTINEL_ANSWER_MS = 2000;

/**
 * The primary's address as the first sentinel that knows the master name says (SENTINEL GET-MASTER-ADDR-BY-NAME).
 * A sentinel that asks for authentication gets the database user's credentials (sentinels are often configured with
 * the same password); one that is down, silent or does not know the name is skipped.
 */
export async function askSentinels(
  topology: SentinelTopology & { listReplicas?: boolean },
  credentials: Pick<DbCredentials, 'username' | 'password' | 'tls' | 'ca'>,
  options: PoolOptions,
  checkedAddress: (host: string, port: number) => Promise<string>,
): Promise<{ host: string; port: number; role: NodeRole; replicas?: { host: string; port: number }[] }> {
  const failures: string[] = [];
  for (const sentinel of topology.sentinels) {
    const where = `${sentinel.host}:${sentinel.port}`;
    const address = await checkedAddress(sentinel.host, sentinel.port);
    for (const withAuth of [false, true]) {
      try {
        const answer = await withSentinel(
          {
            host: sentinel.host,
            port: sentinel.port,
            address,
            ...(credentials.tls ? { tls: { ca: credentials.ca } } : {}),
            ...(withAuth ? { auth: { username: credentials.username, password: credentials.password } } : {}),
          },
          Math.min(options.connectTimeoutMs, SENTINEL_ANSWER_MS),
          async (send) => {
            const reply = await send<[string, string] | null>([
              'SENTINEL',
              'GET-MASTER-ADDR-BY-NAME',
              topology.masterName,
            ]);
            if (!reply) return `${where} does not know master ${topology.masterName}`;
            const port = Number(reply[1]);
            if (!Number.isInteger(port) || port < 1 || port > 65535) return `${where} named an invalid port`;
            const primary = { host: reply[0], port, role: 'master' as NodeRole };
            if (topology.listReplicas) {
              const listed = replicaEntries(await send<string[][]>(['SENTINEL', 'REPLICAS', topology.masterName]));
              return {
                ...primary,
                replicas: listed.map(({ host, port: replicaPort }) => ({ host, port: replicaPort })),
              };
            }
            if (topology.readFromReplica) {
              const replica = healthyReplica(await send<string[][]>(['SENTINEL', 'REPLICAS', topology.masterName]));
              if (replica) return { ...replica, role: 'slave' as NodeRole };
            }
            // No healthy replica (or none wanted): the primary serves.
            return primary;
          },
        );
        if (typeof answer === 'string') {
          failures.push(answer);
          break;
        }
        return answer;
      } catch (error) {
        const message = (error as Error).message ?? '';
        // Asked to authenticate: once more with the database user's credentials.
        if (!withAuth && /NOAUTH|NOPERM|AUTH/i.test(message)) continue;
        failures.push(`${where}: ${message || 'no answer'}`);
        break;
      }
    }
  }
  throw new DatabaseUnavailableError(`no sentinel named the primary of ${topology.masterName}`, {
    cause: new Error(failures.join('; ')),
  });
}

/** Every replica the first answering sentinel lists (whatever its state: one that is down must be reported). */
export async function listReplicas(
  topology: SentinelTopology,
  credentials: Pick<DbCredentials, 'username' | 'password' | 'tls' | 'ca'>,
  options: PoolOptions,
  checkedAddress: (host: string, port: number) => Promise<string>,
): Promise<{ host: string; port: number }[]> {
  const replicas = await askSentinels({ ...topology, listReplicas: true }, credentials, options, checkedAddress);
  return replicas.replicas ?? [];
}

/**
 * A replica SENTINEL REPLICAS lists as up and in sync (no `s_down`, `o_down` or `disconnected` flag, its link to
 * the primary `ok`), picked at random so Read-Only pools spread over the replicas; undefined when there is none.
 */
export function healthyReplica(reply: unknown): { host: string; port: number } | undefined {
  const healthy = replicaEntries(reply)
    .filter(
      (entry) =>
        !entry.flags.some((flag) => ['s_down', 'o_down', 'disconnected'].includes(flag)) && entry.link === 'ok',
    )
    .map(({ host, port }) => ({ host, port }));
  return healthy[Math.floor(Math.random() * healthy.length)];
}

/** SENTINEL REPLICAS' entries (flat field/value lists) with a usable address. */
function replicaEntries(reply: unknown): { host: string; port: number; flags: string[]; link: string }[] {
  if (!Array.isArray(reply)) return [];
  return reply
    .map((entry) => {
      const fields = new Map<string, string>();
      if (Array.isArray(entry))
        for (let at = 0; at + 1 < entry.length; at += 2) fields.set(String(entry[at]), String(entry[at + 1]));
      return {
        host: fields.get('ip') ?? '',
        port: Number(fields.get('port')),
        flags: (fields.get('flags') ?? '').split(','),
        link: fields.get('master-link-status') ?? '',
      };
    })
    .filter((node) => node.host !== '' && Number.isInteger(node.port) && node.port > 0 && node.port < 65536);
}
