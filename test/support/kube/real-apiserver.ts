// A real kube-apiserver with its own etcd on loopback, started the way controller projects' envtest does, for the
// tests that need the real thing: CRD schema validation (422), RBAC (403), resourceVersion conflicts (409), label
// selectors, generateName, the status subresource. The binaries come from scripts/ensure-kube.sh (ETCD_BIN and
// KUBE_APISERVER_BIN, exported by `npm run test:kube`). Users authenticate with static bearer tokens; every user but
// the admin is audited, so tests can list exactly what a user asked the API server and what it answered.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { sleep } from '../wait.js';

const run = promisify(execFile);
const ADMIN_USER = 'graphdb-test-admin';

export interface KubeUser {
  name: string;
  groups: string[];
}

export interface RealApiServerOptions {
  /** Users with a static bearer token of their own, besides the admin (group system:masters). */
  users?: KubeUser[];
  /** Namespaces to create (`default` always exists). */
  namespaces?: string[];
  /** CRD files (paths; the real KubeBlocks ones come from ./kubeblocks-crds.ts) to install and wait for. */
  crds?: string[];
}

/** One audited request: who asked for what, and the status the API server answered. */
export interface AuditRecord {
  user: string;
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  code: number;
  uri: string;
}

export interface RealApiServer {
  url: string;
  version: string;
  /** Client configuration of the admin (system:masters). */
  admin: KubeConfig;
  adminKubeconfigPath: string;
  /** The kubeconfig file of one of the `users`. */
  kubeconfigPath(user: string): string;
  /** Creates objects as the admin, in order. */
  apply(objects: KubernetesObject[]): Promise<void>;
  /** What the non-admin users asked so far (the audit log), oldest first. */
  audit(): Promise<AuditRecord[]>;
  close(): Promise<void>;
}

export interface KubeBinaries {
  etcd: string;
  apiserver: string;
}

/** The etcd and kube-apiserver binaries from the environment, or the reason they are missing. */
export function kubeBinaries(): KubeBinaries | { missing: string } {
  const etcd = process.env.ETCD_BIN ?? '';
  const apiserver = process.env.KUBE_APISERVER_BIN ?? '';
  if (!etcd || !apiserver)
    return {
      missing:
        'ETCD_BIN and KUBE_APISERVER_BIN are not set: run these tests with `npm run test:kube` (it builds both with scripts/ensure-kube.sh)',
    };
  for (const bin of [etcd, apiserver])
    if (!existsSync(bin)) return { missing: `${bin} does not exist: run scripts/ensure-kube.sh` };
  return { etcd, apiserver };
}

const parsedCrds = new Map<string, Promise<KubernetesObject>>();

