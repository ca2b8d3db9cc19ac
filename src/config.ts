// The one place that reads environment variables: a zod schema turns them into a frozen, typed Config. (one file because it is the one reader of the environment)
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  DNS_SUBDOMAIN_CHARACTERS,
  HELM_RELEASE_NAME,
  KUBERNETES_NAME,
  OBJECT_NAME_PREFIX,
} from './lib/kubernetes-names.js';
import { commaSeparated } from './lib/comma-list.js';
import { parseCorsOrigins } from './http/cors.js';
import { EmailSchema } from './lib/email.js';
import { parseUrlAllowlist } from './lib/url-allowlist.js';
import { parseAllowedTargets } from './platform/falkordb/target-guard.js';
import {
  BootstrapError,
  parseServiceAccountsBootstrap,
  type BootstrapAccount,
} from './lib/service-accounts-bootstrap.js';
import { isClusterUrl, isSentinelUrl, parseStoreUrl } from './platform/redis/store-url.js';
import type { KubernetesSource } from './platform/kubernetes/kube-config.js';
import type { TrustProxy } from './http/connection-share.js';

/** An optional text variable that `parse` must accept; what `parse` throws is the validation message. */
function parsedBy(parse: (text: string) => unknown) {
  return z
    .string()
    .optional()
    .superRefine((text, context) => {
      try {
        parse(text ?? '');
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    });
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const MIN_SECRET_LENGTH = 32;

const booleanFlag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no']))
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const portNumber = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export function parseTrustProxy(text: string | undefined): TrustProxy {
  const value = (text ?? '').trim();
  if (value === '' || value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > 32) throw new Error('TRUST_PROXY: a hop count is between 1 and 32');
    return hops;
  }
  const entries = commaSeparated(value);
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      extra !== undefined ||
      (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))
    ) {
      throw new Error(`TRUST_PROXY: ${JSON.stringify(entry)} is not an IP address or CIDR range (or give a hop count)`);
    }
  }
  return entries;
}

/** Seconds, written as a number of seconds or with a unit: `90s`, `30m`, `8h`, `1d`. */
const duration = z
  .string()
  .regex(/^\d+\s*[smhd]?$/i, 'must be a duration such as 3600, 30m, 8h or 1d')
  .transform((text) => {
    const unit = text.trim().slice(-1).toLowerCase();
    const factor = { s: 1, m: 60, h: 3600, d: 86_400 }[unit] ?? 1;
    return Number.parseInt(text, 10) * factor;
  })
  .pipe(
    z
      .number()
      .int()
      .min(60, 'must be at least one minute')
      .max(30 * 86_400, 'must be at most 30 days'),
  );

/** A ConfigMap or Secret name (DNS-1123 subdomain). */
const kubernetesObjectName = z
  .string()
  .max(253)
  .regex(DNS_SUBDOMAIN_CHARACTERS, 'must be a Kubernetes object name (lower-case letters, digits, `-` and `.`)');

