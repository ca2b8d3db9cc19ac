// Shapes of the day-2 operations endpoints (/api/clusters/{clusterName}/ops…): the FalkorDB Enterprise admin API's request bodies,
// its OpsRequestSummary and OpsAccepted answers, and the list with its total.
import { z } from 'zod';
import { OBJECT_NAME } from '../../lib/kubernetes-names.js';
import { ClusterNameParamsSchema, ClusterNamespaceQuerySchema } from '../parameters.js';

export const OpsNamespaceQuerySchema = ClusterNamespaceQuerySchema;
export const OpsListQuerySchema = OpsNamespaceQuerySchema.extend({
  limit: z.coerce.number().int().min(1).max(500).default(100).meta({ description: 'At most this many (default 100)' }),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});
export const OpsClusterParamsSchema = ClusterNameParamsSchema;
export const OpsParamsSchema = OpsClusterParamsSchema.extend({
  opsName: z.string().regex(OBJECT_NAME, 'must be an OpsRequest name'),
});

export const OpsRequestSummarySchema = z
  .object({
    name: z.string(),
    namespace: z.string(),
    type: z.string().optional(),
    phase: z.string().optional(),
    progress: z.string().optional(),
    startTimestamp: z.string().optional(),
    completionTimestamp: z.string().optional(),
    creationTimestamp: z.string().optional(),
    /** Not in the real summary: the last condition's message (why a failed operation failed). */
    message: z.string().optional(),
  })
  .meta({ id: 'OpsRequestSummary' });
export const OpsRequestListSchema = z.object({
  operations: z.array(OpsRequestSummarySchema),
  total: z.number().meta({ description: 'All operations of the cluster, whatever the page' }),
});
export const OpsAcceptedSchema = z
  .object({
    message: z.string(),
    opsName: z.string(),
    clusterName: z.string(),
    type: z.string(),
    phase: z.string().optional(),
  })
  .meta({ id: 'OpsAccepted' });

const ComponentName = z
  .string()
  .min(1)
  .max(63)
  .meta({ description: '`falkordb` when absent (on a cluster without one, its first component, e.g. `shard`)' });
const Quantity = z.string().min(1).max(32);

/** Absent (no body) is taken as `{}`: start, stop and restart need nothing else. */
export const RestartBodySchema = z
  .strictObject({ componentName: ComponentName.optional(), force: z.boolean().default(false) })
  .nullish();
export const EmptyBodySchema = z.strictObject({}).nullish();
export const ConfigureBodySchema = z.strictObject({
  parameters: z
    .array(
      z.strictObject({
        key: z.string().min(1).max(128),
        value: z.string().max(1024).nullable().meta({ description: 'null clears the parameter' }),
      }),
    )
    .min(1, 'Give at least one parameter to change')
    .max(64),
  componentName: ComponentName.optional(),
  force: z.boolean().default(false),
  preConditionDeadlineSeconds: z.int().min(0).max(86_400).default(0),
});
export const SwitchoverBodySchema = z.strictObject({
  instanceName: z.string().min(1).max(253),
  candidateName: z.string().max(253).optional(),
  componentName: ComponentName.optional(),
});
export const HorizontalScaleBodySchema = z.strictObject({
  replicas: z.int().min(1, 'replicas must be at least 1').max(100).optional(),
  shardCount: z.int().min(3, 'shardCount must be at least 3').max(1024).optional(),
  componentName: ComponentName.optional(),
});
const Amounts = z.strictObject({ cpu: Quantity.optional(), memory: Quantity.optional() });
export const VerticalScaleBodySchema = z.strictObject({
  requests: Amounts.optional(),
  limits: Amounts.optional(),
  componentName: ComponentName.optional(),
});
export const VolumeExpandBodySchema = z.strictObject({
  storage: Quantity,
  volumeName: z.string().min(1).max(63).default('data'),
  componentName: ComponentName.optional(),
});

export const UpgradeBodySchema = z.strictObject({
  version: z.string().min(1).max(63).optional(),
  componentDefinition: z.string().min(1).max(253).optional(),
});
export const UpgradeAcceptedSchema = z.object({
  message: z.string(),
  clusterName: z.string(),
  // Not in the real answer, which names the OpsRequest only inside `message`.
  opsName: z.string().optional().meta({ description: 'The Upgrade OpsRequest, to follow with GET …/ops/{opsName}' }),
  version: z.string().optional(),
  componentDefinition: z.string().optional(),
});
