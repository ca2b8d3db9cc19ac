// OpenID Connect relying-party operations with openid-client: discovery (cached per issuer, client and secret,
// so a rotated secret or changed settings get a fresh configuration), the authorization URL with state, nonce and
// PKCE S256, and the code exchange with ID-token validation. openid-client is imported at the first sign-in, not at
// start-up: a server without an identity provider never loads it.
import { createHash } from 'node:crypto';
import type * as OpenIdClient from 'openid-client';
import { PortError } from '../port-errors.js';

export interface ClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface AuthorizationRequest {
  redirectUri: string;
  scope: string;
  state: string;
  nonce: string;
  codeChallenge: string;
}

export interface CodeExchange {
  /** The redirect URI used in the authorization request: the token request must name the same one. */
  redirectUri: string;
  /** The callback's query string, as received. */
  callbackQuery: URLSearchParams;
  expectedState: string;
  expectedNonce: string;
  codeVerifier: string;
}

export interface VerifiedTokens {
  claims: Record<string, unknown>;
  accessToken: string;
}

/**
 * The provider could not be reached (discovery, or the token endpoint) or did not publish a usable configuration:
 * an outage, as opposed to a response that failed verification.
 */
export class IdentityProviderUnavailableError extends PortError {
  constructor(
    readonly issuer: string,
    options: { cause: unknown },
    step = 'OpenID discovery',
  ) {
    super(
      'unavailable',
      `${step} at ${issuer} failed: ${options.cause instanceof Error ? options.cause.message : String(options.cause)}`,
      options,
    );
    this.name = 'IdentityProviderUnavailableError';
  }
}

/** A request that got no HTTP answer at all (refused, reset, unresolvable, timed out), anywhere in the cause chain. */
function isNetworkFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof TypeError && current.message === 'fetch failed') return true;
    const code = (current as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|UND_ERR_)/.test(code)
    )
      return true;
  }
  return false;
}

/** Plain http is allowed only for loopback issuers (test identity providers), never for real ones. */
function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

let openIdClient: Promise<typeof OpenIdClient> | undefined;
const loadClient = () => (openIdClient ??= import('openid-client'));

export function createOidcClients() {
  const configurations = new Map<string, Promise<OpenIdClient.Configuration>>();

  async function configuration(settings: ClientSettings): Promise<OpenIdClient.Configuration> {
    const client = await loadClient();
    const key = createHash('sha256')
      .update(JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret]))
      .digest('hex');
    let pending = configurations.get(key);
    if (!pending) {
      pending = client
        .discovery(
          new URL(settings.issuer),
          settings.clientId,
          undefined,
          client.ClientSecretPost(settings.clientSecret),
          {
            // Verify the ID token's signature against the provider's keys too (openid-client otherwise relies on TLS
            // to the token endpoint alone), so a token signed by any other key is refused.
            execute: isLoopbackHttp(settings.issuer)
              ? [client.allowInsecureRequests, client.enableNonRepudiationChecks]
              : [client.enableNonRepudiationChecks],
          },
        )
        .catch((error: unknown) => {
          throw new IdentityProviderUnavailableError(settings.issuer, { cause: error });
        });
      configurations.set(key, pending);
      // A failed discovery is not cached: the next sign-in tries again.
      pending.catch(() => configurations.delete(key));
    }
    return pending;
  }

  return {
    randomPkce: async () => (await loadClient()).randomPKCECodeVerifier(),
    challengeFor: async (verifier: string) => (await loadClient()).calculatePKCECodeChallenge(verifier),
    randomState: async () => (await loadClient()).randomState(),
    randomNonce: async () => (await loadClient()).randomNonce(),

    async authorizationUrl(settings: ClientSettings, request: AuthorizationRequest): Promise<string> {
      const config = await configuration(settings);
      const client = await loadClient();
      return client
        .buildAuthorizationUrl(config, {
          redirect_uri: request.redirectUri,
          scope: request.scope,
          state: request.state,
          nonce: request.nonce,
          code_challenge: request.codeChallenge,
          code_challenge_method: 'S256',
          response_type: 'code',
        })
        .toString();
    },

    async exchange(settings: ClientSettings, exchange: CodeExchange): Promise<VerifiedTokens> {
      const config = await configuration(settings);
      const client = await loadClient();
      const currentUrl = new URL(exchange.redirectUri);
      currentUrl.search = exchange.callbackQuery.toString();
      const tokens = await client
        .authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: exchange.codeVerifier,
          expectedState: exchange.expectedState,
          expectedNonce: exchange.expectedNonce,
          idTokenExpected: true,
        })
        .catch((error: unknown) => {
          throw isNetworkFailure(error)
            ? new IdentityProviderUnavailableError(settings.issuer, { cause: error }, 'The code exchange')
            : error;
        });
      const claims = tokens.claims();
      if (!claims) throw new Error('the token response carried no ID token');
      return { claims: { ...claims }, accessToken: tokens.access_token };
    },
  };
}

export type OidcClients = ReturnType<typeof createOidcClients>;
