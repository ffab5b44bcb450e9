#!/usr/bin/env bash
# r. Hardened against its own tenants (issue 32), on the real control plane.
# Client authentication: the API server presents the client certificate its
# AdmissionConfiguration names (run.sh sets it up for the whole suite), and
# the webhook refuses a review without one, or with one of another CA, over
# real HTTPS. No silent opt-out: in deny mode an ignore annotation waives no
# error unless the policy grants it (exemptions.waiveErrors), and the webhook
# logs and counts each waiver. Least privilege (1.36: the chart's
# ValidatingAdmissionPolicies): the webhook's service account is refused
# every write but the two the chart allows, each refusal with the policy's
# message (its webhook configurations redirected, widened or given another
# CA; node status beyond the VRAM key; anything else, even with RBAC widened),
# and self-registration, the VRAM advertiser and the audit's reports still
# work. On 1.28, which has no ValidatingAdmissionPolicy v1, the chart renders
# none and installs all the same.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-r
SA=system:serviceaccount:gpulint:gpulint-webhook
PKI=$E2E_TMP/pki

# ---- client authentication, over real HTTPS ----------------------------------------

review=$(jq -nc --arg ns "$NS" '{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview",
  request: {uid: "r-1", kind: {group: "", version: "v1", kind: "Pod"}, namespace: $ns,
    operation: "CREATE", object: {apiVersion: "v1", kind: "Pod",
      metadata: {name: "p", namespace: $ns}, spec: {containers: [{name: "c", image: "busybox"}]}}}}')
post_review() {  # post_review CURL-ARGS...: OUT = body and status, RC = curl's status
  OUT=$(curl -s --max-time 10 --cacert "$PKI/ca.crt" -H 'Content-Type: application/json' \
    --data-binary "$review" -w '\nHTTP %{http_code}' "$@" "https://127.0.0.1:$WEBHOOK_PORT/validate" 2>&1) &&
    RC=0 || RC=$?
}
post_review
[[ $RC == 0 && $OUT == *$'\nHTTP 401' && $OUT == 'a client certificate signed by the configured client CA is required'* ]] ||
  fail "a review without a client certificate was not refused" \
    "HTTP 401: a client certificate signed by the configured client CA is required" "$OUT"
post_review --cert "$PKI/admin.crt" --key "$PKI/admin.key"
((RC != 0)) || fail "a client certificate of another CA (the cluster's admin) was accepted" \
  "the TLS handshake refused" "$OUT"
post_review --cert "$PKI/apiserver-webhook-client.crt" --key "$PKI/apiserver-webhook-client.key"
[[ $RC == 0 && $OUT == *$'\nHTTP 200' ]] ||
  fail "the API server's own client certificate was refused" "HTTP 200" "$OUT"
note "client certificates: none 401, another CA's refused at the handshake, the API server's 200"

# ---- no silent opt-out: an ignore annotation in deny mode --------------------------

waived_pod() {
  pod_500gi waived |
    sed 's/^metadata: {name: waived}$/metadata: {name: waived, annotations: {ignore.gpulint.io\/exceeds-allocatable: "the node has more, trust me"}}/'
}
kc create --dry-run=server -n "$NS" -f - <<<"$(waived_pod)"
expect_denied "incident 1's pod waiving its own error"
expect_denial "the denial says the annotation is not honoured" \
  "exceeds-allocatable .*\\(ignore.gpulint.io/exceeds-allocatable waives no error in namespace \"$NS\": the policy's exemptions.waiveErrors does not list it\\)"
line=$(webhook_decisions "$NS" | grep '"name":"waived"' | tail -n 1)
jq -e '.decision == "denied" and .waivers_refused == ["ignore.gpulint.io/exceeds-allocatable: \"the node has more, trust me\""]' \
  <<<"$line" >/dev/null || fail "the refused waiver is not in the decision log" "waivers_refused: [...]" "$line"
at_exit restore_policy
set_policy --set-json "policy.spec={\"exemptions\":{\"waiveErrors\":{\"namespaces\":[\"$NS\"]}}}"
kc create --dry-run=server -n "$NS" -f - <<<"$(waived_pod)"
expect_ok "the same pod where the policy grants waivers"
line=$(webhook_decisions "$NS" | grep '"name":"waived"' | tail -n 1)
jq -e '.decision != "denied" and .waived == ["ignore.gpulint.io/exceeds-allocatable: \"the node has more, trust me\""]' \
  <<<"$line" >/dev/null || fail "the honoured waiver is not in the decision log" "waived: [...]" "$line"
