// Diagnostics of this server: versions, host, health of what it depends on (Kubernetes, KubeBlocks, the token
// store's FalkorDB), recent errors from its own log, and the support package (support-package.ts).
import type { z } from 'zod';
import type { ClusterPort } from '../../platform/clusters/cluster-port.js';
import type { HostFacts } from '../../platform/host.js';
import type { KubeClusterInfo } from '../../platform/kubernetes/kube-cluster-info.js';
import { storeReady, type RedisConnection } from '../../platform/redis/redis-connection.js';
import { ERROR_LEVEL, type LogRing } from '../../logging/log-ring.js';
import type { ClusterService } from '../clusters/cluster-service.js';
import type { RoleName } from '../permissions/permissions.js';
import type { DiagnosticsSchema, HealthStatus } from './schemas.js';

export interface DiagnosticsDeps {
  clusters: ClusterService;
  port: ClusterPort;
  kube?: KubeClusterInfo;
  /** The token store: the FalkorDB this server keeps its state in. */
  tokenStore?: RedisConnection;
  recentLogs?: LogRing;
  host: () => HostFacts;
  version: string;
  namespace: string;
  clusterNamespace: string;
  now: () => number;
}

const CHECK_TIMEOUT_MS = 2000;
const RECENT_ERRORS = 20;
const ACTIVITY_WINDOW_MS = 3600_000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createDiagnosticsService(deps: DiagnosticsDeps) {
  const { kube, port } = deps;

  async function check(name: string, run: () => Promise<unknown>): Promise<string | undefined> {
    try {
      await withTimeout(run(), name);
      return undefined;
    } catch (error) {
      return `${name}: ${reason(error)}`;
    }
  }

  async function health(): Promise<HealthStatus> {
    const [database, k8sApi, kubeBlocks] = await Promise.all([
      check('database', async () => {
        if (!deps.tokenStore || !storeReady(deps.tokenStore)) throw new Error('the token store is not connected');
        await deps.tokenStore.ping();
      }),
      kube ? check('k8sApi', () => kube.probe()) : undefined,
      kube ? check('kubeBlocks', () => port.list({ namespace: deps.clusterNamespace })) : undefined,
    ]);
    const errors = [database, k8sApi, kubeBlocks].filter((error): error is string => error !== undefined);
    return {
      status: database ? 'unhealthy' : errors.length > 0 ? 'degraded' : 'healthy',
      checks: {
        k8sApi: k8sApi ? 'unhealthy' : 'healthy',
        kubeBlocks: kubeBlocks ? 'unhealthy' : 'healthy',
        database: database ? 'unhealthy' : 'healthy',
      },
      timestamp: new Date(deps.now()).toISOString(),
      ...(errors.length > 0 ? { error: errors.join('; ') } : {}),
      ...(kube ? {} : { notApplicable: ['k8sApi', 'kubeBlocks'] as ('k8sApi' | 'kubeBlocks')[] }),
    };
  }

  function recentErrors() {
    return (deps.recentLogs?.parsed() ?? [])
      .filter((line) => typeof line.level === 'number' && line.level >= ERROR_LEVEL)
      .slice(-RECENT_ERRORS)
      .map((line) => ({
        time: new Date(typeof line.time === 'number' ? line.time : 0).toISOString(),
        level: line.level!,
        msg: typeof line.msg === 'string' ? line.msg : '',
        ...(typeof line.reqId === 'string' ? { reqId: line.reqId } : {}),
      }));
  }

  /** Requests this server answered within the last hour, as far as its in-memory log reaches. */
  function recentActivityCount(): number {
    const since = deps.now() - ACTIVITY_WINDOW_MS;
    return (deps.recentLogs?.parsed() ?? []).filter(
      (line) => line.res !== undefined && typeof line.time === 'number' && line.time >= since,
    ).length;
  }

  return {
    health,

    async diagnostics(role: RoleName): Promise<z.input<typeof DiagnosticsSchema>> {
      const host = deps.host();
      const [status, deployments] = await Promise.all([
        health(),
        // A platform that cannot be reached shows in `health`; the count is then unknown (0).
        deps.clusters.listVisible(role, undefined).catch(() => []),
      ]);
      const used = host.memoryTotal - host.memoryFree;
      return {
        server: {
          uptime: host.uptimeSeconds,
          version: deps.version,
          nodeVersion: host.nodeVersion,
          platform: host.platform,
          arch: host.arch,
          memory: {
            total: host.memoryTotal,
            free: host.memoryFree,
            used,
            usagePercent: host.memoryTotal > 0 ? Math.round((used / host.memoryTotal) * 10000) / 100 : 0,
          },
          cpus: host.cpuCount,
        },
        versions: { server: { version: deps.version, namespace: deps.namespace } },
        health: status,
        resources: { totalClusters: deployments.length, recentActivityCount: recentActivityCount() },
        recentErrors: recentErrors(),
      };
    },
  };
}

export type DiagnosticsService = ReturnType<typeof createDiagnosticsService>;
