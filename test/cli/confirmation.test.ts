// Destructive commands ask before they act: on a terminal (a pseudo-terminal here) the operator retypes the name of
// a deployment or a backup, or answers y for a user, a password reset or a role; without a terminal they refuse
// (exit code 2) unless --yes is given. Nothing reaches the server before the confirmation.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADAPTERS, ADMIN, useAdminApp } from '../support/admin.js';
import { BACKUPS, DATA_PROTECTION_CRDS, backupObject, policyObject, POLICIES } from '../support/backup-scenarios.js';
import { CLUSTERS_V1, OPS_V1, replication } from '../support/kube/kubeblocks-fixtures.js';
import { objectStoreOf, type ObjectStore } from '../support/kube/object-store.js';
import { cliIn, cliInTerminal } from './harness.js';

const NS = 'graphdb-system';
// The API double, or under `npm run test:kube` the real kube-apiserver with the real KubeBlocks CRDs.
const ADAPTER = ADAPTERS.includes('kube-apiserver') ? 'kube-apiserver' : 'kubernetes';
// No session at start: the CLI signs in itself.
const t = useAdminApp({
  adapter: ADAPTER,
  kubeBlocks: true,
  crds: [CLUSTERS_V1, OPS_V1, ...DATA_PROTECTION_CRDS],
  listen: true,
  roles: [],
});
let cli: ReturnType<typeof cliIn>;
let terminal: ReturnType<typeof cliInTerminal>;
let objects: ObjectStore;

beforeAll(async () => {
  objects = objectStoreOf(t);
  for (const name of ['doomed', 'kept']) await objects.put(CLUSTERS_V1, NS, replication(name, NS));
  await objects.put(POLICIES, NS, policyObject('kept', NS, 's3-main'));
  await objects.put(
    BACKUPS,
    NS,
    backupObject('kept-nightly', 'kept', NS, {
      phase: 'Completed',
      backupRepoName: 's3-main',
      startTimestamp: '2026-11-20T03:00:00Z',
      completionTimestamp: '2026-11-20T03:01:00Z',
    }),
  );
  const server = t.baseUrl;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-admin-confirm-'));
  cli = cliIn(dir);
  terminal = cliInTerminal(dir);
  const login = await cli(['login', '--server', server, '--email', ADMIN.email, '--password-stdin'], ADMIN.password);
  expect(login.code, login.stderr).toBe(0);
  for (const email of ['leaver@corp.example', 'forgetful@corp.example']) {
    const added = await cli(['users', 'add', email, '--role', 'viewer', '--password-stdin'], 'Temp-password-123!');
    expect(added.code, added.stderr).toBe(0);
  }
  expect((await cli(['rbac', 'roles', 'create', 'short-lived', '--rule', 'system:list'])).code).toBe(0);
});

