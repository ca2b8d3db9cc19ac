// graphdb: a Cypher shell for the browser API, in the manner of cypher-shell, redis-cli and psql. Connection (one file because it is the shell's program: its options, profiles and statement loop share one session)
// profiles hold a token made from database credentials; statements end with `;` and may span lines; results stream
// from the server's NDJSON to a table, JSON, NDJSON or CSV; Ctrl-C stops the running query on the server.
import { readFile, writeFile } from 'node:fs/promises';
import readline from 'node:readline';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { send } from '../api-client.js';
import { CliError, EXIT, exitCodeForStatus } from '../cli-errors.js';
import { packageVersion } from '../main.js';
import { readStdin } from '../output.js';
import { promptHidden, promptText } from '../prompt.js';
import { FORMATS, resultWriter, type Format } from './formats.js';
import { historyPath, loadProfiles, saveProfiles, type Profile } from './profiles.js';
import { QueryRun, type Connection, type QueryOutcome } from './query-client.js';
import { parseParamValue, splitStatements, type Statement } from './statements.js';

const HISTORY_SIZE = 1000;

interface RunOptions {
  profile?: string;
  server?: string;
  graph?: string;
  file?: string;
  format?: Format;
  param: Record<string, unknown>;
  paramsFile?: string;
  timeout: number;
}

/** `--param name=value`, repeatable; the value is JSON when it parses, else text. */
function collectParam(text: string, previous: Record<string, unknown>): Record<string, unknown> {
  const at = text.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError(`expected name=value, got ${JSON.stringify(text)}`);
  return { ...previous, [text.slice(0, at)]: parseParamValue(text.slice(at + 1)) };
}

