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

{{/*
The enforcement label (webhook.enforcementLabel): a namespace labelled
<key>=warn is warned where it would be denied, without a redeploy (the way
out of docs/runbook.md for a wrong denial, in one namespace or all; also a
namespace's own adoption step). Each entry that denies is split in two:
lsw.enforcementSelector with "deny" selects the namespaces without the
label's value warn, with "warn" exactly those, for its warn twin (a webhook
of its own path, failurePolicy Ignore; a policy binding with Warn in place
of Deny). Both start from lsw.namespaceSelector: the bypass label and the
exclusions win over the label. lsw.warnsWebhooks and lsw.warnsPolicy say
whether there is anything to split: the label is set and the webhook's
enforcement is deny, or the binding's actions hold Deny.
*/}}
{{- define "lsw.warnsWebhooks" -}}
{{- if and .Values.webhook.enforcementLabel (eq .Values.webhook.enforcement "deny") }}true{{ end }}
{{- end }}

{{- define "lsw.warnsPolicy" -}}
{{- if and .Values.webhook.enforcementLabel (has "Deny" .Values.admission.policy.validationActions) }}true{{ end }}
{{- end }}

{{/* Called as (dict "root" $ "enforcement" "deny"|"warn"|""); "" is lsw.namespaceSelector's namespaces, unsplit. */}}
{{- define "lsw.enforcementSelector" -}}
{{- $sel := include "lsw.namespaceSelector" .root | fromYaml }}
{{- if .enforcement }}
{{- $expr := dict "key" .root.Values.webhook.enforcementLabel "operator" (ternary "In" "NotIn" (eq .enforcement "warn")) "values" (list "warn") }}
{{- $_ := set $sel "matchExpressions" (append $sel.matchExpressions $expr) }}
{{- end }}
{{- toYaml $sel }}
{{- end }}

{{/*
lsw.policyBindings: a binding of the policy (a dict, the generator's with
the release's names) as the chart renders it: the values' actions, the
namespaces and objects judged; with lsw.warnsPolicy the namespaces without
the enforcement label's warn, then its warn twin, <name>-warn, for those
with it, whose actions are the values' with Warn in place of Deny. Every
binding of every policy goes through here, so that each gets the split.
Called as (dict "root" $ "binding" $binding).
*/}}
{{- define "lsw.policyBindings" -}}
{{- $root := .root }}
{{- $actions := $root.Values.admission.policy.validationActions }}
{{- $split := include "lsw.warnsPolicy" $root }}
{{- $binding := .binding }}
{{- $spec := get $binding "spec" | default dict }}
{{- $_ := set $spec "validationActions" $actions }}
{{- $match := get $spec "matchResources" | default dict }}
{{- $_ := set $match "namespaceSelector" (include "lsw.enforcementSelector" (dict "root" $root "enforcement" (ternary "deny" "" (eq $split "true"))) | fromYaml) }}
{{- with $root.Values.webhook.objectSelector }}
{{- $_ := set $match "objectSelector" . }}
{{- end }}
{{- $_ := set $spec "matchResources" $match }}
{{- $_ := set $binding "spec" $spec }}
{{ toYaml $binding }}
{{- if $split }}
{{- $warn := deepCopy $binding }}
{{- $_ := set $warn.metadata "name" (printf "%s-warn" $binding.metadata.name) }}
{{- $warnActions := list "Warn" }}
{{- range without $actions "Deny" }}
{{- $warnActions = append $warnActions . }}
{{- end }}
{{- $_ := set $warn.spec "validationActions" $warnActions }}
{{- $_ := set $warn.spec.matchResources "namespaceSelector" (include "lsw.enforcementSelector" (dict "root" $root "enforcement" "warn") | fromYaml) }}
---
{{ toYaml $warn }}
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
