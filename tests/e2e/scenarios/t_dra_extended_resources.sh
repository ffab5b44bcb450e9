#!/usr/bin/env bash
# t. GPUs as Kubernetes 1.36 gives them through DRA (KEP-5004,
# DRAExtendedResource, beta and on by default): a DeviceClass gpu.nvidia.com
# with extendedResourceName nvidia.com/gpu, two hollow H100 nodes whose GPUs
# only their ResourceSlices publish (4 each, 80Gi of memory; no nvidia.com/gpu
# in allocatable), beside the incidents' nodes whose device plugin lists
# nvidia.com/gpu: a cluster with both. The chart's webhook, in deny mode,
# watches the DeviceClasses and ResourceSlices beside the Nodes:
#  - a pod asking nvidia.com/gpu: 4 for the H100s is admitted, and the
#    scheduler binds it with a claim it makes (pod.status
#    .extendedResourceClaimStatus); so is one asking the class's implicit
#    deviceclass.resource.kubernetes.io/gpu.nvidia.com;
#  - one asking 12 is denied with the arithmetic, each node counted as the
#    scheduler counts it: Insufficient where allocatable lists the GPUs,
#    "cannot allocate all claims" where devices serve them; the scheduler,
#    given it in an audit namespace, says the same counts;
#  - a claim template asking each GPU for 100Gi of memory, more than any
#    published device has, is denied.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-t
AUDIT_NS=e2e-t-audit
audit_namespace "$AUDIT_NS"

k apply -f - >/dev/null <<'YAML'
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  extendedResourceName: nvidia.com/gpu
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}
YAML
at_exit 'k delete deviceclass gpu.nvidia.com'
for node in dra-h100-0 dra-h100-1; do
  make_node "$node" '{"nvidia.com/gpu.present":"true","e2e-t":"dra"}' "[$GPU_TAINT]" \
    '{"cpu":"64","memory":"512Gi","pods":"110"}'
  at_exit "k delete resourceslice $node-gpu; k delete node $node"
  jq -n --arg n "$node" '{apiVersion: "resource.k8s.io/v1", kind: "ResourceSlice",
      metadata: {name: "\($n)-gpu"},
      spec: {driver: "gpu.nvidia.com", nodeName: $n, pool: {name: $n, generation: 1, resourceSliceCount: 1},
        devices: [range(4) | {name: "gpu-\(.)", attributes: {type: {string: "gpu"},
          productName: {string: "NVIDIA H100 80GB HBM3"}}, capacity: {memory: {value: "80Gi"}}}]}}' |
    k create -f - >/dev/null
done

pod() {  # pod NAME RESOURCE COUNT [NODE-SELECTOR-JSON]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  nodeSelector: ${4:-{\}}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      limits: {memory: 8Gi, $2: "$3"}
YAML
}

# The webhook hears of the class and the slices through its watch: the pod
# for the H100s is admitted once it has (a server-side dry run, until then).
admitted() { pod four nvidia.com/gpu 4 '{e2e-t: dra}' | k create --dry-run=server -n "$NS" -f - >/dev/null 2>&1; }
wait_for 20 "the webhook to admit 4 DRA GPUs on the H100 nodes" admitted ||
  fail "the webhook does not admit a pod asking for 4 GPUs that DRA serves" "admitted" \
    "$(pod four nvidia.com/gpu 4 '{e2e-t: dra}' | k create --dry-run=server -n "$NS" -f - 2>&1)"

kc create -n "$NS" -f - < <(pod four nvidia.com/gpu 4 '{e2e-t: dra}')
expect_ok "a pod asking nvidia.com/gpu: 4 on the DRA nodes"
expect_no_output "gpulint warns about a pod DRA serves" 'Warning'
wait_bound "" 1 30
claim=$(k get pod four -n "$NS" -o json | jq -r '.status.extendedResourceClaimStatus.resourceClaimName // empty')
[[ -n $claim ]] || fail "the scheduler bound the pod without a claim for its extended resource" \
  "status.extendedResourceClaimStatus.resourceClaimName" "$(k get pod four -n "$NS" -o json | jq -c .status)"
note "bound to $(k get pod four -n "$NS" -o jsonpath='{.spec.nodeName}') through claim $claim"
k delete pod four -n "$NS" --force --grace-period=0 >/dev/null 2>&1

kc create -n "$NS" -f - < <(pod by-class deviceclass.resource.kubernetes.io/gpu.nvidia.com 2)
expect_ok "a pod asking the class's implicit extended resource"
wait_bound "" 1 30
note "the implicit name: bound to $(k get pod by-class -n "$NS" -o jsonpath='{.spec.nodeName}')"
k delete pod by-class -n "$NS" --force --grace-period=0 >/dev/null 2>&1

# Twelve GPUs: no node holds them. The incidents' GPU nodes list theirs in
# allocatable (their device plugin's: 4, 1, 1, and 10 replicas); on the nodes
# that list none (the H100s, the CPU node) DRA serves them, from devices.
kc create -n "$NS" -f - < <(pod twelve nvidia.com/gpu 12)
expect_denied "a pod asking for 12 GPUs, more than any node holds"
expect_denial "the denial does not count the nodes as the scheduler does" \
  'exceeds-allocatable .*: the pod fits on none of its [0-9]+ candidate nodes: [0-9]+ insufficient nvidia.com/gpu: node "[^"]+": nvidia.com/gpu request 12 > allocatable [0-9]+( \(and [0-9]+ more\))?; [0-9]+ cannot allocate all claims: node "[^"]+": nvidia.com/gpu 12 > [0-9] devices of DeviceClass gpu.nvidia.com'
listed=$(denial | grep -o '[0-9]* insufficient nvidia.com/gpu' | cut -d' ' -f1)
served=$(denial | grep -o '[0-9]* cannot allocate all claims' | cut -d' ' -f1)
note "the webhook: $(denial | grep -o '[0-9]* insufficient nvidia.com/gpu: node "[^"]*"'); $(denial | grep -o '[0-9]* cannot allocate all claims: node "[^"]*": [^;(]*')"
msg=$(unschedulable_in "$AUDIT_NS" twelve 'cannot allocate all claims' < <(pod twelve nvidia.com/gpu 12))
grep -q "$listed Insufficient nvidia.com/gpu" <<<"$msg" && grep -q "$served cannot allocate all claims" <<<"$msg" ||
  fail "the scheduler counts the nodes otherwise than gpulint" \
    "$listed Insufficient nvidia.com/gpu, $served cannot allocate all claims" "$msg"
note "the scheduler: $msg"

# A claim template asking each GPU for more memory than any device has.
kc create -n "$NS" -f - <<'YAML'
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: huge}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
          capacity: {requests: {memory: 100Gi}}
YAML
expect_denied "a claim template asking each GPU for 100Gi, more than any published device has"
expect_denial "the denial does not name the largest device" \
  'vram-exceeds-gpu .*: request "gpu" asks 100Gi \([^)]*\) of memory of each gpu.nvidia.com device, but the largest device that DeviceClass selects, "gpu-[0-3]" of node "dra-h100-[01]", has 80Gi'
note "the webhook: $(denial | cut -c1-220)"
