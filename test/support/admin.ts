// Admin API test fixtures over either storage adapter: local files (embedded) or Kubernetes, either the API double
// or (under `npm run test:kube`) a real kube-apiserver where the server has only the chart's RBAC.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import {
  createKubeAdminStores,
  RBAC_CONFIGMAP,
  SETTINGS_CONFIGMAP,
} from '../../src/platform/kubernetes/kube-stores.js';
import { createFileAdminStores } from '../../src/platform/stores/file-stores.js';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import type { BackupPort } from '../../src/platform/backups/backup-port.js';
import { createKubeBlocksBackups } from '../../src/platform/kubernetes/kubeblocks-backups.js';
import { createKubeBlocksClusters } from '../../src/platform/kubernetes/kubeblocks.js';
import { detectKubeBlocks } from '../../src/platform/kubernetes/kubeblocks-api.js';
import { createKubeClusterInfo } from '../../src/platform/kubernetes/kube-cluster-info.js';
import { createKubePodTelemetry } from '../../src/platform/kubernetes/kube-pod-telemetry.js';
import { ApiException, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { AdminStores } from '../../src/platform/stores/ports.js';
import { actorFor, type Actor } from './actor.js';
import { listen, startTestApp, type TestApp } from './app.js';
import type { TestFalkorDB } from './falkordb.js';
import { startChartApiServer, type ChartApiServer } from './kube/chart-apiserver.js';
import { startKubeApiDouble, type KubeApiDouble } from './kube/kube-api-double.js';
import { realCrdFile } from './kube/kubeblocks-crds.js';
import { createMetrics } from '../../src/http/metrics.js';

export type Adapter = 'embedded' | 'kubernetes' | 'kube-apiserver';
/** The adapters the admin suites run over; `npm run test:kube` (vitest.kube.config.ts) runs them over a real API server. */
export const ADAPTERS: Adapter[] =
  process.env.GRAPHDB_TEST_ADAPTERS === 'kube-apiserver' ? ['kube-apiserver'] : ['embedded', 'kubernetes'];
export const NAMESPACE = 'graphdb-system';
export const ADMIN = { email: 'root@corp.example', password: 'root-password-123' };

/** What the test reads and writes behind the server's back, the same way for both adapters. */
export interface Backdoor {
  settingsText(): Promise<string | undefined>;
  editSettings(text: string): Promise<void>;
  secret(name: string): Promise<Record<string, string> | undefined>;
  /** Creates a Secret as someone else would (kubectl, another chart): without the server's labels. */
  createForeignSecret(name: string, data: Record<string, string>): Promise<void>;
  /** Replaces the data of an existing Secret (as `kubectl edit` would), keeping its labels. */
  replaceSecretData(name: string, data: Record<string, string>): Promise<void>;
  /** The RBAC document (`rbac.json` of ConfigMap graphdb-rbac, or the file); undefined when absent. */
  rbacText(): Promise<string | undefined>;
  editRbac(text: string): Promise<void>;
}

export interface AdminTestApp extends TestApp {
  adapter: Adapter;
  stores: AdminStores;
  backdoor: Backdoor;
  kube?: KubeApiDouble;
  /** kube-apiserver only: the real API server, with the chart's RBAC bound to the server's identity. */
  real?: ChartApiServer;
  /** kube-apiserver only: every failed Kubernetes call of the server (status code, or `unreachable`), 404s aside. */
  kubeErrors: string[];
  /** The server's Prometheus page, as its exporter would serve it. */
  metricsText(): Promise<string>;
}

/** The backdoor through the real API server: the admin's kubectl. */
function realBackdoor(admin: KubeConfig): Backdoor {
  const core = admin.makeApiClient(CoreV1Api);
  const optional = async <T>(read: Promise<T>): Promise<T | undefined> => {
    try {
      return await read;
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  };
  const readSettings = () => optional(core.readNamespacedConfigMap({ name: SETTINGS_CONFIGMAP, namespace: NAMESPACE }));
  return {
    settingsText: async () => (await readSettings())?.data?.['settings.json'],
    editSettings: async (text) => {
      const current = await readSettings();
      if (current)
        await core.replaceNamespacedConfigMap({
          name: SETTINGS_CONFIGMAP,
          namespace: NAMESPACE,
          body: { ...current, data: { ...current.data, 'settings.json': text } },
        });
      else
        await core.createNamespacedConfigMap({
          namespace: NAMESPACE,
          body: { metadata: { name: SETTINGS_CONFIGMAP }, data: { 'settings.json': text } },
        });
    },
    secret: async (name) => {
      const data = (await optional(core.readNamespacedSecret({ name, namespace: NAMESPACE })))?.data;
      return (
        data && Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]))
      );
    },
    createForeignSecret: async (name, data) => {
      await core.createNamespacedSecret({ namespace: NAMESPACE, body: { metadata: { name }, stringData: data } });
    },
    replaceSecretData: async (name, data) => {
      const current = await core.readNamespacedSecret({ name, namespace: NAMESPACE });
      await core.replaceNamespacedSecret({
        name,
        namespace: NAMESPACE,
        body: { ...current, data: undefined, stringData: data },
      });
    },
    rbacText: async () =>
      (await optional(core.readNamespacedConfigMap({ name: RBAC_CONFIGMAP, namespace: NAMESPACE })))?.data?.[
        'rbac.json'
      ],
    editRbac: async (text) => {
      const current = await optional(core.readNamespacedConfigMap({ name: RBAC_CONFIGMAP, namespace: NAMESPACE }));
      if (current)
        await core.replaceNamespacedConfigMap({
          name: RBAC_CONFIGMAP,
          namespace: NAMESPACE,
          body: { ...current, data: { ...current.data, 'rbac.json': text } },
        });
      else
        await core.createNamespacedConfigMap({
          namespace: NAMESPACE,
          body: { metadata: { name: RBAC_CONFIGMAP }, data: { 'rbac.json': text } },
        });
    },
  };
}

