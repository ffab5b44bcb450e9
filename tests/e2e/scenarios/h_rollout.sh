#!/usr/bin/env bash
# h. Rollouts of a mutated Deployment (1 GPU, 16Gi, 16G of VRAM declared, on
# the V100 node): `kubectl set image`, then the manifest as `gpulint fix --mutations`
# rewrites it (headroom, VRAM resource and the headroom annotation already in
# the template) applied over it. Each creates new pods, and nothing is added
# twice: memory request and limit, the VRAM resource and gpulint's annotations
# on the new pods are those of the first pod (16Gi + the per-GPU headroom once).
# A second mutating webhook, called after gpulint's, labels every pod, so the
# API server reinvokes gpulint on each pod; the reinvocation adds nothing.
# Then the same with one call per pod (webhook.mutating.validatePods: /admit
# patches and judges): the reinvocation adds nothing and judges alike, and a
# pod it refuses is refused by mutate.gpulint.io. Last, why that is not the
# default: a later webhook that adds an ignore annotation makes the pod
# admissible with two calls, while one call has refused it before that
# webhook ran.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-h

# later_webhook NAME FIELD KEY=VALUE [LABEL=VALUE]: a mutating webhook that
# sets that label or annotation (test_webhook.py --patch), registered as
# zz-e2e-NAME for this namespace only (for pods labelled LABEL=VALUE when
# given), so that the API server calls it after gpulint's configuration (it
# calls them by name); returns once the API server calls it.
later_webhook() {
  local name=$1 field=$2 patch=$3 selector=${4:-} port_file=$E2E_TMP/$1.port pid labels="{}"
  rm -f "$port_file"
  setpriv --pdeathsig KILL -- python3 "$E2E/test_webhook.py" "$E2E_TMP/pki/webhook.crt" "$E2E_TMP/pki/webhook.key" \
    "$port_file" --patch "$field" "$patch" >>"$E2E_TMP/logs/$name.log" 2>&1 &
  pid=$!
  at_exit "k delete mutatingwebhookconfiguration zz-e2e-$name --wait=false; kill $pid"
  wait_for 10 "the $name's port" test -s "$port_file" || fail "the $name webhook did not start" "" "$(cat "$E2E_TMP/logs/$name.log")"
  [[ -n $selector ]] && labels="{${selector%%=*}: \"${selector#*=}\"}"
  kc apply -f - <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: zz-e2e-$name}
webhooks:
- name: $name.e2e.gpulint.io
  clientConfig: {url: "https://127.0.0.1:$(cat "$port_file")/", caBundle: "$(base64 -w0 "$E2E_TMP/pki/ca.crt")"}
  rules: [{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: $NS}}
  objectSelector: {matchLabels: $labels}
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  reinvocationPolicy: Never
  timeoutSeconds: 5
YAML
  expect_ok "register the $name webhook"
  # The API server's webhook informer takes a moment: a dry-run pod comes back patched.
  wait_for 20 "the $name called" patched_dry_run "$field" "${patch%%=*}" "$labels" ||
    fail "the API server does not call the $name webhook"
}
patched_dry_run() {  # patched_dry_run FIELD KEY LABELS
  k create --dry-run=server -n "$NS" -o json -f - 2>/dev/null <<YAML | jq -e --arg f "$1" --arg k "$2" '.metadata[$f][$k] != null'
apiVersion: v1
kind: Pod
metadata: {name: probe, labels: $3}
spec: {containers: [{name: c, image: busybox:1.36}]}
YAML
}

# The labeller: every pod.
later_webhook labeller labels e2e.gpulint.io/labelled=true

manifest=$E2E_TMP/h-trainer.yaml
cat >"$manifest" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer, namespace: e2e-h}
spec:
  replicas: 1
  selector: {matchLabels: {app: trainer}}
  template:
    metadata:
      labels: {app: trainer}
      annotations: {gpulint.io/vram: 16G}
    spec:
      nodeSelector: {nvidia.com/gpu.product: Tesla-V100-SXM2-32GB}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: trainer
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          requests: {cpu: "2", memory: 16Gi, nvidia.com/gpu: 1}
          limits: {memory: 16Gi, nvidia.com/gpu: 1}