function positiveMs(text: string): number {
  if (!/^\d{1,10}$/.test(text)) throw new InvalidArgumentError(`expected milliseconds, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The connection: --server with GRAPHDB_TOKEN, else the named or current profile. */
async function connect(options: RunOptions): Promise<{ connection: Connection; graph?: string }> {
  const token = process.env.GRAPHDB_TOKEN;
  if (options.server && token) return { connection: { server: options.server, token } };
  const file = await loadProfiles();
  const name = options.profile ?? process.env.GRAPHDB_PROFILE ?? file.current;
  const profile = name === undefined ? undefined : file.profiles[name];
  if (!profile)
    throw new CliError(
      EXIT.auth,
      name && options.profile
        ? `no profile named ${JSON.stringify(name)}: graphdb profile list shows them`
        : 'no connection profile: create one with `graphdb profile add <name>` (or pass --server with GRAPHDB_TOKEN set)',
    );
  return {
    connection: { server: options.server ?? profile.server, token: token ?? profile.token },
    graph: profile.graph,
  };
}

async function paramsOf(options: RunOptions): Promise<Record<string, unknown>> {
  let fromFile: Record<string, unknown> = {};
  if (options.paramsFile) {
    const text = await readFile(options.paramsFile, 'utf8').catch(() => undefined);
    if (text === undefined) throw new CliError(EXIT.usage, `cannot read ${options.paramsFile}`);
    try {
      fromFile = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new CliError(EXIT.usage, `${options.paramsFile} is not JSON`);
    }
    if (!fromFile || typeof fromFile !== 'object' || Array.isArray(fromFile))
      throw new CliError(EXIT.usage, `${options.paramsFile} must hold a JSON object of parameters`);
  }
  return { ...fromFile, ...options.param };
}

function summaryLine(outcome: QueryOutcome, ms: number): string {
  const rows = `${outcome.rows} row${outcome.rows === 1 ? '' : 's'}${outcome.truncated ? ' (cut at the row limit)' : ''}`;
  const stats = outcome.statistics.filter((s) => !/execution time/i.test(s));
  return `${[rows, ...stats].join(', ')} (${ms} ms)`;
}

/** A session: the connection, the graph, the parameters and the output format, shared by the prompt and scripts. */
class Session {
  current: QueryRun | undefined;

  constructor(
    readonly connection: Connection,
    public graph: string,
    public params: Record<string, unknown>,
    public format: Format,
    readonly timeoutMs: number,
    readonly showSummary: boolean,
  ) {}

  async execute(statement: Statement, label?: string): Promise<QueryOutcome> {
    const run = new QueryRun(this.connection, this.graph, statement.text);
    this.current = run;
    const started = Date.now();
    try {
      const outcome = await run.run(this.params, this.timeoutMs, resultWriter(this.format, process.stdout));
      if (outcome.ok) {
        if (this.showSummary) process.stderr.write(`${summaryLine(outcome, Date.now() - started)}\n`);
      } else if (outcome.stopped)
        process.stderr.write(
          `Stopped${outcome.rows ? ` after ${outcome.rows} rows` : ''}: the server ended the query\n`,
        );
      else process.stderr.write(`${label ? `${label}: ` : ''}error: ${outcome.message}\n`);
      return outcome;
    } finally {
      this.current = undefined;
    }
  }
}

/** Runs a script: every statement in order, each failure reported with its place, the exit code 1 if any failed. */
async function runScript(session: Session, text: string, source: string): Promise<number> {
  const { statements, rest, restLine } = splitStatements(text);
  if (rest.trim() && splitStatements(`${rest};`).statements.length > 0)
    statements.push({ text: rest.trim(), line: restLine });
  let failed = 0;
  let unauthorized = false;
  for (const [index, statement] of statements.entries()) {
    const outcome = await session.execute(statement, `${source}:${statement.line} (statement ${index + 1})`);
    if (outcome.stopped) return EXIT.interrupted;
    if (!outcome.ok) {
      failed++;
      if (outcome.status === 401) unauthorized = true;
    }
  }
  if (unauthorized) return EXIT.auth;
  return failed > 0 ? EXIT.other : EXIT.ok;
}

const HELP = `Statements end with ; and may span lines. Commands:
  :param name value   set a parameter ($name in queries; value as JSON, else text)
  :params             list the parameters      :params clear   remove them all
  :use <graph>        switch graphs            :format table|json|ndjson|csv
  :help               this text                :exit           leave (also Ctrl-D)
Ctrl-C stops a running query on the server, or clears the statement being typed.
`;

async function interactive(session: Session): Promise<number> {
  const file = historyPath();
  const saved = await readFile(file, 'utf8').then(
    (text) => text.split('\n').filter(Boolean).reverse(),
    () => [] as string[],
  );
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: true,
    history: saved.slice(0, HISTORY_SIZE),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  let history: string[] = saved;
  rl.on('history', (lines: string[]) => {
    history = lines;
  });
  let buffer = '';
  let bufferLine = 1;
  let bufferLines = 0;
  let closed = false;
  rl.once('close', () => {
    closed = true;
  });
  const prompt = () => {
    // A prompt after :exit would resume standard input, and keep the process alive.
    if (closed) return;
    rl.setPrompt(buffer ? `${' '.repeat(Math.max(session.graph.length - 1, 0))}-> ` : `${session.graph}> `);
    rl.prompt();
  };
  process.stdout.write(`Connected to ${session.connection.server}, graph ${session.graph}. :help for help.\n`);

  rl.on('SIGINT', () => {
    if (session.current) {
      process.stderr.write('\nStopping the query…\n');
      void session.current.stop();
      return;
    }
    if (buffer) process.stdout.write('^C\n');
    else process.stdout.write('\n(:exit or Ctrl-D to leave)\n');
    buffer = '';
    prompt();
  });

  const meta = (line: string): boolean => {
    const [command = '', ...args] = line.trim().split(/\s+/);
    switch (command) {
      case ':exit':
      case ':quit':
        rl.close();
        return true;
      case ':help':
        process.stdout.write(HELP);
        return true;
      case ':param': {
        const name = args[0];
        const rest = line
          .trim()
          .slice(command.length)
          .trim()
          .slice(name?.length ?? 0)
          .trim();
        if (!name || !rest) process.stderr.write('usage: :param name value\n');
        else session.params = { ...session.params, [name.replace(/^\$/, '')]: parseParamValue(rest) };
        return true;
      }
      case ':params':
        if (args[0] === 'clear') session.params = {};
        else
          for (const [name, value] of Object.entries(session.params))
            process.stdout.write(`$${name} = ${JSON.stringify(value)}\n`);
        return true;
      case ':use':
        if (args[0]) session.graph = args[0];
        else process.stderr.write('usage: :use <graph>\n');
        return true;
      case ':format':
        if (args[0] && (FORMATS as readonly string[]).includes(args[0])) session.format = args[0] as Format;
        else process.stderr.write(`usage: :format ${FORMATS.join('|')}\n`);
        return true;
      default:
        process.stderr.write(`unknown command ${command}: :help lists them\n`);
        return true;
    }
  };

  let lastCode = EXIT.ok as number;
  const queue: string[] = [];
  let working = false;
  const handle = async (line: string) => {
    if (!buffer && line.trim().startsWith(':')) {
      meta(line);
      return;
    }
    if (!buffer) {
      bufferLine = 1;
      bufferLines = 0;
    }
    buffer = buffer ? `${buffer}\n${line}` : line;
    // readline keeps no empty line in its history.
    if (line.trim()) bufferLines++;
    const { statements, rest } = splitStatements(buffer, bufferLine);
    buffer = rest.trim() ? rest.replace(/^\s*\n/, '') : '';
    if (statements.length > 0 && bufferLines > 1) {
      // A statement typed over several lines is one history entry, so the up arrow brings it back whole.
      const lines = (rl as unknown as { history: string[] }).history;
      lines.unshift(lines.splice(0, bufferLines).reverse().join(' '));
      history = lines;
    }
    if (!buffer) bufferLines = 0;
    for (const statement of statements) {
      const outcome = await session.execute(statement);
      lastCode = outcome.ok || outcome.stopped ? EXIT.ok : exitCodeForStatus(outcome.status);
    }
  };
  rl.on('line', (line) => {
    queue.push(line);
    if (working) return;
    working = true;
    void (async () => {
      while (queue.length > 0) await handle(queue.shift()!);
      working = false;
      prompt();
    })();
  });
  prompt();
  await new Promise<void>((resolve) => rl.once('close', resolve));
  process.stdout.write('\n');
  await writeFile(file, `${history.slice(0, HISTORY_SIZE).reverse().join('\n')}\n`, { mode: 0o600 }).catch(() => {});
  return lastCode;
}

function registerProfiles(program: Command): void {
  const profile = program.command('profile').description('Connection profiles (a server and a token each)');

  profile
    .command('add')
    .description('Create a profile: a token made from database credentials (asks for what is not given)')
    .argument('<name>')
    .option('--server <url>', 'the graphdb-server (asked when absent; default http://localhost:3000)')
    .option('--host <host>', 'the database host, as the server reaches it (default localhost)')
    .option('--port <port>', 'the database port (default 6379)')
    .option('--username <user>', 'the database user (default "default")')
    .option('--password-stdin', 'read the password from standard input')
    .option('--graph <graph>', 'the graph to open by default')
    .option('--tls', 'the database speaks TLS')
    .action(
      async (
        name: string,
        options: {
          server?: string;
          host?: string;
          port?: string;
          username?: string;
          passwordStdin?: boolean;
          graph?: string;
          tls?: boolean;
        },
      ) => {
        const terminal = process.stdin.isTTY === true;
        const ask = async (question: string, fallback: string, given?: string) =>
          given ?? (terminal ? (await promptText(`${question} (${fallback}):`)).trim() || fallback : fallback);
        const server = await ask('Server URL', 'http://localhost:3000', options.server);
        const host = await ask('Database host', 'localhost', options.host);
        const port = await ask('Database port', '6379', options.port);
        const username = await ask('Database user', 'default', options.username);
        const password = options.passwordStdin
          ? await readStdin()
          : await promptHidden('Password: ', true, 'pass --password-stdin');
        const graph = options.graph ?? (terminal ? (await promptText('Default graph (none):')).trim() : '');
        const res = await send(server, '/api/auth/tokens/credentials', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            username,
            password,
            host,
            port,
            tls: options.tls ? 'true' : 'false',
            name: `graphdb shell (${name})`,
          }),
        });
        if (!res.ok) {
          const text = await res.text();
          let message = `${res.status} ${res.statusText}`;
          try {
            message = (JSON.parse(text) as { message?: string }).message ?? message;
          } catch {
            // not JSON
          }
          throw new CliError(exitCodeForStatus(res.status, message), message);
        }
        const { token } = (await res.json()) as { token: string };
        const file = await loadProfiles();
        const record: Profile = { server, token, username, host, port: Number(port), ...(graph ? { graph } : {}) };
        file.profiles[name] = record;
        file.current ??= name;
        const where = await saveProfiles(file);
        process.stdout.write(`Profile ${name} saved in ${where}${file.current === name ? ' (current)' : ''}\n`);
      },
    );

  profile
    .command('list')
    .description('List profiles (never their tokens)')
    .action(async () => {
      const file = await loadProfiles();
      for (const [name, p] of Object.entries(file.profiles))
        process.stdout.write(
          `${file.current === name ? '*' : ' '} ${name}  ${p.server}  ${p.username ?? ''}@${p.host ?? ''}:${p.port ?? ''}  ${p.graph ?? ''}\n`.replace(
            /\s+\n$/,
            '\n',
          ),
        );
    });

  profile
    .command('use')
    .description('Make a profile the current one')
    .argument('<name>')
    .action(async (name: string) => {
      const file = await loadProfiles();
      if (!file.profiles[name]) throw new CliError(EXIT.notFound, `no profile named ${JSON.stringify(name)}`);
      file.current = name;
      await saveProfiles(file);
      process.stdout.write(`Using ${name}\n`);
    });

  profile
    .command('delete')
    .description('Delete a profile (its token stays valid until it expires or is revoked)')
    .argument('<name>')
    .action(async (name: string) => {
      const file = await loadProfiles();
      if (!file.profiles[name]) throw new CliError(EXIT.notFound, `no profile named ${JSON.stringify(name)}`);
      delete file.profiles[name];
      if (file.current === name) delete file.current;
      await saveProfiles(file);
      process.stdout.write(`Deleted ${name}\n`);
    });
}

export function buildShellProgram(): Command {
  const program = new Command('graphdb')
    .description('A Cypher shell for graphdb-server: run queries at a prompt, from a file or from standard input')
    .version(packageVersion(), '-V, --version', 'print the version')
    .argument('[graph]', 'the graph to query (default: the profile’s)')
    .option('-p, --profile <name>', 'the connection profile (default: the current one; env GRAPHDB_PROFILE)')
    .option('--server <url>', 'the server (with GRAPHDB_TOKEN set, no profile is needed)')
    .option('-f, --file <file>', 'run the statements of this file and exit')
    .addOption(new Option('--format <format>', 'output format').choices([...FORMATS]))
    .option(
      '--param <name=value>',
      'a parameter, $name in queries (repeatable; the value as JSON, else text)',
      collectParam,
      {},
    )
    .option('--params-file <file>', 'parameters from a JSON object file')
    .option('--timeout <ms>', 'stop a query after this long (the server may set a lower limit)', positiveMs, 60_000)
    .addHelpText(
      'after',
      `\nExamples:\n  graphdb profile add local --server http://localhost:3000 --username default\n  graphdb movies                                  # the prompt\n  graphdb movies -f load.cypher --format csv > out.csv\n  echo 'MATCH (n) RETURN count(n);' | graphdb movies --format json\n\n${HELP}\nExit codes: 0 ok, 1 a statement failed, 2 usage, 3 no profile or the token was refused, 130 stopped with Ctrl-C.`,
    )
    .exitOverride()
    // The program's options before `profile`, so `profile add --server` is the profile's own.
    .enablePositionalOptions()
    .action(async (graphArgument: string | undefined, options: RunOptions) => {
      const { connection, graph: profileGraph } = await connect(options);
      const graph = graphArgument ?? options.graph ?? profileGraph;
      if (!graph) throw new CliError(EXIT.usage, 'which graph? graphdb <graph>, or a profile with a default graph');
      const params = await paramsOf(options);
      const scripted = options.file !== undefined || !process.stdin.isTTY;
      const format = options.format ?? 'table';
      const session = new Session(connection, graph, params, format, options.timeout, !scripted || format === 'table');
      process.exitCode = await (async () => {
        if (!scripted) return interactive(session);
        const onInterrupt = () => void session.current?.stop();
        process.on('SIGINT', onInterrupt);
        try {
          if (options.file === undefined) return runScript(session, await readStdin(), '<stdin>');
          const text = await readFile(options.file, 'utf8').catch(() => undefined);
          if (text === undefined) throw new CliError(EXIT.usage, `cannot read ${options.file}`);
          return runScript(session, text, options.file);
        } finally {
          process.off('SIGINT', onInterrupt);
        }
      })();
    });
  registerProfiles(program);
  const overrideAll = (command: Command, path: string) => {
    command.exitOverride().showHelpAfterError(`See '${path} --help'.`);
    command.commands.forEach((sub) => overrideAll(sub, `${path} ${sub.name()}`));
  };
  overrideAll(program, 'graphdb');
  return program;
}

export async function runShell(argv: string[]): Promise<number> {
  process.exitCode = undefined;
  try {
    await buildShellProgram().parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError)
      return ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code)
        ? EXIT.ok
        : EXIT.usage;
    if (error instanceof CliError) {
      process.stderr.write(`graphdb: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`graphdb: ${(error as Error).message}\n`);
    return EXIT.other;
  }
}
