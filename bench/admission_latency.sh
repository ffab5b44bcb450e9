#!/usr/bin/env bash
# Admission latency through a real API server: the control plane of the
# end-to-end suite (etcd, kube-apiserver, kube-scheduler,
# kube-controller-manager v1.28.7 on loopback, hollow GPU nodes, gpulint-webhook
# installed from the chart; tests/e2e/cluster.sh), and concurrent creators
# (bench/admission_creators.py) POSTing pods to the API server. Each row is
# one number of creators, one pod, with the webhook registered or not; the
# "added" columns are a row with the webhook minus the same row without it.
# Prints a markdown table on stdout, progress on stderr.
#
#   bench/admission_latency.sh
#
# Two pods: "gpu", 1 GPU with the GPU taint tolerated, which mutate.gpulint.io
# patches (the default policy's per-GPU memory headroom and its annotation)
# and validate.gpulint.io admits; "plain", a CPU pod both webhooks are sent and
# leave alone. Both carry a schedulerName no scheduler serves, so they stay
# unbound: the figures are admission and storage, not scheduling, and an
# unbound pod is deleted at once between rows.
#
# Environment: as tests/e2e/run.sh (GPULINT_WEBHOOK, GPULINT_K8S_ASSETS,
# GPULINT_KUBECTL, GPULINT_HELM, GPULINT_ETCD, GPULINT_E2E_KEEP...), plus
# BENCH_ADMISSION_PODS (pods per row, default 1000) and
# BENCH_ADMISSION_CREATORS (default "1 16 64").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/e2e/lib.sh
source "$here/../tests/e2e/lib.sh"
# shellcheck source=../tests/e2e/cluster.sh
source "$here/../tests/e2e/cluster.sh"
SCENARIO=admission-latency
pods_per_row=${BENCH_ADMISSION_PODS:-1000}
read -r -a creator_counts <<<"${BENCH_ADMISSION_CREATORS:-1 16 64}"
BENCH_NS=gpulint-bench
HZ=$(getconf CLK_TCK)

cluster_prepare
finish() {
  local rc=$?
  cluster_cleanup "$rc" >&2
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start=$SECONDS
{
  echo "admission: $K8S_VERSION, etcd $("$ETCD" --version | sed -n 's/^etcd Version: //p'), webhook $WEBHOOK"
  cluster_up
  make_incident_nodes
  install_webhook
  wait_inventory
  make_namespace "$BENCH_NS"
  echo "admission: control plane and webhook up ($((SECONDS - start)) s)"
} >&2

# ---- the pods ---------------------------------------------------------------

cat >"$E2E_TMP/pod-gpu.json" <<'EOF'
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "labels": {"app": "bench-gpu"}},
 "spec": {"schedulerName": "gpulint-bench-unscheduled", "terminationGracePeriodSeconds": 0,
  "nodeSelector": {"nvidia.com/gpu.product": "Quadro-RTX-8000"},
  "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
  "containers": [{"name": "trainer", "image": "nvcr.io/nvidia/pytorch:24.05-py3",
   "resources": {"requests": {"cpu": "2", "memory": "16Gi", "nvidia.com/gpu": "1"},
                 "limits": {"memory": "16Gi", "nvidia.com/gpu": "1"}}}]}}
