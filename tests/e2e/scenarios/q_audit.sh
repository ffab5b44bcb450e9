#!/usr/bin/env bash
# q. gpulint audit of the live cluster. A hollow V100 node of its own (incident
# 1's shape) holds pods bound by spec.nodeName, requesting 99% of its memory,
# and a Deployment whose pod the scheduler binds there, which deny mode would
# refuse (gpu-limit-missing); the namespace is in audit mode, so all are
# admitted. The audit, as the chart's ClusterRole grants it (through a service
# account token, and as kubectl's plugin): the node at risk with the requests'
# sum in both unit systems, the Deployment reported once (not its ReplicaSet
# or pod) with "deny" in deny mode were it made again. Without list on nodes:
# a message naming the verb, resource and group, exit status 2, and the
# workloads still reported. -n: one namespace's workloads, no node's sums, as
# a service account that may list in that namespace alone. --format sarif:
# every result on the --sarif-file, within GitHub code scanning's ingestion
# rules. --policy-report: the reports `kubectl get policyreports -A` shows,
# the same results as OpenReports (--report-format openreports, the chart's
# role for it, `kubectl get reports -A`), replaced by the next run, and a
# namespace's report deleted once it has nothing to say.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-q
NODE=audit-v100
kc label namespace "$NS" gpulint.io/mode=audit
expect_ok "label $NS audit"
make_namespace e2e-q-other
kc label namespace e2e-q-other gpulint.io/mode=audit
at_exit "k delete pods --all -n e2e-q-other --force --grace-period=0; k delete namespace e2e-q-other --wait=false"
at_exit "k delete node $NODE"
CRDS=$ROOT/testdata/crds/wgpolicyk8s.io-v1alpha2.yaml
OPENREPORTS_CRDS=$ROOT/testdata/crds/openreports.io-v1alpha1.yaml
at_exit "k delete -f $CRDS --wait=false"
at_exit "k delete -f $OPENREPORTS_CRDS --wait=false"
at_exit "k delete clusterrolebinding,clusterrole -l e2e.gpulint.io/audit"
sleep 1  # the API server reads namespace labels through its informer

# The PolicyReport CRDs, as a cluster running Kyverno or Policy Reporter has
# them, and OpenReports', as Kyverno 1.15 installs them.
kc apply -f "$CRDS" -f "$OPENREPORTS_CRDS"
expect_ok "apply the PolicyReport and OpenReports CRDs"
kc wait --for condition=established --timeout=30s crd/policyreports.wgpolicyk8s.io \
  crd/clusterpolicyreports.wgpolicyk8s.io crd/reports.openreports.io crd/clusterreports.openreports.io
expect_ok "the PolicyReport and OpenReports CRDs are established"

# Incident 1's V100 node, tainted so that no other scenario's pod lands on it.
make_node "$NODE" '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"4",
    "nvidia.com/gpu.product":"Tesla-V100-SXM2-32GB","nvidia.com/gpu.memory":"32768"}' \
  "[$GPU_TAINT,{\"key\":\"e2e.gpulint.io/audit\",\"value\":\"only\",\"effect\":\"NoSchedule\"}]" \
  '{"cpu":"48","memory":"527787256Ki","nvidia.com/gpu":"4","pods":"110"}'

bound_pod() {  # bound_pod NAMESPACE NAME MEMORY GPUS [ENV]: a pod bound to NODE at its creation
  kc create -n "$1" -f - <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $2}
spec:
  nodeName: $NODE
  containers:
  - name: main
    image: registry.example/app:1
    env: [${5:-}]
    resources:
      requests: {memory: $3, nvidia.com/gpu: $4}
      limits: {memory: $3, nvidia.com/gpu: $4}
YAML
  expect_ok "pod $1/$2 bound to $NODE"
}
# The job and the node's daemons of the field report: 525374500Ki requested.
bound_pod "$NS" job-500gi 500Gi 2
bound_pod "$NS" fluentd 1000Mi 0
# (flannel sees every GPU, gpu-visibility-bypass: a finding in its namespace.)
bound_pod e2e-q-other flannel 64M 0 '{name: NVIDIA_VISIBLE_DEVICES, value: all}'

