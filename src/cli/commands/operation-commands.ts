// `operations`: a deployment's day-2 operations (KubeBlocks OpsRequests) in the admin CLI: the changes, with --wait
// following the operation, and the list, read, cancel and delete of the operations themselves.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { confirmDestructive, withYes, type ConfirmOptions } from '../confirm.js';
import { age, printLine, printResult, printTable } from '../output.js';
import { clusterPath, follow, mutate, mutation, namespaceOption, type MutationOptions } from './cluster-commands.js';

interface OperationView {
  name: string;
  type: string;
  phase: string;
  progress: string;
  createdAt?: string;
}
interface OperationDetail {
  name: string;
  namespace: string;
  type?: string;
  phase?: string;
  progress?: string;
  creationTimestamp?: string;
  startTimestamp?: string;
  completionTimestamp?: string;
  message?: string;
}

export function registerOperationCommands(program: Command): void {
  const operations = program.command('operations').description('Day-2 operations of a deployment (OpsRequests)');

  mutation(operations, 'restart', 'Restart a deployment (rolling)')
    .option('--component <name>', 'only this component')
    .action((name: string, options: MutationOptions & { component?: string }) =>
      mutate(name, [['restart', options.component ? { componentName: options.component } : {}]], options),
    );
  mutation(operations, 'start', 'Start a stopped deployment').action((name: string, options: MutationOptions) =>
    mutate(name, [['start', {}]], options),
  );
  mutation(operations, 'stop', 'Stop a deployment (its volumes stay)').action(
    (name: string, options: MutationOptions) => mutate(name, [['stop', {}]], options),
  );
  mutation(operations, 'switchover', 'Promote another replica to primary')
    .requiredOption('--replicaName <pod>', 'the pod to promote')
    .option('--component <name>', 'the component (default: the data component)')
    .action((name: string, options: MutationOptions & { replicaName: string; component?: string }) =>
      mutate(
        name,
        [
          [
            'switchover',
            { instanceName: options.replicaName, ...(options.component ? { componentName: options.component } : {}) },
          ],
        ],
        options,
      ),
    );
  mutation(operations, 'volume-expand', 'Grow a volume of the deployment')
    .requiredOption('--size <quantity>', 'the new size, e.g. 50Gi (volumes only grow)')
    .option('--volumeName <name>', 'the volume (default: data)')
    .option('--component <name>', 'the component (default: the data component)')
    .action((name: string, options: MutationOptions & { size: string; volumeName?: string; component?: string }) =>
      mutate(
        name,
        [
          [
            'volume-expand',
            {
              storage: options.size,
              ...(options.volumeName ? { volumeName: options.volumeName } : {}),
              ...(options.component ? { componentName: options.component } : {}),
            },
          ],
        ],
        options,
      ),
    );

  namespaceOption(
    operations.command('list').description("The deployment's operations, newest first").argument('<name>'),
  ).action(async (name: string, options: { namespace?: string }) => {
    const listed = await (
      await signedInClient()
    ).call<{ operations: OperationView[] } | OperationView[]>('GET', clusterPath(name, '/ops', options.namespace));
    const items = Array.isArray(listed) ? listed : listed.operations;
    printResult(items, {
      headers: ['NAME', 'TYPE', 'PHASE', 'PROGRESS'],
      rows: items.map((op) => [op.name, op.type, op.phase, op.progress]),
    });
  });

  namespaceOption(
    operations
      .command('cancel')
      .description('Cancel a running scaling operation (KubeBlocks spec.cancel)')
      .argument('<name>')
      .argument('<operation>'),
  ).action(async (name: string, operation: string, options: { namespace?: string }) => {
    const accepted = await (
      await signedInClient()
    ).call<{ opsName: string; phase?: string }>(
      'POST',
      clusterPath(name, `/ops/${encodeURIComponent(operation)}/cancel`, options.namespace),
      {},
    );
    printResult(accepted, () => printLine(`${accepted.opsName} cancelling`));
  });

  namespaceOption(
    operations
      .command('get')
      .description('Show one operation: type, phase, progress, times and why it failed')
      .argument('<name>')
      .argument('<operation>'),
  ).action(async (name: string, operation: string, options: { namespace?: string }) => {
    const found = await (
      await signedInClient()
    ).call<OperationDetail>('GET', clusterPath(name, `/ops/${encodeURIComponent(operation)}`, options.namespace));
    printResult(found, () => {
      printTable(
        ['NAME', 'TYPE', 'PHASE', 'PROGRESS', 'AGE'],
        [[found.name, found.type, found.phase, found.progress, age(found.creationTimestamp)]],
      );
      if (found.startTimestamp) printLine(`Started:   ${found.startTimestamp}`);
      if (found.completionTimestamp) printLine(`Completed: ${found.completionTimestamp}`);
      if (found.message) printLine(`Message:   ${found.message}`);
    });
  });

  withYes(
    namespaceOption(
      operations
        .command('delete')
        .description("Delete an operation's record (a running scaling is cancelled first, as KubeBlocks does)")
        .argument('<name>')
        .argument('<operation>'),
    ),
  ).action(async (name: string, operation: string, options: { namespace?: string } & ConfirmOptions) => {
    await confirmDestructive(`Delete operation ${operation} of ${name}`, operation, options);
    await (
      await signedInClient()
    ).call('DELETE', clusterPath(name, `/ops/${encodeURIComponent(operation)}`, options.namespace));
    printResult({ deleted: operation }, () => printLine(`${operation} deleted`));
  });

  mutation(operations, 'upgrade', 'Upgrade the FalkorDB components to a service version or component definition')
    .option('--service-version <version>', 'the FalkorDB version (see `graphdb-admin system falkordb-versions`)')
    .option('--component-def <name>', 'the KubeBlocks ComponentDefinition to move to')
    .addHelpText('after', '\nExample:\n  graphdb-admin operations upgrade orders --service-version 4.14.0 --wait')
    .action(async (name: string, options: MutationOptions & { serviceVersion?: string; componentDef?: string }) => {
      if (options.serviceVersion === undefined && options.componentDef === undefined)
        throw new CliError(EXIT.usage, 'give --service-version or --component-def');
      const client = await signedInClient();
      const accepted = await client.call<{ message: string; clusterName: string; opsName?: string }>(
        'POST',
        clusterPath(name, '/upgrade', options.namespace),
        {
          ...(options.serviceVersion !== undefined ? { version: options.serviceVersion } : {}),
          ...(options.componentDef !== undefined ? { componentDefinition: options.componentDef } : {}),
        },
      );
      printResult(accepted, () => printLine(accepted.opsName ?? accepted.message));
      if (!options.wait) return;
      if (accepted.opsName === undefined)
        throw new CliError(
          EXIT.other,
          'the server did not name the upgrade operation: follow it with `operations list`',
        );
      await follow(
        client,
        name,
        accepted.opsName,
        options.namespace,
        options.pollInterval,
        Date.now() + options.timeout,
        `${options.timeout / 1000}s`,
      );
    });
}
