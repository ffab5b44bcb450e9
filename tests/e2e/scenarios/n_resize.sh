#!/usr/bin/env bash
# n. In-place resize through the real pods/resize subresource (GA in 1.35),
# which the chart registers validate.gpulint.io for. A 1-GPU pod bound to
# the T4 node (63596320Ki allocatable, 56.6 GiB once the default reserve is
# kept) grows from 16Gi to 24Gi: admitted. To 58Gi, past what the node has
# left after the reserve: gpulint denies it, quoting the 58Gi the resize
# asks (not less the headroom the mutation once added). To 70Gi, past the
# node's allocatable: the API server refuses it itself, as it refuses a
# resize that drops the memory limit, before any webhook is called. The pod
# stays bound where it was, at the size last admitted. Then pod-level
# resources: on a node that declares InPlacePodLevelResourcesVerticalScaling
# (a kubelet would publish it), a pod-level request grown past the V100
# node's allocatable less the reserve is denied at spec.resources.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-n

kc create -n "$NS" -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: server, labels: {app: server}}
spec:
  nodeSelector: {kubernetes.io/hostname: gpu-t4}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: server
    image: nvcr.io/nvidia/tritonserver:24.05-py3
    resources:
      requests: {cpu: "2", memory: 16Gi, nvidia.com/gpu: 1}
      limits: {memory: 16Gi, nvidia.com/gpu: 1}
YAML
expect_ok "a 1-GPU pod of 16Gi on gpu-t4"
wait_bound app=server 1 30 gpu-t4

# resize POD PATCH: kubectl patch through pods/resize (strategic merge: a
# JSON merge patch would replace the whole containers list).
resize() { kc patch pod "$1" -n "$NS" --subresource resize -p "$2"; }
memory_to() { echo "{\"spec\":{\"containers\":[{\"name\":\"server\",\"resources\":{\"requests\":{\"memory\":\"$1\"},\"limits\":{\"memory\":\"$1\"}}}]}}"; }
stored_memory() {
  k get pod "$1" -n "$NS" -o json |
    jq -r '"\(.spec.nodeName) \(.spec.containers[0].resources.requests.memory) \(.spec.containers[0].resources.limits.memory)"'
}
# The webhook's validate decisions for resizes (UPDATEs) of POD so far.
resizes_judged() {
  webhook_decisions "$NS" | jq -c --arg p "$1" 'select(.endpoint == "validate" and .operation == "UPDATE" and .name == $p)' |
    wc -l
}

resize server "$(memory_to 24Gi)"
expect_ok "a resize of server to 24Gi"
[[ $(stored_memory server) == "gpu-t4 24Gi 24Gi" ]] ||
  fail "the resize to 24Gi is not what the API server stores" "gpu-t4 24Gi 24Gi" "$(stored_memory server)"
((  $(resizes_judged server) == 1 )) || fail "validate.gpulint.io did not judge the resize to 24Gi" \
  "one validate UPDATE decision for server" "$(webhook_decisions "$NS")"
note "resized to 24Gi: admitted, stored, judged by gpulint"

resize server "$(memory_to 58Gi)"
expect_denied "a resize of server to 58Gi, past gpu-t4's allocatable less the reserve"
expect_denial "the denial is exceeds-allocatable at the resized request" \
  '^denied the request: exceeds-allocatable \(spec\.containers\[0\]\.resources\.requests\.memory\)'
expect_denial "the denial quotes the 58Gi the resize asks, on gpu-t4" \
  'node "gpu-t4": memory request 58Gi \([0-9]+ B = [0-9.]+ GB = 58 GiB\) > allocatable 63596320Ki '
note "$(denial | cut -c1-240)"

resize server "$(memory_to 70Gi)"
((RC != 0)) || fail "a resize to 70Gi, past gpu-t4's allocatable, was admitted" "refused" "$OUT"
grep -q 'pods "server" is forbidden: node didn.t have enough allocatable resources: memory, requested: 75161927680, allocatable: 65122631680' <<<"$OUT" ||
  fail "the API server's own refusal of a resize past allocatable" \
    'pods "server" is forbidden: node didn'"'"'t have enough allocatable resources: memory, requested: 75161927680, allocatable: 65122631680' "$OUT"
note "70Gi: $OUT"

kc patch pod server -n "$NS" --subresource resize -p '{"spec":{"containers":[{"name":"server","resources":{"limits":{"memory":null}}}]}}'
((RC != 0)) || fail "a resize that drops the GPU container's memory limit was admitted" "refused" "$OUT"
grep -q 'spec.containers\[0\].resources.limits: Forbidden: resource limits cannot be removed' <<<"$OUT" ||
  fail "the API server's own refusal of a resize that drops a limit" \
    'The Pod "server" is invalid: spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed' "$OUT"
note "dropping the memory limit: $OUT"

# Neither refusal of the API server's reached gpulint; the pod is where and
# as it was after the last admitted resize.
(( $(resizes_judged server) == 2 )) || fail "gpulint was called for resizes the API server refuses itself" \
  "two validate UPDATE decisions for server (24Gi, 58Gi)" "$(webhook_decisions "$NS")"
[[ $(stored_memory server) == "gpu-t4 24Gi 24Gi" ]] ||
  fail "the refused resizes changed the stored pod" "gpu-t4 24Gi 24Gi" "$(stored_memory server)"
note "after the refusals: $(stored_memory server), gpulint judged 2 resizes"

# Pod-level resize needs the node to declare the feature (a kubelet does).
k patch node gpu-v100 --subresource=status --type=merge \
  -p '{"status":{"declaredFeatures":["InPlacePodLevelResourcesVerticalScaling"]}}' >/dev/null
at_exit 'k patch node gpu-v100 --subresource=status --type=merge -p "{\"status\":{\"declaredFeatures\":null}}"'
kc create -n "$NS" -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: trainer, labels: {app: trainer}}
spec:
  nodeSelector: {kubernetes.io/hostname: gpu-v100}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  resources:
    requests: {cpu: "8", memory: 40Gi}
    limits: {memory: 40Gi}
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      limits: {nvidia.com/gpu: 4}
  - name: loader
    image: busybox:1.36
YAML
expect_ok "a 4-GPU pod with a pod-level 40Gi on gpu-v100"
wait_bound app=trainer 1 30 gpu-v100
pod_level_to() { echo "{\"spec\":{\"resources\":{\"requests\":{\"memory\":\"$1\"},\"limits\":{\"memory\":\"$1\"}}}}"; }
resize trainer "$(pod_level_to 500Gi)"
expect_denied "a pod-level resize to 500Gi, past gpu-v100's allocatable less the reserve"
expect_denial "the denial is exceeds-allocatable at the pod-level request, quoting 500Gi" \
  '^denied the request: exceeds-allocatable \(spec\.resources\.requests\.memory\): .*node "gpu-v100": memory request 500Gi '
note "$(denial | cut -c1-200)"
resize trainer "$(pod_level_to 64Gi)"
expect_ok "a pod-level resize to 64Gi"
stored=$(k get pod trainer -n "$NS" -o json | jq -c '[.spec.nodeName, .spec.resources.requests.memory]')
[[ $stored == '["gpu-v100","64Gi"]' ]] || fail "the pod-level resize is not stored" '["gpu-v100","64Gi"]' "$stored"
note "pod-level resize to 64Gi admitted and stored: $stored"
