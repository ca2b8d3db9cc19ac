// `npm run bench`: every scenario runs interleaved rounds of our endpoint and the same work done directly with the
// falkordb client, against one real FalkorDB on loopback, and prints throughput, latency, peak RSS and the ratio
// ours/raw. Results go to bench/results/latest.json. Bounded: BENCH_SECONDS per round, BENCH_ROUNDS rounds.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FalkorDB } from 'falkordb';
import { pino } from 'pino';
import { startEmbeddedFalkorDB } from '../src/platform/falkordb/embedded-falkordb.js';
import { createRedisConnection } from '../src/platform/redis/redis-connection.js';
import { createFileAdminStores } from '../src/platform/stores/file-stores.js';
import { USERS_SECRET } from '../src/admin/users/user-store.js';
import { measureHttp, measureRaw, type HttpLoad } from './lib/load.js';
import { costPerRequest, readProcessCounters, type RequestCost } from './lib/process-cost.js';
import { currentRssMiB, peakRssMiB, startBenchServer } from './lib/server.js';
import { rssSettled, rssTrend, TREND_GROWTH } from './lib/memory-trend.js';
import { describeVerdict, judgeGoal, type Goal, type GoalVerdict } from './lib/goals.js';
import {
  bestRound,
  composedLimit,
  describeShareSpread,
  interleavedShares,
  pairedRatios,
  rotatedRounds,
  type InterleavedShares,
  type Measurement,
} from './lib/stats.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** AUTH_PAIRS: how many interleaved pairs of short rounds measure a layer's cost (layerCost). */
const AUTH_PAIRS = Number(process.env.AUTH_PAIRS ?? 7);
/** BENCH_ONLY: a case-insensitive pattern; only scenarios whose name matches it run. */
/** GOAL_ROUNDS: how many interleaved rounds of floor, route and raw measure a goal row's share (0 skips them). */
const GOAL_ROUNDS = Number(process.env.GOAL_ROUNDS ?? 5);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : undefined;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_FILE = path.join(HERE, 'results', 'latest.json');
const run = promisify(execFile);

interface BigResult {
  name: string;
  ttlbMs: number;
  rawParsedMs: number;
  timeRatio: number;
  serverPeakRssMiB: number;
  /** VmRSS after the warm-up, and the highest VmRSS sampled (every 20 ms) while the measured rounds ran. */
  serverBaselineRssMiB: number;
  serverStreamingRssMiB: number;
  rawClientPeakRssMiB: number;
  rssRatio: number;
}

interface Row {
  name: string;
  ours: CostedMeasurement;
  raw?: CostedMeasurement;
  note?: string;
  /** For routes that do HTTP work and then database work on the same cores: 1 / (1/floor + 1/raw), req/s. */
  composedLimit?: number;
  /** A goal row's share of its limit (composed, or the floor alone), measured in rounds next to the floor's. */
  interleaved?: InterleavedShares;
}

/** Per request, by process: where a route's time went (the cores are shared, so this explains the throughput). */
type ProcessCosts = Record<string, RequestCost>;
/** `cost`: CPU time and system calls per request of each process in that round (see withCost). */
type CostedMeasurement = Measurement & { cost?: ProcessCosts };

/** Runs a measurement and adds what each named process spent per request meanwhile (from /proc). */
function withCost(
  processes: Record<string, number>,
  measure: () => Promise<Measurement>,
): () => Promise<CostedMeasurement> {
  return async () => {
    const read = () => Promise.all(Object.values(processes).map((pid) => readProcessCounters(pid)));
    const before = await read();
    const measured = await measure();
    const after = await read();
    const cost: ProcessCosts = {};
    Object.keys(processes).forEach((name, index) => {
      const [start, end] = [before[index], after[index]];
      if (start && end) cost[name] = costPerRequest(start, end, measured.requests);
    });
    return { ...measured, cost };
  };
}

const describeCost = (cost: ProcessCosts) =>
  Object.entries(cost)
    .map(
      ([name, c]) =>
        `${name} ${c.cpuMicroseconds.toFixed(0)} µs (${c.kernelMicroseconds.toFixed(0)} in the kernel; ${c.readCalls.toFixed(1)} reads, ${c.writeCalls.toFixed(1)} writes)`,
    )
    .join(' + ');

const fmt = (m: Measurement) =>
  `${m.requestsPerSecond.toFixed(0).padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(7)} ms  p99 ${m.p99Ms.toFixed(2).padStart(7)} ms  errors ${m.errors}`;

