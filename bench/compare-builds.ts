// `npm run bench:compare -- <dir of the other build>`: this build (B) against another build of the server (A, a
// checkout with its own `npm run build`), both running at once on one FalkorDB, in many short interleaved rounds
// of the same route. A change worth a few percent drowns in this machine's drift between whole bench runs (about
// 10%); alternating 2-second rounds of two warm servers, and taking the median of the per-pair ratios, shows it.
// COMPARE_ONLY (a pattern over the scenario names), COMPARE_PAIRS and COMPARE_SECONDS bound the run.
// COMPARE_CONTROL=1 also runs a second copy of build A in every pair: how far apart two identical builds come out in
// the same minutes, the spread a difference between A and B must clear before it is claimed.
// COMPARE_RATE offers each server that many requests per second instead of as many as it answers: below saturation
// the server's CPU per request is compared without the feedback of a saturated machine (a slower server batches
// fewer requests per wake-up, so every request costs more), and throughput says nothing then.
import { randomBytes } from 'node:crypto';
import { access, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FalkorDB } from 'falkordb';
import { pino } from 'pino';
import { startEmbeddedFalkorDB } from '../src/platform/falkordb/embedded-falkordb.js';
import { measureHttp } from './lib/load.js';
import { costPerRequest, readProcessCounters } from './lib/process-cost.js';
import { startBenchServer, type BenchServer } from './lib/server.js';
import { pairedRatios, rotatedRounds, type PairedRatios } from './lib/stats.js';

const PAIRS = Number(process.env.COMPARE_PAIRS ?? 12);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 2);
const ONLY = process.env.COMPARE_ONLY ? new RegExp(process.env.COMPARE_ONLY, 'i') : undefined;
const CONTROL = process.env.COMPARE_CONTROL === '1';
const RATE = process.env.COMPARE_RATE ? Number(process.env.COMPARE_RATE) : undefined;
const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };

interface Side {
  server: BenchServer;
  bearer: Record<string, string>;
  session: Record<string, string>;
}

