// system namespaces|storage-classes|falkordb-versions|cluster-resources|metrics, search, diagnostics (one file because these small groups are each a few read-only commands of the system routes)
// get|export|health|support-package, license status|activate, audit list|mine.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { errorFor, signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { age, humanSize, printLine, printProgress, printResult, printTable, readStdin } from '../output.js';
import { wholeNumber } from '../parsers.js';
import { writePrivateFile } from '../session-file.js';
import type { StorageClass } from '../../lib/storage-class.js';

interface Health {
  status: 'healthy' | 'degraded' | 'unhealthy';
  checks: Record<string, string>;
  timestamp: string;
  error?: string;
  notApplicable?: string[];
}
interface License {
  state: string;
  message: string;
  edition: string;
  limits: Record<string, number | string>;
  usage: Record<string, number | string>;
  violations: string[];
}
/** One entry of an audit log page (`GET /api/audit/`, a deployment's events), as the commands print it. */
export interface AuditEntry {
  userId: string;
  timestamp: string;
  action: string;
  resourceType?: string;
  resourceName?: string;
  result: string;
  message?: string;
  ip?: string;
  userAgent?: string;
}

interface Capacity {
  total: number | null;
  usedByDeployments: number;
  usedBySupport: number;
  usedTotal: number;
  available: number | null;
}
interface ClusterResources {
  timestamp: string;
  cpu: Capacity;
  memory: Capacity;
  storage: Capacity & { capacityKnown: boolean };
  availableForDeployments: { cpu: number; memory: number; storage: number | null; limitingResource: string };
  scope: { mode: string; namespaces: string[] | null };
  notes: string[];
}
interface Diagnostics {
  server: { uptime: number; version: string; nodeVersion: string; platform: string; arch: string; cpus: number };
  versions: { server?: { image?: string; version?: string }; addon?: { version: string } };
  health: Health;
  resources: { totalClusters: number; recentActivityCount: number };
  recentErrors: { time: string; level: number; msg: string; reqId?: string }[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A document a command downloads: to `file`, or to standard output for `-`, never as binary onto a terminal. */
async function writeDownload(file: string, bytes: Uint8Array, binary: boolean): Promise<void> {
  if (file === '-') {
    if (binary && process.stdout.isTTY)
      throw new CliError(EXIT.usage, 'will not write a zip to a terminal: give -f <file>, or redirect standard output');
    process.stdout.write(bytes);
    return;
  }
  await writePrivateFile(file, bytes);
  printResult({ file, bytes: bytes.byteLength }, () => printLine(`Wrote ${file} (${humanSize(bytes.byteLength)})`));
}

/** Notes the server gives with a list (what it may not read, why a list is empty): for people, on stderr. */
const printNotes = (notes: string[] | undefined) => {
  for (const note of notes ?? []) process.stderr.write(`note: ${note}\n`);
};

export function registerAdminCommands(program: Command): void {
  const system = program.command('system').description('What the server sees of its Kubernetes cluster');
  system
    .command('namespaces')
    .description('List the namespaces deployments can go in')
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{
        namespaces: { name: string; createdAt: string; status?: string; labels?: Record<string, string> }[];
        total: number;
        notes?: string[];
      }>('GET', '/api/system/namespaces');
      printResult(answer, () => {
        printTable(
          ['NAME', 'STATUS', 'CREATED'],
          answer.namespaces.map((n) => [n.name, n.status ?? '', n.createdAt]),
        );
        for (const note of answer.notes ?? []) process.stderr.write(`note: ${note}\n`);
      });
    });

