// A real OpenID Connect provider (oidc-provider) on loopback, standing in for provider alpha (issuer at the root)
// or beta (issuer mounted at /<tenant>/v2.0), with its development login and consent forms.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

export interface IdentityProvider {
  issuer: string;
  /** The origin, without the mount path (beta's authority). */
  origin: string;
  accounts: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startIdentityProvider(options: { mountPath?: string; clients: TestClient[] }): Promise<IdentityProvider> {
  const mountPath = options.mountPath ?? '';
  const accounts = new Map<string, Record<string, unknown>>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${mountPath}`;

  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({ ...client, grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' })),
    findAccount: (_ctx, id) => {
      const claims = accounts.get(id);
      return claims ? { accountId: id, claims: () => ({ sub: id, ...claims }) } : undefined;
    },
    claims: {
      openid: ['sub', 'hd', 'tid', 'oid', 'groups', 'xms_edov'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
    },
    scopes: ['openid', 'email', 'profile', 'offline_access', 'User.Read'],
    // Put the scopes' claims into the ID token, as Google and Entra do.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['identity-provider-test-key'] },
  });
  provider.on('server_error', () => undefined);
  const handler = provider.callback();
  server.on('request', (req, res) => {
    if (mountPath) {
      if (!req.url?.startsWith(mountPath)) {
        res.statusCode = 404;
        res.end();
        return;
      }
      // Mounted the way Express mounts it: oidc-provider builds its own URLs from originalUrl.
      (req as typeof req & { originalUrl?: string }).originalUrl = req.url;
      req.url = req.url.slice(mountPath.length) || '/';
    }
    void handler(req, res);
  });

  return {
    issuer,
    origin,
    accounts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Plays the browser at the provider: follows redirects carrying the provider's cookies, submits the login form
 * for `accountId` and the consent form, and stops at the first redirect to `redirectUri`, which it returns.
 */
export async function signInAtProvider(authorizeUrl: string, redirectUri: string, accountId: string): Promise<URL> {
  const jar = new Map<string, string>();
  const cookieHeader = () => [...jar.entries()].map(([name, value]) => `${name}=${value}`).join('; ');
  let url = new URL(authorizeUrl);
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string> | undefined), cookie: cookieHeader() } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      jar.set(name!.trim(), value.join('='));
    }
    init = {};
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url);
      if (next.toString().startsWith(redirectUri)) return next;
      url = next;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || !prompt) throw new Error(`unexpected page at the identity provider (${res.status}): ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url);
    const form = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login: accountId, password: 'any-password' } : {}) });
    init = { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('the identity provider did not redirect back');
}