async function main(): Promise<void> {
  const otherBuild = process.argv[2];
  if (!otherBuild) throw new Error('usage: npm run bench:compare -- <directory of the other build (with dist/)>');
  const otherEntry = path.resolve(otherBuild, 'dist/main.js');
  await access(otherEntry).catch(() => {
    throw new Error(`${otherEntry} does not exist: run npm run build in ${otherBuild} first`);
  });
  const logger = pino({ level: 'warn' });
  const falkordb = await startEmbeddedFalkorDB({ logger });
  const secrets = {
    AUTH_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SESSION_SECRET: randomBytes(32).toString('hex'),
  };
  const start = async (entry: string, database: number): Promise<Side> => {
    const server = await startBenchServer(
      {
        ...secrets,
        TOKEN_STORE_URL: `${falkordb.url}/${database}`,
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'gdb-compare-')),
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        SETTINGS_REFRESH_MS: '5000',
        DATABASE_HOSTS: '127.0.0.1',
        QUERIES_PER_TOKEN: '10000',
        QUERIES_PER_CLIENT: '10000',
      },
      [entry],
    );
    try {
      const created = await fetch(`${server.baseUrl}/api/auth/tokens/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'default', host: falkordb.host, port: String(falkordb.port), tls: 'false' }),
      });
      if (!created.ok) throw new Error(`token creation failed: ${created.status} ${await created.text()}`);
      const { token } = (await created.json()) as { token: string };
      const signedIn = await fetch(`${server.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN),
      });
      if (!signedIn.ok) throw new Error(`sign-in failed: ${signedIn.status}`);
      return {
        server,
        bearer: { authorization: `Bearer ${token}` },
        session: { cookie: signedIn.headers.getSetCookie()[0]!.split(';')[0]! },
      };
    } catch (error) {
      await server.stop();
      throw error;
    }
  };
  // Separate token-store databases: each server keeps its own tokens and revocation channel.
  const sides: Side[] = [];
  try {
    const a = await start(otherEntry, 1);
    sides.push(a);
    const b = await start('dist/main.js', 2);
    sides.push(b);
    const control = CONTROL ? await start(otherEntry, 3) : undefined;
    if (control) sides.push(control);
    const raw = await FalkorDB.connect({ socket: { host: falkordb.host, port: falkordb.port } });
    await raw
      .selectGraph('bench')
      .query('UNWIND range(1, 1000) AS i CREATE (:Person {id: i, name: "p" + toString(i)})');
    await raw.close();
    const query = `/api/graph/bench?query=${encodeURIComponent('MATCH (n) RETURN n LIMIT 10')}&timeout=10000`;
    const scenarios: [string, (side: Side) => { url: string; headers: Record<string, string> }][] = [
      ['HTTP floor: GET /healthz', () => ({ url: '/healthz', headers: {} })],
      ['GET /api/status', (side) => ({ url: '/api/status', headers: side.bearer })],
      ['GET /api/graph', (side) => ({ url: '/api/graph', headers: side.bearer })],
      ['GET /api/graph/config', (side) => ({ url: '/api/graph/config', headers: side.bearer })],
      ['GET /api/user', (side) => ({ url: '/api/user', headers: side.bearer })],
      ['small query as JSON', (side) => ({ url: query, headers: side.bearer })],
      ['small query as SSE', (side) => ({ url: query, headers: { ...side.bearer, accept: 'text/event-stream' } })],
      ['admin GET /api/settings/', (side) => ({ url: '/api/settings/', headers: side.session })],
      ['admin GET /api/auth/validate', (side) => ({ url: '/api/auth/validate', headers: side.session })],
    ];
    console.log(
      `A: ${path.resolve(otherBuild)}   B: this checkout   ${PAIRS} pairs of ${SECONDS} s${RATE ? ` at ${RATE} req/s offered` : ''}${control ? '   control: a second copy of A in each pair' : ''}`,
    );
    for (const [name, request] of scenarios) {
      if (ONLY && !ONLY.test(name)) continue;
      const round = async (side: Side) => {
        const { url, headers } = request(side);
        const before = await readProcessCounters(side.server.pid);
        const measured = await measureHttp({
          url: `${side.server.baseUrl}${url}`,
          headers,
          connections: 10,
          durationSeconds: SECONDS,
          ...(RATE === undefined ? {} : { overallRate: RATE }),
        });
        const after = await readProcessCounters(side.server.pid);
        if (measured.errors > 0) throw new Error(`${name}: ${measured.errors} requests failed`);
        if (!before || !after) throw new Error(`${name}: the server's /proc counters could not be read`);
        const cost = costPerRequest(before, after, measured.requests);
        // Requests per second of the server's own CPU: the server's cost apart from what the load generator takes
        // of the two cores. While the server runs at a full core it follows throughput, and then confirms it.
        return { throughput: measured.requestsPerSecond, perCpuSecond: 1e6 / cost.cpuMicroseconds };
      };
      type Round = Awaited<ReturnType<typeof round>>;
      const runners = control ? [a, b, control] : [a, b];
      for (const side of runners) await round(side); // warm-up of each, not counted
      // The order rotates from pair to pair, so no side always gets the warmer or the noisier part.
      const pairs = (
        await rotatedRounds(
          PAIRS,
          runners.map((side) => () => round(side)),
        )
      ).map(([aRound, bRound, controlRound]): { a: Round; b: Round; control?: Round } => ({
        a: aRound!,
        b: bRound!,
        ...(controlRound ? { control: controlRound } : {}),
      }));
      const of = (key: 'throughput' | 'perCpuSecond') => pairs.map((pair) => ({ a: pair.a[key], b: pair.b[key] }));
      report(name, pairedRatios(of('throughput')), pairedRatios(of('perCpuSecond')));
      if (control) {
        const identical = pairedRatios(pairs.map((pair) => ({ a: pair.a.throughput, b: pair.control!.throughput })));
        console.log(`${''.padEnd(32)} control (A again)/A: ${describeRatios(identical, "A'")}`);
      }
    }
  } finally {
    await Promise.all(sides.map((side) => side.server.stop()));
    await falkordb.stop();
  }
}

const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;

function describeRatios(result: PairedRatios, side: string): string {
  return `median ${percent(result.median)} (middle half ${percent(result.lowerQuartile)} to ${percent(result.upperQuartile)}; ${side} ahead in ${result.bAhead} of ${result.pairs})`;
}

function report(name: string, throughput: PairedRatios, perCpuSecond: PairedRatios): void {
  const ratios = (result: PairedRatios) => `B/A ${describeRatios(result, 'B')}`;
  console.log(
    `${name.padEnd(32)} A ${throughput.medianA.toFixed(0).padStart(6)} req/s  B ${throughput.medianB.toFixed(0).padStart(6)} req/s  ${ratios(throughput)}\n` +
      `${''.padEnd(32)} per server CPU-second: A ${perCpuSecond.medianA.toFixed(0).padStart(6)}  B ${perCpuSecond.medianB.toFixed(0).padStart(6)}  ${ratios(perCpuSecond)}`,
  );
}

await main();
