// restores list|get|delete, and the real CLI's `backups restores <deployment> <action>` form of the same.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { type ConfirmOptions, confirmDestructive, withYes } from '../confirm.js';
import { printLine, printResult } from '../output.js';
import { clusterPath, namespaceOption } from './cluster-commands.js';
import {
  actionCommand,
  checkAction,
  item,
  type Namespaced,
  type Restore,
  restoreTable,
} from './backup-command-support.js';

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

export function registerRestores(backups: Command, program: Command): void {
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
