// The audit log at scale: loads BENCH_AUDIT_ENTRIES (1,000,000) entries into a real FalkorDB through the
// store's own write path (pipelined), then measures GET /api/audit/ with filters and a page of 50 beside the raw
// store commands the route runs (the baseline: one MULTI of ZCARD/ZCOUNT + ZRANGE, then MGET of the page).
// Runs on its own: `npx tsx bench/audit-log.ts` (the server runs from dist/ when built, from src/ with tsx
// otherwise). Results go to bench/results/audit-log.json.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { planQuery, type AuditEntry, type AuditFilters } from '../src/platform/stores/audit-query.js';
import {
  auditKeys,
  createRedisAuditStore,
  newEntryId,
  pageCommands,
  runIntersection,
} from '../src/platform/stores/audit-store.js';
import { startEmbeddedFalkorDB } from '../src/platform/falkordb/embedded-falkordb.js';
import {
  createRedisConnection,
  storeTransaction,
  type RedisConnection,
} from '../src/platform/redis/redis-connection.js';
import { measureHttp, measureRaw } from './lib/load.js';
import { startBenchServer } from './lib/server.js';
import type { Measurement } from './lib/stats.js';

const ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const RESULTS_FILE = path.join(HERE, 'results', 'audit-log.json');
const DAY_MS = 86_400_000;
const USERS = 200;
const CLUSTERS = 50;
const ACTIONS = [
  ['auth.login', 'session'],
  ['user.create', 'user'],
  ['user.update', 'user'],
  ['settings.update', 'settings'],
  ['cluster.restart', 'cluster'],
  ['cluster.scale', 'cluster'],
  ['cluster.reconfigure', 'cluster'],
  ['backup.create', 'backup'],
  ['backup.delete', 'backup'],
  ['restore.create', 'restore'],
] as const;