restore_policy
[[ $(webhook_metric 'gpulint_webhook_waivers_total{rule="exceeds-allocatable",honoured="false"}') -ge 1 &&
   $(webhook_metric 'gpulint_webhook_waivers_total{rule="exceeds-allocatable",honoured="true"}') -ge 1 ]] ||
  fail "the waivers are not counted" "gpulint_webhook_waivers_total, honoured true and false" \
    "$(webhook_metrics | grep waivers_total)"
note "waivers: refused in deny mode by default, honoured where granted; logged and counted"

# ---- least privilege --------------------------------------------------------------

rendered_policies=$(jq '[.[] | select(.kind == "ValidatingAdmissionPolicy") | .metadata.name]' \
  "$E2E_TMP/chart/objects.json")
if ((K8S_MINOR < 30)); then
  # No admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy: none rendered,
  # and the chart installed (run.sh did) and registered all the same.
  [[ $rendered_policies == "[]" ]] ||
    fail "the chart rendered access policies for a cluster that cannot serve them" "[]" "$rendered_policies"
  if k api-resources --api-group=admissionregistration.k8s.io -o wide 2>/dev/null |
    grep -q 'validatingadmissionpolicies .*admissionregistration.k8s.io/v1 '; then
    fail "1.$K8S_MINOR serves ValidatingAdmissionPolicy v1"
  fi
  note "1.$K8S_MINOR: no access policy rendered, the chart installed; RBAC alone limits the service accounts"
  exit 0
fi
[[ $(jq -c 'sort' <<<"$rendered_policies") == '["gpulint-webhook-node-status","gpulint-webhook-webhook-ca","gpulint-webhook-webhook-configurations","gpulint-webhook-writes"]' ]] ||
  fail "the chart did not render its four access policies for 1.$K8S_MINOR" "four policies" "$rendered_policies"

as_webhook() { kc --as="$SA" "$@"; }
# expect_refused_by POLICY WHAT ERE: the last kc was refused by that policy, saying ERE.
expect_refused_by() {
  ((RC != 0)) || fail "$2: was allowed" "refused by ValidatingAdmissionPolicy '$1'" "$OUT"
  grep -Eq "ValidatingAdmissionPolicy '$1' with binding '$1' denied request: $3" <<<"$OUT" ||
    fail "$2: not refused by the access policy" "ValidatingAdmissionPolicy '$1' ... denied request: $3" "$OUT"
}
vwc_patch() {  # vwc_patch JSON-PATCH: as the webhook's service account, a server-side dry run
  as_webhook patch validatingwebhookconfiguration gpulint-webhook --type=json --dry-run=server -p "$1"
}
index_of() {  # index_of WEBHOOK-NAME: its index in the validating configuration
  k get validatingwebhookconfiguration gpulint-webhook -o json |
    jq --arg n "$1" '[.webhooks[].name] | index($n)'
}
# The API server loads new policies through an informer: wait until they hold.
redirect='[{"op":"replace","path":"/webhooks/0/clientConfig/url","value":"https://attacker.example:8443/validate"}]'
policy_holds() { vwc_patch "$redirect"; ((RC != 0)) && grep -q "gpulint-webhook-webhook-configurations" <<<"$OUT"; }
wait_for 30 "the access policies in force" policy_holds ||
  fail "the access policies did not come into force within 30 s" "a refused redirect" "$OUT"

# Its webhook configurations: redirected, widened, loosened, another CA, metadata.
vwc_patch "$redirect"
expect_refused_by gpulint-webhook-webhook-configurations "its webhook sent to another URL" \
  "gpulint-webhook's service account registers only the webhooks the chart rendered into ConfigMap gpulint/gpulint-webhook-webhooks"