describe('without a terminal', () => {
  it('refuses every destructive command without --yes, in one line naming --yes, and changes nothing', async () => {
    for (const args of [
      ['deployments', 'delete', 'doomed', '-n', NS],
      ['backups', 'delete', 'kept', 'kept-nightly', '-n', NS],
      ['backups', 'restore', 'kept', 'kept-nightly', '-n', NS],
      ['backups', 'cleanup', 'kept', '-n', NS],
      ['users', 'remove', 'leaver@corp.example'],
      ['users', 'reset-password', 'forgetful@corp.example'],
      ['rbac', 'roles', 'delete', 'short-lived'],
      ['operations', 'delete', 'kept', 'kept-restart-0', '-n', NS],
    ]) {
      const run = await cli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/needs confirmation: run it on a terminal or pass --yes\n$/);
      expect(run.stderr.split('\n')).toHaveLength(2);
    }
    expect(await objects.get(CLUSTERS_V1, NS, 'doomed')).toBeDefined();
    expect(await objects.get(BACKUPS, NS, 'kept-nightly')).toBeDefined();
    expect((await cli(['users', 'list'])).stdout).toContain('leaver@corp.example');
    // --dry-run needs no confirmation: it changes nothing.
    const dry = await cli(['backups', 'restore', 'kept', 'kept-nightly', '-n', NS, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
  });
});

describe('on a terminal', () => {
  it('deletes a deployment only when its name is retyped', async () => {
    const wrong = await terminal(
      ['deployments', 'delete', 'doomed', '-n', NS],
      [{ when: /to confirm/, send: 'doome\r' }],
    );
    expect(wrong.code, wrong.screen).toBe(1);
    expect(wrong.screen).toContain('type the name (doomed) to confirm');
    expect(await objects.get(CLUSTERS_V1, NS, 'doomed')).toBeDefined();

    const right = await terminal(
      ['deployments', 'delete', 'doomed', '-n', NS],
      [{ when: /to confirm/, send: 'doomed\r' }],
    );
    expect(right.code, right.screen).toBe(0);
    expect(right.screen).toContain('doomed deleted');
    expect(await objects.get(CLUSTERS_V1, NS, 'doomed')).toBeUndefined();
  });

  it('deletes a backup when its name is retyped; Ctrl-C cancels with 130', async () => {
    const cancelled = await terminal(
      ['backups', 'delete', 'kept', 'kept-nightly', '-n', NS],
      [{ when: /to confirm/, send: '\x03' }],
    );
    expect(cancelled.code, cancelled.screen).toBe(130);
    expect(await objects.get(BACKUPS, NS, 'kept-nightly')).toBeDefined();
    const deleted = await terminal(
      ['backups', 'delete', 'kept', 'kept-nightly', '-n', NS],
      [{ when: /to confirm/, send: 'kept-nightly\r' }],
    );
    expect(deleted.code, deleted.screen).toBe(0);
    expect(await objects.get(BACKUPS, NS, 'kept-nightly')).toBeUndefined();
  });

  it('removes a user, resets a password and deletes a role on y, and not on anything else', async () => {
    const declined = await terminal(['users', 'remove', 'leaver@corp.example'], [{ when: /\[y\/N\]/, send: 'n\r' }]);
    expect(declined.code, declined.screen).toBe(1);
    expect((await cli(['users', 'list'])).stdout).toContain('leaver@corp.example');
    const removed = await terminal(['users', 'remove', 'leaver@corp.example'], [{ when: /\[y\/N\]/, send: 'y\r' }]);
    expect(removed.code, removed.screen).toBe(0);
    expect((await cli(['users', 'list'])).stdout).not.toContain('leaver@corp.example');

    const reset = await terminal(
      ['users', 'reset-password', 'forgetful@corp.example'],
      [{ when: /\[y\/N\]/, send: 'yes\r' }],
    );
    expect(reset.code, reset.screen).toBe(0);
    expect(reset.screen).toContain('Temporary password for forgetful@corp.example');

    const role = await terminal(['rbac', 'roles', 'delete', 'short-lived'], [{ when: /\[y\/N\]/, send: 'y\r' }]);
    expect(role.code, role.screen).toBe(0);
    expect((await cli(['rbac', 'roles', 'get', 'short-lived'])).code).toBe(5);
  });

  it("deletes an operation's record on y, and not on anything else", async () => {
    const requested = await cli(['operations', 'restart', 'kept', '-n', NS]);
    expect(requested.code, requested.stderr).toBe(0);
    const operation = requested.stdout.trim();
    const declined = await terminal(
      ['operations', 'delete', 'kept', operation, '-n', NS],
      [{ when: /\[y\/N\]/, send: 'n\r' }],
    );
    expect(declined.code, declined.screen).toBe(1);
    expect(declined.screen).toContain(`Delete operation ${operation} of kept? [y/N]`);
    expect(await objects.get(OPS_V1, NS, operation)).toBeDefined();
    const deleted = await terminal(
      ['operations', 'delete', 'kept', operation, '-n', NS],
      [{ when: /\[y\/N\]/, send: 'y\r' }],
    );
    expect(deleted.code, deleted.screen).toBe(0);
    expect(deleted.screen).toContain(`${operation} deleted`);
    expect(await objects.get(OPS_V1, NS, operation)).toBeUndefined();
  });

  it('writes no zip onto a terminal: a support package to standard output needs a file or a pipe', async () => {
    const run = await terminal(['diagnostics', 'support-package', '-f', '-', '--no-logs', '--no-metrics']);
    expect(run.code, run.screen).toBe(2);
    expect(run.screen).toContain('will not write a zip to a terminal');
    expect(run.screen).not.toContain('PK\x03\x04');
  });
});
