{{/*
What the access policies (accesspolicies.yaml) hold the webhook's
registrations to: each rendered webhook as one line of text, which the
registration ConfigMap carries (webhooks.yaml's ConfigMap, one key per
webhook: "<resource>.<webhook name>") and the policy's CEL rebuilds from what
the service account writes. The two must build the same text from the same
webhook, so keep them in step:

  QUOTED(name) clientConfig (url QUOTED(url) | service QUOTED(namespace)
  QUOTED(name) QUOTED(path) PORT) rules [LIST(apiGroups)LIST(apiVersions)
  LIST(operations)LIST(resources)QUOTED(scope),...] failurePolicy QUOTED
  matchPolicy QUOTED namespaceSelector SELECTOR objectSelector SELECTOR
  sideEffects QUOTED timeoutSeconds N admissionReviewVersions LIST
  reinvocationPolicy QUOTED matchConditions [QUOTED(name) QUOTED(expression),...]

QUOTED is the text in double quotes with \ and " escaped, LIST its items
QUOTED and comma-joined in brackets, SELECTOR the count of matchLabels and its
matchExpressions [QUOTED(key) QUOTED(operator) LIST(values),...]. Every string
quoted and escaped: no value can pass for another field. Absent fields read as
the API server defaults them (scope "*", port 443, failurePolicy Fail,
matchPolicy Equivalent, timeoutSeconds 10).
*/}}
{{- define "gpulint-webhook.celQuote" -}}
"{{ . | toString | replace "\\" "\\\\" | replace "\"" "\\\"" }}"
{{- end }}

{{- define "gpulint-webhook.celQuoteList" -}}
[{{ range $i, $x := . }}{{ if $i }},{{ end }}{{ include "gpulint-webhook.celQuote" $x }}{{ end }}]
{{- end }}

{{- define "gpulint-webhook.canonicalSelector" -}}
{{- $s := . | default dict -}}
{{- if $s.matchLabels }}{{ fail "the access policy compares selectors by their matchExpressions: a rendered webhook has matchLabels" }}{{ end -}}
0 [{{ range $i, $e := ($s.matchExpressions | default list) }}{{ if $i }},{{ end }}{{ include "gpulint-webhook.celQuote" $e.key }} {{ include "gpulint-webhook.celQuote" $e.operator }} {{ include "gpulint-webhook.celQuoteList" ($e.values | default list) }}{{ end }}]
{{- end }}

{{- define "gpulint-webhook.canonicalWebhook" -}}
{{- $w := . -}}
{{- $q := "gpulint-webhook.celQuote" -}}
{{- $l := "gpulint-webhook.celQuoteList" -}}
{{- $cc := $w.clientConfig -}}
{{ include $q $w.name }} clientConfig {{ if $cc.url }}url {{ include $q $cc.url }}{{ else }}service {{ include $q $cc.service.namespace }} {{ include $q $cc.service.name }} {{ include $q ($cc.service.path | default "") }} {{ $cc.service.port | default 443 | int }}{{ end }} rules [{{ range $i, $r := $w.rules }}{{ if $i }},{{ end }}{{ include $l ($r.apiGroups | default list) }}{{ include $l ($r.apiVersions | default list) }}{{ include $l ($r.operations | default list) }}{{ include $l ($r.resources | default list) }}{{ include $q ($r.scope | default "*") }}{{ end }}] failurePolicy {{ include $q ($w.failurePolicy | default "Fail") }} matchPolicy {{ include $q ($w.matchPolicy | default "Equivalent") }} namespaceSelector {{ include "gpulint-webhook.canonicalSelector" $w.namespaceSelector }} objectSelector {{ include "gpulint-webhook.canonicalSelector" $w.objectSelector }} sideEffects {{ include $q ($w.sideEffects | default "") }} timeoutSeconds {{ $w.timeoutSeconds | default 10 | int }} admissionReviewVersions {{ include $l ($w.admissionReviewVersions | default list) }} reinvocationPolicy {{ include $q ($w.reinvocationPolicy | default "") }} matchConditions [{{ range $i, $c := ($w.matchConditions | default list) }}{{ if $i }},{{ end }}{{ include $q $c.name }} {{ include $q $c.expression }}{{ end }}]
{{- end }}

