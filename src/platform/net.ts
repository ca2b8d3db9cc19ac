// Small network helpers for launching local servers: a free loopback port and a Redis-protocol PING.
import net from 'node:net';
import { encodeCommands } from './falkordb/resp-reader.js';

export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not determine a free port'));
      });
    });
  });
}

/** True when nothing listens on `host:port` now (the answer may change at once; callers handle a clash). */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * Sends PING (after AUTH when an account is given) and resolves with the reply line that tells the outcome:
 * `+PONG`, `-LOADING ...`, or the AUTH error.
 */
export function pingRedisProtocol(
  host: string,
  port: number,
  timeoutMs = 1000,
  account?: { username: string; password: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let received = '';
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no reply from ${host}:${port} within ${timeoutMs} ms`)));
    socket.once('error', fail);
    const commands = account ? [['AUTH', account.username, account.password], ['PING']] : [['PING']];
    socket.once('connect', () => socket.write(encodeCommands(commands)));
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const lines = received.split('\r\n');
      const complete = lines.slice(0, -1);
      // AUTH answers first; when it fails, its error is the outcome.
      const failedAuth = account && complete[0]?.startsWith('-');
      if (failedAuth || complete.length >= commands.length) {
        socket.end();
        resolve(failedAuth ? complete[0]! : complete[commands.length - 1]!);
      }
    });
  });
}
