{{/*
admission.mode says who judges ListenerSets:
  webhook  the two webhooks (failurePolicy webhook.failurePolicy); no policy.
  policy   the ValidatingAdmissionPolicy and its binding only, evaluated inside
           kube-apiserver: no Deployment, Service, certificates, RBAC or any
           other object that runs or serves.
  both     the policy enforces; the webhooks run too, with failurePolicy
           Ignore, for the cluster-aware checks (on unless
           clusterChecks.enabled=false), so a webhook outage never blocks a write.
Each helper returns "true" or "" (false in a template condition).
*/}}
{{- define "lsw.runsWebhook" -}}
{{- if ne .Values.admission.mode "policy" }}true{{ end }}
{{- end }}

{{- define "lsw.runsPolicy" -}}
{{- if ne .Values.admission.mode "webhook" }}true{{ end }}
{{- end }}

{{/*
What kube-apiserver does when a webhook cannot be reached: with the policy
enforcing, never block; else webhook.failurePolicy, whose default (null)
follows webhook.enforcement: a webhook that denies nothing (warn) blocks
nothing when it is down either.
*/}}
{{- define "lsw.failurePolicy" -}}
{{- if eq .Values.admission.mode "both" }}Ignore
{{- else if .Values.webhook.failurePolicy }}{{ .Values.webhook.failurePolicy }}
{{- else if eq .Values.webhook.enforcement "warn" }}Ignore
{{- else }}Fail{{ end }}
{{- end }}

{{/* Whether the webhook keeps a read-only view of the cluster: for the scope or the cluster-aware checks. */}}
{{- define "lsw.clusterView" -}}
{{- if or .Values.scope.enabled (include "lsw.clusterChecks" .) }}true{{ end }}
{{- end }}

{{/* clusterChecks.enabled: true or false as set; null (the default) is on in mode both, off in mode webhook. */}}
{{- define "lsw.clusterChecks" -}}
{{- if kindIs "bool" .Values.clusterChecks.enabled }}
{{- if .Values.clusterChecks.enabled }}true{{ end }}
{{- else if eq .Values.admission.mode "both" }}true{{ end }}
{{- end }}

{{/*
The namespaces judged, in every mode the same: the webhooks' and the policy
binding's namespaceSelector. kube-system and the release namespace are never
judged (the webhook must not block its own recovery), nor
webhook.excludeNamespaces, nor a namespace labelled webhook.bypassLabel (the
bypass of docs/runbook.md, in place by default so that it needs no redeploy
during an incident); webhook.namespaceSelector adds conditions.
*/}}
{{- define "lsw.namespaceSelector" -}}
{{- $v := .Values -}}
{{- with $v.webhook.namespaceSelector.matchLabels }}
matchLabels:
  {{- toYaml . | nindent 2 }}
{{- end }}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
      {{- toYaml (concat (list "kube-system" .Release.Namespace) $v.webhook.excludeNamespaces | uniq) | nindent 6 }}
  {{- with $v.webhook.bypassLabel }}
  - key: {{ . }}
    operator: DoesNotExist
  {{- end }}
  {{- with $v.webhook.namespaceSelector.matchExpressions }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/* Name of the rules' ValidatingAdmissionPolicy and of its binding. */}}
{{- define "lsw.policyName" -}}
{{- include "lsw.fullname" . }}
{{- end }}

{{/*
Names of both ValidatingAdmissionPolicies, each also its binding's, as a JSON
list: the rules' and the declared hostnames' (policy.DeclarationsPrefix before
the rules' name, as files/policy.yaml names it; test/chart compares them with
the rendered policies).
*/}}
{{- define "lsw.policyNames" -}}
{{- $name := include "lsw.policyName" . }}
{{- list $name (printf "declared-hostnames.%s" $name) | toJson }}
{{- end }}