{{/*
The registration ConfigMap's keys beside webhooks.yaml: (the configurations
as YAML documents) -> "<resource>.<webhook name>: <canonical text>" lines.
*/}}
{{- define "gpulint-webhook.canonicalWebhooks" -}}
{{- range . | splitList "---" }}
{{- with . | fromYaml }}
{{- $resource := printf "%swebhookconfigurations" (.kind | trimSuffix "WebhookConfiguration" | lower) }}
{{- range .webhooks }}
{{ printf "%s.%s" $resource .name }}: {{ include "gpulint-webhook.canonicalWebhook" . | toJson }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/*
"true" when the access policies are rendered: accessPolicies.enabled and a
cluster that serves admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy
(Kubernetes 1.30+; `helm template` is told so with --api-versions).
*/}}
{{- define "gpulint-webhook.accessPolicies" -}}
{{- if and .Values.accessPolicies.enabled (.Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy") }}true{{ end }}
{{- end }}

{{- define "gpulint-webhook.serviceAccountUser" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "gpulint-webhook.serviceAccountName" .) }}
{{- end }}

{{/* A CEL expression: `text` in double quotes with \ and " escaped ($x, a string variable). */}}
{{- define "gpulint-webhook.celQ" -}}
('"' + ({{ . }}).replace('\\', '\\\\').replace('"', '\\"') + '"')
{{- end }}

{{/* CEL: the items of list `.` quoted, comma-joined, in brackets; (list EXPR VAR). */}}
{{- define "gpulint-webhook.celL" -}}
('[' + ({{ index . 0 }}).map({{ index . 1 }}, {{ include "gpulint-webhook.celQ" (index . 1) }}).join(',') + ']')
{{- end }}

{{/* CEL: a selector's text; (list EXPR VAR-PREFIX). */}}
{{- define "gpulint-webhook.celSelector" -}}
{{- $s := index . 0 }}{{ $v := index . 1 -}}
(string(size({{ $s }}.?matchLabels.orValue({}))) + ' [' + {{ $s }}.?matchExpressions.orValue([]).map({{ $v }}e, {{ include "gpulint-webhook.celQ" (printf "%se.key" $v) }} + ' ' + {{ include "gpulint-webhook.celQ" (printf "%se.operator" $v) }} + ' ' + {{ include "gpulint-webhook.celL" (list (printf "%se.?values.orValue([])" $v) (printf "%sv" $v)) }}).join(',') + ']')
{{- end }}

{{/* CEL: the canonical text of webhook `w` (see the top of this file). */}}
{{- define "gpulint-webhook.celCanonicalWebhook" -}}
{{- $q := "gpulint-webhook.celQ" -}}
{{- $l := "gpulint-webhook.celL" -}}
{{ include $q "w.name" }}
+ ' clientConfig ' + (has(w.clientConfig.url)
    ? 'url ' + {{ include $q "w.clientConfig.url" }}
    : 'service ' + {{ include $q "w.clientConfig.service.namespace" }} + ' ' + {{ include $q "w.clientConfig.service.name" }}
      + ' ' + {{ include $q "w.clientConfig.service.?path.orValue('')" }} + ' ' + string(w.clientConfig.service.?port.orValue(443)))
+ ' rules [' + w.?rules.orValue([]).map(r,
    {{ include $l (list "r.?apiGroups.orValue([])" "g") }} + {{ include $l (list "r.?apiVersions.orValue([])" "v") }}
    + {{ include $l (list "r.?operations.orValue([])" "o") }} + {{ include $l (list "r.?resources.orValue([])" "n") }}
    + {{ include $q "r.?scope.orValue('*')" }}).join(',') + ']'
+ ' failurePolicy ' + {{ include $q "w.?failurePolicy.orValue('Fail')" }}
+ ' matchPolicy ' + {{ include $q "w.?matchPolicy.orValue('Equivalent')" }}
+ ' namespaceSelector ' + {{ include "gpulint-webhook.celSelector" (list "w.?namespaceSelector.orValue({})" "ns") }}
+ ' objectSelector ' + {{ include "gpulint-webhook.celSelector" (list "w.?objectSelector.orValue({})" "os") }}
+ ' sideEffects ' + {{ include $q "w.?sideEffects.orValue('')" }}
+ ' timeoutSeconds ' + string(w.?timeoutSeconds.orValue(10))
+ ' admissionReviewVersions ' + {{ include $l (list "w.?admissionReviewVersions.orValue([])" "a") }}
+ ' reinvocationPolicy ' + {{ include $q "w.?reinvocationPolicy.orValue('')" }}
+ ' matchConditions [' + w.?matchConditions.orValue([]).map(c, {{ include $q "c.name" }} + ' ' + {{ include $q "c.expression" }}).join(',') + ']'
{{- end }}
