#!/usr/bin/env bash
# k. A staged rollout, as Pod Security Admission does it: the cluster in deny
# mode (run.sh installs the chart with mode=deny), a namespace labelled
# gpulint.io/mode=audit admits incident 1's pod that deny refuses and kubectl
# prints nothing, one labelled warn admits it and kubectl prints what deny
# would refuse and change; neither stores a patched pod. Then the cluster switched
# to audit (the registration as helm upgrade --set mode=audit renders it): an
# unlabelled namespace admits, one labelled deny refuses. Deny again at the end.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-k
at_exit 'set_cluster_mode deny'
for mode in audit warn deny; do
  make_namespace "e2e-k-$mode"
  kc label namespace "e2e-k-$mode" gpulint.io/mode=$mode
  expect_ok "label namespace e2e-k-$mode"
  at_exit "k delete pods --all -n e2e-k-$mode --force --grace-period=0; k delete namespace e2e-k-$mode --wait=false"
done
sleep 1  # the API server reads namespace labels through its informer

# Incident 1's pod with a GPU-less container beside it: deny mode also writes
# NVIDIA_VISIBLE_DEVICES=void into it, and adds memory headroom to the trainer.
pod() { pod_500gi "$1" "{name: logs, image: 'busybox:1.36'}"; }
unpatched() {  # unpatched NS NAME: the stored pod as written
  local p
  p=$(k get pod "$2" -n "$1" -o json)
  jq -e '(.spec.containers[1].env // []) == [] and
    ((.metadata.annotations // {}) | keys | map(select(startswith("gpulint"))) == []) and
    .spec.containers[0].resources.limits.memory == "500Gi"' <<<"$p" >/dev/null ||
    fail "the pod in $1 was stored patched" "as written" "$(jq -c '.spec.containers' <<<"$p")"
}

kc create -n "$NS" -f - < <(pod p)
expect_denied "an unlabelled namespace, cluster mode deny"
expect_denial "exceeds-allocatable" 'exceeds-allocatable'

kc create -n e2e-k-audit -f - < <(pod p)
expect_ok "namespace labelled audit"
grep -q 'gpulint' <<<"$OUT" && fail "kubectl prints gpulint's words in audit mode" "nothing from gpulint" "$OUT"
unpatched e2e-k-audit p
decisions=$(webhook_decisions e2e-k-audit | jq -sc '[.[] | select(.kind == "Pod") | {endpoint, mode, decision}] | unique')
jq -e '. == ([{endpoint: "mutate", mode: "audit", decision: "would_patch"},
               {endpoint: "validate", mode: "audit", decision: "would_deny"}] | unique)' \
  <<<"$decisions" >/dev/null ||
  fail "the webhook's log does not record what audit mode let through" \
    'mutate would_patch and validate would_deny, mode audit' "$decisions"
note "audit: admitted silently, logged $decisions"

kc create -n e2e-k-warn -f - < <(pod p)
expect_ok "namespace labelled warn"
grep -q 'Warning: gpulint would deny: exceeds-allocatable' <<<"$OUT" ||
  fail "kubectl does not show what deny would refuse" "Warning: gpulint would deny: exceeds-allocatable ..." "$OUT"
grep -q 'Warning: gpulint would change this pod in deny mode: .*container "trainer": memory +4Gi = 4.3 GB = 4 GiB (headroom for the GPU driver); container "logs": NVIDIA_VISIBLE_DEVICES=void' <<<"$OUT" ||
  fail "kubectl does not show what deny would change" \
    'Warning: gpulint would change this pod in deny mode: ... container "trainer": memory +4Gi = 4.3 GB = 4 GiB (headroom ...); container "logs": NVIDIA_VISIBLE_DEVICES=void ...' "$OUT"
unpatched e2e-k-warn p
note "warn: $(grep -c '^Warning: gpulint' <<<"$OUT") warnings, stored as written"

kc create -n e2e-k-deny -f - < <(pod p)
expect_denied "namespace labelled deny"

# The other direction: the cluster in audit, a namespace enforcing.
set_cluster_mode audit
kc create -n "$NS" -f - < <(pod q)
expect_ok "an unlabelled namespace, cluster mode audit"
unpatched "$NS" q
kc create -n e2e-k-deny -f - < <(pod q)
expect_denied "namespace labelled deny, cluster mode audit"
kc create -n e2e-k-warn -f - < <(pod q)
expect_ok "namespace labelled warn, cluster mode audit"
grep -q 'Warning: gpulint would deny' <<<"$OUT" || fail "warn no longer warns in an audit cluster" "a warning" "$OUT"
note "cluster audit: unlabelled admitted, deny-labelled denied, warn-labelled warned"