YAML
kc apply -f "$manifest"
expect_ok "kubectl apply of the Deployment"

# What gpulint decided about a pod: its resources, env and gpulint's annotations.
mutated() {
  jq -S '{resources: .spec.containers[0].resources, env: (.spec.containers[0].env // []),
    annotations: (.metadata.annotations // {} | with_entries(select(.key | test("gpulint"))))}'
}
# The pods of the current ReplicaSet (the Deployment's newest template).
newest_pod() {
  local hash
  hash=$(k get rs -n "$NS" -l app=trainer -o json |
    jq -r '[.items[] | select(.metadata.annotations["deployment.kubernetes.io/revision"] == "'"$1"'")][0].metadata.labels["pod-template-hash"] // empty')
  [[ -n $hash ]] && pods_json "pod-template-hash=$hash" | jq -e '.items[0] // empty'
}
# wait_revision N [ENDPOINT]: the pod of the Deployment's revision N, once
# created, labelled by the second webhook, and with gpulint's ENDPOINT
# (/mutate, or /admit) called on it twice (the second time, the reinvocation,
# with nothing to patch).
wait_revision() {
  local pod prefix calls endpoint=${2:-mutate}
  if ! wait_for 30 "a pod of revision $1" newest_pod "$1"; then
    local refused
    refused=$(denied_creates | head -n 3 || true)
    fail "no pod of revision $1 within 30 s" "a new pod" "${refused:-$(k get pods,rs -n "$NS" 2>&1)}"
  fi
  pod=$(newest_pod "$1")
  jq -e '.metadata.labels["e2e.gpulint.io/labelled"] == "true"' <<<"$pod" >/dev/null ||
    fail "the pod of revision $1 was not labelled by the second webhook" "label e2e.gpulint.io/labelled=true" \
      "$(jq -c .metadata.labels <<<"$pod")"
  prefix=$(jq -r .metadata.generateName <<<"$pod")
  calls=$(webhook_decisions "$NS" | grep "\"endpoint\":\"$endpoint\"" | grep -F "\"name\":\"$prefix\"" | grep '"dry_run":false' || true)
  [[ $(grep -c . <<<"$calls") -ge 2 && $(tail -n 1 <<<"$calls") == *'"decision":"allowed"'* ]] ||
    fail "revision $1: gpulint's /$endpoint was not reinvoked with nothing to add" \
      "two /$endpoint decisions for $prefix*, the second \"allowed\" (no patch)" "$calls"
  echo "$pod"
}

first=$(wait_revision 1)
first_mutated=$(mutated <<<"$first")
memory=$(jq -r '.resources.requests.memory' <<<"$first_mutated")
want=$(((16 << 30) + $(per_gpu_headroom)))
[[ $(bytes "$memory") == "$want" && $(bytes "$(jq -r '.resources.limits.memory' <<<"$first_mutated")") == "$want" ]] ||
  fail "the first pod's memory is not 16Gi + one GPU's headroom (added once, whatever the reinvocation)" \
    "requests.memory = limits.memory = $want B" "$first_mutated"
[[ $(jq -r '.resources.limits["gpulint.io/vram"] // empty' <<<"$first_mutated") == 16G ]] ||
  fail "the first pod's VRAM resource is not the declared 16G" "limits gpulint.io/vram: 16G" "$first_mutated"
note "revision 1: $(jq -c '{requests: .resources.requests, limits: .resources.limits, annotations}' <<<"$first_mutated")"

# Rollout 1: a new image.
kc set image deployment/trainer -n "$NS" trainer=nvcr.io/nvidia/pytorch:24.06-py3
expect_ok "kubectl set image"
second=$(wait_revision 2)
[[ $(mutated <<<"$second") == "$first_mutated" ]] ||
  fail "after kubectl set image, the new pod was mutated differently" "$first_mutated" "$(mutated <<<"$second")"
note "revision 2 (kubectl set image): the same memory, VRAM and annotations"

# Rollout 2: the manifest as `gpulint fix --mutations` writes it against the
# cluster's own nodes (the webhook's patch in the template).
[[ -x $GPULINT ]] || fail "no gpulint binary at $GPULINT (GPULINT_BINARY)"
fixed=$E2E_TMP/h-trainer-fixed.yaml
k get nodes -o yaml >"$E2E_TMP/h-nodes.yaml"
"$GPULINT" fix --mutations --nodes "$E2E_TMP/h-nodes.yaml" "$manifest" >"$fixed" 2>"$E2E_TMP/h-fix.err" || true
! cmp -s "$manifest" "$fixed" ||
  fail "gpulint fix changed nothing in the Deployment" "the headroom and VRAM in the template" "$(cat "$fixed" "$E2E_TMP/h-fix.err")"
sed -i 's/pytorch:24.05-py3/pytorch:24.06-py3/' "$fixed"
kc apply -f "$fixed"
expect_ok "kubectl apply of the Deployment as gpulint fix rewrote it"
third=$(wait_revision 3)
third_mutated=$(mutated <<<"$third")
[[ $third_mutated == "$first_mutated" ]] ||
  fail "the pod of the gpulint-fixed template was mutated differently (headroom or VRAM added again?)" \
    "$first_mutated" "$third_mutated"
note "revision 3 (gpulint fix applied): the same memory, VRAM and annotations"

# One call per pod: the registration as `helm upgrade --set
# webhook.mutating.validatePods=true` writes it. Rollout 3: the pod goes to
# /admit twice (the labeller makes the API server reinvoke it) and never to
# /validate, and gets what the first pod got.
at_exit "set_registration --set mode=deny"
set_registration --set mode=deny --set webhook.mutating.validatePods=true
kc set image deployment/trainer -n "$NS" trainer=nvcr.io/nvidia/pytorch:24.07-py3
expect_ok "kubectl set image, one call per pod"
fourth=$(wait_revision 4 admit)
[[ $(mutated <<<"$fourth") == "$first_mutated" ]] ||
  fail "with one call per pod, the new pod was mutated differently" "$first_mutated" "$(mutated <<<"$fourth")"
prefix=$(jq -r .metadata.generateName <<<"$fourth")
if webhook_decisions "$NS" | grep '"endpoint":"validate"' | grep -qF "\"name\":\"$prefix\""; then
  fail "with one call per pod, /validate was still sent the pod" "no /validate decision for $prefix*" \
    "$(webhook_decisions "$NS" | grep -F "\"name\":\"$prefix\"")"
