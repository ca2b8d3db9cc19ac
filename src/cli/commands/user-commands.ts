// users list / add / set-role / disable / remove.
import type { Command } from 'commander';
import { signedInClient, type ApiClient } from '../api-client.js';
import { CliError, EXIT } from '../cli-errors.js';
import { printJson, printLine, printTable, readStdin } from '../output.js';

interface ManagedUser {
  id: string;
  email: string;
  name: string;
  role: string;
  provider: string;
  disabled: boolean;
  lastLoginAt: string | null;
}

/** Users are named by e-mail on the command line; the API wants their id. */
async function idOf(client: ApiClient, email: string): Promise<string> {
  const { users } = await client.call<{ users: ManagedUser[] }>('GET', '/api/users');
  const user = users.find((candidate) => candidate.email.toLowerCase() === email.toLowerCase());
  if (!user) throw new CliError(EXIT.notFound, `User ${email} not found`);
  return user.id;
}

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('Manage admin users');

  users
    .command('list')
    .description('List admin users')
    .option('--json', 'print as JSON')
    .action(async (options: { json?: boolean }) => {
      const { users: list } = await (await signedInClient()).call<{ users: ManagedUser[] }>('GET', '/api/users');
      if (options.json) printJson(list);
      else
        printTable(
          ['EMAIL', 'NAME', 'ROLE', 'PROVIDER', 'DISABLED', 'LAST LOGIN'],
          list.map((u) => [u.email, u.name, u.role, u.provider, u.disabled, u.lastLoginAt]),
        );
    });

  users
    .command('add')
    .description('Add a user')
    .argument('<email>')
    .requiredOption('--role <role>', 'admin, operator or viewer')
    .option('--name <name>', 'display name (defaults to the e-mail)')
    .option('--password-stdin', 'read a password from stdin (without one the user signs in through OAuth only)')
    .option('--json', 'print as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  printf %s "$PASSWORD" | graphdb-admin users add ops@corp.example --role operator --password-stdin',
    )
    .action(
      async (email: string, options: { role: string; name?: string; passwordStdin?: boolean; json?: boolean }) => {
        const password = options.passwordStdin ? await readStdin() : undefined;
        const { user } = await (
          await signedInClient()
        ).call<{ user: ManagedUser }>('POST', '/api/users', {
          email,
          name: options.name ?? email,
          role: options.role,
          ...(password ? { password } : {}),
        });
        if (options.json) printJson(user);
        else printLine(`Added ${user.email} (${user.role})`);
      },
    );

  users
    .command('set-role')
    .description("Change a user's role")
    .argument('<email>')
    .argument('<role>', 'admin, operator or viewer')
    .action(async (email: string, role: string) => {
      const client = await signedInClient();
      await client.call('PATCH', `/api/users/${await idOf(client, email)}`, { role });
      printLine(`${email} is now ${role}`);
    });

  users
    .command('disable')
    .description('Disable a user (their sessions stop working at once)')
    .argument('<email>')
    .option('--enable', 'enable the user again instead')
    .action(async (email: string, options: { enable?: boolean }) => {
      const client = await signedInClient();
      await client.call('PATCH', `/api/users/${await idOf(client, email)}`, { disabled: !options.enable });
      printLine(`${email} ${options.enable ? 'enabled' : 'disabled'}`);
    });

  users
    .command('remove')
    .description('Delete a user')
    .argument('<email>')
    .action(async (email: string) => {
      const client = await signedInClient();
      await client.call('DELETE', `/api/users/${await idOf(client, email)}`);
      printLine(`Removed ${email}`);
    });
}
