// system namespaces|storage-classes|falkordb-versions|cluster-resources|metrics: what the server sees of its Kubernetes
// cluster, read-only.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { age, humanSize, printLine, printResult, printTable } from '../output.js';
import type { StorageClass } from '../../lib/storage-class.js';

interface Capacity {
  total: number | null;
  usedByDeployments: number;
  usedBySupport: number;
  usedTotal: number;
  available: number | null;
}
interface ClusterResources {
  timestamp: string;
  cpu: Capacity;
  memory: Capacity;
  storage: Capacity & { capacityKnown: boolean };
  availableForDeployments: { cpu: number; memory: number; storage: number | null; limitingResource: string };
  scope: { mode: string; namespaces: string[] | null };
  notes: string[];
}
/** Notes the server gives with a list (what it may not read, why a list is empty): for people, on stderr. */
const printNotes = (notes: string[] | undefined) => {
  for (const note of notes ?? []) process.stderr.write(`note: ${note}\n`);
};

export function registerSystemCommands(program: Command): void {
  const system = program.command('system').description('What the server sees of its Kubernetes cluster');
  system
    .command('namespaces')
    .description('List the namespaces deployments can go in')
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{
        namespaces: { name: string; createdAt: string; status?: string; labels?: Record<string, string> }[];
        total: number;
        notes?: string[];
      }>('GET', '/api/system/namespaces');
      printResult(answer, () => {
        printTable(
          ['NAME', 'STATUS', 'CREATED'],
          answer.namespaces.map((n) => [n.name, n.status ?? '', n.createdAt]),
        );
        for (const note of answer.notes ?? []) process.stderr.write(`note: ${note}\n`);
      });
    });

  system
    .command('storage-classes')
    .description('List the StorageClasses deployment volumes can use (the default marked)')
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{
        storageClasses: StorageClass[];
        total: number;
        notes?: string[];
      }>('GET', '/api/system/storage-classes');
      printResult(answer, () => {
        printTable(
          ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE'],
          answer.storageClasses.map((c) => [
            c.isDefault ? `${c.name} (default)` : c.name,
            c.provisioner,
            c.reclaimPolicy ?? '',
            c.volumeBindingMode ?? '',
            c.allowVolumeExpansion ?? false,
            age(c.createdAt),
          ]),
        );
        printNotes(answer.notes);
      });
    });

  system
    .command('falkordb-versions')
    .alias('versions')
    .description('List the FalkorDB versions deployments can run or be upgraded to')
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{
        versions: {
          name: string;
          falkordbVersion: string;
          releases: { version: string; releaseDate?: string; stable?: boolean }[];
          componentDefinitions: { name: string; version: string }[];
        }[];
        total: number;
        notes?: string[];
      }>('GET', '/api/system/falkordb-versions');
      printResult(answer, () => {
        printTable(
          ['NAME', 'VERSION', 'STABLE', 'RELEASED', 'COMPONENT DEFINITIONS'],
          answer.versions.flatMap((v) =>
            v.releases.map((r) => [
              v.name,
              r.version,
              r.stable ?? '',
              r.releaseDate ?? '',
              v.componentDefinitions
                .filter((d) => d.version === r.version)
                .map((d) => d.name)
                .join(','),
            ]),
          ),
        );
        printNotes(answer.notes);
      });
    });

  system
    .command('cluster-resources')
    .alias('resources')
    .description("The Kubernetes cluster's CPU, memory and storage: used by deployments and support, and free")
    .action(async () => {
      const answer = await (await signedInClient()).call<ClusterResources>('GET', '/api/system/cluster-resources');
      const cores = (n: number | null) => (n === null ? 'unknown' : `${Math.round(n * 100) / 100}`);
      const bytes = (n: number | null) => (n === null ? 'unknown' : humanSize(Math.round(n)));
      printResult(answer, () => {
        printTable(
          ['RESOURCE', 'TOTAL', 'DEPLOYMENTS', 'SUPPORT', 'AVAILABLE'],
          [
            [
              'cpu',
              cores(answer.cpu.total),
              cores(answer.cpu.usedByDeployments),
              cores(answer.cpu.usedBySupport),
              cores(answer.cpu.available),
            ],
            [
              'memory',
              bytes(answer.memory.total),
              bytes(answer.memory.usedByDeployments),
              bytes(answer.memory.usedBySupport),
              bytes(answer.memory.available),
            ],
            [
              'storage',
              bytes(answer.storage.total),
              bytes(answer.storage.usedByDeployments),
              bytes(answer.storage.usedBySupport),
              bytes(answer.storage.available),
            ],
          ],
        );
        printLine(
          `Limited by ${answer.availableForDeployments.limitingResource}; scope: ${answer.scope.mode}${answer.scope.namespaces ? ` (${answer.scope.namespaces.join(', ')})` : ''}`,
        );
        printNotes(answer.notes);
      });
    });

  system
    .command('metrics')
    .description("The server host's CPU and memory use, and how many deployments are healthy")
    .action(async () => {
      const answer = await (
        await signedInClient()
      ).call<{
        timestamp: string;
        cpu: { usage: number; count: number };
        memory: { total: number; used: number; free: number; percentage: number };
        clusters: { total: number; healthy: number; unhealthy: number };
      }>('GET', '/api/metrics/');
      printResult(answer, () =>
        printTable(
          ['CPU', 'CPUS', 'MEMORY', 'MEMORY TOTAL', 'DEPLOYMENTS', 'HEALTHY', 'UNHEALTHY'],
          [
            [
              `${Math.round(answer.cpu.usage)}%`,
              answer.cpu.count,
              `${Math.round(answer.memory.percentage)}%`,
              humanSize(answer.memory.total),
              answer.clusters.total,
              answer.clusters.healthy,
              answer.clusters.unhealthy,
            ],
          ],
        ),
      );
    });
}
