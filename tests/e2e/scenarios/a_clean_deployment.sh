#!/usr/bin/env bash
# a. A clean 1-GPU Deployment (16Gi memory request = limit, 1 GPU, the GPU
# taint tolerated) on the 1-GPU node with 32G allocatable (gpu-rtx8000): its
# pod is created and bound. The mutation adds the per-GPU headroom (perGpu) to
# the pod's memory once; the validation must not count it a second time
# against allocatable minus the reserve that already holds it.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-a

kc apply -n "$NS" -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  replicas: 1
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      nodeSelector: {nvidia.com/gpu.product: Quadro-RTX-8000}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: trainer
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          requests: {cpu: "2", memory: 16Gi, nvidia.com/gpu: 1}
          limits: {memory: 16Gi, nvidia.com/gpu: 1}
YAML
expect_ok "kubectl apply of a clean 1-GPU Deployment"
expect_no_output "kubectl apply of a clean 1-GPU Deployment prints no warning" '^Warning:'
wait_bound app=trainer 1 30 gpu-rtx8000
pod=$(pods_json app=trainer | jq -c '.items[0]')
note "pod $(jq -r .metadata.name <<<"$pod") bound to gpu-rtx8000, memory request $(jq -r '.spec.containers[0].resources.requests.memory' <<<"$pod")"
