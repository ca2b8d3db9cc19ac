// Loads the Kubernetes client configuration (a kubeconfig file, or the pod's service account in a cluster)
// and offers the readiness probe of the API server.
import { readFile } from 'node:fs/promises';
import {
  AbortError,
  ApiException,
  createConfiguration,
  KubeConfig,
  ServerConfiguration,
  VersionApi,
  type ApiConstructor,
  type ApiType,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import { ReusedKubeAgents } from './kube-agents.js';

/** Where the Kubernetes credentials come from (KUBECONFIG, or the pod's service account). */
export type KubernetesSource = { kind: 'kubeconfig'; path: string } | { kind: 'in-cluster' };

export const DEFAULT_KUBERNETES_TIMEOUT_MS = 10_000;

/**
 * A KubeConfig whose API clients abandon a request after `timeoutMs`: @kubernetes/client-node has no timeout of
 * its own, so a stalled API server would hold a request (and the settings write lock behind it) forever. Its
 * requests share a bounded pool of keep-alive connections: the client builds a new agent, so a new TLS connection,
 * for each one (a list of 1,000 deployments, four pages, paid four handshakes).
 */
class TimeLimitedKubeConfig extends KubeConfig {
  readonly #agents = new ReusedKubeAgents();

  constructor(readonly timeoutMs: number) {
    super();
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await super.applySecurityAuthentication(context);
    const agent = this.#agents.agentFor(context.getAgent());
    if (agent) context.setAgent(agent);
  }

  override makeApiClient<T extends ApiType>(apiClientType: ApiConstructor<T>): T {
    const cluster = this.getCurrentCluster();
    if (!cluster) throw new Error('No active cluster!');
    const timeout = {
      pre: (context: RequestContext) => {
        context.setSignal(AbortSignal.timeout(this.timeoutMs));
        return Promise.resolve(context);
      },
      post: (response: ResponseContext) => Promise.resolve(response),
    };
    return new apiClientType(
      createConfiguration({
        baseServer: new ServerConfiguration(cluster.server, {}),
        authMethods: { default: this },
        promiseMiddleware: [timeout],
      }),
    );
  }
}

/** What a client-side failure (no HTTP answer) means, for the adapters' messages. */
export function unreachableMessage(error: unknown): string {
  if (error instanceof AbortError || (error instanceof Error && error.name === 'AbortError'))
    return 'The Kubernetes API server did not answer in time';
  return `The Kubernetes API server cannot be reached (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
}

export function loadKubeConfig(source: KubernetesSource, timeoutMs = DEFAULT_KUBERNETES_TIMEOUT_MS): KubeConfig {
  const kubeConfig = new TimeLimitedKubeConfig(timeoutMs);
  switch (source.kind) {
    case 'kubeconfig':
      kubeConfig.loadFromFile(source.path);
      break;
    case 'in-cluster':
      kubeConfig.loadFromCluster();
      break;
  }
  return kubeConfig;
}

/** Resolves when the API server answers `GET /version` with the configured credentials. */
/** The API server refused our credentials (401, 403): waiting for it to come back will not help. */
export function isCredentialRefusal(error: unknown): boolean {
  return error instanceof ApiException && (error.code === 401 || error.code === 403);
}

export function kubernetesReadiness(kubeConfig: KubeConfig): () => Promise<void> {
  const versionApi = kubeConfig.makeApiClient(VersionApi);
  return async () => {
    await versionApi.getCode();
  };
}

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The pod's own namespace from its service-account mount, when running in a cluster. */
export async function serviceAccountNamespace(file = SERVICE_ACCOUNT_NAMESPACE): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}
