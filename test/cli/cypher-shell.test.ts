// graphdb, the Cypher shell, against the server process in embedded mode (its own FalkorDB): a profile made from
// database credentials, scripts (--file, standard input) with per-statement errors, the four output formats,
// parameters, and the prompt in a pseudo-terminal: multi-line statements, history across sessions, and Ctrl-C
// stopping a long query on the server (GET /api/queries shows it gone).
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServerProcess, type ServerProcess } from '../support/server-process.js';
import { eventually } from '../support/wait.js';
import { runCommand, runInTerminal, SHELL_BIN, type Exchange } from './harness.js';

interface EmbeddedLine {
  embeddedFalkorDB: { host: string; port: number; username: string; passwordFile: string };
}

let server: ServerProcess;
let configDir: string;
let embedded: EmbeddedLine['embeddedFalkorDB'];
let password: string;
const GRAPH = 'shelltest';

const env = () => ({ PATH: process.env.PATH ?? '', HOME: configDir, GRAPHDB_ADMIN_CONFIG_DIR: configDir });
const shell = (args: string[], stdin = '') => runCommand(process.execPath, [SHELL_BIN, ...args], env(), stdin);
const terminal = (args: string[], exchanges: Exchange[]) =>
  runInTerminal([process.execPath, SHELL_BIN, ...args], env(), exchanges);
const token = async () =>
  (
    JSON.parse(await readFile(path.join(configDir, 'profiles.json'), 'utf8')) as {
      profiles: { local: { token: string } };
    }
  ).profiles.local.token;
const runningQueries = async () =>
  (
    (await (
      await fetch(`${server.baseUrl}/api/queries`, { headers: { authorization: `Bearer ${await token()}` } })
    ).json()) as { queries: { query: string }[] }
  ).queries;

beforeAll(async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gdb-shell-embedded-'));
  server = await runServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  ({ embeddedFalkorDB: embedded } = (await server.waitForLine(
    (l) => 'embeddedFalkorDB' in l,
    60_000,
  )) as unknown as EmbeddedLine);
  await server.waitForLine((l) => typeof l.msg === 'string' && l.msg.startsWith('Server listening at'), 60_000);
  password = (await readFile(embedded.passwordFile, 'utf8')).trim();
  configDir = await mkdtemp(path.join(os.tmpdir(), 'graphdb-shell-'));
}, 90_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
});

describe('graphdb profiles', () => {
  it('makes a token from database credentials and stores it (never the password) in a 0600 file', async () => {
    const added = await shell(
      [
        'profile',
        'add',
        'local',
        '--server',
        server.baseUrl,
        '--host',
        embedded.host,
        '--port',
        String(embedded.port),
        '--username',
        embedded.username,
        '--graph',
        GRAPH,
        '--password-stdin',
      ],
      password,
    );
    expect(added.code, added.stderr).toBe(0);
    const file = path.join(configDir, 'profiles.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(password);
    expect(JSON.parse(text)).toMatchObject({
      current: 'local',
      profiles: { local: { server: server.baseUrl, graph: GRAPH } },
    });
    const listed = await shell(['profile', 'list']);
    expect(listed.stdout).toContain('* local');
    expect(listed.stdout).not.toContain(await token());

    const refused = await shell(
      [
        'profile',
        'add',
        'bad',
        '--server',
        server.baseUrl,
        '--host',
        embedded.host,
        '--port',
        String(embedded.port),
        '--username',
        embedded.username,
        '--password-stdin',
      ],
      'wrong-password',
    );
    expect(refused.code).toBe(3);
    expect((await shell(['profile', 'list'])).stdout).not.toContain('bad');
  }, 60_000);

  it('asks for server, host, port, user and password on a terminal', async () => {
    const run = await terminal(
      ['profile', 'add', 'asked'],
      [
        { when: /Server URL/, send: `${server.baseUrl}\r` },
        { when: /Database host/, send: `${embedded.host}\r` },
        { when: /Database port/, send: `${embedded.port}\r` },
        { when: /Database user/, send: `${embedded.username}\r` },
        { when: /Password/, send: `${password}\r` },
        { when: /Default graph/, send: '\r' },
      ],
    );
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).not.toContain(password);
    expect(run.screen).toContain('Profile asked saved');
  }, 60_000);
});

