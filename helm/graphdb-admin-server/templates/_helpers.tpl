{{/* The chart's name, or nameOverride: the app.kubernetes.io/name label. */}}
{{- define "graphdb.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{/*
The base of every object name: fullnameOverride, else the release name when it already contains the chart's name,
else <release>-<name>. A release named graphdb-admin-server (the install command the README gives) keeps the
names the chart has always used.
*/}}
{{- define "graphdb.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "graphdb.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/* The release whose names predate release-derived names: its server objects keep their historical names. */}}
{{- define "graphdb.legacyNames" -}}
{{- if eq (include "graphdb.fullname" .) "graphdb-admin-server" }}true{{ end -}}
{{- end }}

{{/* Objects the server itself reads and writes by name (SETTINGS_CONFIGMAP_NAME, RBAC_CONFIGMAP_NAME, USERS_SECRET_NAME). */}}
{{- define "graphdb.settingsConfigMap" -}}
{{- if include "graphdb.legacyNames" . }}graphdb-admin-settings{{ else }}{{ include "graphdb.fullname" . | trunc 54 | trimSuffix "-" }}-settings{{ end -}}
{{- end }}
{{- define "graphdb.rbacConfigMap" -}}
{{- if include "graphdb.legacyNames" . }}graphdb-rbac{{ else }}{{ include "graphdb.fullname" . | trunc 58 | trimSuffix "-" }}-rbac{{ end -}}
{{- end }}
{{- define "graphdb.usersSecret" -}}
{{- if include "graphdb.legacyNames" . }}graphdb-admin-users{{ else }}{{ include "graphdb.fullname" . | trunc 57 | trimSuffix "-" }}-users{{ end -}}
{{- end }}

{{- define "graphdb.serviceAccountsSecret" -}}
{{- if include "graphdb.legacyNames" . }}graphdb-admin-serviceaccounts{{ else }}{{ include "graphdb.fullname" . | trunc 47 | trimSuffix "-" }}-serviceaccounts{{ end -}}
{{- end }}

{{/* The Service: the product's historical name for the default release, else the fullname. */}}
{{- define "graphdb.serviceName" -}}
{{- if include "graphdb.legacyNames" . }}graphdb-enterprise-admin-server{{ else }}{{ include "graphdb.fullname" . }}{{ end -}}
{{- end }}

{{/* The ServiceAccount the pod runs as. */}}
{{- define "graphdb.serviceAccountName" -}}
{{- include "graphdb.fullname" . -}}
{{- end }}

{{/* The chart's own Secret (generated server secrets, fallbacks, metrics credentials). */}}
{{- define "graphdb.secretName" -}}
{{- include "graphdb.fullname" . -}}
{{- end }}

{{/* A name with a suffix, at most 63 characters. */}}
{{- define "graphdb.suffixed" -}}
{{- $base := include "graphdb.fullname" .root -}}
{{- printf "%s-%s" ($base | trunc (int (sub 62 (len .suffix))) | trimSuffix "-") .suffix -}}
{{- end }}

{{/*
Cluster-scoped objects (ClusterRoles and their bindings) are shared by every namespace: outside the legacy names
they carry the release namespace too, so releases of the same name in two namespaces do not collide.
*/}}
{{- define "graphdb.clusterScopedName" -}}
{{- if include "graphdb.legacyNames" .root -}}
{{- printf "graphdb-admin-server-%s" .suffix -}}
{{- else -}}
{{- printf "%s-%s-%s" .root.Release.Namespace (include "graphdb.fullname" .root) .suffix | trunc 253 -}}
{{- end -}}
{{- end }}

{{- define "graphdb.labels" -}}
{{ include "graphdb.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: admin-server
app.kubernetes.io/part-of: graphdb
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end }}

{{/* Embedded mode: no external token store, so the server starts its own FalkorDB (one replica only). */}}
{{- define "graphdb.embedded" -}}
{{- if not .Values.adminServer.tokenStoreUrl }}true{{ end -}}
{{- end }}

{{/* The chart creates the data claim: persistence on, in embedded mode, and no claim of the operator's. */}}
{{- define "graphdb.createClaim" -}}
{{- if and .Values.persistence.enabled (include "graphdb.embedded" .) (not .Values.persistence.existingClaim) }}true{{ end -}}
{{- end }}

{{- define "graphdb.claimName" -}}
{{- .Values.persistence.existingClaim | default (include "graphdb.suffixed" (dict "root" . "suffix" "data")) -}}
{{- end }}

