// The throw-away FalkorDB that reads an export's origin graph name: reachable by this process's user only (a Unix
// socket in a 0700 directory, no TCP port at all), gone with its directory when done, and fed the dump from disk.
import { readdir, readFile, readlink, stat, writeFile, mkdtemp } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import os from 'node:os';
import { Readable } from 'node:stream';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { originGraphName, startScratchServer } from '../../src/platform/falkordb/dump-origin.js';
import { isPortError } from '../../src/platform/port-errors.js';
import { startTestFalkorDB, type TestFalkorDB } from '../support/falkordb.js';

/** The inodes of the TCP sockets listening on this machine (state 0A in /proc/net/tcp and tcp6). */
async function listeningTcpInodes(): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** The socket inodes a process holds open. */
async function socketInodes(pid: number): Promise<string[]> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.flatMap((target) => /^socket:\[(\d+)\]$/.exec(target)?.[1] ?? []);
}

describe('the throw-away server that reads an export', () => {
  let falkordb: TestFalkorDB;
  let dumpFile: string;
  let dumpSize: number;

  beforeAll(async () => {
    falkordb = await startTestFalkorDB();
    const client = createClient({ url: falkordb.url });
    await client.connect();
    try {
      await client.sendCommand(['GRAPH.QUERY', 'the-origin', "CREATE (:Person {name: 'Ada'})"]);
      const dump = await client.sendCommand<Buffer>(['DUMP', 'the-origin'], { typeMapping: { 36: Buffer } });
      dumpFile = path.join(await mkdtemp(path.join(os.tmpdir(), 'gdb-dump-origin-')), 'the-origin.dump');
      await writeFile(dumpFile, dump);
      dumpSize = dump.length;
    } finally {
      client.destroy();
    }
  });
  afterAll(() => falkordb?.stop());

  it('listens on a Unix socket in a private directory only, never on a TCP port, and leaves nothing behind', async () => {
    const scratch = await startScratchServer();
    try {
      expect(path.dirname(scratch.socketPath)).toBe(scratch.directory);
      const directory = await stat(scratch.directory);
      expect(directory.mode & 0o777).toBe(0o700);
      expect(directory.uid).toBe(process.getuid!());
      expect((await stat(scratch.socketPath)).mode & 0o777).toBe(0o700);
      const [port] = await scratch.connection.send([{ args: ['CONFIG', 'GET', 'port'] }]);
      expect(port).toEqual({ status: 'fulfilled', value: ['port', '0'] });
      const listening = await listeningTcpInodes();
      const held = await socketInodes(scratch.pid);
      expect(held.length).toBeGreaterThan(0);
      expect(held.filter((inode) => listening.has(inode))).toEqual([]);
    } finally {
      await scratch.stop();
    }
    await expect(stat(scratch.directory)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('reads the origin graph name of a dump streamed from its file', async () => {
    const dump = { size: dumpSize, open: () => Promise.resolve(createReadStream(dumpFile, { highWaterMark: 16 })) };
    expect(await originGraphName(dump)).toBe('the-origin');
  });

  it('refuses a file that is no graph export, and one shorter than announced, as rejected', async () => {
    const garbage = Buffer.from('not a dump at all');
    const refused = await originGraphName({
      size: garbage.length,
      open: () => Promise.resolve(Readable.from([garbage])),
    }).catch((error: unknown) => error);
    expect(isPortError(refused, 'rejected')).toBe(true);
    const short = await originGraphName({
      size: dumpSize + 10,
      open: () => Promise.resolve(createReadStream(dumpFile)),
    }).catch((error: unknown) => error);
    expect(isPortError(short, 'rejected')).toBe(true);
  });
});
