// A real OpenID Connect provider (oidc-provider) on loopback, standing in for provider alpha (issuer at the root)
// or beta (issuer mounted at /<tenant>/v2.0), with its development login and consent forms.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { decodeJwt, importJWK, SignJWT, type JWK } from 'jose';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/** Rewrites the ID token of the next token responses: changed claims, and optionally a key the provider never published. */
export interface IdTokenTamper {
  claims?: (claims: Record<string, unknown>) => Record<string, unknown>;
  foreignKey?: boolean;
}

export interface IdentityProvider {
  issuer: string;
  tamper: IdTokenTamper | undefined;
  /** The origin, without the mount path (beta's authority). */
  origin: string;
  accounts: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

/** `port`: listen there (e.g. where an issuer was configured before the provider came up); a free one by default. */
export async function startIdentityProvider(options: {
  mountPath?: string;
  clients: TestClient[];
  extraRoutes?: (req: IncomingMessage, res: ServerResponse) => boolean;
  port?: number;
}): Promise<IdentityProvider> {
  const mountPath = options.mountPath ?? '';
  const accounts = new Map<string, Record<string, unknown>>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${mountPath}`;

  // Our own signing key, so a test can mint ID tokens the provider would have signed, with altered claims.
  const signingJwk = {
    ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK),
    kid: 'test-key',
    alg: 'RS256',
    use: 'sig',
  };
  const foreignJwk = {
    ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK),
    kid: 'test-key',
    alg: 'RS256',
  };
  const state: { tamper: IdTokenTamper | undefined } = { tamper: undefined };

  async function rewrite(body: string): Promise<string> {
    const tamper = state.tamper;
    const response = JSON.parse(body) as { id_token?: string };
    if (!tamper || !response.id_token) return body;
    const claims = tamper.claims ? tamper.claims(decodeJwt(response.id_token)) : decodeJwt(response.id_token);
    const key = await importJWK(tamper.foreignKey ? foreignJwk : signingJwk, 'RS256');
    response.id_token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key', typ: 'JWT' })
      .sign(key);
    return JSON.stringify(response);
  }

  const provider = new Provider(issuer, {
    jwks: { keys: [signingJwk] },
    clients: options.clients.map((client) => ({
      ...client,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    findAccount: (_ctx, id) => {
      const claims = accounts.get(id);
      return claims ? { accountId: id, claims: () => ({ sub: id, ...claims }) } : undefined;
    },
    claims: {
      openid: ['sub', 'hd', 'tid', 'oid', 'groups', 'xms_edov', '_claim_names'],
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
    if (options.extraRoutes?.(req, res)) return;
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
    if (state.tamper && req.method === 'POST' && req.url?.startsWith('/token')) {
      // Intercept the token response once it is complete, and rewrite its ID token.
      const end = res.end.bind(res);
      const chunks: Buffer[] = [];
      res.write = ((chunk: Buffer | string) => {
        chunks.push(Buffer.from(chunk));
        return true;
      }) as typeof res.write;
      res.end = ((chunk?: Buffer | string) => {
        if (chunk) chunks.push(Buffer.from(chunk));
        void rewrite(Buffer.concat(chunks).toString('utf8')).then((body) => {
          res.removeHeader('content-length');
          end(body);
        });
        return res;
      }) as typeof res.end;
    }
    void handler(req, res);
  });

  return {
    issuer,
    origin,
    accounts,
    get tamper() {
      return state.tamper;
    },
    set tamper(value) {
      state.tamper = value;
    },
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
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), cookie: cookieHeader() },
    });
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
    if (res.status !== 200 || !action || !prompt)
      throw new Error(`unexpected page at the identity provider (${res.status}): ${html.slice(0, 300)}`);
    url = new URL(action.replace(/&amp;/g, '&'), url);
    const form = new URLSearchParams({
      prompt,
      ...(prompt === 'login' ? { login: accountId, password: 'any-password' } : {}),
    });
    init = { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('the identity provider did not redirect back');
}