  system
    .command('storage-classes')
    .description('List the StorageClasses deployment volumes can use (the default marked)')
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{
        storageClasses: StorageClass[];
        total: number;
        notes?: string[];
      }>('GET', '/api/system/storage-classes');
      printResult(answer, () => {
        printTable(
          ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE'],
          answer.storageClasses.map((c) => [
            c.isDefault ? `${c.name} (default)` : c.name,
            c.provisioner,
            c.reclaimPolicy ?? '',
            c.volumeBindingMode ?? '',
            c.allowVolumeExpansion ?? false,
            age(c.createdAt),
          ]),
        );
        printNotes(answer.notes);
      });
    });

  system
    .command('falkordb-versions')
    .alias('versions')
    .description('List the FalkorDB versions deployments can run or be upgraded to')
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{
        versions: {
          name: string;
          falkordbVersion: string;
          releases: { version: string; releaseDate?: string; stable?: boolean }[];
          componentDefinitions: { name: string; version: string }[];
        }[];
        total: number;
        notes?: string[];
      }>('GET', '/api/system/falkordb-versions');
      printResult(answer, () => {
        printTable(
          ['NAME', 'VERSION', 'STABLE', 'RELEASED', 'COMPONENT DEFINITIONS'],
          answer.versions.flatMap((v) =>
            v.releases.map((r) => [
              v.name,
              r.version,
              r.stable ?? '',
              r.releaseDate ?? '',
              v.componentDefinitions
                .filter((d) => d.version === r.version)
                .map((d) => d.name)
                .join(','),
            ]),
          ),
        );
        printNotes(answer.notes);
      });
    });

  system
    .command('cluster-resources')
    .alias('resources')
    .description("The Kubernetes cluster's CPU, memory and storage: used by deployments and support, and free")
    .action(async () => {
      const answer = await (await signedInClient()).call<ClusterResources>('GET', '/api/system/cluster-resources');
      const cores = (n: number | null) => (n === null ? 'unknown' : `${Math.round(n * 100) / 100}`);
      const bytes = (n: number | null) => (n === null ? 'unknown' : humanSize(Math.round(n)));
      printResult(answer, () => {
        printTable(
          ['RESOURCE', 'TOTAL', 'DEPLOYMENTS', 'SUPPORT', 'AVAILABLE'],
          [
            [
              'cpu',
              cores(answer.cpu.total),
              cores(answer.cpu.usedByDeployments),
              cores(answer.cpu.usedBySupport),
              cores(answer.cpu.available),
            ],
            [
              'memory',
              bytes(answer.memory.total),
              bytes(answer.memory.usedByDeployments),
              bytes(answer.memory.usedBySupport),
              bytes(answer.memory.available),
            ],
            [
              'storage',
              bytes(answer.storage.total),
              bytes(answer.storage.usedByDeployments),
              bytes(answer.storage.usedBySupport),
              bytes(answer.storage.available),
            ],
          ],
        );
        printLine(
          `Limited by ${answer.availableForDeployments.limitingResource}; scope: ${answer.scope.mode}${answer.scope.namespaces ? ` (${answer.scope.namespaces.join(', ')})` : ''}`,
        );
        printNotes(answer.notes);
      });
    });

  system
    .command('metrics')
    .description("The server host's CPU and memory use, and how many deployments are healthy")
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{
        timestamp: string;
        cpu: { usage: number; count: number };
        memory: { total: number; used: number; free: number; percentage: number };
        clusters: { total: number; healthy: number; unhealthy: number };
      }>('GET', '/api/metrics/');
      printResult(answer, () =>
        printTable(
          ['CPU', 'CPUS', 'MEMORY', 'MEMORY TOTAL', 'DEPLOYMENTS', 'HEALTHY', 'UNHEALTHY'],
          [
            [
              `${Math.round(answer.cpu.usage)}%`,
              answer.cpu.count,
              `${Math.round(answer.memory.percentage)}%`,
              humanSize(answer.memory.total),
              answer.clusters.total,
              answer.clusters.healthy,
              answer.clusters.unhealthy,
            ],
          ],
        ),
      );
    });

  program
    .command('search')
    .description('Find deployments, backups, users, roles and backup repositories by name')
    .argument('[query]', 'text the name or description contains (case-insensitive); all when absent')
    .option('--type <type>', 'cluster, backup, user, role or backup-repository; repeatable', collect)
    .option('-n, --namespace <namespace>', 'only this namespace')
    .option('--limit <n>', 'at most this many (1-200)', wholeNumber(1, 200))
    .action(async (text: string | undefined, options: { type?: string[]; namespace?: string; limit?: number }) => {
      const query = new URLSearchParams();
      if (text !== undefined) query.set('q', text);
      if (options.type?.length) query.set('types', options.type.join(','));
      if (options.namespace) query.set('namespace', options.namespace);
      if (options.limit !== undefined) query.set('limit', String(options.limit));
      const answer = await (
        await signedInClient()
      ).call<{
        query: string;
        total: number;
        items: { type: string; name: string; namespace?: string; id: string; description: string }[];
      }>('GET', `/api/search/?${query.toString()}`);
      printResult(answer, {
        headers: ['TYPE', 'NAMESPACE', 'NAME', 'DESCRIPTION'],
        rows: answer.items.map((item) => [item.type, item.namespace ?? '', item.name, item.description]),
      });
      if (answer.total > answer.items.length && process.stderr.isTTY)
        printProgress(`${answer.items.length} of ${answer.total}; --limit for more`);
    });

  const diagnostics = program.command('diagnostics').description('Health checks and support packages');
  diagnostics
    .command('get')
    .description("The server's versions, host, health, counts and recent errors")
    .action(async () => {
      const found = await (await signedInClient()).call<Diagnostics>('GET', '/api/admin/diagnostics/');
      printResult(found, () => {
        const { server } = found;
        printLine(
          `Server ${server.version} (Node ${server.nodeVersion}, ${server.platform}/${server.arch}, ${server.cpus} CPUs), up ${Math.round(server.uptime)}s`,
        );
        if (found.versions.addon) printLine(`FalkorDB addon ${found.versions.addon.version}`);
        printLine(
          `Health: ${found.health.status}; ${found.resources.totalClusters} deployments, ${found.resources.recentActivityCount} recent audit entries`,
        );
        printTable(
          ['TIME', 'ERROR', 'REQUEST'],
          found.recentErrors.map((e) => [e.time, e.msg, e.reqId ?? '']),
        );
      });
    });

  diagnostics
    .command('export')
    .description('Download the diagnostics as a JSON file (the same as `diagnostics get -o json`, timestamped)')
    .requiredOption('-f, --output-file <path>', 'where to write the JSON (- for stdout)')
    .action(async (options: { outputFile: string }) => {
      const res = await (await signedInClient()).raw('GET', '/api/admin/diagnostics/export');
      await writeDownload(options.outputFile, new Uint8Array(await res.arrayBuffer()), false);
    });

  diagnostics
    .command('health')
    .description('Check the server, its database and Kubernetes (exit code 1 when unhealthy)')
    .action(async () => {
      // 503 carries the same body as 200: the checks, one of them unhealthy.
      const res = await (
        await signedInClient()
      ).raw('GET', '/api/admin/diagnostics/health', undefined, { acceptErrors: true });
      if (!res.ok && res.status !== 503) throw await errorFor(res);
      const health = (await res.json()) as Health;
      printResult(health, () => {
        printLine(`${health.status} at ${health.timestamp}${health.error ? `: ${health.error}` : ''}`);
        printTable(
          ['CHECK', 'STATUS'],
          Object.entries(health.checks).map(([check, status]) => [
            check,
            health.notApplicable?.includes(check) ? `${status} (not applicable)` : status,
          ]),
        );
      });
      if (health.status === 'unhealthy') process.exitCode = EXIT.other;
    });

  diagnostics
    .command('support-package')
    .description('Download a support package (zip: diagnostics, settings, deployments, logs, metrics; no secrets)')
    .requiredOption('-f, --file <path>', 'where to write the zip (- for stdout)')
    .option('--cluster <namespace/name>', 'include only these deployments; repeatable (default: all)', collect)
    .option('--issue <text>', 'what went wrong, for the support team')
    .option('--contact-email <email>', 'who support should answer')
    .option('--no-logs', "leave out the server's log")
    .option('--no-metrics', 'leave out Prometheus metrics')
    .option('--log-tail-lines <n>', 'how many log lines (0-2000)', wholeNumber(0, 2000))
    .option('--audit-limit <n>', 'how many audit entries (0-1000)', wholeNumber(0, 1000))
    .addHelpText(
      'after',
      '\nExample:\n  graphdb-admin diagnostics support-package -f support.zip --issue "restarts hang"',
    )
    .action(
      async (options: {
        file: string;
        cluster?: string[];
        issue?: string;
        contactEmail?: string;
        logs: boolean;
        metrics: boolean;
        logTailLines?: number;
        auditLimit?: number;
      }) => {
        // Refused before the server builds anything: a zip on a terminal is garbage on the screen.
        if (options.file === '-' && process.stdout.isTTY)
          throw new CliError(
            EXIT.usage,
            'will not write a zip to a terminal: give -f <file>, or redirect standard output',
          );
        const clusters = (options.cluster ?? []).map((text) => {
          const [namespace, name, ...rest] = text.split('/');
          if (!namespace || !name || rest.length > 0)
            throw new CliError(EXIT.usage, `--cluster takes namespace/name, got ${JSON.stringify(text)}`);
          return { namespace, name };
        });
        const body = {
          ...(clusters.length > 0 ? { clusters } : {}),
          ...(options.issue !== undefined ? { issueDescription: options.issue } : {}),
          ...(options.contactEmail !== undefined ? { contactEmail: options.contactEmail } : {}),
          includeLogs: options.logs,
          includeMetrics: options.metrics,
          ...(options.logTailLines !== undefined ? { logTailLines: options.logTailLines } : {}),
          ...(options.auditLimit !== undefined ? { auditLimit: options.auditLimit } : {}),
        };
        printProgress('Building the support package…');
        const res = await (await signedInClient()).raw('POST', '/api/admin/diagnostics/support-package', body);
        const zip = new Uint8Array(await res.arrayBuffer());
        const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1];
        if (options.file === '-') {
          await writeDownload('-', zip, true);
          return;
        }
        await writePrivateFile(options.file, zip);
        printResult({ file: options.file, bytes: zip.byteLength, serverFilename: name ?? null }, () =>
          printLine(`Wrote ${options.file} (${zip.byteLength} bytes)`),
        );
      },
    );

  const license = program.command('license').description('The license');
  license
    .command('activate')
    .description('Activate a license key')
    .option('--license <key>', 'the license key (visible to other users of this machine: prefer --license-file)')
    .option('--license-file <file>', 'a file holding the key (- for standard input)')
    .action(async (options: { license?: string; licenseFile?: string }) => {
      if ((options.license === undefined) === (options.licenseFile === undefined))
        throw new CliError(EXIT.usage, 'give either --license or --license-file');
      let key = options.license;
      if (options.licenseFile !== undefined) {
        key =
          options.licenseFile === '-'
            ? await readStdin()
            : await readFile(options.licenseFile, 'utf8').catch(() => undefined);
        if (key === undefined) throw new CliError(EXIT.usage, `cannot read ${options.licenseFile}`);
        key = key.trim();
      }
      const state = await (
        await signedInClient()
      ).call<License>('POST', '/api/admin/licensing/activate', {
        license: key,
      });
      printResult(state, () => printLine(`${state.edition}: ${state.state}: ${state.message}`));
    });
  license
    .command('status')
    .description('Show the license state, limits and usage')
    .action(async () => {
      const license = await (await signedInClient()).call<License>('GET', '/api/admin/licensing/status');
      printResult(license, () => {
        printLine(`${license.edition}: ${license.state}: ${license.message}`);
        printTable(
          ['LIMIT', 'USED', 'ALLOWED'],
          Object.entries(license.limits).map(([name, limit]) => [name, license.usage[name] ?? '', limit]),
        );
        for (const violation of license.violations) printLine(`violation: ${violation}`);
      });
    });

  const audit = program.command('audit').description('The audit log');
  audit
    .command('mine')
    .description('Your own audit entries, newest first (any role may read them)')
    .option('--limit <n>', 'at most this many entries (1-100)', wholeNumber(1, 100), 50)
    .option('--offset <n>', 'skip this many', wholeNumber(0, 10_000_000), 0)
    .action(async (options: { limit: number; offset: number }) => {
      const query = new URLSearchParams({ limit: String(options.limit), offset: String(options.offset) });
      const page = await (
        await signedInClient()
      ).call<{
        activities: {
          timestamp: string;
          action: string;
          resourceType: string;
          resourceName?: string;
          result: string;
          message?: string;
        }[];
        total: number;
        limit: number;
        offset: number;
      }>('GET', `/api/users/me/activity?${query.toString()}`);
      printResult(page, {
        headers: ['TIME', 'ACTION', 'RESOURCE', 'RESULT'],
        rows: page.activities.map((e) => [
          e.timestamp,
          e.action,
          [e.resourceType, e.resourceName].filter(Boolean).join('/'),
          e.result,
        ]),
        wide: { headers: ['MESSAGE'], rows: page.activities.map((e) => [e.message ?? '']) },
      });
    });
  audit
    .command('list')
    .description('List audit entries, newest first')
    .option('--user <email>', "only this actor's entries")
    .option('--action <action>', 'e.g. user.create, cluster.restart, auth.login')
    .option('--resource-type <type>', 'e.g. user, cluster, settings, session')
    .option('--resource-name <name>', 'only entries about this resource')
    .option('--result <result>', 'success or failure')
    .option('--since <date>', 'ISO 8601 date or date-time (UTC when no zone)')
    .option('--until <date>', 'ISO 8601 date or date-time, inclusive')
    .option('--limit <n>', 'at most this many entries (1-1000)', wholeNumber(1, 1000), 100)
    .option('--offset <n>', 'skip this many', wholeNumber(0, 10_000_000), 0)
    .addHelpText(
      'after',
      '\nExample:\n  graphdb-admin audit list --action auth.login --result failure --since 2026-01-01 -o json',
    )
    .action(
      async (options: {
        user?: string;
        action?: string;
        resourceType?: string;
        resourceName?: string;
        result?: string;
        since?: string;
        until?: string;
        limit: number;
        offset: number;
      }) => {
        if (options.result !== undefined && options.result !== 'success' && options.result !== 'failure')
          throw new CliError(EXIT.usage, `--result takes success or failure, got ${JSON.stringify(options.result)}`);
        const query = new URLSearchParams({ limit: String(options.limit), offset: String(options.offset) });
        const filters: [string, string | undefined][] = [
          ['userId', options.user],
          ['action', options.action],
          ['resourceType', options.resourceType],
          ['resourceName', options.resourceName],
          ['result', options.result],
          ['startDate', options.since],
          ['endDate', options.until],
        ];
        for (const [name, value] of filters) if (value !== undefined) query.set(name, value);
        const page = await (
          await signedInClient()
        ).call<{ logs: AuditEntry[]; total: number; limit: number; offset: number }>(
          'GET',
          `/api/audit/?${query.toString()}`,
        );
        printResult(page, {
          headers: ['TIME', 'USER', 'ACTION', 'RESOURCE', 'RESULT'],
          rows: page.logs.map((e) => [
            e.timestamp,
            e.userId,
            e.action,
            [e.resourceType, e.resourceName].filter(Boolean).join('/'),
            e.result,
          ]),
          wide: {
            headers: ['IP', 'MESSAGE'],
            rows: page.logs.map((e) => [e.ip ?? '', e.message ?? '']),
          },
        });
        if (page.total > page.offset + page.logs.length && process.stderr.isTTY)
          printProgress(`${page.logs.length} of ${page.total}; --offset ${page.offset + page.logs.length} for more`);
      },
    );
}