# A Deployment whose CUDA pods tolerate every taint and set no GPU limit: deny
# mode would refuse it made again (gpu-limit-missing); the scheduler binds this
# one to the node's last 2.3 GiB.
kc create -n "$NS" -f - <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  replicas: 1
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      nodeSelector: {kubernetes.io/hostname: $NODE}
      tolerations: [{operator: Exists, effect: NoSchedule}]
      containers:
      - name: train
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          requests: {memory: 1Gi}
          limits: {memory: 1Gi}
YAML
expect_ok "the trainer Deployment, admitted in audit mode"
wait_bound app=trainer 1 60 "$NODE"

# The chart's audit ClusterRole, for a service account here, and the same
# without nodes for another.
role() {  # role NAME JQ-FILTER-ON-RULES [HELM-ARGS...]
  "$HELM" template gpulint-webhook "$CHART" --namespace gpulint --set audit.enabled=true "${@:3}" |
    k create --dry-run=client -o json -f - |
    jq -s --arg n "$1" '[.[] | if .kind == "List" then .items[] else . end
      | select(.kind == "ClusterRole" and (.metadata.name | endswith("-audit")))][0]
      | .metadata = {name: $n, labels: {"e2e.gpulint.io/audit": "true"}} | .rules |= ('"$2"')'
}
# kubeconfig_for SERVICE-ACCOUNT ROLE: $E2E_TMP/kubeconfig.SERVICE-ACCOUNT, the
# admin's cluster with a token of that service account, bound to ROLE.
kubeconfig_for() {
  kc create serviceaccount "$1" -n "$NS"
  expect_ok "service account $1"
  kc create clusterrolebinding "e2e-q-$1" --clusterrole="$2" --serviceaccount="$NS:$1"
  expect_ok "bind $2 to $1"
  k label clusterrolebinding "e2e-q-$1" e2e.gpulint.io/audit=true >/dev/null
  local token
  token=$(k create token "$1" -n "$NS" --duration=1h) || fail "no token for service account $1"
  k config view --raw --minify -o json |
    jq --arg t "$token" '.users = [{name: "sa", user: {token: $t}}] | .contexts[0].context.user = "sa"' \
      >"$E2E_TMP/kubeconfig.$1"
}
role e2e-q-audit '.' | k apply -f - >/dev/null
role e2e-q-no-nodes 'map(.resources -= ["nodes"])' | k apply -f - >/dev/null
role e2e-q-openreports '.' --set audit.reportFormat=openreports | k apply -f - >/dev/null
kubeconfig_for auditor e2e-q-audit
kubeconfig_for blind e2e-q-no-nodes
kubeconfig_for reporter e2e-q-openreports
AUDITOR=$E2E_TMP/kubeconfig.auditor
BLIND=$E2E_TMP/kubeconfig.blind
REPORTER=$E2E_TMP/kubeconfig.reporter
# A service account that may list in e2e-q-other alone: the audit role bound
# there by a RoleBinding, which grants nothing cluster-wide (no nodes).
kc create serviceaccount local -n e2e-q-other
expect_ok "service account local"
kc create rolebinding e2e-q-local --clusterrole=e2e-q-audit --serviceaccount=e2e-q-other:local \
  -n e2e-q-other
expect_ok "bind e2e-q-audit to local in e2e-q-other"
token=$(k create token local -n e2e-q-other --duration=1h) || fail "no token for service account local"
k config view --raw --minify -o json |
  jq --arg t "$token" '.users = [{name: "sa", user: {token: $t}}] | .contexts[0].context.user = "sa"' \
    >"$E2E_TMP/kubeconfig.local"
LOCAL=$E2E_TMP/kubeconfig.local

# --- the audit, as kubectl's plugin, with the chart's permissions ---------------
plugins=$E2E_TMP/plugins
mkdir -p "$plugins"
ln -sf "$GPULINT" "$plugins/kubectl-gpulint"
audit_json() {  # audit_json KUBECONFIG [ARGS...]: JSON in OUT, stderr in ERR, status in RC
  local err=$E2E_TMP/audit.err
  OUT=$(PATH="$plugins:$PATH" KUBECONFIG="$1" "$KUBECTL" gpulint audit --format json --fail-on none \
    "${@:2}" 2>"$err") && RC=0 || RC=$?
  ERR=$(cat "$err")
}
audit_json "$AUDITOR"
((RC == 0)) || fail "kubectl gpulint audit with the chart's ClusterRole: exit status $RC" "0" "$ERR"
jq -e '.errors == []' <<<"$OUT" >/dev/null || fail "the chart's ClusterRole lacks a permission" \
  '"errors": []' "$(jq -c .errors <<<"$OUT")"

