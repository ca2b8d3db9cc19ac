// login, logout, whoami.
import type { Command } from 'commander';
import { clientFor, readErrorMessage, signedInClient } from '../api-client.js';
import { CliError, EXIT, exitCodeForStatus } from '../cli-errors.js';
import { printJson, printLine, readStdin } from '../output.js';
import { deleteSession, loadSession, saveSession } from '../session-file.js';
import { promptHidden } from '../prompt.js';

/** The server's User object. */
export interface UserView {
  email: string;
  name?: string;
  role: string;
  source: string;
  status: string;
  createdAt: string;
  lastLogin?: string;
  mustChangePassword?: boolean;
}

const PASSWORD_CHANGE_HINT =
  'An admin reset this password: choose a new one with `graphdb-admin change-password` before anything else';

export function registerAuthCommands(program: Command): void {
  program
    .command('login')
    .description('Sign in with a local account and keep the session for later commands')
    .requiredOption('--server <url>', 'the admin server, e.g. http://localhost:3000')
    .option('--email <email>', 'account e-mail (asked for when omitted)')
    .option('--password-stdin', 'read the password from standard input instead of prompting')
    .option('--json', 'print the signed-in user as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  graphdb-admin login --server http://localhost:3000 --email admin@corp.example\n  echo "$PASSWORD" | graphdb-admin login --server http://localhost:3000 --email admin@corp.example --password-stdin',
    )
    .action(async (options: { server: string; email?: string; passwordStdin?: boolean; json?: boolean }) => {
      const email = options.email ?? (await promptHidden('E-mail: ', false));
      const password = options.passwordStdin ? await readStdin() : await promptHidden('Password: ', true);
      let res: Response;
      try {
        res = await fetch(new URL('/api/auth/login', options.server), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        });
      } catch (error) {
        throw new CliError(EXIT.other, `cannot reach ${options.server}: ${(error as Error).message}`);
      }
      if (!res.ok) throw new CliError(exitCodeForStatus(res.status), await readErrorMessage(res));
      // The body is the user and the session JWT (`token`), the same value as the cookie `token`.
      const { token, ...user } = (await res.json()) as UserView & { token?: string };
      const cookie =
        res.headers
          .getSetCookie()
          .find((line) => line.startsWith('token='))
          ?.split(';')[0] ?? (token ? `token=${token}` : undefined);
      if (!cookie) throw new CliError(EXIT.other, 'the server did not set a session cookie');
      const file = await saveSession({ server: options.server, cookie });
      if (options.json) printJson({ user, sessionFile: file });
      else {
        printLine(`Signed in as ${user.email} (${user.role}); session saved in ${file}`);
        if (user.mustChangePassword) printLine(PASSWORD_CHANGE_HINT);
      }
    });

  program
    .command('logout')
    .description('Sign out and forget the stored session')
    .action(async () => {
      const session = await loadSession();
      if (session)
        await clientFor(session)
          .call('POST', '/api/auth/logout')
          .catch(() => undefined);
      await deleteSession();
      printLine('Signed out');
    });

  program
    .command('whoami')
    .description('Show the signed-in user')
    .option('--json', 'print as JSON')
    .action(async (options: { json?: boolean }) => {
      const client = await signedInClient();
      const { user } = await client.call<{ valid: boolean; user: UserView }>('GET', '/api/auth/validate');
      if (options.json) printJson({ user, server: client.server });
      else {
        printLine(
          `${user.email} (${user.name ?? user.email}), role ${user.role}, via ${user.source}, on ${client.server}`,
        );
        if (user.mustChangePassword) printLine(PASSWORD_CHANGE_HINT);
      }
    });

  program
    .command('change-password')
    .description("Change the signed-in user's password (required after an admin reset it)")
    .option('--password-stdin', 'read the current and the new password from stdin, one per line')
    .addHelpText(
      'after',
      '\nExample:\n  printf "%s\\n%s\\n" "$CURRENT" "$NEW" | graphdb-admin change-password --password-stdin',
    )
    .action(async (options: { passwordStdin?: boolean }) => {
      const session = await loadSession();
      if (!session) throw new CliError(EXIT.auth, 'Not signed in: run `graphdb-admin login --server <url>` first');
      let currentPassword: string;
      let newPassword: string;
      if (options.passwordStdin) {
        const [current = '', next = ''] = (await readStdin()).split(/\r?\n/);
        currentPassword = current;
        newPassword = next;
      } else {
        currentPassword = await promptHidden('Current password: ', true);
        newPassword = await promptHidden('New password: ', true);
      }
      const res = await clientFor(session).raw('PATCH', '/api/users/me/password', { currentPassword, newPassword });
      // The server ends every other session of the user and renews this one.
      const cookie = res.headers
        .getSetCookie()
        .find((line) => line.startsWith('token='))
        ?.split(';')[0];
      if (cookie) await saveSession({ server: session.server, cookie });
      printLine('Password changed');
    });
}
