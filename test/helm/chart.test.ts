import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseStoredRbac } from '../../src/admin/rbac/rbac-document.js';
import { parseStoredSettings } from '../../src/admin/settings/settings-document.js';
import { EnvSchema, loadConfig } from '../../src/config.js';

const run = promisify(execFile);
const CHART = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../helm/graphdb-admin-server');
const HELM = process.env.HELM_BIN ?? '';

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
    const { stdout } = await run(HELM, ['lint', CHART, '--strict']);
    expect(stdout).toContain('0 chart(s) failed');
    expect(stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  });

  it('renders the names, namespace, port, probes and settings key the seed and the server expect', async () => {
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
    // issue 21: backup repositories are cluster-scoped, managed only with multiClusterRbac.
    expect(find(manifests, 'ClusterRole', 'graphdb-admin-server-backup-repos')).toMatchObject({
      rules: [
        {
          apiGroups: ['dataprotection.kubeblocks.io'],
          resources: ['backuprepos'],
          verbs: ['get', 'list', 'create', 'update', 'delete'],
        },
      ],
    });
    // issue 19: the system routes' cluster-scoped reads, list only, and only with multiClusterRbac.
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

  it('renders with every optional feature on, mapping the seed value names to the server variables', async () => {
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
    expect(await refused(['--set', 'replicaCount=2'])).toMatch(/replicaCount: Must be less than or equal to 1/);
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
    const lint = await run(HELM, ['lint', CHART, '--strict', '--set', 'replicaCount=2']).then(
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
      'SESSION_SECRET',
    ]);
    expect(Buffer.from(generated.data.ADMIN_PASSWORD!, 'base64').toString()).toMatch(/^[A-Za-z0-9]{24}$/);

    // GitOps: two renders are identical, and the pod reads the managed Secret.
    const args = ['--set', 'adminServer.existingSecret=graphdb-managed'];
    const [first, second] = await Promise.all([template(args), template(args)]);
    expect(JSON.stringify(first)).toBe(JSON.stringify(second));
    const secret = find(first, 'Secret', 'graphdb-admin-server') as unknown as { data?: Record<string, string> };
    expect(Object.keys(secret.data ?? {})).toEqual([]);
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
