// The OAuth sign-in flow for providers alpha and beta: start (redirect to the provider with state, nonce and
// PKCE) and callback (state check, code exchange with ID-token validation, sign-in policy, user and session).
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import {
  IdentityProviderUnavailableError,
  type ClientSettings,
  type OidcClients,
} from '../../platform/oidc/oidc-clients.js';
import {
  GroupLookupError,
  parseServiceAccountKey,
  type GroupDirectories,
} from '../../platform/oidc/group-directories.js';
import { HttpError, MisconfiguredError, NotFoundError } from '../../http/http-errors.js';
import type { AdminContext } from '../context.js';
import type { CookieToSet } from '../cookies.js';
import type { Settings } from '../settings/schemas.js';
import type { StoredUser } from '../users/user-store.js';
import { resolveProvider, type ProviderConfig, type ProviderId } from './providers.js';
import {
  assertDomainAllowed,
  identityFrom,
  mayLinkByEmail,
  resolveSignInRole,
  safeReturnTo,
  SignInRefused,
  type Claims,
} from './sign-in-policy.js';
import { clearedStateCookie, GENERIC_CALLBACK_PATH, readStateCookie, stateCookie } from './state-cookie.js';
import type { OneTimeCodes } from '../../platform/stores/one-time-codes.js';
import { CLI_CODE_TTL_MS, codeKey, newCode, verifierMatches, type CliSignIn } from './loopback.js';

const SCOPES: Record<ProviderId, string> = {
  alpha: 'openid email profile',
  beta: 'openid profile email offline_access User.Read',
};

const GROUP_CACHE_MS = 5 * 60_000;

/** What a step of the flow asks the route to do: set these cookies and redirect to `location`. */
export interface SignInStep {
  cookies: CookieToSet[];
  location: string;
  /** Who signed in (the audit log's actor). */
  email?: string;
}

/** The parts of the admin context a sign-in reads and writes: nothing else of it. */
export type OAuthContext = Pick<AdminContext, 'namespace' | 'oauthEnv' | 'rbac' | 'sessions' | 'settings' | 'users'>;

export interface OAuthOptions {
  context: OAuthContext;
  /** The CLI sign-in's one-time codes (shared by the replicas when there is a shared store). */
  codes: OneTimeCodes;
  clients: OidcClients;
  directories: GroupDirectories;
  endpoints: Config['oauthEndpoints'];
  publicOrigin: string;
  sessionSecret: string | undefined;
  logger: FastifyBaseLogger;
  now: () => number;
}

