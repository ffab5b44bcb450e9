#!/usr/bin/env bash
# d. Incident 3 (driver memory outside the cgroup): with a policy that
# reserves 32Gi of host memory per GPU (set through the chart's policy.spec
# value, reloaded by the webhook as a ConfigMap volume update), a pod on the
# T4 node (63596320Ki, 1 GPU) with a 40G memory limit is denied and one with a
# 20G limit is admitted and bound. The default policy comes back at the end.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-d

at_exit restore_policy
set_policy --set-json 'policy.spec={"reserved":{"memory":{"fixed":"1Gi","percent":5,"perGpu":"32Gi"}}}'
note "policy reloaded: reserved.memory {fixed: 1Gi, percent: 5, perGpu: 32Gi}"

pod() {  # pod NAME LIMIT
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, labels: {app: $1}}
spec:
  nodeSelector: {kubernetes.io/hostname: gpu-t4}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: render
    image: nvcr.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04
    resources:
      requests: {cpu: "4", memory: 16G, nvidia.com/gpu: 1}
      limits: {memory: $2, nvidia.com/gpu: 1}
YAML
}

kc create -n "$NS" -f - < <(pod render-40g 40G)
expect_denied "a 40G memory limit on the T4 node with 32Gi reserved per GPU"
expect_denial "the denial names exceeds-allocatable" 'exceeds-allocatable'
expect_denial "the denial quotes the user's 40G limit" '40G([^i0-9]|$)'
note "$(denial | cut -c1-300)"

kc create -n "$NS" -f - < <(pod render-20g 20G)
expect_ok "a 20G memory limit on the T4 node with 32Gi reserved per GPU"
wait_bound app=render-20g 1 30 gpu-t4
note "the 20G pod is bound to gpu-t4"
