// Shapes of the day-2 operations endpoints (/api/clusters/{clusterName}/ops…): the FalkorDB Enterprise admin API's request bodies,
// its OpsRequestSummary and OpsAccepted answers, and the list with its total.
import { z } from 'zod';
import { queryInteger, wholeNumber } from '../../lib/wire-values.js';
import { OBJECT_NAME } from '../../lib/kubernetes-names.js';
import { timestamp } from '../../lib/timestamp-schema.js';
import { ClusterNameParamsSchema, ClusterNamespaceQuerySchema } from '../parameters.js';

export const OpsNamespaceQuerySchema = ClusterNamespaceQuerySchema;
export const OpsListQuerySchema = OpsNamespaceQuerySchema.extend({
  limit: queryInteger(wholeNumber(1, 500).default(100)).meta({ description: 'At most this many (default 100)' }),
  offset: queryInteger(wholeNumber(0, 100_000).default(0)).meta({
    description: 'Skip this many of the newest first (default 0)',
  }),
});
export const OpsClusterParamsSchema = ClusterNameParamsSchema;
export const OpsParamsSchema = OpsClusterParamsSchema.extend({
  opsName: z
    .string()
    .regex(OBJECT_NAME, 'must be an OpsRequest name')
    .meta({ description: 'The OpsRequest name', examples: ['orders-restart-x7k2p'] }),
});

const OPS_SUMMARY_EXAMPLE = {
  name: 'orders-horizontalscaling-q4w9z',
  namespace: 'graphdb',
  type: 'HorizontalScaling',
  phase: 'Succeed',
  progress: '1/1',
  startTimestamp: '2026-11-27T14:02:11Z',
  completionTimestamp: '2026-11-27T14:04:37Z',
  creationTimestamp: '2026-11-27T14:02:10Z',
};

export const OpsRequestSummarySchema = z
  .object({
    name: z.string().describe('The OpsRequest name'),
    namespace: z.string().describe("Its namespace (the cluster's)"),
    type: z
      .string()
      .optional()
      .describe(
        'Restart, Start, Stop, Reconfiguring, Switchover, HorizontalScaling, VerticalScaling, VolumeExpansion or Upgrade',
      ),
    phase: z
      .string()
      .optional()
      .describe("KubeBlocks' phase: Pending, Creating, Running, Cancelling, Cancelled, Succeed or Failed"),
    progress: z.string().optional().describe('Done of total steps, as KubeBlocks counts them (`1/3`)'),
    startTimestamp: timestamp('When KubeBlocks started it').optional(),
    completionTimestamp: timestamp('When it ended').optional(),
    creationTimestamp: timestamp('When it was requested').optional(),
    /** Not in the real summary: the last condition's message (why a failed operation failed). */
    message: z.string().optional().describe("The last condition's message (why a failed operation failed)"),
  })
  .meta({
    id: 'OpsRequestSummary',
    description: 'A day-2 operation of a deployment (a KubeBlocks OpsRequest)',
    examples: [OPS_SUMMARY_EXAMPLE],
  });
export const OpsRequestListSchema = z
  .object({
    operations: z.array(OpsRequestSummarySchema).describe('This page, newest first'),
    total: z.number().meta({ description: 'All operations of the cluster, whatever the page' }),
  })
  .meta({
    examples: [
      {
        operations: [
          {
            name: 'orders-restart-x7k2p',
            namespace: 'graphdb',
            type: 'Restart',
            phase: 'Running',
            progress: '1/2',
            startTimestamp: '2026-11-28T10:15:03Z',
            creationTimestamp: '2026-11-28T10:15:02Z',
          },
          OPS_SUMMARY_EXAMPLE,
        ],
        total: 2,
      },
    ],
  });

/** The answer of a day-2 operation of this type, with the OpsRequest name KubeBlocks generated. */
const acceptedExample = (type: string, opsName: string, note = '') => ({
  message: `${type} of cluster orders requested (OpsRequest ${opsName})${note}`,
  opsName,
  clusterName: 'orders',
  type,
  phase: 'Pending',
});
export const OpsAcceptedSchema = z
  .object({
    message: z.string().describe('What was requested, in words'),
    opsName: z.string().describe('The OpsRequest made; follow it with GET …/ops/{opsName}'),
    clusterName: z.string().describe('The deployment'),
    type: z.string().describe('The OpsRequest type'),
    phase: z.string().optional().describe('Its phase right after creation (Pending until KubeBlocks takes it)'),
  })
  .meta({
    id: 'OpsAccepted',
    description: 'An operation request made; it runs in the background',
    examples: [
      acceptedExample('Restart', 'orders-restart-x7k2p'),
      acceptedExample('HorizontalScaling', 'orders-horizontalscaling-q4w9z'),
      acceptedExample('Reconfiguring', 'orders-reconfiguring-b6d4f', '; THREAD_COUNT takes effect after a restart'),
    ],
  });

