// audit list|mine: the audit log, and the caller's own entries.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { printProgress, printResult } from '../output.js';
import { wholeNumber } from '../parsers.js';

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

export function registerAuditCommands(program: Command): void {
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
