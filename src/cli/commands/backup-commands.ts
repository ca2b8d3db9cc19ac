// backups (list, get, create, delete, restore in place, clone to a new deployment, cleanup, repos, policies, (one file because the backups and restores groups share the --wait follower and the body flags)
// schedules, restores) and restores (list, get, delete): the admin API's five data-protection groups. The real CLI's
// forms are kept where it has them (`backups repos list`, `backups policies <name> list`); flags carry the API's field
// names, as the real CLI's do.
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { signedInClient, type ApiClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { confirmDestructive, withYes, type ConfirmOptions } from '../confirm.js';
import { age, humanSize, printLine, printResult, readStdin } from '../output.js';
import { wholeNumber } from '../parsers.js';
import { waitFor, withWait, type WaitOptions } from '../wait.js';
import { clusterPath, namespaceOption } from './cluster-commands.js';

interface Backup {
  name: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  backupMethodName?: string;
  size?: string;
  startTime: string;
  completionTime?: string;
  repository: string;
  canRestore: boolean;
  restoreNotReadyReason?: string;
}
interface Restore {
  name: string;
  backupRef: { name: string; namespace: string };
  status: 'pending' | 'running' | 'completed' | 'failed';
  startTime: string;
  completionTime?: string;
  message?: string;
}
interface Policy {
  name: string;
  backupRepoName?: string;
  backupMethods: { name: string }[];
  status?: string;
  createdAt: string;
}
interface Schedule {
  name: string;
  frequency: string;
  backupMethod: string;
  retentionPeriod: string;
  enabled: boolean;
  nextRun?: string;
  lastRun?: string;
  lastStatus?: string;
  status?: string;
}
interface Repository {
  name: string;
  type: string;
  status: string;
  isDefault: boolean;
  createdAt: string;
}
interface Cluster {
  name: string;
  namespace: string;
  phase: string;
}

interface Namespaced {
  namespace?: string;
}

const item = (kind: string, name: string) => `/${kind}/${encodeURIComponent(name)}`;

/** A JSON object from a file (or - for standard input). */
async function jsonObjectFile(file: string): Promise<Record<string, unknown>> {
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new CliError(EXIT.usage, `cannot read ${file}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(EXIT.usage, `${file} is not JSON`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new CliError(EXIT.usage, `${file} must hold a JSON object`);
  return value as Record<string, unknown>;
}

const BACKUP_END: Record<Backup['status'], 'done' | 'failed' | 'going'> = {
  pending: 'going',
  running: 'going',
  completed: 'done',
  failed: 'failed',
};

function backupTable(items: Backup[]) {
  return {
    headers: ['NAME', 'STATUS', 'METHOD', 'SIZE', 'AGE', 'REPOSITORY'],
    rows: items.map((b) => [b.name, b.status, b.backupMethodName, humanSize(b.size), age(b.startTime), b.repository]),
    wide: {
      headers: ['STARTED', 'COMPLETED', 'RESTORABLE'],
      rows: items.map((b) => [b.startTime, b.completionTime, b.canRestore]),
    },
  };
}

function restoreTable(items: Restore[]) {
  return {
    headers: ['NAME', 'BACKUP', 'STATUS', 'AGE'],
    rows: items.map((r) => [r.name, r.backupRef.name, r.status, age(r.startTime)]),
    wide: {
      headers: ['STARTED', 'COMPLETED', 'MESSAGE'],
      rows: items.map((r) => [r.startTime, r.completionTime, r.message]),
    },
  };
}

const waitForBackup = (client: ApiClient, deployment: string, backup: string, options: WaitOptions & Namespaced) =>
  waitFor(
    `backup ${backup}`,
    () => client.call<Backup>('GET', clusterPath(deployment, item('backups', backup), options.namespace)),
    (b) => ({ state: BACKUP_END[b.status], phase: b.status }),
    options,
  );

const waitForRestore = (client: ApiClient, deployment: string, restore: string, options: WaitOptions & Namespaced) =>
  waitFor(
    `restore ${restore}`,
    () => client.call<Restore>('GET', clusterPath(deployment, item('restores', restore), options.namespace)),
    (r) => ({ state: BACKUP_END[r.status], phase: r.status, reason: r.message }),
    options,
  );

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

function registerRepositories(backups: Command): void {
  const repos = backups.command('repos').alias('repositories').description('Backup repositories (cluster-wide)');
  const repoPath = (name: string) => `/api/backups/repositories/${encodeURIComponent(name)}`;
  const table = (items: Repository[]) => ({
    headers: ['NAME', 'TYPE', 'STATUS', 'DEFAULT', 'AGE'],
    rows: items.map((r) => [r.name, r.type, r.status, r.isDefault, age(r.createdAt)]),
  });

  repos
    .command('list')
    .description('List backup repositories')
    .action(async () => {
      const { repositories } = await (
        await signedInClient()
      ).call<{ repositories: Repository[] }>('GET', '/api/backups/repositories/');
      printResult(repositories, table(repositories));
    });
  repos
    .command('get')
    .description('One backup repository')
    .argument('<repository>')
    .action(async (name: string) => {
      const repo = await (await signedInClient()).call<Repository>('GET', repoPath(name));
      printResult(repo, table([repo]));
    });
  repos
    .command('create')
    .description(
      'Create a backup repository from JSON: {"name", "type", "storageProviderRef", "config", "credentials"}',
    )
    .requiredOption('-f, --file <file>', 'the repository as JSON (- for standard input)')
    .action(async (options: { file: string }) => {
      const repo = await (
        await signedInClient()
      ).call<Repository>('POST', '/api/backups/repositories/', await jsonObjectFile(options.file));
      printResult(repo, () => printLine(`${repo.name} created (${repo.status})`));
    });
  repos
    .command('update')
    .description("Change a repository's config or credentials, or make it the default")
    .argument('<repository>')
    .option('-f, --file <file>', 'the change as JSON: {"config", "credentials", "isDefault"}')
    .option('--default', 'make it the default repository')
    .action(async (name: string, options: { file?: string; default?: boolean }) => {
      const body = { ...(options.file ? await jsonObjectFile(options.file) : {}) };
      if (options.default) body.isDefault = true;
      if (Object.keys(body).length === 0) throw new CliError(EXIT.usage, 'nothing to change: give --default or -f');
      const repo = await (await signedInClient()).call<Repository>('PATCH', repoPath(name), body);
      printResult(repo, () => printLine(`${repo.name} updated`));
    });
  withYes(repos.command('delete').description('Delete a backup repository').argument('<repository>')).action(
    async (name: string, options: ConfirmOptions) => {
      await confirmDestructive(`Delete backup repository ${name}`, name, options, true);
      await (await signedInClient()).call('DELETE', repoPath(name));
      printResult({ deleted: name }, () => printLine(`${name} deleted`));
    },
  );
}

/** `backups <group> <deployment> <action> [object]`: the real CLI puts the deployment before the action. */
function actionCommand(backups: Command, group: string, description: string, actions: string[]): Command {
  return namespaceOption(
    backups
      .command(group)
      .description(`${description} (${actions.join(', ')})`)
      .argument('<deployment>')
      .argument('[action]', actions.join(', '), 'list')
      .argument('[name]', `the ${group.replace(/s$/, '').replace(/ie$/, 'y')} (for ${actions.slice(1).join(', ')})`),
  );
}

function checkAction(group: string, action: string, actions: string[], name: string | undefined): string | undefined {
  if (!actions.includes(action))
    throw new CliError(
      EXIT.usage,
      `unknown action ${JSON.stringify(action)}: graphdb-admin backups ${group} <deployment> ${actions.join('|')}`,
    );
  if (action !== 'list' && action !== 'create' && !name)
    throw new CliError(EXIT.usage, `give the name: graphdb-admin backups ${group} <deployment> ${action} <name>`);
  return name;
}

function registerPolicies(backups: Command): void {
  const actions = ['list', 'get', 'create', 'delete'];
  withYes(actionCommand(backups, 'policies', "A deployment's backup policies", actions))
    .option('--policyName <name>', 'create: the new policy')
    .option('--backupRepoName <repo>', 'create: its repository (default: the default repository)')
    .action(
      async (
        deployment: string,
        action: string,
        name: string | undefined,
        options: Namespaced & ConfirmOptions & { policyName?: string; backupRepoName?: string },
      ) => {
        checkAction('policies', action, actions, name);
        const client = await signedInClient();
        const at = (suffix: string) => clusterPath(deployment, `/backups/policies/${suffix}`, options.namespace);
        const table = (items: Policy[]) => ({
          headers: ['NAME', 'REPOSITORY', 'METHODS', 'STATUS', 'AGE'],
          rows: items.map((p) => [
            p.name,
            p.backupRepoName,
            p.backupMethods.map((m) => m.name).join(','),
            p.status,
            age(p.createdAt),
          ]),
        });
        if (action === 'list') {
          const { policies } = await client.call<{ policies: Policy[] }>('GET', at(''));
          return printResult(policies, table(policies));
        }
        if (action === 'get') {
          const policy = await client.call<Policy>('GET', at(encodeURIComponent(name!)));
          return printResult(policy, table([policy]));
        }
        if (action === 'create') {
          const policyName = options.policyName ?? name;
          if (!policyName) throw new CliError(EXIT.usage, 'give the policy name: --policyName <name>');
          const policy = await client.call<Policy>('POST', at(''), {
            policyName,
            ...(options.backupRepoName ? { backupRepoName: options.backupRepoName } : {}),
          });
          return printResult(policy, () => printLine(`${policy.name} created`));
        }
        await confirmDestructive(`Delete backup policy ${name}`, name!, options);
        await client.call('DELETE', at(encodeURIComponent(name!)));
        printResult({ deleted: name }, () => printLine(`${name} deleted`));
      },
    );
}

function registerSchedules(backups: Command): void {
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

async function listRestores(deployment: string, options: Namespaced): Promise<void> {
  const { restores } = await (
    await signedInClient()
  ).call<{ restores: Restore[] }>('GET', clusterPath(deployment, '/restores/', options.namespace));
  printResult(restores, restoreTable(restores));
}
async function getRestore(deployment: string, restore: string, options: Namespaced): Promise<void> {
  const found = await (
    await signedInClient()
  ).call<Restore>('GET', clusterPath(deployment, item('restores', restore), options.namespace));
  printResult(found, restoreTable([found]));
}
async function deleteRestore(deployment: string, restore: string, options: Namespaced & ConfirmOptions) {
  await confirmDestructive(`Delete the record of restore ${restore} (the restored data stays)`, restore, options);
  await (await signedInClient()).call('DELETE', clusterPath(deployment, item('restores', restore), options.namespace));
  printResult({ deleted: restore }, () => printLine(`${restore} deleted`));
}

function registerRestores(backups: Command, program: Command): void {
  const actions = ['list', 'get', 'delete'];
  // The real CLI's form: `backups restores <deployment> list`.
  withYes(actionCommand(backups, 'restores', "A deployment's restores", actions)).action(
    async (deployment: string, action: string, name: string | undefined, options: Namespaced & ConfirmOptions) => {
      checkAction('restores', action, actions, name);
      if (action === 'list') return listRestores(deployment, options);
      if (action === 'get') return getRestore(deployment, name!, options);
      return deleteRestore(deployment, name!, options);
    },
  );

  const restores = program.command('restores').description('Restores of a backup into a deployment');
  namespaceOption(
    restores.command('list').description("A deployment's restores, newest first").argument('<deployment>'),
  ).action(listRestores);
  namespaceOption(
    restores.command('get').description('One restore').argument('<deployment>').argument('<restore>'),
  ).action(getRestore);
  withYes(
    namespaceOption(
      restores
        .command('delete')
        .description('Delete the record of a restore (it does not undo it)')
        .argument('<deployment>')
        .argument('<restore>'),
    ),
  ).action(deleteRestore);
}
