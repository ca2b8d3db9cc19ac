// GET /api/clusters/ with 1,000 deployments: a real kube-apiserver with KubeBlocks' real Cluster CRD and
// the chart's RBAC, 1,000 Cluster objects in the cluster namespace, and the compiled server signed in as the chart's
// service account. Beside it the raw baseline: the same list read straight from the API server by the bench process
// (as the admin, through @kubernetes/client-node). Needs the binaries and CRDs `npm run test:kube` builds and
// fetches (scripts/bench.sh provides them when they are cached); without them it says SKIPPED and why.
// Results go to bench/results/cluster-list.json.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { pino } from 'pino';
import { startEmbeddedFalkorDB } from '../src/platform/falkordb/embedded-falkordb.js';
import { SERVER_NAMESPACE, startChartApiServer } from '../test/support/kube/chart-apiserver.js';
import { kubeBlocksCrdsDir, realCrdFile } from '../test/support/kube/kubeblocks-crds.js';
import { CLUSTERS_V1, standalone } from '../test/support/kube/kubeblocks-fixtures.js';
import { kubeBinaries } from '../test/support/kube/real-apiserver.js';
import { createWithStatus } from '../test/support/kube/real-kubeblocks.js';
import { measureHttp, measureRaw } from './lib/load.js';
import { startBenchServer } from './lib/server.js';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const RESULTS_FILE = path.join(HERE, 'results', 'cluster-list.json');
const NAME = `GET /api/clusters/ with ${CLUSTERS.toLocaleString('en')} deployments (real kube-apiserver, the chart's RBAC)`;

/** Runs `work` over `items` with at most `width` at once. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function main(): Promise<void> {
  const binaries = kubeBinaries();
  const crds = kubeBlocksCrdsDir();
  const missing = 'missing' in binaries ? binaries.missing : typeof crds === 'string' ? undefined : crds.missing;
  if (missing !== undefined) {
    console.log(`${NAME}\n  SKIPPED: ${missing}`);
    return;
  }
  const logger = pino({ level: 'warn' });
  const falkordb = await startEmbeddedFalkorDB({ logger });
  const kube = await startChartApiServer({ crds: [realCrdFile(CLUSTERS_V1)] });
  const admin = { email: 'bench@example.com', password: 'bench-password-1' };
  const entry = existsSync(path.join(ROOT, 'dist', 'main.js')) ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  let server: Awaited<ReturnType<typeof startBenchServer>> | undefined;
  try {
    const started = performance.now();
    const names = Array.from({ length: CLUSTERS }, (_, index) => `graph-${String(index).padStart(4, '0')}`);
    await inParallel(names, 16, (name) => createWithStatus(kube.api.admin, standalone(name, SERVER_NAMESPACE)));
    console.log(`created ${CLUSTERS} Cluster objects in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    server = await startBenchServer(
      {
        AUTH_SECRET: randomBytes(32).toString('hex'),
        ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        SESSION_SECRET: randomBytes(32).toString('hex'),
        TOKEN_STORE_URL: `${falkordb.url}/1`,
        DATA_DIR: await mkdtemp(path.join(os.tmpdir(), 'gdb-bench-clusters-')),
        KUBECONFIG: kube.serverKubeconfigPath,
        POD_NAMESPACE: SERVER_NAMESPACE,
        CLUSTER_NAMESPACE: SERVER_NAMESPACE,
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
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
    const url = `${server.baseUrl}/api/clusters/`;
    const check = await fetch(url, { headers: { cookie } });
    if (!check.ok) throw new Error(`GET /api/clusters/: ${check.status} ${await check.text()}`);
    const body = (await check.json()) as { clusters: unknown[]; total?: number };
    const listed = body.total ?? body.clusters.length;
    if (listed !== CLUSTERS) throw new Error(`GET /api/clusters/ listed ${listed} of ${CLUSTERS}`);

    const objects = kube.api.admin.makeApiClient(CustomObjectsApi);
    const raw = () =>
      objects.listNamespacedCustomObject({
        group: 'apps.kubeblocks.io',
        version: 'v1',
        namespace: SERVER_NAMESPACE,
        plural: 'clusters',
      });
    // Warm-up, unmeasured.
    await measureHttp({ url, headers: { cookie }, connections: 4, durationSeconds: 2 });
    const ours = await measureHttp({ url, headers: { cookie }, connections: 4, durationSeconds: SECONDS });
    const oursAlone = await measureHttp({ url, headers: { cookie }, connections: 1, durationSeconds: SECONDS });
    const direct = await measureRaw(raw, 4, SECONDS);
    const fmt = (m: typeof ours) =>
      `${m.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(7)} ms  p99 ${m.p99Ms.toFixed(2).padStart(7)} ms  errors ${m.errors}`;
    console.log(NAME);
    console.log(`  ours, 4 connections   ${fmt(ours)}`);
    console.log(`  ours, 1 connection    ${fmt(oursAlone)}`);
    console.log(`  raw list, 4 at once   ${fmt(direct)}`);
    console.log(`  p99 ${ours.p99Ms.toFixed(0)} ms at 4 connections (goal: under 150 ms)`);
    await mkdir(path.dirname(RESULTS_FILE), { recursive: true });
    await writeFile(
      RESULTS_FILE,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version },
          clusters: CLUSTERS,
          kubernetes: kube.api.version,
          durationSeconds: SECONDS,
          ours,
          oursAlone,
          raw: direct,
        },
        null,
        2,
      )}\n`,
    );
    console.log(`results written to ${path.relative(process.cwd(), RESULTS_FILE)}`);
  } finally {
    await server?.stop();
    await kube.close();
    await falkordb.stop();
  }
}

await main();
