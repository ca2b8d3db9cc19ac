// Request and response shapes of the server-facts routes: module version, INFO, monitor, connection info,
// a graph's memory use and its node and relationship counts.
import { z } from 'zod';
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

export const DbVersionSchema = z.object({ result: z.tuple([z.string(), z.number()]) });
export const InfoQuerySchema = z.object({
  section: z.enum(INFO_SECTIONS, { error: `section must be one of ${INFO_SECTIONS.join(', ')}` }).optional(),
});
export const InfoSchema = z.object({ result: z.string() });

const SeriesSchema = z.array(z.object({ name: z.string(), series: z.number() }));
const QueryEntrySchema = z.object({
  graph: z.string(),
  receivedAt: z.string(),
  durationMs: z.number(),
  /** Only an Admin token sees the text of queries (others' queries may carry values they should not read). */
  query: z.string().optional(),
});
export const MonitorSchema = z.object({
  memory: SeriesSchema,
  graph: SeriesSchema,
  runningQueries: z.array(QueryEntrySchema),
  waitingQueries: z.array(QueryEntrySchema),
});

export const ConnectionInfoSchema = z.object({
  result: z.object({
    role: z.string(),
    connectedReplicas: z.number(),
    replicas: z.array(z.object({ host: z.string(), port: z.number(), state: z.string() })),
    masterHost: z.string().optional(),
    masterPort: z.number().optional(),
    masterLinkStatus: z.string().optional(),
    clusterEnabled: z.boolean(),
    topology: z
      .enum(['single', 'sentinel', 'cluster'])
      .meta({ description: "How the token reaches its database (the token's topology)" }),
    masterName: z.string().optional().meta({ description: 'The Sentinel master name (topology `sentinel`)' }),
    shards: z
      .array(z.object({ primary: z.string(), replicas: z.array(z.string()) }))
      .optional()
      .meta({
        description:
          "Topology `cluster`: each shard's primary and replicas (`host:port`) as the slot map names them; the other fields describe the node that answered",
      }),
  }),
});

export const GraphMemorySchema = z.object({
  /** GRAPH.MEMORY USAGE as FalkorDB answers it (the FalkorDB Browser's shape). */
  result: z.array(z.unknown()),
  /** The same numbers (MB) as an object, broken down per label and relationship type where FalkorDB does. */
  usage: z.record(z.string(), z.union([z.number(), z.record(z.string(), z.number())])),
});

export const CountParamsSchema = GraphParamsSchema;
export const NodeCountSchema = z.object({ result: z.object({ nodes: z.number() }) });
export const EdgeCountSchema = z.object({ result: z.object({ edges: z.number() }) });
