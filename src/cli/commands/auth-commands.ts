// login, logout, whoami.
import type { Command } from 'commander';
import { clientFor, readErrorMessage, signedInClient } from '../api-client.js';
import { CliError, EXIT, exitCodeForStatus } from '../cli-errors.js';
import { printJson, printLine, readStdin } from '../output.js';
import { deleteSession, loadSession, saveSession } from '../session-file.js';
import { promptHidden } from '../prompt.js';

interface UserView {
  email: string;
  name: string;
  role: string;
  provider: string;
  permissions: string[];
}

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
      const cookie = res.headers
        .getSetCookie()
        .find((line) => line.startsWith('token='))
        ?.split(';')[0];
      if (!cookie) throw new CliError(EXIT.other, 'the server did not set a session cookie');
      const { user } = (await res.json()) as { user: UserView };
      const file = await saveSession({ server: options.server, cookie });
      if (options.json) printJson({ user, sessionFile: file });
      else printLine(`Signed in as ${user.email} (${user.role}); session saved in ${file}`);
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
      const { user } = await client.call<{ user: UserView }>('GET', '/api/auth/validate');
      if (options.json) printJson({ user, server: client.server });
      else printLine(`${user.email} (${user.name}), role ${user.role}, via ${user.provider}, on ${client.server}`);
    });
}
