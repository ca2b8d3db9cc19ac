// graphdb-admin: the command-line client of the admin API.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { CliError, EXIT, EXIT_CODES_HELP } from './cli-errors.js';
import { setCommandFlags } from './api-client.js';
import { registerAuditCommands } from './commands/audit-commands.js';
import { registerDiagnosticsCommands } from './commands/diagnostics-commands.js';
import { registerLicenseCommands } from './commands/license-commands.js';
import { registerSearchCommand } from './commands/search-command.js';
import { registerSystemCommands } from './commands/system-commands.js';
import { registerBackupCommands } from './commands/backup-commands.js';
import { registerAuthCommands } from './commands/auth-commands.js';
import { registerClusterCommands } from './commands/cluster-commands.js';
import { registerCompletionCommand } from './commands/completion-command.js';
import { registerConfigCommands } from './commands/config-commands.js';
import { registerDeploymentCommands } from './commands/deployment-commands.js';
import { registerLogCommands } from './commands/log-commands.js';
import { registerOperationCommands } from './commands/operation-commands.js';
import { registerRawCommand } from './commands/raw-command.js';
import { registerRbacCommands } from './commands/rbac-commands.js';
import { registerSettingsCommands } from './commands/settings-commands.js';
import { registerUserCommands } from './commands/user-commands.js';
import { registerVersionCommand } from './commands/version-command.js';
import { OUTPUT_FORMATS, setOutputFormat } from './output.js';
import { setConfigOverrides } from './session-file.js';
import { setTokenOverride } from './token-auth.js';
import { registerServiceAccountCommands } from './commands/serviceaccount-commands.js';

/** The package's version (package.json sits two levels above dist/cli and src/cli). */
export function packageVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

let pipeGuarded = false;

/** A reader that stops early (`| head -1`) closes the pipe: stop quietly instead of dying with a stack trace. */
function guardBrokenPipe(): void {
  if (pipeGuarded) return;
  pipeGuarded = true;
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
}

export function buildProgram(): Command {
  const program = new Command('graphdb-admin')
    .description('Administer a graphdb-server: sessions, settings, users, RBAC and database deployments')
    .version(packageVersion(), '-V, --version', 'print the version')
    .addOption(new Option('-o, --output <format>', 'output format').choices([...OUTPUT_FORMATS]).default('table'))
    .option('--json', 'the same as -o json')
    .option('--config <file>', 'the config/session file (env GRAPHDB_ADMIN_CLI_CONFIG)')
    .option('--context <name>', 'use this context instead of the current one, for this command only')
    .option('--token <token>', 'a service account token instead of the session (env GRAPHDB_ADMIN_TOKEN); never saved')
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .addHelpText('after', `\n${EXIT_CODES_HELP}`);
  program.hook('preAction', (_root, action) => {
    const options = action.optsWithGlobals<{
      output?: string;
      json?: boolean;
      config?: string;
      context?: string;
      token?: string;
    }>();
    setOutputFormat(options);
    setConfigOverrides(options);
    setTokenOverride(options.token);
    const flags: string[] = [];
    for (let command: Command | null = action; command; command = command.parent)
      for (const option of command.options) if (option.long) flags.push(option.long);
    setCommandFlags(flags);
  });
  registerAuthCommands(program);
  registerConfigCommands(program);
  registerSettingsCommands(program);
  registerClusterCommands(program);
  registerDeploymentCommands(program);
  registerOperationCommands(program);
  registerLogCommands(program);
  registerBackupCommands(program);
  registerUserCommands(program);
  registerRbacCommands(program);
  registerServiceAccountCommands(program);
  registerSystemCommands(program);
  registerSearchCommand(program);
  registerDiagnosticsCommands(program);
  registerLicenseCommands(program);
  registerAuditCommands(program);
  registerRawCommand(program);
  registerVersionCommand(program, packageVersion());
  registerCompletionCommand(program);
  // A usage error is one line and where to read more, as kubectl says it: not the whole help.
  const overrideAll = (command: Command, path: string) => {
    command.exitOverride().showHelpAfterError(`See '${path} --help'.`);
    command.commands.forEach((sub) => overrideAll(sub, `${path} ${sub.name()}`));
  };
  overrideAll(program, program.name());
  return program;
}

export async function run(argv: string[]): Promise<number> {
  guardBrokenPipe();
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not failures; everything else commander reports is a usage error.
      return error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.help' ||
        error.code === 'commander.version'
        ? EXIT.ok
        : EXIT.usage;
    }
    if (error instanceof CliError) {
      process.stderr.write(`graphdb-admin: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`graphdb-admin: ${(error as Error).message}\n`);
    return EXIT.other;
  }
}
