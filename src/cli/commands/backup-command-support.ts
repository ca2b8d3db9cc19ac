// What the backup command groups share: the API's shapes as they print them, their tables, the --wait followers of a
// backup and a restore, and the real CLI's `backups <group> <deployment> <action> [name]` form.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { ApiClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { age, humanSize, readStdin } from '../output.js';
import { type WaitOptions, waitFor } from '../wait.js';
import { clusterPath, namespaceOption } from './cluster-commands.js';

export interface Backup {
  name: string;
  status: 'pending' | 'running' | 'completed' | 'failed';
  backupMethodName?: string;
  size?: string;
  startTime: string;
  completionTime?: string;
  repository: string;
  canRestore: boolean;
  restoreNotReadyReason?: string;
}
export interface Restore {
  name: string;
  backupRef: { name: string; namespace: string };
  status: 'pending' | 'running' | 'completed' | 'failed';
  startTime: string;
  completionTime?: string;
  message?: string;
}
export interface Policy {
  name: string;
  backupRepoName?: string;
  backupMethods: { name: string }[];
  status?: string;
  createdAt: string;
}
export interface Schedule {
  name: string;
  frequency: string;
  backupMethod: string;
  retentionPeriod: string;
  enabled: boolean;
  nextRun?: string;
  lastRun?: string;
  lastStatus?: string;
  status?: string;
}
export interface Repository {
  name: string;
  type: string;
  status: string;
  isDefault: boolean;
  createdAt: string;
}
export interface Cluster {
  name: string;
  namespace: string;
  phase: string;
}

export interface Namespaced {
  namespace?: string;
}

export const item = (kind: string, name: string) => `/${kind}/${encodeURIComponent(name)}`;

/** A JSON object from a file (or - for standard input). */
export async function jsonObjectFile(file: string): Promise<Record<string, unknown>> {
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new CliError(EXIT.usage, `cannot read ${file}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(EXIT.usage, `${file} is not JSON`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new CliError(EXIT.usage, `${file} must hold a JSON object`);
  return value as Record<string, unknown>;
}

export const BACKUP_END: Record<Backup['status'], 'done' | 'failed' | 'going'> = {
  pending: 'going',
  running: 'going',
  completed: 'done',
  failed: 'failed',
};

export function backupTable(items: Backup[]) {
  return {
    headers: ['NAME', 'STATUS', 'METHOD', 'SIZE', 'AGE', 'REPOSITORY'],
    rows: items.map((b) => [b.name, b.status, b.backupMethodName, humanSize(b.size), age(b.startTime), b.repository]),
    wide: {
      headers: ['STARTED', 'COMPLETED', 'RESTORABLE'],
      rows: items.map((b) => [b.startTime, b.completionTime, b.canRestore]),
    },
  };
}

export function restoreTable(items: Restore[]) {
  return {
    headers: ['NAME', 'BACKUP', 'STATUS', 'AGE'],
    rows: items.map((r) => [r.name, r.backupRef.name, r.status, age(r.startTime)]),
    wide: {
      headers: ['STARTED', 'COMPLETED', 'MESSAGE'],
      rows: items.map((r) => [r.startTime, r.completionTime, r.message]),
    },
  };
}

export const waitForBackup = (
  client: ApiClient,
  deployment: string,
  backup: string,
  options: WaitOptions & Namespaced,
) =>
  waitFor(
    `backup ${backup}`,
    () => client.call<Backup>('GET', clusterPath(deployment, item('backups', backup), options.namespace)),
    (b) => ({ state: BACKUP_END[b.status], phase: b.status }),
    options,
  );

export const waitForRestore = (
  client: ApiClient,
  deployment: string,
  restore: string,
  options: WaitOptions & Namespaced,
) =>
  waitFor(
    `restore ${restore}`,
    () => client.call<Restore>('GET', clusterPath(deployment, item('restores', restore), options.namespace)),
    (r) => ({ state: BACKUP_END[r.status], phase: r.status, reason: r.message }),
    options,
  );

/** `backups <group> <deployment> <action> [object]`: the real CLI puts the deployment before the action. */
export function actionCommand(backups: Command, group: string, description: string, actions: string[]): Command {
  return namespaceOption(
    backups
      .command(group)
      .description(`${description} (${actions.join(', ')})`)
      .argument('<deployment>')
      .argument('[action]', actions.join(', '), 'list')
      .argument('[name]', `the ${group.replace(/s$/, '').replace(/ie$/, 'y')} (for ${actions.slice(1).join(', ')})`),
  );
}

export function checkAction(
  group: string,
  action: string,
  actions: string[],
  name: string | undefined,
): string | undefined {
  if (!actions.includes(action))
    throw new CliError(
      EXIT.usage,
      `unknown action ${JSON.stringify(action)}: graphdb-admin backups ${group} <deployment> ${actions.join('|')}`,
    );
  if (action !== 'list' && action !== 'create' && !name)
    throw new CliError(EXIT.usage, `give the name: graphdb-admin backups ${group} <deployment> ${action} <name>`);
  return name;
}
