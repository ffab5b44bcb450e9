#!/usr/bin/env bash
# f. Incident 5 (pods that see every GPU): a pod with no GPU limit that can
# land on a GPU node (it tolerates the GPU taint) is stored with
# NVIDIA_VISIBLE_DEVICES=void; one that sets NVIDIA_VISIBLE_DEVICES=all by
# hand with no GPU limit, able to land on a GPU node, is denied.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-f

kc create -n "$NS" -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: sidecar}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - {name: logs, image: busybox:1.36, command: [sleep, infinity]}
YAML
expect_ok "a pod with no GPU limit that tolerates the GPU taint"
env=$(k get pod sidecar -n "$NS" -o json | jq -c '.spec.containers[0].env // []')
jq -e 'any(.[]; .name == "NVIDIA_VISIBLE_DEVICES" and .value == "void")' <<<"$env" >/dev/null ||
  fail "the stored pod does not hide the GPUs" 'env NVIDIA_VISIBLE_DEVICES=void' "env: $env"
note "stored with env $env"

kc create -n "$NS" -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: sees-all}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: monitor
    image: busybox:1.36
    command: [sleep, infinity]
    env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]
YAML
expect_denied "a pod setting NVIDIA_VISIBLE_DEVICES=all without a GPU limit, able to land on a GPU node"
expect_denial "the denial names NVIDIA_VISIBLE_DEVICES" 'NVIDIA_VISIBLE_DEVICES'
note "$(denial | cut -c1-300)"
