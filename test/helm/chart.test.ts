import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseStoredRbac } from '../../src/admin/rbac/rbac-document.js';
import { parseStoredSettings } from '../../src/admin/settings/settings-document.js';
import { parseServiceAccountsBootstrap } from '../../src/lib/service-accounts-bootstrap.js';
import { newTokenText } from '../../src/lib/service-account-tokens.js';
import { EnvSchema, loadConfig } from '../../src/config.js';
import { CHART_SETTINGS, sampleValueArgs } from '../support/chart-settings.js';
import { GrafanaDashboard } from '../support/grafana-dashboard.js';

const run = promisify(execFile);
const CHART = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../helm/graphdb-admin-server');
const HELM = process.env.HELM_BIN ?? '';
const IMAGE = 'registry.corp.example/graphdb-server';

interface Probe {
  httpGet: { path: string; port: string };
}
interface PodSpec {
  terminationGracePeriodSeconds: number;
  securityContext: { runAsNonRoot: boolean };
  containers: {
    ports: unknown[];
    livenessProbe: Probe;
    readinessProbe: Probe;
    securityContext: Record<string, unknown>;
    resources: { limits?: unknown };
    env: { name: string; value?: string }[];
  }[];
}

type Manifest = {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  [key: string]: unknown;
};

async function template(args: string[] = []): Promise<Manifest[]> {
  const { stdout } = await run(HELM, [
    'template',
    'graphdb-admin-server',
    CHART,
    '--namespace',
    'graphdb-system',
    // The image is required (no public registry serves it): every render names one.
    '--set',
    `image.repository=${IMAGE}`,
    ...args,
  ]);
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((doc): doc is Manifest => doc !== null);
}

const find = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  expect(found, `${kind}/${name}`).toBeDefined();
  return found as Manifest & Record<string, never>;
};

beforeAll(() => {
  if (!HELM || !existsSync(HELM))
    throw new Error(
      'helm is not available: npm test builds it with scripts/ensure-helm.sh (needs Go, or root to install it)',
    );
});

