#!/usr/bin/env bash
# b. Incident 1 (GiB vs GB): on the V100 node (527787256Ki, 4 GPUs), a Job and
# a Pod asking memory: 500Gi with 4 GPUs are denied, and the denial quotes the
# user's 500Gi (not the 532Gi the mutation makes of a pod's request); the same
# Job with 440G is admitted and its pod bound to gpu-v100.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-b

job() {  # job NAME MEMORY
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      nodeSelector: {nvidia.com/gpu.product: Tesla-V100-SXM2-32GB}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: train
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          requests: {cpu: "32", memory: $2, nvidia.com/gpu: 4}
          limits: {memory: $2, nvidia.com/gpu: 4}
YAML
}

kc create -n "$NS" -f - < <(job train-500gi 500Gi)
expect_denied "a Job asking 500Gi on the 527787256Ki V100 node"
expect_denial "the Job's denial names exceeds-allocatable" 'exceeds-allocatable'
expect_denial "the Job's denial quotes the user's 500Gi" '500Gi'

kc create -n "$NS" -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: train-500gi}
spec:
  restartPolicy: Never
  nodeSelector: {nvidia.com/gpu.product: Tesla-V100-SXM2-32GB}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {cpu: "32", memory: 500Gi, nvidia.com/gpu: 4}
      limits: {memory: 500Gi, nvidia.com/gpu: 4}
YAML
expect_denied "a Pod asking 500Gi on the 527787256Ki V100 node"
expect_denial "the Pod's denial names exceeds-allocatable" 'exceeds-allocatable'
expect_denial "the Pod's denial quotes the user's 500Gi" '500Gi'
mutated=$(((500 << 30) + 4 * $(per_gpu_headroom)))
expect_denial_not "the Pod's denial quotes the user's 500Gi, not the mutated request (500Gi + 4 GPUs' headroom = $mutated B)" \
  "memory request ($mutated|$((mutated >> 30))Gi)\b"
note "$(denial | cut -c1-300)"

kc create -n "$NS" -f - < <(job train-440g 440G)
expect_ok "a Job asking 440G on the V100 node"
wait_bound job-name=train-440g 1 30 gpu-v100
note "the 440G Job's pod is bound to gpu-v100"
