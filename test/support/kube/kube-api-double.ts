// A Kubernetes API server double speaking the real REST protocol over HTTPS, so @kubernetes/client-node runs
// unchanged against it through a generated kubeconfig: core ConfigMaps and Secrets and custom objects with
// resourceVersion conflicts, merge patches, label selectors, generateName, watches and `Status` error bodies.
import { execFileSync } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sleep } from '../wait.js';

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    generateName?: string;
    namespace?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    creationTimestamp?: string;
    uid?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  contentType?: string;
}

export interface KubeApiDouble {
  url: string;
  token: string;
  kubeconfigPath: string;
  requests: RecordedRequest[];
  /** Every stored object of a resource, in every namespace. */
  list(resource: string): KubeObject[];
  /** Reads an object as stored (Secrets keep base64 `data`). */
  get(resource: string, namespace: string, name: string): KubeObject | undefined;
  /** Writes an object directly, as `kubectl apply` would: bumps its resourceVersion and notifies watchers. */
  put(resource: string, namespace: string, object: KubeObject): KubeObject;
  remove(resource: string, namespace: string, name: string): void;
  /** The next `count` writes (PUT/PATCH) of `resource` answer 409 Conflict, as if someone else wrote first. */
  injectConflicts(resource: string, count: number): void;
  /** Every request whose method and path match answers this status with a Status body. */
  failRequests(match: { method?: string; pathIncludes: string }, code: number, reason: string, message: string): void;
  /** Every request whose method and path match is held this long before it is handled (a slow API server). */
  delayRequests(match: { method?: string; pathIncludes: string }, ms: number): void;
  /**
   * Sets a pod's log (of `container`, or of its only container): what `GET …/pods/{pod}/log` answers (text/plain),
   * and what a follow (`follow=true`) sends before it waits for appendPodLog.
   */
  setPodLog(namespace: string, pod: string, lines: string[], container?: string): void;
  /** Appends lines to a pod's log and writes them at once to every open follow of it (a chunked response). */
  appendPodLog(namespace: string, pod: string, lines: string[], container?: string): void;
  /** Ends every open follow of the pod's log (the container exited). */
  endPodLog(namespace: string, pod: string): void;
  /** How many follows of pod logs are still open (a client that leaves must close its request). */
  openLogFollows(): number;
  /** How many TLS connections clients have opened to the double since it started. */
  tlsConnections(): number;
  /**
   * What the pod proxy (`GET …/pods/{pod}:{port}/proxy/{path}`) answers for a pod's port: the exporter's page; a port
   * without one answers 503 as the API server does when nothing listens there. `delayMs` holds the answer that long.
   */
  setPodProxy(namespace: string, pod: string, port: number, page: string | undefined, delayMs?: number): void;
  /** Serves the metrics API (metrics.k8s.io, as metrics-server adds it); off by default, like a bare API server. */
  setMetricsApi(served: boolean): void;
  /** Undoes failRequests and delayRequests. */
  clearFaults(): void;
  /** false: stops listening and drops every connection (connection refused, as a server that is down); true: listens again on the same port. */
  setReachable(reachable: boolean): Promise<void>;
  close(): Promise<void>;
}

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function sendStatus(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

function matchesSelector(object: KubeObject, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(',').every((term) => {
    const [key, value] = term.split('=');
    return object.metadata.labels?.[key!] === value;
  });
}

async function servingCertificate(dir: string): Promise<{ key: string; cert: string }> {
  const keyPath = path.join(dir, 'tls.key');
  const certPath = path.join(dir, 'tls.crt');
  // prettier-ignore
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=kube-api-double', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyPath, '-out', certPath], { stdio: 'ignore' });
  return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
}

function kubeconfigYaml(url: string, token: string, caPem: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: double',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    'users:',
    '- name: tester',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: double',
    '  context: {cluster: double, user: tester, namespace: graphdb-system}',
    'current-context: double',
    '',
  ].join('\n');
}

