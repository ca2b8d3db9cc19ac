// Shapes of the pod logs and metrics endpoints: the FalkorDB Enterprise admin API's query parameters, its `{podName, logs}`,
// ClusterMetrics and PromMetricFamilies answers.
import { z } from 'zod';
import { KUBERNETES_NAME, OBJECT_NAME } from '../../lib/kubernetes-names.js';
import { ClusterNameParamsSchema, ClusterNamespaceQuerySchema, ClusterNamespaceSchema } from '../parameters.js';
import { MAX_TAIL_LINES } from './observability-service.js';

const Namespace = ClusterNamespaceSchema;
const QueryBoolean = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .optional();

export const ClusterParamsSchema = ClusterNameParamsSchema;
export const PodParamsSchema = ClusterParamsSchema.extend({
  podName: z.string().regex(OBJECT_NAME, 'must be a pod name'),
});

export const LogQuerySchema = z.object({
  namespace: Namespace,
  container: z.string().regex(KUBERNETES_NAME, 'must be a container name').optional(),
  tailLines: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_TAIL_LINES)
    .optional()
    .meta({ description: `The last lines only (default 500, at most ${MAX_TAIL_LINES})` }),
  sinceSeconds: z.coerce
    .number()
    .int()
    .min(0)
    .max(31_536_000)
    .optional()
    .meta({ description: 'Only lines newer than this many seconds' }),
  timestamps: QueryBoolean.meta({ description: 'Prefix each line with its RFC 3339 timestamp' }),
  previous: QueryBoolean.meta({ description: "The previous (crashed) container's log" }),
});

export const NamespaceQuerySchema = ClusterNamespaceQuerySchema;
export const StreamQuerySchema = z.object({
  namespace: Namespace,
  intervalSeconds: z.coerce
    .number()
    .int()
    .min(1)
    .max(60)
    .default(5)
    .meta({ description: 'Seconds between two snapshots (default 5)' }),
});

export const PodLogsSchema = z.object({ podName: z.string(), logs: z.array(z.string()) }).meta({ id: 'PodLogs' });

export const ClusterMetricsSchema = z
  .object({
    clusterName: z.string(),
    namespace: z.string(),
    timestamp: z.string().meta({ description: 'When the snapshot was taken (RFC 3339)' }),
    usedCpu: z.string().meta({ description: "CPU the cluster's pods use now, in millicores (`250m`)" }),
    totalCpu: z.string().meta({ description: "Sum of the containers' CPU limits (requests where unlimited)" }),
    usedMemory: z.string().meta({ description: "Working-set memory the cluster's pods use, in Mi (`512Mi`)" }),
    totalMemory: z.string().meta({ description: "Sum of the containers' memory limits (requests where unlimited)" }),
  })
  .meta({ id: 'ClusterMetrics' });

export const PromMetricFamiliesSchema = z
  .array(
    z.object({
      name: z.string(),
      help: z.string().optional(),
      type: z.string().optional(),
      samples: z.array(
        z.object({ labels: z.record(z.string(), z.string()), value: z.number(), timestamp: z.number().optional() }),
      ),
    }),
  )
  .meta({ id: 'PromMetricFamilies' });

export const EventStreamSchema = z.string().meta({ description: 'Server-sent events' });
