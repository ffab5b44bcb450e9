#!/usr/bin/env bash
# c. Incident 2 (VRAM is invisible to the scheduler): an RTX 8000 (48 GB,
# nvidia.com/gpu.memory=49152) time-sliced into 8 replicas. gpulint-webhook,
# run with the chart's args, advertises the node's VRAM itself: gpulint.io/vram
# (memory.total less the 616Mi the driver reserves, docs/gpus.md) appears in
# status.capacity and status.allocatable, written by the webhook (this suite
# never writes it). Five pods of one replica each declare 12G of VRAM
# (gpulint.io/vram annotation, made a resource by the mutation with a 621Mi
# CUDA context): four are bound, the fifth stays Pending with "Insufficient
# gpulint.io/vram". The node deleted and registered again gets its VRAM
# written again.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-c

node=gpu-rtx8000-ts
labels='{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"1","nvidia.com/gpu.product":"Quadro-RTX-8000",
  "nvidia.com/gpu.memory":"49152","nvidia.com/gpu.replicas":"8","nvidia.com/gpu.sharing-strategy":"time-slicing"}'
capacity='{"cpu":"10","memory":"32G","nvidia.com/gpu":"8","pods":"110"}'
want=$(((49152 - 616) * 1024 * 1024))  # 1 GPU x (49152 MiB less the driver's 616 MiB)

expect_vram_advertised() {  # WHEN
  if ! wait_for 20 "gpulint.io/vram on $node" vram_written "$node" "$want"; then
    fail "$1: gpulint-webhook did not write gpulint.io/vram = 48536Mi ($want B) to $node's status.capacity and status.allocatable within 20 s" \
      "status.capacity and status.allocatable with gpulint.io/vram: 48536Mi (nvidia.com/gpu.count=1 x (nvidia.com/gpu.memory=49152 less 616))" \
      "$(k get node "$node" -o json | jq -c '{capacity: .status.capacity, allocatable: .status.allocatable}')
gpulint-webhook $WEBHOOK_CMDLINE"
  fi
  # Who wrote it: the webhook's client, not this suite's kubectl.
  local managers
  managers=$(k get node "$node" -o json --show-managed-fields | jq -r '[.metadata.managedFields[]
    | select((.fieldsV1 // {} | tostring) | contains("gpulint.io/vram")) | .manager] | unique | join(",")')
  [[ $managers == gpulint-webhook ]] ||
    fail "$1: gpulint.io/vram on $node was not written by the webhook" "field manager gpulint-webhook" "managers: ${managers:-none}"
  note "$1: $node advertises gpulint.io/vram $(k get node "$node" -o jsonpath='{.status.capacity.gpulint\.io/vram}') (written by $managers)"
}

make_node "$node" "$labels" "[$GPU_TAINT]" "$capacity"
at_exit "k delete node $node --wait=false"
expect_vram_advertised "registered"

for i in 1 2 3 4 5; do
  kc create -n "$NS" -f - <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: vram-$i
  labels: {app: vram}
  annotations: {gpulint.io/vram: 12G}
spec:
  nodeSelector: {nvidia.com/gpu.sharing-strategy: time-slicing}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: infer
    image: nvcr.io/nvidia/tritonserver:24.05-py3
    resources:
      requests: {cpu: "1", memory: 2G, nvidia.com/gpu: 1}
      limits: {memory: 2G, nvidia.com/gpu: 1}
YAML
  expect_ok "pod vram-$i (12G of VRAM, 1 replica)"
done
vram=$(pods_json app=vram | jq -r '[.items[].spec.containers[0].resources.limits["gpulint.io/vram"] // "none"] | unique | join(",")')
[[ $(bytes "$vram" 2>/dev/null) == $((12000000000 + 621 * 1024 * 1024)) ]] ||
  fail "the mutation did not turn the gpulint.io/vram annotation into the resource" \
    "limits gpulint.io/vram: 12651165696 (12G and a 621Mi CUDA context) on every pod" "$vram"
wait_bound app=vram 4 30 "$node"
pending=$(pods_json app=vram | jq -r '[.items[] | select(.spec.nodeName == null) | .metadata.name]')
[[ $(jq length <<<"$pending") == 1 ]] ||
  fail "four of five 12G pods fit a 48 GB card" "exactly one pod Pending" "$(k get pods -n "$NS" -o wide)"
pod=$(jq -r '.[0]' <<<"$pending")
msg=$(wait_unschedulable "$pod" 'Insufficient gpulint\.io/vram' 20)
note "4 pods bound to $node; $pod Pending: $msg"

# Registered again: a new Node object, without the VRAM.
k delete pods --all -n "$NS" --force --grace-period=0 >/dev/null 2>&1
k delete node "$node" >/dev/null
make_node "$node" "$labels" "[$GPU_TAINT]" "$capacity"
expect_vram_advertised "re-registered"

# Garbage GPU Feature Discovery labels: skipped, logged and counted, never
# patched, and the watch goes on (the good node above stays advertised).
bad=gpu-garbage-labels
make_node "$bad" '{"nvidia.com/gpu.count":"1","nvidia.com/gpu.memory":"lots"}' "[$GPU_TAINT]" "$capacity"
at_exit "k delete node $bad --wait=false"
wait_for 20 "the skipped node counted" metric_is 'gpulint_webhook_vram_nodes{state="skipped"}' 1 ||
  fail "a node with nvidia.com/gpu.memory=lots is not counted as skipped" \
    'gpulint_webhook_vram_nodes{state="skipped"} 1' "$(webhook_metric 'gpulint_webhook_vram_nodes{state="skipped"}')"
grep -q '"msg":"node VRAM not advertised: the node does not read".*'"$bad" "$WEBHOOK_LOG" ||
  fail "the skipped node is not logged" "a warn line naming $bad" "$(grep -c . "$WEBHOOK_LOG") log lines"
[[ -z $(k get node "$bad" -o jsonpath='{.status.capacity.gpulint\.io/vram}') ]] ||
  fail "a node whose labels do not read was patched" "no gpulint.io/vram on $bad" "$(k get node "$bad" -o jsonpath='{.status.capacity}')"
vram_written "$node" "$want" || fail "the good node lost its VRAM" "gpulint.io/vram on $node" "none"
note "$bad (nvidia.com/gpu.memory=lots) skipped, logged and counted; $node still advertised"
