// `helm install` of the chart into a real kube-apiserver (issue 18): with the default values and with the seed's beta
// values, every object is accepted by the API server's own validation (Kubernetes 1.36 schemas, admission), the
// NOTES are rendered, an upgrade keeps the generated secrets, and the schema refuses bad values before anything is
// created.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AppsV1Api, CoreV1Api, NetworkingV1Api, PolicyV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRealApiServer, type RealApiServer } from '../support/kube/real-apiserver.js';

const run = promisify(execFile);
const CHART = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../helm/graphdb-admin-server');
const HELM = process.env.HELM_BIN ?? '';

let api: RealApiServer;
const helm = (args: string[]) =>
  run(HELM, [...args, '--kubeconfig', api.adminKubeconfigPath], {
    env: { ...process.env, HOME: path.dirname(api.adminKubeconfigPath) },
  });

beforeAll(async () => {
  if (!HELM) throw new Error('HELM_BIN is not set: `npm run test:kube` provides helm with scripts/ensure-helm.sh');
  api = await startRealApiServer();
});
afterAll(() => api?.close());

describe('helm install into a real API server', () => {
  it('installs with the default values: every object created, RBAC bound, the pod spec valid, the NOTES rendered', async () => {
    const { stdout } = await helm([
      'install',
      'graphdb-admin-server',
      CHART,
      '--namespace',
      'graphdb-system',
      '--create-namespace',
    ]);
    expect(stdout).toContain('STATUS: deployed');
    expect(stdout).toContain(
      "kubectl -n graphdb-system get secret graphdb-admin-server -o jsonpath='{.data.ADMIN_PASSWORD}' | base64 -d",
    );
    expect(stdout).toContain('kubectl -n graphdb-system port-forward svc/graphdb-enterprise-admin-server 3000:3000');
    expect(stdout).toContain('http://localhost:3000/api-docs');

    const core = api.admin.makeApiClient(CoreV1Api);
    const apps = api.admin.makeApiClient(AppsV1Api);
    const rbac = api.admin.makeApiClient(RbacAuthorizationV1Api);
    const ns = 'graphdb-system';
    const deployment = await apps.readNamespacedDeployment({ name: 'graphdb-admin-server', namespace: ns });
    expect(deployment.spec?.strategy?.type).toBe('Recreate');
    const container = deployment.spec!.template.spec!.containers[0]!;
    expect(container.image).toBe('graphdb-server:0.1.0');
    expect(container.ports?.map((port) => [port.name, port.containerPort])).toEqual([
      ['http', 3000],
      ['metrics', 9090],
    ]);
    expect(
      (await core.readNamespacedService({ name: 'graphdb-enterprise-admin-server', namespace: ns })).spec?.ports?.map(
        (port) => port.port,
      ),
    ).toEqual([3000, 9090]);
    const secret = await core.readNamespacedSecret({ name: 'graphdb-admin-server', namespace: ns });
    expect(Object.keys(secret.data ?? {}).sort()).toEqual([
      'ADMIN_PASSWORD',
      'AUTH_SECRET',
      'ENCRYPTION_KEY',
      'SESSION_SECRET',
    ]);
    expect(
      (await core.readNamespacedConfigMap({ name: 'graphdb-admin-settings', namespace: ns })).data?.['settings.json'],
    ).toBeDefined();
    expect(
      (await core.readNamespacedServiceAccount({ name: 'graphdb-admin-server', namespace: ns })).metadata?.name,
    ).toBe('graphdb-admin-server');
    const binding = await rbac.readNamespacedRoleBinding({ name: 'graphdb-admin-server', namespace: ns });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'graphdb-admin-server', namespace: ns }]);

    // An upgrade keeps what the first install generated (lookup against the live Secret).
    await helm(['upgrade', 'graphdb-admin-server', CHART, '--namespace', ns, '--set', 'adminServer.logLevel=debug']);
    const after = await core.readNamespacedSecret({ name: 'graphdb-admin-server', namespace: ns });
    expect(after.data).toEqual(secret.data);
  });

  it("installs with the seed's beta values and the operator options, several replicas on an external token store", async () => {
    const ns = 'graphdb-beta';
    const { stdout } = await helm([
      'install',
      'graphdb-admin-server',
      CHART,
      '--namespace',
      ns,
      '--create-namespace',
      '--set',
      'adminServer.env.oauthProvider=beta',
      '--set',
      'adminServer.env.betaTenantId=contoso.onmicrosoft.com',
      '--set',
      'adminServer.env.betaRedirectUri=https://admin.example.com/api/auth/oauth/beta/callback',
      '--set',
      'adminServer.secret.betaClientId=beta-client',
      '--set',
      'adminServer.secret.betaClientSecret=beta-secret',
      '--set',
      'adminServer.tokenStoreUrl=redis://falkordb.graphdb-beta:6379',
      '--set',
      'replicaCount=2',
      '--set',
      'ingress.enabled=true',
      '--set',
      'podDisruptionBudget.enabled=true',
      '--set',
      'networkPolicy.enabled=true',
      '--set',
      'nodeSelector.pool=system',
      '--set',
      'imagePullSecrets[0].name=regcred',
    ]);
    expect(stdout).toContain('STATUS: deployed');
    const apps = api.admin.makeApiClient(AppsV1Api);
    const deployment = await apps.readNamespacedDeployment({ name: 'graphdb-admin-server', namespace: ns });
    expect(deployment.spec).toMatchObject({ replicas: 2, strategy: { type: 'RollingUpdate' } });
    const env = Object.fromEntries(
      (deployment.spec!.template.spec!.containers[0]!.env ?? []).map((entry) => [entry.name, entry.value]),
    );
    expect(env).toMatchObject({ OAUTH_PROVIDER: 'beta', BETA_TENANT_ID: 'contoso.onmicrosoft.com' });
    const networking = api.admin.makeApiClient(NetworkingV1Api);
    expect(
      (
        await networking.readNamespacedIngress({ name: 'graphdb-admin-server', namespace: ns })
      ).spec?.rules?.[0]?.http?.paths.map((p) => p.path),
    ).toEqual(['/api', '/api-spec.json', '/api-docs']);
    expect(
      (await networking.readNamespacedNetworkPolicy({ name: 'graphdb-admin-server', namespace: ns })).spec?.policyTypes,
    ).toEqual(['Ingress', 'Egress']);
    expect(
      (
        await api.admin
          .makeApiClient(PolicyV1Api)
          .readNamespacedPodDisruptionBudget({ name: 'graphdb-admin-server', namespace: ns })
      ).spec?.maxUnavailable,
    ).toBe(1);
  });

  it('refuses bad values before creating anything', async () => {
    const attempt = await helm([
      'install',
      'graphdb-broken',
      CHART,
      '--namespace',
      'graphdb-broken',
      '--create-namespace',
      '--set',
      'replicaCount=3',
    ]).then(
      () => 'installed',
      (error: { stderr: string }) => error.stderr,
    );
    expect(attempt).toMatch(/replicaCount: Must be less than or equal to 1/);
    const namespaces = await api.admin.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((item) => item.metadata?.name)).not.toContain('graphdb-broken');
  });
});