node=$(jq -c --arg n "$NODE" '.nodes[] | select(.name == $n)' <<<"$OUT")
jq -e '.pods == 4 and .requests.memory == "526423076Ki"' <<<"$node" >/dev/null ||
  fail "the node's pods are not summed as bound" "4 pods, memory requests 526423076Ki" "$node"
msg=$(jq -r '.findings[] | select(.rule == "node-memory-requests") | .message' <<<"$node")
grep -q '^memory requests of its 4 pods 526423076Ki (539057229824 B = 539.1 GB = 502 GiB), 99% of allocatable, > allocatable 527787256Ki (540454150144 B = 540.5 GB = 503.3 GiB) - reserved .* = .*: .* over$' <<<"$msg" ||
  fail "the 99% node is not reported with its arithmetic" "node-memory-requests: memory requests of its 4 pods 526423076Ki ..., 99% of allocatable, > allocatable 527787256Ki ... = ...: ... over" "$msg"
note "node $NODE: $msg"

trainer=$(jq -c --arg ns "$NS" '[.workloads[] | select(.object.namespace == $ns and (.object.name | startswith("trainer")))]' <<<"$OUT")
jq -e 'length == 1 and .[0].object.kind == "Deployment" and .[0].object.name == "trainer"
    and .[0].pods == 1 and .[0].owned == 2
    and .[0].nextPod.deny == "deny" and .[0].nextPod.warn == "warn" and .[0].nextPod.audit == "allow"
    and any(.[0].nextPod.findings[]; .rule == "gpu-limit-missing" and .severity == "error")' \
  <<<"$trainer" >/dev/null ||
  fail "the trainer is not reported once, under its Deployment, with deny were it made again" \
    'one workload: Deployment trainer, 1 pod, 2 owned (ReplicaSet, pod), deny/warn/allow, gpu-limit-missing' "$trainer"
note "Deployment trainer: next pod $(jq -c '.[0].nextPod | {deny, warn, audit}' <<<"$trainer")"
jq -e --arg ns "$NS" 'any(.workloads[]; .object.namespace == $ns and .object.name == "job-500gi"
    and .barePod and any(.nextPod.findings[]; .rule == "exceeds-allocatable"))' <<<"$OUT" >/dev/null ||
  fail "the bare 500Gi pod is not judged on its own node" "job-500gi: exceeds-allocatable" \
    "$(jq -c --arg ns "$NS" '[.workloads[] | select(.object.namespace == $ns)]' <<<"$OUT" | cut -c1-2000)"

# The text report says the same to a person.
text=$(KUBECONFIG="$AUDITOR" "$GPULINT" audit --fail-on none 2>&1) ||
  fail "gpulint audit (text) failed" "exit 0" "$text"
printf '%s\n' "$text" >"$E2E_TMP/audit.txt"  # kept with GPULINT_E2E_KEEP=1 (docs/audit.md)
grep -q "^  Deployment $NS/trainer (1 pod)$" <<<"$text" &&
  grep -q '^    made again: deny mode deny, warn mode warn, audit mode allow$' <<<"$text" &&
  grep -q "^  Node $NODE: 4 pods; " <<<"$text" ||
  fail "the text report lacks the node or the Deployment" "Node $NODE, Deployment $NS/trainer" "$text"
# What the docs show of it is what it prints.
for doc in docs/audit.md README.md; do
  why=$(python3 "$ROOT/tests/e2e/excerpt.py" "$ROOT/$doc" "<!-- audit example" <<<"$text" 2>&1) ||
    fail "$doc's audit example is not what gpulint audit prints" "$why" "$text"
done

# --- without list on nodes: said, and the rest reported ----------------------
audit_json "$BLIND"
((RC == 2)) || fail "an audit refused nodes exits $RC" "2" "$ERR"
grep -q '^kubectl gpulint: error: cannot list nodes (verb list, resource nodes, the core API group, all namespaces): forbidden; no node is checked for what its pods request, and workloads are judged against the policy'"'"'s node classes only (the API server said: nodes is forbidden: User "system:serviceaccount:e2e-q:blind" cannot list resource "nodes" in API group "" at the cluster scope)$' <<<"$ERR" ||
  fail "no clear message for the refused node list" \
    'kubectl gpulint: error: cannot list nodes (verb list, resource nodes, the core API group, all namespaces): forbidden; ...' "$ERR"
