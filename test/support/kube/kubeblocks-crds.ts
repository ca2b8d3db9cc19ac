// The real KubeBlocks CRDs for the tests against a real API server: the files of KubeBlocks' own Go module
// (config/crd/bases/), which scripts/ensure-kubeblocks-crds.sh downloads from the Go module proxy and caches in
// ~/.cache/graphdb-server/kubeblocks-crds/<version>/ (`npm run test:kube` exports KUBEBLOCKS_CRDS_DIR). They are
// installed unchanged: no fixture of ours stands in for their schemas or CEL rules.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** KubeBlocks 1.x (what the server targets) and 0.9 (apps.kubeblocks.io/v1alpha1, still supported). */
export const KUBEBLOCKS_1X = 'v1.0.1';
export const KUBEBLOCKS_09 = 'v0.9.0';

/** The CRD file of each custom resource (`group/version/plural`, as the API double names them) the tests install. */
const CRD_FILES: Record<string, [release: string, file: string]> = {
  // The 1.x Cluster CRD serves v1 (storage) and v1alpha1; see docs/decisions/real-kubeblocks-crds.md on its conversion.
  'apps.kubeblocks.io/v1/clusters': [KUBEBLOCKS_1X, 'apps.kubeblocks.io_clusters.yaml'],
  'operations.kubeblocks.io/v1alpha1/opsrequests': [KUBEBLOCKS_1X, 'operations.kubeblocks.io_opsrequests.yaml'],
  // 0.9 serves Cluster only at v1alpha1, so a server with these CRDs is a 0.9 one (the same CRD name as 1.x's:
  // a 0.9 test gets an API server of its own).
  'apps.kubeblocks.io/v1alpha1/clusters': [KUBEBLOCKS_09, 'apps.kubeblocks.io_clusters.yaml'],
  'apps.kubeblocks.io/v1alpha1/opsrequests': [KUBEBLOCKS_09, 'apps.kubeblocks.io_opsrequests.yaml'],
  // Data protection: backups, policies, schedules, repositories, restores.
  ...Object.fromEntries(
    ['backuprepos', 'backups', 'backuppolicies', 'backupschedules', 'restores'].map((plural) => [
      `dataprotection.kubeblocks.io/v1alpha1/${plural}`,
      [KUBEBLOCKS_1X, `dataprotection.kubeblocks.io_${plural}.yaml`] as [string, string],
    ]),
  ),
};

/** The CRD groups of KubeBlocks 1.x that the issue names (apps, operations, dataprotection, parameters, workloads). */
export const KUBEBLOCKS_1X_GROUPS = [
  'apps.kubeblocks.io',
  'operations.kubeblocks.io',
  'dataprotection.kubeblocks.io',
  'parameters.kubeblocks.io',
  'workloads.kubeblocks.io',
];

const DEFAULT_DIR = path.join(os.homedir(), '.cache', 'graphdb-server', 'kubeblocks-crds');

/** The directory holding <version>/ of each release, or the reason there is none. */
export function kubeBlocksCrdsDir(): string | { missing: string } {
  const dir = process.env.KUBEBLOCKS_CRDS_DIR || DEFAULT_DIR;
  for (const release of [KUBEBLOCKS_1X, KUBEBLOCKS_09])
    if (!existsSync(path.join(dir, release, '.complete')))
      return {
        missing: `the real KubeBlocks ${release} CRDs are not in ${dir}: run these tests with \`npm run test:kube\` (it fetches them with scripts/ensure-kubeblocks-crds.sh)`,
      };
  return dir;
}

function crdsDir(): string {
  const dir = kubeBlocksCrdsDir();
  if (typeof dir !== 'string') throw new Error(dir.missing);
  return dir;
}

/** The path of the real CRD defining `resource` (`group/version/plural`). */
export function realCrdFile(resource: string): string {
  const entry = CRD_FILES[resource];
  if (!entry)
    throw new Error(`no real KubeBlocks CRD is mapped for ${resource} (test/support/kube/kubeblocks-crds.ts)`);
  return path.join(crdsDir(), ...entry);
}

/** The paths of every CRD file of a release whose group is one of `groups` (file names are `<group>_<plural>.yaml`). */
export async function releaseCrdFiles(release: string, groups: string[]): Promise<string[]> {
  const dir = path.join(crdsDir(), release);
  return (await readdir(dir))
    .filter((file) => file.endsWith('.yaml') && groups.includes(file.slice(0, file.indexOf('_'))))
    .sort()
    .map((file) => path.join(dir, file));
}
