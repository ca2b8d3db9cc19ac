// How the Helm chart reaches every setting of src/config.ts: a named value (with a sample the server accepts), the
// chart itself (derived from other values or the release), or only extraEnv (with the reason). The chart tests
// check this table against EnvSchema, so a new setting without a chart path fails them.

export type ChartPath =
  /** `--set <value>=<sample>` renders `<NAME>=<sample>` in the Deployment's env (or `secret`: the chart's Secret). */
  | { kind: 'value'; value: string; sample: string; expected?: string; secret?: boolean }
  /** The chart sets it itself, from the values or the release. */
  | { kind: 'chart'; from: string }
  /** Not an operator's setting in a pod; reachable through extraEnv. */
  | { kind: 'extraEnv'; why: string };

const config = (value: string, sample: string): ChartPath => ({
  kind: 'value',
  value: `adminServer.config.${value}`,
  sample,
});

export const CHART_SETTINGS: Record<string, ChartPath> = {
  PORT: { kind: 'chart', from: 'the container port 3000 the probes and the Service use' },
  HOST: { kind: 'chart', from: '0.0.0.0, so the Service reaches the pod' },
  LOG_LEVEL: { kind: 'value', value: 'adminServer.logLevel', sample: 'debug' },
  LOG_FORMAT: { kind: 'value', value: 'adminServer.logFormat', sample: 'pretty' },
  DATA_DIR: { kind: 'chart', from: '/data, the persistence volume' },
  PUBLIC_ORIGIN: { kind: 'value', value: 'adminServer.publicOrigin', sample: 'https://admin.corp.example' },
  AUTH_SECRET: { kind: 'chart', from: "generated into the chart's Secret, or adminServer.existingSecret" },
  ENCRYPTION_KEY: { kind: 'chart', from: "generated into the chart's Secret, or adminServer.existingSecret" },
  SESSION_SECRET: { kind: 'chart', from: "generated into the chart's Secret, or adminServer.existingSecret" },
  TOKEN_STORE_URL: {
    kind: 'value',
    value: 'adminServer.tokenStoreUrl',
    sample: 'redis://falkordb.graphdb-system:6379',
    secret: true,
  },
  FALKORDB_SERVER_BIN: { kind: 'extraEnv', why: 'the image provides the embedded FalkorDB' },
  FALKORDB_MODULE_PATH: { kind: 'extraEnv', why: 'the image provides the embedded FalkorDB' },
  KUBECONFIG: { kind: 'extraEnv', why: "a pod uses its service account's in-cluster configuration" },
  KUBERNETES_SERVICE_HOST: { kind: 'extraEnv', why: 'Kubernetes sets it in every pod' },
  ENABLE_DOCSUI: { kind: 'value', value: 'adminServer.enableDocsUi', sample: 'false' },
  SHUTDOWN_TIMEOUT_MS: {
    kind: 'value',
    value: 'adminServer.terminationGracePeriodSeconds',
    sample: '60',
    expected: '55000',
  },
  REQUEST_TIMEOUT_MS: config('requestTimeoutMs', '60000'),
  KUBERNETES_TIMEOUT_MS: config('kubernetesTimeoutMs', '15000'),
  KUBERNETES_OUTAGE_READY_MS: config('kubernetesOutageReadyMs', '600000'),
  OBSERVABILITY_STREAM_MAX_SECONDS: config('observabilityStreamMaxSeconds', '900'),
  OBSERVABILITY_STREAMS_PER_USER: config('observabilityStreamsPerUser', '2'),
  EXPORTER_METRICS: { kind: 'value', value: 'adminServer.exporterMetrics', sample: 'false' },
  SENTINEL_WRITE_ACK_MS: config('sentinelWriteAckMs', '500'),
  SENTINEL_READ_REPLICAS: config('sentinelReadReplicas', 'true'),
  AUDIT_STORE_REQUIRED: config('auditStoreRequired', 'true'),
  SESSION_TTL: config('sessionTtl', '4h'),
  ADMIN_EMAIL: { kind: 'value', value: 'adminServer.initialAdmin.email', sample: 'root@corp.example' },
  ADMIN_PASSWORD: {
    kind: 'value',
    value: 'adminServer.initialAdmin.password',
    sample: 'first-admin-password',
    secret: true,
  },
  POD_NAMESPACE: { kind: 'chart', from: "the pod's namespace (fieldRef)" },
  CLUSTER_NAMESPACE: { kind: 'value', value: 'adminServer.clusterNamespace', sample: 'graphs' },
  RELEASE_NAME: { kind: 'chart', from: 'the release name (.Release.Name), which no deployment may take' },
  MANAGED_NAMESPACES: config('managedNamespaces', 'team-[a-z]+'),
  SETTINGS_SECRET_PREFIX: config('settingsSecretPrefix', 'graphdb-oauth-'),
  SETTINGS_CONFIGMAP_NAME: { kind: 'chart', from: 'the release: <fullname>-settings' },
  RBAC_CONFIGMAP_NAME: { kind: 'chart', from: 'the release: <fullname>-rbac' },
  USERS_SECRET_NAME: { kind: 'chart', from: 'the release: <fullname>-users' },
  SERVICE_ACCOUNTS_SECRET_NAME: { kind: 'chart', from: 'the release: <fullname>-serviceaccounts' },
  SERVICE_ACCOUNTS_BOOTSTRAP: {
    kind: 'chart',
    from: "adminServer.bootstrap.serviceAccounts, each token's text from its Secret (GRAPHDB_SA_TOKEN_<i>_<j>)",
  },
  SETTINGS_REFRESH_MS: config('settingsRefreshMs', '2000'),
  TOKEN_CACHE_TTL_MS: config('tokenCacheTtlMs', '60000'),
  TOKEN_CREATION_PER_MINUTE: config('tokenCreationPerMinute', '10'),
  DATABASE_HOSTS: config('databaseHosts', 'falkordb.graphs.svc:6379'),
  CREDENTIAL_CHECK_TIMEOUT_MS: config('credentialCheckTimeoutMs', '3000'),
  CREDENTIAL_CHECKS_MAX: config('credentialChecksMax', '8'),
  QUERY_TIMEOUT_MAX_MS: config('queryTimeoutMaxMs', '120000'),
  TOKEN_DEFAULT_TTL_SECONDS: config('tokenDefaultTtlSeconds', '86400'),
  QUERY_ROWS_MAX: config('queryRowsMax', '50000'),
  QUERY_RESULT_BYTES_MAX: config('queryResultBytesMax', '33554432'),
  QUERIES_PER_TOKEN: config('queriesPerToken', '4'),
  QUERIES_PER_CLIENT: config('queriesPerClient', '16'),
  CSV_URL_ALLOWLIST: config('csvUrlAllowlist', 'https://data.corp.example/'),
  CORS_ORIGINS: { kind: 'value', value: 'adminServer.env.corsOrigins', sample: 'https://console.corp.example' },
  UPLOAD_BYTES_MAX: config('uploadBytesMax', '134217728'),
  IMPORT_TIMEOUT_MS: config('importTimeoutMs', '1800000'),
  UPLOAD_STAGED_BYTES_PER_USER: config('uploadStagedBytesPerUser', '536870912'),
  UPLOAD_STAGED_BYTES_MAX: config('uploadStagedBytesMax', '2147483648'),
  RESTORE_BYTES_MAX: config('restoreBytesMax', '268435456'),
  RESTORES_PER_USER: config('restoresPerUser', '2'),
  LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE: config('loginAttemptsPerAddressPerMinute', '6'),
  LOGIN_FAILURES_BEFORE_BACKOFF: config('loginFailuresBeforeBackoff', '3'),
  LOGIN_BACKOFF_MAX_SECONDS: config('loginBackoffMaxSeconds', '600'),
  LOGIN_CHECKS_MAX: config('loginChecksMax', '4'),
  TRUST_PROXY: config('trustProxy', '10.0.0.0/8'),
  HEADERS_TIMEOUT_MS: config('headersTimeoutMs', '5000'),
  MAX_CONNECTIONS: config('maxConnections', '512'),
  CONNECTIONS_PER_ADDRESS: config('connectionsPerAddress', '64'),
  KEEP_ALIVE_TIMEOUT_MS: config('keepAliveTimeoutMs', '4000'),
  MAX_REQUESTS_PER_SOCKET: config('maxRequestsPerSocket', '500'),
  METRICS_USERNAME: { kind: 'value', value: 'metrics.auth.username', sample: 'scraper', secret: true },
  METRICS_PASSWORD: { kind: 'value', value: 'metrics.auth.password', sample: 'scrape-password-1', secret: true },
  ALPHA_CLIENT_ID: { kind: 'value', value: 'adminServer.secret.alphaClientId', sample: 'alpha-id', secret: true },
  ALPHA_CLIENT_SECRET: {
    kind: 'value',
    value: 'adminServer.secret.alphaClientSecret',
    sample: 'alpha-secret',
    secret: true,
  },
  ALPHA_REDIRECT_URI: {
    kind: 'value',
    value: 'adminServer.env.alphaRedirectUri',
    sample: 'https://admin.corp.example/api/auth/oauth/alpha/callback',
  },
  OAUTH_PROVIDER: { kind: 'value', value: 'adminServer.env.oauthProvider', sample: 'beta' },
  BETA_CLIENT_ID: { kind: 'value', value: 'adminServer.secret.betaClientId', sample: 'beta-id', secret: true },
  BETA_CLIENT_SECRET: {
    kind: 'value',
    value: 'adminServer.secret.betaClientSecret',
    sample: 'beta-secret',
    secret: true,
  },
  BETA_TENANT_ID: { kind: 'value', value: 'adminServer.env.betaTenantId', sample: 'contoso.onmicrosoft.com' },
  BETA_REDIRECT_URI: {
    kind: 'value',
    value: 'adminServer.env.betaRedirectUri',
    sample: 'https://admin.corp.example/api/auth/oauth/beta/callback',
  },
  ALPHA_ISSUER: config('alphaIssuer', 'https://accounts.alpha.example'),
  BETA_AUTHORITY: config('betaAuthority', 'https://login.beta.example'),
  ALPHA_DIRECTORY_URL: config('alphaDirectoryUrl', 'https://directory.alpha.example'),
  BETA_GRAPH_URL: config('betaGraphUrl', 'https://graph.beta.example'),
};

/** `--set` arguments giving every named value its sample (all at once: the samples are compatible, and none has a comma). */
export function sampleValueArgs(): string[] {
  return Object.values(CHART_SETTINGS).flatMap((path) =>
    path.kind === 'value' ? ['--set', `${path.value}=${path.sample}`] : [],
  );
}