vwc_patch '[{"op":"add","path":"/webhooks/0/rules/-","value":{"apiGroups":[""],"apiVersions":["v1"],"resources":["secrets"],"operations":["CREATE","UPDATE"]}}]'
expect_refused_by gpulint-webhook-webhook-configurations "its webhook sent Secrets" "gpulint-webhook's service account registers only"
audit=$(index_of audit.validate.gpulint.io)
[[ $audit =~ ^[0-9]+$ ]] || fail "no audit.validate.gpulint.io registered" "an index" "$audit"
vwc_patch "[{\"op\":\"replace\",\"path\":\"/webhooks/$audit/failurePolicy\",\"value\":\"Fail\"}]"
expect_refused_by gpulint-webhook-webhook-configurations "the audit webhook made to fail closed" "gpulint-webhook's service account registers only"
vwc_patch "[{\"op\":\"replace\",\"path\":\"/webhooks/0/namespaceSelector\",\"value\":{}}]"
expect_refused_by gpulint-webhook-webhook-configurations "kube-system sent to the webhook" "gpulint-webhook's service account registers only"
vwc_patch "[{\"op\":\"replace\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$(base64 -w0 <"$PKI/webhook-clients.crt")\"}]"
expect_refused_by gpulint-webhook-webhook-ca "another CA trusted" \
  "gpulint-webhook's service account registers its webhooks with the CA of Secret gpulint/gpulint-webhook-tls"
vwc_patch '[{"op":"add","path":"/metadata/annotations","value":{"cert-manager.io/inject-ca-from-secret":"kube-system/x"}}]'
expect_refused_by gpulint-webhook-webhook-configurations "an annotation for cert-manager's injector" \
  "gpulint-webhook's service account changes no label, annotation, finalizer or owner"
# Allowed: withdrawing every webhook, as it does without a valid certificate.
as_webhook apply --server-side --field-manager=gpulint-webhook --force-conflicts --dry-run=server -f - <<'JSON'
{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
 "metadata": {"name": "gpulint-webhook"}, "webhooks": []}
JSON
expect_ok "withdrawing its webhooks"
note "webhook configurations: redirect, Secrets, failurePolicy, namespaceSelector, CA and annotation refused; withdrawal allowed"