interface Stores {
  stores: AdminStores;
  backdoor: Backdoor;
  kube?: KubeApiDouble;
  real?: ChartApiServer;
  kubeconfigPath?: string;
  kubeErrors: string[];
  cleanup: () => Promise<void>;
}

async function storesFor(adapter: Adapter, options: AdminTestAppOptions): Promise<Stores> {
  const kubeErrors: string[] = [];
  if (adapter === 'kube-apiserver') {
    const crds =
      options.crds ??
      (options.kubeBlocks ? ['apps.kubeblocks.io/v1/clusters', 'operations.kubeblocks.io/v1alpha1/opsrequests'] : []);
    const real = await startChartApiServer({
      crds: crds.map(realCrdFile),
      namespaces: options.namespaces,
      values: options.chartValues,
    });
    const kubeConfig = loadKubeConfig({ kind: 'kubeconfig', path: real.serverKubeconfigPath });
    return {
      real,
      kubeconfigPath: real.serverKubeconfigPath,
      kubeErrors,
      stores: createKubeAdminStores(kubeConfig, NAMESPACE, (kind) => kubeErrors.push(kind)),
      backdoor: realBackdoor(real.api.admin),
      cleanup: () => real.close(),
    };
  }
  if (adapter === 'embedded') {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-admin-'));
    const root = path.join(dir, 'admin');
    const readOptional = (file: string) => readFile(file, 'utf8').catch(() => undefined);
    return {
      stores: createFileAdminStores(dir),
      backdoor: {
        settingsText: () => readOptional(path.join(root, 'settings.json')),
        editSettings: (text) => writeFile(path.join(root, 'settings.json'), text),
        secret: async (name) => {
          const text = await readOptional(path.join(root, 'secrets', `${name}.json`));
          return text === undefined ? undefined : (JSON.parse(text) as Record<string, string>);
        },
        createForeignSecret: async (name, data) => {
          await mkdir(path.join(root, 'secrets'), { recursive: true });
          await writeFile(path.join(root, 'secrets', `${name}.json`), JSON.stringify(data));
        },
        replaceSecretData: (name, data) => writeFile(path.join(root, 'secrets', `${name}.json`), JSON.stringify(data)),
        rbacText: () => readOptional(path.join(root, 'rbac.json')),
        editRbac: async (text) => {
          await mkdir(root, { recursive: true });
          await writeFile(path.join(root, 'rbac.json'), text);
        },
      },
      kubeErrors,
      cleanup: () => Promise.resolve(),
    };
  }
  const kube = await startKubeApiDouble({ crds: options.crds });
  return {
    kube,
    kubeErrors,
    kubeconfigPath: kube.kubeconfigPath,
    stores: createKubeAdminStores(loadKubeConfig({ kind: 'kubeconfig', path: kube.kubeconfigPath }), NAMESPACE),
    backdoor: {
      settingsText: () =>
        Promise.resolve(
          (kube.get('configmaps', NAMESPACE, SETTINGS_CONFIGMAP)?.data as Record<string, string> | undefined)?.[
            'settings.json'
          ],
        ),
      editSettings: (text) => {
        const current = kube.get('configmaps', NAMESPACE, SETTINGS_CONFIGMAP);
        kube.put('configmaps', NAMESPACE, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { ...(current?.metadata ?? {}), name: SETTINGS_CONFIGMAP },
          data: { 'settings.json': text },
        });
        return Promise.resolve();
      },
      secret: (name) => {
        const data = kube.get('secrets', NAMESPACE, name)?.data as Record<string, string> | undefined;
        return Promise.resolve(
          data &&
            Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])),
        );
      },
      createForeignSecret: (name, data) => {
        const encoded = Object.fromEntries(
          Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
        );
        kube.put('secrets', NAMESPACE, { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: encoded });
        return Promise.resolve();
      },
      replaceSecretData: (name, data) => {
        const current = kube.get('secrets', NAMESPACE, name);
        if (!current) throw new Error(`no Secret ${name}`);
        const encoded = Object.fromEntries(
          Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
        );
        kube.put('secrets', NAMESPACE, { ...current, data: encoded });
        return Promise.resolve();
      },
      rbacText: () =>
        Promise.resolve(
          (kube.get('configmaps', NAMESPACE, RBAC_CONFIGMAP)?.data as Record<string, string> | undefined)?.[
            'rbac.json'
          ],
        ),
      editRbac: (text) => {
        const current = kube.get('configmaps', NAMESPACE, RBAC_CONFIGMAP);
        kube.put('configmaps', NAMESPACE, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { ...(current?.metadata ?? {}), name: RBAC_CONFIGMAP },
          data: { 'rbac.json': text },
        });
        return Promise.resolve();
      },
    },
    cleanup: () => kube.close(),
  };
}

