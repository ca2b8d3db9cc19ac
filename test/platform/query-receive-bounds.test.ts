// A query's reply from an external FalkorDB is refused while it arrives, not after it has been read
// whole. The server here speaks real RESP over TCP and plays a database that sends a reply without end: the only
// way to stand for an external server that returns more than any bound without filling this machine's memory.
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionPools } from '../../src/platform/falkordb/connection-pools.js';
import { GraphDatabase, ResultTooLargeError } from '../../src/platform/falkordb/graph-database.js';
import { eventually } from '../support/wait.js';

/** How the database answers a GRAPH.RO_QUERY: a reply header, then `body` pushed until the client goes away. */
type Behaviour = { header: string; body: string } | { reply: string };

interface HostileServer {
  port: number;
  behaviour: Behaviour;
  /** Bytes written to each connection that received a query, and whether that connection has closed. */
  connections: { written: number; closed: boolean }[];
  close(): Promise<void>;
}

async function startHostileServer(): Promise<HostileServer> {
  const connections: HostileServer['connections'] = [];
  const state = { behaviour: { reply: '' } as Behaviour };
  const server = net.createServer((socket) => {
    const record = { written: 0, closed: false };
    socket.on('close', () => (record.closed = true));
    socket.on('error', () => undefined);
    let queried = false;
    socket.on('data', (chunk) => {
      const text = chunk.toString('latin1');
      if (text.includes('AUTH')) socket.write('+OK\r\n');
      if (!text.includes('GRAPH.RO_QUERY') || queried) return;
      queried = true;
      connections.push(record);
      const behaviour = state.behaviour;
      // The first query on a graph goes behind a schema version probe, answered here as a version mismatch.
      const probe = '*2\r\n-version mismatch\r\n:7\r\n';
      if ('reply' in behaviour) {
        // The probe, the query and the three name lookups behind it, in order.
        socket.write(probe + behaviour.reply + '*1\r\n*0\r\n'.repeat(3));
        return;
      }
      socket.write(probe + behaviour.header);
      const block = behaviour.body.repeat(Math.ceil(65_536 / behaviour.body.length));
      const push = () => {
        while (!socket.destroyed && socket.write(block)) record.written += block.length;
        if (!socket.destroyed) socket.once('drain', push);
      };
      push();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(next: Behaviour) {
      state.behaviour = next;
    },
    connections,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let server: HostileServer;
let pools: ConnectionPools;
let database: GraphDatabase;

beforeAll(async () => {
  server = await startHostileServer();
  pools = new ConnectionPools(pino({ level: 'silent' }), { commandTimeoutMs: 30_000 });
  database = new GraphDatabase(
    pools.pool({ host: '127.0.0.1', port: server.port, username: 'default', password: 'secret', tls: false }),
  );
});
afterAll(async () => {
  await pools.closeAll();
  await server.close();
});

const bounds = { readOnly: true, maxRows: 100, maxBytes: 1024 * 1024 };
const ROW = '*1\r\n*2\r\n:3\r\n:1\r\n';

describe('a query reply from an external database, read within its bounds', () => {
  it('refuses a reply by the row count in its header and drops the connection while rows still stream', async () => {
    server.behaviour = { header: '*3\r\n*1\r\n*2\r\n:1\r\n$1\r\nx\r\n*1000000000\r\n', body: ROW };
    const started = Date.now();
    await expect(database.queryRows('g', 'MATCH (n) RETURN n', bounds)).rejects.toThrow(
      new ResultTooLargeError('The result has more than the 100 rows allowed: add LIMIT to the query'),
    );
    const connection = server.connections.at(-1)!;
    await eventually(() => connection.closed, 5000);
    // Refused at the header, not after the 30 s reply deadline; only what the socket buffers absorbed was sent.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(connection.written).toBeLessThan(16 * 1024 * 1024);
  });

  it('refuses a reply whose bytes pass the bound, however few rows it declares', async () => {
    server.behaviour = {
      header: '*3\r\n*1\r\n*2\r\n:1\r\n$1\r\nx\r\n*2\r\n*1\r\n*2\r\n:2\r\n$2000000000\r\n',
      body: 'x',
    };
    await expect(database.queryRows('g', 'MATCH (n) RETURN n.text', bounds)).rejects.toThrow(
      new ResultTooLargeError('The result is larger than the 1048576 bytes allowed: return fewer rows or properties'),
    );
    server.behaviour = {
      header: '*3\r\n*1\r\n*2\r\n:1\r\n$1\r\nx\r\n*1000\r\n',
      body: '*1\r\n*2\r\n:2\r\n$4096\r\n' + 'y'.repeat(4096) + '\r\n',
    };
    await expect(database.queryRows('g', 'MATCH (n) RETURN n.text', { ...bounds, maxRows: 1_000_000 })).rejects.toThrow(
      /larger than the 1048576 bytes allowed/,
    );
    await eventually(() => server.connections.every((connection) => connection.closed), 5000);
  });

  it('answers the next query on a new connection after a refusal', async () => {
    server.behaviour = { reply: `*3\r\n*1\r\n*2\r\n:1\r\n$1\r\nx\r\n*2\r\n${ROW}${ROW}*1\r\n+Cached execution: 0\r\n` };
    const result = await database.queryRows('g', 'UNWIND [1, 1] AS x RETURN x', bounds);
    expect(result.rowCount).toBe(2);
    expect([result.takeRow(0), result.takeRow(1)]).toEqual([{ x: 1 }, { x: 1 }]);
    expect(result.statistics).toEqual(['Cached execution: 0']);
  });
});
