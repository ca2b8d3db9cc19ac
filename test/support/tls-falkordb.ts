// A FalkorDB that speaks TLS only, with a certificate from a throw-away CA (openssl), for token tests over TLS.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { bundledPackageDir } from '../../src/platform/falkordb/embedded-falkordb.js';
import { findServerBinary } from '../../src/platform/falkordb/server-binary.js';
import { findFreePort } from '../../src/platform/net.js';
import { eventually } from './wait.js';

export interface TlsFalkorDB {
  port: number;
  caPem: string;
  stop(): Promise<void>;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** The server's certificate names `localhost` and 127.0.0.1. */
async function issueCertificates(dir: string): Promise<void> {
  openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=test-ca',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  );
  openssl(
    dir,
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  await writeFile(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'san.ext',
    '-out',
    'server.pem',
  );
}

async function waitForTls(port: number, caPem: string, child: ChildProcess): Promise<void> {
  await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`TLS FalkorDB exited with ${child.exitCode}`);
      return await new Promise<boolean>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost' }, () => {
          socket.end();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
        // A handshake the server never answers (it accepted while still starting) must not stall the wait forever.
        socket.setTimeout(1000, () => {
          socket.destroy();
          resolve(false);
        });
      });
    },
    15_000,
    { intervalMs: 100, detail: () => 'TLS FalkorDB did not start within 15 s' },
  );
}

export async function startTlsFalkorDB(): Promise<TlsFalkorDB> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-tls-'));
  await issueCertificates(dir);
  const packageDir = bundledPackageDir();
  if (!packageDir) throw new Error('the FalkorDB module package is missing');
  const server = await findServerBinary({ bundledDir: path.join(packageDir, 'bin') });
  const port = await findFreePort();
  const child = spawn(
    server.path,
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--tls-cert-file',
      'server.pem',
      '--tls-key-file',
      'server.key',
      '--tls-ca-cert-file',
      'ca.pem',
      '--tls-auth-clients',
      'no',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--loadmodule',
      path.join(packageDir, 'bin', 'falkordb.so'),
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const caPem = await readFile(path.join(dir, 'ca.pem'), 'utf8');
  await waitForTls(port, caPem, child);
  return {
    port,
    caPem,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
