#!/usr/bin/env bash
# s. The real card (docs/gpus.md): hollow nodes labelled as GPU Feature
# Discovery labels the H200 measured in testdata/gpu/h200 (memory.total 143771
# MiB; the driver reserves 616 MiB, a CUDA context takes 621 MiB), an H200 cut
# into MIG slices, and a Grace Hopper node (unified memory).
#  - The webhook advertises the H200's VRAM as memory.total less the driver's
#    reserve: 143155Mi.
#  - One H200 time-sliced into 2 replicas: two pods each declaring half of
#    memory.total (71885Mi) fit the label (2 x 71885 <= 143771) but not the
#    card (each also pays its CUDA context, and the driver keeps 616Mi): the
#    mutation requests 71885Mi + 621Mi each, the first is bound, the second
#    stays Pending with "Insufficient gpulint.io/vram".
#  - A whole H200: 140Gi of declared VRAM is denied by vram-exceeds-gpu (a
#    process gets at most 139.2 GiB), 138Gi is admitted and bound.
#  - An H200 in MIG (mixed strategy): 17Gi declared on nvidia.com/mig-1g.18gb
#    is denied (the slice is 16 GiB, not 18 GB), 15Gi admitted and bound.
#  - A Grace Hopper node (nvidia.com/gpu.product NVIDIA-GH200-480GB): a GPU
#    pod with neither declared VRAM nor a memory limit is denied by
#    memory-limit-missing, saying why; with both it is admitted and bound.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-s

h200_labels() {  # REPLICAS: GFD's labels of one H200, time-sliced into REPLICAS (1: whole)
  local sharing=''
  (($1 > 1)) && sharing=',"nvidia.com/gpu.replicas":"'$1'","nvidia.com/gpu.sharing-strategy":"time-slicing"'
  echo '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"1","nvidia.com/gpu.product":"NVIDIA-H200",
    "nvidia.com/gpu.memory":"143771","gpulint-e2e/card":"'"$2"'"'"$sharing"'}'
}
h200_capacity() { echo '{"cpu":"32","memory":"512Gi","nvidia.com/gpu":"'"$1"'","pods":"110"}'; }

make_node h200-ts "$(h200_labels 2 h200-ts)" "[$GPU_TAINT]" "$(h200_capacity 2)"
at_exit "k delete node h200-ts --wait=false"
make_node h200-0 "$(h200_labels 1 h200-0)" "[$GPU_TAINT]" "$(h200_capacity 1)"
at_exit "k delete node h200-0 --wait=false"
make_node h200-mig '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"1","nvidia.com/gpu.product":"NVIDIA-H200",
    "nvidia.com/gpu.memory":"143771","nvidia.com/mig.strategy":"mixed","nvidia.com/mig.capable":"true",
    "nvidia.com/mig-1g.18gb.count":"7","nvidia.com/mig-1g.18gb.product":"NVIDIA-H200-MIG-1g.18gb",
    "gpulint-e2e/card":"h200-mig"}' "[$GPU_TAINT]" \
  '{"cpu":"32","memory":"512Gi","nvidia.com/gpu":"0","nvidia.com/mig-1g.18gb":"7","pods":"110"}'
at_exit "k delete node h200-mig --wait=false"
# Grace Hopper as GFD labels it (nvidia-smi's memory.total 97871 MiB); its
# node memory is the Grace CPU's 480 GB.
make_node gh200-0 '{"nvidia.com/gpu.present":"true","nvidia.com/gpu.count":"1","nvidia.com/gpu.product":"NVIDIA-GH200-480GB",
    "nvidia.com/gpu.memory":"97871","nvidia.com/gpu.family":"hopper","gpulint-e2e/card":"gh200-0"}' "[$GPU_TAINT]" \
  '{"cpu":"72","memory":"450Gi","nvidia.com/gpu":"1","pods":"110"}'
at_exit "k delete node gh200-0 --wait=false"

# The advertised VRAM: memory.total less the driver's reserve, once per card.
want=$(((143771 - 616) * 1024 * 1024))
for node in h200-ts h200-0; do
  wait_for 20 "gpulint.io/vram on $node" vram_written "$node" "$want" ||
    fail "gpulint-webhook did not advertise $node's VRAM for pods" \
      "gpulint.io/vram: 143155Mi ($want B) = 143771 MiB less the 616 MiB the driver reserves" \
      "$(k get node "$node" -o json | jq -c '{capacity: .status.capacity, allocatable: .status.allocatable}')"
done
note "h200-ts and h200-0 advertise gpulint.io/vram $(k get node h200-0 -o jsonpath='{.status.capacity.gpulint\.io/vram}')"

