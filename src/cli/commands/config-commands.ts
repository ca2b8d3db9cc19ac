// config get-contexts / current-context / use-context / set-context / delete-context: several servers, one session
// each.
import type { Command } from 'commander';
import { CliError, EXIT } from '../cli-errors.js';
import { printLine, printResult } from '../output.js';
import { configFilePath, loadConfig, saveConfig } from '../session-file.js';

const NAME = /^[A-Za-z0-9]([A-Za-z0-9._@:-]{0,61}[A-Za-z0-9])?$/;

function checkName(name: string): string {
  if (!NAME.test(name))
    throw new CliError(
      EXIT.usage,
      `a context name is 1-63 letters, digits, '.', '_', '@', ':' or '-'; got ${JSON.stringify(name)}`,
    );
  return name;
}

function checkServer(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new CliError(EXIT.usage, `--server takes a URL such as http://localhost:3000; got ${JSON.stringify(server)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(EXIT.usage, `--server takes an http or https URL; got ${JSON.stringify(server)}`);
  return server;
}

export function registerConfigCommands(program: Command): void {
  const config = program
    .command('config')
    .description('Contexts: the servers this CLI knows, each with its own session')
    .addHelpText(
      'after',
      '\nExamples:\n  graphdb-admin config set-context staging --server https://admin.staging.example\n  graphdb-admin config use-context staging && graphdb-admin login --email me@corp.example\n  graphdb-admin --context prod users list   # one command against another context',
    );

  config
    .command('get-contexts')
    .description('List the contexts (* marks the current one)')
    .action(async () => {
      const file = await loadConfig();
      const list = Object.entries(file.contexts).map(([name, context]) => ({
        name,
        server: context.server,
        current: name === file.currentContext,
        signedIn: context.cookie !== undefined,
      }));
      printResult(list, {
        headers: ['CURRENT', 'NAME', 'SERVER', 'SIGNED IN'],
        rows: list.map((c) => [c.current ? '*' : '', c.name, c.server, c.signedIn ? 'yes' : 'no']),
      });
    });

  config
    .command('current-context')
    .description('Print the current context')
    .action(async () => {
      const file = await loadConfig();
      if (file.currentContext === undefined) throw new CliError(EXIT.notFound, 'no current context');
      const context = file.contexts[file.currentContext];
      printResult({ name: file.currentContext, server: context?.server ?? null }, () =>
        printLine(file.currentContext!),
      );
    });

  config
    .command('use-context')
    .description('Make a context the current one')
    .argument('<name>')
    .action(async (name: string) => {
      const file = await loadConfig();
      if (!file.contexts[name])
        throw new CliError(
          EXIT.notFound,
          `no context named ${JSON.stringify(name)} (see graphdb-admin config get-contexts)`,
        );
      file.currentContext = name;
      await saveConfig(file);
      printResult({ currentContext: name }, () => printLine(`Switched to context ${name}`));
    });

  config
    .command('set-context')
    .description("Create a context, or change its server (a new server forgets the context's session)")
    .argument('<name>')
    .requiredOption('--server <url>', 'the admin server, e.g. https://admin.example.com')
    .option('--use', 'also make it the current context')
    .action(async (name: string, options: { server: string; use?: boolean }) => {
      checkName(name);
      checkServer(options.server);
      const file = await loadConfig();
      const before = file.contexts[name];
      file.contexts[name] = before && before.server === options.server ? before : { server: options.server };
      if (options.use || file.currentContext === undefined) file.currentContext = name;
      await saveConfig(file);
      printResult({ name, server: options.server, current: file.currentContext === name }, () =>
        printLine(`Context ${name} ${before ? 'updated' : 'created'}: ${options.server}`),
      );
    });

  config
    .command('delete-context')
    .description('Forget a context and its session (sign out first to end the session on the server)')
    .argument('<name>')
    .action(async (name: string) => {
      const file = await loadConfig();
      if (!file.contexts[name]) throw new CliError(EXIT.notFound, `no context named ${JSON.stringify(name)}`);
      delete file.contexts[name];
      if (file.currentContext === name) delete file.currentContext;
      await saveConfig(file);
      printResult({ deleted: name }, () => printLine(`Deleted context ${name}`));
    });

  config
    .command('path')
    .description('Print where contexts and sessions are kept')
    .action(() => printResult({ file: configFilePath() }, () => printLine(configFilePath())));
}