/** Reads a CRD file (YAML anchors resolved) as the object to create; each file is parsed once per process. */
export function readCrd(file: string): Promise<KubernetesObject> {
  let parsed = parsedCrds.get(file);
  if (!parsed) {
    parsed = readFile(file, 'utf8').then((text) => {
      const [doc] = parseAllDocuments(text);
      if (!doc || doc.errors.length > 0)
        throw new Error(`${file}: ${doc?.errors.map((e) => e.message).join('; ') ?? 'empty'}`);
      return doc.toJS({ maxAliasCount: -1 }) as KubernetesObject;
    });
    parsed.catch(() => parsedCrds.delete(file));
    parsedCrds.set(file, parsed);
  }
  return parsed;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function httpsRequest(
  method: string,
  url: string,
  ca: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const req = request(url, { method, ca, headers, timeout: 5000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function tail(file: string, lines = 25): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

interface Started {
  child: ChildProcess;
  exited: Promise<number | null>;
}

function startProcess(bin: string, args: string[], logFile: string): Started {
  const fd = openSync(logFile, 'a');
  const child = spawn(bin, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited };
}

/** Polls `probe` until it resolves true; fails early when the process exits, and after `timeoutMs`. */
async function waitFor(
  what: string,
  started: Started,
  logFile: string,
  probe: () => Promise<boolean>,
  timeoutMs = 90_000,
): Promise<void> {
  let exitCode: number | null | undefined;
  void started.exited.then((code) => (exitCode = code));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode !== undefined)
      throw new Error(`${what} exited with code ${String(exitCode)} before it was ready:\n${await tail(logFile)}`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${what} was not ready after ${timeoutMs / 1000} s:\n${await tail(logFile)}`);
    await sleep(150);
  }
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started || started.child.exitCode !== null || started.child.signalCode !== null) return;
  started.child.kill('SIGTERM');
  const killed = setTimeout(() => started.child.kill('SIGKILL'), 10_000);
  await started.exited;
  clearTimeout(killed);
}

/** kube-apiserver's default admission plugins (from its --help, so they follow the pinned version) less `keep`. */
async function defaultAdmissionPlugins(apiserver: string, keep: string[]): Promise<string> {
  const { stdout } = await run(apiserver, ['--help'], { maxBuffer: 16 * 1024 * 1024 });
  const defaults = /in addition to default enabled ones \(([^)]*)\)/.exec(stdout)?.[1];
  if (!defaults) throw new Error(`${apiserver} --help does not list the default admission plugins`);
  return defaults
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name && !keep.includes(name))
    .join(',');
}

async function certificates(dir: string): Promise<void> {
  const openssl = (args: string[]) => run('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl([
    'req',
    '-x509',
    ...ec,
    '-days',
    '2',
    '-subj',
    '/CN=graphdb-test-ca',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await openssl(['req', ...ec, '-subj', '/CN=kube-apiserver', '-keyout', 'tls.key', '-out', 'tls.csr']);
  await writeFile(
    path.join(dir, 'tls.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n',
  );
  await openssl([
    'x509',
    '-req',
    '-in',
    'tls.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'tls.ext',
    '-out',
    'tls.crt',
  ]);
  // The service-account token signing key (ES256); the API server needs one even though no pod runs here.
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'sa.key']);
  await openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
}

function kubeconfigYaml(url: string, caPem: string, user: string, token: string): string {
  const ca = Buffer.from(caPem).toString('base64');
  return `apiVersion: v1\nkind: Config\nclusters:\n- name: real\n  cluster:\n    server: ${url}\n    certificate-authority-data: ${ca}\nusers:\n- name: ${JSON.stringify(user)}\n  user:\n    token: ${token}\ncontexts:\n- name: real\n  context: {cluster: real, user: ${JSON.stringify(user)}, namespace: graphdb-system}\ncurrent-context: real\n`;
}

interface RawAuditEvent {
  stage?: string;
  user?: { username?: string };
  verb?: string;
  requestURI?: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string; apiGroup?: string };
  responseStatus?: { code?: number };
}

function parseAudit(text: string): AuditRecord[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as RawAuditEvent)
    .filter((event) => event.stage === 'ResponseComplete' && event.objectRef)
    .map((event) => ({
      user: event.user?.username ?? '',
      verb: event.verb ?? '',
      group: event.objectRef?.apiGroup ?? '',
      resource: event.objectRef?.resource ?? '',
      ...(event.objectRef?.subresource ? { subresource: event.objectRef.subresource } : {}),
      ...(event.objectRef?.namespace ? { namespace: event.objectRef.namespace } : {}),
      ...(event.objectRef?.name ? { name: event.objectRef.name } : {}),
      code: event.responseStatus?.code ?? 0,
      uri: event.requestURI ?? '',
    }));
}

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { plural?: string };
  versions?: { name: string; served?: boolean }[];
}

/**
 * Waits until a CRD is Established and every version it serves answers a list: a large CRD (KubeBlocks' Cluster is
 * over 1 MB of schema) is Established a moment before its storage is ready, and meanwhile lists answer
 * 429 "storage is (re)initializing".
 */
async function waitForCrd(
  admin: KubeConfig,
  crd: KubernetesObject,
  list: (path: string) => Promise<{ status: number; body: string }>,
): Promise<void> {
  const api = admin.makeApiClient(ApiextensionsV1Api);
  const name = crd.metadata?.name ?? '';
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await api.readCustomResourceDefinition({ name });
    const established = current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    if (established) break;
    if (Date.now() > deadline)
      throw new Error(`CRD ${name} was not Established after 30 s: ${JSON.stringify(current.status?.conditions)}`);
    await sleep(100);
  }
  const spec = (crd as { spec?: CrdSpec }).spec ?? {};
  const namespaced = spec.scope === 'Namespaced' ? '/namespaces/default' : '';
  for (const version of (spec.versions ?? []).filter((v) => v.served)) {
    const url = `/apis/${spec.group ?? ''}/${version.name}${namespaced}/${spec.names?.plural ?? ''}?limit=1`;
    for (;;) {
      const res = await list(url);
      if (res.status === 200) break;
      if (Date.now() > deadline)
        throw new Error(`CRD ${name}: GET ${url} answered ${res.status} 30 s after creation: ${res.body}`);
      await sleep(100);
    }
  }
}

/** Starts etcd and kube-apiserver, creates the namespaces and CRDs, and writes a kubeconfig per user. */
export async function startRealApiServer(options: RealApiServerOptions = {}): Promise<RealApiServer> {
  const binaries = kubeBinaries();
  if ('missing' in binaries) throw new Error(binaries.missing);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binaries, options);
    } catch (error) {
      // The free ports are chosen before the processes bind them; another process may take one in between.
      if (attempt >= 3 || !/address already in use/i.test(String(error))) throw error;
    }
  }
}

async function startOnce(binaries: KubeBinaries, options: RealApiServerOptions): Promise<RealApiServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kube-apiserver-'));
  let etcd: Started | undefined;
  let apiserver: Started | undefined;
  const cleanup = async () => {
    await stop(apiserver);
    await stop(etcd);
    await rm(dir, { recursive: true, force: true });
  };
  const killOnExit = () => {
    apiserver?.child.kill('SIGKILL');
    etcd?.child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  try {
    const users = options.users ?? [];
    const tokens = new Map<string, string>([
      [ADMIN_USER, randomBytes(24).toString('hex')],
      ...users.map((u): [string, string] => [u.name, randomBytes(24).toString('hex')]),
    ]);
    const csv = [
      `${tokens.get(ADMIN_USER)},${ADMIN_USER},uid-admin,"system:masters"`,
      ...users.map((u, i) => `${tokens.get(u.name)},${u.name},uid-${i},"${u.groups.join(',')}"`),
    ];
    await writeFile(path.join(dir, 'tokens.csv'), `${csv.join('\n')}\n`, { mode: 0o600 });
    const auditPolicy = ['apiVersion: audit.k8s.io/v1', 'kind: Policy', 'omitStages: [RequestReceived]', 'rules:'];
    if (users.length > 0)
      auditPolicy.push('  - level: Metadata', `    users: ${JSON.stringify(users.map((u) => u.name))}`);
    auditPolicy.push('  - level: None');
    await writeFile(path.join(dir, 'audit-policy.yaml'), `${auditPolicy.join('\n')}\n`);
    await certificates(dir);

    const [etcdClient, etcdPeer, securePort] = [await freePort(), await freePort(), await freePort()];
    const etcdLog = path.join(dir, 'etcd.log');
    etcd = startProcess(
      binaries.etcd,
      [
        '--name=test',
        `--data-dir=${path.join(dir, 'etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=test=http://127.0.0.1:${etcdPeer}`,
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      etcdLog,
    );
    await waitFor('etcd', etcd, etcdLog, async () => {
      const res = await fetch(`http://127.0.0.1:${etcdClient}/health`);
      return res.ok && ((await res.json()) as { health?: string }).health === 'true';
    });

    const apiLog = path.join(dir, 'kube-apiserver.log');
    const file = (name: string) => path.join(dir, name);
    apiserver = startProcess(
      binaries.apiserver,
      [
        `--etcd-servers=http://127.0.0.1:${etcdClient}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${securePort}`,
        `--cert-dir=${dir}`,
        `--tls-cert-file=${file('tls.crt')}`,
        `--tls-private-key-file=${file('tls.key')}`,
        `--token-auth-file=${file('tokens.csv')}`,
        '--authorization-mode=RBAC',
        '--anonymous-auth=false',
        `--service-account-key-file=${file('sa.pub')}`,
        `--service-account-signing-key-file=${file('sa.key')}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--endpoint-reconciler-type=none',
        // Only what these tests need: namespaces must exist; nothing that waits for controllers that do not run here.
        '--enable-admission-plugins=NamespaceLifecycle',
        `--disable-admission-plugins=${await defaultAdmissionPlugins(binaries.apiserver, ['NamespaceLifecycle'])}`,
        `--audit-policy-file=${file('audit-policy.yaml')}`,
        `--audit-log-path=${file('audit.log')}`,
        '--audit-log-format=json',
        '--profiling=false',
        '--v=1',
      ],
      apiLog,
    );
    const url = `https://127.0.0.1:${securePort}`;
    const caPem = await readFile(file('ca.crt'), 'utf8');
    const adminToken = tokens.get(ADMIN_USER)!;
    await waitFor(
      'kube-apiserver',
      apiserver,
      apiLog,
      async () => (await httpsRequest('GET', `${url}/readyz`, caPem, adminToken)).status === 200,
    );
    const version = (
      JSON.parse((await httpsRequest('GET', `${url}/version`, caPem, adminToken)).body) as { gitVersion: string }
    ).gitVersion;

    const kubeconfigs = new Map<string, string>();
    for (const [user, token] of tokens) {
      const kubeconfig = file(`kubeconfig-${kubeconfigs.size}`);
      await writeFile(kubeconfig, kubeconfigYaml(url, caPem, user, token), { mode: 0o600 });
      kubeconfigs.set(user, kubeconfig);
    }
    const admin = new KubeConfig();
    admin.loadFromFile(kubeconfigs.get(ADMIN_USER)!);
    const objects = KubernetesObjectApi.makeApiClient(admin);
    const apply = async (list: KubernetesObject[]) => {
      for (const object of list) await objects.create(object);
    };

    const core = admin.makeApiClient(CoreV1Api);
    for (const name of options.namespaces ?? []) await core.createNamespace({ body: { metadata: { name } } });
    // CRDs go as raw JSON: the client's typed serializer knows their schema fields by other names and drops
    // x-kubernetes-list-type and friends.
    const crds = await Promise.all((options.crds ?? []).map(readCrd));
    for (const crd of crds) {
      const res = await httpsRequest(
        'POST',
        `${url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`,
        caPem,
        adminToken,
        crd,
      );
      if (res.status !== 201)
        throw new Error(`creating CRD ${crd.metadata?.name ?? ''} answered ${res.status}: ${res.body}`);
    }
    const list = (path: string) => httpsRequest('GET', `${url}${path}`, caPem, adminToken);
    for (const crd of crds) await waitForCrd(admin, crd, list);

    return {
      url,
      version,
      admin,
      adminKubeconfigPath: kubeconfigs.get(ADMIN_USER)!,
      kubeconfigPath(user) {
        const found = kubeconfigs.get(user);
        if (!found) throw new Error(`no static token for ${user}`);
        return found;
      },
      apply,
      audit: async () => parseAudit(await readFile(file('audit.log'), 'utf8').catch(() => '')),
      async close() {
        process.removeListener('exit', killOnExit);
        await cleanup();
      },
    };
  } catch (error) {
    process.removeListener('exit', killOnExit);
    await cleanup();
    throw error;
  }
}
