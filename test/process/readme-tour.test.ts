// The README's five-minute tour, run exactly as written: its shell blocks are taken from README.md and run in one
// shell against the compiled server in embedded mode, the way `npm start` runs it. Server and tour share a network
// namespace of their own (`unshare -rn`), so the tour's http://localhost:3000 is this server whatever else runs on
// the machine, and the tour's relative paths (`data/…`, `bin/graphdb-admin.js`) resolve in a fresh directory.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOnce } from '../support/build.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The shell blocks of README.md's "Five-minute tour" section, in order. */
export function tourCommands(readme: string): string[] {
  const start = readme.indexOf('\n## Five-minute tour');
  if (start < 0) throw new Error('README.md has no "## Five-minute tour" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

// Brings loopback up in the new namespace, starts the server as `npm start` would (dist/main.js, DATA_DIR ./data),
// waits until it answers, runs the tour with `set -eu`, then stops the server and reports the tour's exit status.
const RUNNER = `
set -u
ip=$(command -v ip || echo /usr/sbin/ip)
"$ip" link set lo up
node "$ROOT/dist/main.js" > server.log 2>&1 &
server=$!
tries=0
until curl -fsS http://localhost:3000/healthz > /dev/null 2>&1; do
  tries=$((tries + 1))
  if [ "$tries" -gt 600 ] || ! kill -0 "$server" 2> /dev/null; then echo "server did not start"; cat server.log; exit 90; fi
  sleep 0.1
done
sh -eu tour.sh
status=$?
kill -TERM "$server"
wait "$server"
exit "$status"
`;

describe("README.md's five-minute tour", () => {
  beforeAll(async () => {
    await buildOnce();
  }, 600_000);

  it('runs as written against a real server in embedded mode', async () => {
    const commands = tourCommands(await readFile(path.join(ROOT, 'README.md'), 'utf8'));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gdb-tour-'));
    await symlink(path.join(ROOT, 'bin'), path.join(dir, 'bin'));
    await writeFile(path.join(dir, 'tour.sh'), commands.join('\n'));

    const child = spawn('unshare', ['-rn', 'sh', '-c', RUNNER], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, ROOT },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const log = existsSync(path.join(dir, 'server.log')) ? await readFile(path.join(dir, 'server.log'), 'utf8') : '';
    expect(
      code,
      `tour failed\n--- stdout\n${stdout}\n--- stderr\n${stderr}\n--- server log (tail)\n${log.slice(-3000)}`,
    ).toBe(0);

    // What each step shows the reader: the query's rows in the three formats, the console's users, and the CLI's
    // signed-in user.
    expect(stdout).toContain('{"title":"Alien"},{"title":"Heat"}');
    expect(stdout).toContain('event: result\ndata: {"metadata"');
    expect(stdout).toContain('{"type":"header","columns":["title"]}');
    expect(stdout).toContain('{"type":"row","data":{"title":"Alien"}}');
    expect(stdout).toContain('"email":"admin@localhost"');
    expect(
      stdout.split('admin@localhost').length - 1,
      'the users list and graphdb-admin whoami',
    ).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
