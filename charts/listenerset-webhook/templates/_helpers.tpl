{{/* Chart name, for the app.kubernetes.io/name label. */}}
{{- define "lsw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Base name of every object. Kept to 50 characters so that suffixes such as
"-selfsigned" still fit a 63-character label value.
*/}}
{{- define "lsw.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "lsw.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "lsw.selectorLabels" -}}
app.kubernetes.io/name: {{ include "lsw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "lsw.labels" -}}
{{ include "lsw.selectorLabels" . }}
{{ include "lsw.sharedLabels" . }}
{{- end }}

{{/* The labels of every object besides its selector labels. */}}
{{- define "lsw.sharedLabels" -}}
helm.sh/chart: {{ include "lsw.chart" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: airlock-microgateway
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The audit's objects and pods (audit.enabled): a name of their own, so that
the Deployment's selector, the Service, the PodDisruptionBudget and the
topology spread never count an audit pod as a webhook replica.
*/}}
{{- define "lsw.auditName" -}}
{{- printf "%s-audit" (include "lsw.fullname" .) }}
{{- end }}

{{- define "lsw.auditSelectorLabels" -}}
app.kubernetes.io/name: {{ printf "%s-audit" (include "lsw.name" .) | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "lsw.auditLabels" -}}
{{ include "lsw.auditSelectorLabels" . }}
app.kubernetes.io/component: audit
{{ include "lsw.sharedLabels" . }}
{{- end }}

{{/* The pods' securityContext: podSecurityContext, without the IDs where the platform assigns them. */}}
{{- define "lsw.podSecurityContext" -}}
{{- $podSC := .Values.podSecurityContext }}
{{- if .Values.platformAssignsUID }}
{{- $podSC = omit $podSC "runAsUser" "runAsGroup" "fsGroup" }}
{{- end }}
{{- toYaml $podSC }}
{{- end }}

{{/* admission.addNames as --add-names flags (the webhook's and the audit's), one list item each. */}}
{{- define "lsw.addNamesArgs" -}}
{{- range $option, $names := .Values.admission.addNames }}
{{- if $names }}
- --add-names={{ $option }}={{ join "," $names }}
{{- end }}
{{- end }}
{{- end }}

{{/* The scope's flags (scope.*), the same for the webhook and the audit, one per line. */}}
{{- define "lsw.scopeArgs" -}}
{{- if .Values.scope.enabled }}
- --scope=class
- --controller-names={{ join "," .Values.scope.controllerNames }}
- --unknown-parent={{ .Values.scope.unknownParent }}
{{- else }}
- --scope=all
{{- end }}
{{- end }}

{{/* tenancy as the webhook's and the audit's flags, one list item each. */}}
{{- define "lsw.tenancyArgs" -}}
{{- with .Values.tenancy.tenantLabel }}
- --tenant-label={{ . }}
{{- end }}
- --allowed-hostnames-annotation={{ .Values.tenancy.allowedHostnamesAnnotation }}
- --first-claim={{ .Values.tenancy.firstClaim }}
{{- end }}

{{- define "lsw.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "lsw.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Service that kube-apiserver calls, and the DNS names it verifies. */}}
{{- define "lsw.serviceName" -}}
{{- include "lsw.fullname" . }}
{{- end }}

{{- define "lsw.dnsNames" -}}
{{- $svc := include "lsw.serviceName" . }}
{{- $ns := .Release.Namespace -}}
- {{ $svc }}
- {{ printf "%s.%s" $svc $ns }}
- {{ printf "%s.%s.svc" $svc $ns }}
- {{ printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain }}
{{- end }}

{{/* Name of the two webhook configurations (one of each kind). */}}
{{- define "lsw.webhookConfigName" -}}
{{- include "lsw.fullname" . }}
{{- end }}

{{/* cert-manager mode: the serving Certificate and its Secret. */}}
{{- define "lsw.servingCertName" -}}
{{- printf "%s-serving" (include "lsw.fullname" .) }}
{{- end }}

{{- define "lsw.servingSecretName" -}}
{{- printf "%s-tls" (include "lsw.fullname" .) }}
{{- end }}

{{/* self-bootstrapped mode: the CA Secret the webhook maintains. */}}
{{- define "lsw.caSecretName" -}}
{{- default (printf "%s-ca" (include "lsw.fullname" .)) .Values.selfBootstrapped.caSecretName }}
{{- end }}

{{/* Whether the pod gets a service account token: only when it talks to the API. */}}
{{- define "lsw.automountToken" -}}
{{- if kindIs "bool" .Values.serviceAccount.automountToken }}
{{- .Values.serviceAccount.automountToken }}
{{- else }}
{{- or (not .Values.certManager.enabled) (eq (include "lsw.clusterView" .) "true") }}
{{- end }}
{{- end }}

{{/*
metadata.annotations of an object, or nothing: commonAnnotations and the
object's own (.extra), which win. Called as (dict "root" $ "extra" map).
*/}}
{{- define "lsw.annotations" -}}
{{- with merge (dict) (.extra | default dict) .root.Values.commonAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
The image reference. A repository on the domain localhost (the default, the
name `make image` gives the image) is found only on a node that imported it,
never pulled: the chart refuses it unless image.preloaded says every node
has it, so that no release waits for pods that cannot start.
*/}}
{{- define "lsw.image" -}}
{{- if and (hasPrefix "localhost/" .Values.image.repository) (not .Values.image.preloaded) }}
{{- fail (printf "image.repository is %s, which no node can pull (the domain localhost is only found where the image was imported, as `make image` and the node suite do). Set image.repository=<your-registry>/listenerset-webhook (a release's or your own build, docs/chart.md), or image.preloaded=true if every node has imported this image" .Values.image.repository) }}
{{- end }}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/*
The smallest replica count the Deployment can have: autoscaling.minReplicas
with the HPA, else replicaCount. The PodDisruptionBudget is checked at it.
*/}}
{{- define "lsw.minReplicaCount" -}}
{{- if .Values.autoscaling.enabled }}
{{- int .Values.autoscaling.minReplicas }}
{{- else }}
{{- int .Values.replicaCount }}
{{- end }}
{{- end }}