# Node status: only the VRAM key of capacity and allocatable. kubectl reads
# the node before it patches, which the role does not grant: the PATCH goes
# as the advertiser sends it, with a token of the service account.
sa_token=$(k create token gpulint-webhook -n gpulint --duration=10m) || fail "no token for ${SA##*:}"
server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}')
node_status() {  # node_status CONTENT-TYPE BODY: a server-side dry run; OUT: the Status message
  local answer code
  answer=$(curl -s --max-time 10 --cacert "$PKI/ca.crt" -H "Authorization: Bearer $sa_token" \
    -H "Content-Type: $1" -X PATCH --data-binary "$2" -w '\n%{http_code}' \
    "$server/api/v1/nodes/gpu-v100/status?dryRun=All")
  code=${answer##*$'\n'}
  OUT=$(jq -r 'if .kind == "Status" then .message else "(the node)" end' <<<"${answer%$'\n'*}" 2>&1)
  [[ $code == 2* ]] && RC=0 || RC=1
}
node_status application/json-patch+json '[{"op":"replace","path":"/status/capacity/nvidia.com~1gpu","value":"8"}]'
expect_refused_by gpulint-webhook-node-status "a node's GPU capacity rewritten" \
  "gpulint-webhook's service account writes only gpulint.io/vram in a node's status.capacity and status.allocatable"
node_status application/merge-patch+json '{"status":{"addresses":[{"type":"InternalIP","address":"10.6.6.6"}]}}'
expect_refused_by gpulint-webhook-node-status "a node's addresses rewritten" "gpulint-webhook's service account writes only gpulint.io/vram"
node_status application/merge-patch+json '{"metadata":{"labels":{"node-role.kubernetes.io/control-plane":""}}}'
expect_refused_by gpulint-webhook-node-status "a label put on a node through its status" \
  "gpulint-webhook's service account changes no node's labels, annotations, taints or other metadata"
node_status application/merge-patch+json '{"status":{"capacity":{"gpulint.io/vram":"1Gi"},"allocatable":{"gpulint.io/vram":"1Gi"}}}'
expect_ok "the VRAM key of a node's status"
note "node status: GPU capacity, addresses and a label refused; the VRAM key allowed"

# Anything else, even when RBAC is widened by mistake: refused by the policy.
at_exit "k delete rolebinding e2e-r-widened -n $NS; k delete clusterrolebinding e2e-r-widened; k delete clusterrole e2e-r-widened"
kc create rolebinding e2e-r-widened -n "$NS" --clusterrole=edit --serviceaccount=gpulint:gpulint-webhook
expect_ok "RBAC widened: edit in $NS"
kc create clusterrole e2e-r-widened --verb=get,patch --resource=nodes
expect_ok "RBAC widened: a role to patch nodes"
kc create clusterrolebinding e2e-r-widened --clusterrole=e2e-r-widened --serviceaccount=gpulint:gpulint-webhook
expect_ok "RBAC widened: patch nodes"
wait_for 10 "RBAC widened" k auth can-i create configmaps -n "$NS" --as="$SA" ||
  fail "the widened RBAC did not take"
as_webhook create configmap e2e-r-stolen -n "$NS" --from-literal=a=b --dry-run=server
expect_refused_by gpulint-webhook-writes "a ConfigMap written with widened RBAC" \
  "gpulint-webhook's service account writes nothing but its own two webhook configurations and the VRAM of nodes' status"
as_webhook label node gpu-v100 e2e.gpulint.io/owned=yes --dry-run=server
expect_refused_by gpulint-webhook-writes "a node labelled with widened RBAC" "gpulint-webhook's service account writes nothing but"
note "with RBAC widened: a ConfigMap and a node label refused by ${SA##*:}'s writes policy"

# ---- what it may write still works, policies in force ------------------------------

# Self-registration: both configurations applied again, and accepted.
applied_ok() { webhook_metric 'gpulint_webhook_registration_applies_total{result="ok"}'; }
applied_since() { (($(applied_ok) >= $1 + 2)); }
applies=$(applied_ok)
log_lines=$(wc -l <"$WEBHOOK_LOG")
touch "$REGISTRATION_FILE"
wait_for 20 "the registration applied again" applied_since "$applies" ||
  fail "self-registration was not applied again under the access policies" \
    "registration_applies_total{result=\"ok\"} >= $applies + 2" \
    "$(webhook_metrics | grep registration_applies; tail -n +"$log_lines" "$WEBHOOK_LOG" | grep 'cannot register' | tail -n 2)"
if tail -n +"$log_lines" "$WEBHOOK_LOG" | grep -q '"msg":"cannot register'; then
  fail "the registrar was refused under the access policies" "no 'cannot register' line" \
    "$(tail -n +"$log_lines" "$WEBHOOK_LOG" | grep '"msg":"cannot register' | tail -n 2)"
fi

# The VRAM advertiser: a node that lost its VRAM gets it back (the T4's
# memory.total less the policy's driver reserve, 616Mi: docs/gpus.md).
want=$(((15360 - 616) << 20))
wait_for 30 "gpu-t4 advertising its VRAM" vram_written gpu-t4 "$want" ||
  fail "gpu-t4 does not advertise its VRAM" "gpulint.io/vram $want B"
k patch node gpu-t4 --subresource=status --type=json \
  -p '[{"op":"remove","path":"/status/capacity/gpulint.io~1vram"},{"op":"remove","path":"/status/allocatable/gpulint.io~1vram"}]' >/dev/null ||
  fail "cannot remove gpu-t4's VRAM as the admin"
wait_for 30 "gpu-t4's VRAM written again" vram_written gpu-t4 "$want" ||
  fail "the advertiser did not write gpu-t4's VRAM again under the access policies" "gpulint.io/vram $want B" \
    "$(grep -i vram "$WEBHOOK_LOG" | tail -n 3)"
note "allowed writes: self-registration applied again, gpu-t4's VRAM written again"

# ---- the audit's reports -----------------------------------------------------------

CRDS=$ROOT/testdata/crds/wgpolicyk8s.io-v1alpha2.yaml
AUDIT_SA=system:serviceaccount:gpulint:gpulint-webhook-audit
wait_for 60 "the PolicyReport CRDs of an earlier scenario gone" \
  eval '! k get crd policyreports.wgpolicyk8s.io' || fail "the PolicyReport CRDs are still being deleted"
at_exit "k delete -f $CRDS --wait=false"
kc apply -f "$CRDS"
expect_ok "apply the PolicyReport CRDs"
kc wait --for condition=established --timeout=30s crd/policyreports.wgpolicyk8s.io crd/clusterpolicyreports.wgpolicyk8s.io
expect_ok "the PolicyReport CRDs are established"
# The chart's audit objects but its CronJob: service account, role, binding, policy.
read -ra capabilities <<<"$HELM_CAPABILITIES"
audit_objects=$E2E_TMP/r-audit-objects.json
"$HELM" template gpulint-webhook "$CHART" --namespace gpulint "${capabilities[@]}" --set audit.enabled=true |
  k create --dry-run=client -o json -f - |
  jq -s '{apiVersion: "v1", kind: "List", items: [.[] | if .kind == "List" then .items[] else . end
    | select(.metadata.labels["app.kubernetes.io/component"] == "audit" and .kind != "CronJob")]}' \
    >"$audit_objects"
