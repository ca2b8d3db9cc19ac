// Runs one large query with the falkordb client in a process of its own and prints its time to a parsed result
// and its peak RSS, so the raw client's memory is measured the way the server's is. Plain JavaScript, so no
// TypeScript loader adds to the memory measured.
import { readFile } from 'node:fs/promises';
import { FalkorDB } from 'falkordb';

const [url, graph, query] = process.argv.slice(2);
const { hostname, port } = new URL(url);
const db = await FalkorDB.connect({ socket: { host: hostname, port: Number(port) } });
const started = performance.now();
const reply = await db.selectGraph(graph).query(query);
const elapsedMs = performance.now() - started;
const status = await readFile('/proc/self/status', 'utf8');
const peakRssMiB = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
process.stdout.write(JSON.stringify({ elapsedMs, peakRssMiB, rows: reply.data?.length ?? 0 }));
await db.close();
