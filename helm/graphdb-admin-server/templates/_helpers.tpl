{{- define "graphdb.labels" -}}
app.kubernetes.io/name: graphdb-admin-server
app.kubernetes.io/instance: {{ .Release.Name }}
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

{{- define "graphdb.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "graphdb.selector" -}}
app.kubernetes.io/name: graphdb-admin-server
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "graphdb.clusterNamespace" -}}
{{- .Values.adminServer.clusterNamespace | default .Release.Namespace -}}
{{- end }}

{{/* A value kept from the existing Secret on upgrade, else the given one, else generated once. */}}
{{- define "graphdb.secretValue" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace "graphdb-admin-server" -}}
{{- if and $existing (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else if .value -}}
{{- .value | b64enc -}}
{{- else -}}
{{- .generate | b64enc -}}
{{- end -}}
{{- end }}