function report(row: Row): void {
  console.log(row.name);
  console.log(`  ours ${fmt(row.ours)}`);
  if (row.raw) {
    console.log(`  raw  ${fmt(row.raw)}`);
    console.log(
      `  ours/raw: throughput ${((row.ours.requestsPerSecond / row.raw.requestsPerSecond) * 100).toFixed(0)}%, p99 ${(row.ours.p99Ms / Math.max(row.raw.p99Ms, 0.001)).toFixed(2)}x`,
    );
  }
  if (row.composedLimit !== undefined)
    console.log(
      `  composed limit (HTTP floor with raw, serially) ${row.composedLimit.toFixed(0)} req/s: ours at ${((row.ours.requestsPerSecond / row.composedLimit) * 100).toFixed(0)}%`,
    );
  if (row.interleaved) {
    const { share, p99Ratio, rounds: count, limit } = row.interleaved;
    console.log(
      `  interleaved (${count} rounds of the floor${limit === 'composed' ? ', the route and raw' : ' and the route'}, each ratio within its round): ${limit === 'composed' ? 'share of the composed limit' : 'share of the floor'} median ${describeShareSpread(share)}` +
        (p99Ratio
          ? `, p99 vs raw median ${p99Ratio.median.toFixed(2)}x (${p99Ratio.min.toFixed(2)}–${p99Ratio.max.toFixed(2)}x)`
          : ''),
    );
  }
  if (row.ours.cost) console.log(`  CPU per request, ours: ${describeCost(row.ours.cost)}`);
  if (row.raw?.cost) console.log(`  CPU per request, raw:  ${describeCost(row.raw.cost)}`);
  if (row.note) console.log(`  ${row.note}`);
  // A run whose requests failed measures nothing: say so rather than print a flattering number, and fail the run.
  if (row.ours.errors > 0 || (row.raw?.errors ?? 0) > 0 || (row.interleaved?.errors ?? 0) > 0) {
    console.log('  INVALID: some requests failed');
    invalidRows.push(row.name);
  }
}

/** The rows whose requests failed: the run ends with a non-zero exit code naming them. */
const invalidRows: string[] = [];

async function rounds(
  ours: () => Promise<CostedMeasurement>,
  raw?: () => Promise<CostedMeasurement>,
): Promise<{ ours: CostedMeasurement; raw?: CostedMeasurement }> {
  const mine: CostedMeasurement[] = [];
  const direct: CostedMeasurement[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    mine.push(await ours());
    if (raw) direct.push(await raw());
  }
  return { ours: bestRound(mine), raw: raw ? bestRound(direct) : undefined };
}

/**
 * The bench drives many connections with one token from one address: the per-token and per-client caps
 * would answer most of them 429, which measures the cap, not the path.
 */
const UNCAPPED = {
  QUERIES_PER_TOKEN: '10000',
  QUERIES_PER_CLIENT: '10000',
  LOGIN_CHECKS_MAX: '1000',
  // The bench creates its 50 tokens at once: the cap on credential checks in flight would answer some 429.
  CREDENTIAL_CHECKS_MAX: '1000',
  LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: '100000',
};

/**
 * Puts `count` OAuth users (no password) ahead of the stored ones in the server's user Secret, written through the
 * same file store the server uses: a large organisation's list, with the bench's admin at its end.
 */
