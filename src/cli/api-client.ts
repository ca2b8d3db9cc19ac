// HTTP calls to the admin API with the stored session cookie; failures become CliErrors with the server's message.
import { CliError, EXIT, connectionCause, exitCodeForStatus } from './cli-errors.js';
import { loadSession, type StoredSession } from './session-file.js';
import { runToken, TOKEN_REFUSED, tokenServer } from './token-auth.js';

export const SESSION_EXPIRED = 'session expired: run graphdb-admin login';

export interface CallOptions {
  /** Send this content type and raw body instead of JSON. */
  headers?: Record<string, string>;
  /** A 401 means the request itself was refused (a wrong current password), not that the session ended. */
  unauthorizedIsNotExpiry?: boolean;
  /** Hand back error answers too, instead of failing on them. */
  acceptErrors?: boolean;
}

export interface ApiClient {
  server: string;
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** The answer itself (its headers too), once it is known to be a success. */
  raw(method: string, path: string, body?: unknown, options?: CallOptions): Promise<Response>;
}

export async function readErrorMessage(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const json = JSON.parse(text) as { message?: unknown };
    if (typeof json.message === 'string') return json.message;
  } catch {
    // not JSON
  }
  return `${res.status} ${res.statusText}`;
}

/** fetch, with "cannot reach <server>: ECONNREFUSED 127.0.0.1:3000" when no answer came. */
export async function send(server: string, path: string, init: RequestInit): Promise<Response> {
  let url: URL;
  try {
    url = new URL(path, server);
  } catch {
    throw new CliError(EXIT.usage, `not a server URL: ${JSON.stringify(server)}`);
  }
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new CliError(EXIT.other, `cannot reach ${server}: ${connectionCause(error)}`);
  }
}

/** The CliError an error answer becomes: a 401 on a stored session means it expired; else the server's message. */
export async function errorFor(res: Response, options: CallOptions = {}): Promise<CliError> {
  if (res.status === 401 && !options.unauthorizedIsNotExpiry) {
    await res.body?.cancel();
    return new CliError(EXIT.auth, SESSION_EXPIRED);
  }
  const message = await readErrorMessage(res);
  return new CliError(exitCodeForStatus(res.status, message), inCliTerms(message));
}

/** API routes a server message may name, and the command that does the same. */
const ROUTE_COMMANDS: [RegExp, string][] = [
  [/\bGET \/api\/rbac\/roles\b/g, '`graphdb-admin rbac roles list`'],
  [/\bPOST \/api\/backups\/repositories\/?/g, '`graphdb-admin backups repos create`'],
  [/\bGET \/api\/users\/?(?=[\s).;,]|$)/g, '`graphdb-admin users list`'],
  [/\bGET \/api\/clusters\/?(?=[\s).;,]|$)/g, '`graphdb-admin deployments list`'],
  [/\bGET \/api\/settings\/?/g, '`graphdb-admin settings get`'],
];

/** The options of the command being run, so a body field the server names can be named as its flag. */
let currentFlags: ReadonlySet<string> = new Set();
export function setCommandFlags(flags: Iterable<string>): void {
  currentFlags = new Set(flags);
}

/**
 * A server message in the CLI's terms: a request path (`body.retention: Unrecognized key: "audit_days"`) becomes the
 * name the operator typed (`retention.audit_days: unknown name`, or `--backupName: …` when the command has that
 * flag), and an API route the command that does the same.
 */
export function inCliTerms(message: string): string {
  let text = message.replace(
    /\b(?:body|querystring)((?:\.[\w-]+)*): Unrecognized keys?: ((?:"[^"]*"(?:, )?)+)/g,
    (_all, where: string, keys: string) => {
      const names = [...keys.matchAll(/"([^"]*)"/g)].map(([, key]) => `${where.slice(1)}${where ? '.' : ''}${key}`);
      return `unknown name${names.length > 1 ? 's' : ''} ${names.join(', ')}`;
    },
  );
  text = text.replace(/\b(?:body|querystring)\.([\w-]+)((?:\.[\w-]+)*)(?=:)/g, (_all, field: string, rest: string) =>
    !rest && currentFlags.has(`--${field}`) ? `--${field}` : `${field}${rest}`,
  );
  for (const [route, command] of ROUTE_COMMANDS) text = text.replace(route, command);
  return text;
}

/** A client with the stored session's cookie, or with a service account token (token-auth.ts) as a bearer. */
export function clientFor(
  session: Pick<StoredSession, 'server'> & ({ cookie: string } | { token: string }),
): ApiClient {
  const identity: Record<string, string> =
    'token' in session ? { authorization: `Bearer ${session.token}` } : { cookie: session.cookie };
  const client: ApiClient = {
    server: session.server,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await client.raw(method, path, body);
      if (res.status === 204) return undefined as T;
      return (await res.json()) as T;
    },
    async raw(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Response> {
      const json = body !== undefined && options.headers?.['content-type'] === undefined;
      const res = await send(session.server, path, {
        method,
        headers: {
          ...identity,
          accept: 'application/json',
          ...(json ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        body: body === undefined ? undefined : json ? JSON.stringify(body) : (body as RequestInit['body']),
      });
      if (res.ok || options.acceptErrors) return res;
      if (res.status === 401 && 'token' in session && !options.unauthorizedIsNotExpiry) {
        await res.body?.cancel();
        throw new CliError(EXIT.auth, TOKEN_REFUSED);
      }
      throw await errorFor(res, options);
    },
  };
  return client;
}

export async function signedInClient(): Promise<ApiClient> {
  const token = runToken();
  if (token !== undefined) return clientFor({ server: await tokenServer(), token });
  const session = await loadSession();
  if (!session) throw new CliError(EXIT.auth, 'Not signed in: run `graphdb-admin login --server <url>` first');
  return clientFor(session);
}
