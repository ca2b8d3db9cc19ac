// Restoring staged exports cannot exhaust the server: a restore takes its user's share (RESTORES_PER_USER) and its
// dump's bytes of RESTORE_BYTES_MAX before a byte is read, so the restores past them are refused at once (429, 413
// for a dump larger than the whole budget) while another user's restore is still served; the dump streams from disk
// to the database, so the server holds no copy of it, however many restores are attempted. Staged files are bounded
// in bytes per user (UPLOAD_STAGED_BYTES_PER_USER, 413) and in all (UPLOAD_STAGED_BYTES_MAX, 503).
// The database is paused for writes (CLIENT PAUSE WRITE) to hold restores at the RESTORE command, the moment on
// today's main a restore held its whole dump in memory.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../support/app.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';
import {
  adminClient,
  bearer,
  createDbUser,
  createToken,
  credentials,
  multipartFile,
  useBrowserApp,
} from '../support/browser.js';
import { eventually } from '../support/wait.js';

type AppUnderTest = Pick<TestApp, 'app' | 'falkordb'>;

// A full collection before each reading of the memory held, so garbage not yet collected is not counted.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const heldBytes = () => {
  collectGarbage();
  return process.memoryUsage().arrayBuffers;
};

const MiB = 1024 * 1024;

async function userToken(t: AppUnderTest, username: string) {
  await createDbUser(t.falkordb, username, `${username}-password`, 'Read-Write');
  return createToken(t.app, credentials(t.falkordb, username, `${username}-password`));
}

function stage(t: AppUnderTest, token: string, filename: string, content: Buffer) {
  const { payload, headers } = multipartFile(filename, content);
  return t.app.inject({ method: 'POST', url: '/api/upload', payload, headers: { ...headers, ...bearer(token) } });
}

async function staged(t: AppUnderTest, token: string, filename: string, content: Buffer): Promise<string> {
  const res = await stage(t, token, filename, content);
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ fileId: string }>().fileId;
}

const restore = (t: AppUnderTest, token: string, graph: string, fileId: string) =>
  t.app.inject({ method: 'POST', url: `/api/graph/${graph}/upload`, payload: { fileId }, headers: bearer(token) });

const messageOf = (res: LightMyRequestResponse) => res.json<{ message: string }>().message;