/** Deterministic pseudo-random numbers (mulberry32), so every run loads the same log. */
function generator(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function syntheticEntry(index: number, end: number, random: () => number): AuditEntry {
  // Spread over 80 days, oldest first.
  const time = end - Math.floor(((ENTRIES - index) / ENTRIES) * 80 * DAY_MS);
  const [action, resourceType] = ACTIONS[Math.floor(random() * ACTIONS.length)]!;
  const onCluster = resourceType === 'cluster' || resourceType === 'backup' || resourceType === 'restore';
  const cluster = onCluster ? `db-${Math.floor(random() * CLUSTERS)}` : undefined;
  return {
    id: newEntryId(time),
    time,
    userId: `user-${Math.floor(random() * USERS)}@corp.example`,
    action,
    resourceType,
    ...(resourceType === 'cluster' ? { resourceName: cluster } : {}),
    namespace: 'graphdb-system',
    ...(cluster ? { cluster } : {}),
    result: random() < 0.05 ? 'failure' : 'success',
    message: 'OK',
    requestId: randomBytes(8).toString('hex'),
    ip: '10.0.0.1',
    userAgent: 'Mozilla/5.0 (bench)',
  };
}

async function load(store: RedisConnection): Promise<number> {
  const audit = createRedisAuditStore(store);
  const random = generator(19);
  const end = Date.now();
  const started = performance.now();
  const batch = 2000;
  const inFlight: Promise<void>[] = [];
  for (let from = 0; from < ENTRIES; from += batch) {
    const entries = Array.from({ length: Math.min(batch, ENTRIES - from) }, (_, i) =>
      syntheticEntry(from + i, end, random),
    );
    inFlight.push(audit.append(entries));
    if (inFlight.length >= 4) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return performance.now() - started;
}

/** What the route runs for `filters`, straight on the store: the baseline. */
function rawPage(store: RedisConnection, filters: AuditFilters) {
  const keys = auditKeys();
  const plan = planQuery(filters, { limit: 50, offset: 0 });
  return async () => {
    let ids: string[];
    if (plan.indexes.length > 1) ids = (await runIntersection(store, plan.indexes.map(keys.index), plan)).ids;
    else {
      const key = plan.indexes.length === 0 ? keys.all : keys.index(plan.indexes[0]!);
      ids = ((await storeTransaction(store, pageCommands(key, plan))) as [number, string[]])[1];
    }
    return store.mGet(ids.map(keys.entry));
  };
}

async function main(): Promise<void> {
  const logger = pino({ level: 'warn' });
  const falkordb = await startEmbeddedFalkorDB({ logger });
  const storeUrl = `${falkordb.url}/1`;
  const store = createRedisConnection(storeUrl, logger);
  await store.connect();
  const admin = { email: 'bench@example.com', password: 'bench-password-1' };
  const entry = existsSync(path.join(ROOT, 'dist', 'main.js')) ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  try {
    const loadMs = await load(store);
    const memory = await store.info('memory');
    const usedMiB = Number(/used_memory:(\d+)/.exec(memory)?.[1] ?? Number.NaN) / 2 ** 20;
    console.log(
      `loaded ${ENTRIES} audit entries in ${(loadMs / 1000).toFixed(1)} s; store memory ${usedMiB.toFixed(0)} MiB`,
    );

    server = await startBenchServer(
      {
        AUTH_SECRET: randomBytes(32).toString('hex'),
        ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        SESSION_SECRET: randomBytes(32).toString('hex'),
        TOKEN_STORE_URL: storeUrl,
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'gdb-bench-audit-')),
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        DATABASE_HOSTS: '127.0.0.1',
        // The bench reads; its own sign-in is the only entry it adds.
        LOG_LEVEL: 'warn',
      },
      entry,
    );
    const signIn = await fetch(`${server.baseUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(admin),
    });
    if (!signIn.ok) throw new Error(`sign-in failed: ${signIn.status} ${await signIn.text()}`);
    const cookie = /token=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')?.[0];
    if (!cookie) throw new Error('no session cookie');

    const rows: {
      name: string;
      query: string;
      matching: number;
      ours: Measurement;
      oursAlone: Measurement;
      raw: Measurement;
    }[] = [];
    const cases: [string, string, AuditFilters][] = [
      ['one filter: userId (~5,000 of 1M)', 'userId=user-7%40corp.example', { userId: 'user-7@corp.example' }],
      ['one filter: action (~100,000 of 1M)', 'action=cluster.restart', { action: 'cluster.restart' }],
      ['one filter: result=failure (~50,000 of 1M)', 'result=failure', { result: 'failure' }],
      [
        'one filter and a date range (last 7 days)',
        `action=user.create&startDate=${new Date(Date.now() - 7 * DAY_MS).toISOString().slice(0, 10)}`,
        { action: 'user.create', from: Date.parse(new Date(Date.now() - 7 * DAY_MS).toISOString().slice(0, 10)) },
      ],
      ['no filter', '', {}],
      [
        'two filters: userId and result=failure (intersection)',
        'userId=user-7%40corp.example&result=failure',
        { userId: 'user-7@corp.example', result: 'failure' },
      ],
      [
        'two filters: action and result=failure (larger intersection)',
        'action=cluster.restart&result=failure',
        { action: 'cluster.restart', result: 'failure' },
      ],
    ];
    // Warm-up, unmeasured: the server's first requests pay for compilation and connection set-up.
    await measureHttp({
      url: `${server.baseUrl}/api/audit/?limit=50`,
      headers: { cookie },
      connections: 10,
      durationSeconds: 2,
    });
    for (const [name, query, filters] of cases) {
      const url = `${server.baseUrl}/api/audit/?${query}${query ? '&' : ''}limit=50`;
      const check = await fetch(url, { headers: { cookie } });
      if (!check.ok) throw new Error(`${name}: ${check.status} ${await check.text()}`);
      const { total, logs } = (await check.json()) as { total: number; logs: unknown[] };
      if (logs.length !== Math.min(50, total)) throw new Error(`${name}: ${logs.length} entries of ${total}`);
      const raw = rawPage(store, filters);
      const ours = await measureHttp({ url, headers: { cookie }, connections: 10, durationSeconds: SECONDS });
      const oursAlone = await measureHttp({ url, headers: { cookie }, connections: 1, durationSeconds: SECONDS });
      const direct = await measureRaw(raw, 10, SECONDS);
      rows.push({ name, query, matching: total, ours, oursAlone, raw: direct });
      const fmt = (m: Measurement) =>
        `${m.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(6)} ms  p99 ${m.p99Ms.toFixed(2).padStart(6)} ms  errors ${m.errors}`;
      console.log(`GET /api/audit/ ${name} [${total} match]`);
      console.log(`  ours, 10 connections  ${fmt(ours)}`);
      console.log(`  ours, 1 connection    ${fmt(oursAlone)}`);
      console.log(`  raw store commands    ${fmt(direct)}`);
    }
    await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
    await writeFile(
      RESULTS_FILE,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
          entries: ENTRIES,
          loadSeconds: loadMs / 1000,
          storeMemoryMiB: usedMiB,
          durationSeconds: SECONDS,
          rows,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
  } finally {
    await server?.stop();
    await store.close();
    await falkordb.stop();
  }
}

await main();
