#!/usr/bin/env bash
# o. DRA (resource.k8s.io/v1, GA since 1.34): two hollow A100 nodes with no
# nvidia.com/gpu of their own publish their GPUs in ResourceSlices (driver
# gpu.nvidia.com, 2 devices of 80Gi memory each), as NVIDIA's DRA driver
# would; a DeviceClass selects them. A Deployment of 2 pods whose trainer
# uses a ResourceClaimTemplate asking one GPU: each pod gets a claim of its
# own, allocated by the scheduler from the slice of the node it binds the pod
# to. gpulint check, given the template with the Deployment and the cluster's
# nodes, counts the claim's GPU for every rule (a trainer with no memory
# limit is memory-limit-missing, naming the claim); the webhook, which sees
# the Deployment alone, says that it cannot tell (dra-claim-unresolved).
# A claim template asking each GPU for 100Gi of memory: gpulint check and
# the webhook deny it (vram-exceeds-gpu: no device the slices publish has
# more than 80Gi);
# admitted in warn mode, the scheduler cannot allocate it: the pod stays
# Pending.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-o

k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com'"}
YAML
at_exit 'k delete deviceclass gpu.nvidia.com'
for node in dra-a100-0 dra-a100-1; do
  make_node "$node" '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"2",
      "nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB","nvidia.com/gpu.memory":"81920"}' "[$GPU_TAINT]" \
    '{"cpu":"32","memory":"256Gi","pods":"110"}'
  at_exit "k delete resourceslice $node-gpu; k delete node $node"
  jq -n --arg n "$node" '{apiVersion: "resource.k8s.io/v1", kind: "ResourceSlice",
      metadata: {name: "\($n)-gpu"},
      spec: {driver: "gpu.nvidia.com", nodeName: $n, pool: {name: $n, generation: 1, resourceSliceCount: 1},
        devices: [range(2) | {name: "gpu-\(.)", attributes: {productName: {string: "NVIDIA A100-SXM4-80GB"}},
          capacity: {memory: {value: "80Gi"}}}]}}' | k create -f - >/dev/null
done

manifests=$E2E_TMP/o-dra.yaml
template() {  # template NAME [MEMORY-PER-GPU]
  cat <<YAML
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: $1, namespace: $NS}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
${2:+          capacity: {requests: {memory: $2\}\}}
---
YAML
}
deployment() {  # deployment NAME TEMPLATE REPLICAS [LIMITS]
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: $NS}
spec:
  replicas: $3
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      resourceClaims:
      - {name: gpu, resourceClaimTemplateName: $2}
      containers:
      - name: trainer
        image: nvcr.io/nvidia/pytorch:24.05-py3
        resources:
          requests: {cpu: "4", memory: 32Gi}
          limits: {${4:-memory: 32Gi}}
          claims: [{name: gpu}]
YAML
}
{ template one-gpu; deployment infer one-gpu 2; } >"$manifests"

kc apply -f "$manifests"
expect_ok "kubectl apply of a ResourceClaimTemplate and a Deployment using it"
grep -q 'Warning: dra-claim-unresolved (spec.template.spec.resourceClaims\[0\]): claim "gpu" comes from ResourceClaimTemplate "one-gpu", which is not given before this object' <<<"$OUT" ||
  fail "the webhook, which sees the Deployment alone, does not say it cannot resolve the claim" \
    'Warning: dra-claim-unresolved (spec.template.spec.resourceClaims[0]): claim "gpu" comes from ResourceClaimTemplate "one-gpu", ...' "$OUT"
wait_bound app=infer 2 30
# Each pod's claim, allocated from a device of the node it is bound to.
allocations=$(k get resourceclaims -n "$NS" -o json | jq -c '[.items[] | select(.status.allocation != null) |
  {pod: .status.reservedFor[0].name, pool: .status.allocation.devices.results[0].pool,
   device: .status.allocation.devices.results[0].device}] | sort_by(.pod)')
bindings=$(pods_json app=infer | jq -c '[.items[] | {pod: .metadata.name, node: .spec.nodeName}] | sort_by(.pod)')
jq -e --argjson b "$bindings" 'length == 2 and ([.[] | {pod, node: .pool}] == $b) and
  all(.[]; .device | test("^gpu-[01]$"))' <<<"$allocations" >/dev/null ||
  fail "the pods' claims are not allocated from the ResourceSlices of their nodes" \
    "one allocated claim per pod, its device in the pool of the pod's node $bindings" "$allocations"
