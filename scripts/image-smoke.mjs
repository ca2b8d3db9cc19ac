// Runs a built image's root filesystem (scripts/test-image.sh) the way a container runtime would: the image's
// entrypoint and command, as its user, in its working directory, with its environment, under chroot in a new PID
// namespace (so tini is PID 1). Then proves what an operator relies on: every shared library of the server and the
// FalkorDB module resolves, the server comes up in embedded mode, a token is issued, a query returns rows, and
// SIGTERM stops everything cleanly within the grace period. Exits non-zero, saying why, at the first failure.
// Usage: node scripts/image-smoke.mjs <rootfs> <image-config.json>
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const [rootfs, configFile] = process.argv.slice(2);
if (!rootfs || !configFile) throw new Error('usage: image-smoke.mjs <rootfs> <image-config.json>');
const config = JSON.parse(readFileSync(configFile, 'utf8'));
const GRACE_MS = 30_000; // the chart's terminationGracePeriodSeconds
const STARTUP_MS = 60_000;

function fail(message, output = '') {
  console.error(`[image-smoke] FAILED: ${message}`);
  if (output) console.error(output.split('\n').slice(-25).join('\n'));
  process.exit(1);
}

/** uid and gid of the image's user, read from its own /etc/passwd. */
function userIds(name) {
  if (/^\d+(:\d+)?$/.test(name)) return name.includes(':') ? name : `${name}:${name}`;
  const line = readFileSync(path.join(rootfs, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`));
  if (!line) fail(`user ${name} is not in the image's /etc/passwd`);
  const [, , uid, gid] = line.split(':');
  return `${uid}:${gid}`;
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// 1. Every shared library resolves (ldd inside the image: what the loader will find there).
const binaries = [
  '/usr/bin/valkey-server',
  '/usr/local/bin/node',
  ...['falkordb.so'].map((file) => `${config.WorkingDir}/node_modules/@falkordblite/linux-x64/bin/${file}`),
];
for (const binary of binaries) {
  const ldd = spawnSync('chroot', [rootfs, '/usr/bin/ldd', binary], { encoding: 'utf8' });
  const missing = `${ldd.stdout}${ldd.stderr}`.split('\n').filter((line) => /not found/.test(line));
  if (ldd.status !== 0 || missing.length > 0) fail(`${binary}: ${missing.join('; ').trim() || ldd.stderr.trim()}`);
}
console.log(`[image-smoke] shared libraries resolve: ${binaries.join(', ')}`);

// 2. Start it. PORT and HOST are set as an operator would; everything else is the image's.
const port = await freePort();
const env = [...config.Env.filter((entry) => !/^(PORT|HOST)=/.test(entry)), `PORT=${port}`, 'HOST=127.0.0.1'];
const command = [...(config.Entrypoint ?? []), ...(config.Cmd ?? [])];
const child = spawn(
  'unshare',
  [
    '--pid',
    '--fork',
    '--mount',
    `--mount-proc=${path.join(rootfs, 'proc')}`,
    'chroot',
    `--userspec=${userIds(config.User || 'root')}`,
    rootfs,
    '/usr/bin/env',
    '-i',
    ...env,
    '/bin/sh',
    '-c',
    'cd "$0" && exec "$@"',
    config.WorkingDir || '/',
    ...command,
  ],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
let output = '';
child.stdout.on('data', (chunk) => (output += chunk));
child.stderr.on('data', (chunk) => (output += chunk));
const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
let stopped = false;
void exited.then(() => (stopped = true));

const base = `http://127.0.0.1:${port}`;
const started = Date.now();
let ready = false;
while (!ready && !stopped && Date.now() - started < STARTUP_MS) {
  ready = await fetch(`${base}/readyz`).then(
    (res) => res.status === 200,
    () => false,
  );
  if (!ready) await sleep(250);
}
if (!ready) {
  child.kill('SIGKILL');
  fail(
    stopped ? 'the server exited during start-up' : `/readyz did not answer 200 within ${STARTUP_MS / 1000} s`,
    output,
  );
}
console.log(`[image-smoke] /readyz 200 after ${Date.now() - started} ms`);

// 3. A token for the embedded database's admin account, whose password file the start-up log names.
const announced = output
  .split('\n')
  .map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      return undefined;
    }
  })
  .find((line) => line?.embeddedFalkorDB);
if (!announced) fail('the start-up log does not announce the embedded FalkorDB', output);
const { host, port: databasePort, username, passwordFile } = announced.embeddedFalkorDB;
const password = readFileSync(path.join(rootfs, passwordFile), 'utf8').trim();
const created = await fetch(`${base}/api/auth/tokens/credentials`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username, password, host, port: String(databasePort), tls: 'false' }),
});
const createdBody = await created.json();
if (created.status !== 200 || typeof createdBody.token !== 'string')
  fail(`token creation answered ${created.status} ${JSON.stringify(createdBody)}`, output);

// 4. A query that writes and one that reads rows back.
const query = async (cypher) => {
  const res = await fetch(`${base}/api/graph/smoke?query=${encodeURIComponent(cypher)}&timeout=10000`, {
    headers: { authorization: `Bearer ${createdBody.token}` },
  });
  return { status: res.status, body: await res.json() };
};
const write = await query("CREATE (:Image {built: 'yes'}), (:Image {built: 'also'})");
if (write.status !== 200) fail(`the write query answered ${write.status} ${JSON.stringify(write.body)}`, output);
const read = await query('MATCH (i:Image) RETURN i.built AS built ORDER BY built');
if (read.status !== 200 || JSON.stringify(read.body.data) !== JSON.stringify([{ built: 'also' }, { built: 'yes' }]))
  fail(`the read query answered ${read.status} ${JSON.stringify(read.body)}`, output);
console.log('[image-smoke] token issued; the query returned its rows');

// 5. SIGTERM to PID 1 of the namespace (tini, the child of unshare), as the kubelet does.
const tiniPid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
if (!tiniPid) fail('could not find the entrypoint process');
const signalled = Date.now();
process.kill(tiniPid, 'SIGTERM');
const outcome = await Promise.race([exited, sleep(GRACE_MS).then(() => undefined)]);
if (!outcome) {
  child.kill('SIGKILL');
  fail(`still running ${GRACE_MS / 1000} s after SIGTERM`, output);
}
if (outcome.code !== 0) fail(`exited with ${outcome.code ?? outcome.signal} after SIGTERM`, output);
const databaseGone = await new Promise((resolve) => {
  const socket = net.connect({ host: '127.0.0.1', port: databasePort });
  socket.on('connect', () => (socket.destroy(), resolve(false)));
  socket.on('error', () => resolve(true));
});
if (!databaseGone) fail(`the embedded FalkorDB still listens on ${databasePort} after the server stopped`, output);
console.log(`[image-smoke] SIGTERM: exit 0 after ${outcome.at - signalled} ms, the embedded FalkorDB stopped with it`);