jq -e --arg ns "$NS" '(.nodes == []) and (.errors | length == 1)
    and any(.workloads[]; .object.namespace == $ns and .object.kind == "Deployment" and .object.name == "trainer")' \
  <<<"$OUT" >/dev/null || fail "the partial report lacks the workloads" "Deployment trainer, no nodes, 1 error" \
  "$(jq -c '{nodes: (.nodes | length), errors, workloads: [.workloads[].object.name]}' <<<"$OUT")"
note "without list nodes: exit 2, $(jq -r '.errors[0].message' <<<"$OUT" | cut -c1-80)..."

# --- -n: one namespace, as one who may list there alone --------------------------
audit_json "$LOCAL" -n e2e-q-other
# Its pods and workloads are listed; the nodes (cluster-wide) are not granted.
jq -e '(.namespace == "e2e-q-other") and (.summary.nodesSummed == false)
    and (.errors | length == 1) and (.errors[0].message | startswith("cannot list nodes"))
    and (.workloads | length == 1) and .workloads[0].object.name == "flannel"
    and any(.workloads[0].nextPod.findings[]; .rule == "gpu-visibility-bypass")' <<<"$OUT" >/dev/null ||
  fail "audit -n e2e-q-other as a namespace's account" \
    "flannel judged, nodes not summed, only the nodes list refused" \
    "$(jq -c '{namespace, summary, errors, workloads: [.workloads[].object.name]}' <<<"$OUT")"
# With the cluster role: the namespace's workloads against the real nodes,
# their sums left alone.
text=$(KUBECONFIG="$AUDITOR" "$GPULINT" audit -n "$NS" --fail-on none 2>&1) ||
  fail "gpulint audit -n $NS failed" "exit 0" "$text"
grep -q "^gpulint audit of .*; namespace $NS; policy: built-in$" <<<"$text" &&
  grep -q "^Nodes at risk: not checked (an audit of namespace $NS sees its own pods only" <<<"$text" &&
  grep -q "^  Deployment $NS/trainer (1 pod)$" <<<"$text" &&
  ! grep -q "e2e-q-other/flannel" <<<"$text" ||
  fail "gpulint audit -n $NS" "namespace $NS, nodes not checked, its Deployment, no other namespace" "$text"
note "-n: $(tail -1 <<<"$text")"

# --- SARIF: every result on the stated file, as code scanning takes it ----------
(cd "$ROOT" && KUBECONFIG="$AUDITOR" "$GPULINT" audit --format sarif --fail-on none \
  --sarif-file docs/audit.md >"$E2E_TMP/audit.sarif") ||
  fail "gpulint audit --format sarif --sarif-file docs/audit.md failed" "exit 0" ""
problems=$(python3 "$ROOT/tests/sarif_github.py" --root "$ROOT" "$E2E_TMP/audit.sarif" 2>&1) ||
  fail "the audit's SARIF is not what GitHub code scanning takes" "no problem" "$problems"
jq -e '(.runs[0].results | length) >= 4
    and all(.runs[0].results[]; .locations[0].physicalLocation.artifactLocation.uri == "docs/audit.md")
    and ([.runs[0].results[].partialFingerprints.primaryLocationLineHash] | unique | length)
        == (.runs[0].results | length)' "$E2E_TMP/audit.sarif" >/dev/null ||
  fail "the audit's SARIF results are not each on docs/audit.md with an identity of its own" \
    "every result on docs/audit.md, distinct primaryLocationLineHash" \
    "$(jq -c '[.runs[0].results[] | {ruleId, l: .locations[0].physicalLocation, p: .partialFingerprints}]' "$E2E_TMP/audit.sarif" | cut -c1-1500)"
set +e
out=$(KUBECONFIG="$AUDITOR" "$GPULINT" audit --format sarif 2>&1)
rc=$?
set -e
((rc == 2)) && grep -qF -- "--format sarif needs --sarif-file FILE" <<<"$out" ||
  fail "audit --format sarif without --sarif-file" "exit 2, --format sarif needs --sarif-file FILE" "$out"
note "SARIF: $(jq '.runs[0].results | length' "$E2E_TMP/audit.sarif") results on docs/audit.md, as code scanning takes them"

