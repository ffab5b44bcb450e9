#!/usr/bin/env bash
# e. Incident 4 (MPS replicas): one T4 shared by MPS as nvidia.com/gpu: 10
# (cpu 3920m, memory 17413608Ki). A pod asking 2 replicas is denied (the
# device plugin refuses more than one shared GPU per container). Five pods
# of 1 replica and 1Gi each are all bound: a replica carries k/r of the
# per-GPU memory headroom (perGpu / 10), not a whole GPU's.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-e

pod() {  # pod NAME REPLICAS
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: mps}}
spec:
  nodeSelector: {nvidia.com/mps.capable: "true"}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: infer
    image: nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04
    resources:
      requests: {cpu: 100m, memory: 1Gi, nvidia.com/gpu: $2}
      limits: {memory: 1Gi, nvidia.com/gpu: $2}
YAML
}

kc create -n "$NS" -f - < <(pod two-replicas 2)
expect_denied "a pod asking 2 replicas of the MPS-shared GPU"
expect_denial "the denial is about the 2 replicas (shared-gpu-multiple-replicas)" 'shared-gpu-multiple-replicas'
note "$(denial | cut -c1-300)"

for i in 1 2 3 4 5; do
  kc create -n "$NS" -f - < <(pod "mps-$i" 1)
  expect_ok "pod mps-$i (1 replica of the MPS GPU, 1Gi)"
done
# The headroom a replica carries: the default perGpu x 1/10, give or take 1Mi of rounding.
share=$(($(per_gpu_headroom) / 10))
added=$(pods_json app=mps | jq -r '.items[].spec.containers[0].resources.requests.memory' | sort -u)
for q in $added; do
  extra=$(($(bytes "$q") - (1 << 30)))
  ((extra >= share - (1 << 20) && extra <= share + (1 << 20))) ||
    fail "a 1-replica pod on the 10-replica GPU carries $extra B of headroom" \
      "1Gi + perGpu/10 ($share B, +-1Mi) of memory request" "requests.memory: $added"
done
wait_bound app=mps 5 30 gpu-t4-mps
note "5 pods of 1 replica bound to gpu-t4-mps, memory request $added each"
