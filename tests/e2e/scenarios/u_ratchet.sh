#!/usr/bin/env bash
# u. Ratcheting (webhook.allowExistingViolations, on by default): a Deployment
# asking `memory: 500m` (0.5 bytes: quantity-milli-memory, an error) is created
# while its namespace is in audit mode, and the namespace is then switched to
# deny. A new Deployment like it is denied; `kubectl rollout restart` of the
# old one is admitted with a warning that the error was already there, and the
# deployment and replicaset controllers' CREATEs of its new ReplicaSet and pod
# are admitted (their owner's template is the one already there): the new pod
# is bound beside the old. An UPDATE that asks a bigger memory limit (600m) is
# a new error and is denied, naming only it.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-u

kc label namespace "$NS" gpulint.io/mode=audit
expect_ok "label namespace $NS audit"
wait_for 10 "namespace $NS in audit mode" admits_incident_1 "$NS" ||
  fail "namespace $NS labelled audit still denies incident 1's pod after 10 s"

deployment() {  # deployment NAME
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1}
spec:
  replicas: 1
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      nodeSelector: {kubernetes.io/hostname: cpu-1}
      containers:
      - name: web
        image: busybox:1.36
        resources:
          requests: {memory: 500m}
          limits: {memory: 500m}
YAML
}

kc create -n "$NS" -f - < <(deployment web)
expect_ok "the 500m Deployment in audit mode"
wait_bound "app=web" 1 30 cpu-1

kc label namespace "$NS" gpulint.io/mode=deny --overwrite
expect_ok "label namespace $NS deny"
denies_incident_1() { ! admits_incident_1 "$1"; }
wait_for 10 "namespace $NS in deny mode" denies_incident_1 "$NS" ||
  fail "namespace $NS labelled deny still admits incident 1's pod after 10 s"

kc create -n "$NS" -f - < <(deployment web2)
expect_denied "a new Deployment like it in deny mode"
expect_denial "the new one names the 500m" 'quantity-milli-memory .*memory: 500m is 0.5 bytes'

kc rollout restart deployment/web -n "$NS"
expect_ok "kubectl rollout restart of the Deployment admitted in audit mode"
grep -q '^Warning: gpulint: already there before this update: quantity-milli-memory (spec.template.spec.containers\[0\].resources.requests.memory): memory: 500m' <<<"$OUT" ||
  fail "kubectl does not say the error was already there" \
    'Warning: gpulint: already there before this update: quantity-milli-memory (spec.template.spec.containers[0].resources.requests.memory): memory: 500m ...' "$OUT"
# The new ReplicaSet and its pod: both made by the controllers, both admitted.
wait_bound "app=web" 2 30 cpu-1
restarted=$(pods_json app=web | jq '[.items[] | select(.metadata.annotations["kubectl.kubernetes.io/restartedAt"] != null and .spec.nodeName == "cpu-1")] | length')
((restarted == 1)) || fail "the restart made no new pod" "1 pod with restartedAt, bound" "$(pods_json app=web | jq -c '[.items[].metadata]')"
sets=$(k get replicasets -n "$NS" -l app=web -o name | wc -l)
((sets == 2)) || fail "the restart made no new ReplicaSet" "2 ReplicaSets" "$(k get replicasets -n "$NS" 2>&1)"

# What the webhook logged in deny mode: the UPDATE and both controller CREATEs
# allowed, each with its existing errors and where they were.
logged=$(webhook_decisions "$NS" | jq -sc '[.[] | select(.msg == "admission" and .endpoint == "validate"
  and .mode == "deny" and (.name | startswith("web")) and .existing != null)
  | {kind, operation, decision, existing_in}] | unique')
jq -e 'map(select(.decision == "allowed")) | length == 3 and
  (map(.kind) | sort) == ["Deployment", "Pod", "ReplicaSet"] and
  (map(select(.kind == "Deployment")) | .[0].existing_in) == "the object before this update" and
  (map(select(.kind == "Pod")) | .[0].existing_in | startswith("its owner ReplicaSet \"web-")) and
  (map(select(.kind == "ReplicaSet")) | .[0].existing_in) == "its owner Deployment \"web\""' \
  <<<"$logged" >/dev/null ||
  fail "the webhook's log does not record the existing errors it let through" \
    'Deployment UPDATE, ReplicaSet and Pod CREATE allowed, each with existing and existing_in' "$logged"
note "rollout restart admitted: $logged"

kc set resources deployment/web -n "$NS" -c web --limits=memory=600m
expect_denied "an UPDATE that asks a bigger memory limit"
expect_denial "the denial names the new error" \
  '^denied the request: quantity-milli-memory \(spec.template.spec.containers\[0\].resources.limits.memory\): memory: 600m is 0.6 bytes'
expect_denial_not "the denial names only the new error" '500m'
grep -q '^Warning: gpulint: already there before this update: quantity-milli-memory (spec.template.spec.containers\[0\].resources.requests.memory)' <<<"$OUT" ||
  fail "the denial does not say which error was already there" \
    'Warning: gpulint: already there before this update: quantity-milli-memory (...requests.memory) ...' "$OUT"
limit=$(k get deployment web -n "$NS" -o jsonpath='{.spec.template.spec.containers[0].resources.limits.memory}')
[[ $limit == 500m ]] || fail "the denied UPDATE was stored" "limits.memory 500m" "$limit"
note "a new error on UPDATE denied: $(denial | cut -c1-160)"
