// Group lookups at the identity providers, for role mapping: alpha's directory (a service account with
// domain-wide delegation, RS256 JWT assertion, then the Directory API's groups list) and beta's Graph
// (client-credentials token, then the user's transitive group memberships). Tokens are cached until they
// expire; every page is followed.
import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';

export const DIRECTORY_SCOPES = [
  'https://www.googleapis.com/auth/admin.directory.group.readonly',
  'https://www.googleapis.com/auth/admin.directory.group.member.readonly',
];
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const MAX_PAGES = 100;

export class GroupLookupError extends Error {
  constructor(
    message: string,
    /** What the operator most likely has to fix. */
    readonly likelyCause: string,
  ) {
    super(message);
    this.name = 'GroupLookupError';
  }
}

interface CachedToken {
  value: string;
  expiresAt: number;
}

export interface ServiceAccountKey {
  clientEmail: string;
  privateKeyPem: string;
  tokenUri: string;
}

/** The Secret's `private_key`: the full service-account JSON, or a bare PEM with the e-mail from settings. */
export function parseServiceAccountKey(secret: string, serviceAccountEmail: string): ServiceAccountKey {
  const trimmed = secret.trim();
  if (trimmed.startsWith('{')) {
    const json = JSON.parse(trimmed) as { client_email?: string; private_key?: string; token_uri?: string };
    if (!json.client_email || !json.private_key)
      throw new GroupLookupError(
        'the service-account JSON lacks client_email or private_key',
        'the private_key Secret holds an incomplete key',
      );
    return {
      clientEmail: json.client_email,
      privateKeyPem: json.private_key,
      tokenUri: json.token_uri ?? GOOGLE_TOKEN_URI,
    };
  }
  if (!serviceAccountEmail)
    throw new GroupLookupError(
      'a PEM key needs alpha_workspace.service_account_email',
      'set alpha_workspace.service_account_email or store the full service-account JSON',
    );
  return { clientEmail: serviceAccountEmail, privateKeyPem: trimmed, tokenUri: GOOGLE_TOKEN_URI };
}

const errorCode = (body: Record<string, unknown>) =>
  [body.error, body.error_description].filter((part): part is string => typeof part === 'string').join(': ');

async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

async function getJson(url: string, accessToken: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

export function createGroupDirectories(options: {
  directoryUrl: string;
  graphUrl: string;
  betaAuthority: string;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const tokens = new Map<string, CachedToken>();

  async function cachedToken(
    key: string,
    fetchToken: () => Promise<{ accessToken: string; expiresIn: number }>,
  ): Promise<string> {
    const cached = tokens.get(key);
    if (cached && cached.expiresAt > now() + 30_000) return cached.value;
    const fresh = await fetchToken();
    tokens.set(key, { value: fresh.accessToken, expiresAt: now() + fresh.expiresIn * 1000 });
    return fresh.accessToken;
  }

  return {
    /** Alpha: the e-mail addresses of every group `userEmail` belongs to. */
    async alphaGroups(key: ServiceAccountKey, adminEmail: string, userEmail: string): Promise<string[]> {
      const accessToken = await cachedToken(`alpha|${key.clientEmail}|${adminEmail}`, async () => {
        const issuedAt = Math.floor(now() / 1000);
        const assertion = await new SignJWT({ scope: DIRECTORY_SCOPES.join(' ') })
          .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
          .setIssuer(key.clientEmail)
          .setSubject(adminEmail)
          .setAudience(key.tokenUri)
          .setIssuedAt(issuedAt)
          .setExpirationTime(issuedAt + 3600)
          .sign(createPrivateKey(key.privateKeyPem));
        const res = await postForm(key.tokenUri, {
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion,
        });
        if (res.status !== 200 || typeof res.body.access_token !== 'string') {
          throw new GroupLookupError(
            `the token endpoint answered ${res.status} ${errorCode(res.body)}`,
            'domain-wide delegation is not granted for the directory scopes, or the service-account key is wrong',
          );
        }
        return { accessToken: res.body.access_token, expiresIn: Number(res.body.expires_in ?? 3600) };
      });
      const groups: string[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const url = new URL(`${options.directoryUrl}/admin/directory/v1/groups`);
        url.searchParams.set('userKey', userEmail);
        if (pageToken) url.searchParams.set('pageToken', pageToken);
        const res = await getJson(url.toString(), accessToken);
        if (res.status !== 200)
          throw new GroupLookupError(
            `the Directory API answered ${res.status}`,
            'the Directory API is not enabled for the project, or delegation lacks the group scopes',
          );
        for (const group of (res.body.groups as { email?: string }[] | undefined) ?? [])
          if (group.email) groups.push(group.email);
        pageToken = typeof res.body.nextPageToken === 'string' ? res.body.nextPageToken : undefined;
        if (!pageToken) break;
      }
      return groups;
    },

    /** Beta: the ids of every group (transitively) holding the user `objectId`. */
    async betaGroups(tenantId: string, clientId: string, clientSecret: string, objectId: string): Promise<string[]> {
      const accessToken = await cachedToken(`beta|${tenantId}|${clientId}`, async () => {
        const res = await postForm(`${options.betaAuthority}/${tenantId}/oauth2/v2.0/token`, {
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
          scope: `${options.graphUrl}/.default`,
        });
        if (res.status !== 200 || typeof res.body.access_token !== 'string') {
          throw new GroupLookupError(
            `the token endpoint answered ${res.status} ${errorCode(res.body)}`,
            'the app registration lacks a valid client secret',
          );
        }
        return { accessToken: res.body.access_token, expiresIn: Number(res.body.expires_in ?? 3600) };
      });
      const groups: string[] = [];
      let next: string | undefined =
        `${options.graphUrl}/v1.0/users/${encodeURIComponent(objectId)}/transitiveMemberOf/microsoft.graph.group?$select=id,displayName`;
      for (let page = 0; next && page < MAX_PAGES; page++) {
        const res = await getJson(next, accessToken);
        if (res.status !== 200)
          throw new GroupLookupError(
            `Microsoft Graph answered ${res.status}`,
            'the app lacks GroupMember.Read.All (and Group.Read.All or Directory.Read.All) with admin consent',
          );
        for (const group of (res.body.value as { id?: string }[] | undefined) ?? [])
          if (group.id) groups.push(group.id);
        next = typeof res.body['@odata.nextLink'] === 'string' ? res.body['@odata.nextLink'] : undefined;
      }
      return groups;
    },
  };
}

export type GroupDirectories = ReturnType<typeof createGroupDirectories>;
