// clusters list / get / restart / start / stop / scale / reconfigure (the real paths: /api/clusters/{name}/ops/…),
// with --wait following the operation.
import { SingleBar } from 'cli-progress';
import { Option, type Command } from 'commander';
import { signedInClient, type ApiClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { printLine, printResult, printTable } from '../output.js';
import { parseDuration, wholeNumber } from '../parsers.js';

interface Component {
  name: string;
  kind: string;
  phase: string;
  replicas: number;
  shards?: number;
  cpu: string;
  memory: string;
  storage: string;
}
interface Cluster {
  name: string;
  namespace: string;
  phase: string;
  topology: string;
  components: Component[];
}
interface Operation {
  name: string;
  type?: string;
  phase?: string;
  progress?: string;
  message?: string;
}

const TERMINAL = new Set(['Succeed', 'Completed', 'Failed', 'Aborted', 'Cancelled']);
const FAILED = new Set(['Failed', 'Aborted', 'Cancelled']);

export const query = (namespace?: string) => (namespace ? `?namespace=${encodeURIComponent(namespace)}` : '');
export const clusterPath = (name: string, suffix = '', namespace?: string) =>
  `/api/clusters/${encodeURIComponent(name)}${suffix}${query(namespace)}`;

/** The --namespace option of a command about one deployment (or its backups, operations, logs). */
export const namespaceOption = (command: Command) =>
  command.option('-n, --namespace <namespace>', "the deployment's namespace (default: the server's cluster namespace)");

/** The default of every `--timeout` on a `--wait`. */
export const DEFAULT_WAIT_TIMEOUT = '10m';

/**
 * Follows an operation until it ends, drawing a progress bar on stderr; fails the command when it did not succeed,
 * and with exit code 6 when it has not ended by `deadline` (the operation itself goes on).
 */
export async function follow(
  client: ApiClient,
  cluster: string,
  operation: string,
  namespace: string | undefined,
  intervalMs: number,
  deadline: number,
  timeout: string,
): Promise<void> {
  const bar = new SingleBar({
    format: `${operation} [{bar}] {value}/{total} {phase}`,
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 1000,
  });
  bar.start(1, 0, { phase: 'Pending' });
  try {
    for (;;) {
      const current = await client.call<Operation>(
        'GET',
        clusterPath(cluster, `/ops/${encodeURIComponent(operation)}`, namespace),
      );
      {
        const phase = current.phase ?? 'Pending';
        // KubeBlocks writes "done/total"; a percentage ("50%") is drawn out of 100.
        const progress = current.progress ?? '';
        const [done, total] = progress.endsWith('%')
          ? [Number.parseFloat(progress), 100]
          : progress.split('/').map(Number);
        bar.setTotal(Math.max(Number.isFinite(total) ? (total ?? 1) : 1, 1));
        bar.update(Number.isFinite(done) ? (done ?? 0) : 0, { phase });
        if (TERMINAL.has(phase)) {
          bar.stop();
          if (FAILED.has(phase))
            throw new CliError(
              EXIT.other,
              `${operation} ended ${phase}${current.message ? `: ${current.message}` : ''}`,
            );
          return;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw new CliError(
          EXIT.timeout,
          `timed out after ${timeout} waiting for ${operation}${current ? ` (${current.phase} ${current.progress})` : ''}; it goes on without us`,
        );
      await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
    }
  } finally {
    bar.stop();
  }
}

export interface MutationOptions {
  namespace?: string;
  wait?: boolean;
  pollInterval: number;
  timeout: number;
}

/** One request per entry, in order: POST /api/clusters/{name}/ops/{action}, each answering an OpsAccepted. */
export async function mutate(
  name: string,
  requests: [action: string, body: unknown][],
  options: MutationOptions,
): Promise<void> {
  const client = await signedInClient();
  const operations: string[] = [];
  for (const [action, body] of requests) {
    const { opsName } = await client.call<{ opsName: string }>(
      'POST',
      clusterPath(name, `/ops/${action}`, options.namespace),
      body,
    );
    operations.push(opsName);
  }
  printResult({ operations }, () => {
    for (const operation of operations) printLine(operation);
  });
  if (options.wait) {
    const deadline = Date.now() + options.timeout;
    const timeout = `${options.timeout / 1000}s`;
    for (const operation of operations)
      await follow(client, name, operation, options.namespace, options.pollInterval, deadline, timeout);
  }
}

export function mutation(parent: Command, name: string, description: string): Command {
  return parent
    .command(name)
    .description(description)
    .argument('<cluster>')
    .option('-n, --namespace <namespace>', "the cluster namespace (default: the server's)")
    .option('--wait', 'follow the operation until it ends (non-zero exit unless it succeeds)')
    .addOption(
      new Option('--timeout <duration>', 'give up waiting after this long (30s, 10m, 1h; exit code 6)')
        .argParser(parseDuration)
        .default(parseDuration(DEFAULT_WAIT_TIMEOUT), DEFAULT_WAIT_TIMEOUT),
    )
    .option('--poll-interval <ms>', 'how often --wait polls, in milliseconds', wholeNumber(10, 3_600_000), 1000);
}

/** `list`: the deployments, in one namespace or (with multi_cluster_mode) all. */
export async function listDeployments(options: { namespace?: string; allNamespaces?: boolean }): Promise<void> {
  if (options.namespace && options.allNamespaces)
    throw new CliError(EXIT.usage, 'use either --namespace or --all-namespaces');
  const { clusters: list } = await (
    await signedInClient()
  ).call<{ clusters: Cluster[]; total: number }>('GET', `/api/clusters/${query(options.namespace)}`);
  printResult(list, {
    headers: ['NAMESPACE', 'NAME', 'TOPOLOGY', 'PHASE', 'COMPONENTS'],
    rows: list.map((c) => [
      c.namespace,
      c.name,
      c.topology,
      c.phase,
      c.components.map((p) => `${p.name}×${p.shards ? `${p.shards}×` : ''}${p.replicas}`).join(' '),
    ]),
    wide: {
      headers: ['CPU', 'MEMORY', 'STORAGE'],
      rows: list.map((c) => [
        c.components.map((p) => p.cpu).join(' '),
        c.components.map((p) => p.memory).join(' '),
        c.components.map((p) => p.storage).join(' '),
      ]),
    },
  });
}

/** `get`: one deployment and its components. */
export async function showDeployment(name: string, options: { namespace?: string }): Promise<void> {
  const cluster = await (await signedInClient()).call<Cluster>('GET', clusterPath(name, '', options.namespace));
  printResult(cluster, () => {
    printLine(`${cluster.namespace}/${cluster.name}: ${cluster.topology}, ${cluster.phase}`);
    printTable(
      ['COMPONENT', 'KIND', 'PHASE', 'REPLICAS', 'SHARDS', 'CPU', 'MEMORY', 'STORAGE'],
      cluster.components.map((p) => [p.name, p.kind, p.phase, p.replicas, p.shards, p.cpu, p.memory, p.storage]),
    );
  });
}

export function registerClusterCommands(program: Command): void {
  const clusters = program.command('clusters').description('Database deployments and their operations');

  clusters
    .command('list')
    .description('List deployments')
    .option('-n, --namespace <namespace>', 'only this namespace')
    .option('-A, --all-namespaces', 'every namespace (needs multi_cluster_mode)')
    .action(listDeployments);

  clusters
    .command('get')
    .description('Show one deployment')
    .argument('<cluster>')
    .option('-n, --namespace <namespace>', 'the cluster namespace')
    .action(showDeployment);

  mutation(clusters, 'restart', 'Restart a component of a deployment (rolling)')
    .option('--component <name>', 'the component (default: falkordb)')
    .action((name: string, options: MutationOptions & { component?: string }) =>
      mutate(name, [['restart', options.component ? { componentName: options.component } : {}]], options),
    );
  mutation(clusters, 'start', 'Start a stopped deployment').action((name: string, options: MutationOptions) =>
    mutate(name, [['start', {}]], options),
  );
  mutation(clusters, 'stop', 'Stop a deployment').action((name: string, options: MutationOptions) =>
    mutate(name, [['stop', {}]], options),
  );

  mutation(clusters, 'scale', 'Scale replicas or shards (target counts), or cpu and memory')
    .option('--component <name>', 'the component (default: falkordb, or the shard component for --shards)')
    .option('--replicas <n>', 'target replica count')
    .option('--shards <n>', 'target shard count (sharded clusters)')
    .option('--cpu <quantity>', 'cpu request and limit, e.g. 500m')
    .option('--memory <quantity>', 'memory request and limit, e.g. 2Gi')
    .addHelpText(
      'after',
      '\nExamples:\n  graphdb-admin clusters scale mygraph --replicas 3 --wait\n  graphdb-admin clusters scale mygraph --cpu 2 --memory 4Gi',
    )
    .action(
      (
        name: string,
        options: MutationOptions & {
          component?: string;
          replicas?: string;
          shards?: string;
          cpu?: string;
          memory?: string;
        },
      ) => {
        const count = (flag: string, value: string | undefined) => {
          if (value === undefined) return undefined;
          if (!/^\d+$/.test(value)) throw new CliError(EXIT.usage, `--${flag} takes a whole number`);
          return Number(value);
        };
        const replicas = count('replicas', options.replicas);
        const shardCount = count('shards', options.shards);
        const { cpu, memory } = options;
        const componentName = options.component;
        const requests: [string, unknown][] = [];
        // Totals: the server turns them into what KubeBlocks takes; replicas and shards go in separate requests.
        if (replicas !== undefined) requests.push(['horizontal-scale', { replicas, componentName }]);
        if (shardCount !== undefined) requests.push(['horizontal-scale', { shardCount, componentName }]);
        if (cpu !== undefined || memory !== undefined) {
          const amounts = { cpu, memory };
          requests.push(['vertical-scale', { requests: amounts, limits: amounts, componentName }]);
        }
        if (requests.length === 0) throw new CliError(EXIT.usage, 'give --replicas, --shards, --cpu or --memory');
        return mutate(
          name,
          requests.map(([action, body]) => [action, JSON.parse(JSON.stringify(body)) as unknown]),
          options,
        );
      },
    );

  mutation(clusters, 'reconfigure', 'Change FalkorDB parameters: key=value …')
    .alias('configure')
    .argument('<parameters...>', 'KEY=value pairs (KEY= with nothing after it clears the parameter)')
    .option('--component <name>', 'the component (default: falkordb)')
    .addHelpText(
      'after',
      '\nExample:\n  graphdb-admin clusters reconfigure mygraph TIMEOUT=1000 MAX_QUEUED_QUERIES=50 --wait',
    )
    .action((name: string, pairs: string[], options: MutationOptions & { component?: string }) => {
      const parameters: { key: string; value: string | null }[] = [];
      for (const pair of pairs) {
        const at = pair.indexOf('=');
        if (at <= 0) throw new CliError(EXIT.usage, `expected KEY=value, got ${JSON.stringify(pair)}`);
        const value = pair.slice(at + 1);
        parameters.push({ key: pair.slice(0, at), value: value === '' ? null : value });
      }
      return mutate(
        name,
        [['configure', { parameters, ...(options.component ? { componentName: options.component } : {}) }]],
        options,
      );
    });
}