export function createOAuthService(options: OAuthOptions) {
  const { context, clients } = options;
  const secure = !options.publicOrigin.startsWith('http://');

  function stateSecret(): string {
    if (!options.sessionSecret) throw new MisconfiguredError('Server configuration error: SESSION_SECRET not set');
    return options.sessionSecret;
  }

  /** A provider that cannot be reached is an outage (503), not a refusal; local sign-in is unaffected. */
  function unreachable(type: ProviderId, error: IdentityProviderUnavailableError): string {
    options.logger.warn(
      { provider: type, issuer: error.issuer, reason: error.message },
      `OAuth provider ${type} cannot be reached`,
    );
    return `OAuth provider ${type} cannot be reached; try again later`;
  }

  function issuerOf(provider: ProviderConfig): string {
    return provider.type === 'alpha'
      ? options.endpoints.alphaIssuer
      : `${options.endpoints.betaAuthority}/${provider.tenantId}/v2.0`;
  }

  function redirectUriOf(provider: ProviderConfig): string {
    return provider.redirectUri || `${options.publicOrigin}/api/auth/oauth/${provider.type}/callback`;
  }

  async function enabledProvider(type: ProviderId): Promise<{ provider: ProviderConfig; settings: Settings }> {
    const settings = await context.settings.current();
    const provider = resolveProvider(type, settings, context.oauthEnv);
    if (!provider || !settings.features.oauth2_enabled)
      throw new NotFoundError(`OAuth provider ${type} is not configured`);
    return { provider, settings };
  }

  /** The client secret, read at request time so a rotated Secret applies at once; misconfiguration is explained in the log. */
  async function clientSettings(provider: ProviderConfig): Promise<ClientSettings> {
    let clientSecret: string | undefined;
    if ('value' in provider.clientSecret) clientSecret = provider.clientSecret.value;
    else {
      const ref = provider.clientSecret.secretRef;
      clientSecret = await context.settings.secretValue(ref, 'client_secret');
      if (!clientSecret) {
        options.logger.error(
          { provider: provider.type, secret: ref, namespace: context.namespace },
          `OAuth provider ${provider.type}: Secret ${ref} is missing in namespace ${context.namespace} or has no data key client_secret`,
        );
        throw new MisconfiguredError(`OAuth provider ${provider.type} is misconfigured`);
      }
    }
    return { issuer: issuerOf(provider), clientId: provider.clientId, clientSecret };
  }

  const groupCache = new Map<string, { groups: string[]; expiresAt: number }>();

  /** Groups for role mapping; a failed lookup is logged with its likely cause and counts as no groups. */
  async function groupsOf(
    provider: ProviderConfig,
    settings: Settings,
    claims: Claims,
    identity: ReturnType<typeof identityFrom>,
  ): Promise<string[]> {
    const overage =
      typeof claims._claim_names === 'object' && claims._claim_names !== null && 'groups' in claims._claim_names;
    if (provider.type === 'beta' && Array.isArray(claims.groups) && !overage) return claims.groups.map(String);
    const cacheKey = `${provider.type}|${identity.subject}`;
    const cached = groupCache.get(cacheKey);
    if (cached && cached.expiresAt > options.now()) return cached.groups;
    try {
      let groups: string[];
      if (provider.type === 'alpha') {
        const workspace = settings.alpha_workspace;
        if (!workspace.admin_email || !workspace.private_key_secret_ref)
          throw new GroupLookupError(
            'alpha_workspace is not configured',
            'set alpha_workspace.admin_email and private_key_secret_ref',
          );
        const secret = await context.settings.secretValue(workspace.private_key_secret_ref, 'private_key');
        if (!secret)
          throw new GroupLookupError(
            `Secret ${workspace.private_key_secret_ref} has no data key private_key`,
            `store the service-account key in Secret ${workspace.private_key_secret_ref} under private_key`,
          );
        groups = await options.directories.alphaGroups(
          parseServiceAccountKey(secret, workspace.service_account_email),
          workspace.admin_email,
          identity.email,
        );
      } else {
        const client = await clientSettings(provider);
        groups = await options.directories.betaGroups(
          provider.tenantId!,
          provider.clientId,
          client.clientSecret,
          identity.subject.split(':')[1] ?? '',
        );
      }
      groupCache.set(cacheKey, { groups, expiresAt: options.now() + GROUP_CACHE_MS });
      return groups;
    } catch (error) {
      const cause = error instanceof GroupLookupError ? error.likelyCause : 'the group directory could not be reached';
      options.logger.warn(
        { provider: provider.type, reason: (error as Error).message, likelyCause: cause },
        `group lookup failed for ${identity.email}; continuing without groups`,
      );
      return [];
    }
  }

  async function findOrOnboard(
    type: ProviderId,
    settings: Settings,
    identity: ReturnType<typeof identityFrom>,
    role: StoredUser['role'] | undefined,
  ): Promise<StoredUser> {
    const users = await context.users.list();
    const linked = users.find((user) => user.identities?.[type] === identity.subject);
    const sameEmail = users.find((user) => user.email.toLowerCase() === identity.email.toLowerCase());
    if (!linked && sameEmail && !identity.emailVerified) {
      // Linking on an e-mail the provider does not vouch for would let anyone claim that account.
      throw new SignInRefused(
        403,
        'email_not_verified',
        `Email ${identity.email} belongs to an existing account and is not verified by the identity provider`,
      );
    }
    if (!linked && sameEmail && !mayLinkByEmail(sameEmail, type)) {
      // A verified e-mail is not enough to take over a password account (the local admin) or another provider's.
      options.logger.warn(
        { provider: type, user: sameEmail.id, accountProvider: sameEmail.provider },
        'OAuth sign-in refused: the e-mail belongs to an account this provider may not link',
      );
      throw new SignInRefused(
        403,
        'account_not_linkable',
        `Email ${identity.email} belongs to an existing account that cannot sign in with ${type}`,
      );
    }
    const existing = linked ?? sameEmail;
    if (existing) {
      if (existing.disabled) throw new SignInRefused(403, 'user_disabled', `User ${identity.email} is disabled`);
      return context.users.recordOAuthSignIn(existing.id, type, identity.subject, role);
    }
    if (!settings.features.self_service_onboarding)
      throw new SignInRefused(403, 'not_registered', `User ${identity.email} is not registered`);
    const created = await context.users.create({
      email: identity.email,
      name: identity.name,
      role: role ?? 'viewer',
      provider: type,
      identities: { [type]: identity.subject },
    });
    return context.users.recordOAuthSignIn(created.id, type, identity.subject, undefined);
  }

  return {
    /**
     * Exchanges a CLI's one-time code for a session (RFC 8252 with PKCE): the code is taken from the store whatever
     * happens next (single use), and must be unexpired and bound to `codeVerifier`'s challenge. Every refusal is the
     * same 400, so an attempt learns nothing about which check failed.
     */
    async exchangeCliCode(code: string, codeVerifier: string): Promise<{ cookies: CookieToSet[]; user: StoredUser }> {
      const refused = () => new HttpError(400, 'Invalid or expired sign-in code');
      const stored = await options.codes.take(codeKey(code));
      if (!stored) throw refused();
      const record = JSON.parse(stored) as { userId: string; challenge: string; expiresAt: number };
      if (record.expiresAt <= options.now() || !verifierMatches(codeVerifier, record.challenge)) throw refused();
      const user = await context.users.findById(record.userId);
      if (!user || user.disabled) throw refused();
      return { cookies: await context.sessions.start(user), user };
    },

    /** The provider GET /api/auth/oauth/callback (no provider segment) completes: OAUTH_PROVIDER, alpha when unset. */
    environmentProvider: context.oauthEnv.provider,

    /** Where to send the browser (the provider's authorization URL) and the state cookie its callback needs. */
    async start(type: ProviderId, returnTo: unknown, cli?: CliSignIn): Promise<SignInStep> {
      const { provider } = await enabledProvider(type);
      const client = await clientSettings(provider);
      const state = await clients.randomState();
      const nonce = await clients.randomNonce();
      const verifier = await clients.randomPkce();
      const url = await clients
        .authorizationUrl(client, {
          redirectUri: redirectUriOf(provider),
          scope: SCOPES[type],
          state,
          nonce,
          codeChallenge: await clients.challengeFor(verifier),
        })
        .catch((error: unknown) => {
          throw error instanceof IdentityProviderUnavailableError
            ? new HttpError(503, unreachable(type, error))
            : error;
        });
      // A redirect URI registered without the provider segment comes back to the generic callback: the cookie
      // must reach that path instead.
      const generic = new URL(redirectUriOf(provider)).pathname === GENERIC_CALLBACK_PATH;
      const cookie = await stateCookie(
        stateSecret(),
        { state, nonce, verifier, provider: type, returnTo: safeReturnTo(returnTo), ...(cli ? { cli } : {}) },
        secure,
        options.now(),
        generic,
      );
      return { cookies: [cookie], location: url };
    },

    /** The state cookie is single-use: its callback clears it whatever the outcome, so a replayed callback finds none. */
    clearedStateCookie(type: ProviderId, generic = false): CookieToSet {
      return clearedStateCookie(type, secure, generic);
    },

    /**
     * Completes the flow from the state cookie's value and the provider's answer: the session cookies and where to
     * send the browser. Throws SignInRefused or HttpError.
     */
    async callback(
      type: ProviderId,
      answer: { stateCookie: string | undefined; query: URLSearchParams },
    ): Promise<SignInStep> {
      const { query } = answer;
      const saved = await readStateCookie(answer.stateCookie, stateSecret(), type);
      if (!saved || query.get('state') !== saved.state)
        throw new SignInRefused(400, 'invalid_state', 'Invalid state parameter');
      const providerError = query.get('error');
      if (providerError) throw new SignInRefused(401, 'provider_error', `Sign-in was not completed: ${providerError}`);
      if (!query.get('code')) throw new SignInRefused(400, 'missing_code', 'Missing authorization code');

      const { provider, settings } = await enabledProvider(type);
      const client = await clientSettings(provider);
      let claims: Claims;
      try {
        claims = (
          await clients.exchange(client, {
            redirectUri: redirectUriOf(provider),
            callbackQuery: query,
            expectedState: saved.state,
            expectedNonce: saved.nonce,
            codeVerifier: saved.verifier,
          })
        ).claims;
      } catch (error) {
        if (error instanceof IdentityProviderUnavailableError)
          throw new SignInRefused(503, 'provider_unavailable', unreachable(type, error));
        options.logger.warn(
          { provider: type, reason: (error as Error).message },
          'OAuth code exchange or ID token validation failed',
        );
        throw new SignInRefused(
          401,
          'verification_failed',
          'Sign-in failed: the identity provider response could not be verified',
        );
      }

      const identity = identityFrom(provider, claims, settings);
      try {
        assertDomainAllowed(identity.email, settings);
        const { config: rbac } = await context.rbac.current();
        // Groups are looked up only when something reads them: the role path, or the group mappings.
        const groups =
          settings.oauth.role_attribute_path.includes('groups') || rbac.groupMappings.length > 0
            ? await groupsOf(provider, settings, claims, identity)
            : [];
        const profile = { ...claims, groups };
        const role = resolveSignInRole(settings.oauth.role_attribute_path, profile, groups, rbac);
        if (!role && settings.oauth.role_attribute_strict)
          throw new SignInRefused(403, 'no_role', `No valid role found for ${identity.email}`);
        const user = await findOrOnboard(type, settings, identity, role);
        if (saved.cli) {
          // A native client's sign-in: the browser gets no session; the CLI gets a one-time code for its own.
          const code = newCode();
          await options.codes.put(
            codeKey(code),
            JSON.stringify({
              userId: user.id,
              challenge: saved.cli.challenge,
              expiresAt: options.now() + CLI_CODE_TTL_MS,
            }),
            CLI_CODE_TTL_MS,
          );
          const location = new URL(saved.cli.redirect);
          location.searchParams.set('code', code);
          location.searchParams.set('state', saved.cli.state);
          return { cookies: [], location: location.toString(), email: user.email };
        }
        return { cookies: await context.sessions.start(user), location: saved.returnTo, email: user.email };
      } catch (error) {
        // The audit log names the verified identity that was refused.
        if (error instanceof SignInRefused) error.email ??= identity.email;
        throw error;
      }
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
