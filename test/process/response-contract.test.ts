// A server started as a child process (test/support/server-process.ts) has its responses checked against the API
// document as an in-process app has: a mismatch in the child is recorded for the test under way in this process.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeContractMismatches } from '../support/response-contract.js';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';
import { eventually } from '../support/wait.js';

let server: ServerProcess;
beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-contract-'));
  server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' }, [
    '--import',
    new URL('../support/wrong-answers.ts', import.meta.url).href,
  ]);
  await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.includes(' is ready at '), 60_000);
}, 90_000);
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
});

describe("a server process's responses are checked against the API document", () => {
  it('records nothing for a response the document describes, and a status it does not declare', async () => {
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/healthz`, { headers: { 'x-wrong': 'status' } })).status).toBe(418);
    const found: string[] = [];
    await eventually(() => {
      found.push(...takeContractMismatches());
      return found.length > 0;
    }, 5_000);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^GET \/healthz answered 418, a status the document does not declare/);
    expect(server.stderr()).not.toContain('response-contract-mismatch');
  });
});