note "bound, each with a claim allocated on its own node: $allocations"

# gpulint check with the template in view and the cluster's nodes, device
# classes and resource slices.
k get nodes,deviceclasses,resourceslices -o yaml >"$E2E_TMP/o-nodes.yaml"
check() { OUT=$("$GPULINT" check --nodes "$E2E_TMP/o-nodes.yaml" "$@" 2>&1) && RC=0 || RC=$?; }
check "$manifests"
((RC == 0)) || fail "gpulint check of the template and the Deployment found something" "exit status 0, nothing" "$OUT"
{ template one-gpu; deployment no-limit one-gpu 1 "cpu: \"4\""; } >"$E2E_TMP/o-no-limit.yaml"
check "$E2E_TMP/o-no-limit.yaml"
grep -q 'warning: container "trainer" uses GPUs (DRA claim "gpu": 1 gpu.nvidia.com device) but sets no memory limit' <<<"$OUT" ||
  fail "gpulint check does not count the claim's GPU for memory-limit-missing" \
    'warning: container "trainer" uses GPUs (DRA claim "gpu": 1 gpu.nvidia.com device) but sets no memory limit; ...' "$OUT"
note "gpulint check counts the claim's GPU: $(grep -o 'warning: container "trainer" uses GPUs.*' <<<"$OUT" | cut -c1-160)"

# 100Gi of each GPU's memory: more than the A100s, the largest GPUs of the
# cluster, have. The claim is the template's: gpulint check and the webhook
# judge it where it is written, against every node.
{ template huge-gpu 100Gi; deployment huge huge-gpu 1; } >"$E2E_TMP/o-huge.yaml"
huge_msg='request "gpu" asks 100Gi \([0-9]* B = [0-9.]* GB = 100 GiB\) of memory of each gpu.nvidia.com device, but the largest device that DeviceClass selects, "gpu-[01]" of node "dra-a100-[01]", has 80Gi, and no node.s have more: the scheduler cannot allocate it'
check "$E2E_TMP/o-huge.yaml"
((RC == 1)) && grep -Eq ":11:[0-9]+: error: $huge_msg" <<<"$OUT" ||
  fail "gpulint check does not deny a claim template asking more memory than the GPUs have" \
    'exit status 1; o-huge.yaml:11:...: error: request "gpu" asks 100Gi (...) of memory of each gpu.nvidia.com device, but the largest device that DeviceClass selects, "gpu-N" of node "dra-a100-N", has 80Gi, and no node'"'"'s have more: ...' "$OUT"
note "gpulint check: $(grep -o 'error: .*' <<<"$OUT" | cut -c1-200)"
template huge-gpu 100Gi >"$E2E_TMP/o-huge-template.yaml"
kc apply -f "$E2E_TMP/o-huge-template.yaml"
expect_denied "a claim template asking each GPU for more memory than any node's GPUs have"
expect_denial "the webhook does not say why the template is denied" \
  "vram-exceeds-gpu \(spec\.spec\.devices\.requests\[0\]\.exactly\.capacity\.requests\.memory\): $huge_msg"
note "the webhook: $(denial | cut -c1-200)"
# In warn mode it is admitted with a warning, and the scheduler bears it out.
kc label namespace "$NS" gpulint.io/mode=warn
expect_ok "label namespace $NS gpulint.io/mode=warn"
sleep 1  # the API server reads namespace labels through its informer
kc apply -f "$E2E_TMP/o-huge.yaml"
expect_ok "the template and its Deployment in warn mode"
# (the webhook cuts a warning short, as the API server caps them: the start
# names the request.)
grep -q '^Warning: gpulint would deny: vram-exceeds-gpu (spec.spec.devices.requests\[0\].exactly.capacity.requests.memory): request "gpu" asks 100Gi' <<<"$OUT" ||
  fail "warn mode does not warn about the template" "Warning: gpulint would deny: vram-exceeds-gpu ..." "$OUT"
wait_created app=huge 1 30
pod=$(pods_json app=huge | jq -r '.items[0].metadata.name')
msg=$(wait_unschedulable "$pod" '^0/[0-9]+ nodes are available: .*[0-9]+ cannot allocate all claims' 30)
note "the scheduler: $msg"
