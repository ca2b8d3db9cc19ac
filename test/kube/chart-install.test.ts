// `helm install` of the chart into a real kube-apiserver: with the default values and with the specification's beta
// values, every object is accepted by the API server's own validation (Kubernetes 1.36 schemas, admission), the
// NOTES are rendered, an upgrade keeps the generated secrets, and the schema refuses bad values before anything is
// created.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  PolicyV1Api,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTokenText, tokenHash } from '../../src/lib/service-account-tokens.js';
import { EnvSchema, loadConfig } from '../../src/config.js';
import { CHART_SETTINGS, sampleValueArgs } from '../support/chart-settings.js';
import { startRealApiServer, type RealApiServer } from '../support/kube/real-apiserver.js';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';

const run = promisify(execFile);
const CHART = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../helm/graphdb-admin-server');
const HELM = process.env.HELM_BIN ?? '';
const IMAGE = 'registry.corp.example/graphdb-server';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATA_NS = 'graphdb-data';
const DATA_RELEASE = 'graphs';
const DATA_FULLNAME = 'graphs-graphdb-admin-server';
const GITOPS_NS = 'graphdb-gitops';
const GITOPS_RELEASE = 'gitops';
const GITOPS_FULLNAME = 'gitops-graphdb-admin-server';
const MONITORING_CRDS = process.env.PROMETHEUS_OPERATOR_CRDS_DIR ?? '';
const MONITORING_KINDS = ['servicemonitors', 'prometheusrules'];

let api: RealApiServer;
const helm = (args: string[]) =>
  run(HELM, [...args, '--kubeconfig', api.adminKubeconfigPath], {
    env: { ...process.env, HOME: path.dirname(api.adminKubeconfigPath) },
  });

beforeAll(async () => {
  if (!HELM) throw new Error('HELM_BIN is not set: `npm run test:kube` provides helm with scripts/ensure-helm.sh');
  // The persistence test runs the server as its release's service account (a static token for that user name).
  api = await startRealApiServer({
    // prometheus-operator's own ServiceMonitor and PrometheusRule CRDs, so their schemas check the chart's objects.
    crds: MONITORING_CRDS
      ? MONITORING_KINDS.map((kind) => path.join(MONITORING_CRDS, `monitoring.coreos.com_${kind}.yaml`))
      : [],
    users: [DATA_NS, GITOPS_NS].map((namespace) => ({
      name: `system:serviceaccount:${namespace}:${namespace === DATA_NS ? DATA_FULLNAME : GITOPS_FULLNAME}`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
    })),
  });
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
      '--set',
      `image.repository=${IMAGE}`,
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
    expect(container.image).toBe(`${IMAGE}:0.1.0`);
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
      'METRICS_PASSWORD',
      'METRICS_USERNAME',
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
    await helm([
      'upgrade',
      'graphdb-admin-server',
      CHART,
      '--namespace',
      ns,
      '--set',
      `image.repository=${IMAGE}`,
      '--set',
      'adminServer.logLevel=debug',
    ]);
    const after = await core.readNamespacedSecret({ name: 'graphdb-admin-server', namespace: ns });
    expect(after.data).toEqual(secret.data);
  });

  it("installs with the specification's beta values and the operator options, several replicas on an external token store", async () => {
    const ns = 'graphdb-beta';
    const { stdout } = await helm([
      'install',
      'graphdb-admin-server',
      CHART,
      '--namespace',
      ns,
      '--create-namespace',
      '--set',
      `image.repository=${IMAGE}`,
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
      `image.repository=${IMAGE}`,
      '--set',
      'replicaCount=3',
    ]).then(
      () => 'installed',
      (error: { stderr: string }) => error.stderr,
    );
    expect(attempt).toMatch(/adminServer\.tokenStoreUrl: String length must be greater than or equal to 1/);
    const namespaces = await api.admin.makeApiClient(CoreV1Api).listNamespace();
    expect(namespaces.items.map((item) => item.metadata?.name)).not.toContain('graphdb-broken');
  });
});

