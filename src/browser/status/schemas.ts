// Response shape of GET /api/status.
import { z } from 'zod';

export const StatusSchema = z
  .object({
    status: z.literal('online').meta({ description: 'Always `online`: the token reaches its database' }),
    topology: z.enum(['single', 'sentinel', 'cluster']).meta({
      description:
        "How the token reaches its database: one node, a Sentinel master's primary, or the shards of a cluster",
    }),
    masterName: z.string().optional().meta({ description: 'The Sentinel master name (topology `sentinel`)' }),
  })
  .meta({ examples: [{ status: 'online', topology: 'single' }] });

export type Status = z.infer<typeof StatusSchema>;