# --- --policy-report: written, replaced, stale ones deleted ---------------------
audit_json "$AUDITOR" --policy-report
((RC == 0)) || fail "audit --policy-report with the chart's ClusterRole: exit status $RC" "0" "$ERR"
wg_found=$OUT
kc get policyreports -A
expect_ok "kubectl get policyreports -A"
grep -Eq "^$NS +gpulint-audit +0 +[0-9]+ +[0-9]+ " <<<"$OUT" &&
  grep -Eq '^e2e-q-other +gpulint-audit ' <<<"$OUT" ||
  fail "kubectl get policyreports -A does not show the reports" "gpulint-audit in $NS and e2e-q-other" "$OUT"
note "$(grep gpulint-audit <<<"$OUT" | tr -s ' ' | paste -sd';')"
report=$(k get policyreport gpulint-audit -n "$NS" -o json)
jq -e '.summary.fail >= 2 and any(.results[]; .rule == "gpu-limit-missing" and .result == "fail"
    and .resources[0].kind == "Deployment" and .resources[0].name == "trainer"
    and .properties.nextPodDeny == "deny")' <<<"$report" >/dev/null ||
  fail "the PolicyReport of $NS lacks the trainer's result" "a fail result for Deployment trainer" \
  "$(jq -c '.results[] | {rule, result, resources}' <<<"$report")"
k get clusterpolicyreport gpulint-audit -o json |
  jq -e --arg n "$NODE" 'any(.results[]; .rule == "node-memory-requests" and .resources[0].name == $n)' >/dev/null ||
  fail "the ClusterPolicyReport lacks the node at risk" "node-memory-requests on $NODE"

# --- OpenReports: the same results as Reports and a ClusterReport ---------------
# As the chart's role for them (audit.reportFormat=openreports), which grants
# nothing on wgpolicyk8s.io.
audit_json "$REPORTER" --policy-report --report-format openreports
((RC == 0)) || fail "audit --policy-report --report-format openreports with its role: exit status $RC" "0" "$ERR"
open_found=$OUT
grep -q '^kubectl gpulint: ClusterReport gpulint-audit written ([0-9]* results)$' <<<"$ERR" ||
  fail "the OpenReports run does not say it wrote the ClusterReport" "ClusterReport gpulint-audit written" "$ERR"
kc get reports -A
expect_ok "kubectl get reports -A"
grep -Eq "^$NS +gpulint-audit +0 +[0-9]+ +[0-9]+ " <<<"$OUT" &&
  grep -Eq '^e2e-q-other +gpulint-audit ' <<<"$OUT" ||
  fail "kubectl get reports -A does not show the reports" "gpulint-audit in $NS and e2e-q-other" "$OUT"
note "OpenReports: $(grep gpulint-audit <<<"$OUT" | tr -s ' ' | paste -sd';')"
# Each report holds what its own run found in its namespace (the cluster-wide
# one: the nodes and cluster-scoped objects), in both APIs. Compared with the
# run's findings, not across the two runs: a node's status may change between
# them (the VRAM advertiser retries), and so may a node's sums.
# results_of KIND NAME [NAMESPACE]: its results' rule, message and object, sorted.
results_of() {
  k get "$1" "$2" ${3:+-n "$3"} -o json |
    jq -c '[.results[] | [.rule, .message, .resources[0].kind, .resources[0].name]] | sort'
}
# found_in RUN-JSON NAMESPACE: the same of the run's findings there.
found_in() {
  jq -c --arg ns "$2" '[.findings[] | select(.object.namespace == $ns)
    | [.rule, .message, .object.kind, .object.name]] | sort' <<<"$1"
}
# holds WHAT FOUND REPORTED: fails when the report's results are not what was found.
holds() {
  [[ $2 != "[]" && $2 == "$3" ]] ||
    fail "$1 does not hold its run's findings" "the same results" \
      "$(diff <(jq . <<<"$2") <(jq . <<<"$3") | head -40)"
}
for ns in "$NS" e2e-q-other; do
  holds "the PolicyReport of $ns" "$(found_in "$wg_found" "$ns")" \
    "$(results_of policyreports.wgpolicyk8s.io gpulint-audit "$ns")"
  holds "the Report of $ns" "$(found_in "$open_found" "$ns")" \
    "$(results_of reports.openreports.io gpulint-audit "$ns")"
