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

/** What test/clients/typescript/session.ts exports, stated here so this file type-checks without the generated client. */
type RunSession = (
  baseUrl: string,
  login: { username: string; password: string; host: string; port: string },
  graph: string,
) => Promise<{ people: unknown; plainRows: number; missingGraphStatus: number; missingGraphMessage: string }>;

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
    // Imported by a computed path, so the project's type check does not follow it into session.ts, which needs the
    // client generated in beforeAll (its own tsconfig checks it, in the test above).
    const sessionModule = path.join(here, 'session.ts');
    const { runSession } = (await import(sessionModule)) as { runSession: RunSession };
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
