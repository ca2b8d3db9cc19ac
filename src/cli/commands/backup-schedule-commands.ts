// backups schedules <deployment> list|get|create|update|delete: a deployment's backup schedules.
import { type Command, Option } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { type ConfirmOptions, confirmDestructive, withYes } from '../confirm.js';
import { printLine, printResult } from '../output.js';
import { wholeNumber } from '../parsers.js';
import { clusterPath } from './cluster-commands.js';
import { actionCommand, checkAction, type Namespaced, type Schedule } from './backup-command-support.js';

export function registerSchedules(backups: Command): void {
  const actions = ['list', 'get', 'create', 'update', 'delete'];
  withYes(actionCommand(backups, 'schedules', "A deployment's backup schedules", actions))
    .option('--scheduleName <name>', 'create: the new schedule')
    .option('--frequency <cron>', 'create, update: a five-field cron expression in UTC, e.g. "0 3 * * *"')
    .addOption(
      new Option('--backupMethod <method>', 'create, update: how to back up').choices([
        'datafile',
        'aof',
        'volume-snapshot',
      ]),
    )
    .option('--backupPolicyName <policy>', 'create, update: the policy (default: the deployment’s)')
    .option('--retentionPeriod <duration>', 'create, update: keep each backup this long (default 30d)')
    .option('--startingDeadlineMinutes <n>', 'create, update: skip a run this late', wholeNumber(0, 1440))
    .option('--enable', 'create, update: the schedule runs (the default)')
    .option('--disable', 'create, update: the schedule does not run')
    .action(
      async (
        deployment: string,
        action: string,
        name: string | undefined,
        options: Namespaced &
          ConfirmOptions & {
            scheduleName?: string;
            frequency?: string;
            backupMethod?: string;
            backupPolicyName?: string;
            retentionPeriod?: string;
            startingDeadlineMinutes?: number;
            enable?: boolean;
            disable?: boolean;
          },
      ) => {
        checkAction('schedules', action, actions, name);
        if (options.enable && options.disable) throw new CliError(EXIT.usage, 'use either --enable or --disable');
        const client = await signedInClient();
        const at = (suffix: string) => clusterPath(deployment, `/backups/schedules/${suffix}`, options.namespace);
        const table = (items: Schedule[]) => ({
          headers: ['NAME', 'FREQUENCY', 'METHOD', 'RETENTION', 'ENABLED', 'NEXT RUN', 'LAST'],
          rows: items.map((s) => [
            s.name,
            s.frequency,
            s.backupMethod,
            s.retentionPeriod,
            s.enabled,
            s.nextRun,
            s.lastStatus,
          ]),
        });
        const fields = {
          ...(options.frequency ? { frequency: options.frequency } : {}),
          ...(options.backupMethod ? { backupMethod: options.backupMethod } : {}),
          ...(options.backupPolicyName ? { backupPolicyName: options.backupPolicyName } : {}),
          ...(options.retentionPeriod ? { retentionPeriod: options.retentionPeriod } : {}),
          ...(options.startingDeadlineMinutes !== undefined
            ? { startingDeadlineMinutes: options.startingDeadlineMinutes }
            : {}),
          ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
        };
        if (action === 'list') {
          const { schedules } = await client.call<{ schedules: Schedule[] }>('GET', at(''));
          return printResult(schedules, table(schedules));
        }
        if (action === 'get') {
          const schedule = await client.call<Schedule>('GET', at(encodeURIComponent(name!)));
          return printResult(schedule, table([schedule]));
        }
        if (action === 'create') {
          const scheduleName = options.scheduleName ?? name;
          if (!scheduleName) throw new CliError(EXIT.usage, 'give the schedule name: --scheduleName <name>');
          if (!options.frequency || !options.backupMethod)
            throw new CliError(EXIT.usage, 'a schedule needs --frequency and --backupMethod');
          const schedule = await client.call<Schedule>('POST', at(''), { scheduleName, ...fields });
          return printResult(schedule, () => printLine(`${schedule.name} created`));
        }
        if (action === 'update') {
          if (Object.keys(fields).length === 0)
            throw new CliError(
              EXIT.usage,
              'nothing to change: give --frequency, --backupMethod, --retentionPeriod, --enable or --disable',
            );
          const schedule = await client.call<Schedule>('PATCH', at(encodeURIComponent(name!)), fields);
          return printResult(schedule, () => printLine(`${schedule.name} updated`));
        }
        await confirmDestructive(`Delete backup schedule ${name}`, name!, options);
        await client.call('DELETE', at(encodeURIComponent(name!)));
        printResult({ deleted: name }, () => printLine(`${name} deleted`));
      },
    );
}
