// `deployments`: the FalkorDB Enterprise admin CLI's deployments group under this server's names (a deployment is a
// KubeBlocks Cluster), each command a thin layer over the admin API's routes at their real paths (/api/clusters/…).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { confirmDestructive, withYes, type ConfirmOptions } from '../confirm.js';
import { readEvents } from '../event-stream.js';
import { age, outputFormat, printJson, printLine, printResult, printTable } from '../output.js';
import { wholeNumber } from '../parsers.js';
import type { AuditEntry } from './audit-commands.js';
import {
  clusterPath,
  listDeployments,
  mutate,
  mutation,
  namespaceOption,
  showDeployment,
  type MutationOptions,
} from './cluster-commands.js';

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

export function registerDeploymentCommands(program: Command): void {
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
