// Loopback doubles of the group directories: Google's token endpoint (checks the RS256 service-account assertion
// as Google does) and Directory API, and Microsoft's client-credentials token endpoint and Graph, each checking
// bearer tokens and paging one group per page so that paging is exercised.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';

export const SERVICE_ACCOUNT = 'groups-reader@project.iam.gserviceaccount.com';
const SCOPES =
  'https://www.googleapis.com/auth/admin.directory.group.readonly https://www.googleapis.com/auth/admin.directory.group.member.readonly';

export interface GroupDoubles {
  url: string;
  /** The service-account JSON key to store in the `private_key` Secret. */
  serviceAccountJson: string;
  /** alpha: user e-mail → group e-mails; beta: object id → group ids. */
  alphaGroups: Map<string, string[]>;
  betaGroups: Map<string, string[]>;
  tokenRequests: { alpha: number; beta: number };
  /** Answers Microsoft's token requests made to the beta identity provider's origin. */
  microsoftTokenRoute(
    tenant: string,
    clientId: string,
    clientSecret: string,
    graphUrl: () => string,
  ): (req: IncomingMessage, res: ServerResponse) => boolean;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startGroupDoubles(): Promise<GroupDoubles> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued = new Set<string>();
  const alphaGroups = new Map<string, string[]>();
  const betaGroups = new Map<string, string[]>();
  const tokenRequests = { alpha: 0, beta: 0 };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokenUri = `${url}/google/token`;
  const bearerOk = (req: IncomingMessage) => issued.has((req.headers.authorization ?? '').replace(/^Bearer /, ''));
  const issue = () => {
    const token = randomUUID();
    issued.add(token);
    return token;
  };

  server.on('request', (req, res) => {
    const target = new URL(req.url ?? '/', url);
    void (async () => {
      if (req.method === 'POST' && target.pathname === '/google/token') {
        tokenRequests.alpha++;
        const body = await form(req);
        if (body.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
          return send(res, 400, { error: 'unsupported_grant_type' });
        try {
          const { payload } = await jwtVerify(body.get('assertion') ?? '', publicKey, {
            algorithms: ['RS256'],
            issuer: SERVICE_ACCOUNT,
            audience: tokenUri,
          });
          if (
            payload.scope !== SCOPES ||
            !payload.sub ||
            !payload.exp ||
            !payload.iat ||
            payload.exp - payload.iat > 3600
          )
            throw new Error('bad claims');
        } catch (error) {
          return send(res, 400, { error: 'invalid_grant', error_description: (error as Error).message });
        }
        return send(res, 200, { access_token: issue(), expires_in: 3600, token_type: 'Bearer' });
      }
      if (req.method === 'GET' && target.pathname === '/admin/directory/v1/groups') {
        if (!bearerOk(req)) return send(res, 401, { error: { code: 401 } });
        const all = alphaGroups.get(target.searchParams.get('userKey') ?? '') ?? [];
        const index = Number(target.searchParams.get('pageToken') ?? 0);
        const page = all.slice(index, index + 1).map((email) => ({ email }));
        return send(res, 200, {
          groups: page,
          ...(index + 1 < all.length ? { nextPageToken: String(index + 1) } : {}),
        });
      }
      const graph = /^\/v1\.0\/users\/([^/]+)\/transitiveMemberOf\/microsoft\.graph\.group$/.exec(target.pathname);
      if (req.method === 'GET' && graph) {
        if (!bearerOk(req)) return send(res, 401, { error: { code: 'InvalidAuthenticationToken' } });
        const all = betaGroups.get(decodeURIComponent(graph[1]!)) ?? [];
        const index = Number(target.searchParams.get('$skiptoken') ?? 0);
        const next = new URL(target);
        next.searchParams.set('$skiptoken', String(index + 1));
        return send(res, 200, {
          value: all.slice(index, index + 1).map((id) => ({ id, displayName: id })),
          ...(index + 1 < all.length ? { '@odata.nextLink': next.toString() } : {}),
        });
      }
      send(res, 404, { error: 'not found' });
    })();
  });

  return {
    url,
    serviceAccountJson: JSON.stringify({
      type: 'service_account',
      client_email: SERVICE_ACCOUNT,
      private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      token_uri: tokenUri,
    }),
    alphaGroups,
    betaGroups,
    tokenRequests,
    microsoftTokenRoute: (tenant, clientId, clientSecret, graphUrl) => (req, res) => {
      if (req.method !== 'POST' || req.url !== `/${tenant}/oauth2/v2.0/token`) return false;
      void form(req).then((body) => {
        tokenRequests.beta++;
        if (
          body.get('grant_type') !== 'client_credentials' ||
          body.get('client_id') !== clientId ||
          body.get('client_secret') !== clientSecret
        )
          return send(res, 401, { error: 'invalid_client' });
        if (body.get('scope') !== `${graphUrl()}/.default`) return send(res, 400, { error: 'invalid_scope' });
        send(res, 200, { access_token: issue(), expires_in: 3599, token_type: 'Bearer' });
      });
      return true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
