// One client address cannot hold every connection: past CONNECTIONS_PER_ADDRESS its next socket is closed while
// another address is still served, the proxies TRUST_PROXY names are exempt, an idle connection is closed after
// KEEP_ALIVE_TIMEOUT_MS and a busy one after MAX_REQUESTS_PER_SOCKET requests. Real sockets, from distinct loopback
// addresses (Linux routes all of 127.0.0.0/8 to the loopback interface).
import { connect, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from '../support/browser.js';
import { eventually } from '../support/wait.js';

const t = useBrowserApp({
  env: {
    CONNECTIONS_PER_ADDRESS: '3',
    MAX_CONNECTIONS: '64',
    TRUST_PROXY: '127.0.0.3',
    KEEP_ALIVE_TIMEOUT_MS: '300',
    MAX_REQUESTS_PER_SOCKET: '2',
  },
  listen: true,
  roles: [],
});
let port: number;

beforeAll(() => {
  port = Number(new URL(t.baseUrl).port);
});

interface RawSocket {
  socket: Socket;
  connected: Promise<void>;
  /** Everything the server sent, once it closed the connection. */
  closed: Promise<string>;
  received: () => string;
}

function rawSocket(from: string): RawSocket {
  const socket = connect({ port, host: '127.0.0.1', localAddress: from });
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  socket.on('error', () => undefined);
  return { socket, connected, closed, received: () => received };
}

const REQUEST = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';

/** A request answered on the socket proves the server holds it (and counts it). */
async function answered(held: RawSocket, responses = 1): Promise<void> {
  held.socket.write(REQUEST);
  await eventually(() => (held.received().match(/HTTP\/1\.1 200 /g)?.length ?? 0) >= responses, 5000, {
    detail: () => held.received(),
  });
}

async function openHeld(from: string, count: number): Promise<RawSocket[]> {
  const sockets = Array.from({ length: count }, () => rawSocket(from));
  await Promise.all(sockets.map((held) => held.connected));
  for (const held of sockets) await answered(held);
  return sockets;
}

async function closeAll(sockets: RawSocket[]): Promise<void> {
  for (const held of sockets) held.socket.destroy();
  await Promise.all(sockets.map((held) => held.closed));
}

describe('connection share per client address', () => {
  it('closes a client’s connection past its share while another client is still served', async () => {
    const greedy = await openHeld('127.0.0.1', 3);
    const refused = rawSocket('127.0.0.1');
    refused.socket.write(REQUEST);
    expect(await refused.closed).toBe('');

    const other = await openHeld('127.0.0.2', 1);
    expect(other[0]!.received()).toMatch(/^HTTP\/1\.1 200 /);

    // A closed connection gives its place back.
    greedy[0]!.socket.destroy();
    await greedy[0]!.closed;
    await eventually(async () => /^HTTP\/1\.1 200 /.test(await attempt('127.0.0.1')), 5000);
    await closeAll([...greedy, ...other]);
  });

  it('exempts the proxies TRUST_PROXY names', async () => {
    const proxied = await openHeld('127.0.0.3', 5);
    for (const held of proxied) expect(held.received()).toMatch(/^HTTP\/1\.1 200 /);
    await closeAll(proxied);
  });

  it('closes an idle keep-alive connection after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const [idle] = await openHeld('127.0.0.4', 1);
    const started = Date.now();
    expect(await idle!.closed).toMatch(/^HTTP\/1\.1 200 /);
    // Fastify's default keeps it 72 s; this one goes within about a second of its answer.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('closes a connection after MAX_REQUESTS_PER_SOCKET requests, even for a client that sends on', async () => {
    const busy = rawSocket('127.0.0.5');
    await busy.connected;
    await answered(busy);
    await answered(busy, 2);
    // A client that ignores `Connection: close` and sends on: Node alone would answer it 503 and keep the socket.
    busy.socket.write(REQUEST);
    const text = await busy.closed;
    const responses = text.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/\r\nconnection: keep-alive\r\n/i);
    expect(responses[1]).toMatch(/\r\nconnection: close\r\n/i);
  });
});

/** One request on a new connection: the server's answer, or '' when it closed the connection without one. */
async function attempt(from: string): Promise<string> {
  const once = rawSocket(from);
  once.socket.write(REQUEST);
  const first = await Promise.race([
    once.closed,
    new Promise<string>((resolve) => once.socket.once('data', (chunk: string) => resolve(chunk))),
  ]);
  once.socket.destroy();
  await once.closed;
  return first;
}
