# shellcheck shell=bash
# shellcheck disable=SC2034  # ROOT, NS and OUT are read by the scripts that source this
# Sourced by run.sh and by each scenario: kubectl, assertions that say what
# was expected and what was printed, bounded polling, hollow nodes, and the
# webhook's policy and log. A scenario runs as its own process, against the
# cluster run.sh started (KUBECONFIG, KUBECTL, E2E_TMP... in the environment),
# in its own namespace, and exits 1 at its first failed expectation.
set -euo pipefail

E2E=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$E2E/../.." && pwd)
SCENARIO=${SCENARIO:-$(basename "$0" .sh)}

# kubectl as the cluster admin; every call bounded.
k() { "$KUBECTL" --request-timeout=20s "$@"; }

# kc ARGS...: kubectl with its stdout and stderr together in OUT, its exit
# status in RC (never fails by itself: the caller asserts).
kc() {
  OUT=$(k "$@" 2>&1) && RC=0 || RC=$?
}

note() { echo "  [$SCENARIO] $*"; }

indent() { sed 's/^/      | /'; }

# fail WHAT [EXPECTED [PRINTED]]: the first failed expectation ends the scenario.
fail() {
  {
    echo "FAIL [$SCENARIO]: $1"
    [[ $# -ge 2 ]] && { echo "    expected: $2"; }
    [[ $# -ge 3 ]] && { echo "    printed:"; printf '%s\n' "$3" | indent; }
    if [[ -n ${NS:-} ]]; then
      echo "    --- pods in $NS:"
      k get pods -n "$NS" -o wide 2>&1 | indent || true
      echo "    --- events in $NS:"
      k get events -n "$NS" --sort-by=.lastTimestamp \
        -o custom-columns=REASON:.reason,OBJECT:.involvedObject.name,MESSAGE:.message 2>&1 |
        cut -c1-400 | indent || true
      echo "    --- gpulint-webhook decisions for $NS:"
      webhook_decisions "$NS" | tail -n 20 | cut -c1-400 | indent || true
    fi
    if [[ -n ${WEBHOOK_LOG:-} ]] && grep -q '"level":"\(error\|warn\)' "$WEBHOOK_LOG"; then
      echo "    --- gpulint-webhook's last errors and warnings:"
      grep '"level":"\(error\|warn\)' "$WEBHOOK_LOG" | tail -n 5 | cut -c1-400 | indent
    fi
  } >&2
  exit 1
}

# ---- assertions on what kubectl printed ----------------------------------------

# expect_ok WHAT: the last kc succeeded.
expect_ok() {
  ((RC == 0)) || fail "$1: kubectl failed (exit status $RC)" "success" "$OUT"
}

# expect_denied WHAT: the last kc was refused by one of gpulint's webhooks:
# validate.gpulint.io, update.validate.gpulint.io (past CREATE), or
# mutate.gpulint.io with one call per pod (webhook.mutating.validatePods).
expect_denied() {
  ((RC != 0)) || fail "$1: was admitted" "denied by validate.gpulint.io" "$OUT"
  grep -Eq 'admission webhook "([a-z]+\.)*gpulint\.io" denied the request' <<<"$OUT" ||
    fail "$1: failed, but not by gpulint's denial" \
      'admission webhook "validate.gpulint.io" denied the request: ...' "$OUT"
}

# The denial's own text (what follows "denied the request:"), without the
# warnings kubectl prints before it.
denial() { grep -o 'denied the request: .*' <<<"$OUT" || true; }

# expect_denial WHAT ERE / expect_denial_not WHAT ERE: the denial's text
# matches (does not match) ERE.
expect_denial() {
  grep -Eq -- "$2" <<<"$(denial)" || fail "$1" "a denial matching /$2/" "$OUT"
}
expect_denial_not() {
  if grep -Eq -- "$2" <<<"$(denial)"; then fail "$1" "a denial not matching /$2/" "$OUT"; fi
}

# expect_no_output WHAT ERE: the last kc printed no line matching ERE.
expect_no_output() {
  if grep -Eq -- "$2" <<<"$OUT"; then fail "$1" "no output matching /$2/" "$OUT"; fi
}

# ---- namespaces and objects ------------------------------------------------------

# new_namespace NAME: a fresh namespace for this scenario (NS), ready for pods
# (its default ServiceAccount made), emptied when the scenario exits. Bound
# pods are force-deleted: with no kubelet to confirm, a graceful deletion
# would keep them, and their GPUs, forever.
new_namespace() {
  NS=$1
  make_namespace "$NS"
  trap 'scenario_cleanup' EXIT
}

# make_namespace NAME: the namespace, once its default ServiceAccount exists
# (until then the API server refuses pods in it).
make_namespace() {
  kc create namespace "$1"
  expect_ok "create namespace $1"
  wait_for 30 "the default ServiceAccount of $1" k get serviceaccount default -n "$1" ||
    fail "namespace $1 got no default ServiceAccount within 30 s"
}

# audit_namespace NAME: one more namespace for the scenario, labelled
# gpulint.io/mode=audit, so that gpulint admits its pods unchanged and the
# scheduler decides them; emptied when the scenario exits. Returns once the
# API server holds the label (incident 1's pod, which deny mode refuses, is
# admitted in a server-side dry run).
audit_namespace() {
  make_namespace "$1"
  at_exit "k delete pods --all -n $1 --force --grace-period=0; k delete namespace $1 --wait=false"
  kc label namespace "$1" gpulint.io/mode=audit
  expect_ok "label namespace $1 gpulint.io/mode=audit"
  wait_for 10 "namespace $1 in audit mode" admits_incident_1 "$1" ||
    fail "namespace $1 labelled audit still denies incident 1's pod after 10 s"
}
admits_incident_1() { pod_500gi probe | k create --dry-run=server -n "$1" -f -; }

# bound_silently POD NODE WHAT < MANIFEST: MANIFEST (a pod labelled app=POD)
# created in NS is admitted with no warning and bound to NODE.
bound_silently() {
  kc create -n "$NS" -f -
  expect_ok "$3"
  expect_no_output "$3: no warning" '^Warning:'
  wait_bound "app=$1" 1 30 "$2"
}

# unschedulable_in AUDIT-NS POD ERE < MANIFEST: the scheduler's own verdict on
# a pod that gpulint would deny: MANIFEST created in AUDIT-NS (an
# audit_namespace), and the FailedScheduling message for POD, which must
# match ERE, printed.
unschedulable_in() {
  kc create -n "$1" -f -
  expect_ok "pod $2 in the audit namespace $1"
  NS=$1 wait_unschedulable "$2" "$3" 30
}

CLEANUPS=()

scenario_cleanup() {
  local rc=$? c
  for c in "${CLEANUPS[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
  if [[ -n ${NS:-} ]]; then
    k delete deployments,replicasets,jobs,daemonsets --all -n "$NS" --cascade=orphan --wait=false >/dev/null 2>&1 || true
    k delete pods --all -n "$NS" --force --grace-period=0 >/dev/null 2>&1 || true
    k delete namespace "$NS" --wait=false >/dev/null 2>&1 || true
  fi
  exit "$rc"
}

# at_exit COMMAND: run when the scenario ends, before its namespace goes.
at_exit() { CLEANUPS+=("$1"); }

# ---- polling -------------------------------------------------------------------------

# wait_for SECONDS WHAT CMD...: CMD every 0.5 s until it succeeds; 1 on timeout.
# The default policy's per-GPU memory headroom in bytes (reserved.memory.perGpu
# of policies/default.yaml), which the mutation adds per GPU: read, not
# written down, so the scenarios follow the default.
per_gpu_headroom() {
  bytes "$(sed -n 's/^ *memory: {.*perGpu: *\([0-9A-Za-z.]*\).*/\1/p' "$ROOT/policies/default.yaml" | head -n 1)"
}

# webhook_metrics: the webhook's /metrics.
webhook_metrics() {
  curl -s --max-time 5 --cacert "$E2E_TMP/pki/ca.crt" "https://127.0.0.1:$WEBHOOK_PORT/metrics"
}

# webhook_metric SERIES: its value from the webhook's /metrics.
webhook_metric() {
  webhook_metrics | awk -v s="$1" 'index($0, s " ") == 1 { print substr($0, length(s) + 2) }'
}
metric_is() { [[ $(webhook_metric "$1") == "$2" ]]; }

# vram_written NODE BYTES: status.capacity and status.allocatable both hold
# gpulint.io/vram = BYTES.
vram_written() {
  local c a
  c=$(k get node "$1" -o jsonpath='{.status.capacity.gpulint\.io/vram}')
  a=$(k get node "$1" -o jsonpath='{.status.allocatable.gpulint\.io/vram}')
  [[ -n $c && -n $a && $(bytes "$c") == "$2" && $(bytes "$a") == "$2" ]]
}

# wait_for SECONDS WHAT CMD...: polls CMD every 0.5 s; fails after SECONDS.
wait_for() {
  local limit=$1; shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# pods_json [SELECTOR]: the scenario's pods as a JSON list.
pods_json() {
  if [[ -n ${1:-} ]]; then k get pods -n "$NS" -l "$1" -o json; else k get pods -n "$NS" -o json; fi
}

# events_matching REASON ERE: messages of NS's events with that reason matching ERE.
events_matching() {
  k get events -n "$NS" -o json |
    jq -r --arg r "$1" '.items[] | select(.reason == $r) | .message' | grep -E -- "$2"
}

# The workload controllers' refusals: FailedCreate events that quote an
# admission webhook. A wait for pods gives up at once on one of these.
denied_creates() { events_matching FailedCreate 'admission webhook'; }

# wait_bound SELECTOR COUNT SECONDS [NODE]: COUNT pods match SELECTOR and each
# has a spec.nodeName (NODE when given). Fails early on a FailedCreate refusal
# or a FailedScheduling verdict on one of them.
wait_bound() {
  local selector=$1 count=$2 limit=$3 node=${4:-}
  local deadline=$((SECONDS + limit)) pods bound msg
  while :; do
    pods=$(pods_json "$selector")
    bound=$(jq --arg n "$node" '[.items[] | select(.metadata.deletionTimestamp == null)
      | select(.spec.nodeName != null and ($n == "" or .spec.nodeName == $n))] | length' <<<"$pods")
    ((bound >= count)) && return 0
    if msg=$(denied_creates | head -n 3) && [[ -n $msg ]]; then
      fail "pods ($selector) were never created: the controller's creations were refused" \
        "$count pod(s) created and bound${node:+ to $node}" "$msg"
    fi
    if ((SECONDS >= deadline)); then
      msg=$(jq -r '.items[] | "\(.metadata.name): nodeName=\(.spec.nodeName // "-") \(
        [.status.conditions[]? | select(.type == "PodScheduled") | .message // .reason] | join(" "))"' <<<"$pods")
      msg+=$'\n'$(events_matching FailedScheduling . | sort -u | tail -n 3 || true)
      fail "pods ($selector) not bound within $limit s" \
        "$count pod(s) bound${node:+ to $node}, $bound are" "$msg"
    fi
    sleep 0.5
  done
}

# wait_created SELECTOR COUNT SECONDS: COUNT pods exist (bound or not).
wait_created() {
  local selector=$1 count=$2 limit=$3 n msg deadline=$((SECONDS + $3))
  while :; do
    n=$(pods_json "$selector" | jq '[.items[] | select(.metadata.deletionTimestamp == null)] | length')
    ((n >= count)) && return 0
    if msg=$(denied_creates | head -n 3) && [[ -n $msg ]]; then
      fail "pods ($selector) were never created: the controller's creations were refused" \
        "$count pod(s) created" "$msg"
    fi
    ((SECONDS < deadline)) || fail "pods ($selector) not created within $limit s" \
      "$count pod(s), $n exist" "$(k get events -n "$NS" 2>&1 | tail -n 5)"
    sleep 0.5
  done
}

# wait_unschedulable POD ERE SECONDS: the scheduler's FailedScheduling event for
# POD says something matching ERE, and POD has no nodeName. Prints the message.
wait_unschedulable() {
  local pod=$1 ere=$2 deadline=$((SECONDS + $3)) msg node
  while :; do
    msg=$(k get events -n "$NS" -o json | jq -r --arg p "$pod" '.items[]
      | select(.reason == "FailedScheduling" and .involvedObject.name == $p) | .message' | tail -n 1)
    node=$(k get pod "$pod" -n "$NS" -o jsonpath='{.spec.nodeName}' 2>/dev/null || true)
    [[ -z $node ]] || fail "pod $pod was bound to $node" "pod $pod Pending: FailedScheduling /$ere/" \
      "spec.nodeName: $node"
    if [[ -n $msg ]] && grep -Eq -- "$ere" <<<"$msg"; then
      echo "$msg"
      return 0
    fi
    ((SECONDS < deadline)) || fail "pod $pod: no FailedScheduling event matching /$ere/ within $3 s" \
      "FailedScheduling: ...$ere..." "${msg:-(no FailedScheduling event for $pod)}"
    sleep 0.5
  done
}

# ---- hollow nodes ------------------------------------------------------------------------

GPU_TAINT='{"key":"nvidia.com/gpu","value":"present","effect":"NoSchedule"}'

# make_node NAME LABELS-JSON TAINTS-JSON CAPACITY-JSON: a Node with no kubelet
# (tests/e2e/README.md): created with its labels and taints, then its status
# (capacity = allocatable, Ready), then the not-ready taint that
# TaintNodesByCondition put on it removed, as the node lifecycle controller
# would once the node is Ready.
make_node() {
  local name=$1 labels=$2 taints=$3 capacity=$4 now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  jq -n --arg n "$name" --argjson l "$labels" --argjson t "$taints" '{apiVersion: "v1", kind: "Node",
      metadata: {name: $n, labels: ({"kubernetes.io/hostname": $n, "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64"} + $l)}, spec: {taints: $t}}' | k create -f - >/dev/null
  jq -n --argjson c "$capacity" --arg now "$now" '{status: {capacity: $c, allocatable: $c,
      conditions: [{type: "Ready", status: "True", reason: "KubeletReady",
        message: "hollow node for gpulint e2e", lastHeartbeatTime: $now, lastTransitionTime: $now}]}}' |
    k patch node "$name" --subresource=status --type=merge --patch-file=/dev/stdin >/dev/null
  wait_for 10 "the not-ready taint on $name" node_has_not_ready_taint "$name" || true
  k taint node "$name" node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
  node_has_not_ready_taint "$name" && fail "node $name keeps its not-ready taint"
  return 0
}

node_has_not_ready_taint() {
  k get node "$1" -o json | jq -e '[.spec.taints[]? | select(.key == "node.kubernetes.io/not-ready")] | length > 0' >/dev/null
}

# The incidents' nodes (docs/incidents.md), GPU nodes with GPU Feature
# Discovery's labels and the GPU taint.
make_incident_nodes() {
  make_node gpu-v100 '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"4",
      "nvidia.com/gpu.product":"Tesla-V100-SXM2-32GB","nvidia.com/gpu.memory":"32768"}' "[$GPU_TAINT]" \
    '{"cpu":"48","memory":"527787256Ki","nvidia.com/gpu":"4","pods":"110"}'
  make_node gpu-rtx8000 '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"1",
      "nvidia.com/gpu.product":"Quadro-RTX-8000","nvidia.com/gpu.memory":"49152"}' "[$GPU_TAINT]" \
    '{"cpu":"10","memory":"32G","nvidia.com/gpu":"1","pods":"110"}'
  make_node gpu-t4 '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"1",
      "nvidia.com/gpu.product":"Tesla-T4","nvidia.com/gpu.memory":"15360"}' "[$GPU_TAINT]" \
    '{"cpu":"16","memory":"63596320Ki","nvidia.com/gpu":"1","pods":"110"}'
  make_node gpu-t4-mps '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"1",
      "nvidia.com/gpu.product":"Tesla-T4","nvidia.com/gpu.memory":"15360","nvidia.com/gpu.replicas":"10",
      "nvidia.com/gpu.sharing-strategy":"mps","nvidia.com/mps.capable":"true"}' "[$GPU_TAINT]" \
    '{"cpu":"3920m","memory":"17413608Ki","nvidia.com/gpu":"10","pods":"110"}'
  make_node cpu-1 '{}' '[]' '{"cpu":"8","memory":"32Gi","pods":"110"}'
}

# ---- quantities ----------------------------------------------------------------------------

# bytes QUANTITY: its exact value in bytes, as Kubernetes reads it.
bytes() {
  python3 - "$1" <<'PY'
import re, sys
from fractions import Fraction
q = sys.argv[1]
m = re.fullmatch(r'([+-]?[0-9.]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?', q)
if not m:
    sys.exit(f"bytes: not a quantity: {q!r}")
n, s = Fraction(m.group(1)), m.group(2) or ''
binary = {'Ki': 1, 'Mi': 2, 'Gi': 3, 'Ti': 4, 'Pi': 5, 'Ei': 6}
decimal = {'n': -9, 'u': -6, 'm': -3, '': 0, 'k': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15, 'E': 18}
if s in binary:
    n *= 1024 ** binary[s]
elif s in decimal:
    n *= Fraction(10) ** decimal[s]
else:
    n *= Fraction(10) ** int(s[1:])
print(n.numerator // n.denominator if n.denominator == 1 else float(n))
PY
}

# ---- the webhook -------------------------------------------------------------------------------

# webhook_decisions NS: gpulint-webhook's decision log lines for namespace NS.
webhook_decisions() {
  grep -F "\"namespace\":\"$1\"" "$WEBHOOK_LOG" 2>/dev/null | grep -v '"msg":"listening"' || true
}

# set_policy VALUES-ARGS...: the policy the chart renders with these helm
# arguments (e.g. --set-json 'policy.spec=...'), written where the webhook's
# policy ConfigMap volume is and renamed into place as the kubelet swaps a
# ConfigMap volume; waits until the webhook has reloaded it.
set_policy() {
  local rendered loaded
  rendered=$(mktemp "$E2E_TMP/policy.XXXXXX")
  "$HELM" template gpulint-webhook "$CHART" --namespace gpulint "$@" |
    k create --dry-run=client -o json -f - |
    jq -rs '.[] | if .kind == "List" then .items[] else . end
      | select(.kind == "ConfigMap" and (.data["policy.yaml"] // "") != "") | .data["policy.yaml"]' \
      >"$rendered"
  [[ -s $rendered ]] || fail "helm template $* rendered no policy ConfigMap"
  cmp -s "$rendered" "$POLICY_FILE" && { rm -f "$rendered"; return 0; }
  loaded=$(grep -c '"msg":"policy loaded"' "$WEBHOOK_LOG" || true)
  mv -f "$rendered" "$POLICY_FILE"
  wait_for 15 "the webhook's policy reload" policy_reloaded_after "$loaded" ||
    fail "the webhook did not reload the policy within 15 s" "a 'policy loaded' log line" \
      "$(grep -v '"msg":"admission"' "$WEBHOOK_LOG" | tail -n 5)"
}

policy_reloaded_after() { (($(grep -c '"msg":"policy loaded"' "$WEBHOOK_LOG" || true) > $1)); }

# restore_policy: the default policy back in the webhook's volume (a
# scenario's at_exit after set_policy), waiting until it is loaded.
restore_policy() {
  local loaded
  cmp -s "$DEFAULT_POLICY" "$POLICY_FILE" && return 0
  loaded=$(grep -c '"msg":"policy loaded"' "$WEBHOOK_LOG" || true)
  cp "$DEFAULT_POLICY" "$POLICY_FILE.new" && mv -f "$POLICY_FILE.new" "$POLICY_FILE"
  wait_for 15 "the default policy reloaded" policy_reloaded_after "$loaded"
}

# registration_for_loopback FILE: the configurations of FILE (the chart's
# registration ConfigMap) as JSON, each clientConfig.service replaced by this
# webhook's URL on loopback with the service's path.
registration_for_loopback() {
  k create --dry-run=client -o json -f "$1" |
    jq -s --arg base "https://127.0.0.1:$WEBHOOK_PORT" '
      [.[] | if .kind == "List" then .items[] else . end] |
      {apiVersion: "v1", kind: "List", items: map(.webhooks |= map(.clientConfig =
        {url: ($base + (.clientConfig.service.path // "/"))}))}'
}

# registration_params_for_loopback: of a JSON list of objects, the chart's
# registration ConfigMap with each webhook's text (what the access policies
# hold the registrations to) naming this webhook's URL with the service's
# path, as registration_for_loopback rewrites the configurations.
registration_params_for_loopback() {
  jq --arg base "https://127.0.0.1:$WEBHOOK_PORT" '
    map(if .kind == "ConfigMap" and (.data["webhooks.yaml"] // "") != ""
        then .data |= with_entries(if .key == "webhooks.yaml" then . else .value |= gsub(
          "clientConfig service \"[^\"]*\" \"[^\"]*\" \"(?<path>[^\"]*)\" [0-9]+";
          "clientConfig url \"\($base)\(.path)\"") end)
        else . end)'
}

# set_registration HELM-ARGS...: the chart's registration as `helm upgrade`
# with these values would write it: its ConfigMap in the cluster (what the
# access policies read), then in the webhook's volume; the webhook applies
# it, and this waits until the API server holds it.
set_registration() {
  local rendered want objects
  rendered=$(mktemp "$E2E_TMP/registration.XXXXXX")
  objects=$("$HELM" template gpulint-webhook "$CHART" --namespace gpulint "$@" |
    k create --dry-run=client -o json -f - | jq -s '[.[] | if .kind == "List" then .items[] else . end]')
  jq -r '.[] | select(.kind == "ConfigMap" and (.data["webhooks.yaml"] // "") != "") | .data["webhooks.yaml"]' \
    <<<"$objects" >"$rendered"
  [[ -s $rendered ]] || fail "helm template $* rendered no registration ConfigMap"
  registration_params_for_loopback <<<"$objects" |
    jq '{apiVersion: "v1", kind: "List",
      items: [.[] | select(.kind == "ConfigMap" and (.data["webhooks.yaml"] // "") != "")]}' |
    k apply -f - >/dev/null || fail "the registration ConfigMap of helm template $* was not applied"
  registration_for_loopback "$rendered" >"$REGISTRATION_FILE.new"
  want=$(routing <"$REGISTRATION_FILE.new")
  mv -f "$REGISTRATION_FILE.new" "$REGISTRATION_FILE"
  wait_for 20 "the API server holding the registration of $*" registration_is "$want" ||
    fail "the webhook configurations are not those of helm template $* 20 s after the registration changed" \
      "$want" "$(registered | routing)"
  sleep 1  # the API server's webhook cache follows the object within a moment
}
registered() { k get validatingwebhookconfiguration,mutatingwebhookconfiguration gpulint-webhook -o json; }
# routing: of a List of webhook configurations, what sends a request where.
routing() {
  jq -cS '[.items[] | {kind, webhooks: [.webhooks[] | {name, url: .clientConfig.url,
    namespaceSelector, rules: [.rules[] | del(.scope)]}]}]'
}
registration_is() { [[ $(registered | routing) == "$1" ]]; }

# set_cluster_mode MODE: the registration of `helm upgrade --set mode=MODE`.
set_cluster_mode() { set_registration --set mode="$1"; }

# pod_500gi NAME [CONTAINER]: incident 1's pod, 4 GPUs and 500Gi pinned to
# gpu-v100, which deny mode refuses (exceeds-allocatable); CONTAINER (a flow
# mapping) is added beside the trainer.
pod_500gi() {
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  nodeSelector: {kubernetes.io/hostname: gpu-v100}
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {cpu: "40", memory: 500Gi, nvidia.com/gpu: 4}
      limits: {memory: 500Gi, nvidia.com/gpu: 4}
${2:+  - $2}
YAML
}