describe('the Helm chart', () => {
  it('lints clean', async () => {
    const { stdout } = await run(HELM, ['lint', CHART, '--strict', '--set', `image.repository=${IMAGE}`]);
    expect(stdout).toContain('0 chart(s) failed');
    expect(stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  });

  it('renders the names, namespace, port, probes and settings key the admin API specification and the server expect', async () => {
    const manifests = await template();
    for (const manifest of manifests)
      if (!manifest.kind.startsWith('Cluster'))
        expect(manifest.metadata.namespace, `${manifest.kind}/${manifest.metadata.name}`).toBe('graphdb-system');

    const service = find(manifests, 'Service', 'graphdb-enterprise-admin-server') as unknown as {
      spec: { ports: { port: number }[] };
    };
    expect(service.spec.ports).toEqual([
      { name: 'http', port: 3000, targetPort: 'http' },
      { name: 'metrics', port: 9090, targetPort: 'metrics' },
    ]);

    const deployment = find(manifests, 'Deployment', 'graphdb-admin-server') as unknown as {
      spec: { template: { spec: PodSpec } };
    };
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0]!;
    expect(container.ports).toEqual([
      { name: 'http', containerPort: 3000 },
      { name: 'metrics', containerPort: 9090 },
    ]);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(pod.terminationGracePeriodSeconds).toBe(30);
    expect(container.resources.limits).toBeDefined();

    // Every variable the pod gets is one the server reads.
    const known = new Set(Object.keys(EnvSchema.shape));
    const secret = find(manifests, 'Secret', 'graphdb-admin-server') as unknown as { data: Record<string, string> };
    const names = [...container.env.map((e) => e.name), ...Object.keys(secret.data)];
    for (const name of names) expect(known.has(name), name).toBe(true);
    // And together they are a configuration the server starts with (a default it refuses would crash-loop the pod).
    const pairs: [string, string][] = [
      ...container.env.filter((e) => e.value !== undefined).map((e): [string, string] => [e.name, e.value!]),
      ...Object.entries(secret.data).map(([name, value]): [string, string] => [
        name,
        Buffer.from(value, 'base64').toString(),
      ]),
    ];
    const rendered = Object.fromEntries(pairs);
    expect(() => loadConfig(rendered)).not.toThrow();
    expect(loadConfig(rendered).initialAdmin).toEqual({
      email: 'admin@graphdb.local',
      password: expect.stringMatching(/^\w{24}$/) as unknown,
    });
    expect(Buffer.from(secret.data.ENCRYPTION_KEY!, 'base64').toString()).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(secret.data.AUTH_SECRET!, 'base64').toString().length).toBeGreaterThanOrEqual(32);

    const configMap = find(manifests, 'ConfigMap', 'graphdb-admin-settings') as unknown as {
      data: Record<string, string>;
      metadata: { annotations: Record<string, string> };
    };
    expect(Object.keys(configMap.data)).toEqual(['settings.json']);
    expect(configMap.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    expect(parseStoredSettings(configMap.data['settings.json']!)).toHaveProperty('settings');
  });

  it('grants the pod proxy only while exporterMetrics is on, and tells the server (EXPORTER_METRICS)', async () => {
    for (const [value, granted] of [
      ['true', true],
      ['false', false],
    ] as const) {
      const manifests = await template(['--set', `adminServer.exporterMetrics=${value}`]);
      const role = find(manifests, 'Role', 'graphdb-admin-server-kubeblocks') as unknown as {
        rules: { resources: string[] }[];
      };
      expect(role.rules.some((rule) => rule.resources.includes('pods/proxy'))).toBe(granted);
      const deployment = find(manifests, 'Deployment', 'graphdb-admin-server') as unknown as {
        spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } };
      };
      expect(deployment.spec.template.spec.containers[0]!.env).toContainEqual({
        name: 'EXPORTER_METRICS',
        value: value,
      });
    }
  });

  it('grants Secrets without list or watch, and the settings and RBAC ConfigMaps by name', async () => {
    const manifests = await template(['--set', 'adminServer.multiClusterRbac=true']);
    const roles = manifests.filter((m) => m.kind === 'Role' || m.kind === 'ClusterRole') as unknown as {
      rules: { resources: string[]; verbs: string[]; resourceNames?: string[] }[];
    }[];
    expect(roles.length).toBeGreaterThan(1);
    for (const role of roles) {
      for (const rule of role.rules) {
        if (rule.resources.includes('secrets'))
          expect(rule.verbs.filter((v) => v === 'list' || v === 'watch')).toEqual([]);
        // Get and update only by name; the one unnamed `list` is the KubeBlocks role's, for the rendered
        // configuration of a cluster (GET …/config), asserted below.
        if (rule.resources.includes('configmaps') && !rule.verbs.every((v) => v === 'create' || v === 'list'))
          expect(rule.resourceNames).toEqual(['graphdb-admin-settings', 'graphdb-rbac']);
      }
    }
    const kubeblocks = find(manifests, 'ClusterRole', 'graphdb-admin-server-kubeblocks') as unknown as {
      rules: { resources: string[]; verbs: string[] }[];
    };
    expect(kubeblocks.rules).toEqual([
      {
        apiGroups: ['apps.kubeblocks.io'],
        resources: ['clusters'],
        verbs: ['get', 'list', 'create', 'update', 'delete'],
      },
      {
        apiGroups: ['operations.kubeblocks.io', 'apps.kubeblocks.io'],
        resources: ['opsrequests'],
        verbs: ['get', 'list', 'create', 'patch', 'delete'],
      },
      {
        apiGroups: ['dataprotection.kubeblocks.io'],
        resources: ['backups', 'backuppolicies', 'backupschedules', 'restores'],
        verbs: ['get', 'list', 'create', 'update', 'delete'],
      },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods/proxy'], verbs: ['get'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    ]);
    // Backup repositories are cluster-scoped, managed only with multiClusterRbac.
    expect(find(manifests, 'ClusterRole', 'graphdb-admin-server-backup-repos')).toMatchObject({
      rules: [
        {
          apiGroups: ['dataprotection.kubeblocks.io'],
          resources: ['backuprepos'],
          verbs: ['get', 'list', 'create', 'update', 'delete'],
        },
      ],
    });
    // The system routes' cluster-scoped reads, list only, and only with multiClusterRbac.
    const clusterReads = find(manifests, 'ClusterRole', 'graphdb-admin-server-cluster-reads') as unknown as {
      rules: unknown[];
    };
    expect(clusterReads.rules).toEqual([
      { apiGroups: [''], resources: ['namespaces'], verbs: ['list'] },
      { apiGroups: ['storage.k8s.io'], resources: ['storageclasses'], verbs: ['list'] },
      { apiGroups: ['apps.kubeblocks.io'], resources: ['componentversions'], verbs: ['list'] },
    ]);
    expect(find(manifests, 'ClusterRoleBinding', 'graphdb-admin-server-cluster-reads')).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'graphdb-admin-server-cluster-reads' },
      subjects: [{ kind: 'ServiceAccount', name: 'graphdb-admin-server', namespace: 'graphdb-system' }],
    });
    const single = await template();
    expect(single.filter((m) => m.metadata.name === 'graphdb-admin-server-cluster-reads')).toEqual([]);
    expect(single.some((m) => m.kind === 'ClusterRole' || m.kind === 'ClusterRoleBinding')).toBe(false);
  });

  it('seeds the RBAC ConfigMap only when asked, with a document the server reads, and refuses invalid roles', async () => {
    expect((await template()).some((m) => m.kind === 'ConfigMap' && m.metadata.name === 'graphdb-rbac')).toBe(false);
    const roles = [
      { name: 'team-a-reader', rules: [{ resource: 'clusters', actions: ['list', 'get'], namespace: 'team-a' }] },
    ];
    const groupMappings = [{ groupEmail: 'ops@corp.example', roleName: 'team-a-reader', priority: 10 }];
    const seeded = (extra: string[] = []) =>
      template([
        '--set',
        'adminServer.bootstrap.rbacConfig.create=true',
        '--set-json',
        `adminServer.bootstrap.rbacConfig.roles=${JSON.stringify(roles)}`,
        '--set-json',
        `adminServer.bootstrap.rbacConfig.groupMappings=${JSON.stringify(groupMappings)}`,
        ...extra,
      ]);
    const configMap = find(await seeded(), 'ConfigMap', 'graphdb-rbac') as unknown as {
      data: Record<string, string>;
      metadata: { annotations: Record<string, string> };
    };
    expect(Object.keys(configMap.data)).toEqual(['rbac.json']);
    expect(configMap.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    expect(parseStoredRbac(configMap.data['rbac.json']!)).toEqual({ config: { roles, groupMappings }, ignored: [] });
    // An empty seed is a valid document too.
    const empty = find(
      await template(['--set', 'adminServer.bootstrap.rbacConfig.create=true']),
      'ConfigMap',
      'graphdb-rbac',
    );
    expect(parseStoredRbac((empty as unknown as { data: Record<string, string> }).data['rbac.json']!)).toEqual({
      config: { roles: [], groupMappings: [] },
      ignored: [],
    });

    const refused = async (args: string[]) =>
      template(args).then(
        () => 'rendered',
        (error: { stderr?: string }) => error.stderr ?? 'failed',
      );
    for (const role of [
      { name: 'admin', rules: [] },
      { name: 'x', rules: [{ resource: 'graphs', actions: ['get'] }] },
      { name: 'x', rules: [{ resource: 'clusters', actions: ['drop'] }] },
      { name: 'x', rules: [], extra: true },
    ])
      expect(
        await refused(['--set-json', `adminServer.bootstrap.rbacConfig.roles=${JSON.stringify([role])}`]),
        JSON.stringify(role),
      ).toMatch(/rbacConfig/);
    expect(
      await refused([
        '--set-json',
        'adminServer.bootstrap.rbacConfig.groupMappings=[{"groupEmail":"ops@corp.example","roleName":"x","priority":1.5}]',
      ]),
    ).toMatch(/priority/);
  });

  it('renders with every optional feature on, mapping the specified value names to the server variables', async () => {
    const manifests = await template([
      '--set',
      'ingress.enabled=true',
      '--set',
      'gatewayRoute.enabled=true',
      '--set',
      'gatewayRoute.parentRefs[0].name=gw',
      '--set',
      'adminServer.tokenStoreUrl=redis://falkordb:6379',
      '--set',
      'adminServer.secret.betaClientId=beta-id',
      '--set',
      'adminServer.secret.betaClientSecret=beta-secret',
      '--set',
      'adminServer.env.oauthProvider=beta',
      '--set',
      'adminServer.env.betaTenantId=tenant',
      '--set',
      'adminServer.env.betaRedirectUri=https://admin.example.com/api/auth/oauth/beta/callback',
      '--set',
      'adminServer.secret.alphaClientId=alpha-id',
      '--set',
      'adminServer.secret.alphaClientSecret=alpha-secret',
      '--set',
      'adminServer.env.alphaRedirectUri=https://admin.example.com/api/auth/oauth/alpha/callback',
      '--set',
      'adminServer.env.corsOrigins=https://console.example',
      '--set',
      'adminServer.initialAdmin.email=root@example.com',
      '--set',
      'adminServer.initialAdmin.password=change-me-now',
      '--set',
      'adminServer.enableDocsUi=false',
      '--set',
      'persistence.existingClaim=graphdb-data',
    ]);
    const secret = find(manifests, 'Secret', 'graphdb-admin-server') as unknown as { data: Record<string, string> };
    const decoded = Object.fromEntries(
      Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    );
    expect(decoded).toMatchObject({
      BETA_CLIENT_ID: 'beta-id',
      BETA_CLIENT_SECRET: 'beta-secret',
      ALPHA_CLIENT_ID: 'alpha-id',
      ALPHA_CLIENT_SECRET: 'alpha-secret',
      TOKEN_STORE_URL: 'redis://falkordb:6379',
      ADMIN_PASSWORD: 'change-me-now',
    });
    const deployment = find(manifests, 'Deployment', 'graphdb-admin-server') as unknown as {
      spec: { template: { spec: { containers: { env: { name: string; value?: string }[] }[]; volumes: unknown[] } } };
    };
    const env = Object.fromEntries(deployment.spec.template.spec.containers[0]!.env.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      OAUTH_PROVIDER: 'beta',
      BETA_TENANT_ID: 'tenant',
      CORS_ORIGINS: 'https://console.example',
      ENABLE_DOCSUI: 'false',
      ADMIN_EMAIL: 'root@example.com',
    });
    expect(deployment.spec.template.spec.volumes).toContainEqual({
      name: 'data',
      persistentVolumeClaim: { claimName: 'graphdb-data' },
    });
    const ingress = find(manifests, 'Ingress', 'graphdb-admin-server') as unknown as {
      spec: {
        rules: {
          http: { paths: { path: string; backend: { service: { name: string; port: { number: number } } } }[] };
        }[];
      };
    };
    expect(ingress.spec.rules[0]!.http.paths[0]).toMatchObject({
      path: '/api',
      backend: { service: { name: 'graphdb-enterprise-admin-server', port: { number: 3000 } } },
    });
    // The OpenAPI document and the docs UI are routed too (a /api prefix matches whole segments only).
    expect(
      ingress.spec.rules[0]!.http.paths.map((entry) => [entry.path, (entry as { pathType?: string }).pathType]),
    ).toEqual([
      ['/api', 'Prefix'],
      ['/api-spec.json', 'Exact'],
      ['/api-docs', 'Prefix'],
    ]);
    const route = find(manifests, 'HTTPRoute', 'graphdb-admin-server') as unknown as {
      spec: { rules: { matches: { path: { type: string; value: string } }[] }[] };
    };
    expect(route.spec.rules[0]!.matches.map((match) => match.path.value)).toEqual([
      '/api',
      '/api-spec.json',
      '/api-docs',
    ]);
    // With an external token store several replicas may run side by side.
    expect((deployment as unknown as { spec: { strategy: { type: string } } }).spec.strategy.type).toBe(
      'RollingUpdate',
    );
  });

  it('runs embedded mode as one pod at a time, and its schema refuses what would break it', async () => {
    const deployment = find(await template(), 'Deployment', 'graphdb-admin-server') as unknown as {
      spec: { replicas: number; strategy: { type: string } };
    };
    expect(deployment.spec).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' } });
    const refused = async (args: string[]) => {
      const failure = await template(args).then(
        () => undefined,
        (error: { stderr?: string; message?: string }) => error.stderr ?? error.message ?? 'failed',
      );
      expect(failure, args.join(' ')).toBeDefined();
      return failure!;
    };
    // The schema's message names what to set.
    expect(await refused(['--set', 'replicaCount=2'])).toMatch(
      /adminServer\.tokenStoreUrl: String length must be greater than or equal to 1/,
    );
    expect(await refused(['--set', 'adminServer.terminationGracePeriodSeconds=5'])).toMatch(
      /terminationGracePeriodSeconds: Must be greater than or equal to 10/,
    );
    expect(await refused(['--set', 'adminServer.tokenStoreUrll=redis://x:6379'])).toMatch(
      /Additional property tokenStoreUrll is not allowed/,
    );
    expect(await refused(['--set', 'replicas=3'])).toMatch(/Additional property replicas is not allowed/);
    expect(await refused(['--set-string', 'service.port=3000'])).toMatch(/service\.port: Invalid type/);
    expect(await refused(['--set', 'metrics.port=70000'])).toMatch(
      /metrics\.port: Must be less than or equal to 65535/,
    );
    expect(await refused(['--set', 'adminServer.tokenStoreUrl=http://x'])).toMatch(/tokenStoreUrl/);
    // The same values with an external token store are fine.
    expect(
      (await template(['--set', 'replicaCount=3', '--set', 'adminServer.tokenStoreUrl=redis://falkordb:6379'])).length,
    ).toBeGreaterThan(0);
    const lint = await run(HELM, [
      'lint',
      CHART,
      '--strict',
      '--set',
      `image.repository=${IMAGE}`,
      '--set',
      'replicaCount=2',
    ]).then(
      () => 'passed',
      (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
    );
    expect(lint).toContain('1 chart(s) failed');
  });

  it('keeps the first admin password in a Secret, or takes every secret from existingSecret without rendering random ones', async () => {
    const generated = find(await template(), 'Secret', 'graphdb-admin-server') as unknown as {
      data: Record<string, string>;
    };
    expect(Object.keys(generated.data).sort()).toEqual([
      'ADMIN_PASSWORD',
      'AUTH_SECRET',
      'ENCRYPTION_KEY',
      'METRICS_PASSWORD',
      'METRICS_USERNAME',
      'SESSION_SECRET',
    ]);
    expect(Buffer.from(generated.data.ADMIN_PASSWORD!, 'base64').toString()).toMatch(/^[A-Za-z0-9]{24}$/);

    // GitOps: two renders are identical, and the pod reads the managed Secret.
    const args = ['--set', 'adminServer.existingSecret=graphdb-managed'];
    const [first, second] = await Promise.all([template(args), template(args)]);
    expect(JSON.stringify(first)).toBe(JSON.stringify(second));
    const secret = find(first, 'Secret', 'graphdb-admin-server') as unknown as { data?: Record<string, string> };
    // Only the metrics username, which is not random; its password comes from the managed Secret.
    expect(Object.keys(secret.data ?? {})).toEqual(['METRICS_USERNAME']);
    const deployment = find(first, 'Deployment', 'graphdb-admin-server') as unknown as {
      spec: { template: { spec: { containers: { envFrom: unknown[] }[] } } };
    };
    expect(deployment.spec.template.spec.containers[0]!.envFrom).toEqual([
      { secretRef: { name: 'graphdb-admin-server' } },
      { secretRef: { name: 'graphdb-managed' } },
    ]);
  });

  it('renders the operator options: labels, image, scheduling, metrics objects, PDB and NetworkPolicy', async () => {
    const manifests = await template([
      '--set',
      'image.repository=registry.example.com/graphdb-server',
      '--set',
      'imagePullSecrets[0].name=regcred',
      '--set',
      'nodeSelector.pool=system',
      '--set',
      'tolerations[0].key=dedicated',
      '--set',
      'tolerations[0].operator=Exists',
      '--set',
      'podAnnotations.team=graphs',
      '--set',
      'serviceAccount.annotations.iam=role-x',
      '--set',
      'metrics.serviceMonitor.enabled=true',
      '--set',
      'podDisruptionBudget.enabled=true',
      '--set',
      'networkPolicy.enabled=true',
    ]);
    const deployment = find(manifests, 'Deployment', 'graphdb-admin-server') as unknown as {
      metadata: { labels: Record<string, string> };
      spec: {
        template: {
          metadata: { annotations: Record<string, string> };
          spec: {
            imagePullSecrets: unknown;
            nodeSelector: unknown;
            tolerations: unknown;
            containers: { image: string }[];
          };
        };
      };
    };
    expect(deployment.metadata.labels).toMatchObject({
      'app.kubernetes.io/version': '0.1.0',
      'app.kubernetes.io/component': 'admin-server',
      'app.kubernetes.io/part-of': 'graphdb',
    });
    const pod = deployment.spec.template.spec;
    // The tag defaults to the chart's appVersion.
    expect(pod.containers[0]!.image).toBe('registry.example.com/graphdb-server:0.1.0');
    expect(pod).toMatchObject({
      imagePullSecrets: [{ name: 'regcred' }],
      nodeSelector: { pool: 'system' },
      tolerations: [{ key: 'dedicated', operator: 'Exists' }],
    });
    expect(deployment.spec.template.metadata.annotations).toMatchObject({ team: 'graphs' });
    expect(
      (find(manifests, 'ServiceAccount', 'graphdb-admin-server') as unknown as { metadata: { annotations: unknown } })
        .metadata.annotations,
    ).toEqual({ iam: 'role-x' });
    expect(find(manifests, 'ServiceMonitor', 'graphdb-admin-server')).toMatchObject({
      spec: { endpoints: [{ port: 'metrics', path: '/metrics' }] },
    });
    expect(find(manifests, 'PodDisruptionBudget', 'graphdb-admin-server')).toMatchObject({
      spec: { maxUnavailable: 1 },
    });
    const policy = find(manifests, 'NetworkPolicy', 'graphdb-admin-server') as unknown as {
      spec: { ingress: { ports: { port: string }[] }[]; egress: unknown[] };
    };
    expect(policy.spec.ingress.map((rule) => rule.ports[0]!.port)).toEqual(['http', 'metrics']);
    expect(policy.spec.egress.length).toBeGreaterThan(1);
    // Off by default.
    const plain = await template();
    for (const kind of ['ServiceMonitor', 'PodDisruptionBudget', 'NetworkPolicy', 'Ingress', 'HTTPRoute'])
      expect(
        plain.some((m) => m.kind === kind),
        kind,
      ).toBe(false);
  });
});

