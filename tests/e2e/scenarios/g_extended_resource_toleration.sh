#!/usr/bin/env bash
# g. A 1-GPU Deployment WITHOUT a toleration, against the tainted GPU nodes.
#   with:    kube-apiserver runs ExtendedResourceToleration, which gives a pod
#            requesting nvidia.com/gpu the toleration of the nvidia.com/gpu
#            taint: the pod is bound to a GPU node, and gpulint warns of no
#            node it could not match (neither to kubectl nor in its decisions).
#   without: the pod is created and stays Pending with the scheduler's
#            untolerated-taint message (1.28 names the taint, 1.36 does not).
#   g_extended_resource_toleration.sh with|without
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
mode=${1:?with or without}
new_namespace "e2e-g-$mode"

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
      containers:
      - name: trainer
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          requests: {cpu: "2", memory: 16Gi, nvidia.com/gpu: 1}
          limits: {memory: 16Gi, nvidia.com/gpu: 1}
YAML
expect_ok "kubectl apply of a 1-GPU Deployment without a toleration"
applied=$OUT
note "kubectl apply printed: $(tr '\n' ' ' <<<"$applied")"

if [[ $mode == with ]]; then
  OUT=$applied
  expect_no_output "with ExtendedResourceToleration, gpulint warns of no unmatched node" 'no-matching-node'
  wait_bound app=trainer 1 30
  pod=$(pods_json app=trainer | jq -c '.items[0]')
  jq -e '.spec.tolerations // [] | any(.key == "nvidia.com/gpu" and .operator == "Exists")' <<<"$pod" >/dev/null ||
    fail "the pod has no toleration of nvidia.com/gpu: is ExtendedResourceToleration on?" \
      "tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]" "$(jq -c .spec.tolerations <<<"$pod")"
  node=$(jq -r .spec.nodeName <<<"$pod")
  [[ $node == gpu-* ]] || fail "the pod was bound to $node" "a GPU node" "$node"
  decisions=$(webhook_decisions "$NS")
  if grep -q 'no-matching-node' <<<"$decisions"; then
    fail "gpulint-webhook reported no-matching-node for the Deployment or its pods" "no no-matching-node finding" \
      "$(grep 'no-matching-node' <<<"$decisions")"
  fi
  note "pod bound to $node (toleration added by ExtendedResourceToleration), no no-matching-node finding"
  # The API server was restarted before this half: the webhook's watch and its
  # VRAM advertiser came back with it, so a node registered now is advertised.
  fresh=gpu-after-restart
  make_node "$fresh" '{"nvidia.com/gpu.count":"2","nvidia.com/gpu.memory":"16384"}' "[$GPU_TAINT]" \
    '{"cpu":"8","memory":"64Gi","nvidia.com/gpu":"2","pods":"110"}'
  at_exit "k delete node $fresh --wait=false"
  # Each GPU's memory.total less the policy's driver reserve (616Mi).
  wait_for 20 "gpulint.io/vram on $fresh" vram_written "$fresh" $((2 * (16384 - 616) * 1024 * 1024)) ||
    fail "after the API server restart, a new GPU node is not advertised" "gpulint.io/vram: 31536Mi on $fresh" \
      "$(k get node "$fresh" -o jsonpath='{.status.capacity}')"
  note "after the API server restart, $fresh was advertised 32Gi of VRAM"
else
  wait_created app=trainer 1 30
  pod=$(pods_json app=trainer | jq -r '.items[0].metadata.name')
  # Each version's own words: 1.28 names the taint, 1.36 only counts the nodes.
  if ((K8S_MINOR >= 36)); then
    untolerated='[0-9]+ node\(s\) had untolerated taint\(s\)'
  else
    untolerated='[0-9]+ node\(s\) had untolerated taint \{nvidia\.com/gpu: present\}'
  fi
  msg=$(wait_unschedulable "$pod" "$untolerated" 30)
  note "pod $pod Pending: $msg"
fi