/** `/api/v1/namespaces/ns/configmaps/name` or `/apis/group/version/namespaces/ns/plural/name`. */
function parsePath(pathname: string): { resource: string; namespace?: string; name?: string } | undefined {
  const core = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?([a-z]+)(?:\/([^/]+))?$/.exec(pathname);
  if (core) return { resource: core[2]!, namespace: core[1], name: core[3] };
  const custom = /^\/apis\/([^/]+)\/([^/]+)\/(?:namespaces\/([^/]+)\/)?([a-z]+)(?:\/([^/]+))?$/.exec(pathname);
  if (custom) return { resource: `${custom[1]}/${custom[2]}/${custom[4]}`, namespace: custom[3], name: custom[5] };
  return undefined;
}

const LOG_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/;
const PROXY_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/:]+):(\d+)\/proxy\/(.*)$/;

interface LogFollower {
  key: string;
  res: ServerResponse;
  timestamps: boolean;
}

/** A pod log line as the kubelet writes it with `timestamps=true`. */
function logLineText(line: { at: string; text: string }, timestamps: boolean): string {
  return `${timestamps ? `${line.at} ` : ''}${line.text}\n`;
}

/** Custom resources without a namespace (their objects are stored under namespace ''). */
const CLUSTER_SCOPED = new Set(['dataprotection.kubeblocks.io/v1alpha1/backuprepos']);

/** What discovery reports when no `crds` are given (KubeBlocks 1.x). */
const DEFAULT_CUSTOM_RESOURCES = ['apps.kubeblocks.io/v1/clusters', 'operations.kubeblocks.io/v1alpha1/opsrequests'];