async function addAdminUsers(dataDir: string, count: number): Promise<void> {
  const { secrets } = createFileAdminStores(dataDir);
  const stored = await secrets.read(USERS_SECRET);
  if (!stored) throw new Error('the server has no user Secret yet');
  const existing = JSON.parse(stored.value['users.json'] ?? '[]') as unknown[];
  const added = Array.from({ length: count }, (_, index) => ({
    id: randomUUID(),
    email: `member${index}@corp.example`,
    name: `Member ${index}`,
    role: 'viewer',
    provider: 'alpha',
    createdAt: new Date().toISOString(),
    disabled: false,
  }));
  await secrets.write(USERS_SECRET, { 'users.json': JSON.stringify([...added, ...existing]) }, stored.version);
}

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  // FalkorDB's own LOAD CSV reads from here: the CSV scenario's baseline.
  const importFolder = await mkdtemp(path.join(os.tmpdir(), 'gdb-bench-import-'));
  const falkordb = await startEmbeddedFalkorDB({ logger, importFolder: `${importFolder}/` });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-bench-'));
  const admin = { email: 'bench@example.com', password: 'bench-password-1' };
  const secrets = {
    AUTH_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SESSION_SECRET: randomBytes(32).toString('hex'),
  };
  const serverEnv = {
    ...secrets,
    TOKEN_STORE_URL: `${falkordb.url}/1`,
    DATA_DIR: dataDir,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    SETTINGS_REFRESH_MS: '5000',
    TOKEN_CREATION_PER_MINUTE: '0',
    DATABASE_HOSTS: '127.0.0.1',
    ...UNCAPPED,
  };
  const server = await startBenchServer(serverEnv);
  const raw = await FalkorDB.connect({ socket: { host: falkordb.host, port: falkordb.port } });
  const graph = raw.selectGraph('bench');
  const store = createRedisConnection(`${falkordb.url}/1`, logger);
  await store.connect();
  const rows: Row[] = [];
  const http = (load: Omit<HttpLoad, 'durationSeconds' | 'connections'> & { connections?: number }) => () =>
    measureHttp({ connections: 10, durationSeconds: DURATION_SECONDS, ...load });
  const direct =
    (work: () => Promise<unknown>, concurrency = 10) =>
    () =>
      measureRaw(work, concurrency, DURATION_SECONDS);

  try {
    await graph.query('UNWIND range(1, 1000) AS i CREATE (:Person {id: i, name: "p" + toString(i)})');
    await graph.query('MATCH (a:Person), (b:Person) WHERE b.id = a.id + 1 CREATE (a)-[:NEXT]->(b)');
    const newToken = async () => {
      const res = await fetch(`${server.baseUrl}/api/auth/tokens/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'default', host: falkordb.host, port: String(falkordb.port), tls: 'false' }),
      });
      if (!res.ok) throw new Error(`token creation failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    };
    const token = await newToken();
    const bearer = { authorization: `Bearer ${token}` };
    const url = (p: string) => `${server.baseUrl}${p}`;
    const smallQuery = 'MATCH (n) RETURN n LIMIT 10';
    const queryUrl = (q: string, timeout = 10_000) =>
      url(`/api/graph/bench?query=${encodeURIComponent(q)}&timeout=${timeout}`);

    // The HTTP floor of this run, once measured: routes measured after it print their composed limit.
    let floor: Measurement | undefined;
    // The performance goals: a simple route at 90% of its composed limit, the small query at 80% with a p99 within 3x
    // the raw client's, the admin reads at 10,000 req/s and 90% of the floor.
    const goals: GoalVerdict[] = [];
    const simpleRouteGoal: Goal = { limit: 'composed', minShare: 0.9 };
    const smallQueryGoal: Goal = { limit: 'composed', minShare: 0.8, maxP99Ratio: 3 };
    const adminReadGoal: Goal = { limit: 'floor', minShare: 0.9, minRequestsPerSecond: 10_000 };
    const floorLoad = http({ url: url('/healthz') });
    /**
     * `goal`: the row is one of the performance goals, a share of a limit measured in another row. Rows run minutes apart
     * on a machine whose speed drifts by 10% and more between them, so the share is also measured in GOAL_ROUNDS
     * rounds that each run the floor, the route and (for a composed limit) the raw client back to back, in a
     * rotating order; the ratio is taken within each round, and its median is the figure the goal is judged by.
     */
    const scenario = async (
      name: string,
      ours: () => Promise<Measurement>,
      baseline?: () => Promise<Measurement>,
      { note, goal }: { note?: string; goal?: Goal } = {},
    ) => {
      if (ONLY && !ONLY.test(name)) return;
      const measured = await rounds(
        withCost({ server: server.pid, FalkorDB: falkordb.pid, 'load generator': process.pid }, ours),
        baseline && withCost({ FalkorDB: falkordb.pid, client: process.pid }, baseline),
      );
      const row: Row = { name, ...measured, note };
      if (name.startsWith('HTTP floor')) floor = measured.ours;
      else if (floor && measured.raw)
        row.composedLimit = composedLimit(floor.requestsPerSecond, measured.raw.requestsPerSecond);
      if (goal && GOAL_ROUNDS > 0)
        row.interleaved = await interleavedShares(
          GOAL_ROUNDS,
          floorLoad,
          ours,
          goal.limit === 'composed' ? baseline : undefined,
        );
      rows.push(row);
      report(row);
      if (goal) goals.push(judgeGoal(name, goal, row.interleaved, row.ours.requestsPerSecond));
    };

    await scenario(
      'HTTP floor: GET /healthz (no authentication, no database)',
      floorLoad,
      direct(() => raw.list()),
    );
    await scenario(
      "GET /api/status (one PING through the token's pool)",
      http({ url: url('/api/status'), headers: bearer }),
      direct(async () => (await raw.connection).ping()),
      { goal: simpleRouteGoal },
    );
    await scenario(
      'GET /api/graph (GRAPH.LIST)',
      http({ url: url('/api/graph'), headers: bearer }),
      direct(() => raw.list()),
      { goal: simpleRouteGoal },
    );
    await scenario(
      'GET /api/graph/config (GRAPH.CONFIG GET *)',
      http({ url: url('/api/graph/config'), headers: bearer }),
      direct(async () => (await raw.connection).sendCommand(['GRAPH.CONFIG', 'GET', '*'])),
      { goal: simpleRouteGoal },
    );
    await scenario(
      'GET /api/user (ACL LIST)',
      http({ url: url('/api/user'), headers: bearer }),
      direct(async () => (await raw.connection).sendCommand(['ACL', 'LIST'])),
      { goal: simpleRouteGoal },
    );
    await scenario(
      'small query as JSON (MATCH (n) RETURN n LIMIT 10, 1,000 nodes)',
      http({ url: queryUrl(smallQuery), headers: bearer }),
      direct(() => graph.query(smallQuery)),
      { goal: smallQueryGoal },
    );
    await scenario(
      'small query as SSE',
      http({ url: queryUrl(smallQuery), headers: { ...bearer, accept: 'text/event-stream' } }),
      direct(() => graph.query(smallQuery)),
      { goal: smallQueryGoal },
    );
    await scenario(
      'node read (GET /api/graph/bench/5)',
      http({ url: url('/api/graph/bench/5'), headers: bearer }),
      direct(() => graph.query('MATCH (n) WHERE ID(n) = 5 OPTIONAL MATCH (n)-[r]-() RETURN n, collect(r)')),
    );
    // Token listing over a store holding at least 1,000 tokens.
    const wanted = (name: string) => !ONLY || ONLY.test(name);
    const existing = !wanted('tokens with 1,000')
      ? 1000
      : Number(await store.zCard(`graphdb:db-tokens:${falkordb.host}:${falkordb.port}`));
    for (let i = existing; i < 1000; i += 20) await Promise.all(Array.from({ length: 20 }, () => newToken()));
    await scenario(
      'GET /api/auth/tokens with 1,000+ stored tokens (Admin)',
      http({ url: url('/api/auth/tokens'), headers: bearer, connections: 4 }),
      direct(async () => {
        const ids = await store.zRange(`graphdb:db-tokens:${falkordb.host}:${falkordb.port}`, 0, -1);
        const multi = store.multi();
        for (const id of ids) multi.hGetAll(`graphdb:token:${id}`);
        await multi.exec();
      }, 4),
    );

    await scenario(
      'token creation (connect, role detection, sign, store)',
      http({
        url: url('/api/auth/tokens/credentials'),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          username: 'default',
          host: falkordb.host,
          port: String(falkordb.port),
          tls: 'false',
          ttlSeconds: 600,
        }),
        connections: 4,
      }),
      direct(async () => {
        const client = await FalkorDB.connect({ socket: { host: falkordb.host, port: falkordb.port } });
        await (await client.connection).ping();
        await client.close();
      }, 4),
    );

    const login = await fetch(url('/api/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(admin),
    });
    const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
    await scenario(
      'admin GET /api/settings/ (goal: 10,000 req/s)',
      http({ url: url('/api/settings/'), headers: { cookie } }),
      undefined,
      { goal: adminReadGoal },
    );
    await scenario(
      'admin GET /api/auth/validate (goal: 10,000 req/s)',
      http({ url: url('/api/auth/validate'), headers: { cookie } }),
      undefined,
      { goal: adminReadGoal },
    );
    const manyUsersName = 'admin GET /api/settings/ with 10,000 admin users, the signed-in one last';
    if (wanted(manyUsersName)) {
      await addAdminUsers(dataDir, 9_999);
      // The server reads the user list again once its copy is older than SETTINGS_REFRESH_MS.
      for (let waited = 0; ; waited += 250) {
        const page = await fetch(url('/api/users/?limit=1'), { headers: { cookie } });
        const total = ((await page.json()) as { pagination?: { total?: number } }).pagination?.total;
        if (total === 10_000) break;
        if (waited > 15_000) throw new Error(`the server still lists ${total} admin users`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await scenario(manyUsersName, http({ url: url('/api/settings/'), headers: { cookie } }));
    }

    const tokens = await Promise.all(Array.from({ length: 50 }, () => newToken()));
    await scenario(
      '50 clients with 50 different tokens on GET /api/graph',
      http({
        url: url('/api/graph'),
        connections: 50,
        headersFor: (i) => ({ authorization: `Bearer ${tokens[i % tokens.length]}` }),
      }),
      direct(() => raw.list(), 50),
    );

    /**
     * The cost of one layer: `ours` and `raw` are two routes of one twin-server process that differ by that layer
     * only. A difference of a few percent drowns in this machine's drift between rounds, so: many short interleaved
     * pairs (alternating which goes first, so neither side always gets the warmer or noisier half), and the median
     * of the per-pair ratios.
     */
    const layerCost = async (
      name: string,
      goal: string,
      load: (baseUrl: string) => Promise<{
        ours: () => Promise<Measurement>;
        raw: () => Promise<Measurement>;
        /** The raw load once more, in the same rotation: raw against itself is this run's noise band. */
        control?: () => Promise<Measurement>;
      }>,
    ) => {
      const twin = await startBenchServer(
        {
          ...serverEnv,
          DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'gdb-bench-')),
          BENCH_DB_HOST: falkordb.host,
          BENCH_DB_PORT: String(falkordb.port),
        },
        ['--import', 'tsx', path.join(HERE, 'lib', 'twin-server.ts')],
      );
      try {
        const { ours, raw, control } = await load(twin.baseUrl);
        // The twin's CPU time per request beside the throughput: on a shared machine the throughput of a round
        // also depends on what else ran, while the CPU the server spent per request depends much less on it.
        const costed = { server: twin.pid };
        const loads = [withCost(costed, ours), withCost(costed, raw), ...(control ? [withCost(costed, control)] : [])];
        // Whole turns of the rotation, so that each load runs first, in the middle and last equally often: the
        // position alone moves a round's CPU per request by several percent (the load that follows another is cheaper).
        const turns = Math.ceil(AUTH_PAIRS / loads.length) * loads.length;
        const pairs = (await rotatedRounds(turns, loads)).map(([oursRound, rawRound, controlRound]) => ({
          ours: oursRound!,
          raw: rawRound!,
          control: controlRound,
        }));
        const ratios = pairs.map((p) => p.ours.requestsPerSecond / p.raw.requestsPerSecond).sort((x, y) => x - y);
        const overhead = 1 - ratios[Math.floor(ratios.length / 2)]!;
        const cpuOf = (m: CostedMeasurement) => m.cost?.server?.cpuMicroseconds ?? Number.NaN;
        const cpu = pairedRatios(pairs.map((p) => ({ a: cpuOf(p.raw), b: cpuOf(p.ours) })));
        const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;
        // Raw against itself, measured the same way in the same rounds: a difference of ours inside this band is noise.
        const controlNote = () => {
          const controlled = pairs.flatMap((p) => (p.control ? [{ a: cpuOf(p.raw), b: cpuOf(p.control) }] : []));
          if (controlled.length === 0) return '';
          const band = pairedRatios(controlled);
          return (
            `; raw against itself (noise band): ${percent(band.median)}, middle half ${percent(band.lowerQuartile)} ` +
            `to ${percent(band.upperQuartile)}`
          );
        };
        // The best rounds are reported; a failed request in any round makes the row invalid.
        const failedIn = (rounds: (CostedMeasurement | undefined)[]) =>
          rounds.reduce((sum, round) => sum + (round?.errors ?? 0), 0);
        const row = {
          name,
          ours: { ...bestRound(pairs.map((p) => p.ours)), errors: failedIn(pairs.map((p) => p.ours)) },
          raw: {
            ...bestRound(pairs.map((p) => p.raw)),
            errors: failedIn(pairs.flatMap((p) => [p.raw, p.control])),
          },
          note:
            `costs ${(overhead * 100).toFixed(1)}% of the throughput (median of ${turns} interleaved rounds; goal: ${goal}); ` +
            `server CPU per request ${cpu.medianB.toFixed(1)} µs (ours) vs ${cpu.medianA.toFixed(1)} µs (raw): ${percent(cpu.median)} ` +
            `(median of the pairs' ratios; middle half ${percent(cpu.lowerQuartile)} to ${percent(cpu.upperQuartile)})` +
            controlNote(),
        };
        rows.push(row);
        report(row);
      } finally {
        await twin.stop();
      }
    };
    const twoSeconds = (load: Omit<HttpLoad, 'durationSeconds' | 'connections'>) => () =>
      measureHttp({ connections: 10, durationSeconds: 2, ...load });

    /**
     * The twin server's guarded settings read (ours) against another copy of it (`rawPath`, raw), both with the
     * session cookie of the bench's admin, signed in on that twin.
     */
    const settingsTwins = (rawPath: string) => async (baseUrl: string) => {
      const signedIn = await fetch(`${baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(admin),
      });
      const session = { cookie: signedIn.headers.getSetCookie()[0]!.split(';')[0]! };
      return {
        ours: twoSeconds({ url: `${baseUrl}/twin/checked/api/settings/`, headers: session }),
        raw: twoSeconds({ url: `${baseUrl}${rawPath}`, headers: session }),
      };
    };

    const authName =
      'authentication overhead: GET /api/graph with a bearer token (ours) vs the same route without authentication (raw), one process';
    if (wanted(authName))
      await layerCost(authName, 'at most 10%', (baseUrl) =>
        Promise.resolve({
          ours: twoSeconds({ url: `${baseUrl}/api/graph`, headers: bearer }),
          raw: twoSeconds({ url: `${baseUrl}/unauthenticated/api/graph` }),
        }),
      );

    const permissionName =
      "permission check: admin GET /api/settings/ with its guard (ours) vs without it (raw), in one scope built like the admin plugin's, one process";
    if (wanted(permissionName))
      await layerCost(permissionName, 'under 5%', settingsTwins('/twin/unchecked/api/settings/'));

    // Beside the session row: the same guarded read authenticated by a service account token (ours) and by the
    // session cookie (raw), so a token's permission check is judged against a session's in the same run.
    const tokenPermissionName =
      "permission check with a token: admin GET /api/settings/ with its guard, as a service account's bearer token (ours) vs as the admin's session (raw), one process";
    if (wanted(tokenPermissionName))
      await layerCost(tokenPermissionName, 'at most the session check (under 5%)', async (baseUrl) => {
        const signedIn = await fetch(`${baseUrl}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(admin),
        });
        const session = { cookie: signedIn.headers.getSetCookie()[0]!.split(';')[0]! };
        const post = async (url: string, body: unknown) => {
          const res = await fetch(`${baseUrl}${url}`, {
            method: 'POST',
            headers: { ...session, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
          return (await res.json()) as { key?: string };
        };
        await post('/api/serviceaccounts/', { name: 'bench', role: 'admin' });
        const { key } = await post('/api/serviceaccounts/bench/tokens', { name: 'bench', expiresInDays: 1 });
        return {
          ours: twoSeconds({
            url: `${baseUrl}/twin/checked/api/settings/`,
            headers: { authorization: `Bearer ${key!}` },
          }),
          raw: twoSeconds({ url: `${baseUrl}/twin/checked/api/settings/`, headers: session }),
          control: twoSeconds({ url: `${baseUrl}/twin/checked/api/settings/`, headers: session }),
        };
      });

    // No goal: the admin reads are judged against GET /healthz, which writes no access line; this row says, in the
    // same run, how much of their distance from it the line accounts for (docs/decisions/access-log.md).
    const accessLineName =
      "access line: admin GET /api/settings/ writing its access line (ours) vs the same route at log level warn (raw), in one scope built like the admin plugin's, one process";
    if (wanted(accessLineName))
      await layerCost(accessLineName, 'none, recorded', settingsTwins('/twin/unlogged/api/settings/'));

    const holName = 'GET /api/graph while a slow query of the same token runs (ours = during, raw = without it)';
    if (wanted(holName)) {
      // Head-of-line blocking: the same token's GET /api/graph, alone and while a slow query runs.
      const alone = await measureHttp({
        url: url('/api/graph'),
        headers: bearer,
        connections: 10,
        durationSeconds: DURATION_SECONDS,
      });
      const slow = fetch(queryUrl('UNWIND range(1, 200000000) AS x RETURN count(x)', 120_000), {
        headers: bearer,
      }).then((r) => r.text());
      await new Promise((resolve) => setTimeout(resolve, 200));
      const during = await measureHttp({
        url: url('/api/graph'),
        headers: bearer,
        connections: 10,
        durationSeconds: DURATION_SECONDS,
      });
      await slow;
      const hol = {
        name: holName,
        ours: during,
        raw: alone,
        note: `p99 during/without: ${(during.p99Ms / Math.max(alone.p99Ms, 0.001)).toFixed(2)}x (goal: at most 3x)`,
      };
      rows.push(hol);
      report(hol);
    }

    const big: BigResult[] = [];
    /**
     * One large result: our time to last byte versus the raw client's time to a parsed result (in a process of its
     * own), and both peak RSS. A fresh server runs only this query, so its peak RSS is this scenario's alone.
     */
    const measureLargeResult = async (options: {
      name: string;
      query: string;
      accept: string;
      env: Record<string, string>;
      goals: { time: number; rss: number };
    }) => {
      const fresh = await startBenchServer({
        ...serverEnv,
        ...options.env,
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'gdb-bench-')),
      });
      const headers = { ...bearer, accept: options.accept };
      const fetchAll = async (query: string) =>
        (
          await fetch(`${fresh.baseUrl}/api/graph/bench?query=${encodeURIComponent(query)}&timeout=600000`, {
            headers,
          })
        ).arrayBuffer();
      // Warm the path (JIT) with smaller results first, as a server that has been running a while would be.
      for (let warm = 0; warm < 5; warm++) await fetchAll('UNWIND range(1, 20000) AS x RETURN x');
      const ttlb: number[] = [];
      const rawTimes: number[] = [];
      let rawRss = 0;
      // The server's RSS before the measured rounds and its highest sample while a result streams: their difference
      // is what the result itself costs (the same for 100,000 and 1,000,000 rows when memory is flat in its size).
      const baselineRss = await currentRssMiB(fresh.pid);
      let streamingRss = baselineRss;
      for (let round = 0; round < 3; round++) {
        const started = performance.now();
        const sampler = setInterval(() => {
          currentRssMiB(fresh.pid).then(
            (rss) => (streamingRss = Math.max(streamingRss, rss)),
            () => undefined,
          );
        }, 20);
        await fetchAll(options.query);
        clearInterval(sampler);
        ttlb.push(performance.now() - started);
        const { stdout } = await run(process.execPath, [
          path.join(HERE, 'lib', 'raw-child.mjs'),
          falkordb.url,
          'bench',
          options.query,
        ]);
        const child = JSON.parse(stdout) as { elapsedMs: number; peakRssMiB: number };
        rawTimes.push(child.elapsedMs);
        rawRss = Math.max(rawRss, child.peakRssMiB);
      }
      const best = (values: number[]) => Math.min(...values);
      const serverRss = await fresh.peakRssMiB();
      await fresh.stop();
      const result: BigResult = {
        name: options.name,
        ttlbMs: best(ttlb),
        rawParsedMs: best(rawTimes),
        timeRatio: best(ttlb) / best(rawTimes),
        serverPeakRssMiB: serverRss,
        serverBaselineRssMiB: baselineRss,
        serverStreamingRssMiB: streamingRss,
        rawClientPeakRssMiB: rawRss,
        rssRatio: serverRss / rawRss,
      };
      big.push(result);
      console.log(result.name);
      console.log(
        `  ours time to last byte ${result.ttlbMs.toFixed(0)} ms; raw time to parsed result ${result.rawParsedMs.toFixed(0)} ms; ratio ${result.timeRatio.toFixed(2)}x (goal ≤ ${options.goals.time}x)`,
      );
      console.log(
        `  peak RSS: server ${result.serverPeakRssMiB.toFixed(0)} MiB (a fresh server running only this query), raw client process ${result.rawClientPeakRssMiB.toFixed(0)} MiB; ratio ${result.rssRatio.toFixed(2)}x (goal ≤ ${options.goals.rss}x)`,
      );
      console.log(
        `  server RSS ${baselineRss.toFixed(0)} MiB after warm-up, at most ${streamingRss.toFixed(0)} MiB while the result streamed (+${(streamingRss - baselineRss).toFixed(0)} MiB)`,
      );
    };
    if (wanted('100,000 rows'))
      await measureLargeResult({
        name: '100,000 rows (UNWIND range(1,100000) AS x RETURN x)',
        query: 'UNWIND range(1, 100000) AS x RETURN x',
        accept: 'application/json',
        env: {},
        goals: { time: 1.5, rss: 2 },
      });
    if (wanted('100,000 rows as NDJSON'))
      await measureLargeResult({
        name: '100,000 rows as NDJSON (UNWIND range(1,100000) AS x RETURN x)',
        query: 'UNWIND range(1, 100000) AS x RETURN x',
        accept: 'application/x-ndjson',
        env: { QUERY_ROWS_MAX: '1000000', QUERY_TIMEOUT_MAX_MS: '600000', REQUEST_TIMEOUT_MS: '600000' },
        goals: { time: 1.3, rss: 2 },
      });
    if (wanted('1,000,000 rows'))
      await measureLargeResult({
        name: '1,000,000 rows as NDJSON (UNWIND range(1,1000000) AS x RETURN x)',
        query: 'UNWIND range(1, 1000000) AS x RETURN x',
        accept: 'application/x-ndjson',
        env: { QUERY_ROWS_MAX: '1000000', QUERY_TIMEOUT_MAX_MS: '600000', REQUEST_TIMEOUT_MS: '600000' },
        goals: { time: 1.3, rss: 2 },
      });

    let memoryUnderLoad:
      { name: string; warmUpRssMiB: number[]; windowsMiB: number[]; growth: number; rising: boolean } | undefined;
    if (wanted('memory under load')) {
      // 50 clients streaming 10,000-row results. Warm-up: 10-second segments until two in a row each grew the server's
      // RSS by at most 1% (V8 grows its heap in steps while the load ramps up; on a slow machine that outlasts a
      // fixed 10 s), at most 90 s. Then 60 s with RSS sampled every second and averaged over three 20-second windows:
      // a leak shows as a rising trend, a flat server does not.
      const fresh = await startBenchServer({
        ...serverEnv,
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'gdb-bench-')),
      });
      const rowsQuery = 'UNWIND range(1, 10000) AS x RETURN x, toString(x) AS s';
      const load = {
        url: `${fresh.baseUrl}/api/graph/bench?query=${encodeURIComponent(rowsQuery)}&timeout=60000`,
        headers: bearer,
        connections: 50,
      };
      const warmUpRssMiB: number[] = [];
      do {
        await measureHttp({ ...load, durationSeconds: 10 });
        warmUpRssMiB.push(await currentRssMiB(fresh.pid));
      } while (warmUpRssMiB.length < 9 && !rssSettled(warmUpRssMiB));
      const samples: number[] = [];
      const sampler = setInterval(() => {
        void currentRssMiB(fresh.pid).then((rss) => samples.push(rss));
      }, 1000);
      const measured = await measureHttp({ ...load, durationSeconds: 60 });
      clearInterval(sampler);
      await fresh.stop();
      memoryUnderLoad = {
        name: 'memory under load: 50 clients streaming 10,000-row results for 60 s',
        warmUpRssMiB,
        ...rssTrend(samples),
      };
      const mib = (values: number[]) => values.map((value) => value.toFixed(0)).join(' → ');
      console.log(memoryUnderLoad.name);
      console.log(
        `  warm-up ${warmUpRssMiB.length * 10} s (RSS at each 10 s: ${mib(warmUpRssMiB)} MiB${rssSettled(warmUpRssMiB) ? '' : ', NOT SETTLED'})`,
      );
      console.log(
        `  ${measured.requestsPerSecond.toFixed(0)} results/s, errors ${measured.errors}; server RSS by 20-second window ${mib(memoryUnderLoad.windowsMiB)} MiB; last/first ${memoryUnderLoad.growth.toFixed(3)} (goal: no rising trend, at most +${(TREND_GROWTH * 100).toFixed(0)}%): ${memoryUnderLoad.rising ? 'NOT MET' : 'met'}`,
      );
    }

    let csvLoad: { name: string; oursMs: number; rawMs: number; ratio: number } | undefined;
    if (wanted('CSV load')) {
      // 100,000 rows loaded through POST /api/graph/{graph}/load-csv, against FalkorDB's own LOAD CSV of the same
      // file from its import folder, sent by the raw client (what redis-cli would send).
      const csvRows = 100_000;
      const csv = `id,name\n${Array.from({ length: csvRows }, (_, index) => `${index},name-${index}`).join('\n')}\n`;
      const body = 'CREATE (:Loaded {id: toInteger(row.id), name: row.name})';
      await writeFile(path.join(importFolder, 'bench.csv'), csv);
      const oursTimes: number[] = [];
      const rawTimes: number[] = [];
      for (let round = 0; round < 3; round++) {
        const form = new FormData();
        form.append('file', new Blob([csv]), 'bench.csv');
        const started = performance.now();
        const staged = await fetch(url('/api/upload'), { method: 'POST', headers: bearer, body: form });
        const { fileId } = (await staged.json()) as { fileId: string };
        const loaded = await fetch(url(`/api/graph/csv-ours-${round}/load-csv`), {
          method: 'POST',
          headers: { ...bearer, 'content-type': 'application/json' },
          body: JSON.stringify({ key: fileId, body, withHeaders: true }),
        });
        if (!loaded.ok) throw new Error(`load-csv failed: ${loaded.status} ${await loaded.text()}`);
        oursTimes.push(performance.now() - started);

        const rawStarted = performance.now();
        const target = raw.selectGraph(`csv-raw-${round}`);
        await target.query(`LOAD CSV WITH HEADERS FROM 'file://bench.csv' AS row ${body}`);
        rawTimes.push(performance.now() - rawStarted);
        const [ours, theirs] = await Promise.all(
          [`csv-ours-${round}`, `csv-raw-${round}`].map(async (name) =>
            JSON.stringify((await raw.selectGraph(name).query('MATCH (n:Loaded) RETURN count(n)')).data),
          ),
        );
        if (ours !== theirs) throw new Error(`load-csv loaded ${ours} where LOAD CSV loaded ${theirs}`);
        await raw.selectGraph(`csv-ours-${round}`).delete();
        await target.delete();
      }
      const best = (values: number[]) => Math.min(...values);
      csvLoad = {
        name: 'CSV load, 100,000 rows (upload + POST /api/graph/{graph}/load-csv)',
        oursMs: best(oursTimes),
        rawMs: best(rawTimes),
        ratio: best(oursTimes) / best(rawTimes),
      };
      console.log(csvLoad.name);
      console.log(
        `  ours ${csvLoad.oursMs.toFixed(0)} ms (staging included); FalkorDB's LOAD CSV of the same file ${csvLoad.rawMs.toFixed(0)} ms; ratio ${csvLoad.ratio.toFixed(2)}x (goal ≤ 2x)`,
      );
    }

    if (goals.length > 0) {
      console.log('The performance goals, judged by the interleaved medians of this run');
      for (const verdict of goals) console.log(`  ${describeVerdict(verdict)}`);
    }

    const machine = {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      falkordb: falkordb.server.version,
    };
    await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
    await writeFile(
      RESULTS_FILE,
      `${JSON.stringify({ date: new Date().toISOString(), machine, durationSeconds: DURATION_SECONDS, rounds: ROUNDS, rows, goals, big, csvLoad, memoryUnderLoad, benchProcessPeakRssMiB: await peakRssMiB('self') }, null, 2)}\n`,
    );
    console.log(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
    if (invalidRows.length > 0) {
      console.log(`INVALID rows (some requests failed; their figures measure the failures): ${invalidRows.join('; ')}`);
      process.exitCode = 1;
    }
  } finally {
    await raw.close();
    await store.close();
    await server.stop();
    await falkordb.stop();
  }
}

await main();