EOF
cat >"$E2E_TMP/pod-plain.json" <<'EOF'
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "labels": {"app": "bench-plain"}},
 "spec": {"schedulerName": "gpulint-bench-unscheduled", "terminationGracePeriodSeconds": 0,
  "containers": [{"name": "web", "image": "nginx:1.25",
   "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "128Mi"}}}]}}
EOF
MARKER=gpulint.io/headroom-added

# The webhook does to each pod what the rows say: the GPU pod is patched
# (MARKER appears), the plain one is admitted as sent.
dry_run_marked() {
  k create --dry-run=server -n "$BENCH_NS" -o json -f "$E2E_TMP/pod-$1.json" 2>&1 | grep -c "$MARKER" || true
}
[[ $(dry_run_marked gpu) == 1 ]] || fail "the GPU pod is not patched by mutate.gpulint.io" \
  "$MARKER in the stored pod" "$(k create --dry-run=server -n "$BENCH_NS" -o yaml -f "$E2E_TMP/pod-gpu.json" 2>&1)"
[[ $(dry_run_marked plain) == 0 ]] || fail "the plain pod is patched by mutate.gpulint.io" "no $MARKER"

# ---- measuring ----------------------------------------------------------------

api() {  # api METHOD PATH: the API server as the cluster admin
  local d=$E2E_TMP/pki
  curl -sf --max-time 60 --cacert "$d/ca.crt" --cert "$d/admin.crt" --key "$d/admin.key" \
    -X "$1" "https://127.0.0.1:$APISERVER_PORT$2"
}

# CPU seconds (user + system, all threads) of one of the cluster's daemons.
daemon_cpu() {
  sed 's/.*) //' "/proc/${DAEMON_PID[$1]}/stat" | awk -v hz="$HZ" '{print ($12 + $13) / hz}'
}

# The machine's busy CPU seconds, all cores (/proc/stat: all but idle and iowait).
machine_cpu() { awk -v hz="$HZ" '$1 == "cpu" {print ($2 + $3 + $4 + $7 + $8 + $9) / hz}' /proc/stat; }

# Seconds the API server spent in calls to gpulint's webhooks, so far
# (apiserver_admission_webhook_admission_duration_seconds).
webhook_call_seconds() {
  api GET /metrics | awk '/^apiserver_admission_webhook_admission_duration_seconds_sum\{/ &&
    /name="(mutate|validate)\.gpulint\.io"/ {s += $NF} END {printf "%.6f\n", s}'
}

# Seconds gpulint-webhook spent on reviews by its own measure, so far: from
# reading a request to its answer written (gpulint_webhook_request_duration_seconds).
webhook_own_seconds() {
  webhook_metrics | awk '/^gpulint_webhook_request_duration_seconds_sum\{/ {s += $NF}
    END {printf "%.6f\n", s}'
}

snapshot() {  # snapshot: one line of counters, in the order measure() records them
  echo "$(date +%s.%N) $(machine_cpu) $(daemon_cpu kube-apiserver) $(daemon_cpu etcd)" \
    "$(daemon_cpu webhook) $(webhook_call_seconds) $(webhook_own_seconds)"
}

empty_namespace() {
  api DELETE "/api/v1/namespaces/$BENCH_NS/pods" >/dev/null
  wait_for 120 "no pod left in $BENCH_NS" no_pod_left ||
    fail "pods of $BENCH_NS not deleted within 120 s"
}
no_pod_left() { [[ $(api GET "/api/v1/namespaces/$BENCH_NS/pods?limit=1" | jq '.items | length') == 0 ]]; }

creators() {  # creators N POD COUNT PREFIX [CLIENT-ARGS...]: the client's JSON line
  local n=$1 pod=$2 count=$3 prefix=$4
  shift 4
  python3 "$here/admission_creators.py" --server "127.0.0.1:$APISERVER_PORT" \
    --ca "$E2E_TMP/pki/ca.crt" --cert "$E2E_TMP/pki/admin.crt" --key "$E2E_TMP/pki/admin.key" \
    --namespace "$BENCH_NS" --pod "$E2E_TMP/pod-$pod.json" --creators "$n" --pods "$count" \
    --prefix "$prefix" --marker "$MARKER" "$@"
}

run=0

# measure N POD WEBHOOK: half of a row. A warm-up of 2N pods first (every
# connection, the API server's to the webhook included, made and busy), then
# half the row's pods, timed, then every pod of the namespace deleted. Appends
# the pods' times to cell-N-POD-WEBHOOK.ms and one line of counters to .tsv.
measure() {
  local n=$1 pod=$2 wh=$3 cell=$E2E_TMP/cell-$1-$2-$3 before after client
  run=$((run + 1))
  creators "$n" "$pod" $((n * 2)) "w$run" >/dev/null
  before=$(snapshot)
  client=$(creators "$n" "$pod" $((pods_per_row / 2)) "r$run" --samples "$cell.ms")
  after=$(snapshot)
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  empty_namespace
  local pods errors marked client_cpu seconds first_error expect_marked=0
  IFS=$'\t' read -r pods errors marked client_cpu seconds first_error < <(
    jq -r '[.pods, .errors, .marked, .cpu_s, .seconds, (.first_error // "-")] | @tsv' <<<"$client")
  ((pods > 0)) || fail "$n creators, $pod pod, webhook $wh: no pod created" "$((pods_per_row / 2)) pods" "$first_error"
  ((errors == 0)) || echo "admission: $n creators, $pod, webhook $wh: $errors errors, first: $first_error" >&2
  [[ $pod == gpu && $wh == with ]] && expect_marked=$pods
  ((marked == expect_marked)) ||
    fail "$n creators, $pod pod, webhook $wh: $marked created pods carry $MARKER" "$expect_marked"
  # 1-7 from the snapshots (wall, then CPU s of the machine, API server, etcd,
  # webhook; s in webhook calls as the API server and as the webhook measure
  # them), 8-11 from the client (CPU s, pods, errors, s sending), load average
  awk -v tail="$client_cpu $pods $errors $seconds $load" '
    NR == 1 {for (i = 1; i <= NF; i++) b[i] = $i}
    NR == 2 {for (i = 1; i <= NF; i++) printf "%.6f ", $i - b[i]; print tail}' \
    <<<"$before"$'\n'"$after" >>"$cell.tsv"
  echo "admission: $n creators, $pod, webhook $wh: $(jq -r '"\(.pods) pods, \(.pods_per_s)/s, p50 \(.p50_ms) ms, p99 \(.p99_ms) ms"' <<<"$client") (load $load)" >&2
}

# row N POD WEBHOOK: the table's row for a cell, both halves together.
declare -A base_p50=() base_p99=()
row() {
  local n=$1 pod=$2 wh=$3 cell=$E2E_TMP/cell-$1-$2-$3 stats mean p50 p99
  stats=$(python3 "$here/admission_creators.py" --summarize "$cell.ms")
  IFS=$'\t' read -r mean p50 p99 < <(jq -r '[.mean_ms, .p50_ms, .p99_ms] | @tsv' <<<"$stats")
  local added_p50=- added_p99=-
  if [[ $wh == without ]]; then
    base_p50[$n/$pod]=$p50 base_p99[$n/$pod]=$p99
  elif [[ -n ${base_p50[$n/$pod]:-} ]]; then
    added_p50=$(awk -v a="$p50" -v b="${base_p50[$n/$pod]}" 'BEGIN {printf "%+.2f", a - b}')
    added_p99=$(awk -v a="$p99" -v b="${base_p99[$n/$pod]}" 'BEGIN {printf "%+.2f", a - b}')
  fi
  awk -v lead="| $n | $pod | $wh |" -v mid="| $mean | $p50 | $p99 | $added_p50 | $added_p99 |" '
    {for (i = 1; i <= 11; i++) s[i] += $i
     lo = (NR == 1 || $12 < lo) ? $12 : lo; hi = (NR == 1 || $12 > hi) ? $12 : hi}
    END {
      wall = s[1]; pods = s[9]
      others = (s[2] - s[3] - s[4] - s[5] - s[8]) / wall
      if (others < 0) others = 0
      printf "%s %d | %d | %.1f %s %.2f | %.2f | %.2f | %.2f | %.2f | %.1f | %s–%s |\n", lead, pods,
        s[10], pods / s[11], mid, 1000 * s[6] / pods, 1000 * s[7] / pods, 1000 * s[3] / pods,
        1000 * s[5] / pods, s[2] / wall, others, lo, hi
    }' "$cell.tsv"
}

# Each cell in two halves, the webhook registered and not in turn, so that a
# change in the machine's load falls on both.
for n in "${creator_counts[@]}"; do
  for wh in without with without with; do
    if [[ $wh == with ]]; then register_webhook; else unregister_webhook; fi
    measure "$n" plain "$wh"
    measure "$n" gpu "$wh"
  done
done
daemon_alive webhook || die_with_log "gpulint-webhook died during the benchmark" webhook

echo "| creators | pod | webhook | pods | errors | pods/s | mean ms | p50 ms | p99 ms | added p50 ms | added p99 ms | in webhook calls ms/pod | in the webhook ms/pod | API server CPU ms/pod | webhook CPU ms/pod | machine busy (cores) | others' CPU (cores) | load avg (1 min) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "${creator_counts[@]}"; do
  for pod in plain gpu; do
    for wh in without with; do row "$n" "$pod" "$wh"; done
  done
done
echo "admission: $pods_per_row pods per row in two halves, done in $((SECONDS - start)) s" >&2