export interface AdminTestAppOptions {
  falkordb?: TestFalkorDB;
  env?: Record<string, string>;
  now?: () => number;
  /** Kubernetes only: which custom resources the API double serves (all when absent). */
  crds?: string[];
  /** Kubernetes only: manage KubeBlocks clusters through the double (or the real API server). */
  kubeBlocks?: boolean;
  clusters?: ClusterPort;
  /** Backups: given (embedded), or with kubeBlocks the KubeBlocks data-protection adapter. */
  backups?: BackupPort;
  /** kube-apiserver only: namespaces to create besides graphdb-system. */
  namespaces?: string[];
  /** kube-apiserver only: chart values for the RBAC under test, e.g. `adminServer.multiClusterRbac: 'true'`. */
  chartValues?: Record<string, string>;
  /** kube-apiserver only: the test provokes RBAC denials of the server on purpose (otherwise close() fails on one). */
  expectRbacDenials?: boolean;
  /** Heartbeat period of the pod log and metrics event streams. */
  streamHeartbeatMs?: number;
  /** Interposes on the server's stores, e.g. to change an object between the server's read and its write. */
  wrapStores?: (stores: AdminStores) => AdminStores;
}

export async function startAdminTestApp(adapter: Adapter, options: AdminTestAppOptions = {}): Promise<AdminTestApp> {
  const stores = await storesFor(adapter, options);
  try {
    return await startWith(adapter, options, stores);
  } catch (error) {
    await stores.cleanup();
    throw error;
  }
}

async function startWith(
  adapter: Adapter,
  options: AdminTestAppOptions,
  { stores, backdoor, kube, real, kubeconfigPath, kubeErrors, cleanup }: Stores,
): Promise<AdminTestApp> {
  let clusters = options.clusters;
  let backups = options.backups;
  if (options.kubeBlocks && kubeconfigPath && !backups)
    backups = createKubeBlocksBackups(loadKubeConfig({ kind: 'kubeconfig', path: kubeconfigPath }), {
      secretNamespace: NAMESPACE,
      logger: pino({ level: 'silent' }),
      onError: (kind) => kubeErrors.push(kind),
    });
  if (options.kubeBlocks && kubeconfigPath) {
    const kubeConfig = loadKubeConfig({ kind: 'kubeconfig', path: kubeconfigPath });
    if (real) {
      // Wired as services.ts does: a detection that fails at start-up is retried at the first cluster request.
      const detected = await detectKubeBlocks(kubeConfig).catch(() => undefined);
      clusters = createKubeBlocksClusters(kubeConfig, pino({ level: 'silent' }), detected, (kind) =>
        kubeErrors.push(kind),
      );
    } else
      clusters = createKubeBlocksClusters(kubeConfig, pino({ level: 'silent' }), await detectKubeBlocks(kubeConfig));
  }
  // As services.ts: with Kubernetes, the cluster-scoped facts of the system routes and diagnostics.
  const clusterInfo = kubeconfigPath
    ? createKubeClusterInfo(loadKubeConfig({ kind: 'kubeconfig', path: kubeconfigPath }), (kind) =>
        kubeErrors.push(kind),
      )
    : undefined;
  const metrics = createMetrics();
  const t = await startTestApp({
    falkordb: options.falkordb,
    env: { SETTINGS_REFRESH_MS: '0', PUBLIC_ORIGIN: 'https://admin.corp.example', ...options.env },
    deps: {
      metrics,
      adminStores: options.wrapStores ? options.wrapStores(stores) : stores,
      firstAdmin: { email: ADMIN.email, password: ADMIN.password },
      now: options.now,
      clusters,
      backups,
      clusterInfo,
      podTelemetry: kubeconfigPath
        ? createKubePodTelemetry(loadKubeConfig({ kind: 'kubeconfig', path: kubeconfigPath }), (kind) =>
            kubeErrors.push(kind),
          )
        : undefined,
      streamHeartbeatMs: options.streamHeartbeatMs,
    },
  });
  return {
    ...t,
    adapter,
    stores,
    backdoor,
    kube,
    real,
    kubeErrors,
    metricsText: () => metrics.registry.metrics(),
    async close() {
      await t.close();
      await cleanup();
      // The chart's RBAC must allow everything the server does: a denial the test did not ask for fails the suite.
      if (real && !options.expectRbacDenials && kubeErrors.includes('403'))
        throw new Error(
          `the API server denied the server (403) with the chart's RBAC; failed calls: ${kubeErrors.join(', ')}`,
        );
    },
  };
}

