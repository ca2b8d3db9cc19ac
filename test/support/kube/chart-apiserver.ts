// A real API server set up the way the Helm chart deploys graphdb-server: the chart's own Roles, ClusterRoles and
// bindings (rendered with `helm template`, so the RBAC under test is the chart's, not a copy), bound to the service
// account the server's pod runs as. No token controller runs here, so the server gets a static token for that
// service account's user name (system:serviceaccount:<namespace>:<name>), which RBAC matches exactly like a pod's
// token. The admin (system:masters) plays kubectl and KubeBlocks.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { startRealApiServer, type RealApiServer } from './real-apiserver.js';

const run = promisify(execFile);
const CHART = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../helm/graphdb-admin-server');
export const SERVER_NAMESPACE = 'graphdb-system';
const RBAC_KINDS = new Set(['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

/** The chart's RBAC objects, as `helm template` renders them for a release in `namespace`. */
export async function renderChartRbac(
  namespace: string,
  values: Record<string, string> = {},
): Promise<KubernetesObject[]> {
  const helm = process.env.HELM_BIN ?? '';
  if (!helm || !existsSync(helm))
    throw new Error('HELM_BIN is not set: `npm run test:kube` provides helm with scripts/ensure-helm.sh');
  const sets = Object.entries(values).flatMap(([key, value]) => ['--set', `${key}=${value}`]);
  const { stdout } = await run(helm, [
    'template',
    'graphdb-admin-server',
    CHART,
    '--namespace',
    namespace,
    // Required by the chart; only the RBAC objects are used here.
    '--set',
    'image.repository=registry.test/graphdb-server',
    ...sets,
  ]);
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null && RBAC_KINDS.has(object.kind ?? ''));
}

/** The one service account the chart's bindings grant to, as the user name the API server sees. */
export function serviceAccountUser(rbac: KubernetesObject[]): string {
  const subjects = rbac.flatMap((object) =>
    ((object as { subjects?: Subject[] }).subjects ?? []).filter((s) => s.kind === 'ServiceAccount'),
  );
  const users = new Set(subjects.map((s) => `system:serviceaccount:${s.namespace ?? ''}:${s.name}`));
  if (users.size !== 1)
    throw new Error(`expected the chart to bind one service account, found ${[...users].join(', ') || 'none'}`);
  return [...users][0]!;
}

export interface ChartApiServer {
  api: RealApiServer;
  /** The chart's RBAC objects as applied. */
  rbac: KubernetesObject[];
  /** The server's identity: the chart's service account. */
  serverUser: string;
  /** Kubeconfig of the server's identity (what the pod's service account token would give it). */
  serverKubeconfigPath: string;
  close(): Promise<void>;
}

export interface ChartApiServerOptions {
  /** CRD files to install (paths: the real KubeBlocks CRDs come from ./kubeblocks-crds.ts). */
  crds?: string[];
  /** Namespaces besides the release namespace. */
  namespaces?: string[];
  /** Chart values (`--set key=value`), e.g. `adminServer.multiClusterRbac: 'true'`. */
  values?: Record<string, string>;
}

export async function startChartApiServer(options: ChartApiServerOptions = {}): Promise<ChartApiServer> {
  const rbac = await renderChartRbac(SERVER_NAMESPACE, options.values);
  const serverUser = serviceAccountUser(rbac);
  const saNamespace = serverUser.split(':')[2]!;
  const api = await startRealApiServer({
    users: [{ name: serverUser, groups: ['system:serviceaccounts', `system:serviceaccounts:${saNamespace}`] }],
    namespaces: [...new Set([SERVER_NAMESPACE, ...(options.namespaces ?? [])])],
    crds: options.crds,
  });
  try {
    await api.apply(rbac);
  } catch (error) {
    await api.close();
    throw error;
  }
  return { api, rbac, serverUser, serverKubeconfigPath: api.kubeconfigPath(serverUser), close: () => api.close() };
}