{{/* "true" when a resource quantity is unset or zero (a utilization target has nothing to divide by). */}}
{{- define "lsw.zeroQuantity" -}}
{{- if or (kindIs "invalid" .) (regexMatch "^[+]?0*(\\.0*)?[a-zA-Z]*$" (toString .)) }}true{{ end }}
{{- end }}

{{/*
A warning when the cluster's Kubernetes is newer than the versions the chart
is tested on (Chart.yaml's tested-kube-versions annotation), or nothing.
NOTES.txt prints it, and the Deployment (the policy in admission.mode policy)
carries it as a comment, which helm template shows.
*/}}
{{- define "lsw.untestedKubeVersion" -}}
{{- $tested := index .Chart.Annotations "listenerset-webhook.airlock.com/tested-kube-versions" }}
{{- if not (semverCompare $tested .Capabilities.KubeVersion.Version) -}}
WARNING: Kubernetes {{ .Capabilities.KubeVersion.Version }} is outside the versions this chart is tested on ({{ $tested }}). It renders so that you can keep managing it (webhook.failurePolicy, an upgrade); check docs/kubernetes-versions.md and the release notes for a release tested on it.
{{- end }}
{{- end }}

{{/*
lsw.seconds: a Go duration (the schema's pattern: 720h, 1h30m, 90s, 1.5h) in
seconds, for the alerts' thresholds.
*/}}
{{- define "lsw.seconds" -}}
{{- $factors := dict "ns" 0.000000001 "us" 0.000001 "µs" 0.000001 "ms" 0.001 "s" 1.0 "m" 60.0 "h" 3600.0 }}
{{- $total := 0.0 }}
{{- range regexFindAll "[0-9.]+(ns|us|µs|ms|s|m|h)" . -1 }}
{{- $unit := regexReplaceAll "^[0-9.]+" . "" }}
{{- $total = addf $total (mulf (regexReplaceAll "[^0-9.]+$" . "" | float64) (get $factors $unit)) }}
{{- end }}
{{- $total }}
{{- end }}

{{/*
lsw.runbookURL: metrics.prometheusRule.runbookURL, or docs/runbook.md of
the chart's own release (its appVersion is the release's tag, vX.Y.Z, as
hack/release.sh writes it); a chart from a working tree (no v) points at main.
*/}}
{{- define "lsw.runbookURL" -}}
{{- if .Values.metrics.prometheusRule.runbookURL }}{{ .Values.metrics.prometheusRule.runbookURL }}
{{- else }}https://github.com/airlock/listenerset-webhook/blob/{{ ternary .Chart.AppVersion "main" (hasPrefix "v" .Chart.AppVersion) }}/docs/runbook.md
{{- end }}
{{- end }}

{{/* The helm test's objects (test.enabled): their own name, never selected as a webhook replica. */}}
{{- define "lsw.testSelectorLabels" -}}
app.kubernetes.io/name: {{ printf "%s-test" (include "lsw.name" .) | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "lsw.testLabels" -}}
{{ include "lsw.testSelectorLabels" . }}
app.kubernetes.io/component: test
{{ include "lsw.sharedLabels" . }}
{{- end }}
