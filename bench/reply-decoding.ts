// What reading a query's reply costs the server, apart from HTTP and the database: the bytes of real
// compact replies, read by our bounded RespReader and turned into the query route's JSON rows (CompactDecoder,
// JSON.stringify), beside node-redis's RESP decoder on the same bytes: the raw client's first step, before it
// parses the result set its own way. Prints microseconds per reply and young-generation collections per 100,000
// replies, a proxy for what each allocates. Results go to bench/results/reply-decoding.json.
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Decoder } from '@redis/client/dist/lib/RESP/decoder.js';
import { pino } from 'pino';
import { columnNames, CompactDecoder, splitCompactReply } from '../src/platform/falkordb/compact-reply.js';
import { startEmbeddedFalkorDB } from '../src/platform/falkordb/embedded-falkordb.js';
import { encodeCommand, RespReader, type RespValue } from '../src/platform/falkordb/resp-reader.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(HERE, 'results', 'reply-decoding.json');
const ROUNDS = 3;
const MILLISECONDS_PER_ROUND = 1500;

/** The reply bytes of one command, read from a socket of our own (nothing decodes them on the way). */
async function replyBytes(port: number, args: string[]): Promise<Buffer> {
  const socket = net.connect(port, '127.0.0.1');
  let failure: Error | undefined;
  socket.on('error', (error) => (failure = error));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.write(encodeCommand(args));
  // The reply is complete once a second reply (PING's) follows it.
  socket.write(encodeCommand(['PING']));
  const pong = Buffer.from('+PONG\r\n');
  const deadline = Date.now() + 10_000;
  while (!Buffer.concat(chunks).subarray(-pong.length).equals(pong)) {
    if (failure) throw failure;
    if (Date.now() > deadline) throw new Error(`no complete reply to ${args[0]} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  socket.destroy();
  const all = Buffer.concat(chunks);
  return all.subarray(0, all.length - pong.length);
}

let minorCollections = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    // A gc entry's `detail` (its kind) is missing from the PerformanceEntry type this project's @types/node has.
    const { detail } = entry as unknown as { detail?: { kind?: number } };
    if (detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) minorCollections++;
  }
}).observe({ entryTypes: ['gc'] });

interface Timing {
  microsecondsPerReply: number;
  minorCollectionsPer100k: number;
}

/** One round of `read` for MILLISECONDS_PER_ROUND. */
async function round(read: () => void): Promise<Timing> {
  await new Promise((resolve) => setImmediate(resolve));
  const collectionsBefore = minorCollections;
  const started = process.hrtime.bigint();
  const until = started + BigInt(MILLISECONDS_PER_ROUND * 1e6);
  let replies = 0;
  let now = started;
  while (now < until) {
    for (let i = 0; i < 500; i++) read();
    replies += 500;
    now = process.hrtime.bigint();
  }
  // GC entries are delivered asynchronously: give the observer its turn before counting.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return {
    microsecondsPerReply: Number(now - started) / 1000 / replies,
    minorCollectionsPer100k: ((minorCollections - collectionsBefore) * 100_000) / replies,
  };
}

/**
 * Both readers' rounds, interleaved (as the other scenarios' are, so neither side always gets the quieter
 * moments), and the best round of each: the machine's noise only ever adds time.
 */
async function timePair(ours: () => void, raw: () => void): Promise<{ ours: Timing; raw: Timing }> {
  for (let i = 0; i < 2000; i++) {
    ours();
    raw();
  }
  const best = (a: Timing | undefined, b: Timing) => (a && a.microsecondsPerReply <= b.microsecondsPerReply ? a : b);
  let bestOurs: Timing | undefined;
  let bestRaw: Timing | undefined;
  for (let index = 0; index < ROUNDS; index++) {
    bestOurs = best(bestOurs, await round(ours));
    bestRaw = best(bestRaw, await round(raw));
  }
  return { ours: bestOurs!, raw: bestRaw! };
}

const logger = pino({ level: 'warn' });
const falkordb = await startEmbeddedFalkorDB({ logger });
try {
  const graph = 'decoding';
  await replyBytes(falkordb.port, [
    'GRAPH.QUERY',
    graph,
    'UNWIND range(1, 1000) AS i CREATE (:Person {id: i, name: "p" + toString(i)})',
  ]);
  const names = { labels: ['Person'], relationshipTypes: [], propertyKeys: ['id', 'name'] };
  const cases = [
    { name: 'small query reply (MATCH (n) RETURN n LIMIT 10)', query: 'MATCH (n) RETURN n LIMIT 10' },
    { name: '1,000 nodes (MATCH (n) RETURN n)', query: 'MATCH (n) RETURN n' },
  ];
  const rows = [];
  for (const { name, query } of cases) {
    const bytes = await replyBytes(falkordb.port, ['GRAPH.RO_QUERY', graph, query, '--compact']);
    let reply: RespValue = null;
    const reader = new RespReader(
      () => ({ maxBytes: 64 * 1024 * 1024, maxRows: 100_000 }),
      (value) => (reply = value),
    );
    const decoder = new CompactDecoder(names);
    let written = 0;
    const ours = () => {
      reader.feed(bytes);
      const parts = splitCompactReply(reply);
      const columns = columnNames(parts.header!);
      written += JSON.stringify(parts.rows!.map((row) => decoder.row(columns, row))).length;
    };
    let rawReply: unknown;
    const redis = new Decoder({
      onReply: (value: unknown) => (rawReply = value),
      onErrorReply: () => undefined,
      onPush: () => undefined,
      getTypeMapping: () => ({}),
    });
    const raw = () => redis.write(bytes);
    // Both sides must have read the whole reply: the same number of rows.
    ours();
    raw();
    const rowCount = splitCompactReply(reply).rows?.length;
    if (written === 0 || rowCount === undefined || rowCount !== (rawReply as unknown[][] | undefined)?.[1]?.length)
      throw new Error(`${name}: the two readers disagree on the reply (${rowCount} rows)`);
    const { ours: oursTiming, raw: rawTiming } = await timePair(ours, raw);
    const row = { name, replyBytes: bytes.length, ours: oursTiming, raw: rawTiming };
    rows.push(row);
    const show = (timing: Timing) =>
      `${timing.microsecondsPerReply.toFixed(2).padStart(8)} µs/reply  ${timing.minorCollectionsPer100k.toFixed(0).padStart(5)} scavenges per 100k`;
    console.log(`${name} (${bytes.length} bytes)`);
    console.log(`  ours (read, decode, JSON) ${show(oursTiming)}`);
    console.log(`  raw (node-redis decoder)  ${show(rawTiming)}`);
  }
  await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify({ date: new Date().toISOString(), rows }, null, 2)}\n`);
  console.log(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
} finally {
  await falkordb.stop();
}
