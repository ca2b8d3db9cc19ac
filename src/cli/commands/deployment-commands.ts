// The FalkorDB Enterprise admin CLI's command groups, under this server's names: deployments, operations and logs (backups: backup-commands.ts), each a thin layer over the admin API's routes at their real paths. `clusters` (cluster-commands.ts)
// stays as the earlier name of `deployments` and `operations`.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { confirmDestructive, withYes, type ConfirmOptions } from '../confirm.js';
import { age, outputFormat, printJson, printLine, printResult, printTable } from '../output.js';
import { wholeNumber } from '../parsers.js';
import type { AuditEntry } from './admin-commands.js';
import {
  clusterPath,
  follow,
  listDeployments,
  mutate,
  mutation,
  showDeployment,
  type MutationOptions,
} from './cluster-commands.js';

const namespaceOption = (command: Command) =>
  command.option('-n, --namespace <namespace>', "the deployment's namespace (default: the server's cluster namespace)");

/** A JSON file (or - for standard input) as a request body. */
async function jsonFile(file: string): Promise<unknown> {
  const text = file === '-' ? await readStdinText() : await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new CliError(EXIT.usage, `cannot read ${file}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CliError(EXIT.usage, `${file} is not JSON`);
  }
}

async function readStdinText(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

interface Pod {
  name: string;
  status: string;
  ready: boolean;
  restartCount: number;
  age: string;
  role: string;
  shardId?: string;
}
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
interface ClusterMetrics {
  clusterName: string;
  namespace: string;
  timestamp: string;
  usedCpu: string;
  totalCpu: string;
  usedMemory: string;
  totalMemory: string;
}
type MetricFamilies = {
  name: string;
  help?: string;
  type?: string;
  samples: { labels: Record<string, string>; value: number; timestamp?: number }[];
}[];

/**
 * The namespace a command names, or the deployment's own (read from the server) for the routes that require one
 * (`…/events`): without --namespace the deployment is looked up where the other commands find it.
 */
async function namespaceOf(name: string, namespace: string | undefined): Promise<string> {
  if (namespace) return namespace;
  return (await (await signedInClient()).call<{ namespace: string }>('GET', clusterPath(name))).namespace;
}

const metricRows = (families: MetricFamilies) =>
  families.flatMap((family) =>
    family.samples.map((sample) => [
      family.name,
      Object.entries(sample.labels)
        .map(([label, value]) => `${label}=${value}`)
        .join(','),
      sample.value,
    ]),
  );

function registerDeployments(program: Command): void {
  const deployments = program.command('deployments').description('Database deployments (KubeBlocks clusters)');

  namespaceOption(deployments.command('list').description('List deployments'))
    .option('-A, --all-namespaces', 'every namespace (needs multi_cluster_mode)')
    .action(listDeployments);

  namespaceOption(deployments.command('get').description('Show one deployment').argument('<name>')).action(
    showDeployment,
  );

  deployments
    .command('create')
    .description('Create a deployment from the structured spec: {"name", "namespace", "spec": {…}}')
    .requiredOption('-f, --file <file>', 'the deployment as JSON (- for standard input)')
    .action(async (options: { file: string }) => {
      const created = await (
        await signedInClient()
      ).call<{ name: string; namespace: string; phase: string }>(
        'POST',
        '/api/clusters/',
        await jsonFile(options.file),
      );
      printResult(created, () => printLine(`${created.namespace}/${created.name} created (${created.phase})`));
    });

  deployments
    .command('apply-yaml')
    .description('Create a deployment from a KubeBlocks Cluster manifest')
    .requiredOption('-f, --file <file>', 'the manifest (YAML or JSON; - for standard input)')
    .action(async (options: { file: string }) => {
      const yaml =
        options.file === '-' ? await readStdinText() : await readFile(options.file, 'utf8').catch(() => undefined);
      if (yaml === undefined) throw new CliError(EXIT.usage, `cannot read ${options.file}`);
      const created = await (
        await signedInClient()
      ).call<{ name: string; namespace: string }>('POST', '/api/clusters/yaml', { yaml });
      printResult(created, () => printLine(`${created.namespace}/${created.name} created`));
    });

  mutation(deployments, 'scale', 'Scale a component to a total replica count')
    .option('--component <name>', 'the component (default: the data component)')
    .requiredOption('--replicas <n>', 'target replica count', wholeNumber(0, 100))
    .action((name: string, options: MutationOptions & { component?: string; replicas: number }) =>
      mutate(
        name,
        [
          [
            'horizontal-scale',
            { replicas: options.replicas, ...(options.component ? { componentName: options.component } : {}) },
          ],
        ],
        options,
      ),
    );

  namespaceOption(
    deployments.command('credentials').description("The deployment's connection credentials").argument('<name>'),
  ).action(async (name: string, options: { namespace?: string }) => {
    const credentials = await (
      await signedInClient()
    ).call<{ hostname: string; port: number; username: string; password: string }>(
      'GET',
      clusterPath(name, '/credentials', options.namespace),
    );
    printResult(credentials, {
      headers: ['HOST', 'PORT', 'USERNAME', 'PASSWORD'],
      rows: [[credentials.hostname, credentials.port, credentials.username, credentials.password]],
    });
  });

  namespaceOption(deployments.command('pods').description("The deployment's pods").argument('<name>')).action(
    async (name: string, options: { namespace?: string }) => {
      const { pods } = await (
        await signedInClient()
      ).call<{ pods: Pod[]; total: number }>('GET', clusterPath(name, '/pods', options.namespace));
      printResult(pods, {
        headers: ['NAME', 'STATUS', 'READY', 'RESTARTS', 'AGE', 'ROLE'],
        rows: pods.map((pod) => [pod.name, pod.status, pod.ready, pod.restartCount, pod.age, pod.role]),
      });
    },
  );

  namespaceOption(
    deployments
      .command('yaml')
      .description("A deployment's KubeBlocks Cluster manifest, as stored (edit it and give it to replace-yaml)")
      .argument('<name>'),
  ).action(async (name: string, options: { namespace?: string }) => {
    const { yaml } = await (
      await signedInClient()
    ).call<{ yaml: string }>('GET', clusterPath(name, '/yaml', options.namespace));
    // The manifest is the result: -o json wraps it as the API does, every other format prints it as it is.
    printResult({ yaml }, () => process.stdout.write(yaml.endsWith('\n') ? yaml : `${yaml}\n`));
  });

  namespaceOption(
    deployments
      .command('replace-yaml')
      .description("Replace a deployment's Cluster manifest (same name and namespace; KubeBlocks applies the change)")
      .argument('<name>')
      .requiredOption('-f, --file <file>', 'the manifest (YAML or JSON; - for standard input)'),
  ).action(async (name: string, options: { namespace?: string; file: string }) => {
    const yaml =
      options.file === '-' ? await readStdinText() : await readFile(options.file, 'utf8').catch(() => undefined);
    if (yaml === undefined) throw new CliError(EXIT.usage, `cannot read ${options.file}`);
    await (await signedInClient()).call('POST', clusterPath(name, '/yaml', options.namespace), { yaml });
    printResult({ replaced: name }, () => printLine(`${name} replaced`));
  });

  namespaceOption(
    deployments
      .command('update')
      .description('Change a deployment from a partial spec: {"replicas", "resources", "persistence", …}')
      .argument('<name>')
      .requiredOption('-f, --file <file>', 'the changes as JSON (- for standard input)'),
  ).action(async (name: string, options: { namespace?: string; file: string }) => {
    const updated = await (
      await signedInClient()
    ).call<{ name: string; namespace: string; phase: string }>(
      'PATCH',
      clusterPath(name, '', options.namespace),
      await jsonFile(options.file),
    );
    printResult(updated, () => printLine(`${updated.namespace}/${updated.name} updated (${updated.phase})`));
  });

  namespaceOption(
    deployments.command('config').description("A deployment's FalkorDB parameters").argument('<name>'),
  ).action(async (name: string, options: { namespace?: string }) => {
    const config = await (
      await signedInClient()
    ).call<{ configMapName: string; parameters: { key: string; value: string }[] }>(
      'GET',
      clusterPath(name, '/config', options.namespace),
    );
    printResult(config, {
      headers: ['PARAMETER', 'VALUE'],
      rows: config.parameters.map((p) => [p.key, p.value]),
    });
  });

  deployments
    .command('schema')
    .description('The JSON schema of the structured spec `deployments create` takes')
    .action(async () => {
      const { schema } = await (
        await signedInClient()
      ).call<{ schema: Record<string, unknown> }>('GET', '/api/clusters/schema');
      printResult({ schema }, () => printJson(schema));
    });

  namespaceOption(
    deployments
      .command('events')
      .description('What was done to a deployment and its operations, backups and restores, newest first')
      .argument('<name>'),
  )
    .option('--limit <n>', 'at most this many events (1-1000)', wholeNumber(1, 1000), 100)
    .option('--offset <n>', 'skip this many', wholeNumber(0, 10_000_000), 0)
    .action(async (name: string, options: { namespace?: string; limit: number; offset: number }) => {
      const namespace = await namespaceOf(name, options.namespace);
      const query = new URLSearchParams({
        namespace,
        limit: String(options.limit),
        offset: String(options.offset),
      });
      const page = await (
        await signedInClient()
      ).call<{ logs: AuditEntry[]; total: number; limit: number; offset: number }>(
        'GET',
        `/api/clusters/${encodeURIComponent(name)}/events?${query.toString()}`,
      );
      printResult(page, {
        headers: ['AGE', 'USER', 'ACTION', 'RESOURCE', 'RESULT'],
        rows: page.logs.map((e) => [
          age(e.timestamp),
          e.userId,
          e.action,
          [e.resourceType, e.resourceName].filter(Boolean).join('/'),
          e.result,
        ]),
        wide: {
          headers: ['TIME', 'MESSAGE'],
          rows: page.logs.map((e) => [e.timestamp, e.message ?? '']),
        },
      });
    });

  namespaceOption(
    deployments
      .command('metrics')
      .description("CPU and memory a deployment uses against its limits, or one pod's metrics (needs metrics-server)")
      .argument('<name>')
      .argument('[pod]', 'one pod of the deployment: its metric families'),
  )
    .option('-w, --watch', 'keep printing a new snapshot every --interval until interrupted')
    .option('--interval <seconds>', 'seconds between two snapshots with --watch (1-60)', wholeNumber(1, 60), 5)
    .addHelpText(
      'after',
      '\nExamples:\n  graphdb-admin deployments metrics orders\n  graphdb-admin deployments metrics orders orders-falkordb-0 --watch --interval 2',
    )
    .action(
      async (
        name: string,
        pod: string | undefined,
        options: { namespace?: string; watch?: boolean; interval: number },
      ) => {
        const base = `/api/clusters/${encodeURIComponent(name)}${pod ? `/pods/${encodeURIComponent(pod)}` : ''}/metrics`;
        const params = new URLSearchParams();
        if (options.namespace) params.set('namespace', options.namespace);
        const client = await signedInClient();
        const printSnapshot = (snapshot: ClusterMetrics | MetricFamilies, first: boolean) => {
          const format = outputFormat();
          // A watch prints one compact JSON document per line, so a script reads it line by line.
          if (options.watch && format === 'json') return printLine(JSON.stringify(snapshot));
          if (options.watch && format === 'yaml') process.stdout.write('---\n');
          if (Array.isArray(snapshot))
            return printResult(snapshot, () => {
              if (options.watch && !first) printLine('');
              printTable(['METRIC', 'LABELS', 'VALUE'], metricRows(snapshot));
            });
          const row = [
            age(snapshot.timestamp),
            snapshot.usedCpu,
            snapshot.totalCpu,
            snapshot.usedMemory,
            snapshot.totalMemory,
          ];
          printResult(snapshot, () =>
            first
              ? printTable(['AGE', 'CPU', 'CPU LIMIT', 'MEMORY', 'MEMORY LIMIT'], [row])
              : printTable(
                  ['', '', '', '', ''],
                  [row].map((cells) => cells.map(String)),
                ),
          );
        };
        if (!options.watch) {
          printSnapshot(
            await client.call<ClusterMetrics | MetricFamilies>('GET', `${base}?${params.toString()}`),
            true,
          );
          return;
        }
        params.set('intervalSeconds', String(options.interval));
        const res = await client.raw('GET', `${base}/stream?${params.toString()}`, undefined, {
          headers: { accept: 'text/event-stream' },
        });
        let first = true;
        await readEvents(res, (data) => {
          printSnapshot(JSON.parse(data) as ClusterMetrics | MetricFamilies, first);
          first = false;
        });
      },
    );

  withYes(
    namespaceOption(
      deployments.command('delete').description('Delete a deployment (and, by its termination policy, its data)'),
    ).argument('<name>'),
  ).action(async (name: string, options: { namespace?: string } & ConfirmOptions) => {
    await confirmDestructive(`Delete deployment ${name}`, name, options, true);
    await (await signedInClient()).call('DELETE', clusterPath(name, '', options.namespace));
    printResult({ deleted: name }, () => printLine(`${name} deleted`));
  });
}

function registerOperations(program: Command): void {
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

function registerLogs(program: Command): void {
  const logs = program.command('logs').description("A deployment's pod logs");
  namespaceOption(
    logs.command('get').description("A pod's log (the last lines; --follow streams new ones)").argument('<name>'),
  )
    .argument('<pod>')
    .option('--container <name>', 'the container (default: the pod default)')
    .option('--tailLines <n>', 'the last lines only', wholeNumber(1, 10_000))
    .option('-f, --follow', 'keep printing new lines until interrupted (or the server ends the stream)')
    .action(
      async (
        name: string,
        pod: string,
        options: { namespace?: string; container?: string; tailLines?: number; follow?: boolean },
      ) => {
        const params = new URLSearchParams();
        if (options.namespace) params.set('namespace', options.namespace);
        if (options.container) params.set('container', options.container);
        if (options.tailLines !== undefined) params.set('tailLines', String(options.tailLines));
        const path = `/api/clusters/${encodeURIComponent(name)}/pods/${encodeURIComponent(pod)}/logs`;
        const client = await signedInClient();
        if (!options.follow) {
          const read = await client.call<{ podName: string; logs: string[] }>('GET', `${path}?${params.toString()}`);
          printResult(read, () => {
            for (const line of read.logs) printLine(line);
          });
          return;
        }
        const res = await client.raw('GET', `${path}/stream?${params.toString()}`, undefined, {
          headers: { accept: 'text/event-stream' },
        });
        await readEvents(res, printLine);
      },
    );
}

/**
 * Hands each unnamed event's `data:` lines of a server-sent event stream to `onData` as they arrive (a log stream:
 * one log line each; a metrics stream: one JSON snapshot). An `end` event ends the command; an `error` event fails
 * it with the server's message.
 */
async function readEvents(res: Response, onData: (data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
      const frame = pending.slice(0, end).split('\n');
      pending = pending.slice(end + 2);
      const event = frame.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = frame.filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length));
      if (event === 'end') return;
      if (event === 'error') {
        let message = data.join('\n');
        try {
          const body = JSON.parse(message) as { message?: string; error?: string };
          message = body.message ?? body.error ?? message;
        } catch {
          // plain text
        }
        throw new CliError(EXIT.other, message);
      }
      for (const line of data) onData(line);
    }
  }
}

export function registerDeploymentCommands(program: Command): void {
  registerDeployments(program);
  registerOperations(program);
  registerLogs(program);
}
