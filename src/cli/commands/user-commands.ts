// users list / get / add / set-role / disable / remove / reset-password: users are named by e-mail, as the API names them.
import type { Command } from 'commander';
import { signedInClient } from '../api-client.js';
import { confirmDestructive, withYes, type ConfirmOptions } from '../confirm.js';
import { printLine, printResult, readStdin } from '../output.js';
import type { UserView } from './auth-commands.js';

interface UserPage {
  users: UserView[];
  pagination: { page: number; limit: number; total: number; totalPages: number };
}

const userPath = (email: string) => `/api/users/${encodeURIComponent(email)}`;

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('Manage admin users');

  users
    .command('list')
    .description('List admin users (every page)')
    .option('--role <role>', 'only users with this role')
    .option('--status <status>', 'only active or disabled users')
    .action(async (options: { role?: string; status?: string }) => {
      const client = await signedInClient();
      const list: UserView[] = [];
      for (let page = 1; ; page++) {
        const query = new URLSearchParams({ page: String(page), limit: '100' });
        if (options.role) query.set('role', options.role);
        if (options.status) query.set('status', options.status);
        const answer = await client.call<UserPage>('GET', `/api/users/?${query.toString()}`);
        list.push(...answer.users);
        if (page >= answer.pagination.totalPages) break;
      }
      printResult(list, {
        headers: ['EMAIL', 'NAME', 'ROLE', 'SOURCE', 'STATUS', 'LAST LOGIN'],
        rows: list.map((u) => [u.email, u.name ?? '', u.role, u.source, u.status, u.lastLogin ?? null]),
        wide: {
          headers: ['CREATED', 'MUST CHANGE PASSWORD'],
          rows: list.map((u) => [u.createdAt, u.mustChangePassword ?? false]),
        },
      });
    });

  users
    .command('get')
    .description('Show one admin user')
    .argument('<email>')
    .action(async (email: string) => {
      const user = await (await signedInClient()).call<UserView>('GET', userPath(email));
      printResult(user, {
        headers: ['EMAIL', 'NAME', 'ROLE', 'SOURCE', 'STATUS', 'LAST LOGIN'],
        rows: [[user.email, user.name ?? '', user.role, user.source, user.status, user.lastLogin ?? null]],
        wide: {
          headers: ['CREATED', 'MUST CHANGE PASSWORD'],
          rows: [[user.createdAt, user.mustChangePassword ?? false]],
        },
      });
    });

  users
    .command('add')
    .description('Add a user')
    .argument('<email>')
    .requiredOption('--role <role>', 'admin, operator or viewer')
    .option('--name <name>', 'display name (defaults to the e-mail)')
    .option('--source <source>', 'local (default), alpha or beta: how the user signs in')
    .option('--password-stdin', 'read a password from stdin (without one the user signs in through OAuth only)')
    .addHelpText(
      'after',
      '\nExample:\n  printf %s "$PASSWORD" | graphdb-admin users add ops@corp.example --role operator --password-stdin',
    )
    .action(
      async (email: string, options: { role: string; name?: string; source?: string; passwordStdin?: boolean }) => {
        const password = options.passwordStdin ? await readStdin() : undefined;
        const user = await (
          await signedInClient()
        ).call<UserView>('POST', '/api/users/', {
          email,
          name: options.name ?? email,
          role: options.role,
          ...(options.source ? { source: options.source } : {}),
          ...(password ? { password } : {}),
        });
        printResult(user, () => printLine(`Added ${user.email} (${user.role})`));
      },
    );

  users
    .command('set-role')
    .description("Change a user's role")
    .argument('<email>')
    .argument('<role>', 'admin, operator or viewer')
    .action(async (email: string, role: string) => {
      const user = await (await signedInClient()).call<UserView>('PATCH', userPath(email), { role });
      printResult(user, () => printLine(`${email} is now ${role}`));
    });

  users
    .command('disable')
    .description('Disable a user (their sessions stop working at once)')
    .argument('<email>')
    .option('--enable', 'enable the user again instead')
    .action(async (email: string, options: { enable?: boolean }) => {
      const user = await (
        await signedInClient()
      ).call<UserView>('PATCH', userPath(email), { status: options.enable ? 'active' : 'disabled' });
      printResult(user, () => printLine(`${email} ${options.enable ? 'enabled' : 'disabled'}`));
    });

  withYes(users.command('remove').description('Delete a user').argument('<email>')).action(
    async (email: string, options: ConfirmOptions) => {
      await confirmDestructive(`Remove user ${email}`, email, options);
      const answer = await (await signedInClient()).call<unknown>('DELETE', userPath(email));
      printResult(answer ?? { deleted: email }, () => printLine(`Removed ${email}`));
    },
  );

  withYes(
    users
      .command('reset-password')
      .description('Give a local user a temporary password, printed once; they must change it at their next sign-in')
      .argument('<email>'),
  ).action(async (email: string, options: ConfirmOptions) => {
    await confirmDestructive(`Reset the password of ${email} (their current one stops working)`, email, options);
    const { tempPassword } = await (
      await signedInClient()
    ).call<{ message: string; tempPassword: string }>('POST', `${userPath(email)}/reset-password`, {});
    printResult({ email, tempPassword }, () =>
      printLine(
        `Temporary password for ${email} (shown once; it must be changed at the next sign-in): ${tempPassword}`,
      ),
    );
  });
}
