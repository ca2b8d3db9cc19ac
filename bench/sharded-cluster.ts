// `npm run bench` (or BENCH_ONLY=sharded): the browser API in front of a 3-primary FalkorDB cluster beside the same
// routes in front of one node, in one run, on the same server process, interleaved round by round.
// Goals: GET /api/graph on the cluster at least 60% of the single node's (it asks every primary); a query routed
// to its shard within 10% of the single node's. Results go to bench/results/sharded-cluster.json.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createClient } from 'redis';
import { startEmbeddedFalkorDB } from '../src/platform/falkordb/embedded-falkordb.js';
import { startClusterGroup } from '../test/support/cluster-group.js';
import { measureHttp } from './lib/load.js';
import { startBenchServer } from './lib/server.js';
import { bestRound, type Measurement } from './lib/stats.js';

const NAME = 'sharded cluster: 3 primaries against one node';
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const RESULTS_FILE = path.join(HERE, 'results', 'sharded-cluster.json');
/** Graphs spread over the shards, as a team's would be; the same names on the single node. */
const GRAPHS = 12;
const QUERY = 'MATCH (n) RETURN n LIMIT 10';

const fmt = (m: Measurement) =>
  `${m.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(6)} ms  p99 ${m.p99Ms.toFixed(2).padStart(6)} ms  errors ${m.errors}`;

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const single = await startEmbeddedFalkorDB({ logger });
  const cluster = await startClusterGroup();
  const entry = existsSync(path.join(ROOT, 'dist', 'main.js')) ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  try {
    // The same user on both: a password on every cluster node, and on the single node.
    const password = 'bench-password-1';
    const rules = ['reset', 'on', `>${password}`, '~*', '&*', '+@all'];
    for (const node of cluster.nodes) await cluster.on(node.port, ['ACL', 'SETUSER', 'bench', ...rules]);
    const singleAdmin = createClient({ url: single.url });
    singleAdmin.on('error', () => undefined);
    await singleAdmin.connect();
    await singleAdmin.sendCommand(['ACL', 'SETUSER', 'bench', ...rules]);

    server = await startBenchServer(
      {
        AUTH_SECRET: randomBytes(32).toString('hex'),
        ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        SESSION_SECRET: randomBytes(32).toString('hex'),
        TOKEN_STORE_URL: `${single.url}/1`,
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'gdb-bench-sharded-')),
        DATABASE_HOSTS: '127.0.0.1',
        TOKEN_CREATION_PER_MINUTE: '0',
        QUERIES_PER_TOKEN: '10000',
        QUERIES_PER_CLIENT: '10000',
      },
      entry,
    );
    const baseUrl = server.baseUrl;
    const tokenFor = async (body: Record<string, unknown>) => {
      const res = await fetch(`${baseUrl}/api/auth/tokens/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'bench', password, host: '127.0.0.1', tls: 'false', ...body }),
      });
      if (!res.ok) throw new Error(`token creation failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    };
    const tokens = {
      single: await tokenFor({ port: String(single.port) }),
      cluster: await tokenFor({ port: String(cluster.primaries[0]!.port), topology: 'cluster' }),
    };
    const graphs = Array.from({ length: GRAPHS }, (_, index) => `bench-${index}`);
    for (const token of Object.values(tokens))
      for (const graph of graphs) {
        const create = `UNWIND range(1, 100) AS i CREATE (:Person {id: i, name: 'p' + toString(i)})`;
        const res = await fetch(`${baseUrl}/api/graph/${graph}?query=${encodeURIComponent(create)}&timeout=10000`, {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        });
        if (!res.ok) throw new Error(`seeding ${graph} failed: ${res.status} ${await res.text()}`);
      }

    const measure = (route: string, token: string) =>
      measureHttp({
        url: `${baseUrl}${route}`,
        connections: 10,
        durationSeconds: DURATION_SECONDS,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
    const scenarios = [
      { name: 'GET /api/graph (every primary asked and merged)', route: '/api/graph', goal: 0.6 },
      {
        name: `query routed to its shard (${QUERY}; a shard without replicas)`,
        route: `/api/graph/${graphs[5]}?query=${encodeURIComponent(QUERY)}&timeout=10000`,
        goal: 0.9,
      },
      {
        // The group's replica follows the first shard: an Admin token's GRAPH.QUERY is answered once it confirms.
        name: `query routed to a shard with a replica (${QUERY}; GRAPH.QUERY confirmed by WAIT 1)`,
        route: `/api/graph/${graphs[2]}?query=${encodeURIComponent(QUERY)}&timeout=10000`,
        goal: undefined,
      },
    ] as { name: string; route: string; goal: number | undefined }[];
    console.log(NAME);
    const results = [];
    for (const scenario of scenarios) {
      // Warm both paths (pools, slot map, schema names) before measuring.
      await measureHttp({
        url: `${baseUrl}${scenario.route}`,
        connections: 4,
        durationSeconds: 1,
        headers: { authorization: `Bearer ${tokens.cluster}` },
      });
      const singleRounds: Measurement[] = [];
      const clusterRounds: Measurement[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        singleRounds.push(await measure(scenario.route, tokens.single));
        clusterRounds.push(await measure(scenario.route, tokens.cluster));
      }
      const one = bestRound(singleRounds);
      const sharded = bestRound(clusterRounds);
      const ratio = sharded.requestsPerSecond / one.requestsPerSecond;
      const met =
        scenario.goal === undefined ? undefined : ratio >= scenario.goal && one.errors === 0 && sharded.errors === 0;
      console.log(`${scenario.name}`);
      console.log(`  one node ${fmt(one)}`);
      console.log(`  cluster  ${fmt(sharded)}`);
      const verdict =
        scenario.goal === undefined
          ? 'no goal: the price of the replica confirmation'
          : `goal ≥ ${(scenario.goal * 100).toFixed(0)}%: ${met ? 'met' : 'NOT met'}`;
      console.log(`  cluster/one node: ${(ratio * 100).toFixed(0)}% (${verdict})`);
      results.push({ name: scenario.name, singleNode: one, cluster: sharded, ratio, goal: scenario.goal, met });
    }
    await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
    await writeFile(
      RESULTS_FILE,
      `${JSON.stringify({ name: NAME, at: new Date().toISOString(), durationSeconds: DURATION_SECONDS, rounds: ROUNDS, results }, null, 2)}\n`,
    );
    await singleAdmin.close();
  } finally {
    await server?.stop();
    await cluster.stop();
    await single.stop();
  }
}

await main();
