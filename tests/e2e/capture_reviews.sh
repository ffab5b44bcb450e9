#!/usr/bin/env bash
# Captures the AdmissionReviews a real kube-apiserver sends to a webhook, for
# the replay tests (testdata/admission/README.md): the suite's control plane
# (tests/e2e/cluster.sh) with the nodes of testdata/admission/nodes-list.json,
# and tests/e2e/test_webhook.py registered as a validating and a mutating URL
# webhook for the namespace gpu-test, recording each body byte for byte and
# annotating what it mutates (gpu-webhook.test/mutated: "true"). Each
# numbered capture is made by the kubectl command, or the controller, that
# its name says, and picked out of what was recorded by its endpoint and
# request. Run by hand, not by ctest; it replaces the files it writes whole.
#
#   tests/e2e/capture_reviews.sh [OUT_DIR]   (default testdata/admission/v1.36)
#
# Environment: as tests/e2e/run.sh; GPULINT_K8S_VERSION picks the server
# (default 1.36: the resize and pod-level captures need 1.35 or later).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=cluster.sh
source "$here/cluster.sh"
# shellcheck disable=SC2034  # fail() and note() say it
SCENARIO=capture
export GPULINT_K8S_VERSION=${GPULINT_K8S_VERSION:-1.36}
out=${1:-$ROOT/testdata/admission/v$GPULINT_K8S_VERSION}

cluster_prepare
trap 'cluster_cleanup $?' EXIT
cluster_up
NS=gpu-test
record=$E2E_TMP/record
# shellcheck disable=SC2034  # what fail() shows of the webhook
WEBHOOK_LOG=$E2E_TMP/logs/recorder.log
mkdir -p "$record" "$out"

# The nodes the captured reviews are judged against (nodes-list.json), each
# with its allocatable as capacity, Ready, and its own taints but not-ready.
while IFS= read -r node; do
  make_node "$(jq -r .metadata.name <<<"$node")" "$(jq -c .metadata.labels <<<"$node")" \
    "$(jq -c '[.spec.taints[]? | select(.key != "node.kubernetes.io/not-ready")]' <<<"$node")" \
    "$(jq -c .status.allocatable <<<"$node")"
done < <(jq -c '.items[]' "$ROOT/testdata/admission/nodes-list.json")
# Pod-level resize needs the node to declare it (a kubelet would).
k patch node a100-80g-0 --subresource=status --type=merge \
  -p '{"status":{"declaredFeatures":["InPlacePodLevelResourcesVerticalScaling"]}}' >/dev/null
make_namespace "$NS"

port_file=$E2E_TMP/recorder.port
start_daemon recorder python3 "$here/test_webhook.py" "$E2E_TMP/pki/webhook.crt" "$E2E_TMP/pki/webhook.key" \
  "$port_file" --patch annotations gpu-webhook.test/mutated=true --record "$record"
wait_for 10 "the recorder's port" test -s "$port_file" || die_with_log "the recording webhook did not start" recorder
rules='[{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE, UPDATE]},
        {apiGroups: [apps], apiVersions: [v1], resources: [deployments, daemonsets, statefulsets], operations: [CREATE, UPDATE]},
        {apiGroups: [batch], apiVersions: [v1], resources: [jobs, cronjobs], operations: [CREATE, UPDATE]}]'
resize_rule='{apiGroups: [""], apiVersions: [v1], resources: [pods/resize], operations: [UPDATE]}'
for kind in Mutating Validating; do
  endpoint=$([[ $kind == Mutating ]] && echo mutate || echo validate)
  k apply -f - >/dev/null <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata: {name: capture}
webhooks:
- name: $endpoint.capture.gpulint.io
  clientConfig: {url: "https://127.0.0.1:$(cat "$port_file")/$endpoint", caBundle: "$(base64 -w0 "$E2E_TMP/pki/ca.crt")"}
  rules: $( [[ $kind == Mutating ]] && echo "$rules" || echo "${rules%]}, $resize_rule]")
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: $NS}}
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 5
YAML
done
annotated() {
  k create --dry-run=server -n "$NS" -o json -f - <<<'{"apiVersion":"v1","kind":"Pod","metadata":{"name":"probe"},"spec":{"containers":[{"name":"c","image":"busybox:1.36"}]}}' |
    jq -e '.metadata.annotations["gpu-webhook.test/mutated"] == "true"'
}
wait_for 30 "the recorder called" annotated || die_with_log "the API server does not call the recording webhook" recorder kube-apiserver

