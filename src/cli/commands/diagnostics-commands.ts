// diagnostics get|export|health|support-package: the server's own health checks, its diagnostics document and the
// support package, downloaded to a file.
import type { Command } from 'commander';
import { errorFor, signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { humanSize, printLine, printProgress, printResult, printTable } from '../output.js';
import { repeatable, wholeNumber } from '../parsers.js';
import { writePrivateFile } from '../session-file.js';

interface Health {
  status: 'healthy' | 'degraded' | 'unhealthy';
  checks: Record<string, string>;
  timestamp: string;
  error?: string;
  notApplicable?: string[];
}
interface Diagnostics {
  server: { uptime: number; version: string; nodeVersion: string; platform: string; arch: string; cpus: number };
  versions: { server?: { image?: string; version?: string }; addon?: { version: string } };
  health: Health;
  resources: { totalClusters: number; recentActivityCount: number };
  recentErrors: { time: string; level: number; msg: string; reqId?: string }[];
}

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

export function registerDiagnosticsCommands(program: Command): void {
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
    .option('--cluster <namespace/name>', 'include only these deployments; repeatable (default: all)', repeatable)
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
}