[[ $(jq '[.items[].kind] | sort | join(" ")' "$audit_objects") == '"ClusterRole ClusterRoleBinding ServiceAccount ValidatingAdmissionPolicy ValidatingAdmissionPolicyBinding"' ]] ||
  fail "the chart's audit objects are not what this scenario expects" \
    "ServiceAccount, ClusterRole, ClusterRoleBinding, its policy and binding" "$(jq -c '[.items[].kind]' "$audit_objects")"
at_exit "k delete -f $audit_objects --wait=false"
kc apply -f "$audit_objects"
expect_ok "the chart's audit service account, ClusterRole, binding and policy"
token=$(k create token gpulint-webhook-audit -n gpulint --duration=1h) || fail "no token for the audit's service account"
k config view --raw --minify -o json |
  jq --arg t "$token" '.users = [{name: "sa", user: {token: $t}}] | .contexts[0].context.user = "sa"' \
    >"$E2E_TMP/kubeconfig.r-audit"
# A report someone else wrote under the audit's name, without its label.
make_namespace e2e-r-other
at_exit "k delete namespace e2e-r-other --wait=false"
report() {  # report NAMESPACE NAME [LABELS-JSON]
  local labels=${3:-}
  [[ -n $labels ]] || labels='{}'
  jq -nc --arg ns "$1" --arg n "$2" --argjson l "$labels" '{apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport", metadata: {name: $n, namespace: $ns, labels: $l}, results: []}'
}
kc create -f - <<<"$(report e2e-r-other gpulint-audit)"
expect_ok "a PolicyReport named gpulint-audit, of someone else's, in e2e-r-other"
# As the audit writes: server-side apply, under its field manager.
as_audit_apply() {
  kc --as="$AUDIT_SA" apply --server-side --field-manager=gpulint -n "$NS" --dry-run=server -f - <<<"$1"
}
unlabelled() { as_audit_apply "$(report "$NS" gpulint-audit)"; }
audit_policy_holds() { unlabelled; ((RC != 0)) && grep -q gpulint-webhook-audit-reports <<<"$OUT"; }
wait_for 30 "the audit's access policy in force" audit_policy_holds ||
  fail "the audit's access policy did not come into force within 30 s" "an unlabelled report refused" "$OUT"

# Allowed: the audit writes its reports.
out=$(KUBECONFIG=$E2E_TMP/kubeconfig.r-audit "$GPULINT" audit --policy-report --fail-on none --format json 2>&1 >/dev/null) ||
  fail "gpulint audit --policy-report as the chart's audit service account failed" "exit 0" "$out"
grep -q 'ClusterPolicyReport gpulint-audit written' <<<"$out" ||
  fail "the audit did not write its ClusterPolicyReport" "ClusterPolicyReport gpulint-audit written" "$out"
# Forbidden: a report without its label, another name, someone else's deleted.
unlabelled
expect_refused_by gpulint-webhook-audit-reports "a report forged without the audit's label" \
  "gpulint audit's service account writes and deletes only the reports it labels as its own"
as_audit_apply "$(report "$NS" kyverno-polr '{"app.kubernetes.io/managed-by":"gpulint"}')"
if ((RC == 0)) || ! grep -q 'is forbidden: User "'"$AUDIT_SA"'" cannot patch resource "policyreports"' <<<"$OUT"; then
  fail "the audit's service account wrote a report of another name" "forbidden by RBAC (its role names gpulint-audit)" "$OUT"
fi
kc --as="$AUDIT_SA" delete policyreport gpulint-audit -n e2e-r-other --dry-run=server
expect_refused_by gpulint-webhook-audit-reports "someone else's report deleted" \
  "gpulint audit's service account writes and deletes only the reports it labels as its own"
note "audit: its reports written; an unlabelled one, another name and someone else's deletion refused"