# take FILE ENDPOINT JQ-CONDITION [SECONDS]: the first recorded body sent to
# ENDPOINT whose AdmissionReview matches JQ-CONDITION, not taken before,
# copied to OUT/FILE; waits for it (30 s) when it has not come yet.
declare -A TAKEN=()
take() {
  local f deadline=$((SECONDS + ${4:-30}))
  while :; do
    for f in "$record"/*-"$2".json; do
      [[ -e $f && -z ${TAKEN[$f]:-} ]] || continue
      if jq -e "$3" "$f" >/dev/null; then
        TAKEN[$f]=1
        cp "$f" "$out/$1"
        echo "capture: $1 ($(jq -r '.request | "\(.operation) \(.kind.kind) \(.name // .object.metadata.generateName)"' "$f"))"
        return 0
      fi
    done
    ((SECONDS < deadline)) || fail "no $2 request matching $3 was recorded for $1 within ${4:-30} s"
    sleep 0.5
  done
}
run() { k "$@" -n "$NS" >/dev/null; }

pod_1() {  # the manifest of captures 01 and 02 (05 with another image)
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: ${2:-gpu-pod-1}, labels: {app: cuda-test}}
spec:
  restartPolicy: Never
  runtimeClassName: nvidia
  nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: cuda
    image: nvcr.io/nvidia/cuda:${1:-12.4.1}-base-ubuntu22.04
    command: [nvidia-smi]
    env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]
    resources:
      requests: {cpu: "8", memory: 500Gi}
      limits: {memory: 500Gi, nvidia.com/gpu: 2}
YAML
}
inference() {  # the Deployment of captures 06, 14, 18 and 19
  cat <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: gpu-inference, labels: {app: gpu-inference}}
spec:
  replicas: 2
  selector: {matchLabels: {app: gpu-inference}}
  template:
    metadata: {labels: {app: gpu-inference}}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: server
        image: nvcr.io/nvidia/tritonserver:24.05-py3
        ports: [{containerPort: 8000}]
        resources:
          requests: {cpu: "4", memory: 32Gi, nvidia.com/gpu: 1}
          limits: {memory: 32Gi, nvidia.com/gpu: 1}
YAML
}
train_job() {  # the Job of captures 10 and 15
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: train
        image: nvcr.io/nvidia/pytorch:24.05-py3
        command: [torchrun, --nproc_per_node=8, train.py]
        resources:
          limits: {memory: 500Gi, nvidia.com/gpu: 8}
YAML
}
is() {  # is OPERATION KIND NAME [MORE]: a jq condition on the request
  echo ".request.operation == \"$1\" and .request.kind.kind == \"$2\" and (.request.name // \"\") == \"$3\"${4:+ and $4}"
}

k apply -f - >/dev/null <<'YAML'
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: nvidia}
handler: nvidia
YAML

pod_1 | run apply -f -
take 01-pod-create-apply-mutate.json mutate "$(is CREATE Pod gpu-pod-1)"
take 02-pod-create-apply-validate.json validate "$(is CREATE Pod gpu-pod-1)"

run create -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: gpu-pod-multi}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  initContainers:
  - name: warmup
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    command: [sh, -c, nvidia-smi -L]
    resources: {limits: {nvidia.com/gpu: 1}}
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    command: [python, train.py]
    resources: {limits: {cpu: "64", memory: 1Ti, nvidia.com/gpu: 8}}
  - name: metrics-sidecar
    image: busybox:1.36
    command: [sleep, infinity]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
take 03-pod-create-kubectlcreate-initcontainer-limits-only-mutate.json mutate "$(is CREATE Pod gpu-pod-multi)"

run label pod gpu-pod-1 team=ml
take 04-pod-update-label-validate.json validate "$(is UPDATE Pod gpu-pod-1 '.request.options.fieldManager == "kubectl-label"')"
pod_1 12.5.0 | run apply -f -
take 05-pod-update-apply-image-mutate.json mutate "$(is UPDATE Pod gpu-pod-1 '.request.options.fieldManager == "kubectl-client-side-apply"')"

inference | run apply -f -
take 06-deployment-create-mutate.json mutate "$(is CREATE Deployment gpu-inference)"
by_replicaset='.request.userInfo.username == "system:serviceaccount:kube-system:replicaset-controller"'
take 18-pod-create-by-replicaset-controller-mutate-noname.json mutate \
  ".request.operation == \"CREATE\" and .request.kind.kind == \"Pod\" and $by_replicaset"
take 19-pod-create-by-replicaset-controller-validate.json validate \
  ".request.operation == \"CREATE\" and .request.kind.kind == \"Pod\" and $by_replicaset"
run set image deployment/gpu-inference server=nvcr.io/nvidia/tritonserver:24.06-py3
take 07-deployment-update-setimage-validate.json validate "$(is UPDATE Deployment gpu-inference '.request.options.fieldManager == "kubectl-set"')"
inference | run apply --dry-run=server -f -
take 14-deployment-update-dryrun-validate.json validate "$(is UPDATE Deployment gpu-inference '.request.dryRun')"

run apply -f - <<'YAML'
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: gpu-dcgm-exporter}
spec:
  selector: {matchLabels: {app: dcgm-exporter}}
  template:
    metadata: {labels: {app: dcgm-exporter}}
    spec:
      nodeSelector: {nvidia.com/gpu.present: "true"}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: exporter
        image: nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04
        env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]
        securityContext: {capabilities: {add: [SYS_ADMIN]}}
        resources: {requests: {cpu: 100m, memory: 128Mi}}
YAML
take 08-daemonset-create-mutate.json mutate "$(is CREATE DaemonSet gpu-dcgm-exporter)"

run apply -f - <<'YAML'
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: gpu-llm}
spec:
  replicas: 1
  serviceName: gpu-llm
  selector: {matchLabels: {app: gpu-llm}}
  template:
    metadata: {labels: {app: gpu-llm}}
    spec:
      containers:
      - name: llm
        image: vllm/vllm-openai:v0.4.2
        resources: {limits: {memory: 500Gi, nvidia.com/gpu: 4}}
  volumeClaimTemplates:
  - metadata: {name: cache}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 100Gi}}}
YAML
take 09-statefulset-create-mutate.json mutate "$(is CREATE StatefulSet gpu-llm)"

train_job gpu-train-job | run apply -f -
take 10-job-create-mutate.json mutate "$(is CREATE Job gpu-train-job)"

cronjob() {  # cronjob NAME SCHEDULE
  cat <<YAML
apiVersion: batch/v1
kind: CronJob
metadata: {name: $1}
spec:
  schedule: "$2"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: eval
            image: nvcr.io/nvidia/pytorch:24.05-py3
            resources: {limits: {nvidia.com/gpu: 1}}
YAML
}
cronjob gpu-nightly-eval "0 2 * * *" | run apply -f -
take 11-cronjob-create-mutate.json mutate "$(is CREATE CronJob gpu-nightly-eval)"
run patch cronjob gpu-nightly-eval -p '{"spec":{"suspend":true}}'
take 12-cronjob-update-patch-mutate.json mutate "$(is UPDATE CronJob gpu-nightly-eval)"

pod_1 12.4.1 gpu-pod-dry | run apply --dry-run=server -f -
take 13-pod-create-dryrun-mutate.json mutate "$(is CREATE Pod gpu-pod-dry '.request.dryRun')"

train_job gpu-train-job-ssa | run apply --server-side -f -
take 15-job-create-serverside-apply-mutate.json mutate "$(is CREATE Job gpu-train-job-ssa)"

# refused NAME RESOURCES: a pod that the API server's validation refuses
# after the mutating webhooks: it makes no validating call.
refused() {
  k apply -n "$NS" -f - >/dev/null 2>&1 <<YAML || true
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  containers:
  - name: c
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    resources: $2
YAML
}
refused gpu-pod-invalid '{requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}'
take 16-pod-create-gpu-request-ne-limit-mutate-only.json mutate "$(is CREATE Pod gpu-pod-invalid)"
refused gpu-pod-fractional '{limits: {nvidia.com/gpu: "0.5"}}'
take 17-pod-create-fractional-gpu-mutate-only.json mutate "$(is CREATE Pod gpu-pod-fractional)"

# The CronJob controller makes a Job at the next minute, the Job controller its pod.
cronjob gpu-every-minute "* * * * *" | run apply -f -
by_job='.request.userInfo.username == "system:serviceaccount:kube-system:job-controller"'
take 20-pod-create-by-job-controller-from-cronjob-validate.json validate \
  ".request.operation == \"CREATE\" and .request.kind.kind == \"Pod\" and $by_job and
   (.request.object.metadata.generateName | startswith(\"gpu-every-minute-\"))" 90
# Nothing of the above holds a GPU of a100-80g-0 any more (no kubelet would
# ever confirm a graceful deletion).
run delete cronjobs,jobs,deployments,statefulsets,daemonsets --all --cascade=orphan
run delete pods --all --force --grace-period=0 2>/dev/null

# In-place resize (pods/resize) of a pod bound to a100-80g-0: its memory past
# what the node keeps free, which the API server lets through to the
# webhooks (it refuses only past allocatable, 1157221112Ki).
run apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: gpu-server, labels: {app: gpu-server}}
spec:
  nodeSelector: {kubernetes.io/hostname: a100-80g-0}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers:
  - name: server
    image: nvcr.io/nvidia/tritonserver:24.05-py3
    resources:
      requests: {cpu: "4", memory: 32Gi, nvidia.com/gpu: 1}
      limits: {memory: 32Gi, nvidia.com/gpu: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: gpu-pod-level, labels: {app: gpu-pod-level}}
spec:
  nodeSelector: {kubernetes.io/hostname: a100-80g-0}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  resources:
    requests: {cpu: "8", memory: 64Gi}
    limits: {memory: 64Gi}
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources: {limits: {nvidia.com/gpu: 2}}
  - name: loader
    image: busybox:1.36
YAML
take 23-pod-create-pod-level-resources-validate.json validate "$(is CREATE Pod gpu-pod-level)"
wait_bound app=gpu-server 1 30 a100-80g-0
wait_bound app=gpu-pod-level 1 30 a100-80g-0
run patch pod gpu-server --subresource resize \
  -p '{"spec":{"containers":[{"name":"server","resources":{"requests":{"memory":"1100Gi"},"limits":{"memory":"1100Gi"}}}]}}'
take 21-pod-resize-memory-beyond-node-validate.json validate "$(is UPDATE Pod gpu-server '.request.subResource == "resize"')"
run patch pod gpu-pod-level --subresource resize \
  -p '{"spec":{"resources":{"requests":{"memory":"1100Gi"},"limits":{"memory":"1100Gi"}}}}'
take 22-pod-resize-pod-level-memory-beyond-node-validate.json validate "$(is UPDATE Pod gpu-pod-level '.request.subResource == "resize"')"

# What 1.28 did not have: a native sidecar, a DRA claim from a template.
run apply -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: gpu-sidecar}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  initContainers:
  - name: log-shipper
    image: fluent/fluent-bit:3.0
    restartPolicy: Always
    resources: {requests: {cpu: 500m, memory: 6Gi}, limits: {memory: 6Gi}}
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {cpu: "2", memory: 16Gi, nvidia.com/gpu: 1}
      limits: {memory: 16Gi, nvidia.com/gpu: 1}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com}
---
apiVersion: v1
kind: Pod
metadata: {name: gpu-dra}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {cpu: "2", memory: 16Gi}
      limits: {memory: 16Gi}
      claims: [{name: gpu}]
YAML
take 24-pod-create-native-sidecar-mutate.json mutate "$(is CREATE Pod gpu-sidecar)"
take 25-pod-create-dra-claim-template-validate.json validate "$(is CREATE Pod gpu-dra)"

cp "$record/headers.txt" "$out/example-http-request-headers.txt"
captured=("$out"/[0-9]*.json)
echo "capture: ${#captured[@]} reviews from $K8S_VERSION in $out"