describe('graphdb scripts', () => {
  it('runs a --file statement by statement, reporting each failure with its line, and exits 1', async () => {
    const script = path.join(configDir, 'load.cypher');
    await writeFile(
      script,
      [
        "CREATE (:Person {name: 'Ada', born: 1815});",
        '// a comment; with a semicolon',
        'MATCH (p:Person) RETURN p.nam e;',
        "CREATE (:Person {name: 'Grace',",
        '  born: 1906});',
        'MATCH (p:Person) RETURN p.name AS name ORDER BY name',
      ].join('\n'),
    );
    const run = await shell([GRAPH, '--file', script, '--format', 'csv']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('name\r\nAda\r\nGrace\r\n');
    expect(run.stderr).toMatch(
      new RegExp(`${script.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3 \\(statement 2\\): error: `),
    );
    expect(run.stderr.match(/error:/g)).toHaveLength(1);
  }, 60_000);

  it('prints csv, json and ndjson, with --param and --params-file', async () => {
    const query = "UNWIND range(1, 3) AS x RETURN x, 'a,\"b' AS s, $who AS who, $n AS n;";
    const params = path.join(configDir, 'params.json');
    await writeFile(params, JSON.stringify({ who: 'file', n: 7 }));
    const csv = await shell([GRAPH, '--format', 'csv', '--params-file', params, '--param', 'who=flag'], query);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout).toBe('x,s,who,n\r\n1,"a,""b",flag,7\r\n2,"a,""b",flag,7\r\n3,"a,""b",flag,7\r\n');
    const json = await shell([GRAPH, '--format', 'json', '--param', 'who="x"', '--param', 'n=[1,2]'], query);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([1, 2, 3].map((x) => ({ x, s: 'a,"b', who: 'x', n: [1, 2] })));
    const ndjson = await shell([GRAPH, '--format', 'ndjson', '--param', 'who=y', '--param', 'n=1'], query);
    expect(
      ndjson.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([1, 2, 3].map((x) => ({ x, s: 'a,"b', who: 'y', n: 1 })));
    const table = await shell([GRAPH], 'RETURN 1 AS one;');
    expect(table.stdout).toBe('one\n---\n1\n');
    expect(table.stderr).toMatch(/^1 row/);
    expect((await shell([GRAPH, '--format', 'xml'], 'RETURN 1;')).code).toBe(2);
    expect((await shell([GRAPH, '--param', 'novalue'], 'RETURN 1;')).code).toBe(2);
  }, 60_000);

  it('prints a result of many network chunks whole in every format, rows and characters split across chunks', async () => {
    const rows = 50_000;
    // Multi-byte characters, so some chunk boundary falls inside one; a nested value, passed through as it came.
    const query = `UNWIND range(1, ${rows}) AS x RETURN x, 'é☃ ' + toString(x) AS s, {k: [x, 'ü']} AS m;`;
    const expected = Array.from({ length: rows }, (_, i) => ({
      x: i + 1,
      s: `é☃ ${i + 1}`,
      m: { k: [i + 1, 'ü'] },
    }));
    const ndjson = await shell([GRAPH, '--format', 'ndjson'], query);
    expect(ndjson.code, ndjson.stderr).toBe(0);
    const lines = ndjson.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual(expected);
    const json = await shell([GRAPH, '--format', 'json'], query);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(expected);
    expect(json.stdout.startsWith('[\n  {"x":1,')).toBe(true);
    expect(json.stdout.endsWith('}\n]\n')).toBe(true);
    const csv = await shell([GRAPH, '--format', 'csv'], query);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\r\n').slice(0, -1)).toEqual([
      'x,s,m',
      ...expected.map((row) => `${row.x},${row.s},"${JSON.stringify(row.m).replace(/"/g, '""')}"`),
    ]);
  }, 60_000);
});

describe('graphdb prompt', () => {
  it('reads multi-line statements, keeps them whole in its history, across sessions', async () => {
    const first = await terminal(
      [GRAPH],
      [
        { when: new RegExp(`${GRAPH}> `), send: 'RETURN\r' },
        { when: /-> /, send: '40 + 2 AS answer;\r' },
        { when: /\(\d+ ms\)[\s\S]*> /, send: '\x1b[A\r' },
        { when: /\(\d+ ms\)[\s\S]*> /, send: ':param who "Ada"\r' },
        { when: /> /, send: 'RETURN $who AS who;\r' },
        { when: /\(\d+ ms\)[\s\S]*> /, send: ':exit\r' },
      ],
    );
    expect(first.code, first.screen).toBe(0);
    expect(first.screen.match(/^42\s*$/gm)).toHaveLength(2);
    expect(first.screen).toMatch(/^Ada\s*$/m);
    const history = await readFile(path.join(configDir, 'shell-history'), 'utf8');
    expect(history).toContain('RETURN 40 + 2 AS answer;');
    expect((await stat(path.join(configDir, 'shell-history'))).mode & 0o777).toBe(0o600);

    const second = await terminal(
      [GRAPH],
      [
        { when: new RegExp(`${GRAPH}> `), send: '\x1b[A\x1b[A\x1b[A\x1b[A\r' },
        { when: /\(\d+ ms\)[\s\S]*> /, send: '\x04' },
      ],
    );
    expect(second.code, second.screen).toBe(0);
    expect(second.screen).toMatch(/^42\s*$/m);
  }, 90_000);

  it('stops a long query on the server with Ctrl-C and gives the prompt back', async () => {
    const long = 'UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(a + b) AS n;';
    let sawRunning = false;
    const run = await terminal(
      [GRAPH],
      [
        { when: new RegExp(`${GRAPH}> `), send: `${long}\r` },
        {
          when: /UNWIND/,
          send: '\x03',
          before: async () => {
            await eventually(async () => (await runningQueries()).length > 0, 20_000);
            sawRunning = true;
          },
        },
        { when: /Stopped[\s\S]*> /, send: ':exit\r' },
      ],
    );
    expect(sawRunning, run.screen).toBe(true);
    expect(run.code, run.screen).toBe(0);
    expect(run.screen).toContain('Stopping the query');
    expect(run.screen).toContain('Stopped');
    await eventually(async () => (await runningQueries()).length === 0, 10_000);
  }, 90_000);
});