export function sessionCookie(res: LightMyRequestResponse): string {
  const cookie = res.cookies.find((c) => c.name === 'token');
  expect(cookie?.value, res.body).toBeTruthy();
  return `token=${cookie!.value}`;
}

export async function login(app: FastifyInstance, email: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  expect(res.statusCode, res.body).toBe(200);
  return sessionCookie(res);
}

export type AdminRole = 'admin' | 'operator' | 'viewer';

/** An admin session, and one for an operator and a viewer created through the API (only the `roles` given). */
export async function sessionsForEveryRole(
  app: FastifyInstance,
  roles: readonly AdminRole[] = ['admin', 'operator', 'viewer'],
): Promise<Record<AdminRole, string>> {
  const result = {} as Record<AdminRole, string>;
  if (roles.length === 0) return result;
  const admin = await login(app, ADMIN.email, ADMIN.password);
  if (roles.includes('admin')) result.admin = admin;
  for (const role of (['operator', 'viewer'] as const).filter((r) => roles.includes(r))) {
    const email = `${role}@corp.example`;
    const res = await app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { cookie: admin },
      payload: { email, name: role, role, password: `${role}-password-1` },
    });
    expect(res.statusCode, res.body).toBe(201);
    result[role] = await login(app, email, `${role}-password-1`);
  }
  return result;
}

export interface AdminAppOptions extends AdminTestAppOptions {
  /** Embedded (local files) when absent. */
  adapter?: Adapter;
  /** Also listen on loopback, for the actors' fetch(). */
  listen?: boolean;
  /**
   * The sessions made at start (every role when absent): `['admin']` creates no other user, `[]` does not even sign
   * in, for suites that count users, sessions or audit entries from a fresh start.
   */
  roles?: readonly AdminRole[];
}

/** The app of an admin suite (read its fields inside tests and hooks), and requests as each role. */
export interface AdminApp extends Omit<AdminTestApp, 'close'> {
  /** Session cookies of the first admin, an operator and a viewer; a test that ends one stores the new one here. */
  sessions: Record<AdminRole, string>;
  /** With `listen: true`: where the app listens (empty otherwise). */
  baseUrl: string;
  /** Requests with the session cookie of that role. */
  as(role: AdminRole): Actor;
  /** Requests with any other session cookie (`token=...`), e.g. of a user the test made itself. */
  withCookie(cookie: string): Actor;
}

/**
 * Starts the admin app and a session per role in beforeAll, and closes it in afterAll. Options that depend on what
 * an earlier beforeAll made (a FalkorDB, an identity provider) are given as a function, called when the app starts.
 */
export function useAdminApp(adapterOrOptions: Adapter | AdminAppOptions | (() => AdminAppOptions) = {}): AdminApp {
  let started: AdminTestApp | undefined;
  const actor = (identity: () => Record<string, string>) =>
    actorFor({ app: () => handle.app, identity, baseUrl: () => handle.baseUrl });
  const handle = {
    baseUrl: '',
    as: (role: AdminRole) => actor(() => ({ cookie: handle.sessions[role] })),
    withCookie: (cookie: string) => actor(() => ({ cookie })),
  } as AdminApp;
  beforeAll(async () => {
    const options = typeof adapterOrOptions === 'function' ? adapterOrOptions() : adapterOrOptions;
    const {
      adapter = 'embedded',
      listen: listening,
      roles,
      ...appOptions
    } = typeof options === 'string' ? { adapter: options } : options;
    started = await startAdminTestApp(adapter, appOptions);
    Object.assign(handle, started);
    handle.sessions = await sessionsForEveryRole(started.app, roles);
    if (listening) handle.baseUrl = await listen(started.app);
  });
  afterAll(() => started?.close());
  return handle;
}