interface Container {
  env: { name: string; value?: string; valueFrom?: unknown }[];
  envFrom?: unknown[];
  volumeMounts: { name: string; mountPath: string }[];
  securityContext?: Record<string, unknown>;
  lifecycle?: unknown;
}
interface Deployment {
  metadata: { name: string };
  spec: {
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: {
        securityContext?: Record<string, unknown>;
        containers: Container[];
        volumes: { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: unknown }[];
        priorityClassName?: string;
        topologySpreadConstraints?: unknown[];
      };
    };
  };
}

const deploymentOf = (manifests: Manifest[]) => manifests.find((m) => m.kind === 'Deployment') as unknown as Deployment;
const envOf = (manifests: Manifest[]) =>
  Object.fromEntries(deploymentOf(manifests).spec.template.spec.containers[0]!.env.map((e) => [e.name, e.value]));
const secretOf = (manifests: Manifest[]) => {
  const secret = manifests.find((m) => m.kind === 'Secret') as unknown as { data?: Record<string, string> };
  return Object.fromEntries(
    Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
};
const refusal = (args: string[]) =>
  template(args).then(
    () => 'rendered',
    (error: { stderr?: string }) => error.stderr ?? 'failed',
  );

describe('the Helm chart: every setting, several releases, persistence', () => {
  it('declares service accounts for the server to make at start-up, each token read from its Secret', async () => {
    expect(envOf(await template())).not.toHaveProperty('SERVICE_ACCOUNTS_BOOTSTRAP');
    const declared = [
      {
        name: 'argo-deployer',
        role: 'operator',
        description: 'Deploys from Argo CD',
        tokens: [
          { name: 'argocd', secretName: 'argocd-token', expiresAt: '2027-01-01T00:00:00Z' },
          {
            name: 'next',
            secretName: 'argocd-token-next',
            secretKey: 'value',
            expiresAt: '2027-06-01T00:00:00Z',
            allowedCidrs: ['10.0.0.0/8'],
          },
        ],
      },
      { name: 'argo-reader', role: 'viewer', disabled: true },
    ];
    const manifests = await template([
      '--set-json',
      `adminServer.bootstrap.serviceAccounts=${JSON.stringify(declared)}`,
    ]);
    const env = deploymentOf(manifests).spec.template.spec.containers[0]!.env;
    expect(env.filter((e) => e.name.startsWith('GRAPHDB_SA_TOKEN_'))).toEqual([
      { name: 'GRAPHDB_SA_TOKEN_0_0', valueFrom: { secretKeyRef: { name: 'argocd-token', key: 'token' } } },
      { name: 'GRAPHDB_SA_TOKEN_0_1', valueFrom: { secretKeyRef: { name: 'argocd-token-next', key: 'value' } } },
    ]);
    // What the server reads, with the two variables as the kubelet fills them.
    const [first, second] = [newTokenText(), newTokenText()];
    expect(
      parseServiceAccountsBootstrap(envOf(manifests).SERVICE_ACCOUNTS_BOOTSTRAP, {
        GRAPHDB_SA_TOKEN_0_0: first,
        GRAPHDB_SA_TOKEN_0_1: second,
      }),
    ).toEqual([
      {
        name: 'argo-deployer',
        role: 'operator',
        description: 'Deploys from Argo CD',
        tokens: [
          { name: 'argocd', text: first, expiresAt: '2027-01-01T00:00:00.000Z' },
          { name: 'next', text: second, expiresAt: '2027-06-01T00:00:00.000Z', allowedCidrs: ['10.0.0.0/8'] },
        ],
      },
      { name: 'argo-reader', role: 'viewer', disabled: true, tokens: [] },
    ]);

    const bootstrap = (accounts: unknown) => [
      '--set-json',
      `adminServer.bootstrap.serviceAccounts=${JSON.stringify(accounts)}`,
    ];
    expect(
      await refusal(
        bootstrap([{ name: 'x', role: 'viewer', tokens: [{ name: 't', expiresAt: '2027-01-01T00:00:00Z' }] }]),
      ),
    ).toMatch(/secretName/);
    expect(await refusal(bootstrap([{ name: 'Bad_Name', role: 'viewer' }]))).toMatch(/serviceAccounts/);
    expect(
      await refusal(
        bootstrap([{ name: 'x', role: 'viewer', tokens: [{ name: 't', secretName: 's', expiresAt: 'next year' }] }]),
      ),
    ).toMatch(/expiresAt/);
    expect(await refusal(['--set-json', 'extraEnv=[{"name":"GRAPHDB_SA_TOKEN_0_0","value":"gdbsa_x"}]'])).toMatch(
      /GRAPHDB_SA_TOKEN_0_0 is set by the chart/,
    );
  });

  it('reaches every setting of src/config.ts: by a named value, by the chart, or through extraEnv', async () => {
    // A setting added to the server without a row in CHART_SETTINGS (and a chart path) fails here.
    expect(Object.keys(CHART_SETTINGS).sort()).toEqual(Object.keys(EnvSchema.shape).sort());

    const manifests = await template(sampleValueArgs());
    const env = envOf(manifests);
    const secret = secretOf(manifests);
    const values = await readFile(path.join(CHART, 'values.yaml'), 'utf8');
    const schema = JSON.parse(await readFile(path.join(CHART, 'values.schema.json'), 'utf8')) as {
      properties: Record<string, unknown>;
    };
    for (const [name, chartPath] of Object.entries(CHART_SETTINGS)) {
      if (chartPath.kind !== 'value') continue;
      const rendered = chartPath.secret ? secret[name] : env[name];
      expect(rendered, `${chartPath.value} → ${name}`).toBe(chartPath.expected ?? chartPath.sample);
      // Documented in values.yaml (a `# --` comment right above the key) and declared in the schema.
      const key = chartPath.value.split('.').at(-1)!;
      expect(values, `${chartPath.value} documented`).toMatch(
        new RegExp(`# -- [^\\n]*\\n(\\s*#[^\\n]*\\n)*\\s*${key}:`),
      );
      let node: unknown = schema;
      for (const part of chartPath.value.split('.'))
        node = (node as { properties?: Record<string, unknown> }).properties?.[part];
      expect(node, `${chartPath.value} in the schema`).toBeDefined();
    }
    // All of them together are a configuration the server starts with.
    const all = Object.fromEntries(
      Object.entries({ ...env, ...secret }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    expect(() => loadConfig(all)).not.toThrow();

    // The rest through extraEnv, and a name the chart sets itself is refused there.
    const extra = Object.entries(CHART_SETTINGS)
      .filter(([, p]) => p.kind === 'extraEnv')
      .map(([name]) => ({ name, value: '/opt/x' }));
    const withExtra = envOf(await template(['--set-json', `extraEnv=${JSON.stringify(extra)}`]));
    for (const { name } of extra) expect(withExtra[name], name).toBe('/opt/x');
    expect(await refusal(['--set-json', 'extraEnv=[{"name":"DATA_DIR","value":"/x"}]'])).toMatch(
      /extraEnv: DATA_DIR is set by the chart/,
    );
    expect(await refusal(['--set', 'adminServer.config.queryRowsMax=lots'])).toMatch(/queryRowsMax/);
    expect(await refusal(['--set', 'adminServer.config.queryRowMax=5'])).toMatch(
      /Additional property queryRowMax is not allowed/,
    );
  });

  it('derives every name from the release, so two releases share a namespace; graphdb-admin-server keeps the old names', async () => {
    const render = (release: string, args: string[] = []) =>
      run(HELM, [
        'template',
        release,
        CHART,
        '--namespace',
        'shared',
        '--set',
        `image.repository=${IMAGE}`,
        '--set',
        'adminServer.multiClusterRbac=true',
        '--set',
        'adminServer.bootstrap.rbacConfig.create=true',
        '--set',
        'metrics.serviceMonitor.enabled=true',
        '--set',
        'networkPolicy.enabled=true',
        '--set',
        'podDisruptionBudget.enabled=true',
        ...args,
      ]).then(({ stdout }) =>
        parseAllDocuments(stdout)
          .map((doc) => doc.toJS() as Manifest | null)
          .filter((doc): doc is Manifest => doc !== null),
      );
    const [alpha, beta] = await Promise.all([render('alpha'), render('beta')]);
    const ids = (manifests: Manifest[]) => manifests.map((m) => `${m.kind}/${m.metadata.name}`);
    expect(ids(alpha).filter((id) => ids(beta).includes(id))).toEqual([]);
    const env = envOf(alpha);
    expect(env).toMatchObject({
      SETTINGS_CONFIGMAP_NAME: 'alpha-graphdb-admin-server-settings',
      RBAC_CONFIGMAP_NAME: 'alpha-graphdb-admin-server-rbac',
      USERS_SECRET_NAME: 'alpha-graphdb-admin-server-users',
    });
    // The Role grants exactly those, and the binding names the release's ServiceAccount.
    const role = alpha.find(
      (m) => m.kind === 'Role' && m.metadata.name === 'alpha-graphdb-admin-server',
    ) as unknown as {
      rules: { resources: string[]; resourceNames?: string[] }[];
    };
    expect(role.rules[0]!.resourceNames).toEqual([
      'alpha-graphdb-admin-server-settings',
      'alpha-graphdb-admin-server-rbac',
    ]);
    expect(alpha.map((m) => m.metadata.name)).toContain('alpha-graphdb-admin-server-settings');
    expect(alpha.map((m) => m.metadata.name)).toContain('alpha-graphdb-admin-server-rbac');
    for (const binding of alpha.filter((m) => m.kind.endsWith('Binding')) as unknown as {
      subjects: { name: string }[];
    }[])
      expect(binding.subjects).toEqual([expect.objectContaining({ name: 'alpha-graphdb-admin-server' })]);
    // Cluster-scoped names carry the namespace too.
    expect(alpha.filter((m) => m.kind === 'ClusterRole').map((m) => m.metadata.name)).toEqual(
      expect.arrayContaining(['shared-alpha-graphdb-admin-server-kubeblocks']),
    );
    const service = alpha.find((m) => m.kind === 'Service')!;
    expect(service.metadata.name).toBe('alpha-graphdb-admin-server');

    // fullnameOverride and nameOverride.
    const named = await render('gamma', ['--set', 'fullnameOverride=graphs-admin', '--set', 'nameOverride=graphs']);
    expect(deploymentOf(named).metadata.name).toBe('graphs-admin');
    expect(deploymentOf(named).spec.template.metadata.labels['app.kubernetes.io/name']).toBe('graphs');
    expect(envOf(named).USERS_SECRET_NAME).toBe('graphs-admin-users');

    // The release the README installs keeps every historical name (upgrades find their data).
    const legacy = await template();
    expect(envOf(legacy)).toMatchObject({
      SETTINGS_CONFIGMAP_NAME: 'graphdb-admin-settings',
      RBAC_CONFIGMAP_NAME: 'graphdb-rbac',
      USERS_SECRET_NAME: 'graphdb-admin-users',
    });
    expect(legacy.find((m) => m.kind === 'Service')!.metadata.name).toBe('graphdb-enterprise-admin-server');
  });

  it('keeps embedded data on a claim by default, kept on uninstall; an emptyDir only when asked or with an external store', async () => {
    const claimOf = (manifests: Manifest[]) =>
      manifests.find((m) => m.kind === 'PersistentVolumeClaim') as unknown as
        { metadata: { name: string; annotations?: Record<string, string> }; spec: Record<string, unknown> } | undefined;
    const dataVolume = (manifests: Manifest[]) =>
      deploymentOf(manifests).spec.template.spec.volumes.find((v) => v.name === 'data');

    const defaults = await template();
    expect(claimOf(defaults)).toMatchObject({
      metadata: { name: 'graphdb-admin-server-data', annotations: { 'helm.sh/resource-policy': 'keep' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '8Gi' } } },
    });
    expect(claimOf(defaults)!.spec.storageClassName).toBeUndefined();
    expect(dataVolume(defaults)).toEqual({
      name: 'data',
      persistentVolumeClaim: { claimName: 'graphdb-admin-server-data' },
    });
    expect(deploymentOf(defaults).spec.template.spec.containers[0]!.volumeMounts).toContainEqual({
      name: 'data',
      mountPath: '/data',
    });

    const tuned = claimOf(
      await template([
        '--set',
        'persistence.storageClass=fast',
        '--set',
        'persistence.size=20Gi',
        '--set',
        'persistence.accessModes[0]=ReadWriteOncePod',
        '--set',
        'persistence.annotations.backup=daily',
        '--set',
        'persistence.keepOnUninstall=false',
      ]),
    )!;
    expect(tuned).toMatchObject({
      metadata: { annotations: { backup: 'daily' } },
      spec: {
        storageClassName: 'fast',
        accessModes: ['ReadWriteOncePod'],
        resources: { requests: { storage: '20Gi' } },
      },
    });
    expect(tuned.metadata.annotations!['helm.sh/resource-policy']).toBeUndefined();
    expect(claimOf(await template(['--set', 'persistence.storageClass=-']))!.spec.storageClassName).toBe('');

    const existing = await template(['--set', 'persistence.existingClaim=mine']);
    expect(claimOf(existing)).toBeUndefined();
    expect(dataVolume(existing)).toEqual({ name: 'data', persistentVolumeClaim: { claimName: 'mine' } });

    const off = await template(['--set', 'persistence.enabled=false']);
    expect(claimOf(off)).toBeUndefined();
    expect(dataVolume(off)).toEqual({ name: 'data', emptyDir: { sizeLimit: '1Gi' } });
    const external = await template([
      '--set',
      'adminServer.tokenStoreUrl=redis://falkordb:6379',
      '--set',
      'replicaCount=2',
    ]);
    expect(claimOf(external)).toBeUndefined();
    expect(await refusal(['--set', 'persistence.size=big'])).toMatch(/persistence\.size/);
  });

  it('takes the security contexts from values: {} renders no fixed UID (OpenShift), unset keeps uid 1000', async () => {
    const defaults = deploymentOf(await template()).spec.template.spec;
    expect(defaults.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    expect(defaults.containers[0]!.securityContext).toMatchObject({ readOnlyRootFilesystem: true });

    const openshift = deploymentOf(
      await template([
        '--set-json',
        'podSecurityContext={}',
        '--set-json',
        'containerSecurityContext={"allowPrivilegeEscalation":false}',
      ]),
    ).spec.template.spec;
    expect(JSON.stringify(openshift)).not.toMatch(/runAsUser|runAsGroup|fsGroup/);
    expect(openshift.securityContext).toBeUndefined();
    expect(openshift.containers[0]!.securityContext).toEqual({ allowPrivilegeEscalation: false });
  });

  it('renders the operator options: service, ingress, pod metadata, scheduling, lifecycle, extra env and volumes', async () => {
    const manifests = await template([
      '--set',
      'service.type=LoadBalancer',
      '--set',
      'service.annotations.lb=internal',
      '--set',
      'service.loadBalancerSourceRanges[0]=10.0.0.0/8',
      '--set',
      'ingress.enabled=true',
      '--set',
      'ingress.className=nginx',
      '--set',
      'ingress.annotations.cert-manager\\.io/cluster-issuer=letsencrypt',
      '--set-json',
      'ingress.tls=[{"secretName":"admin-tls","hosts":["admin.example.com"]}]',
      '--set',
      'podLabels.team=graphs',
      '--set',
      'podAnnotations.scrape=yes',
      '--set',
      'priorityClassName=system-cluster-critical',
      '--set-json',
      'topologySpreadConstraints=[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"ScheduleAnyway"}]',
      '--set-json',
      'lifecycle={"preStop":{"sleep":{"seconds":5}}}',
      '--set-json',
      'extraEnvFrom=[{"secretRef":{"name":"more-settings"}}]',
      '--set-json',
      'extraVolumes=[{"name":"ca","configMap":{"name":"corp-ca"}}]',
      '--set-json',
      'extraVolumeMounts=[{"name":"ca","mountPath":"/etc/corp-ca","readOnly":true}]',
    ]);
    expect(find(manifests, 'Service', 'graphdb-enterprise-admin-server')).toMatchObject({
      metadata: { annotations: { lb: 'internal' } },
      spec: { type: 'LoadBalancer', loadBalancerSourceRanges: ['10.0.0.0/8'] },
    });
    expect(find(manifests, 'Ingress', 'graphdb-admin-server')).toMatchObject({
      metadata: { annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' } },
      spec: { ingressClassName: 'nginx', tls: [{ secretName: 'admin-tls', hosts: ['admin.example.com'] }] },
    });
    const deployment = deploymentOf(manifests);
    const pod = deployment.spec.template;
    expect(pod.metadata.labels).toMatchObject({ team: 'graphs', 'app.kubernetes.io/instance': 'graphdb-admin-server' });
    expect(pod.metadata.annotations).toMatchObject({ scrape: 'yes' });
    expect(pod.spec.priorityClassName).toBe('system-cluster-critical');
    expect(pod.spec.topologySpreadConstraints).toEqual([
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: {
          matchLabels: {
            'app.kubernetes.io/name': 'graphdb-admin-server',
            'app.kubernetes.io/instance': 'graphdb-admin-server',
          },
        },
      },
    ]);
    const container = pod.spec.containers[0]!;
    expect(container.lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
    expect(container.envFrom).toContainEqual({ secretRef: { name: 'more-settings' } });
    expect(container.volumeMounts).toContainEqual({ name: 'ca', mountPath: '/etc/corp-ca', readOnly: true });
    expect(pod.spec.volumes).toContainEqual({ name: 'ca', configMap: { name: 'corp-ca' } });
    expect(await refusal(['--set', 'service.type=External'])).toMatch(/service\.type/);
  });

  it('fails early, saying what to do, when no image is named', async () => {
    const failure = await run(HELM, ['template', 'graphdb-admin-server', CHART]).then(
      () => 'rendered',
      (error: { stderr: string }) => error.stderr,
    );
    expect(failure).toMatch(/image\.repository is required: build the image from this repository's Dockerfile/);
  });

  it('protects the metrics exporter by default, and the ServiceMonitor and NetworkPolicy follow', async () => {
    const manifests = await template([
      '--set',
      'metrics.serviceMonitor.enabled=true',
      '--set',
      'networkPolicy.enabled=true',
    ]);
    const secret = secretOf(manifests);
    expect(secret.METRICS_USERNAME).toBe('prometheus');
    expect(secret.METRICS_PASSWORD).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(() => loadConfig({ ...secret })).not.toThrow();
    expect(loadConfig({ ...secret }).metricsBasicAuth).toEqual({
      username: 'prometheus',
      password: secret.METRICS_PASSWORD,
    });
    expect(find(manifests, 'ServiceMonitor', 'graphdb-admin-server')).toMatchObject({
      spec: {
        endpoints: [
          {
            port: 'metrics',
            basicAuth: {
              username: { name: 'graphdb-admin-server', key: 'METRICS_USERNAME' },
              password: { name: 'graphdb-admin-server', key: 'METRICS_PASSWORD' },
            },
          },
        ],
      },
    });
    // The NetworkPolicy's egress reaches Sentinel and the cluster bus too.
    const policy = find(manifests, 'NetworkPolicy', 'graphdb-admin-server') as unknown as {
      spec: { egress: { ports: { port: number }[] }[] };
    };
    expect(policy.spec.egress.flatMap((rule) => rule.ports.map((p) => p.port))).toEqual(
      expect.arrayContaining([53, 443, 6443, 6379, 26379, 16379]),
    );

    // With existingSecret the password comes from there; with auth off nothing is sent or set.
    const managed = await template([
      '--set',
      'adminServer.existingSecret=managed',
      '--set',
      'metrics.serviceMonitor.enabled=true',
    ]);
    expect(find(managed, 'ServiceMonitor', 'graphdb-admin-server')).toMatchObject({
      spec: { endpoints: [{ basicAuth: { password: { name: 'managed', key: 'METRICS_PASSWORD' } } }] },
    });
    const open = await template([
      '--set',
      'metrics.auth.enabled=false',
      '--set',
      'metrics.serviceMonitor.enabled=true',
    ]);
    expect(secretOf(open).METRICS_USERNAME).toBeUndefined();
    expect(JSON.stringify(find(open, 'ServiceMonitor', 'graphdb-admin-server'))).not.toContain('basicAuth');
  });

  it('ships a Grafana dashboard ConfigMap, the alerts and a helm test pod', async () => {
    const manifests = await template([
      '--set',
      'dashboards.enabled=true',
      '--set',
      'metrics.prometheusRule.enabled=true',
    ]);
    const dashboard = find(manifests, 'ConfigMap', 'graphdb-admin-server-dashboard') as unknown as {
      metadata: { labels: Record<string, string> };
      data: Record<string, string>;
    };
    expect(dashboard.metadata.labels.grafana_dashboard).toBe('1');
    expect(GrafanaDashboard.safeParse(JSON.parse(dashboard.data['graphdb-server.json']!)).error).toBeUndefined();

    const rule = find(manifests, 'PrometheusRule', 'graphdb-admin-server') as unknown as {
      spec: { groups: { rules: { alert: string; expr: string; annotations: Record<string, string> }[] }[] };
    };
    const alerts = rule.spec.groups[0]!.rules;
    expect(alerts.map((a) => a.alert)).toEqual([
      'GraphdbServerDown',
      'GraphdbReadinessFailing',
      'GraphdbHighErrorRate',
      'GraphdbSlowRequests',
      'GraphdbTokenStoreSlow',
      'GraphdbKubernetesApiUnreachable',
      'GraphdbKubernetesApiForbidden',
      'GraphdbBackupFailed',
      'GraphdbServiceAccountTokenExpiring',
    ]);
    // The backup and expiry thresholds come from values.
    const byName = (name: string) => alerts.find((a) => a.alert === name)!.expr;
    expect(byName('GraphdbBackupFailed')).toContain('> time() - 24 * 3600');
    expect(byName('GraphdbServiceAccountTokenExpiring')).toContain('< time() + 14 * 86400');
    // Each alert selects this release's series and is documented in the chart README with what to do.
    const readme = await readFile(path.join(CHART, 'README.md'), 'utf8');
    for (const alert of alerts) {
      expect(alert.expr, alert.alert).toContain('service="graphdb-enterprise-admin-server"');
      expect(alert.annotations.summary, alert.alert).toBeTruthy();
      expect(readme, alert.alert).toMatch(new RegExp(`\\| \`${alert.alert}\` \\|[^|]+\\|[^|]+\\|`));
    }

    const test = manifests.find((m) => m.kind === 'Pod') as unknown as {
      metadata: { annotations: Record<string, string> };
      spec: { containers: { image: string; env: { name: string }[] }[] };
    };
    expect(test.metadata.annotations['helm.sh/hook']).toBe('test');
    expect(test.spec.containers[0]!.image).toBe(`${IMAGE}:0.1.0`);
    expect(test.spec.containers[0]!.env.map((e) => e.name)).toEqual([
      'API',
      'METRICS',
      'METRICS_USERNAME',
      'METRICS_PASSWORD',
    ]);
  });
});
