// The cluster port in embedded mode: the embedded FalkorDB as the one deployment `embedded`. Restart restarts the
// child process (data kept); reconfigure applies dynamic parameters with GRAPH.CONFIG SET; nothing else applies.
import { randomBytes } from 'node:crypto';
import type { EmbeddedFalkorDB } from '../falkordb/embedded-falkordb.js';
import type { PlatformLogger } from '../logger.js';
import { StoreRejectedError } from '../stores/ports.js';
import type { ClusterPort, OperationRequest } from './cluster-port.js';
import type { ClusterRecord, OperationRecord } from './cluster-records.js';
import { graphModuleVersion } from '../falkordb/server-commands.js';
import { DYNAMIC_PARAMETERS } from '../falkordb/server-parameters.js';
import { configGetPairs, type ConfigParameter } from './redis-conf.js';
import { moduleVersionText } from './versions.js';

export const EMBEDDED_CLUSTER = 'embedded';
export const NOT_SUPPORTED = 'Not supported in embedded mode';

export interface EmbeddedClustersOptions {
  falkordb: EmbeddedFalkorDB;
  namespace: string;
  /** GRAPH.CONFIG SET on the embedded server. */
  configSet: (key: string, value: string) => Promise<void>;
  isDynamicParameter: (key: string) => boolean;
  logger: PlatformLogger;
  now?: () => number;
  /** CONFIG GET * on the embedded server, as pairs. */
  configGet?: () => Promise<ConfigParameter[]>;
  /** MODULE LIST's graph module version of the embedded server (41205 for 4.12.5). */
  moduleVersion?: () => Promise<number | undefined>;
}

/** The options that reach the embedded server, as commands sent with its administrator's connection. */
export function embeddedServerAccess(
  command: (args: string[]) => Promise<unknown>,
): Pick<EmbeddedClustersOptions, 'configSet' | 'isDynamicParameter' | 'configGet' | 'moduleVersion'> {
  return {
    configSet: async (key, value) => {
      await command(['GRAPH.CONFIG', 'SET', key, value]);
    },
    isDynamicParameter: (key) => DYNAMIC_PARAMETERS.has(key),
    configGet: async () => configGetPairs(await command(['CONFIG', 'GET', '*'])),
    moduleVersion: async () => graphModuleVersion(await command(['MODULE', 'LIST'])),
  };
}

type AppliedOperation = Extract<OperationRequest['type'], 'Restart' | 'Reconfiguring'>;

/** Why an operation type other than a restart or a reconfiguration does not apply to one embedded process. */
function refusalOf(type: Exclude<OperationRequest['type'], AppliedOperation>): string {
  switch (type) {
    case 'Start':
    case 'Stop':
      return `${NOT_SUPPORTED}: the embedded FalkorDB runs as long as the server does (${type} does not apply)`;
    case 'HorizontalScaling':
    case 'VerticalScaling':
    case 'VolumeExpansion':
      return `${NOT_SUPPORTED}: the embedded FalkorDB is one process on this host; its replicas, resources and storage are the host's (${type} does not apply)`;
    case 'Switchover':
      return `${NOT_SUPPORTED}: the embedded FalkorDB has no replica to promote (Switchover does not apply)`;
    case 'Upgrade':
      return `${NOT_SUPPORTED}: the embedded FalkorDB runs the server's own module version (Upgrade does not apply)`;
  }
}

function inapplicable(type: OperationRequest['type']): string | undefined {
  return type === 'Restart' || type === 'Reconfiguring' ? undefined : refusalOf(type);
}

