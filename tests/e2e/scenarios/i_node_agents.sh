#!/usr/bin/env bash
# i. GPU node agents are left alone: NVIDIA's device plugin as its Helm chart
# 0.14 installs it in its own namespace (relying on the image's
# NVIDIA_VISIBLE_DEVICES=all), and a standalone dcgm-exporter tolerating the
# GPU taint (testdata/agents). The pods their DaemonSets create, on every GPU
# node, are stored exactly as their templates say: no NVIDIA_VISIBLE_DEVICES=void
# (which would make the node advertise no GPU), no headroom, no VRAM, no
# annotation of gpulint's; the webhook saw each pod and patched none. A
# DaemonSet on GPU nodes that is no agent still gets void.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace nvidia-device-plugin
make_namespace dcgm-exporter
at_exit 'k delete daemonsets --all -n dcgm-exporter --cascade=orphan; k delete pods --all -n dcgm-exporter --force --grace-period=0; k delete namespace dcgm-exporter --wait=false'

gpu_nodes=$(k get nodes -o json | jq '[.items[] | select(.metadata.labels["nvidia.com/gpu.count"] != null)] | length')
all_nodes=$(k get nodes -o name | wc -l)

# check_agent FILE NAMESPACE SELECTOR: the DaemonSet of FILE makes a pod on
# every node it tolerates, each stored as its template says.
check_agent() {
  local file=$1 ns=$2 selector=$3 template pods n
  kc apply -f "$ROOT/testdata/agents/$file"
  expect_ok "kubectl apply -f testdata/agents/$file"
  NS=$ns wait_created "$selector" "$all_nodes" 30
  template=$(k get daemonset -n "$ns" -l "$selector" -o json |
    jq -c '.items[0].spec.template | {annotations: (.metadata.annotations // {}),
      containers: [.spec.containers[] | {name, image, env, resources, volumeMounts, securityContext}]}')
  pods=$(k get pods -n "$ns" -l "$selector" -o json)
  n=$(jq '.items | length' <<<"$pods")
  while IFS= read -r pod; do
    jq -e --argjson t "$template" '{annotations: ((.annotations // {}) |
        with_entries(select(.key | startswith("gpulint")))), containers} ==
      {annotations: {}, containers: $t.containers}' <<<"$pod" >/dev/null ||
      fail "a pod of $file is not stored as its template says" "$template" "$pod"
  done < <(jq -c '.items[] | {annotations: .metadata.annotations,
      containers: [.spec.containers[] | {name, image, env, resources, securityContext,
        volumeMounts: [.volumeMounts[]? | select(.name | startswith("kube-api-access-") | not)]}]}' \
    <<<"$pods")
  # It ran on the GPU nodes, where the agent is needed.
  on_gpu=$(jq --argjson gpu "$(k get nodes -o json | jq -c '[.items[] |
      select(.metadata.labels["nvidia.com/gpu.count"] != null) | .metadata.name]')" \
    '[.items[] | .spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution |
      .nodeSelectorTerms[0].matchFields[0].values[0] | select(. as $n | $gpu | index($n))] |
      length' <<<"$pods")
  ((on_gpu == gpu_nodes)) || fail "$file: not one pod per GPU node" "$gpu_nodes pods on GPU nodes" "$on_gpu"
  # gpulint's /mutate saw every one and patched none.
  local seen patched
  seen=$(webhook_decisions "$ns" | jq -s '[.[] | select(.endpoint == "mutate" and .kind == "Pod")] | length')
  patched=$(webhook_decisions "$ns" | jq -s '[.[] | select(.endpoint == "mutate" and .patch_ops != null)] | length')
  ((seen >= n && patched == 0)) ||
    fail "$file: gpulint-webhook's /mutate did not see every pod, or patched one" \
      "$n pods seen, 0 patched" "$seen seen, $patched patched"
  note "$file: $n pods ($on_gpu on GPU nodes) stored as their template says; /mutate saw $seen, patched none"
}

check_agent nvidia-device-plugin-chart-0.14.yaml nvidia-device-plugin app.kubernetes.io/name=nvidia-device-plugin
check_agent dcgm-exporter.yaml dcgm-exporter app.kubernetes.io/name=dcgm-exporter

# A DaemonSet on GPU nodes that mounts nothing of the kubelet's and
# is not privileged is a workload on GPU nodes: its GPUs are hidden.
kc create -n "$NS" -f - <<'YAML'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: not-an-agent}
spec:
  selector: {matchLabels: {app: not-an-agent}}
  template:
    metadata: {labels: {app: not-an-agent}}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: c, image: "busybox:1.36", command: [sleep, infinity]}]
YAML
expect_ok "a DaemonSet that is no node agent"
wait_created app=not-an-agent "$all_nodes" 30
hidden=$(pods_json app=not-an-agent | jq '[.items[] | select(any(.spec.containers[0].env[]?;
    .name == "NVIDIA_VISIBLE_DEVICES" and .value == "void"))] | length')
((hidden == all_nodes)) || fail "the pods of a DaemonSet that is no agent are not hidden" \
  "$all_nodes pods with NVIDIA_VISIBLE_DEVICES=void" "$hidden"
note "a DaemonSet that is no agent: $hidden pods stored with NVIDIA_VISIBLE_DEVICES=void"