/** `crds`: the custom resources (`group/version/plural`) that exist; without it every custom path is served. */
export async function startKubeApiDouble(options: { crds?: string[] } = {}): Promise<KubeApiDouble> {
  const token = `double-token-${Math.random().toString(36).slice(2)}`;
  const requests: RecordedRequest[] = [];
  const objects = new Map<string, KubeObject>();
  const conflicts = new Map<string, number>();
  const failures: { method?: string; pathIncludes: string; code: number; reason: string; message: string }[] = [];
  const delays: { method?: string; pathIncludes: string; ms: number }[] = [];
  const watchers = new Set<{ resource: string; namespace?: string; selector: string | null; res: ServerResponse }>();
  const podLogs = new Map<string, { at: string; text: string }[]>();
  const podProxies = new Map<string, { page: string; delayMs: number }>();
  const followers = new Set<LogFollower>();
  let metricsServed = false;
  let revision = 1000;
  let uid = 0;
  const keyOf = (resource: string, namespace: string, name: string) => `${resource}|${namespace}|${name}`;

  function notify(type: 'ADDED' | 'MODIFIED' | 'DELETED', resource: string, object: KubeObject): void {
    for (const watcher of watchers) {
      if (
        watcher.resource !== resource ||
        (watcher.namespace && watcher.namespace !== object.metadata.namespace) ||
        !matchesSelector(object, watcher.selector)
      )
        continue;
      watcher.res.write(`${JSON.stringify({ type, object })}\n`);
    }
  }

  function store(resource: string, namespace: string, object: KubeObject, created: boolean): KubeObject {
    const copy = structuredClone(object);
    if (resource === 'secrets' && copy.stringData && typeof copy.stringData === 'object') {
      const data = { ...((copy.data as Record<string, string> | undefined) ?? {}) };
      for (const [key, value] of Object.entries(copy.stringData as Record<string, string>))
        data[key] = Buffer.from(value).toString('base64');
      copy.data = data;
      delete copy.stringData;
    }
    copy.metadata = { ...copy.metadata, namespace, resourceVersion: String(++revision) };
    if (created) {
      copy.metadata.uid = `uid-${++uid}`;
      copy.metadata.creationTimestamp = new Date().toISOString();
    }
    objects.set(keyOf(resource, namespace, copy.metadata.name!), copy);
    notify(created ? 'ADDED' : 'MODIFIED', resource, copy);
    return copy;
  }

  /** The pod log endpoint as the API server proxies it from the kubelet: text/plain, chunked and open with follow. */
  function servePodLog(req: IncomingMessage, res: ServerResponse, url: URL, namespace: string, name: string): void {
    const pod = objects.get(keyOf('pods', namespace, name));
    if (!pod) return sendStatus(res, 404, 'NotFound', `pods "${name}" not found`);
    const containers = ((pod.spec as { containers?: { name: string }[] } | undefined)?.containers ?? []).map(
      (c) => c.name,
    );
    const asked = url.searchParams.get('container');
    if (!asked && containers.length > 1)
      return sendStatus(
        res,
        400,
        'BadRequest',
        `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`,
      );
    const container = asked ?? containers[0] ?? '';
    if (asked && !containers.includes(asked))
      return sendStatus(res, 400, 'BadRequest', `container ${asked} is not valid for pod ${name}`);
    const key = `${namespace}|${name}|${container}`;
    const all = podLogs.get(key) ?? [];
    const tail = Number(url.searchParams.get('tailLines') ?? 'NaN');
    const since = Number(url.searchParams.get('sinceSeconds') ?? 'NaN');
    let lines = Number.isInteger(tail) && tail >= 0 ? all.slice(Math.max(0, all.length - tail)) : all;
    if (Number.isInteger(since)) lines = lines.filter((line) => Date.parse(line.at) >= Date.now() - since * 1000);
    const timestamps = url.searchParams.get('timestamps') === 'true';
    let text = lines.map((line) => logLineText(line, timestamps)).join('');
    const limit = Number(url.searchParams.get('limitBytes') ?? 'NaN');
    if (Number.isInteger(limit) && limit > 0) text = Buffer.from(text).subarray(0, limit).toString('utf8');
    if (url.searchParams.get('follow') !== 'true') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(text);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
    if (text) res.write(text);
    const follower = { key, res, timestamps };
    followers.add(follower);
    req.on('close', () => followers.delete(follower));
    res.on('close', () => followers.delete(follower));
  }

  function logKey(namespace: string, pod: string, container?: string): string {
    const object = objects.get(keyOf('pods', namespace, pod));
    const first = (object?.spec as { containers?: { name: string }[] } | undefined)?.containers?.[0]?.name;
    return `${namespace}|${pod}|${container ?? first ?? ''}`;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://double');
    const method = req.method ?? 'GET';
    requests.push({ method, path: url.pathname, contentType: req.headers['content-type'] });
    if (req.headers.authorization !== `Bearer ${token}`) return sendStatus(res, 401, 'Unauthorized', 'Unauthorized');
    const delay = delays.find((d) => (!d.method || d.method === method) && url.pathname.includes(d.pathIncludes));
    // A slow API server is what the test asked for.
    if (delay) await sleep(delay.ms);
    const failure = failures.find((f) => (!f.method || f.method === method) && url.pathname.includes(f.pathIncludes));
    if (failure) return sendStatus(res, failure.code, failure.reason, failure.message);
    if (method === 'GET' && url.pathname === '/version')
      return sendJson(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64' });

    const proxy = PROXY_PATH.exec(url.pathname);
    if (method === 'GET' && proxy) {
      const [, namespace, pod, port] = proxy;
      if (!objects.get(keyOf('pods', namespace!, pod!)))
        return sendStatus(res, 404, 'NotFound', `pods "${pod}" not found`);
      const served = podProxies.get(`${namespace}|${pod}|${port}`);
      if (!served)
        return sendStatus(
          res,
          503,
          'ServiceUnavailable',
          `error trying to reach service: dial tcp 10.0.0.1:${port}: connect: connection refused`,
        );
      // A slow exporter is what the test asked for.
      if (served.delayMs > 0) await sleep(served.delayMs);
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(served.page);
      return;
    }
    const log = LOG_PATH.exec(url.pathname);
    if (method === 'GET' && log) return servePodLog(req, res, url, log[1]!, log[2]!);
    if (url.pathname.startsWith('/apis/metrics.k8s.io/') && !metricsServed)
      return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource');

    const discovery = /^\/apis\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && discovery) {
      const groupVersion = `${discovery[1]}/${discovery[2]}`;
      const served = (options.crds ?? DEFAULT_CUSTOM_RESOURCES)
        .filter((crd) => crd.startsWith(`${groupVersion}/`))
        .map((crd) => crd.split('/').pop()!);
      if (served.length === 0)
        return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource');
      return sendJson(res, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion,
        resources: served.map((name) => ({
          name,
          singularName: '',
          namespaced: true,
          kind: name,
          verbs: ['get', 'list', 'watch', 'create', 'patch'],
        })),
      });
    }

    const target = parsePath(url.pathname);
    if (!target)
      return sendStatus(
        res,
        404,
        'NotFound',
        `the server could not find the requested resource (${method} ${url.pathname})`,
      );
    const { resource, name } = target;
    const namespace =
      target.namespace ?? (CLUSTER_SCOPED.has(resource) && (name || method === 'POST') ? '' : undefined);
    // `crds` lists custom resources only: built-in groups (StorageClasses) are served as a real API server serves them.
    if (
      resource.includes('/') &&
      !resource.startsWith('metrics.k8s.io/') &&
      !resource.startsWith('storage.k8s.io/') &&
      options.crds &&
      !options.crds.includes(resource)
    )
      return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource');
    const described = `${resource.split('/').pop()} "${name ?? ''}"`;

    if (!name) {
      if (method === 'GET') {
        const selector = url.searchParams.get('labelSelector');
        if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
          res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
          const watcher = { resource, namespace, selector, res };
          watchers.add(watcher);
          req.on('close', () => watchers.delete(watcher));
          return;
        }
        const items = [...objects.entries()]
          .filter(
            ([key, object]) =>
              key.startsWith(`${resource}|`) &&
              (!namespace || object.metadata.namespace === namespace) &&
              matchesSelector(object, selector),
          )
          .map(([, object]) => object);
        return sendJson(res, 200, {
          kind: 'List',
          apiVersion: 'v1',
          metadata: { resourceVersion: String(revision) },
          items,
        });
      }
      if (method === 'POST' && namespace !== undefined) {
        const body = (await readBody(req)) as KubeObject;
        const objectName =
          body.metadata.name ??
          (body.metadata.generateName
            ? `${body.metadata.generateName}${Math.random().toString(36).slice(2, 7)}`
            : undefined);
        if (!objectName || !NAME.test(objectName))
          return sendStatus(
            res,
            422,
            'Invalid',
            `${resource} "${objectName ?? ''}" is invalid: metadata.name: Invalid value`,
          );
        if (objects.has(keyOf(resource, namespace, objectName)))
          return sendStatus(res, 409, 'AlreadyExists', `${resource} "${objectName}" already exists`);
        return sendJson(
          res,
          201,
          store(resource, namespace, { ...body, metadata: { ...body.metadata, name: objectName } }, true),
        );
      }
      return sendStatus(res, 405, 'MethodNotAllowed', `${method} is not supported here`);
    }

    if (namespace === undefined) return sendStatus(res, 404, 'NotFound', 'namespace required');
    const key = keyOf(resource, namespace, name);
    const current = objects.get(key);
    if (method === 'GET')
      return current ? sendJson(res, 200, current) : sendStatus(res, 404, 'NotFound', `${described} not found`);
    if (method === 'DELETE') {
      if (!current) return sendStatus(res, 404, 'NotFound', `${described} not found`);
      objects.delete(key);
      notify('DELETED', resource, current);
      return sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success', metadata: {} });
    }
    if (method === 'PUT' || method === 'PATCH') {
      if (!current) return sendStatus(res, 404, 'NotFound', `${described} not found`);
      const pending = conflicts.get(resource) ?? 0;
      if (pending > 0) {
        conflicts.set(resource, pending - 1);
        return sendStatus(
          res,
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${described}: the object has been modified; please apply your changes to the latest version and try again`,
        );
      }
      const body = (await readBody(req)) as KubeObject;
      if (method === 'PUT') {
        if (body.metadata.resourceVersion && body.metadata.resourceVersion !== current.metadata.resourceVersion) {
          return sendStatus(
            res,
            409,
            'Conflict',
            `Operation cannot be fulfilled on ${described}: the object has been modified; please apply your changes to the latest version and try again`,
          );
        }
        return sendJson(
          res,
          200,
          store(
            resource,
            namespace,
            {
              ...body,
              metadata: {
                ...body.metadata,
                name,
                uid: current.metadata.uid,
                creationTimestamp: current.metadata.creationTimestamp,
              },
            },
            false,
          ),
        );
      }
      const type = req.headers['content-type'] ?? '';
      if (!/merge-patch\+json|strategic-merge-patch\+json/.test(type))
        return sendStatus(
          res,
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json`,
        );
      return sendJson(res, 200, store(resource, namespace, mergePatch(current, body) as KubeObject, false));
    }
    return sendStatus(res, 405, 'MethodNotAllowed', `${method} is not supported here`);
  }

  const dir = await mkdtemp(path.join(os.tmpdir(), 'kube-double-'));
  const tls = await servingCertificate(dir);
  const server: Server = createServer(tls, (req, res) => {
    handle(req, res).catch((error: unknown) => sendStatus(res, 500, 'InternalError', String(error)));
  });
  let tlsConnections = 0;
  server.on('secureConnection', () => tlsConnections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const port = address.port;
  const url = `https://127.0.0.1:${port}`;
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, token, tls.cert), { mode: 0o600 });

  return {
    url,
    token,
    kubeconfigPath,
    requests,
    get: (resource, namespace, name) => structuredClone(objects.get(keyOf(resource, namespace, name))),
    list: (resource) =>
      [...objects.entries()]
        .filter(([key]) => key.startsWith(`${resource}|`))
        .map(([, object]) => structuredClone(object)),
    put: (resource, namespace, object) => {
      const current = objects.get(keyOf(resource, namespace, object.metadata.name!));
      if (!current) return store(resource, namespace, object, true);
      // An update keeps the object's identity and creation time, as the API server's does (a fixture may still set
      // its own).
      const metadata = {
        ...object.metadata,
        uid: object.metadata.uid ?? current.metadata.uid,
        creationTimestamp: object.metadata.creationTimestamp ?? current.metadata.creationTimestamp,
      };
      return store(resource, namespace, { ...object, metadata }, false);
    },
    remove: (resource, namespace, name) => {
      const current = objects.get(keyOf(resource, namespace, name));
      objects.delete(keyOf(resource, namespace, name));
      if (current) notify('DELETED', resource, current);
    },
    setPodProxy: (namespace, pod, port, page, delayMs = 0) => {
      if (page === undefined) podProxies.delete(`${namespace}|${pod}|${port}`);
      else podProxies.set(`${namespace}|${pod}|${port}`, { page, delayMs });
    },
    setPodLog: (namespace, pod, lines, container) => {
      const at = new Date().toISOString();
      podLogs.set(
        logKey(namespace, pod, container),
        lines.map((text) => ({ at, text })),
      );
    },
    appendPodLog: (namespace, pod, lines, container) => {
      const key = logKey(namespace, pod, container);
      const at = new Date().toISOString();
      const added = lines.map((text) => ({ at, text }));
      podLogs.set(key, [...(podLogs.get(key) ?? []), ...added]);
      for (const follower of followers)
        if (follower.key === key)
          follower.res.write(added.map((line) => logLineText(line, follower.timestamps)).join(''));
    },
    endPodLog: (namespace, pod) => {
      for (const follower of followers)
        if (follower.key.startsWith(`${namespace}|${pod}|`)) {
          followers.delete(follower);
          follower.res.end();
        }
    },
    openLogFollows: () => followers.size,
    tlsConnections: () => tlsConnections,
    setMetricsApi: (served) => {
      metricsServed = served;
    },
    injectConflicts: (resource, count) => conflicts.set(resource, count),
    failRequests: (match, code, reason, message) => failures.push({ ...match, code, reason, message }),
    delayRequests: (match, ms) => delays.push({ ...match, ms }),
    clearFaults: () => {
      failures.length = 0;
      delays.length = 0;
    },
    setReachable: (reachable) =>
      new Promise<void>((resolve, reject) => {
        if (reachable === server.listening) return resolve();
        if (reachable) {
          server.once('error', reject);
          server.listen(port, '127.0.0.1', () => {
            server.off('error', reject);
            resolve();
          });
          return;
        }
        for (const watcher of watchers) watcher.res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const watcher of watchers) watcher.res.end();
        for (const follower of followers) follower.res.end();
        server.closeAllConnections();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}