export function createEmbeddedClusters(options: EmbeddedClustersOptions): ClusterPort {
  const now = options.now ?? Date.now;
  const operations: OperationRecord[] = [];
  let phase = 'Running';

  const record = (): ClusterRecord => ({
    name: EMBEDDED_CLUSTER,
    namespace: options.namespace,
    phase,
    topology: 'standalone',
    terminationPolicy: '',
    createdAt: options.falkordb.startedAt.toISOString(),
    components: [
      {
        name: 'falkordb',
        kind: 'component',
        phase,
        replicas: 1,
        serviceVersion: options.falkordb.server.version,
        cpu: '',
        memory: '',
        storage: '',
      },
    ],
  });

  function begin(type: string): OperationRecord {
    const at = new Date(now()).toISOString();
    const operation: OperationRecord = {
      name: `${EMBEDDED_CLUSTER}-${type.toLowerCase()}-${randomBytes(3).toString('hex')}`,
      cluster: EMBEDDED_CLUSTER,
      type,
      phase: 'Running',
      progress: '0/1',
      createdAt: at,
      startedAt: at,
      completedAt: null,
      message: '',
    };
    operations.unshift(operation);
    return operation;
  }

  function finish(operation: OperationRecord, error?: unknown): void {
    operation.phase = error ? 'Failed' : 'Succeed';
    operation.progress = error ? '0/1' : '1/1';
    operation.completedAt = new Date(now()).toISOString();
    operation.message = error ? (error as Error).message : `${operation.type} completed`;
  }

  return {
    list: (scope) => Promise.resolve('namespace' in scope && scope.namespace !== options.namespace ? [] : [record()]),
    get: (namespace, name) =>
      Promise.resolve(namespace === options.namespace && name === EMBEDDED_CLUSTER ? record() : undefined),
    /** The embedded server's own FalkorDB: the one version this deployment has and can have. */
    async versionCatalog() {
      const version = await options.moduleVersion?.();
      if (version === undefined) return [];
      const text = moduleVersionText(version);
      return [
        {
          name: 'falkordb',
          createdAt: options.falkordb.startedAt.toISOString(),
          releases: [{ version: text, stable: true }],
          componentDefinitions: [{ name: 'falkordb-embedded', version: text }],
        },
      ];
    },
    /** The embedded server is configured on its command line, not by a ConfigMap: CONFIG GET tells what it runs with. */
    async readConfig(namespace, cluster) {
      if (namespace !== options.namespace || cluster !== EMBEDDED_CLUSTER || !options.configGet) return undefined;
      return { configMapName: '', parameters: await options.configGet() };
    },
    /** The embedded server as the deployment's one Pod. */
    listPods: (namespace, cluster) =>
      Promise.resolve(
        namespace === options.namespace && cluster === EMBEDDED_CLUSTER
          ? [
              {
                name: `${EMBEDDED_CLUSTER}-falkordb-0`,
                namespace,
                status: phase === 'Running' ? 'Running' : 'Pending',
                ready: phase === 'Running',
                restartCount: 0,
                createdAt: options.falkordb.startedAt.toISOString(),
                role: 'primary',
                component: 'falkordb',
                hostname: options.falkordb.host,
                ports: [{ name: 'falkordb', port: options.falkordb.port, protocol: 'TCP' }],
                dns: options.falkordb.host,
              },
            ]
          : [],
      ),
    listOperations: (namespace, cluster) =>
      Promise.resolve(
        namespace === options.namespace && cluster === EMBEDDED_CLUSTER ? operations.map((op) => ({ ...op })) : [],
      ),
    getOperation(namespace, cluster, name) {
      const found = operations.find((op) => op.name === name);
      return Promise.resolve(
        namespace === options.namespace && cluster === EMBEDDED_CLUSTER && found ? { ...found } : undefined,
      );
    },
    deleteOperation(namespace, name) {
      const at = operations.findIndex((op) => op.name === name);
      if (namespace !== options.namespace || at === -1) return Promise.resolve(false);
      operations.splice(at, 1);
      return Promise.resolve(true);
    },
    // Restarts and reconfigurations cannot be cancelled; the service refuses before asking.
    cancelOperation: () => Promise.reject(new StoreRejectedError(`${NOT_SUPPORTED}: nothing to cancel`)),

    inapplicable,

    async createOperation(_namespace, _cluster, request: OperationRequest) {
      switch (request.type) {
        case 'Restart': {
          const operation = begin('Restart');
          phase = 'Updating';
          // Answer at once; the restart proceeds in the background and its record tells how it went.
          void options.falkordb
            .restart()
            .then(
              () => finish(operation),
              (error: unknown) => {
                options.logger.error({ err: error }, 'embedded FalkorDB restart failed');
                finish(operation, error);
              },
            )
            .finally(() => {
              phase = 'Running';
            });
          return operation.name;
        }
        case 'Reconfiguring': {
          const staticKeys = Object.keys(request.parameters).filter((key) => !options.isDynamicParameter(key));
          if (staticKeys.length > 0)
            throw new StoreRejectedError(`${NOT_SUPPORTED}: ${staticKeys.join(', ')} can only be set at start-up`);
          const cleared = Object.keys(request.parameters).filter((key) => request.parameters[key] === null);
          if (cleared.length > 0)
            throw new StoreRejectedError(
              `${NOT_SUPPORTED}: clearing ${cleared.join(', ')} (GRAPH.CONFIG SET needs a value; give the default)`,
            );
          const operation = begin('Reconfiguring');
          try {
            for (const [key, value] of Object.entries(request.parameters)) await options.configSet(key, value ?? '');
            finish(operation);
          } catch (error) {
            finish(operation, error);
          }
          return operation.name;
        }
        case 'Start':
        case 'Stop':
        case 'HorizontalScaling':
        case 'VerticalScaling':
        case 'VolumeExpansion':
        case 'Switchover':
        case 'Upgrade':
          throw new StoreRejectedError(refusalOf(request.type));
      }
    },
  };
}

/** With neither Kubernetes nor an embedded FalkorDB there is nothing to manage. */
export const NO_CLUSTERS: ClusterPort = {
  list: () => Promise.resolve([]),
  get: () => Promise.resolve(undefined),
  listOperations: () => Promise.resolve([]),
  getOperation: () => Promise.resolve(undefined),
  deleteOperation: () => Promise.resolve(false),
  cancelOperation: () => Promise.reject(new StoreRejectedError('No deployment platform is configured')),
  createOperation: () => Promise.reject(new StoreRejectedError('No deployment platform is configured')),
};
