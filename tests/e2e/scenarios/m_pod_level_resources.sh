#!/usr/bin/env bash
# m. Pod-level resources (spec.resources; on by default since 1.34): the
# scheduler fits a pod by its pod-level request when it has one, not by the
# sum of its containers'. On the 1-GPU node with 32G allocatable
# (gpu-rtx8000), a pod whose containers ask 12Gi in all but whose pod-level
# request is 30Gi: gpulint denies it, quoting the 30Gi against the node's
# allocatable, and the scheduler, given the same pod in an audit namespace,
# finds the node short of memory. A pod-level request of 20Gi is admitted
# and bound there.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-m
audit_namespace e2e-m-audit

pod() {  # pod NAME POD-LEVEL-MEMORY
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $1}}
spec:
  nodeSelector: {kubernetes.io/hostname: gpu-rtx8000}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  resources:
    requests: {cpu: "4", memory: $2}
    limits: {memory: $2}
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {memory: 8Gi}
      limits: {memory: 16Gi, nvidia.com/gpu: 1}
  - name: loader
    image: busybox:1.36
    resources:
      requests: {memory: 4Gi}
YAML
}

kc create -n "$NS" -f - < <(pod big 30Gi)
expect_denied "a pod-level memory request of 30Gi on a node with 32G allocatable"
expect_denial "the denial is exceeds-allocatable at the pod-level request" \
  '^denied the request: exceeds-allocatable \(spec\.resources\.requests\.memory\)'
expect_denial "the denial quotes the pod-level 30Gi against gpu-rtx8000's 32G" \
  'node "gpu-rtx8000": memory request 30Gi \([0-9]+ B = [0-9.]+ GB = 30 GiB\) > allocatable 32G '
note "$(denial | cut -c1-240)"

# The scheduler's own verdict on the same pod: its pod-level 30Gi does not
# fit the 32G (29.8 GiB), though its containers' 12Gi would.
msg=$(unschedulable_in e2e-m-audit big '^0/[0-9]+ nodes are available: 1 Insufficient memory, ' < <(pod big 30Gi))
note "the scheduler: $msg"

bound_silently fits gpu-rtx8000 "a pod-level memory request of 20Gi on gpu-rtx8000" < <(pod fits 20Gi)
stored=$(k get pod fits -n "$NS" -o json | jq -c '.spec.resources')
[[ $(jq -r '.requests.memory' <<<"$stored") == 20Gi ]] ||
  fail "the stored pod-level request is not the 20Gi written" "spec.resources.requests.memory: 20Gi" "$stored"
note "the 20Gi pod is bound to gpu-rtx8000, stored with spec.resources $stored"