done
holds "the ClusterPolicyReport" "$(found_in "$wg_found" "")" \
  "$(results_of clusterpolicyreports.wgpolicyk8s.io gpulint-audit)"
holds "the ClusterReport" "$(found_in "$open_found" "")" \
  "$(results_of clusterreports.openreports.io gpulint-audit)"
# And the same fields in each result, as the two APIs define them alike.
fields_of() { k get "$1" gpulint-audit -n "$NS" -o json | jq -c '[.results[] | keys] | unique'; }
[[ $(fields_of reports.openreports.io) == "$(fields_of policyreports.wgpolicyk8s.io)" ]] ||
  fail "the Report's results have other fields than the PolicyReport's" "the same fields" \
    "$(fields_of reports.openreports.io) vs $(fields_of policyreports.wgpolicyk8s.io)"
k get report gpulint-audit -n "$NS" -o json |
  jq -e '.apiVersion == "openreports.io/v1alpha1" and .source == "gpulint"
    and .metadata.labels["app.kubernetes.io/managed-by"] == "gpulint"
    and (.summary | .fail >= 2 and .pass == 0)' >/dev/null ||
  fail "the Report of $NS is not an openreports.io/v1alpha1 Report of gpulint's" \
    "apiVersion openreports.io/v1alpha1, source gpulint, its label, a summary" \
    "$(k get report gpulint-audit -n "$NS" -o json | jq -c 'del(.results)')"
# The wgpolicyk8s.io reports were not touched by it.
[[ $(k get policyreport gpulint-audit -n "$NS" -o jsonpath='{.metadata.resourceVersion}') == \
  $(jq -r .metadata.resourceVersion <<<"$report") ]] ||
  fail "the OpenReports run changed the PolicyReport" "its resourceVersion unchanged" ""

# The next run replaces them: the flannel pod gone, e2e-q-other has nothing to
# say and its report goes; the trainer's stays, once.
k delete pod flannel -n e2e-q-other --force --grace-period=0 >/dev/null 2>&1
before=$(k get policyreport gpulint-audit -n "$NS" -o jsonpath='{.metadata.uid}')
audit_json "$AUDITOR" --policy-report
((RC == 0)) || fail "the second audit --policy-report: exit status $RC" "0" "$ERR"
grep -q '^kubectl gpulint: stale PolicyReport e2e-q-other/gpulint-audit deleted$' <<<"$ERR" ||
  fail "the second run does not say it deleted the stale report" \
    "kubectl gpulint: stale PolicyReport e2e-q-other/gpulint-audit deleted" "$ERR"
kc get policyreports -A -l app.kubernetes.io/managed-by=gpulint -o json
reports=$(jq -c '[.items[] | .metadata.namespace + "/" + .metadata.name]' <<<"$OUT")
jq -e --arg ns "$NS" 'index($ns + "/gpulint-audit") != null and index("e2e-q-other/gpulint-audit") == null' \
  <<<"$reports" >/dev/null || fail "the second run did not replace the reports" \
  "$NS/gpulint-audit, and none in e2e-q-other" "$reports"
after=$(k get policyreport gpulint-audit -n "$NS" -o json)
[[ $(jq -r .metadata.uid <<<"$after") == "$before" ]] ||
  fail "the report of $NS was made again rather than replaced" "uid $before" "$(jq -r .metadata.uid <<<"$after")"
jq -e '[.results[] | select(.rule == "gpu-limit-missing")] | length == 1' <<<"$after" >/dev/null ||
  fail "the trainer's result is not there once" "1 gpu-limit-missing result" "$(jq -c '[.results[].rule]' <<<"$after")"
note "second run: $reports"
# The same with OpenReports: e2e-q-other's Report goes too.
audit_json "$REPORTER" --policy-report --report-format openreports
((RC == 0)) || fail "the second OpenReports run: exit status $RC" "0" "$ERR"
grep -q '^kubectl gpulint: stale Report e2e-q-other/gpulint-audit deleted$' <<<"$ERR" ||
  fail "the second OpenReports run does not delete the stale Report" \
    "kubectl gpulint: stale Report e2e-q-other/gpulint-audit deleted" "$ERR"
k get report gpulint-audit -n e2e-q-other >/dev/null 2>&1 &&
  fail "e2e-q-other's Report is still there" "deleted" ""
note "second OpenReports run: e2e-q-other's Report deleted"
