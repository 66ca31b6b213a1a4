{{/* The release's name prefix: the release name, or <release>-portcullis when it does not say portcullis. */}}
{{- define "portcullis.fullname" -}}
{{- if contains "portcullis" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-portcullis" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* A component's object name: <fullname>-<component>. */}}
{{- define "portcullis.name" -}}
{{- printf "%s-%s" (include "portcullis.fullname" .root) .component -}}
{{- end -}}

{{- define "portcullis.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: portcullis
{{ include "portcullis.selectorLabels" . }}
{{- end -}}

{{- define "portcullis.selectorLabels" -}}
app.kubernetes.io/name: portcullis
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "portcullis.image" -}}
{{- printf "%s/portcullis-%s:%s" .root.Values.image.registry .component (default .root.Chart.AppVersion .root.Values.image.tag) -}}
{{- end -}}

{{/* The Redis URL as an environment variable named .name. */}}
{{- define "portcullis.redisEnv" -}}
- name: {{ .name }}
{{- if .root.Values.redis.bundled.enabled }}
  value: {{ printf "redis://%s:6379" (include "portcullis.name" (dict "root" .root "component" "redis")) | quote }}
{{- else if .root.Values.redis.existingSecret.name }}
  valueFrom:
    secretKeyRef:
      name: {{ .root.Values.redis.existingSecret.name }}
      key: {{ .root.Values.redis.existingSecret.key }}
{{- else }}
  value: {{ required "redis.url is required (or redis.existingSecret, or redis.bundled.enabled)" .root.Values.redis.url | quote }}
{{- end }}
{{- end -}}

{{/*
The Redis connection settings beyond the URL (redis.type, auth, sentinelAuth, tls) as the environment of one
service; .names maps type, auth, sentinelAuth, tls, tlsCaCert, tlsClientCert, tlsClientKey to its whole names.
*/}}
{{- define "portcullis.redisConnectionEnv" -}}
{{- $r := .root.Values.redis -}}
{{- if and (ne $r.type "single") (not $r.bundled.enabled) }}
- { name: {{ .names.type }}, value: {{ $r.type | quote }} }
{{- end }}
{{- with $r.auth.existingSecret.name }}
- name: {{ $.names.auth }}
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $r.auth.existingSecret.key }}
{{- end }}
{{- with $r.sentinelAuth.existingSecret.name }}
- name: {{ $.names.sentinelAuth }}
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $r.sentinelAuth.existingSecret.key }}
{{- end }}
{{- if $r.tls.enabled }}
- { name: {{ .names.tls }}, value: "true" }
{{- if $r.tls.secretName }}
- { name: {{ .names.tlsCaCert }}, value: /etc/portcullis/redis-tls/ca.crt }
{{- if $r.tls.clientCertificate }}
- { name: {{ .names.tlsClientCert }}, value: /etc/portcullis/redis-tls/tls.crt }
- { name: {{ .names.tlsClientKey }}, value: /etc/portcullis/redis-tls/tls.key }
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The volume mount of redis.tls.secretName, when set. */}}
{{- define "portcullis.redisTlsMount" -}}
{{- if and .Values.redis.tls.enabled .Values.redis.tls.secretName }}
- { name: redis-tls, mountPath: /etc/portcullis/redis-tls, readOnly: true }
{{- end }}
{{- end -}}

{{/* The volume of redis.tls.secretName, when set. */}}
{{- define "portcullis.redisTlsVolume" -}}
{{- if and .Values.redis.tls.enabled .Values.redis.tls.secretName }}
- name: redis-tls
  secret:
    secretName: {{ .Values.redis.tls.secretName }}
{{- end }}
{{- end -}}

{{/* A key of the keys Secret the operator creates, as an environment variable. */}}
{{- define "portcullis.keyEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .root.Values.keysSecret.name }}
      key: {{ .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end -}}

{{- define "portcullis.commonEnv" -}}
- name: LOG_LEVEL
  value: {{ .Values.logging.level | quote }}
- name: LOG_FORMAT
  value: {{ .Values.logging.format | quote }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- include "portcullis.tracingEnv" . }}
{{- end -}}

{{/* The TRACING_* settings from the tracing values, the same for every component but its service name. */}}
{{- define "portcullis.tracingEnv" -}}
{{- with .Values.tracing }}
{{- if .enabled }}
- { name: TRACING_ENABLED, value: "true" }
- { name: TRACING_EXPORTER_PROTOCOL, value: {{ .protocol | quote }} }
- { name: TRACING_SAMPLING_RATE, value: {{ .samplingRate | toString | quote }} }
{{- with .serviceNamespace }}
- { name: TRACING_SERVICE_NAMESPACE, value: {{ . | quote }} }
{{- end }}
- name: TRACING_SERVICE_INSTANCE_ID
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
{{- with .endpoint }}
- { name: OTEL_EXPORTER_OTLP_ENDPOINT, value: {{ . | quote }} }
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Extra settings from a component's `env` map, sorted. An empty value is left out: the API server drops
`value: ""` (stored Deployments would differ from the chart's), and the services read empty as unset.
*/}}
{{- define "portcullis.extraEnv" -}}
{{- range $name, $value := . }}
{{- if ne (toString $value) "" }}
- name: {{ $name }}
  value: {{ $value | toString | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* What every pod shares: security, scheduling, no API token unless asked for. */}}
{{- define "portcullis.podSpec" -}}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The xDS address of the operator, for the services. */}}
{{- define "portcullis.xdsUrl" -}}
{{- printf "%s:18000" (include "portcullis.name" (dict "root" . "component" "operator")) -}}
{{- end -}}
