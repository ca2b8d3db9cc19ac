// A TypeScript client generated from openapi/openapi.json (openapi-typescript + openapi-fetch): a realistic session
// (test/clients/typescript/session.ts) type-checks under --strict with no casts, then runs against a real server.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDbUser, credentials, useBrowserApp } from '../support/browser.js';

const run = promisify(execFile);
const here = path.join(import.meta.dirname, 'typescript');
const root = path.join(import.meta.dirname, '..', '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

const t = useBrowserApp({ prefix: 'tsclient', listen: true });

beforeAll(async () => {
  await run(bin('openapi-typescript'), [
    path.join(root, 'openapi', 'openapi.json'),
    '-o',
    path.join(here, 'generated', 'api.d.ts'),
  ]);
}, 120_000);

describe('the generated TypeScript client', () => {
  it('type-checks the session under --strict, with no casts', async () => {
    const source = await readFile(path.join(here, 'session.ts'), 'utf8');
    // No `as` casts, no non-null assertions on a value, no `any`.
    expect(source).not.toMatch(/\)\s+as\s|\w\s+as\s+[\w{[]|[\w)\]]!\.|\bany\b/);
    const checked = await run(bin('tsc'), ['-p', path.join(here, 'tsconfig.json')]).then(
      () => '',
      (error: { stdout?: string; message?: string }) => error.stdout || error.message || 'tsc failed',
    );
    expect(checked).toBe('');
  }, 120_000);

  it('runs the session against a real server: token, graph, parameterised body query, typed rows, an error', async () => {
    await createDbUser(t.falkordb, 'tsclient-user', 'tsclient-password', 'Read-Write');
    const login = credentials(t.falkordb, 'tsclient-user', 'tsclient-password');
    const { runSession } = await import('./typescript/session.js');
    const outcome = await runSession(
      t.baseUrl,
      { username: login.username, password: login.password, host: login.host, port: login.port },
      'tsclient-people',
    );
    expect(outcome.people).toEqual([{ name: 'Ada', born: 1815n, friends: ['Charles'], since: 1833n }]);
    expect(outcome.plainRows).toBe(1);
    expect(outcome.missingGraphStatus).toBe(404);
    expect(outcome.missingGraphMessage).toContain('tsclient-people-missing');
  });
});
