// A slow-header client is dropped after HEADERS_TIMEOUT_MS, and MAX_CONNECTIONS caps open sockets.
import { connect, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from '../support/browser.js';

const t = useBrowserApp({ env: { HEADERS_TIMEOUT_MS: '500', MAX_CONNECTIONS: '2' }, listen: true, roles: [] });
let port: number;

beforeAll(() => {
  port = Number(new URL(t.baseUrl).port);
});

/** Opens a raw socket and collects everything the server sends until it closes the connection. */
function rawSocket(): { socket: Socket; connected: Promise<void>; closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  socket.on('error', () => undefined);
  return { socket, connected, closed };
}

describe('connection limits', () => {
  it('answers a client that never finishes its headers with 408 and closes its connection', async () => {
    const slow = rawSocket();
    await slow.connected;
    slow.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    // Without the fix Node keeps the socket for 60 s, beyond this test's timeout.
    expect(await slow.closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('drops connections beyond MAX_CONNECTIONS and serves again once they close', async () => {
    const first = rawSocket();
    const second = rawSocket();
    await Promise.all([first.connected, second.connected]);
    // The server counts a connection once it has accepted it: a request answered on each proves both are held.
    for (const held of [first, second]) {
      const answered = new Promise<void>((resolve) => held.socket.once('data', () => resolve()));
      held.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await answered;
    }
    const third = rawSocket();
    third.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await third.closed).toBe('');

    first.socket.destroy();
    second.socket.destroy();
    await Promise.all([first.closed, second.closed]);
    // The server learns of the closes on its own turn of the event loop: wait until it counts none.
    const open = () =>
      new Promise<number>((resolve, reject) =>
        t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    while ((await open()) > 0) await new Promise((resolve) => setImmediate(resolve));
    const again = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { connection: 'close' } });
    expect(again.status).toBe(200);
  });
});