/** The environment the chart gives the server's container, resolved the way the kubelet would (no kubelet runs here). */
async function containerEnvironment(namespace: string, deploymentName: string): Promise<Record<string, string>> {
  const core = api.admin.makeApiClient(CoreV1Api);
  const deployment = await api.admin
    .makeApiClient(AppsV1Api)
    .readNamespacedDeployment({ name: deploymentName, namespace });
  const container = deployment.spec!.template.spec!.containers[0]!;
  const secretData = async (name: string) =>
    Object.fromEntries(
      Object.entries((await core.readNamespacedSecret({ name, namespace })).data ?? {}).map(([k, v]) => [
        k,
        Buffer.from(v, 'base64').toString('utf8'),
      ]),
    );
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? [])
    if (source.secretRef) Object.assign(env, await secretData(source.secretRef.name!));
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) env[entry.name] = entry.value;
    else if (entry.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') env[entry.name] = namespace;
    else if (entry.valueFrom?.secretKeyRef)
      env[entry.name] = (await secretData(entry.valueFrom.secretKeyRef.name!))[entry.valueFrom.secretKeyRef.key]!;
  }
  return env;
}

/** The server as the release's pod would run it: its env, its service account, and DATA_DIR on `dataDir`. */
async function startAsPod(
  env: Record<string, string>,
  dataDir: string,
  release = { namespace: DATA_NS, fullname: DATA_FULLNAME },
): Promise<ServerProcess> {
  const kubeconfig = api.kubeconfigPath(`system:serviceaccount:${release.namespace}:${release.fullname}`);
  // PORT and HOST are the harness's (a free loopback port); everything else is what the chart set.
  const { PORT: _port, HOST: _host, ...rest } = env;
  const server = await runServerProcess({ ...rest, DATA_DIR: dataDir, KUBECONFIG: kubeconfig });
  await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'), 60_000);
  return server;
}

async function call(
  server: ServerProcess,
  method: string,
  url: string,
  options: { token?: string; cookie?: string; body?: unknown } = {},
): Promise<{ status: number; json: unknown; cookie: string | undefined }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as unknown) : undefined,
    cookie: res.headers.getSetCookie()[0]?.split(';', 1)[0],
  };
}

