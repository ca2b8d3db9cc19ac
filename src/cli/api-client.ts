// HTTP calls to the admin API with the stored session cookie; failures become CliErrors with the server's message.
import { CliError, EXIT, exitCodeForStatus } from './cli-errors.js';
import { loadSession, type StoredSession } from './session-file.js';

export interface ApiClient {
  server: string;
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** The answer itself (its headers too), once it is known to be a success. */
  raw(method: string, path: string, body?: unknown): Promise<Response>;
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

export function clientFor(session: StoredSession): ApiClient {
  const client: ApiClient = {
    server: session.server,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await client.raw(method, path, body);
      if (res.status === 204) return undefined as T;
      return (await res.json()) as T;
    },
    async raw(method: string, path: string, body?: unknown): Promise<Response> {
      let res: Response;
      try {
        res = await fetch(new URL(path, session.server), {
          method,
          headers: {
            cookie: session.cookie,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        throw new CliError(EXIT.other, `cannot reach ${session.server}: ${(error as Error).message}`);
      }
      if (!res.ok) throw new CliError(exitCodeForStatus(res.status), await readErrorMessage(res));
      return res;
    },
  };
  return client;
}

export async function signedInClient(): Promise<ApiClient> {
  const session = await loadSession();
  if (!session) throw new CliError(EXIT.auth, 'Not signed in: run `graphdb-admin login --server <url>` first');
  return clientFor(session);
}