const ComponentName = z
  .string()
  .min(1)
  .max(63)
  .meta({ description: '`falkordb` when absent (on a cluster without one, its first component, e.g. `shard`)' });
const Quantity = z.string().min(1).max(32);
const Force = z
  .boolean()
  .default(false)
  .meta({ description: "Skip KubeBlocks' pre-checks, even while another operation runs (its `spec.force`)" });

/** Absent (no body) is taken as `{}`: start, stop and restart need nothing else. */
export const RestartBodySchema = z
  .strictObject({ componentName: ComponentName.optional(), force: Force })
  .nullish()
  .meta({ examples: [{ componentName: 'falkordb' }] });
export const EmptyBodySchema = z
  .strictObject({})
  .nullish()
  .meta({ examples: [{}] });
export const ConfigureBodySchema = z
  .strictObject({
    parameters: z
      .array(
        z.strictObject({
          key: z
            .string()
            .min(1)
            .max(128)
            .meta({ description: 'A FalkorDB parameter (`TIMEOUT_DEFAULT`, `THREAD_COUNT`…)' }),
          value: z.string().max(1024).nullable().meta({ description: 'null clears the parameter' }),
        }),
      )
      .min(1, 'Give at least one parameter to change')
      .max(64)
      .meta({ description: 'The parameters to set' }),
    componentName: ComponentName.optional(),
    force: Force,
    preConditionDeadlineSeconds: z
      .int()
      .min(0)
      .max(86_400)
      .default(0)
      .meta({ description: "Seconds KubeBlocks waits for the cluster to allow the change (0: KubeBlocks' default)" }),
  })
  .meta({
    examples: [
      {
        parameters: [
          { key: 'TIMEOUT_DEFAULT', value: '30000' },
          { key: 'THREAD_COUNT', value: '8' },
        ],
      },
    ],
  });
export const SwitchoverBodySchema = z
  .strictObject({
    instanceName: z.string().min(1).max(253).meta({ description: 'The pod that is primary now' }),
    candidateName: z
      .string()
      .max(253)
      .optional()
      .meta({ description: 'The replica pod to promote; KubeBlocks picks one when absent' }),
    componentName: ComponentName.optional(),
  })
  .meta({ examples: [{ instanceName: 'orders-falkordb-0', candidateName: 'orders-falkordb-1' }] });
export const HorizontalScaleBodySchema = z
  .strictObject({
    replicas: z
      .int()
      .min(1, 'replicas must be at least 1')
      .max(100)
      .optional()
      .meta({ description: 'The total of pods the component (each shard) should have' }),
    shardCount: z
      .int()
      .min(3, 'shardCount must be at least 3')
      .max(1024)
      .optional()
      .meta({ description: 'The total of shards a sharded deployment should have' }),
    componentName: ComponentName.optional(),
  })
  .meta({ examples: [{ replicas: 3 }] });
const Amounts = z.strictObject({
  cpu: Quantity.optional().meta({ description: 'A Kubernetes CPU quantity (`2`, `500m`)' }),
  memory: Quantity.optional().meta({ description: 'A Kubernetes memory quantity (`4Gi`)' }),
});
export const VerticalScaleBodySchema = z
  .strictObject({
    requests: Amounts.optional().meta({ description: 'What each pod is guaranteed' }),
    limits: Amounts.optional().meta({ description: 'What each pod may use at most' }),
    componentName: ComponentName.optional(),
  })
  .meta({ examples: [{ requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } }] });
export const VolumeExpandBodySchema = z
  .strictObject({
    storage: Quantity.meta({ description: 'The new size of each volume, larger than now (`50Gi`)' }),
    volumeName: z
      .string()
      .min(1)
      .max(63)
      .default('data')
      .meta({ description: 'The volume claim template to grow (default `data`)' }),
    componentName: ComponentName.optional(),
  })
  .meta({ examples: [{ storage: '50Gi' }] });

export const UpgradeBodySchema = z
  .strictObject({
    version: z.string().min(1).max(63).optional().meta({ description: 'The FalkorDB version to move to' }),
    componentDefinition: z
      .string()
      .min(1)
      .max(253)
      .optional()
      .meta({ description: 'The KubeBlocks ComponentDefinition to move to' }),
  })
  .meta({ examples: [{ version: '4.14.2' }] });
export const UpgradeAcceptedSchema = z
  .object({
    message: z.string().describe('What was requested, in words'),
    clusterName: z.string().describe('The deployment'),
    // Not in the real answer, which names the OpsRequest only inside `message`.
    opsName: z.string().optional().meta({ description: 'The Upgrade OpsRequest, to follow with GET …/ops/{opsName}' }),
    version: z.string().optional().describe('The version asked for'),
    componentDefinition: z.string().optional().describe('The ComponentDefinition asked for'),
  })
  .meta({
    examples: [
      {
        message: 'Upgrade of cluster orders requested (OpsRequest orders-upgrade-w4x8n)',
        clusterName: 'orders',
        opsName: 'orders-upgrade-w4x8n',
        version: '4.14.2',
      },
    ],
  });