describe('restores of staged exports', () => {
  let falkordb: TestFalkorDB;
  let big: Buffer;
  let small: Buffer;
  let restoreBytesMax: number;

  beforeAll(async () => {
    falkordb = await startTestFalkorDB();
    // An export of some megabytes and a small one, each of a graph deleted afterwards (a restore needs its origin
    // name free). An export is the graph's DUMP.
    const database = await adminClient(falkordb);
    try {
      const exportOf = async (graph: string, cypher: string) => {
        await database.sendCommand(['GRAPH.QUERY', graph, cypher]);
        const dump = await database.sendCommand<Buffer>(['DUMP', graph], { typeMapping: { 36: Buffer } });
        await database.sendCommand(['GRAPH.DELETE', graph]);
        return dump;
      };
      big = await exportOf(
        'big-origin',
        "UNWIND range(1, 400000) AS i CREATE (:Item {i: i, text: 'a value long enough to make the export weigh megabytes'})",
      );
      small = await exportOf('small-origin', "CREATE (:Item {i: 1, text: 'small'})");
    } finally {
      await database.close();
    }
    expect(big.length).toBeGreaterThan(8 * MiB);
    // The budget fits the big export and the small one beside it, not two big ones.
    restoreBytesMax = big.length + small.length + 4096;
  });
  afterAll(() => falkordb?.stop());
  // Its users are made per test; the budget is known once the exports above are.
  const t = useBrowserApp(() => ({
    falkordb,
    env: {
      UPLOAD_BYTES_MAX: String(64 * MiB),
      UPLOAD_STAGED_BYTES_PER_USER: String(64 * MiB),
      UPLOAD_STAGED_BYTES_MAX: String(256 * MiB),
      RESTORES_PER_USER: '1',
      RESTORE_BYTES_MAX: String(restoreBytesMax),
    },
    roles: [],
  }));

  it('refuses one user past their share and the budget at once, holds no dump in memory, and serves another user', async () => {
    const [alice, bob, carol] = [
      await userToken(t, 'rb-alice'),
      await userToken(t, 'rb-bob'),
      await userToken(t, 'rb-carol'),
    ];
    const aliceFile = await staged(t, alice, 'big.dump', big);
    const bobFile = await staged(t, bob, 'small.dump', small);
    const carolFile = await staged(t, carol, 'big.dump', big);
    // Larger than the whole budget: refused before it is read (it is no export at all, which reading would find).
    const hugeFile = await staged(t, carol, 'huge.dump', Buffer.alloc(restoreBytesMax + 1, 0x61));

    const database = await adminClient(t.falkordb);
    const blockedRestores = async () =>
      (await database.sendCommand<string>(['CLIENT', 'LIST'])).split('\n').filter((line) => / cmd=restore /.test(line))
        .length;
    try {
      const before = heldBytes();
      await database.sendCommand(['CLIENT', 'PAUSE', '60000', 'WRITE']);
      // Eight restores of one upload at once, by one user: one runs (and waits at the paused RESTORE), seven are
      // refused before reading it.
      const attempts = Array.from({ length: 8 }, (_, index) => restore(t, alice, `alice-${index}`, aliceFile));
      const settled: LightMyRequestResponse[] = [];
      for (const attempt of attempts) void attempt.then((res) => settled.push(res));
      await eventually(async () => {
        const waiting = await blockedRestores();
        return waiting > 0 && settled.length + waiting === attempts.length;
      }, 20_000);
      // The restores that run have sent their whole dump to the database, and the server holds no copy of it.
      // Garbage is freed by V8 a little after a collection (its buffers are swept concurrently): what stays is held.
      let held = Infinity;
      await eventually(() => (held = heldBytes() - before) < big.length / 4, 5000, {
        detail: () => `${held} bytes held, the dump is ${big.length}`,
      });
      expect(settled.map((res) => res.statusCode)).toEqual(Array(7).fill(429));
      expect(messageOf(settled[0]!)).toMatch(/RESTORES_PER_USER/);
      expect(settled[0]!.headers['retry-after']).toBe('1');

      // Another user is still served beside it; a third user's big export does not fit the budget (429), and a
      // dump larger than the budget never can (413).
      const bobs = restore(t, bob, 'bob-restored', bobFile);
      await eventually(async () => (await blockedRestores()) === 2, 20_000);
      const carols = await restore(t, carol, 'carol-restored', carolFile);
      expect([carols.statusCode, messageOf(carols)]).toEqual([
        429,
        'Other restores hold the bytes restores may take at once (RESTORE_BYTES_MAX): try again in a moment',
      ]);
      const huge = await restore(t, carol, 'huge-restored', hugeFile);
      expect([huge.statusCode, messageOf(huge)]).toEqual([
        413,
        `The export is larger than the ${restoreBytesMax} bytes a restore may hold (RESTORE_BYTES_MAX)`,
      ]);

      await database.sendCommand(['CLIENT', 'UNPAUSE']);
      const [alices, bobsDone] = await Promise.all([Promise.all(attempts), bobs]);
      const ran = alices.filter((res) => res.statusCode === 200);
      expect(ran).toHaveLength(1);
      expect(bobsDone.statusCode, bobsDone.body).toBe(200);
      const graphs = await database.sendCommand<string[]>(['GRAPH.LIST']);
      expect(graphs).toEqual(expect.arrayContaining(['bob-restored']));
      expect(graphs.filter((graph) => graph.startsWith('alice-'))).toHaveLength(1);
      expect(graphs).not.toContain('carol-restored');
      // Each budget was given back: the third user's restore runs now.
      const again = await restore(t, carol, 'carol-restored', carolFile);
      expect(again.statusCode, again.body).toBe(200);
    } finally {
      await database.sendCommand(['CLIENT', 'UNPAUSE']).catch(() => undefined);
      await database.close();
    }
  });
});

describe('staged files', () => {
  const t = useBrowserApp({
    env: {
      UPLOAD_BYTES_MAX: String(8 * MiB),
      UPLOAD_STAGED_BYTES_PER_USER: String(3 * MiB),
      UPLOAD_STAGED_BYTES_MAX: String(5 * MiB),
    },
    roles: [],
  });

  it('refuses one user past their share of the staging space while another user is still served, and a full server', async () => {
    const [dave, erin, frank] = [
      await userToken(t, 'st-dave'),
      await userToken(t, 'st-erin'),
      await userToken(t, 'st-frank'),
    ];
    const file = Buffer.alloc(2 * MiB, 0x61);
    await staged(t, dave, 'one.cypher', file);
    const past = await stage(t, dave, 'two.cypher', file);
    expect([past.statusCode, messageOf(past)]).toEqual([
      413,
      `Your staged files would take more than the ${3 * MiB} bytes allowed (UPLOAD_STAGED_BYTES_PER_USER): run them, or wait an hour for them to expire`,
    ]);
    // Nothing of the refused file is kept: what is left of the share can still be used.
    await staged(t, dave, 'three.cypher', Buffer.alloc(MiB, 0x61));

    await staged(t, erin, 'one.cypher', Buffer.alloc(MiB, 0x61));
    const full = await stage(t, frank, 'one.cypher', file);
    expect([full.statusCode, messageOf(full), full.headers['retry-after']]).toEqual([
      503,
      "The server's staging space (UPLOAD_STAGED_BYTES_MAX) is full: try again later",
      '60',
    ]);
  });
});
