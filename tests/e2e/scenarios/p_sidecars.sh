#!/usr/bin/env bash
# p. Native sidecars (an init container with restartPolicy Always; on by
# default since 1.29): Kubernetes sums a pod's memory as the larger of its
# app containers plus its sidecars, and of each init container plus the
# sidecars started before it. A 1-GPU trainer of 16Gi with a 6Gi log-shipping
# sidecar and a 24Gi model fetch after it asks 6Gi + 24Gi = 30Gi on the node
# with 32G (29.8 GiB): gpulint denies it quoting 30Gi, and the scheduler,
# given the same pod in an audit namespace, finds the node short of memory
# (the sum of 1.28 and before, which took the largest init container alone,
# 24Gi, would have let it in). With an 18Gi fetch (24Gi in all) the pod is
# admitted and bound; the trainer gets its headroom and the sidecar keeps
# restartPolicy Always, hidden from the GPUs like any container without one.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-p
audit_namespace e2e-p-audit

pod() {  # pod NAME FETCH-MEMORY
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $1}}
spec:
  nodeSelector: {kubernetes.io/hostname: gpu-rtx8000}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  initContainers:
  - name: log-shipper
    image: fluent/fluent-bit:3.0
    restartPolicy: Always
    resources:
      requests: {cpu: 500m, memory: 6Gi}
      limits: {memory: 6Gi}
  - name: fetch-model
    image: busybox:1.36
    resources:
      requests: {cpu: "1", memory: $2}
      limits: {memory: $2}
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {cpu: "2", memory: 16Gi, nvidia.com/gpu: 1}
      limits: {memory: 16Gi, nvidia.com/gpu: 1}
YAML
}

kc create -n "$NS" -f - < <(pod big 24Gi)
expect_denied "a 6Gi sidecar and a 24Gi init container after it, on a node with 32G"
expect_denial "the denial is exceeds-allocatable, quoting the sidecar plus the init container: 30Gi" \
  '^denied the request: exceeds-allocatable \(spec\.initContainers\[0\]\.resources\.requests\.memory\): .*node "gpu-rtx8000": memory request 30Gi \([0-9]+ B = [0-9.]+ GB = 30 GiB\) > allocatable 32G '
note "$(denial | cut -c1-240)"

msg=$(unschedulable_in e2e-p-audit big '^0/[0-9]+ nodes are available: 1 Insufficient memory, ' < <(pod big 24Gi))
note "the scheduler: $msg"

bound_silently fits gpu-rtx8000 "a 6Gi sidecar and an 18Gi init container, 24Gi in all" < <(pod fits 18Gi)
stored=$(k get pod fits -n "$NS" -o json | jq -c '[(.spec.initContainers + .spec.containers)[] |
  {name, restartPolicy, memory: .resources.requests.memory,
   void: any(.env[]?; .name == "NVIDIA_VISIBLE_DEVICES" and .value == "void")}]')
want='[{"name":"log-shipper","restartPolicy":"Always","memory":"6Gi","void":true},{"name":"fetch-model","restartPolicy":null,"memory":"18Gi","void":true},{"name":"trainer","restartPolicy":null,"memory":"17Gi","void":false}]'
[[ $stored == "$want" ]] || fail "the stored pod is not the one written with gpulint's mutations" "$want" "$stored"
note "bound to gpu-rtx8000, stored as $stored"
