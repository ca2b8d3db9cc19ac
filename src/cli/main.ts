// graphdb-admin: the command-line client of the admin API.
import { Command, CommanderError } from 'commander';
import { CliError, EXIT } from './cli-errors.js';
import { registerAuthCommands } from './commands/auth-commands.js';
import { registerClusterCommands } from './commands/cluster-commands.js';
import { registerSettingsCommands } from './commands/settings-commands.js';
import { registerUserCommands } from './commands/user-commands.js';

export async function run(argv: string[]): Promise<number> {
  const program = new Command('graphdb-admin')
    .description('Administer a graphdb-server: sessions, settings, users and database deployments')
    .exitOverride()
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 other error, 2 usage, 3 not signed in / session expired, 4 forbidden, 5 not found.',
    );
  registerAuthCommands(program);
  registerSettingsCommands(program);
  registerClusterCommands(program);
  registerUserCommands(program);
  for (const command of program.commands) command.exitOverride();
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
