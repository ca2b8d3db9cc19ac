// login, logout, whoami.
import { Option, type Command } from 'commander';
import { signInThroughBrowser } from '../oauth-loopback.js';
import { parseDuration } from '../parsers.js';
import { clientFor, readErrorMessage, send } from '../api-client.js';
import { CliError, EXIT, exitCodeForStatus } from '../cli-errors.js';
import { printLine, printResult, readStdin } from '../output.js';
import { activeContextName, deleteSession, loadConfig, loadSession, saveSession } from '../session-file.js';
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
    .description('Sign in with a local account and keep the session in the current context')
    .option(
      '--server <url>',
      "the admin server, e.g. http://localhost:3000 (env GRAPHDB_ADMIN_URL; default: the context's)",
    )
    .option('--url <url>', 'the same as --server')
    .option('--email <email>', 'account e-mail (env GRAPHDB_ADMIN_EMAIL; asked for when omitted)')
    .option(
      '--password-stdin',
      'read the password from standard input (else env GRAPHDB_ADMIN_PASSWORD, else a prompt)',
    )
    .addOption(
      new Option('--provider <provider>', "sign in through the organisation's identity provider in a browser").choices([
        'alpha',
        'beta',
      ]),
    )
    .option('--no-browser', 'with --provider: print the sign-in URL instead of opening a browser')
    .addOption(
      new Option('--timeout <duration>', 'with --provider: give up waiting for the browser after this long')
        .argParser(parseDuration)
        .default(parseDuration('5m'), '5m'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  graphdb-admin login --server http://localhost:3000 --email admin@corp.example\n  echo "$PASSWORD" | graphdb-admin login --server http://localhost:3000 --email admin@corp.example --password-stdin\n  graphdb-admin --context staging login   # the server of the context `staging`',
    )
    .action(
      async (options: {
        server?: string;
        url?: string;
        email?: string;
        passwordStdin?: boolean;
        provider?: string;
        browser: boolean;
        timeout: number;
      }) => {
        const config = await loadConfig();
        const contextName = activeContextName(config);
        const server =
          options.server ??
          options.url ??
          process.env.GRAPHDB_ADMIN_URL ??
          (contextName === undefined ? undefined : config.contexts[contextName]?.server);
        if (!server)
          throw new CliError(
            EXIT.usage,
            'which server? pass --server <url>, set GRAPHDB_ADMIN_URL, or create a context with `graphdb-admin config set-context`',
          );
        if (options.provider) {
          const { code, verifier } = await signInThroughBrowser(server, options.provider, {
            openBrowser: options.browser,
            timeoutMs: options.timeout,
          });
          const exchanged = await send(server, '/api/auth/oauth/cli/token', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ code, codeVerifier: verifier }),
          });
          if (!exchanged.ok) throw new CliError(exitCodeForStatus(exchanged.status), await readErrorMessage(exchanged));
          const { user } = (await exchanged.json()) as { user: { email: string; role: string } };
          const sessionCookie = exchanged.headers
            .getSetCookie()
            .find((line) => line.startsWith('token='))
            ?.split(';')[0];
          if (!sessionCookie) throw new CliError(EXIT.other, 'the server did not set a session cookie');
          const file = await saveSession({ server, cookie: sessionCookie });
          printResult({ user, sessionFile: file }, () =>
            printLine(
              `Signed in as ${user.email} (${user.role}) through ${options.provider}; session saved in ${file}`,
            ),
          );
          return;
        }
        const email =
          options.email ??
          process.env.GRAPHDB_ADMIN_EMAIL ??
          (await promptHidden('E-mail: ', false, 'pass --email or set GRAPHDB_ADMIN_EMAIL'));
        const password = options.passwordStdin
          ? await readStdin()
          : (process.env.GRAPHDB_ADMIN_PASSWORD ??
            (await promptHidden('Password: ', true, 'pass --password-stdin or set GRAPHDB_ADMIN_PASSWORD')));
        const res = await send(server, '/api/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password }),
        });
        if (!res.ok) throw new CliError(exitCodeForStatus(res.status), await readErrorMessage(res));
        // The body is the user and the session JWT (`token`), the same value as the cookie `token`.
        const { token, ...user } = (await res.json()) as UserView & { token?: string };
        const cookie =
          res.headers
            .getSetCookie()
            .find((line) => line.startsWith('token='))
            ?.split(';')[0] ?? (token ? `token=${token}` : undefined);
        if (!cookie) throw new CliError(EXIT.other, 'the server did not set a session cookie');
        const file = await saveSession({ server, cookie });
        printResult({ user, sessionFile: file }, () => {
          printLine(`Signed in as ${user.email} (${user.role}); session saved in ${file}`);
          if (user.mustChangePassword) printLine(PASSWORD_CHANGE_HINT);
        });
      },
    );

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
      printResult({ signedOut: true }, () => printLine('Signed out'));
    });

  program
    .command('whoami')
    .description('Show the signed-in user')
    .action(async () => {
      const session = await loadSession();
      if (!session) throw new CliError(EXIT.auth, 'Not signed in: run `graphdb-admin login --server <url>` first');
      const client = clientFor(session);
      const { user } = await client.call<{ valid: boolean; user: UserView }>('GET', '/api/auth/validate');
      printResult({ user, server: client.server, context: session.context }, () => {
        printLine(
          `${user.email} (${user.name ?? user.email}), role ${user.role}, via ${user.source}, on ${client.server} (context ${session.context})`,
        );
        if (user.mustChangePassword) printLine(PASSWORD_CHANGE_HINT);
      });
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
        currentPassword = await promptHidden('Current password: ', true, 'pass --password-stdin');
        newPassword = await promptHidden('New password: ', true, 'pass --password-stdin');
      }
      const res = await clientFor(session).raw(
        'PATCH',
        '/api/users/me/password',
        { currentPassword, newPassword },
        { unauthorizedIsNotExpiry: true },
      );
      // The server ends every other session of the user and renews this one.
      const cookie = res.headers
        .getSetCookie()
        .find((line) => line.startsWith('token='))
        ?.split(';')[0];
      if (cookie) await saveSession({ server: session.server, cookie });
      printResult({ passwordChanged: true }, () => printLine('Password changed'));
    });
}
