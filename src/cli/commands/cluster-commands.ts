// clusters list / get / restart / start / stop / scale / reconfigure, with --wait following the operation.
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
  type: string;
  phase: string;
  progress: string;
  message: string;
}

const TERMINAL = new Set(['Succeed', 'Failed', 'Aborted', 'Cancelled']);
const FAILED = new Set(['Failed', 'Aborted', 'Cancelled']);

const query = (namespace?: string) => (namespace ? `?namespace=${encodeURIComponent(namespace)}` : '');
const clusterPath = (name: string, suffix = '', namespace?: string) =>
  `/api/clusters/${encodeURIComponent(name)}${suffix}${query(namespace)}`;

/** The default of every `--timeout` on a `--wait`. */
export const DEFAULT_WAIT_TIMEOUT = '10m';

/**
 * Follows an operation until it ends, drawing a progress bar on stderr; fails the command when it did not succeed,
 * and with exit code 6 when it has not ended by `deadline` (the operation itself goes on).
 */
async function follow(
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
      const { operations } = await client.call<{ operations: Operation[] }>(
        'GET',
        clusterPath(cluster, '/operations', namespace),
      );
      const current = operations.find((op) => op.name === operation);
      if (current) {
        const [done, total] = current.progress.split('/').map(Number);
        bar.setTotal(Math.max(total ?? 1, 1));
        bar.update(done ?? 0, { phase: current.phase });
        if (TERMINAL.has(current.phase)) {
          bar.stop();
          if (FAILED.has(current.phase))
            throw new CliError(
              EXIT.other,
              `${operation} ended ${current.phase}${current.message ? `: ${current.message}` : ''}`,
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

interface MutationOptions {
  namespace?: string;
  wait?: boolean;
  pollInterval: number;
  timeout: number;
}

async function mutate(name: string, action: string, body: unknown, options: MutationOptions): Promise<void> {
  const client = await signedInClient();
  const { operations } = await client.call<{ operation: string; operations: string[] }>(
    'POST',
    clusterPath(name, `/${action}`, options.namespace),
    body,
  );
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

function mutation(parent: Command, name: string, description: string): Command {
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

export function registerClusterCommands(program: Command): void {
  const clusters = program.command('clusters').description('Database deployments and their operations');

  clusters
    .command('list')
    .description('List deployments')
    .option('-n, --namespace <namespace>', 'only this namespace')
    .option('-A, --all-namespaces', 'every namespace (needs multi_cluster_mode)')
    .action(async (options: { namespace?: string; allNamespaces?: boolean }) => {
      if (options.namespace && options.allNamespaces)
        throw new CliError(EXIT.usage, 'use either --namespace or --all-namespaces');
      const { clusters: list } = await (
        await signedInClient()
      ).call<{ clusters: Cluster[] }>('GET', `/api/clusters${query(options.namespace)}`);
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
    });

  clusters
    .command('get')
    .description('Show one deployment')
    .argument('<cluster>')
    .option('-n, --namespace <namespace>', 'the cluster namespace')
    .action(async (name: string, options: { namespace?: string }) => {
      const { cluster } = await (
        await signedInClient()
      ).call<{ cluster: Cluster }>('GET', clusterPath(name, '', options.namespace));
      printResult(cluster, () => {
        printLine(`${cluster.namespace}/${cluster.name}: ${cluster.topology}, ${cluster.phase}`);
        printTable(
          ['COMPONENT', 'KIND', 'PHASE', 'REPLICAS', 'SHARDS', 'CPU', 'MEMORY', 'STORAGE'],
          cluster.components.map((p) => [p.name, p.kind, p.phase, p.replicas, p.shards, p.cpu, p.memory, p.storage]),
        );
      });
    });

  mutation(clusters, 'restart', 'Restart a deployment').action((name: string, options: MutationOptions) =>
    mutate(name, 'restart', {}, options),
  );
  mutation(clusters, 'start', 'Start a stopped deployment').action((name: string, options: MutationOptions) =>
    mutate(name, 'start', undefined, options),
  );
  mutation(clusters, 'stop', 'Stop a deployment').action((name: string, options: MutationOptions) =>
    mutate(name, 'stop', undefined, options),
  );

  mutation(clusters, 'scale', 'Scale replicas or shards (target counts), or cpu and memory')
    .option('--component <name>', 'the component (default: the first)')
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
        const body = {
          component: options.component,
          replicas: count('replicas', options.replicas),
          shards: count('shards', options.shards),
          cpu: options.cpu,
          memory: options.memory,
        };
        if (Object.values(body).every((value) => value === undefined))
          throw new CliError(EXIT.usage, 'give --replicas, --shards, --cpu or --memory');
        return mutate(name, 'scale', JSON.parse(JSON.stringify(body)) as unknown, options);
      },
    );

  mutation(clusters, 'reconfigure', 'Change FalkorDB parameters: key=value …')
    .argument('<parameters...>', 'KEY=value pairs')
    .option('--component <name>', 'the component (default: the first)')
    .option('--allow-unknown', 'apply keys that are not known FalkorDB parameters')
    .addHelpText(
      'after',
      '\nExample:\n  graphdb-admin clusters reconfigure mygraph TIMEOUT=1000 MAX_QUEUED_QUERIES=50 --wait',
    )
    .action(
      (name: string, pairs: string[], options: MutationOptions & { component?: string; allowUnknown?: boolean }) => {
        const parameters: Record<string, string> = {};
        for (const pair of pairs) {
          const at = pair.indexOf('=');
          if (at <= 0) throw new CliError(EXIT.usage, `expected KEY=value, got ${JSON.stringify(pair)}`);
          parameters[pair.slice(0, at)] = pair.slice(at + 1);
        }
        return mutate(
          name,
          'reconfigure',
          {
            component: options.component,
            parameters,
            ...(options.allowUnknown ? { allowUnknownParameters: true } : {}),
          },
          options,
        );
      },
    );
}
