#!/usr/bin/env bash
# j. A bad configuration never costs admissions: the chart installed with a
# policy the webhook refuses (a node class with GPU replicas but no sharing,
# which the chart's values schema cannot catch), the webhook (re)started with
# it, so that no valid policy has ever loaded (run.sh does that before this
# scenario). Pods are still created in other namespaces, the incident-1 pod
# that deny mode refuses included, and kubectl prints why gpulint is not
# enforcing. Once a valid policy is back, the same pod is denied again.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-j

at_exit restore_policy

metric_is gpulint_webhook_policy_loaded 0 ||
  fail "the webhook holds a policy" "gpulint_webhook_policy_loaded 0" \
    "$(webhook_metric gpulint_webhook_policy_loaded)"
curl -sf --max-time 2 --cacert "$E2E_TMP/pki/ca.crt" "https://127.0.0.1:$WEBHOOK_PORT/readyz" >/dev/null ||
  fail "the webhook without a policy is not ready: the Service would have no endpoint"

pod() { pod_500gi "$1"; }
kc create -n "$NS" -f - < <(pod unchecked)
expect_ok "the 500Gi pod, with no valid policy loaded"
grep -q 'Warning: gpulint is not enforcing, its policy did not load: policy.yaml:[0-9]*:[0-9]*: spec.nodeClasses\[0\].gpu.replicas: more than 1 replica per GPU needs sharing' <<<"$OUT" ||
  fail "kubectl does not say why gpulint is not enforcing" \
    "Warning: gpulint is not enforcing, its policy did not load: policy.yaml:...: spec.nodeClasses[0].gpu.replicas: ..." "$OUT"
note "$(grep -m1 'Warning: gpulint' <<<"$OUT")"

# A controller's pods too.
kc create deployment web -n "$NS" --image=busybox:1.36 --replicas=2 -- sleep infinity
expect_ok "a Deployment"
wait_created app=web 2 30
note "a Deployment's 2 pods created"
[[ $(webhook_decisions "$NS" | jq -s '[.[] | select(.decision == "unenforced")] | length') -ge 3 ]] ||
  fail "the webhook's log does not record the unenforced reviews" 'decision "unenforced"' \
    "$(webhook_decisions "$NS" | tail -n 3)"

# A valid policy loads (the ConfigMap fixed): enforcing again.
restore_policy
wait_for 15 "a valid policy loaded" metric_is gpulint_webhook_policy_loaded 1 ||
  fail "the webhook did not load the restored policy within 15 s"
kc create -n "$NS" -f - < <(pod checked)
expect_denied "the 500Gi pod, once a valid policy is loaded"
expect_denial "exceeds-allocatable denies it" 'exceeds-allocatable'
note "with the policy back: $(denial | cut -c1-120)"
