#!/usr/bin/env bash
# Writes testdata/cluster-dump/ from a real control plane (cluster.sh: etcd,
# kube-apiserver, kube-scheduler, kube-controller-manager v1.28.7; no webhook,
# no nodes): a Deployment whose ReplicaSet made two Pods, a Job whose
# controller made one, and a bare Pod, each with what gpulint reports, then
#   kubectl get all -A -o json   > kubectl-get-all.json   (owners and owned)
#   kubectl get pods -n ml -o json > kubectl-get-pods.json  (owned, owners absent)
# exactly as the API server returned them. lint/cli/cluster_dump_test.cc reads them.
#
#   tests/e2e/cluster_dump.sh [OUT-DIR]   (default testdata/cluster-dump)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=cluster.sh
source "$here/cluster.sh"
SCENARIO=cluster-dump
out=$(realpath -m "${1:-$ROOT/testdata/cluster-dump}")
mkdir -p "$out"

cluster_prepare
trap 'cluster_cleanup $?' EXIT
cluster_up
k create namespace ml >/dev/null
k apply -n ml -f - <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  replicas: 2
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: trainer
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          requests: {cpu: "2", memory: 500m, nvidia.com/gpu: 1}
          limits: {nvidia.com/gpu: 1}
      - name: metrics
        image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
---
apiVersion: batch/v1
kind: Job
metadata: {name: eval}
spec:
  template:
    spec:
      restartPolicy: Never
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: eval
        image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
        resources:
          limits: {nvidia.com/gpu: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: debug}
spec:
  containers:
  - name: shell
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
YAML
# The bare pod, and the three the ReplicaSet and Job controllers make.
four_pods() { [[ $(k get pods -n ml -o name | wc -l) == 4 ]]; }
wait_for 60 "the controllers' pods" four_pods ||
  die_with_log "the controllers did not make their 3 pods within 60 s" kube-controller-manager
k get all -A -o json >"$out/kubectl-get-all.json"
k get pods -n ml -o json >"$out/kubectl-get-pods.json"
echo "cluster-dump: wrote $out/kubectl-get-all.json and kubectl-get-pods.json ($K8S_VERSION)"
