// Small network helpers for launching local servers: a free loopback port and a Redis-protocol PING.
import net from 'node:net';

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

/** Sends one inline PING and resolves with the first reply line (`+PONG`, `-LOADING ...`). */
export function pingRedisProtocol(host: string, port: number, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let received = '';
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no reply from ${host}:${port} within ${timeoutMs} ms`)));
    socket.once('error', fail);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const end = received.indexOf('\r\n');
      if (end !== -1) {
        socket.end();
        resolve(received.slice(0, end));
      }
    });
  });
}
