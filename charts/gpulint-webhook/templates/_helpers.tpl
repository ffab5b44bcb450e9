{{/* Names: at most 63 characters, as DNS labels and Service names must be. */}}
{{- define "gpulint-webhook.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gpulint-webhook.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "gpulint-webhook.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpulint-webhook.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "gpulint-webhook.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "gpulint-webhook.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: admission-webhook
{{- end }}

{{- define "gpulint-webhook.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gpulint-webhook.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "gpulint-webhook.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "gpulint-webhook.tlsSecretName" -}}
{{- printf "%s-tls" (include "gpulint-webhook.fullname" .) }}
{{- end }}

{{- define "gpulint-webhook.certificateName" -}}
{{- printf "%s-serving" (include "gpulint-webhook.fullname" .) }}
{{- end }}

{{/* The names the API server may use for the Service: the certificate holds all of them. */}}
{{- define "gpulint-webhook.dnsNames" -}}
{{- $svc := include "gpulint-webhook.fullname" . -}}
{{- $ns := .Release.Namespace -}}
- {{ $svc }}
- {{ printf "%s.%s" $svc $ns }}
- {{ printf "%s.%s.svc" $svc $ns }}
- {{ printf "%s.%s.svc.%s" $svc $ns .Values.clusterDomain }}
{{- end }}

{{/*
The namespaceSelector of the webhook for MODE: (list $ MODE). The API server
never sends kube-system (the control plane and the GPU device plugin live
there) or the release's own namespace (with failurePolicy Fail, a webhook that
has to admit its own pods can never come back up); `kubernetes.io/metadata.name`
is set by the API server on every namespace and cannot be removed. The mode
label picks one webhook per namespace: a namespace labelled with a mode goes
to that mode's webhook, any other (no label, or a value that is no mode) to
the cluster's `mode`.
*/}}
{{- define "gpulint-webhook.namespaceSelector" -}}
{{- $ := index . 0 }}
{{- $mode := index . 1 }}
{{- $others := without (list "audit" "warn" "deny") $mode -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values:
      {{- toYaml (concat (list "kube-system" $.Release.Namespace) $.Values.webhook.excludedNamespaces | uniq) | nindent 6 }}
  {{- if eq $mode $.Values.mode }}
  - key: {{ $.Values.modeLabel }}
    operator: NotIn
    values: {{ toJson $others }}
  {{- else }}
  - key: {{ $.Values.modeLabel }}
    operator: In
    values: [{{ $mode }}]
  {{- end }}
  {{- with $.Values.webhook.namespaceSelectorExpressions }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}

{{/* clientConfig of one webhook: (list $ PATH CA); the caBundle only when CA is given. */}}
{{- define "gpulint-webhook.clientConfig" -}}
{{- $ := index . 0 -}}
service:
  name: {{ include "gpulint-webhook.fullname" $ }}
  namespace: {{ $.Release.Namespace }}
  path: {{ index . 1 }}
  port: {{ $.Values.service.port }}
{{- with index . 2 }}
caBundle: {{ . | b64enc }}
{{- end }}
{{- end }}

{{/*
Both webhook configurations, whole, as YAML documents: (list $ CA), the
caBundle set to CA when it is not "". Each holds one webhook per mode (deny,
warn, audit), told apart by the mode label's namespaceSelector, so a namespace
is sent to exactly one of them and each pod costs one call per configuration
(with webhook.mutating.validatePods, one call in all: the mutating webhook
calls /admit, which judges as well, and the validating one is not sent pod
CREATEs). A configuration whose rules reach past CREATE has, per mode, a
second webhook for those operations, the only one with the matchConditions
(gpulint-webhook.ruleGroups). Audit and warn only allow: their failurePolicy
is Ignore, and their mutating webhook never patches, so it is never reinvoked.
*/}}
{{- define "gpulint-webhook.configurations" -}}
{{- $ := index . 0 }}
{{- $ca := index . 1 }}
{{- $fullname := include "gpulint-webhook.fullname" $ }}
{{- $oneCall := eq (include "gpulint-webhook.oneCall" $) "true" }}
{{- $common := dict
  "admissionReviewVersions" (list "v1")
  "sideEffects" "None"
  "timeoutSeconds" $.Values.webhook.timeoutSeconds
  "matchPolicy" "Equivalent"
}}
{{- $inject := and $.Values.certManager.enabled (not $.Values.webhook.selfRegister) }}
{{- range $kind := list "Validating" "Mutating" }}
{{- $name := ternary "validate" "mutate" (eq $kind "Validating") }}
{{- $path := ternary "admit" $name (and $oneCall (eq $kind "Mutating")) }}
{{- $values := ternary $.Values.webhook.validating $.Values.webhook.mutating (eq $kind "Validating") }}
{{- if $values.enabled }}
{{- $rules := concat $values.rules $values.extraRules }}
{{- if and $oneCall (eq $kind "Validating") }}
{{- $rules = include "gpulint-webhook.withoutPodCreate" $rules | fromYamlArray }}
{{- end }}
{{- $groups := include "gpulint-webhook.ruleGroups" (list $ $rules) | fromYamlArray }}
---
apiVersion: admissionregistration.k8s.io/v1
kind: {{ $kind }}WebhookConfiguration
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "gpulint-webhook.labels" $ | nindent 4 }}
  {{- if $inject }}
  annotations:
    cert-manager.io/inject-ca-from: {{ printf "%s/%s" $.Release.Namespace (include "gpulint-webhook.certificateName" $) }}
  {{- end }}
webhooks:
  {{- range $mode := list "deny" "warn" "audit" }}
  {{- range $group := $groups }}
  - name: {{ if ne $mode "deny" }}{{ $mode }}.{{ end }}{{ $group.prefix }}{{ $name }}.gpulint.io
    clientConfig:
      {{- include "gpulint-webhook.clientConfig" (list $ (printf "/%s/%s" $path $mode) $ca) | nindent 6 }}
    rules:
      {{- toYaml $group.rules | nindent 6 }}
    failurePolicy: {{ if eq $mode "deny" }}{{ $.Values.webhook.failurePolicy }}{{ else }}Ignore{{ end }}
    namespaceSelector:
      {{- include "gpulint-webhook.namespaceSelector" (list $ $mode) | nindent 6 }}
    {{- if eq $kind "Mutating" }}
    reinvocationPolicy: {{ if eq $mode "deny" }}{{ $values.reinvocationPolicy }}{{ else }}Never{{ end }}
    {{- end }}
    {{- toYaml $common | nindent 4 }}
    {{- if $group.conditions }}
    matchConditions:
      {{- toYaml $.Values.webhook.matchConditions | nindent 6 }}
    {{- end }}
  {{- end }}
  {{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The chart-made CA and serving certificate, as YAML {caCert, cert, key}: the
ones in the existing Secret when there is one, so an upgrade keeps the
caBundle the API server trusts; else new ones (ECDSA P-256: cheaper TLS
handshakes than RSA). Include it once per template file: every call without a
Secret makes new keys.
*/}}
{{- define "gpulint-webhook.generatedTLS" -}}
{{- $secret := lookup "v1" "Secret" .Release.Namespace (include "gpulint-webhook.tlsSecretName" .) }}
{{- $data := dig "data" (dict) $secret }}
{{- if and (index $data "ca.crt") (index $data "tls.crt") (index $data "tls.key") }}
caCert: {{ index $data "ca.crt" | b64dec | quote }}
cert: {{ index $data "tls.crt" | b64dec | quote }}
key: {{ index $data "tls.key" | b64dec | quote }}
{{- else }}
{{- $days := int .Values.generatedCert.validityDays }}
{{- $ca := genCAWithKey (printf "%s-ca" (include "gpulint-webhook.fullname" .)) $days (genPrivateKey "ecdsa") }}
{{- $dnsNames := include "gpulint-webhook.dnsNames" . | fromYamlArray }}
{{- $cert := genSignedCertWithKey (index $dnsNames 2) nil $dnsNames $days $ca (genPrivateKey "ecdsa") }}
caCert: {{ $ca.Cert | quote }}
cert: {{ $cert.Cert | quote }}
key: {{ $cert.Key | quote }}
{{- end }}
{{- end }}

{{/*
"true" when the VRAM mutation and the VRAM advertiser are on (vram.enabled),
else "". The render fails on values that cannot work together: the
advertiser without the node watch it learns the nodes from (GPU pods would
stay Pending, asking for a resource no node has), or a policy that sets the
VRAM mutation against vram.enabled.
*/}}
{{- define "gpulint-webhook.vramEnabled" -}}
{{- if and .Values.vram.enabled (not .Values.nodeWatch.enabled) }}
{{- fail "vram.enabled needs nodeWatch.enabled: the VRAM advertiser learns the GPU nodes from the node watch, and without it GPU pods would ask for a VRAM resource that no node advertises. Set nodeWatch.enabled=true, or vram.enabled=false as well" }}
{{- end }}
{{- $mutation := dig "mutations" "vram" "unset" (.Values.policy.spec | default dict) }}
{{- if and (ne (toString $mutation) "unset") (ne (toString $mutation) (toString .Values.vram.enabled)) }}
{{- fail (printf "policy.spec.mutations.vram is %v but vram.enabled is %v: leave policy.spec.mutations.vram out and set vram.enabled, which turns the VRAM mutation and the VRAM advertiser on and off together" $mutation .Values.vram.enabled) }}
{{- end }}
{{- if .Values.vram.enabled }}true{{ end }}
{{- end }}

{{/*
Extra flags, checked: (dict "args" LIST "owned" DICT "value" NAME "binary" NAME).
They may add flags, not repeat one the chart sets from its values (`owned`:
flag -> the value that sets it), since both binaries refuse a flag given twice
and the pod would never start. The render names the value to set instead.
*/}}
{{- define "gpulint-webhook.checkedArgs" -}}
{{- $in := . }}
{{- range .args }}
{{- $flag := first (splitList "=" .) }}
{{- with get $in.owned $flag }}
{{- fail (printf "%s: %s is set by the chart from %s; set that value instead (%s refuses a flag given twice)" $in.value $flag . $in.binary) }}
{{- end }}
{{- end }}
{{- with .args }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{/* A byte count as the webhook's flags take it: a quantity as written
("3Mi"), or a number in full (YAML reads 4194304 as a float, which would
print as 4.194304e+06). */}}
{{- define "gpulint-webhook.bytes" -}}
{{- if kindIs "string" . }}{{ . }}{{ else }}{{ . | int64 }}{{ end }}
{{- end }}

{{- define "gpulint-webhook.extraArgs" -}}
{{- $owned := dict "--listen" "listenAddress and containerPort" "--cert" "certManager or generatedCert" "--key" "certManager or generatedCert" "--policy" "policy" "--workers" "workers" "--drain-seconds" "shutdown.drainSeconds" "--allow-existing-violations" "webhook.allowExistingViolations" "--in-cluster" "nodeWatch.enabled" "--watch-stale-after" "nodeWatch.staleAfter" "--advertise-vram" "vram.enabled" "--client-ca" "clientCA.configMap" "--register" "webhook.selfRegister" "--ca-bundle" "webhook.selfRegister" "--max-body-bytes" "serverLimits.maxBodyBytes" "--max-buffered-bytes" "serverLimits.maxBufferedBytes" "--max-connections" "serverLimits.maxConnections" "--review-workers" "serverLimits.reviewWorkers" "--max-reviews-in-flight" "serverLimits.maxReviewsInFlight" "--parse-budget" "serverLimits.parseBudget" "--read-timeout-seconds" "serverLimits.readTimeoutSeconds" "--idle-timeout-seconds" "serverLimits.idleTimeoutSeconds" }}
{{- include "gpulint-webhook.checkedArgs" (dict "args" .Values.extraArgs "owned" $owned "value" "extraArgs" "binary" "gpulint-webhook") }}
{{- end }}

{{/* The audit's objects: a component of their own, and labels the webhook's
Service, PodDisruptionBudget and NetworkPolicy do not select. */}}
{{- define "gpulint-webhook.auditLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "gpulint-webhook.name" . | trunc 57 | trimSuffix "-" }}-audit
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: audit
{{- end }}

{{- define "gpulint-webhook.auditName" -}}
{{- include "gpulint-webhook.fullname" . | trunc 57 | trimSuffix "-" }}-audit
{{- end }}

{{/*
A configuration's rules, (list $ RULES), as a YAML list of webhooks to make
of them per mode: {prefix, rules, conditions}. The matchConditions matter only
past CREATE (on CREATE there is no deletionTimestamp), and each costs the API
server a conversion of the whole object per call: so CREATE gets a webhook
without them, and what rules reach past CREATE a second one ("update.") with
them. One webhook, as before, when there is nothing to split.
*/}}
{{- define "gpulint-webhook.ruleGroups" -}}
{{- $conditions := (index . 0).Values.webhook.matchConditions }}
{{- $create := list }}
{{- $later := list }}
{{- range $rule := index . 1 }}
{{- $ops := $rule.operations }}
{{- if has "*" $ops }}{{ $ops = list "CREATE" "UPDATE" "DELETE" "CONNECT" }}{{ end }}
{{- if has "CREATE" $ops }}{{ $create = append $create (merge (dict "operations" (list "CREATE")) $rule) }}{{ end }}
{{- with without $ops "CREATE" }}{{ $later = append $later (merge (dict "operations" .) $rule) }}{{ end }}
{{- end }}
{{- if or (not $conditions) (not $later) }}
- {prefix: "", conditions: false, rules: {{ index . 1 | toJson }}}
{{- else if not $create }}
- {prefix: "", conditions: true, rules: {{ index . 1 | toJson }}}
{{- else }}
- {prefix: "", conditions: false, rules: {{ $create | toJson }}}
- {prefix: "update.", conditions: true, rules: {{ $later | toJson }}}
{{- end }}
{{- end }}

{{/*
"true" when the mutating webhook judges pod CREATEs itself
(webhook.mutating.validatePods), else "". The render fails when it would
leave pods unjudged: no mutating webhook, or one whose rules do not send it
pod CREATEs.
*/}}
{{- define "gpulint-webhook.oneCall" -}}
{{- $m := .Values.webhook.mutating }}
{{- if $m.validatePods }}
{{- $covered := false }}
{{- range concat $m.rules $m.extraRules }}
{{- if and (or (has "" .apiGroups) (has "*" .apiGroups)) (has "pods" .resources) (or (has "CREATE" .operations) (has "*" .operations)) }}{{ $covered = true }}{{ end }}
{{- end }}
{{- if not (and $m.enabled $covered) }}
{{- fail "webhook.mutating.validatePods needs webhook.mutating.enabled and a webhook.mutating rule for pods on CREATE: the validating webhook no longer judges pod CREATEs, so the mutating one must receive them" }}
{{- end }}
{{- if not .Values.webhook.validating.enabled }}
{{- fail "webhook.mutating.validatePods needs webhook.validating.enabled: pod resizes and workloads are still judged by the validating webhook" }}
{{- end }}
{{- "true" }}
{{- end }}
{{- end }}

{{/*
RULES, as a YAML list, without CREATE for pods: with validatePods the
mutating webhook judges those. A rule naming pods beside other resources is
split, so the others keep every operation.
*/}}
{{- define "gpulint-webhook.withoutPodCreate" -}}
{{- range $rule := . }}
{{- if and (or (has "" $rule.apiGroups) (has "*" $rule.apiGroups)) (has "pods" $rule.resources) }}
{{- $ops := $rule.operations }}
{{- if has "*" $ops }}{{ $ops = list "CREATE" "UPDATE" "DELETE" "CONNECT" }}{{ end }}
{{- with without $ops "CREATE" }}
- {{ merge (dict "resources" (list "pods") "operations" .) $rule | toJson }}
{{- end }}
{{- with without $rule.resources "pods" }}
- {{ merge (dict "resources" .) $rule | toJson }}
{{- end }}
{{- else }}
- {{ toJson $rule }}
{{- end }}
{{- end }}
{{- end }}

{{/*
"true" when gpulint-webhook registers its webhook configurations itself
(webhook.selfRegister), else "". It reaches the API server through the
service account the node watch uses.
*/}}
{{- define "gpulint-webhook.selfRegister" -}}
{{- if and .Values.webhook.selfRegister (not .Values.nodeWatch.enabled) }}
{{- fail "webhook.selfRegister needs nodeWatch.enabled: the webhook reaches the API server, to register its configurations, through the node watch's service account. Set nodeWatch.enabled=true, or webhook.selfRegister=false to have helm register the configurations" }}
{{- end }}
{{- if .Values.webhook.selfRegister }}true{{ end }}
{{- end }}
