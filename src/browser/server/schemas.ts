// Request and response shapes of the server-facts routes: module version, INFO, monitor, connection info,
// a graph's memory use and its node and relationship counts.
import { z } from 'zod';
import { timestamp } from '../../lib/timestamp-schema.js';
import { GraphParamsSchema } from '../graphs/schemas.js';

/** INFO sections a token holder may read: nothing in them is a secret (no passwords, no client addresses). */
export const INFO_SECTIONS = [
  'server',
  'clients',
  'memory',
  'persistence',
  'stats',
  'replication',
  'cpu',
  'modules',
  'keyspace',
  'errorstats',
] as const;

export const DbVersionSchema = z
  .object({
    result: z
      .tuple([z.string(), z.number()])
      .meta({ description: "The graph module's name and its version number (41002: 4.10.2), as MODULE LIST answers" }),
  })
  .meta({ examples: [{ result: ['graph', 41002] }] });
export const InfoQuerySchema = z.object({
  section: z
    .enum(INFO_SECTIONS, { error: `section must be one of ${INFO_SECTIONS.join(', ')}` })
    .optional()
    .meta({ description: 'One INFO section; all of these sections when absent', examples: ['memory'] }),
});
export const InfoSchema = z
  .object({ result: z.string().meta({ description: "INFO's text, without the host's paths" }) })
  .meta({ examples: [{ result: '# Memory\r\nused_memory:1180648\r\nused_memory_human:1.13M\r\n' }] });

const SeriesSchema = z.array(
  z.object({
    name: z.string().meta({ description: 'What is measured' }),
    series: z.number().meta({ description: 'Its current value (bytes for memory, a count for queries)' }),
  }),
);
const QueryEntrySchema = z.object({
  graph: z.string().meta({ description: 'The graph queried' }),
  receivedAt: timestamp('When the database received the query'),
  durationMs: z.number().meta({ description: 'Milliseconds it has run (or waited) so far' }),
  query: z.string().optional().meta({
    description: "The query's text; only an Admin token sees it (it may carry values others should not read)",
  }),
});
export const MonitorSchema = z
  .object({
    memory: SeriesSchema.meta({ description: "The database's memory use, from INFO memory" }),
    graph: SeriesSchema.meta({ description: 'How many queries run and wait' }),
    runningQueries: z.array(QueryEntrySchema).meta({ description: 'The queries running now' }),
    waitingQueries: z.array(QueryEntrySchema).meta({ description: 'The queries waiting for a thread' }),
  })
  .meta({
    examples: [
      {
        memory: [
          { name: 'used_memory', series: 1180648 },
          { name: 'used_memory_rss', series: 12353536 },
          { name: 'used_memory_peak', series: 1330008 },
          { name: 'used_memory_dataset', series: 24520 },
        ],
        graph: [
          { name: 'running_queries', series: 1 },
          { name: 'waiting_queries', series: 0 },
        ],
        runningQueries: [
          {
            graph: 'social',
            receivedAt: '2026-11-28T09:30:00.000Z',
            durationMs: 12.5,
            query: 'MATCH (n) RETURN count(n)',
          },
        ],
        waitingQueries: [],
      },
    ],
  });

export const ConnectionInfoSchema = z
  .object({
    result: z
      .object({
        role: z.string().meta({ description: "The answering node's replication role: `master` or `slave`" }),
        connectedReplicas: z.number().meta({ description: 'How many replicas are connected to it' }),
        replicas: z
          .array(
            z.object({
              host: z.string().meta({ description: "The replica's address" }),
              port: z.number().meta({ description: "The replica's port" }),
              state: z.string().meta({ description: 'Its replication state (`online`, `wait_bgsave`…)' }),
            }),
          )
          .meta({ description: 'Its replicas, as INFO replication lists them' }),
        masterHost: z.string().optional().meta({ description: "A replica's primary: its address" }),
        masterPort: z.number().optional().meta({ description: "A replica's primary: its port" }),
        masterLinkStatus: z
          .string()
          .optional()
          .meta({ description: "A replica's link to its primary: `up` or `down`" }),
        clusterEnabled: z.boolean().meta({ description: 'Whether the node runs in cluster mode' }),
        topology: z
          .enum(['single', 'sentinel', 'cluster'])
          .meta({ description: "How the token reaches its database (the token's topology)" }),
        masterName: z.string().optional().meta({ description: 'The Sentinel master name (topology `sentinel`)' }),
        shards: z
          .array(
            z.object({
              primary: z.string().meta({ description: "The shard's primary (`host:port`)" }),
              replicas: z.array(z.string()).meta({ description: "The shard's replicas (`host:port`)" }),
            }),
          )
          .optional()
          .meta({
            description:
              "Topology `cluster`: each shard's primary and replicas (`host:port`) as the slot map names them; the other fields describe the node that answered",
          }),
      })
      .meta({ description: 'The answering node and, for a cluster, its shards' }),
  })
  .meta({
    examples: [
      {
        result: {
          role: 'master',
          connectedReplicas: 1,
          replicas: [{ host: '10.0.0.12', port: 6379, state: 'online' }],
          clusterEnabled: false,
          topology: 'single',
        },
      },
    ],
  });

export const GraphMemorySchema = z
  .object({
    result: z.array(z.unknown()).meta({
      description:
        'GRAPH.MEMORY USAGE as FalkorDB answers it: alternating names and values (the FalkorDB Browser reads this)',
    }),
    usage: z.record(z.string(), z.union([z.number(), z.record(z.string(), z.number())])).meta({
      description:
        'The same numbers (MB) as an object, broken down per label and relationship type where FalkorDB does',
    }),
  })
  .meta({
    examples: [
      {
        result: ['total_graph_sz_mb', 2, 'label_matrices_sz_mb', 0, 'relation_matrices_sz_mb', 0],
        usage: { total_graph_sz_mb: 2, label_matrices_sz_mb: 0, relation_matrices_sz_mb: 0 },
      },
    ],
  });

export const CountParamsSchema = GraphParamsSchema;
export const NodeCountSchema = z
  .object({
    result: z
      .object({ nodes: z.number().meta({ description: 'How many nodes the graph holds' }) })
      .meta({ description: 'The count' }),
  })
  .meta({ examples: [{ result: { nodes: 42 } }] });
export const EdgeCountSchema = z
  .object({
    result: z
      .object({ edges: z.number().meta({ description: 'How many relationships the graph holds' }) })
      .meta({ description: 'The count' }),
  })
  .meta({ examples: [{ result: { edges: 17 } }] });
/** The `Accept: text/event-stream` form of a count: one `result` event. */
export const countEventStreamSchema = (what: 'nodes' | 'edges') =>
  z.string().meta({
    description: `One \`result\` event whose data is \`{"${what}": N}\``,
    examples: [`event: result\ndata: {"${what}":${what === 'nodes' ? 42 : 17}}\n\n`],
  });
