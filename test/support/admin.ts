// Admin API test fixtures over either storage adapter: local files (embedded) or the Kubernetes API double.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { loadKubeConfig } from '../../src/platform/kubernetes/kube-config.js';
import { createKubeAdminStores, SETTINGS_CONFIGMAP } from '../../src/platform/kubernetes/kube-stores.js';
import { createFileAdminStores } from '../../src/platform/stores/file-stores.js';
import type { ClusterPort } from '../../src/platform/clusters/cluster-port.js';
import { createKubeBlocksClusters, detectKubeBlocks } from '../../src/platform/kubernetes/kubeblocks.js';
import { pino } from 'pino';
import type { AdminStores } from '../../src/platform/stores/ports.js';
import { startTestApp, type TestApp } from './app.js';
import type { TestFalkorDB } from './falkordb.js';
import { startKubeApiDouble, type KubeApiDouble } from './kube/kube-api-double.js';

export type Adapter = 'embedded' | 'kubernetes';
export const ADAPTERS: Adapter[] = ['embedded', 'kubernetes'];
export const NAMESPACE = 'graphdb-system';
export const ADMIN = { email: 'root@corp.example', password: 'root-password-123' };

/** What the test reads and writes behind the server's back, the same way for both adapters. */
export interface Backdoor {
  settingsText(): Promise<string | undefined>;
  editSettings(text: string): Promise<void>;
  secret(name: string): Promise<Record<string, string> | undefined>;
}

export interface AdminTestApp extends TestApp {
  adapter: Adapter;
  stores: AdminStores;
  backdoor: Backdoor;
  kube?: KubeApiDouble;
}

async function storesFor(adapter: Adapter, crds?: string[]): Promise<{ stores: AdminStores; backdoor: Backdoor; kube?: KubeApiDouble; kubeconfigPath?: string; cleanup: () => Promise<void> }> {
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
      },
      cleanup: () => Promise.resolve(),
    };
  }
  const kube = await startKubeApiDouble({ crds });
  return {
    kube,
    kubeconfigPath: kube.kubeconfigPath,
    stores: createKubeAdminStores(loadKubeConfig({ kind: 'kubeconfig', path: kube.kubeconfigPath }), NAMESPACE),
    backdoor: {
      settingsText: () => Promise.resolve((kube.get('configmaps', NAMESPACE, SETTINGS_CONFIGMAP)?.data as Record<string, string> | undefined)?.['settings.json']),
      editSettings: (text) => {
        const current = kube.get('configmaps', NAMESPACE, SETTINGS_CONFIGMAP);
        kube.put('configmaps', NAMESPACE, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...(current?.metadata ?? {}), name: SETTINGS_CONFIGMAP }, data: { 'settings.json': text } });
        return Promise.resolve();
      },
      secret: (name) => {
        const data = kube.get('secrets', NAMESPACE, name)?.data as Record<string, string> | undefined;
        return Promise.resolve(data && Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])));
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
  /** Kubernetes only: manage KubeBlocks clusters through the double. */
  kubeBlocks?: boolean;
  clusters?: ClusterPort;
}

export async function startAdminTestApp(adapter: Adapter, options: AdminTestAppOptions = {}): Promise<AdminTestApp> {
  const { stores, backdoor, kube, kubeconfigPath, cleanup } = await storesFor(adapter, options.crds);
  let clusters = options.clusters;
  if (options.kubeBlocks && kubeconfigPath) {
    const kubeConfig = loadKubeConfig({ kind: 'kubeconfig', path: kubeconfigPath });
    clusters = createKubeBlocksClusters(kubeConfig, pino({ level: 'silent' }), await detectKubeBlocks(kubeConfig));
  }
  const t = await startTestApp({
    falkordb: options.falkordb,
    env: { SETTINGS_REFRESH_MS: '0', PUBLIC_ORIGIN: 'https://admin.corp.example', ...options.env },
    deps: { adminStores: stores, firstAdmin: { email: ADMIN.email, password: ADMIN.password }, now: options.now, clusters },
  });
  return {
    ...t,
    adapter,
    stores,
    backdoor,
    kube,
    async close() {
      await t.close();
      await cleanup();
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

/** An admin session, and one for an operator and a viewer created through the API. */
export async function sessionsForEveryRole(app: FastifyInstance): Promise<Record<'admin' | 'operator' | 'viewer', string>> {
  const admin = await login(app, ADMIN.email, ADMIN.password);
  const result = { admin } as Record<'admin' | 'operator' | 'viewer', string>;
  for (const role of ['operator', 'viewer'] as const) {
    const email = `${role}@corp.example`;
    const res = await app.inject({ method: 'POST', url: '/api/users', headers: { cookie: admin }, payload: { email, name: role, role, password: `${role}-password-1` } });
    expect(res.statusCode, res.body).toBe(201);
    result[role] = await login(app, email, `${role}-password-1`);
  }
  return result;
}
