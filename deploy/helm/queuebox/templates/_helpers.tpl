{{/* The name of every object: the release name, with -queuebox unless it already says queuebox. */}}
{{- define "queuebox.fullname" -}}
{{- if contains "queuebox" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-queuebox" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The labels every object carries. */}}
{{- define "queuebox.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: queuebox
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The labels that select the pods of one role ("all" in mode single): call with (dict "root" $ "role" $role). */}}
{{- define "queuebox.selectorLabels" -}}
app.kubernetes.io/name: queuebox
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{/* The Deployments to render: one "all" in mode single, one per role in mode roles. */}}
{{- define "queuebox.roles" -}}
{{- if eq .Values.mode "single" -}}
all: {{ .Values.single.replicas }}
{{- else -}}
ingest: {{ .Values.roles.ingest.replicas }}
relay: {{ .Values.roles.relay.replicas }}
deliver: {{ .Values.roles.deliver.replicas }}
{{- if .Values.roles.capture.enabled }}
capture: 1
{{- end }}
{{- end -}}
{{- end -}}

{{/* Whether a role serves the inbox routes on the data port. */}}
{{- define "queuebox.servesInbox" -}}
{{- if or (eq . "all") (eq . "ingest") }}true{{ end -}}
{{- end -}}
