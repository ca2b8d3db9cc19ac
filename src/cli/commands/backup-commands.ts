// backups list|get|create|delete|restore|clone|cleanup, with the subgroups repos, policies, schedules and restores from
// their own files. The real CLI's forms are kept where it has them (`backups repos list`, `backups policies <name>
// list`); flags carry the API's field names, as the real CLI's do.
import { type Command, Option } from 'commander';
import { signedInClient } from '../api-client.js';
import { type ConfirmOptions, confirmDestructive, withYes } from '../confirm.js';
import { humanSize, printLine, printResult } from '../output.js';
import { type WaitOptions, waitFor, withWait } from '../wait.js';
import { clusterPath, namespaceOption } from './cluster-commands.js';
import {
  type Backup,
  BACKUP_END,
  backupTable,
  type Cluster,
  jsonObjectFile,
  type Namespaced,
  type Restore,
  waitForBackup,
  waitForRestore,
} from './backup-command-support.js';
import { registerPolicies } from './backup-policy-commands.js';
import { registerRepositories } from './backup-repository-commands.js';
import { registerSchedules } from './backup-schedule-commands.js';
import { registerRestores } from './restore-commands.js';

export function registerBackupCommands(program: Command): void {
  const backups = program.command('backups').description('Backups, restores, policies, schedules and repositories');

  namespaceOption(backups.command('list').description("A deployment's backups, newest first").argument('<deployment>'))
    .addOption(new Option('--status <status>', 'only backups in this state').choices(Object.keys(BACKUP_END)))
    .action(async (deployment: string, options: Namespaced & { status?: string }) => {
      const path = clusterPath(deployment, '/backups/', options.namespace);
      const { backups: items } = await (
        await signedInClient()
      ).call<{ backups: Backup[] }>(
        'GET',
        options.status ? `${path}${path.includes('?') ? '&' : '?'}status=${options.status}` : path,
      );
      printResult(items, backupTable(items));
    });

  namespaceOption(
    backups.command('get').description('One backup').argument('<deployment>').argument('<backup>'),
  ).action(async (deployment: string, backup: string, options: Namespaced) => {
    const found = await (
      await signedInClient()
    ).call<Backup>('GET', clusterPath(deployment, `/backups/${encodeURIComponent(backup)}`, options.namespace));
    printResult(found, () => {
      printLine(`${found.name}: ${found.status}, ${humanSize(found.size) || 'size unknown'}, in ${found.repository}`);
      printLine(`started ${found.startTime}${found.completionTime ? `, completed ${found.completionTime}` : ''}`);
      printLine(
        found.canRestore ? 'can be restored' : `cannot be restored yet: ${found.restoreNotReadyReason ?? found.status}`,
      );
    });
  });

  withWait(
    namespaceOption(backups.command('create').description('Back a deployment up now').argument('<deployment>')),
    'the backup has completed',
  )
    .option('-f, --file <file>', 'the request as JSON (backupName, backupMethod, retentionPeriod, …; - for stdin)')
    .option('--backupName <name>', 'the backup (default: <deployment>-<UTC timestamp>)')
    .option('--backupMethod <method>', 'datafile (default) or volume-snapshot')
    .option('--retentionPeriod <duration>', 'keep it this long: 7d, 30d, 1y')
    .option('--backupRepoName <repo>', 'the repository (default: the policy’s)')
    .action(
      async (
        deployment: string,
        options: Namespaced &
          WaitOptions & {
            file?: string;
            backupName?: string;
            backupMethod?: string;
            retentionPeriod?: string;
            backupRepoName?: string;
          },
      ) => {
        const given = options.file ? await jsonObjectFile(options.file) : {};
        const stamp = new Date()
          .toISOString()
          .replace(/[-:]/g, '')
          .replace(/\..*$/, '')
          .replace('T', '-')
          .toLowerCase();
        const body = {
          backupName: `${deployment}-${stamp}`,
          backupMethod: 'datafile',
          ...given,
          ...(options.backupName ? { backupName: options.backupName } : {}),
          ...(options.backupMethod ? { backupMethod: options.backupMethod } : {}),
          ...(options.retentionPeriod ? { retentionPeriod: options.retentionPeriod } : {}),
          ...(options.backupRepoName ? { backupRepoName: options.backupRepoName } : {}),
        };
        const client = await signedInClient();
        let created = await client.call<Backup>('POST', clusterPath(deployment, '/backups/', options.namespace), body);
        if (options.wait) created = await waitForBackup(client, deployment, created.name, options);
        printResult(created, () => printLine(`${created.name} ${created.status}`));
      },
    );

  withYes(
    namespaceOption(
      backups
        .command('delete')
        .description('Delete a backup (and its data)')
        .argument('<deployment>')
        .argument('<backup>'),
    ),
  ).action(async (deployment: string, backup: string, options: Namespaced & ConfirmOptions) => {
    await confirmDestructive(`Delete backup ${backup} of ${deployment}`, backup, options, true);
    await (
      await signedInClient()
    ).call('DELETE', clusterPath(deployment, `/backups/${encodeURIComponent(backup)}`, options.namespace));
    printResult({ deleted: backup }, () => printLine(`${backup} deleted`));
  });

  withYes(
    withWait(
      namespaceOption(
        backups
          .command('restore')
          .description("Restore a backup into its deployment, in place (the deployment's data is replaced)")
          .argument('<deployment>')
          .argument('<backup>'),
      ),
      'the restore has completed',
    ),
  )
    .option('--restoreTime <time>', 'a point in time (UTC, 2026-01-31T12:00:00Z); only for a continuous (aof) backup')
    .option('--backupNamespace <namespace>', "the backup's namespace (default: the deployment's)")
    .option('--dry-run', 'run the server’s checks only; restore nothing')
    .action(
      async (
        deployment: string,
        backup: string,
        options: Namespaced &
          WaitOptions &
          ConfirmOptions & { restoreTime?: string; backupNamespace?: string; dryRun?: boolean },
      ) => {
        if (!options.dryRun)
          await confirmDestructive(`Replace the data of ${deployment} with backup ${backup}`, backup, options, true);
        const client = await signedInClient();
        let restore = await client.call<Restore>('POST', clusterPath(deployment, '/restores/', options.namespace), {
          backup: { name: backup, ...(options.backupNamespace ? { namespace: options.backupNamespace } : {}) },
          ...(options.restoreTime ? { restoreTime: options.restoreTime } : {}),
          dryRun: options.dryRun === true,
        });
        if (options.wait && !options.dryRun) restore = await waitForRestore(client, deployment, restore.name, options);
        printResult(restore, () =>
          printLine(
            options.dryRun
              ? `${backup} can be restored into ${deployment} (dry run: nothing was changed)`
              : `${restore.name} ${restore.status}`,
          ),
        );
      },
    );

  withWait(
    namespaceOption(
      backups
        .command('clone')
        .description('Create a new deployment from a backup (the source deployment is not touched)')
        .argument('<deployment>', 'the deployment the backup belongs to')
        .argument('<backup>'),
    ),
    'the new deployment is Running',
  )
    .requiredOption('--newClusterName <name>', 'the new deployment')
    .option('--backupNamespace <namespace>', "the backup's namespace (default: the deployment's)")
    .addOption(
      new Option('--volumeRestorePolicy <policy>', 'restore volumes in parallel or one by one')
        .choices(['Parallel', 'Serial'])
        .default('Parallel'),
    )
    .option('--restoreTime <time>', 'a point in time (UTC); only for a continuous (aof) backup')
    .action(
      async (
        deployment: string,
        backup: string,
        options: Namespaced &
          WaitOptions & {
            newClusterName: string;
            backupNamespace?: string;
            volumeRestorePolicy: string;
            restoreTime?: string;
          },
      ) => {
        const client = await signedInClient();
        let cluster = await client.call<Cluster>(
          'POST',
          clusterPath(deployment, '/restores/clone', options.namespace),
          {
            newClusterName: options.newClusterName,
            backupName: backup,
            volumeRestorePolicy: options.volumeRestorePolicy,
            ...(options.backupNamespace ? { backupNamespace: options.backupNamespace } : {}),
            ...(options.restoreTime ? { restoreTime: options.restoreTime } : {}),
          },
        );
        if (options.wait)
          cluster = await waitFor(
            `deployment ${cluster.name}`,
            () => client.call<Cluster>('GET', clusterPath(cluster.name, '', cluster.namespace)),
            (c) => ({
              state: c.phase === 'Running' ? 'done' : c.phase === 'Failed' ? 'failed' : 'going',
              phase: c.phase || 'Creating',
            }),
            options,
          );
        printResult(cluster, () => printLine(`${cluster.namespace}/${cluster.name} ${cluster.phase || 'created'}`));
      },
    );

  withYes(
    namespaceOption(
      backups.command('cleanup').description("Delete a deployment's expired backups").argument('<deployment>'),
    ),
  )
    .option('--dry-run', 'list what would be deleted; delete nothing')
    .action(async (deployment: string, options: Namespaced & ConfirmOptions & { dryRun?: boolean }) => {
      if (!options.dryRun) await confirmDestructive(`Delete the expired backups of ${deployment}`, deployment, options);
      const path = clusterPath(deployment, '/cleanup/', options.namespace);
      const answer = await (
        await signedInClient()
      ).call<{ success: boolean; deletedBackups: string[]; message: string }>(
        'POST',
        `${path}${path.includes('?') ? '&' : '?'}dryRun=${options.dryRun === true}`,
      );
      printResult(answer, () => {
        for (const name of answer.deletedBackups) printLine(name);
        printLine(answer.message);
      });
    });

  registerRepositories(backups);
  registerPolicies(backups);
  registerSchedules(backups);
  registerRestores(backups, program);
}
