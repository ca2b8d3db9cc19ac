// Non-interactive use from a service account token: `--token <token>` or GRAPHDB_ADMIN_TOKEN, sent as
// `Authorization: Bearer`. The token is held in memory for the run only; the CLI never writes it to a file.
import { CliError, EXIT } from './cli-errors.js';
import { activeContextName, loadConfig } from './session-file.js';

let tokenOverride: string | undefined;

/** `--token <token>` for this run. */
export function setTokenOverride(token: string | undefined): void {
  tokenOverride = token;
}

/** The token this run authenticates with, if any: `--token`, else GRAPHDB_ADMIN_TOKEN. */
export function runToken(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const token = tokenOverride ?? env.GRAPHDB_ADMIN_TOKEN;
  return token === undefined || token.trim() === '' ? undefined : token.trim();
}

/** Where a token is sent: GRAPHDB_ADMIN_URL, else the active context's server (the config file is only read). */
export async function tokenServer(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.GRAPHDB_ADMIN_URL) return env.GRAPHDB_ADMIN_URL;
  const config = await loadConfig();
  const name = activeContextName(config);
  const server = name === undefined ? undefined : config.contexts[name]?.server;
  if (!server)
    throw new CliError(
      EXIT.usage,
      'which server? with a token, set GRAPHDB_ADMIN_URL or create a context with `graphdb-admin config set-context`',
    );
  return server;
}

export const TOKEN_REFUSED = 'token refused: it is invalid, expired or revoked, or its service account is disabled';
