// backups repos list|get|create|update|delete: the backup repositories (cluster-wide).
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { type ConfirmOptions, confirmDestructive, withYes } from '../confirm.js';
import { age, printLine, printResult } from '../output.js';
import { jsonObjectFile, type Repository } from './backup-command-support.js';

export function registerRepositories(backups: Command): void {
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