const secret = z.string().min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters long`);

/** Every environment variable the server reads, with its default. docs/configuration.md documents each one (a test compares them). */
export const EnvSchema = z.object({
  PORT: portNumber.default(3000),
  /** Default: 127.0.0.1 in embedded mode (no TOKEN_STORE_URL), 0.0.0.0 otherwise. */
  HOST: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  LOG_FORMAT: z.enum(['auto', 'pretty', 'json']).default('auto'),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_ORIGIN: httpUrl
    .refine(
      (value) => new URL(value).origin === value.replace(/\/$/, ''),
      'must be an origin (scheme://host[:port]) without a path',
    )
    .optional(),
  AUTH_SECRET: secret.optional(),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 random bytes), e.g. from `openssl rand -hex 32`')
    .optional(),
  SESSION_SECRET: secret.optional(),
  TOKEN_STORE_URL: z
    .string()
    .refine(
      (url) => {
        try {
          parseStoreUrl(url);
        } catch {
          return false;
        }
        return (
          isSentinelUrl(url) || isClusterUrl(url) || (URL.canParse(url) && /^rediss?:$/.test(new URL(url).protocol))
        );
      },
      {
        error:
          'must be a redis://, rediss://, redis+sentinel://, rediss+sentinel://, redis+cluster:// or rediss+cluster:// URL',
      },
    )
    .optional(),
  FALKORDB_SERVER_BIN: z.string().min(1).optional(),
  FALKORDB_MODULE_PATH: z.string().min(1).optional(),
  KUBECONFIG: z.string().min(1).optional(),
  KUBERNETES_SERVICE_HOST: z.string().min(1).optional(),
  ENABLE_DOCSUI: booleanFlag.default(true),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  KUBERNETES_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  KUBERNETES_OUTAGE_READY_MS: z.coerce.number().int().min(0).max(86_400_000).default(300_000),
  OBSERVABILITY_STREAM_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1800),
  OBSERVABILITY_STREAMS_PER_USER: z.coerce.number().int().min(1).max(100).default(4),
  EXPORTER_METRICS: booleanFlag.default(true),
  SENTINEL_WRITE_ACK_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  SENTINEL_READ_REPLICAS: booleanFlag.default(false),
  AUDIT_STORE_REQUIRED: booleanFlag.default(false),
  SESSION_TTL: duration.default(8 * 3600),
  ADMIN_EMAIL: EmailSchema.optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters long').optional(),
  POD_NAMESPACE: z.string().regex(KUBERNETES_NAME, 'must be a Kubernetes namespace name').optional(),
  CLUSTER_NAMESPACE: z.string().regex(KUBERNETES_NAME, 'must be a Kubernetes namespace name').default('graphdb-system'),
  // The namespaces clusters may be created in (POST /api/clusters/ and …/yaml): a regular expression anchored at both
  // ends. Unset: the cluster namespace only.
  MANAGED_NAMESPACES: z
    .string()
    .min(1)
    .max(500)
    .refine((pattern) => {
      try {
        new RegExp(`^(?:${pattern})$`);
        return true;
      } catch {
        return false;
      }
    }, 'must be a regular expression')
    .optional(),
  // The Helm release this server runs as (the chart sets it): its pods carry app.kubernetes.io/instance=<release>, so a
  // deployment of that name is refused (docs/decisions/tenancy-checks.md).
  RELEASE_NAME: z.string().regex(HELM_RELEASE_NAME, 'must be a Helm release name').optional(),
  // Secrets (besides the ones it created for settings) that write-only settings may write: names with this prefix.
  SETTINGS_SECRET_PREFIX: z
    .string()
    .regex(
      OBJECT_NAME_PREFIX,
      'must be the start of a Kubernetes Secret name (lower-case letters, digits, `-` and `.`)',
    )
    .default('graphdb-settings-'),
  // The objects in POD_NAMESPACE the server keeps its state in; the chart derives them from the release name, so two
  // releases can share a namespace. Defaults: the names a single installation has always used.
  SETTINGS_CONFIGMAP_NAME: kubernetesObjectName.default('graphdb-admin-settings'),
  RBAC_CONFIGMAP_NAME: kubernetesObjectName.default('graphdb-rbac'),
  USERS_SECRET_NAME: kubernetesObjectName.default('graphdb-admin-users'),
  SERVICE_ACCOUNTS_SECRET_NAME: kubernetesObjectName.default('graphdb-admin-serviceaccounts'),
  // Service accounts made (or set again) at start-up; their tokens' texts in the variables the JSON names.
  SERVICE_ACCOUNTS_BOOTSTRAP: z.string().optional(),
  SETTINGS_REFRESH_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(300_000),
  TOKEN_CREATION_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(30),
  // Bounds on what a caller can make the server do: targets, checks, queries, connections.
  DATABASE_HOSTS: parsedBy(parseAllowedTargets),
  CREDENTIAL_CHECK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  CREDENTIAL_CHECKS_MAX: z.coerce.number().int().min(1).max(10_000).default(16),
  QUERY_TIMEOUT_MAX_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  // At most the browser API specification's longest ttlSeconds (366 days).
  TOKEN_DEFAULT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(31_622_400)
    .default(90 * 86_400),
  QUERY_ROWS_MAX: z.coerce.number().int().min(1).max(100_000_000).default(100_000),
  QUERY_RESULT_BYTES_MAX: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 ** 32)
    .default(64 * 1024 * 1024),
  QUERIES_PER_TOKEN: z.coerce.number().int().min(1).max(10_000).default(8),
  QUERIES_PER_CLIENT: z.coerce.number().int().min(1).max(10_000).default(32),
  CSV_URL_ALLOWLIST: parsedBy(parseUrlAllowlist),
  CORS_ORIGINS: parsedBy(parseCorsOrigins),
  UPLOAD_BYTES_MAX: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 ** 40)
    .default(256 * 1024 * 1024),
  IMPORT_TIMEOUT_MS: z.coerce.number().int().min(1000).max(86_400_000).default(3_600_000),
  // Staged files on disk (one user's, and everyone's), and dumps being restored at once (bytes, and per user).
  UPLOAD_STAGED_BYTES_PER_USER: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 ** 44)
    .default(2 ** 30),
  UPLOAD_STAGED_BYTES_MAX: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 ** 44)
    .default(4 * 2 ** 30),
  RESTORE_BYTES_MAX: z.coerce
    .number()
    .int()
    .min(1024)
    .max(2 ** 44)
    .default(512 * 2 ** 20),
  RESTORES_PER_USER: z.coerce.number().int().min(1).max(1000).default(1),
  LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(12),
  LOGIN_FAILURES_BEFORE_BACKOFF: z.coerce.number().int().min(1).max(1000).default(5),
  LOGIN_BACKOFF_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  LOGIN_CHECKS_MAX: z.coerce.number().int().min(1).max(1000).default(Math.max(2, os.availableParallelism())),
  TRUST_PROXY: parsedBy(parseTrustProxy),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(128),
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  MAX_REQUESTS_PER_SOCKET: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  // Basic authentication of the metrics exporter: both or neither.
  METRICS_USERNAME: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[^:]*$/, 'must not contain a colon')
    .optional(),
  METRICS_PASSWORD: z.string().min(8, 'must be at least 8 characters long').max(1024).optional(),
  ALPHA_CLIENT_ID: z.string().min(1).optional(),
  ALPHA_CLIENT_SECRET: z.string().min(1).optional(),
  ALPHA_REDIRECT_URI: httpUrl.optional(),
  OAUTH_PROVIDER: z.enum(['alpha', 'beta']).optional(),
  BETA_CLIENT_ID: z.string().min(1).optional(),
  BETA_CLIENT_SECRET: z.string().min(1).optional(),
  BETA_TENANT_ID: z.string().min(1).optional(),
  BETA_REDIRECT_URI: httpUrl.optional(),
  ALPHA_ISSUER: httpUrl.default('https://accounts.google.com'),
  BETA_AUTHORITY: httpUrl.default('https://login.microsoftonline.com'),
  ALPHA_DIRECTORY_URL: httpUrl.default('https://admin.googleapis.com'),
  BETA_GRAPH_URL: httpUrl.default('https://graph.microsoft.com'),
});

/** Variables whose values must never be echoed, not even in a start-up error. */
const SECRET_VARIABLES = new Set([
  'AUTH_SECRET',
  'ENCRYPTION_KEY',
  'SESSION_SECRET',
  'ALPHA_CLIENT_SECRET',
  'BETA_CLIENT_SECRET',
  'TOKEN_STORE_URL',
  'ADMIN_PASSWORD',
  'METRICS_PASSWORD',
]);

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/** Helm and shells often set a variable to an empty string to mean "unset"; treat it so. */
function withoutBlankValues(env: Record<string, string | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') result[key] = value;
  }
  return result;
}

function describeProblem(issue: z.core.$ZodIssue, env: Record<string, string>): string {
  const variable = String(issue.path[0] ?? '(environment)');
  const shown =
    SECRET_VARIABLES.has(variable) || env[variable] === undefined ? '' : ` (got ${JSON.stringify(env[variable])})`;
  const message =
    issue.code === 'invalid_value' ? `must be one of ${issue.values.map(String).join(', ')}` : issue.message;
  return `${variable}: ${message}${shown}`;
}

/** The bootstrap's accounts, their tokens read from the variables it names (a problem never shows a token's text). */
function serviceAccountsBootstrapOf(
  text: string | undefined,
  env: Record<string, string | undefined>,
): BootstrapAccount[] {
  try {
    return parseServiceAccountsBootstrap(text, env);
  } catch (error) {
    if (error instanceof BootstrapError)
      throw new ConfigError(error.problems.map((problem) => `SERVICE_ACCOUNTS_BOOTSTRAP: ${problem}`));
    throw error;
  }
}

/** Where the Kubernetes client configuration comes from; undefined means no Kubernetes (local stores). */
function kubernetesSourceOf(e: z.output<typeof EnvSchema>, cwd: string): KubernetesSource | undefined {
  if (e.KUBECONFIG) return { kind: 'kubeconfig', path: path.resolve(cwd, e.KUBECONFIG) };
  return e.KUBERNETES_SERVICE_HOST ? { kind: 'in-cluster' } : undefined;
}

/** The provider a caller signs in with, and the client of each (beta's only when OAUTH_PROVIDER=beta). */
interface OAuthEnv {
  /** OAUTH_PROVIDER (alpha when unset): the provider whose flow GET /api/auth/oauth/callback completes. */
  provider: 'alpha' | 'beta';
  alpha: { clientId?: string; clientSecret?: string; redirectUri?: string };
  /** Only honoured when OAUTH_PROVIDER=beta, as the admin API specification says (docs/decisions/oauth-sign-in.md). */
  beta: { clientId?: string; clientSecret?: string; tenantId?: string; redirectUri?: string };
}

function oauthEnvOf(e: z.output<typeof EnvSchema>): OAuthEnv {
  return {
    provider: e.OAUTH_PROVIDER ?? 'alpha',
    alpha: { clientId: e.ALPHA_CLIENT_ID, clientSecret: e.ALPHA_CLIENT_SECRET, redirectUri: e.ALPHA_REDIRECT_URI },
    beta:
      e.OAUTH_PROVIDER === 'beta'
        ? {
            clientId: e.BETA_CLIENT_ID,
            clientSecret: e.BETA_CLIENT_SECRET,
            tenantId: e.BETA_TENANT_ID,
            redirectUri: e.BETA_REDIRECT_URI,
          }
        : {},
  };
}

/**
 * The configuration as the server reads it: EnvSchema's variables, checked, turned into the settings below. The
 * Config type is this schema's output, so each setting is declared once, here. `rawEnv` is where the bootstrap's
 * token variables are read; `cwd` what relative paths are relative to.
 */
function configSchema(rawEnv: Record<string, string | undefined>, cwd: string) {
  return EnvSchema.transform((e) => {
    if ((e.METRICS_USERNAME === undefined) !== (e.METRICS_PASSWORD === undefined)) {
      throw new ConfigError([
        `${e.METRICS_USERNAME === undefined ? 'METRICS_USERNAME' : 'METRICS_PASSWORD'}: must be set together with ${e.METRICS_USERNAME === undefined ? 'METRICS_PASSWORD' : 'METRICS_USERNAME'}`,
      ]);
    }
    return {
      port: e.PORT,
      // Embedded mode is what `npm start` gives on a laptop: reachable from this machine only, unless asked otherwise.
      host: e.HOST ?? (e.TOKEN_STORE_URL ? '0.0.0.0' : '127.0.0.1'),
      logLevel: e.LOG_LEVEL,
      /** Readable lines on stdout (`pretty`), JSON lines (`json`), or readable on a terminal only (`auto`). */
      logFormat: e.LOG_FORMAT,
      /** Absolute path. */
      dataDir: path.resolve(cwd, e.DATA_DIR),
      publicOrigin: (e.PUBLIC_ORIGIN ?? `http://localhost:${e.PORT}`).replace(/\/$/, ''),
      authSecret: e.AUTH_SECRET,
      encryptionKey: e.ENCRYPTION_KEY?.toLowerCase(),
      sessionSecret: e.SESSION_SECRET,
      /** Unset means embedded mode: the server starts and uses its own FalkorDB. */
      tokenStoreUrl: e.TOKEN_STORE_URL,
      falkordbServerBin: e.FALKORDB_SERVER_BIN,
      falkordbModulePath: e.FALKORDB_MODULE_PATH,
      /** Where the Kubernetes client configuration comes from; undefined means no Kubernetes (local stores). */
      kubernetes: kubernetesSourceOf(e, cwd),
      enableDocsUi: e.ENABLE_DOCSUI,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
      /** Longest time to receive a request (408 beyond) and to answer it (503 beyond); event streams are exempt once open. */
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      /** Longest time one Kubernetes API request may take before it counts as unreachable. */
      kubernetesTimeoutMs: e.KUBERNETES_TIMEOUT_MS,
      /** How long after the Kubernetes API last answered a replica stays ready (degraded) while it does not. */
      kubernetesOutageReadyMs: e.KUBERNETES_OUTAGE_READY_MS,
      /** Pod log and metrics event streams: longest life of one, and how many one user may hold open at once. */
      observabilityStreams: {
        maxSeconds: e.OBSERVABILITY_STREAM_MAX_SECONDS,
        perUser: e.OBSERVABILITY_STREAMS_PER_USER,
      },
      /** Pod metrics also read the pod's exporter through the API server's pod proxy (EXPORTER_METRICS). */
      exporterMetrics: e.EXPORTER_METRICS,
      /** Behind Sentinel, how long a write waits for a replica's confirmation (WAIT); 0: not at all. */
      sentinelWriteAckMs: e.SENTINEL_WRITE_ACK_MS,
      /** Behind Sentinel, Read-Only tokens are served by a replica (SENTINEL_READ_REPLICAS). */
      sentinelReadReplicas: e.SENTINEL_READ_REPLICAS,
      /** Audited admin writes answer 503 while the audit store is unreachable, rather than being kept for later. */
      auditStoreRequired: e.AUDIT_STORE_REQUIRED,
      /** Seconds an admin session lasts. */
      sessionTtlSeconds: e.SESSION_TTL,
      /** Seeds the first admin when the user store is empty. */
      initialAdmin: { email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD },
      /** The server's own namespace: settings, users and their permission checks live here. */
      namespace: e.POD_NAMESPACE ?? 'graphdb-system',
      /** False when `namespace` is only the default: inside a pod, the service account's namespace is used instead. */
      namespaceFromEnvironment: e.POD_NAMESPACE !== undefined,
      settingsRefreshMs: e.SETTINGS_REFRESH_MS,
      /** Where the settings, the custom roles and the users live in `namespace` (Kubernetes stores only). */
      stateObjects: {
        settingsConfigMap: e.SETTINGS_CONFIGMAP_NAME,
        rbacConfigMap: e.RBAC_CONFIGMAP_NAME,
        usersSecret: e.USERS_SECRET_NAME,
        serviceAccountsSecret: e.SERVICE_ACCOUNTS_SECRET_NAME,
      },
      /** SERVICE_ACCOUNTS_BOOTSTRAP: accounts and tokens the server makes the store match at start-up (texts included). */
      serviceAccountsBootstrap: serviceAccountsBootstrapOf(e.SERVICE_ACCOUNTS_BOOTSTRAP, rawEnv),
      /** Existing Secrets whose names start with this may receive write-only settings (besides the server's own). */
      settingsSecretPrefix: e.SETTINGS_SECRET_PREFIX,
      tokenCacheTtlMs: e.TOKEN_CACHE_TTL_MS,
      /** Token requests per client address and minute (each one tries database credentials); 0 is no limit. */
      tokenCreationPerMinute: e.TOKEN_CREATION_PER_MINUTE,
      /** Where database deployments live when multi_cluster_mode is off, and the default of `?namespace=`. */
      clusterNamespace: e.CLUSTER_NAMESPACE,
      /** The namespaces clusters may be created in (anchored); the cluster namespace only when unset. */
      managedNamespaces: new RegExp(
        `^(?:${e.MANAGED_NAMESPACES ?? e.CLUSTER_NAMESPACE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})$`,
      ),
      /** RELEASE_NAME: this server's Helm release, a name no deployment may take. */
      releaseName: e.RELEASE_NAME,
      /** DATABASE_HOSTS: the database servers token holders may use; empty: any but loopback (embedded aside). */
      databaseHosts: parseAllowedTargets(e.DATABASE_HOSTS ?? ''),
      /** One deadline for a whole credential check at token creation, and how many may run at once. */
      credentialCheckTimeoutMs: e.CREDENTIAL_CHECK_TIMEOUT_MS,
      credentialChecksMax: e.CREDENTIAL_CHECKS_MAX,
      /** The longest query timeout a caller may ask for (0 asks for this). */
      queryTimeoutMaxMs: e.QUERY_TIMEOUT_MAX_MS,
      /** Lifetime of a token created without expiresAt or ttlSeconds. */
      tokenDefaultTtlSeconds: e.TOKEN_DEFAULT_TTL_SECONDS,
      /** The most rows and (estimated) bytes one query result may carry, and queries running at once per token and client. */
      queryRowsMax: e.QUERY_ROWS_MAX,
      queryResultBytesMax: e.QUERY_RESULT_BYTES_MAX,
      queriesPerToken: e.QUERIES_PER_TOKEN,
      queriesPerClient: e.QUERIES_PER_CLIENT,
      /** CSV_URL_ALLOWLIST: http(s) URL prefixes LOAD CSV may read (file:// is always allowed). */
      csvUrlAllowlist: parseUrlAllowlist(e.CSV_URL_ALLOWLIST ?? ''),
      /** CORS_ORIGINS: origins whose pages may call the browser API (`*` any); none by default. */
      corsOrigins: parseCorsOrigins(e.CORS_ORIGINS),
      /** UPLOAD_BYTES_MAX: the largest file POST /api/upload stages. */
      uploadBytesMax: e.UPLOAD_BYTES_MAX,
      /** IMPORT_TIMEOUT_MS: how long one batch or CSV load may run in all (each statement has its own bound too). */
      importTimeoutMs: e.IMPORT_TIMEOUT_MS,
      /** Bytes of staged files one user, and all users together, may keep on disk (the first at most the second). */
      uploadStagedBytesPerUser: Math.min(e.UPLOAD_STAGED_BYTES_PER_USER, e.UPLOAD_STAGED_BYTES_MAX),
      uploadStagedBytesMax: e.UPLOAD_STAGED_BYTES_MAX,
      /** Bytes of dumps being restored at once, server-wide, and restores one user may run at once. */
      restoreBytesMax: e.RESTORE_BYTES_MAX,
      restoresPerUser: e.RESTORES_PER_USER,
      /** Local sign-in bounds (see admin/sessions/login-throttle.ts). */
      loginLimits: {
        attemptsPerAddressPerMinute: e.LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE,
        failuresBeforeBackoff: e.LOGIN_FAILURES_BEFORE_BACKOFF,
        maxBackoffMs: e.LOGIN_BACKOFF_MAX_SECONDS * 1000,
        checksInFlightMax: e.LOGIN_CHECKS_MAX,
      },
      /** TRUST_PROXY: which proxies' X-Forwarded-For is believed for the client address (Fastify's trustProxy). */
      trustProxy: parseTrustProxy(e.TRUST_PROXY),
      // Never longer than a whole request may take.
      headersTimeoutMs: Math.min(e.HEADERS_TIMEOUT_MS, e.REQUEST_TIMEOUT_MS),
      maxConnections: e.MAX_CONNECTIONS,
      /** Open connections one peer address may hold (the proxies TRUST_PROXY names are exempt); at most maxConnections. */
      connectionsPerAddress: Math.min(e.CONNECTIONS_PER_ADDRESS, e.MAX_CONNECTIONS),
      /** How long an idle keep-alive connection stays open after its last response. */
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      /** Requests one connection may carry before the server closes it (0: no limit). */
      maxRequestsPerSocket: e.MAX_REQUESTS_PER_SOCKET,
      /** METRICS_USERNAME and METRICS_PASSWORD: when set, every scrape of the exporter must authenticate with them. */
      metricsBasicAuth:
        e.METRICS_USERNAME && e.METRICS_PASSWORD
          ? { username: e.METRICS_USERNAME, password: e.METRICS_PASSWORD }
          : undefined,
      /** Where the providers live: overridable for sovereign clouds and tests. */
      oauthEndpoints: {
        alphaIssuer: e.ALPHA_ISSUER.replace(/\/$/, ''),
        betaAuthority: e.BETA_AUTHORITY.replace(/\/$/, ''),
        alphaDirectoryUrl: e.ALPHA_DIRECTORY_URL.replace(/\/$/, ''),
        betaGraphUrl: e.BETA_GRAPH_URL.replace(/\/$/, ''),
      },
      oauthEnv: oauthEnvOf(e),
    };
  });
}

export type Config = z.output<ReturnType<typeof configSchema>>;

export function loadConfig(rawEnv: Record<string, string | undefined>, cwd = process.cwd()): Readonly<Config> {
  const env = withoutBlankValues(rawEnv);
  const parsed = configSchema(rawEnv, cwd).safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => describeProblem(issue, env)));
  return Object.freeze(parsed.data);
}
