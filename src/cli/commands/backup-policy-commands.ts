// backups policies <deployment> list|get|create|delete: a deployment's backup policies.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { type ConfirmOptions, confirmDestructive, withYes } from '../confirm.js';
import { age, printLine, printResult } from '../output.js';
import { clusterPath } from './cluster-commands.js';
import { actionCommand, checkAction, type Namespaced, type Policy } from './backup-command-support.js';

export function registerPolicies(backups: Command): void {
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
