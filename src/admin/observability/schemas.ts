// Shapes of the pod logs and metrics endpoints: the FalkorDB Enterprise admin API's query parameters, its `{podName, logs}`,
// ClusterMetrics and PromMetricFamilies answers.
import { z } from 'zod';
import { queryBoolean, queryInteger, trueOrFalse, wholeNumber } from '../../lib/wire-values.js';
import { KUBERNETES_NAME, OBJECT_NAME } from '../../lib/kubernetes-names.js';
import { timestamp } from '../../lib/timestamp-schema.js';
import { ClusterNameParamsSchema, ClusterNamespaceQuerySchema, ClusterNamespaceSchema } from '../parameters.js';
import { MAX_TAIL_LINES } from './observability-service.js';

const Namespace = ClusterNamespaceSchema;
const QueryBoolean = queryBoolean(trueOrFalse().optional());

export const ClusterParamsSchema = ClusterNameParamsSchema;
export const PodParamsSchema = ClusterParamsSchema.extend({
  podName: z
    .string()
    .regex(OBJECT_NAME, 'must be a pod name')
    .meta({ description: 'A pod of the cluster', examples: ['orders-falkordb-0'] }),
});

export const LogQuerySchema = z.object({
  namespace: Namespace,
  container: z
    .string()
    .regex(KUBERNETES_NAME, 'must be a container name')
    .optional()
    .meta({ description: "The container whose log is read; the pod's first container when absent" }),
  tailLines: queryInteger(wholeNumber(1, MAX_TAIL_LINES).optional()).meta({
    description: `The last lines only (default 500, at most ${MAX_TAIL_LINES})`,
  }),
  sinceSeconds: queryInteger(wholeNumber(0, 31_536_000).optional()).meta({
    description: 'Only lines newer than this many seconds',
  }),
  timestamps: QueryBoolean.meta({ description: 'Prefix each line with its RFC 3339 timestamp' }),
  previous: QueryBoolean.meta({ description: "The previous (crashed) container's log" }),
});

export const NamespaceQuerySchema = ClusterNamespaceQuerySchema;
export const StreamQuerySchema = z.object({
  namespace: Namespace,
  intervalSeconds: queryInteger(wholeNumber(1, 60).default(5)).meta({
    description: 'Seconds between two snapshots (default 5)',
  }),
});

export const PodLogsSchema = z
  .object({
    podName: z.string().describe('The pod'),
    logs: z.array(z.string()).describe('Its log lines, oldest first'),
  })
  .meta({
    id: 'PodLogs',
    description: "A pod's log lines",
    examples: [
      {
        podName: 'orders-falkordb-0',
        logs: [
          '1:M 28 Nov 2026 10:14:02.113 * <graph> Starting up FalkorDB version 4.12.5.',
          "1:M 28 Nov 2026 10:14:02.121 * Module 'graph' loaded from /FalkorDB/bin/src/falkordb.so",
          '1:M 28 Nov 2026 10:14:02.135 * Ready to accept connections tcp',
        ],
      },
    ],
  });

export const ClusterMetricsSchema = z
  .object({
    clusterName: z.string().describe('The deployment'),
    namespace: z.string().describe('Its namespace'),
    timestamp: timestamp('When the snapshot was taken (RFC 3339)'),
    usedCpu: z.string().meta({ description: "CPU the cluster's pods use now, in millicores (`250m`)" }),
    totalCpu: z.string().meta({ description: "Sum of the containers' CPU limits (requests where unlimited)" }),
    usedMemory: z.string().meta({ description: "Working-set memory the cluster's pods use, in Mi (`512Mi`)" }),
    totalMemory: z.string().meta({ description: "Sum of the containers' memory limits (requests where unlimited)" }),
  })
  .meta({
    id: 'ClusterMetrics',
    description: "A snapshot of the deployment's CPU and memory use",
    examples: [
      {
        clusterName: 'orders',
        namespace: 'graphdb',
        timestamp: '2026-11-28T10:30:00.000Z',
        usedCpu: '250m',
        totalCpu: '5000m',
        usedMemory: '1350Mi',
        totalMemory: '9984Mi',
      },
    ],
  });

export const PromMetricFamiliesSchema = z
  .array(
    z.object({
      name: z.string().describe('The metric name'),
      help: z.string().optional().describe('Its HELP text'),
      type: z.string().optional().describe('Its TYPE: gauge, counter, histogram, summary or untyped'),
      samples: z
        .array(
          z.object({
            labels: z.record(z.string(), z.string()).describe("The sample's labels"),
            value: z.number().describe('Its value'),
            timestamp: z.number().optional().describe('Its timestamp in milliseconds since the epoch, when given'),
          }),
        )
        .describe("The family's samples"),
    }),
  )
  .meta({
    id: 'PromMetricFamilies',
    description: 'Prometheus metric families, parsed',
    examples: [
      [
        {
          name: 'container_cpu_usage_cores',
          help: 'CPU the container uses, in cores (metrics.k8s.io, averaged over 15s)',
          type: 'gauge',
          samples: [
            { labels: { pod: 'orders-falkordb-0', container: 'falkordb' }, value: 0.12, timestamp: 1795861800000 },
          ],
        },
        {
          name: 'container_memory_working_set_bytes',
          help: 'Working-set memory of the container, in bytes (metrics.k8s.io)',
          type: 'gauge',
          samples: [
            {
              labels: { pod: 'orders-falkordb-0', container: 'falkordb' },
              value: 471859200,
              timestamp: 1795861800000,
            },
          ],
        },
      ],
    ],
  });

/** The text/event-stream body of a stream route, with an example of its events. */
const eventStream = (example: string) => z.string().meta({ description: 'Server-sent events', examples: [example] });
export const LogEventStreamSchema = eventStream(
  'data: 1:M 28 Nov 2026 10:14:02.135 * Ready to accept connections tcp\n\n' +
    ': heartbeat\n\n' +
    'data: 1:M 28 Nov 2026 10:20:11.502 * DB saved on disk\n\n' +
    'event: end\ndata: {"reason":"complete"}\n\n',
);
export const ClusterMetricsEventStreamSchema = eventStream(
  'data: {"clusterName":"orders","namespace":"graphdb","timestamp":"2026-11-28T10:30:00.000Z","usedCpu":"250m","totalCpu":"5000m","usedMemory":"1350Mi","totalMemory":"9984Mi"}\n\n' +
    'event: end\ndata: {"reason":"max-duration"}\n\n',
);
export const PodMetricsEventStreamSchema = eventStream(
  'data: [{"name":"container_cpu_usage_cores","type":"gauge","samples":[{"labels":{"pod":"orders-falkordb-0","container":"falkordb"},"value":0.12}]}]\n\n' +
    'event: end\ndata: {"reason":"max-duration"}\n\n',
);