{{- define "graphdb.image" -}}
{{- $repository := required "image.repository is required: build the image from this repository's Dockerfile, push it to a registry your cluster can pull from, and pass --set image.repository=<registry>/graphdb-server (see the chart README's quick start)" .Values.image.repository -}}
{{ $repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "graphdb.selector" -}}
app.kubernetes.io/name: {{ include "graphdb.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "graphdb.clusterNamespace" -}}
{{- .Values.adminServer.clusterNamespace | default .Release.Namespace -}}
{{- end }}

{{/* Metrics scrapes authenticate (METRICS_USERNAME/METRICS_PASSWORD). */}}
{{- define "graphdb.metricsAuth" -}}
{{- if .Values.metrics.auth.enabled }}true{{ end -}}
{{- end }}

{{/* A value kept from the existing Secret on upgrade, else the given one, else generated once. */}}
{{- define "graphdb.secretValue" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace (include "graphdb.secretName" .root) -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else if .value -}}
{{- .value | b64enc -}}
{{- else -}}
{{- .generate | b64enc -}}
{{- end -}}
{{- end }}

{{/*
The server settings operators name in values (adminServer.config.<key>), each rendered as the environment variable
the server reads when it is not empty. test/helm/chart-settings.ts pins this table to src/config.ts.
*/}}
{{- define "graphdb.configEnv" -}}
{{- $names := dict
  "requestTimeoutMs" "REQUEST_TIMEOUT_MS"
  "headersTimeoutMs" "HEADERS_TIMEOUT_MS"
  "maxConnections" "MAX_CONNECTIONS"
  "connectionsPerAddress" "CONNECTIONS_PER_ADDRESS"
  "keepAliveTimeoutMs" "KEEP_ALIVE_TIMEOUT_MS"
  "maxRequestsPerSocket" "MAX_REQUESTS_PER_SOCKET"
  "trustProxy" "TRUST_PROXY"
  "sessionTtl" "SESSION_TTL"
  "kubernetesTimeoutMs" "KUBERNETES_TIMEOUT_MS"
  "kubernetesOutageReadyMs" "KUBERNETES_OUTAGE_READY_MS"
  "observabilityStreamMaxSeconds" "OBSERVABILITY_STREAM_MAX_SECONDS"
  "observabilityStreamsPerUser" "OBSERVABILITY_STREAMS_PER_USER"
  "sentinelWriteAckMs" "SENTINEL_WRITE_ACK_MS"
  "sentinelReadReplicas" "SENTINEL_READ_REPLICAS"
  "auditStoreRequired" "AUDIT_STORE_REQUIRED"
  "managedNamespaces" "MANAGED_NAMESPACES"
  "settingsSecretPrefix" "SETTINGS_SECRET_PREFIX"
  "settingsRefreshMs" "SETTINGS_REFRESH_MS"
  "tokenCacheTtlMs" "TOKEN_CACHE_TTL_MS"
  "tokenCreationPerMinute" "TOKEN_CREATION_PER_MINUTE"
  "tokenDefaultTtlSeconds" "TOKEN_DEFAULT_TTL_SECONDS"
  "databaseHosts" "DATABASE_HOSTS"
  "credentialCheckTimeoutMs" "CREDENTIAL_CHECK_TIMEOUT_MS"
  "credentialChecksMax" "CREDENTIAL_CHECKS_MAX"
  "queryTimeoutMaxMs" "QUERY_TIMEOUT_MAX_MS"
  "queryRowsMax" "QUERY_ROWS_MAX"
  "queryResultBytesMax" "QUERY_RESULT_BYTES_MAX"
  "queriesPerToken" "QUERIES_PER_TOKEN"
  "queriesPerClient" "QUERIES_PER_CLIENT"
  "csvUrlAllowlist" "CSV_URL_ALLOWLIST"
  "uploadBytesMax" "UPLOAD_BYTES_MAX"
  "importTimeoutMs" "IMPORT_TIMEOUT_MS"
  "uploadStagedBytesPerUser" "UPLOAD_STAGED_BYTES_PER_USER"
  "uploadStagedBytesMax" "UPLOAD_STAGED_BYTES_MAX"
  "restoreBytesMax" "RESTORE_BYTES_MAX"
  "restoresPerUser" "RESTORES_PER_USER"
  "loginAttemptsPerAddressPerMinute" "LOGIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE"
  "loginFailuresBeforeBackoff" "LOGIN_FAILURES_BEFORE_BACKOFF"
  "loginBackoffMaxSeconds" "LOGIN_BACKOFF_MAX_SECONDS"
  "loginChecksMax" "LOGIN_CHECKS_MAX"
  "alphaIssuer" "ALPHA_ISSUER"
  "betaAuthority" "BETA_AUTHORITY"
  "alphaDirectoryUrl" "ALPHA_DIRECTORY_URL"
  "betaGraphUrl" "BETA_GRAPH_URL"
-}}
{{- range $key := keys .Values.adminServer.config | sortAlpha }}
{{- $value := index $.Values.adminServer.config $key }}
{{- if not (hasKey $names $key) }}
{{- fail (printf "adminServer.config.%s is not a server setting the chart knows" $key) }}
{{- end }}
{{- /* YAML numbers arrive as float64: print integers without an exponent. */}}
{{- $text := ternary (printf "%.0f" $value) (toString $value) (kindIs "float64" $value) }}
{{- if ne $text "" }}
- name: {{ index $names $key }}
  value: {{ $text | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
SERVICE_ACCOUNTS_BOOTSTRAP: adminServer.bootstrap.serviceAccounts as the server reads it, each token naming the
variable (GRAPHDB_SA_TOKEN_<account>_<token>) the Deployment fills from the token's Secret.
*/}}
{{- define "graphdb.serviceAccountsBootstrap" -}}
{{- $accounts := list -}}
{{- range $i, $account := .Values.adminServer.bootstrap.serviceAccounts -}}
{{- $tokens := list -}}
{{- range $j, $token := ($account.tokens | default list) -}}
{{- $entry := dict "name" $token.name "tokenVariable" (printf "GRAPHDB_SA_TOKEN_%d_%d" $i $j) "expiresAt" $token.expiresAt -}}
{{- with $token.allowedCidrs }}{{ $_ := set $entry "allowedCidrs" . }}{{ end -}}
{{- $tokens = append $tokens $entry -}}
{{- end -}}
{{- $out := dict "name" $account.name "role" $account.role "tokens" $tokens -}}
{{- if hasKey $account "description" }}{{ $_ := set $out "description" $account.description }}{{ end -}}
{{- if hasKey $account "disabled" }}{{ $_ := set $out "disabled" $account.disabled }}{{ end -}}
{{- $accounts = append $accounts $out -}}
{{- end -}}
{{- toJson $accounts -}}
{{- end -}}
