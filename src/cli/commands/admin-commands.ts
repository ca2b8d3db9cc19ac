// system namespaces, diagnostics health|support-package, license status, audit list.
import type { Command } from 'commander';
import { errorFor, signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { printLine, printProgress, printResult, printTable } from '../output.js';
import { wholeNumber } from '../parsers.js';
import { writePrivateFile } from '../session-file.js';

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
interface AuditEntry {
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

const collect = (value: string, previous: string[] = []) => [...previous, value];

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

  const diagnostics = program.command('diagnostics').description('Health checks and support packages');
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
          process.stdout.write(zip);
          return;
        }
        await writePrivateFile(options.file, zip);
        printResult({ file: options.file, bytes: zip.byteLength, serverFilename: name ?? null }, () =>
          printLine(`Wrote ${options.file} (${zip.byteLength} bytes)`),
        );
      },
    );

  program
    .command('license')
    .description('The license')
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

  program
    .command('audit')
    .description('The audit log')
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