pod() {  # pod NAME CARD VRAM [RESOURCE [LIMIT-LINE]]
  local resource=${4:-nvidia.com/gpu}
  local annotation=''
  [[ $3 == - ]] || annotation="annotations: {gpulint.io/vram: $3}"
  local limits="limits: {memory: 8Gi, $resource: 1}"
  [[ ${5:-} == nolimit ]] && limits="limits: {$resource: 1}"
  cat <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {app: $1, card: $2}
  $annotation
spec:
  nodeSelector: {gpulint-e2e/card: $2}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: infer
    image: nvcr.io/nvidia/tritonserver:24.05-py3
    resources:
      requests: {cpu: "1", $resource: 1}
      $limits
YAML
}

# Two halves of memory.total on one time-sliced H200.
for i in 1 2; do
  kc create -n "$NS" -f - < <(pod half-$i h200-ts 71885Mi)
  expect_ok "pod half-$i (71885Mi of VRAM, 1 replica of a time-sliced H200)"
done
vram=$(pods_json card=h200-ts | jq -r '[.items[].spec.containers[0].resources.limits["gpulint.io/vram"] // "none"] | unique | join(",")')
[[ $(bytes "$vram" 2>/dev/null) == $(((71885 + 621) * 1024 * 1024)) ]] ||
  fail "the mutation did not request the declared VRAM and a CUDA context" "limits gpulint.io/vram: 72506Mi (71885Mi + 621Mi) on both pods" "$vram"
wait_bound card=h200-ts 1 30 h200-ts
pending=$(pods_json card=h200-ts | jq -r '[.items[] | select(.spec.nodeName == null) | .metadata.name]')
[[ $(jq length <<<"$pending") == 1 ]] ||
  fail "two halves of memory.total fit one H200 with their contexts" "exactly one pod Pending" "$(k get pods -n "$NS" -o wide)"
msg=$(wait_unschedulable "$(jq -r '.[0]' <<<"$pending")" 'Insufficient gpulint\.io/vram' 20)
note "half-1 or half-2 bound to h200-ts, the other Pending: $msg"

# A whole H200: 140Gi is more than a process gets, 138Gi is not.
kc create -n "$NS" -f - < <(pod vram-140gi h200-0 140Gi)
expect_denied "140Gi of VRAM on one H200"
expect_denial "the denial names vram-exceeds-gpu" 'vram-exceeds-gpu'
expect_denial "the denial says what a process gets, and why" \
  'a process at most 149457731584 B = 149.5 GB = 139.2 GiB: 143771Mi per GPU less 616Mi the driver reserves, less a 621Mi CUDA context'
note "$(denial | cut -c1-300)"
kc create -n "$NS" -f - < <(pod vram-138gi h200-0 138Gi)
expect_ok "138Gi of VRAM on one H200"
wait_bound app=vram-138gi 1 30 h200-0
note "138Gi admitted and bound to h200-0"

# A MIG slice is a GPU with its slice's memory: the H200's 1g.18gb is 16 GiB.
kc create -n "$NS" -f - < <(pod mig-17gi h200-mig 17Gi nvidia.com/mig-1g.18gb)
expect_denied "17Gi of VRAM on a 1g.18gb slice"
expect_denial "the denial names vram-exceeds-gpu and the slice's real memory" \
  'vram-exceeds-gpu.*16Gi per 1g.18gb slice'
expect_no_output "no MIG pod is told it requests no GPU" 'requests no GPU'
note "$(denial | cut -c1-300)"
kc create -n "$NS" -f - < <(pod mig-15gi h200-mig 15Gi nvidia.com/mig-1g.18gb)
expect_ok "15Gi of VRAM on a 1g.18gb slice"
expect_no_output "no MIG pod is told it requests no GPU" 'requests no GPU'
wait_bound app=mig-15gi 1 30 h200-mig
note "15Gi on a 1g.18gb slice admitted and bound to h200-mig"

# Grace Hopper: GPU memory is the node's memory, which no cgroup counts.
kc create -n "$NS" -f - < <(pod gh-unbounded gh200-0 - nvidia.com/gpu nolimit)
expect_denied "a GPU pod on a Grace Hopper node with neither VRAM nor a memory limit"
expect_denial "the denial names memory-limit-missing and says why" \
  'memory-limit-missing.*declares neither VRAM nor a memory limit, and runs on unified-memory node "gh200-0" \(nvidia.com/gpu.product NVIDIA-GH200-480GB\).*the memory cgroup does not count.*the node wedges'
note "$(denial | cut -c1-300)"
kc create -n "$NS" -f - < <(pod gh-bounded gh200-0 64Gi)
expect_ok "a GPU pod on a Grace Hopper node with 64Gi of VRAM and a memory limit"
wait_bound app=gh-bounded 1 30 gh200-0
note "with VRAM and a memory limit: admitted and bound to gh200-0"