fi
note "revision 4 (one call per pod): /admit twice, no /validate, the same memory, VRAM and annotations"

# Incident 1's pod is refused by the mutating webhook, with /validate's words.
kc create -n "$NS" -f - <<<"$(pod_500gi refused)"
expect_denied "incident 1's pod, one call per pod"
grep -q 'admission webhook "mutate.gpulint.io" denied the request' <<<"$OUT" ||
  fail "incident 1's pod was not refused by mutate.gpulint.io" 'admission webhook "mutate.gpulint.io" denied ...' "$OUT"
expect_denial "incident 1's pod, one call per pod" 'exceeds-allocatable.*500Gi'

# Why validatePods is off by default: a webhook after gpulint's that adds an
# ignore annotation (a reason to admit) is seen by /validate, after every
# mutation, but not by /admit, which refused the pod before it ran. An
# annotation waives an error only where the policy grants it
# (exemptions.waiveErrors, none by default): this namespace is granted them.
at_exit restore_policy
set_policy --set-json "policy.spec={\"exemptions\":{\"waiveErrors\":{\"namespaces\":[\"$NS\"]}}}"
later_webhook waiver annotations "ignore.gpulint.io/exceeds-allocatable=waived by a later webhook" \
  e2e.gpulint.io/waive=true
waived_pod() { pod_500gi waived | sed 's/^metadata: {name: waived}$/metadata: {name: waived, labels: {e2e.gpulint.io\/waive: "true"}}/'; }
kc create -n "$NS" -f - <<<"$(waived_pod)"
expect_denied "one call per pod: the waived pod is refused before the waiver runs"
set_registration --set mode=deny
kc create -n "$NS" -f - <<<"$(waived_pod)"
expect_ok "two calls: /validate sees the waiver's annotation and admits the pod"
note "a later webhook's waiver: refused with one call per pod, admitted with two (validatePods stays off by default)"
