// Facts about the token's FalkorDB server and its graphs, read with commands every role may send.
import type { GraphDatabase } from '../../platform/falkordb/graph-database.js';
import {
  graphModuleVersion,
  parseInfo,
  parseMemoryUsage,
  parseQueryLists,
  ServerCommands,
  type RunningQuery,
} from '../../platform/falkordb/server-commands.js';
import { HttpError } from '../../http/http-errors.js';
import { countElements, requireGraph } from '../graphs/graph-service.js';
import { INFO_SECTIONS } from './schemas.js';
import { onCallersDatabase, type DatabaseFor, type Principal } from '../context.js';

/** Lines that describe the host's file system rather than the database. */
const HIDDEN_INFO_FIELDS = new Set(['executable', 'config_file']);
const MEMORY_SERIES = ['used_memory', 'used_memory_rss', 'used_memory_peak', 'used_memory_dataset'] as const;

/** INFO text without the host's paths. */
export function withoutHostPaths(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !HIDDEN_INFO_FIELDS.has(line.split(':', 1)[0]!))
    .join('\r\n');
}

/** `slave0:ip=10.0.0.2,port=6379,state=online,offset=1,lag=0` as `{host, port, state}`. */
export function parseReplicaLine(value: string): { host: string; port: number; state: string } {
  const fields = Object.fromEntries(value.split(',').map((pair) => pair.split('=', 2) as [string, string]));
  return { host: fields.ip ?? '', port: Number(fields.port ?? 0), state: fields.state ?? 'unknown' };
}

function queryEntry(query: RunningQuery, showText: boolean) {
  return {
    graph: query.graph,
    receivedAt: new Date(query.receivedAt).toISOString(),
    durationMs: query.durationMs,
    ...(showText ? { query: query.query } : {}),
  };
}

/** `databaseFor` gives the database of a token's user. */
export function createServerService({ databaseFor }: { databaseFor: DatabaseFor }) {
  const commands = (database: GraphDatabase) => new ServerCommands(database);
  const onCallers = onCallersDatabase(databaseFor);

  return {
    moduleVersion: onCallers(async (database: GraphDatabase): Promise<[string, number]> => {
      const version = graphModuleVersion(await commands(database).moduleList());
      if (version === undefined) throw new HttpError(503, 'Graph module not found');
      return ['graph', version];
    }),

    /** One allow-listed section, or all of them. */
    info: onCallers(
      async (database: GraphDatabase, section: (typeof INFO_SECTIONS)[number] | undefined): Promise<string> => {
        const sections = section ? [section] : INFO_SECTIONS;
        const texts = await Promise.all(sections.map((name) => commands(database).info(name)));
        return texts
          .map(withoutHostPaths)
          .filter((text) => text.trim() !== '')
          .join('\r\n');
      },
    ),

    /** Only an Admin sees the text of the queries. */
    monitor: async (principal: Principal) => {
      const showQueryText = principal.role === 'Admin';
      const database = databaseFor(principal);
      const server = commands(database);
      const [memoryText, lists] = await Promise.all([server.info('memory'), server.queryLists()]);
      const memory = parseInfo(memoryText).memory ?? {};
      // One reply per primary (several in a sharded cluster).
      const parsed = lists.map(parseQueryLists);
      const runningQueries = parsed.flatMap((list) => list.running);
      const waitingQueries = parsed.flatMap((list) => list.waiting);
      return {
        memory: MEMORY_SERIES.map((name) => ({ name, series: Number(memory[name] ?? 0) })),
        graph: [
          { name: 'running_queries', series: runningQueries.length },
          { name: 'waiting_queries', series: waitingQueries.length },
        ],
        runningQueries: runningQueries.map((query) => queryEntry(query, showQueryText)),
        waitingQueries: waitingQueries.map((query) => queryEntry(query, showQueryText)),
      };
    },

    connectionInfo: onCallers(async (database: GraphDatabase) => {
      const server = commands(database);
      const [replicationText, clusterText, topology] = await Promise.all([
        server.info('replication'),
        server.info('cluster'),
        database.pool.describe(),
      ]);
      const replication = parseInfo(replicationText).replication ?? {};
      const cluster = parseInfo(clusterText).cluster ?? {};
      const replicas = Object.entries(replication)
        .filter(([key]) => /^slave\d+$/.test(key))
        .map(([, value]) => parseReplicaLine(value));
      return {
        role: replication.role ?? 'unknown',
        connectedReplicas: Number(replication.connected_slaves ?? 0),
        replicas,
        ...(replication.master_host
          ? {
              masterHost: replication.master_host,
              masterPort: Number(replication.master_port),
              masterLinkStatus: replication.master_link_status ?? 'unknown',
            }
          : {}),
        clusterEnabled: cluster.cluster_enabled === '1',
        ...topology,
      };
    }),

    graphMemory: onCallers(
      async (
        database: GraphDatabase,
        graph: string,
      ): Promise<{ result: unknown[]; usage: ReturnType<typeof parseMemoryUsage> }> => {
        await requireGraph(database, graph);
        const reply = await commands(database).memoryUsage(graph);
        return { result: Array.isArray(reply) ? reply : [], usage: { ...parseMemoryUsage(reply) } };
      },
    ),

    count: onCallers(async (database: GraphDatabase, graph: string, what: 'nodes' | 'edges'): Promise<number> => {
      await requireGraph(database, graph);
      return countElements(database, graph, what);
    }),
  };
}

export type ServerService = ReturnType<typeof createServerService>;
