// A Kubernetes API server double speaking the real REST protocol over HTTP, so @kubernetes/client-node runs
// unchanged against it through a generated kubeconfig. It grows resource by resource as the admin API needs them.
import { execFileSync } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface KubeApiDouble {
  url: string;
  token: string;
  kubeconfigPath: string;
  requests: { method: string; path: string }[];
  close(): Promise<void>;
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
}

/** A throw-away serving certificate for 127.0.0.1, made with the openssl CLI (Debian's openssl package). */
async function servingCertificate(dir: string): Promise<{ key: string; cert: string }> {
  const keyPath = path.join(dir, 'tls.key');
  const certPath = path.join(dir, 'tls.crt');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=kube-api-double', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    '-keyout', keyPath, '-out', certPath,
  ], { stdio: 'ignore' });
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
    '  context:',
    '    cluster: double',
    '    user: tester',
    '    namespace: graphdb-system',
    'current-context: double',
    '',
  ].join('\n');
}

export async function startKubeApiDouble(): Promise<KubeApiDouble> {
  const token = `double-token-${Math.random().toString(36).slice(2)}`;
  const requests: { method: string; path: string }[] = [];
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kube-double-'));
  const tls = await servingCertificate(dir);
  const server: Server = createServer(tls, (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://double');
    requests.push({ method: req.method ?? 'GET', path: url.pathname });
    if (req.headers.authorization !== `Bearer ${token}`) return status(res, 401, 'Unauthorized', 'Unauthorized');
    if (req.method === 'GET' && url.pathname === '/version') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0', gitCommit: '', gitTreeState: 'clean', buildDate: '', goVersion: '', compiler: 'gc', platform: 'linux/amd64' }));
      return;
    }
    status(res, 404, 'NotFound', `the server could not find the requested resource (${req.method} ${url.pathname})`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const url = `https://127.0.0.1:${address.port}`;
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, token, tls.cert), { mode: 0o600 });
  return {
    url,
    token,
    kubeconfigPath,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