async function stop(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

describe('the chart an operator keeps: persistence, release names, every value, the quick start', () => {
  it('keeps a token, a user and a setting across a new pod, and the claim across upgrade and uninstall', async () => {
    const core = api.admin.makeApiClient(CoreV1Api);
    const apps = api.admin.makeApiClient(AppsV1Api);
    const install = await helm([
      'install',
      DATA_RELEASE,
      CHART,
      '--namespace',
      DATA_NS,
      '--create-namespace',
      '--set',
      `image.repository=${IMAGE}`,
      '--set',
      'persistence.size=2Gi',
    ]);
    expect(install.stdout).toContain('STATUS: deployed');
    expect(install.stdout).toContain(`Data: PersistentVolumeClaim ${DATA_FULLNAME}-data (2Gi)`);
    expect(install.stdout).not.toContain('PERSISTENCE IS OFF');

    // The Deployment mounts the claim the chart created at DATA_DIR.
    const claimName = `${DATA_FULLNAME}-data`;
    const deployment = await apps.readNamespacedDeployment({ name: DATA_FULLNAME, namespace: DATA_NS });
    const podSpec = deployment.spec!.template.spec!;
    expect(podSpec.volumes).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName } });
    expect(podSpec.containers[0]!.volumeMounts).toContainEqual({ name: 'data', mountPath: '/data' });
    expect(podSpec.containers[0]!.env).toContainEqual({ name: 'DATA_DIR', value: '/data' });
    const claim = await core.readNamespacedPersistentVolumeClaim({ name: claimName, namespace: DATA_NS });
    expect(claim.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
    expect(claim.spec?.resources?.requests?.storage).toBe('2Gi');

    // The pod, played by the server process with the Deployment's environment and the release's service account;
    // the claim's volume is a directory that outlives the process.
    const env = await containerEnvironment(DATA_NS, DATA_FULLNAME);
    expect(env).toMatchObject({
      SETTINGS_CONFIGMAP_NAME: `${DATA_FULLNAME}-settings`,
      RBAC_CONFIGMAP_NAME: `${DATA_FULLNAME}-rbac`,
      USERS_SECRET_NAME: `${DATA_FULLNAME}-users`,
    });
    const volume = await mkdtemp(path.join(os.tmpdir(), 'gdb-claim-'));
    const servers: ServerProcess[] = [];
    try {
      const first = await startAsPod(env, volume);
      servers.push(first);
      const embedded = (await first.waitForLine((l) => 'embeddedFalkorDB' in l)) as unknown as {
        embeddedFalkorDB: { host: string; port: number; passwordFile: string };
      };
      const target = {
        host: embedded.embeddedFalkorDB.host,
        port: String(embedded.embeddedFalkorDB.port),
        tls: 'false',
      };
      const dbPassword = (await readFile(embedded.embeddedFalkorDB.passwordFile, 'utf8')).trim();
      const tokenReply = await call(first, 'POST', '/api/auth/tokens/credentials', {
        body: { username: 'admin', password: dbPassword, ...target },
      });
      expect(tokenReply.status).toBe(200);
      const token = (tokenReply.json as { token: string }).token;

      const login = await call(first, 'POST', '/api/auth/login', {
        body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD },
      });
      expect(login.status).toBe(200);
      const cookie = login.cookie!;
      expect((await call(first, 'PATCH', '/api/settings/', { cookie, body: { ui: { theme: 'dark' } } })).status).toBe(
        200,
      );
      expect(
        (
          await call(first, 'POST', '/api/users', {
            cookie,
            body: { email: 'ops@corp.example', name: 'Ops', role: 'operator', password: 'ops-password-1' },
          })
        ).status,
      ).toBe(201);
      // Written to the release's own objects, through the chart's RBAC.
      const settings = await core.readNamespacedConfigMap({ name: `${DATA_FULLNAME}-settings`, namespace: DATA_NS });
      expect(JSON.parse(settings.data!['settings.json']!)).toMatchObject({ ui: { theme: 'dark' } });
      // The server's write keeps the chart's annotation: without it the next upgrade would delete the ConfigMap.
      expect(settings.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
      const users = await core.readNamespacedSecret({ name: `${DATA_FULLNAME}-users`, namespace: DATA_NS });
      expect(Buffer.from(users.data!['users.json']!, 'base64').toString('utf8')).toContain('ops@corp.example');
      await expect(
        core.readNamespacedSecret({ name: 'graphdb-admin-users', namespace: DATA_NS }),
      ).rejects.toMatchObject({ code: 404 });

      // The pod is deleted; its replacement mounts the same claim.
      await stop(first);
      const second = await startAsPod(await containerEnvironment(DATA_NS, DATA_FULLNAME), volume);
      servers.push(second);
      expect((await call(second, 'GET', '/api/graph', { token })).status).toBe(200);
      const opsLogin = await call(second, 'POST', '/api/auth/login', {
        body: { email: 'ops@corp.example', password: 'ops-password-1' },
      });
      expect(opsLogin.status).toBe(200);
      const adminAgain = await call(second, 'POST', '/api/auth/login', {
        body: { email: env.ADMIN_EMAIL, password: env.ADMIN_PASSWORD },
      });
      expect((await call(second, 'GET', '/api/settings/', { cookie: adminAgain.cookie! })).json).toMatchObject({
        ui: { theme: 'dark' },
      });
    } finally {
      for (const server of servers) await stop(server);
    }

    // helm upgrade keeps the very same claim (and the Deployment still mounts it) ...
    await helm([
      'upgrade',
      DATA_RELEASE,
      CHART,
      '--namespace',
      DATA_NS,
      '--set',
      `image.repository=${IMAGE}`,
      '--set',
      'persistence.size=2Gi',
      '--set',
      'adminServer.logLevel=debug',
    ]);
    const upgraded = await core.readNamespacedPersistentVolumeClaim({ name: claimName, namespace: DATA_NS });
    expect(upgraded.metadata?.uid).toBe(claim.metadata?.uid);
    expect(
      (await apps.readNamespacedDeployment({ name: DATA_FULLNAME, namespace: DATA_NS })).spec!.template.spec!.volumes,
    ).toContainEqual({ name: 'data', persistentVolumeClaim: { claimName } });

    // ... and helm uninstall leaves it, with the settings and the users.
    await helm(['uninstall', DATA_RELEASE, '--namespace', DATA_NS]);
    await expect(apps.readNamespacedDeployment({ name: DATA_FULLNAME, namespace: DATA_NS })).rejects.toMatchObject({
      code: 404,
    });
    const kept = await core.readNamespacedPersistentVolumeClaim({ name: claimName, namespace: DATA_NS });
    expect(kept.metadata?.uid).toBe(claim.metadata?.uid);
    expect(
      (await core.readNamespacedConfigMap({ name: `${DATA_FULLNAME}-settings`, namespace: DATA_NS })).data,
    ).toBeDefined();
    expect(
      (await core.readNamespacedSecret({ name: `${DATA_FULLNAME}-users`, namespace: DATA_NS })).data,
    ).toBeDefined();

    // A reinstall under the same name adopts the kept claim.
    const again = await helm([
      'install',
      DATA_RELEASE,
      CHART,
      '--namespace',
      DATA_NS,
      '--set',
      `image.repository=${IMAGE}`,
      '--set',
      'persistence.size=2Gi',
    ]);
    expect(again.stdout).toContain('STATUS: deployed');
    expect(
      (await core.readNamespacedPersistentVolumeClaim({ name: claimName, namespace: DATA_NS })).metadata?.uid,
    ).toBe(claim.metadata?.uid);
  }, 180_000);

  it('bootstraps service accounts from Secrets: the token works, only its hash is stored, a new pod changes nothing', async () => {
    const core = api.admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: GITOPS_NS } } });
    // The GitOps side: a Secret holding a token made offline, and the chart's values naming it.
    const key = newTokenText();
    await core.createNamespacedSecret({
      namespace: GITOPS_NS,
      body: { metadata: { name: 'argocd-graphdb-token' }, stringData: { token: key } },
    });
    const expiresAt = new Date(Date.now() + 90 * 86_400_000).toISOString();
    const declared = [
      {
        name: 'argo-deployer',
        role: 'admin',
        description: 'Deploys from Argo CD',
        tokens: [{ name: 'argocd', secretName: 'argocd-graphdb-token', expiresAt }],
      },
    ];
    const install = await helm([
      'install',
      GITOPS_RELEASE,
      CHART,
      '--namespace',
      GITOPS_NS,
      '--set',
      `image.repository=${IMAGE}`,
      '--set-json',
      `adminServer.bootstrap.serviceAccounts=${JSON.stringify(declared)}`,
    ]);
    expect(install.stdout).toContain('STATUS: deployed');
    const deployment = await api.admin
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ name: GITOPS_FULLNAME, namespace: GITOPS_NS });
    const containerEnv = deployment.spec!.template.spec!.containers[0]!.env!;
    expect(containerEnv).toContainEqual({
      name: 'GRAPHDB_SA_TOKEN_0_0',
      valueFrom: { secretKeyRef: { name: 'argocd-graphdb-token', key: 'token' } },
    });
    expect(JSON.stringify(deployment)).not.toContain(key);

    const env = await containerEnvironment(GITOPS_NS, GITOPS_FULLNAME);
    expect(JSON.parse(env.SERVICE_ACCOUNTS_BOOTSTRAP!)).toEqual([
      {
        name: 'argo-deployer',
        role: 'admin',
        description: 'Deploys from Argo CD',
        tokens: [{ name: 'argocd', tokenVariable: 'GRAPHDB_SA_TOKEN_0_0', expiresAt }],
      },
    ]);
    const release = { namespace: GITOPS_NS, fullname: GITOPS_FULLNAME };
    const volume = await mkdtemp(path.join(os.tmpdir(), 'gdb-gitops-'));
    const servers: ServerProcess[] = [];
    const bootstrapped = (server: ServerProcess) =>
      server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('service accounts bootstrap:'));
    const tokenIdOf = (text: string) => (JSON.parse(text) as { tokens: { id: string }[] }[])[0]!.tokens[0]!.id;
    const stored = async () =>
      Buffer.from(
        (await core.readNamespacedSecret({ name: `${GITOPS_FULLNAME}-serviceaccounts`, namespace: GITOPS_NS })).data![
          'serviceaccounts.json'
        ]!,
        'base64',
      ).toString('utf8');
    try {
      const first = await startAsPod(env, volume, release);
      servers.push(first);
      expect((await bootstrapped(first)).msg).toBe('service accounts bootstrap: 1 created, 0 changed, 0 as declared');
      const listed = await call(first, 'GET', '/api/serviceaccounts/', { token: key });
      expect(listed.status).toBe(200);
      expect(listed.json).toMatchObject({
        serviceAccounts: [
          { name: 'argo-deployer', role: 'admin', createdBy: 'bootstrap (SERVICE_ACCOUNTS_BOOTSTRAP)' },
        ],
      });
      expect((await call(first, 'GET', '/api/serviceaccounts/', { token: newTokenText() })).status).toBe(401);
      const firstStored = await stored();
      expect(firstStored).toContain(tokenHash(key));
      expect(firstStored).not.toContain(key);

      // A new pod (the same Secret, the same declaration) finds everything as declared and writes nothing.
      await stop(first);
      const second = await startAsPod(await containerEnvironment(GITOPS_NS, GITOPS_FULLNAME), volume, release);
      servers.push(second);
      expect((await bootstrapped(second)).msg).toBe('service accounts bootstrap: 0 created, 0 changed, 1 as declared');
      expect((await call(second, 'GET', '/api/serviceaccounts/', { token: key })).status).toBe(200);
      expect(tokenIdOf(await stored())).toBe(tokenIdOf(firstStored));
      for (const server of servers) {
        expect(JSON.stringify(server.lines)).not.toContain(key);
        expect(server.stderr()).not.toContain(key);
      }
    } finally {
      for (const server of servers) await stop(server);
    }
    await helm(['uninstall', GITOPS_RELEASE, '--namespace', GITOPS_NS]);
  }, 180_000);

  it('installs two releases in one namespace without a collision', async () => {
    const ns = 'graphdb-twins';
    const installs = [];
    for (const release of ['blue', 'green'])
      installs.push(
        await helm([
          'install',
          release,
          CHART,
          '--namespace',
          ns,
          '--create-namespace',
          '--set',
          `image.repository=${IMAGE}`,
          '--set',
          'adminServer.bootstrap.rbacConfig.create=true',
          '--set',
          'networkPolicy.enabled=true',
          '--set',
          'adminServer.multiClusterRbac=true',
        ]),
      );
    for (const install of installs) expect(install.stdout).toContain('STATUS: deployed');
    const core = api.admin.makeApiClient(CoreV1Api);
    const names = async (list: Promise<{ items: { metadata?: { name?: string } }[] }>) =>
      (await list).items.map((item) => item.metadata?.name).sort();
    expect(await names(api.admin.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace: ns }))).toEqual([
      'blue-graphdb-admin-server',
      'green-graphdb-admin-server',
    ]);
    expect(await names(core.listNamespacedService({ namespace: ns }))).toEqual([
      'blue-graphdb-admin-server',
      'green-graphdb-admin-server',
    ]);
    expect(await names(core.listNamespacedConfigMap({ namespace: ns }))).toEqual(
      expect.arrayContaining([
        'blue-graphdb-admin-server-rbac',
        'blue-graphdb-admin-server-settings',
        'green-graphdb-admin-server-rbac',
        'green-graphdb-admin-server-settings',
      ]),
    );
    expect(await names(core.listNamespacedPersistentVolumeClaim({ namespace: ns }))).toEqual([
      'blue-graphdb-admin-server-data',
      'green-graphdb-admin-server-data',
    ]);
    // Each release's server is told its own objects, and each Role grants only those.
    for (const release of ['blue', 'green']) {
      const env = await containerEnvironment(ns, `${release}-graphdb-admin-server`);
      expect(env).toMatchObject({
        SETTINGS_CONFIGMAP_NAME: `${release}-graphdb-admin-server-settings`,
        USERS_SECRET_NAME: `${release}-graphdb-admin-server-users`,
      });
      const role = await api.admin
        .makeApiClient(RbacAuthorizationV1Api)
        .readNamespacedRole({ name: `${release}-graphdb-admin-server`, namespace: ns });
      expect(role.rules?.[0]?.resourceNames).toEqual([
        `${release}-graphdb-admin-server-settings`,
        `${release}-graphdb-admin-server-rbac`,
      ]);
    }
    const clusterRoles = await names(api.admin.makeApiClient(RbacAuthorizationV1Api).listClusterRole());
    expect(clusterRoles).toEqual(
      expect.arrayContaining([
        `${ns}-blue-graphdb-admin-server-kubeblocks`,
        `${ns}-green-graphdb-admin-server-kubeblocks`,
      ]),
    );
  });

  it('renders every documented value into the Deployment as the setting it names, and {} security contexts as none', async () => {
    const ns = 'graphdb-values';
    // The sample cluster namespace (adminServer.clusterNamespace) holds the KubeBlocks Role.
    await api.admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'graphs' } } });
    const install = await helm([
      'install',
      'graphdb-admin-server',
      CHART,
      '--namespace',
      ns,
      '--create-namespace',
      '--set',
      `image.repository=${IMAGE}`,
      ...sampleValueArgs(),
      '--set-json',
      'podSecurityContext={}',
    ]);
    expect(install.stdout).toContain('STATUS: deployed');
    const env = await containerEnvironment(ns, 'graphdb-admin-server');
    const named = Object.entries(CHART_SETTINGS).filter(([, p]) => p.kind === 'value');
    expect(named.length).toBeGreaterThan(40);
    for (const [name, chartPath] of named)
      if (chartPath.kind === 'value')
        expect(env[name], `${chartPath.value} → ${name}`).toBe(chartPath.expected ?? chartPath.sample);
    // Every variable the pod gets is one the server reads, and together the server starts with them.
    const known = new Set(Object.keys(EnvSchema.shape));
    for (const name of Object.keys(env)) expect(known.has(name), name).toBe(true);
    expect(() => loadConfig(env)).not.toThrow();

    const pod = (
      await api.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'graphdb-admin-server', namespace: ns })
    ).spec!.template.spec!;
    expect(pod.securityContext ?? {}).toEqual({});
    expect(JSON.stringify(pod)).not.toMatch(/runAsUser|fsGroup/);
  });

  it("follows the chart README's quick start as written: every object, and NOTES saying how to reach the server and where the password is", async () => {
    const readme = await readFile(path.join(CHART, 'README.md'), 'utf8');
    const quickStart = /## Quick start\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(quickStart).toBeDefined();
    const lines = quickStart!.split('\n').filter((line) => line.trim() !== '');
    // podman build/push is scripts/test-image.sh's; kubectl needs a kubelet behind it. Helm's lines run here.
    const install = lines.find((line) => line.startsWith('helm install'))!;
    expect(install).toBeDefined();
    const args = install.split(/\s+/).slice(1);
    const { stdout } = await run(HELM, [...args, '--kubeconfig', api.adminKubeconfigPath], {
      cwd: ROOT,
      env: { ...process.env, HOME: path.dirname(api.adminKubeconfigPath) },
    }).catch(async (error: { stderr?: string }) => {
      // graphdb-system may exist from the first test of this file: the quick start then runs in a fresh one.
      if (!/cannot re-use a name that is still in use/.test(error.stderr ?? '')) throw error;
      await helm(['uninstall', 'graphdb-admin-server', '--namespace', 'graphdb-system']);
      return run(HELM, [...args, '--kubeconfig', api.adminKubeconfigPath], {
        cwd: ROOT,
        env: { ...process.env, HOME: path.dirname(api.adminKubeconfigPath) },
      });
    });
    expect(stdout).toContain('STATUS: deployed');
    // The NOTES print the README's own password and port-forward commands, and the helm test.
    for (const command of lines.filter((line) => /^kubectl .*(get secret|port-forward)/.test(line)))
      expect(stdout, command).toContain(command);
    expect(stdout).toContain('http://localhost:3000/api-docs');
    expect(stdout).toContain('helm test graphdb-admin-server -n graphdb-system');
    expect(stdout).toContain('Data: PersistentVolumeClaim graphdb-admin-server-data');

    const ns = 'graphdb-system';
    const core = api.admin.makeApiClient(CoreV1Api);
    const rbac = api.admin.makeApiClient(RbacAuthorizationV1Api);
    // Every object of the README's "What it creates" that the defaults render.
    await api.admin.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'graphdb-admin-server', namespace: ns });
    await core.readNamespacedPersistentVolumeClaim({ name: 'graphdb-admin-server-data', namespace: ns });
    await core.readNamespacedService({ name: 'graphdb-enterprise-admin-server', namespace: ns });
    await core.readNamespacedConfigMap({ name: 'graphdb-admin-settings', namespace: ns });
    await core.readNamespacedServiceAccount({ name: 'graphdb-admin-server', namespace: ns });
    await rbac.readNamespacedRole({ name: 'graphdb-admin-server', namespace: ns });
    await rbac.readNamespacedRoleBinding({ name: 'graphdb-admin-server', namespace: ns });
    await rbac.readNamespacedRole({ name: 'graphdb-admin-server-kubeblocks', namespace: ns });
    await rbac.readNamespacedRoleBinding({ name: 'graphdb-admin-server-kubeblocks', namespace: ns });
    const secret = await core.readNamespacedSecret({ name: 'graphdb-admin-server', namespace: ns });
    // Where the NOTES say the password is.
    expect(Buffer.from(secret.data!.ADMIN_PASSWORD!, 'base64').toString('utf8')).toMatch(/^[A-Za-z0-9]{24}$/);
  });

  it('warns loudly in the NOTES when persistence is off', async () => {
    const { stdout } = await helm([
      'install',
      'scratch',
      CHART,
      '--namespace',
      'graphdb-scratch',
      '--create-namespace',
      '--set',
      `image.repository=${IMAGE}`,
      '--set',
      'persistence.enabled=false',
    ]);
    expect(stdout).toContain('WARNING: PERSISTENCE IS OFF');
  });

  it("installs the ServiceMonitor and the PrometheusRule past prometheus-operator's own schemas, with the dashboard", async () => {
    if (!MONITORING_CRDS)
      throw new Error(
        'PROMETHEUS_OPERATOR_CRDS_DIR is not set: `npm run test:kube` provides it with scripts/ensure-prometheus-operator-crds.sh',
      );
    const ns = 'graphdb-monitoring';
    const { stdout } = await helm([
      'install',
      'watched',
      CHART,
      '--namespace',
      ns,
      '--create-namespace',
      '--set',
      `image.repository=${IMAGE}`,
      '--set',
      'metrics.serviceMonitor.enabled=true',
      '--set',
      'metrics.prometheusRule.enabled=true',
      '--set',
      'dashboards.enabled=true',
    ]);
    expect(stdout).toContain('STATUS: deployed');
    expect(stdout).toContain('(the ServiceMonitor sends them)');
    const objects = api.admin.makeApiClient(CustomObjectsApi);
    const read = (plural: string) =>
      objects.getNamespacedCustomObject({
        group: 'monitoring.coreos.com',
        version: 'v1',
        namespace: ns,
        plural,
        name: 'watched-graphdb-admin-server',
      }) as Promise<Record<string, unknown>>;
    const monitor = (await read('servicemonitors')) as {
      spec: { endpoints: { basicAuth: { username: { name: string; key: string } } }[] };
    };
    const credentials = monitor.spec.endpoints[0]!.basicAuth.username;
    const secret = await api.admin
      .makeApiClient(CoreV1Api)
      .readNamespacedSecret({ name: credentials.name, namespace: ns });
    expect(Object.keys(secret.data ?? {})).toEqual(expect.arrayContaining(['METRICS_USERNAME', 'METRICS_PASSWORD']));
    const rule = (await read('prometheusrules')) as { spec: { groups: { rules: { alert: string }[] }[] } };
    expect(rule.spec.groups[0]!.rules.map((r) => r.alert)).toHaveLength(9);
    await api.admin
      .makeApiClient(CoreV1Api)
      .readNamespacedConfigMap({ name: 'watched-graphdb-admin-server-dashboard', namespace: ns });

    // The CRD's schema is really in force: a rule with a malformed duration is refused.
    const refused = await objects
      .createNamespacedCustomObject({
        group: 'monitoring.coreos.com',
        version: 'v1',
        namespace: ns,
        plural: 'prometheusrules',
        body: {
          apiVersion: 'monitoring.coreos.com/v1',
          kind: 'PrometheusRule',
          metadata: { name: 'malformed' },
          spec: { groups: [{ name: 'x', rules: [{ alert: 'X', expr: 'up == 0', for: '5 minutes' }] }] },
        },
      })
      .then(
        () => 201,
        (error: { code?: number }) => error.code,
      );
    expect(refused).toBe(422);
  });
});
