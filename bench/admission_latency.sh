#!/usr/bin/env bash
# What admitting a pod costs a real API server with gpulint-webhook's
# configurations, and with each way of making them cheaper (issue 24). The
# control plane of the end-to-end suite (etcd, kube-apiserver, kube-scheduler,
# kube-controller-manager on loopback, hollow GPU nodes, gpulint-webhook
# installed from the chart; tests/e2e/cluster.sh), and concurrent creators
# (bench/admission_creators.py) POSTing pods to the API server. A row is one
# version, number of creators, pod and variant; its figures are the API
# server's CPU seconds per pod (the measure the variants are judged on: the
# machine is shared, so wall time is not), latency and what each process took.
# Prints a markdown table on stdout, progress on stderr.
#
#   bench/admission_latency.sh [--k8s VERSION]...
#
# Without --k8s (or GPULINT_K8S_VERSION), every version the end-to-end suite
# runs (1.28 and 1.36), one after the other, in one run and one table.
#
# Variants (BENCH_ADMISSION_VARIANTS, default all of them in this order;
# "without" is always measured, as the baseline of the "added" column):
#   without   no webhook configuration
#   before    the configurations of the chart at BENCH_ADMISSION_BEFORE
#             (default 26d363f, before issue 24): pod CREATEs go to /mutate,
#             and to /validate under the chart's matchConditions
#   after     the chart's: /mutate, and /validate without matchConditions on
#             CREATE (its webhook for UPDATEs carries them)
#   one-call  the chart with webhook.mutating.validatePods: pod CREATEs go to
#             /admit only
#   go-h1     the chart's configurations pointed at bench/reference (Go
#             net/http, allows everything) held to HTTP/1.1
#   go-h2     the same, offering HTTP/2 by ALPN as Go's server does (checked
#             with curl). kube-apiserver's webhook client offers only
#             http/1.1 (k8s.io/apiserver/pkg/util/webhook/client.go, since
#             kubernetes/kubernetes#82090, so that concurrent calls spread
#             over a Service's pods), except, since 1.30 (#122558), to a URL on
#             localhost or a loopback address, as here: 1.28 calls it over
#             HTTP/1.1 and 1.36 over HTTP/2. A webhook reached through a
#             Service, as the chart registers it, is called over HTTP/1.1 on
#             every version.
# Every part of a row (one round's pods) checks that the webhooks were called
# exactly as its variant says (calls per pod, and over which protocol), so a
# configuration the API server had not yet taken cannot pass for another.
#
# Two pods: "gpu", 1 GPU with the GPU taint tolerated, which gpulint patches
# (the default policy's per-GPU memory headroom and its annotation, checked on
# every created pod) and admits; "plain", a CPU pod it leaves alone. Both
# carry a schedulerName no scheduler serves, so they stay unbound: the figures
# are admission and storage, not scheduling, and an unbound pod is deleted at
# once between parts.
#
# Environment: as tests/e2e/run.sh (GPULINT_WEBHOOK, GPULINT_K8S_ASSETS,
# GPULINT_KUBECTL, GPULINT_HELM, GPULINT_ETCD, GPULINT_E2E_KEEP...), plus
# BENCH_ADMISSION_PODS (pods per row, default 1000), BENCH_ADMISSION_ROUNDS
# (the row's pods in this many parts, each round going through every variant,
# the odd ones in reverse so that a drift in the machine's load falls alike on
# all; default 2), BENCH_ADMISSION_CREATORS (default "1 16"),
# BENCH_ADMISSION_VARIANTS, BENCH_ADMISSION_BEFORE, GO (the go command for
# bench/reference, default go on PATH).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/e2e/lib.sh
source "$here/../tests/e2e/lib.sh"
# shellcheck source=../tests/e2e/cluster.sh
source "$here/../tests/e2e/cluster.sh"
SCENARIO=admission-latency

versions=()
while (($#)); do
  [[ $1 == --k8s && -n ${2:-} ]] || { echo "usage: bench/admission_latency.sh [--k8s VERSION]..." >&2; exit 2; }
  versions+=("$2")
  shift 2
done
variants=(without)
for v in ${BENCH_ADMISSION_VARIANTS:-before after one-call go-h1 go-h2}; do
  case $v in
    before | after | one-call | go-h1 | go-h2) variants+=("$v") ;;
    *) echo "admission: no variant '$v' (before after one-call go-h1 go-h2)" >&2; exit 2 ;;
  esac
done

# ---- one table, every version --------------------------------------------------

# Each version is a run of this script of its own (BENCH_ADMISSION_ONE set),
# printing its rows.
if [[ -z ${BENCH_ADMISSION_ONE:-} ]]; then
  ((${#versions[@]})) || read -r -a versions <<<"${GPULINT_K8S_VERSION:-${K8S_VERSIONS[*]}}"
  echo "| version | creators | pod | variant | calls per pod | pods | errors | pods/s | p50 ms | p99 ms | API server CPU ms/pod | its parts (min–max) | added | in webhook calls ms/pod | webhook CPU ms/pod | machine busy (cores) | others' CPU (cores) | load avg (1 min) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for v in "${versions[@]}"; do BENCH_ADMISSION_ONE=1 GPULINT_K8S_VERSION=$v "$0"; done
  exit
fi

pods_per_row=${BENCH_ADMISSION_PODS:-1000}
rounds=${BENCH_ADMISSION_ROUNDS:-2}
read -r -a creator_counts <<<"${BENCH_ADMISSION_CREATORS:-1 16}"
before_rev=${BENCH_ADMISSION_BEFORE:-26d363f}
BENCH_NS=gpulint-bench
HZ=$(getconf CLK_TCK)

cluster_prepare
# Its variants register other servers' URLs (the Go reference) through the
# webhook's registrar, which the chart's access policies (Kubernetes 1.30+)
# would rightly refuse: they are left out of what this measures.
E2E_CHART_VALUES+=(--set accessPolicies.enabled=false)
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

# ---- the variants' configurations ------------------------------------------------

# registration CHART [HELM-ARGS...]: the configurations CHART registers with
# these values (its registration ConfigMap), as the suite's values render them.
registration() {
  local chart=$1
  shift
  "$HELM" template gpulint-webhook "$chart" --namespace gpulint "${E2E_CHART_VALUES[@]}" "$@" |
    k create --dry-run=client -o json -f - |
    jq -rs '.[] | if .kind == "List" then .items[] else . end
      | select(.kind == "ConfigMap" and (.data["webhooks.yaml"] // "") != "") | .data["webhooks.yaml"]'
}

declare -A GO_PORT=()
# Each variant's registration, as gpulint-webhook --register reads it: the
# configurations with every webhook's URL on loopback.
{
  for v in "${variants[@]}"; do
    yaml=$E2E_TMP/variant-$v.yaml
    case $v in
      without) continue ;;
      before)
        mkdir -p "$E2E_TMP/before"
        git -C "$ROOT" archive "$before_rev" charts/gpulint-webhook | tar -x -C "$E2E_TMP/before" ||
          fail "BENCH_ADMISSION_BEFORE=$before_rev: no chart to render at that revision"
        registration "$E2E_TMP/before/charts/gpulint-webhook" >"$yaml" ;;
      one-call) registration "$CHART" --set webhook.mutating.validatePods=true >"$yaml" ;;
      *) registration "$CHART" >"$yaml" ;;
    esac
    [[ -s $yaml ]] || fail "variant $v: the chart rendered no registration"
    port=$WEBHOOK_PORT
    if [[ $v == go-* ]]; then
      if [[ -z ${reference:-} ]]; then
        reference=$E2E_TMP/reference
        (cd "$here/reference" && GOCACHE=${GOCACHE:-/tmp/gpulint-bench-gocache} GOFLAGS='' GOTOOLCHAIN=local \
          "${GO:-go}" build -o "$reference" .) || fail "cannot build bench/reference (go: ${GO:-go})"
      fi
      GO_PORT[$v]=$(free_port)
      args=(-listen "127.0.0.1:${GO_PORT[$v]}" -cert "$E2E_TMP/pki/webhook.crt" -key "$E2E_TMP/pki/webhook.key")
      [[ $v == go-h1 ]] && args+=(-http1)
      start_daemon "$v" "$reference" "${args[@]}"
      wait_for 10 "$v listening" curl -sf --max-time 1 --cacert "$E2E_TMP/pki/ca.crt" \
        "https://127.0.0.1:${GO_PORT[$v]}/protocols" || die_with_log "bench/reference ($v) did not start" "$v"
      if [[ $v == go-h2 ]] && curl -V | grep -q '^Features:.* HTTP2'; then
        [[ $(curl -s -o /dev/null -w '%{http_version}' --cacert "$E2E_TMP/pki/ca.crt" \
          "https://127.0.0.1:${GO_PORT[$v]}/protocols") == 2 ]] || fail "bench/reference (go-h2) does not speak HTTP/2 to curl"
      fi
      port=${GO_PORT[$v]}
    fi
    WEBHOOK_PORT=$port registration_for_loopback "$yaml" >"$E2E_TMP/variant-$v.json"
  done
} >&2

# The webhook calls so far, as "validate mutate admit go-h1 go-h2 go-h2-over-HTTP/1.1":
# gpulint-webhook's own count by endpoint and the reference's by protocol.
calls() {
  local own go1 go2
  own=$(webhook_metrics | awk '/^gpulint_webhook_requests_total\{/ {
      match($0, /endpoint="[a-z]+"/); s[substr($0, RSTART + 10, RLENGTH - 11)] += $NF}
    END {printf "%d %d %d", s["validate"], s["mutate"], s["admit"]}')
  go1=$(go_calls go-h1 '(.["HTTP/1.1"] // 0) + (.["HTTP/2.0"] // 0)')
  go2=$(go_calls go-h2 '"\(.["HTTP/2.0"] // 0) \(.["HTTP/1.1"] // 0)"')
  echo "$own $go1 $go2"
}
go_calls() {  # go_calls VARIANT JQ: the reference's counts by protocol, through JQ
  if [[ -z ${GO_PORT[$1]:-} ]]; then
    [[ $1 == go-h2 ]] && echo "0 0" || echo 0
    return
  fi
  curl -sf --max-time 5 --cacert "$E2E_TMP/pki/ca.crt" "https://127.0.0.1:${GO_PORT[$1]}/protocols" | jq -r "$2"
}

# What a pod's creation calls, per variant, in calls()'s order.
declare -A EXPECTED=(
  [without]="0 0 0 0 0 0" [before]="1 1 0 0 0 0" [after]="1 1 0 0 0 0"
  [one-call]="0 0 1 0 0 0" [go-h1]="0 0 0 2 0 0" [go-h2]="0 0 0 0 2 0"
)
# Before 1.30 the API server speaks HTTP/1.1 to the h2-capable server too.
((K8S_MINOR >= 30)) || EXPECTED[go-h2]="0 0 0 0 0 2"
# calls_between BEFORE AFTER: the difference, field by field.
calls_between() { paste -d' ' <(tr ' ' '\n' <<<"$1") <(tr ' ' '\n' <<<"$2") | awk '{printf "%s%d", (NR > 1 ? " " : ""), $2 - $1}'; }
calls_per_pod() { awk -v n="$2" '{for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? " " : ""), (n ? $i / n : 0)}' <<<"$1"; }

# variant_in_force VARIANT: a server-side dry run of the plain pod calls
# exactly what VARIANT says (the API server's webhook cache follows the
# configurations within a moment).
variant_in_force() {
  local before
  before=$(calls)
  k create --dry-run=server -n "$BENCH_NS" -f "$E2E_TMP/pod-plain.json" >/dev/null 2>&1 || return 1
  LAST_PROBE=$(calls_between "$before" "$(calls)")
  [[ $LAST_PROBE == "${EXPECTED[$1]}" ]]
}

current=installed
# set_variant VARIANT: its configurations registered (by gpulint-webhook, from
# its registration file, as the chart's selfRegister does), or none.
set_variant() {
  local v=$1
  [[ $v == "$current" ]] && return
  if [[ $v == without ]]; then
    k delete -f "$E2E_TMP/chart/webhooks.json" >/dev/null
  else
    # The objects helm creates, empty, when they were deleted; the webhook fills them in.
    [[ $current == without ]] && k apply -f "$E2E_TMP/chart/webhooks.json" >/dev/null
    cp "$E2E_TMP/variant-$v.json" "$REGISTRATION_FILE.new"
    mv -f "$REGISTRATION_FILE.new" "$REGISTRATION_FILE"
  fi
  LAST_PROBE="nothing: the dry run failed"
  wait_for 30 "variant $v in force" variant_in_force "$v" ||
    die_with_log "variant $v: a dry-run pod calls $LAST_PROBE, not ${EXPECTED[$v]} (validate mutate admit go-h1 go-h2 go-h2/1.1), after 30 s" webhook kube-apiserver
  current=$v
}

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
# gpulint patches the GPU pod in every variant of its own.
patches() { [[ $1 == gpu && $2 != without && $2 != go-* ]]; }

# ---- measuring ----------------------------------------------------------------

api() {  # api METHOD PATH: the API server as the cluster admin
  local d=$E2E_TMP/pki
  curl -sf --max-time 60 --cacert "$d/ca.crt" --cert "$d/admin.crt" --key "$d/admin.key" \
    -X "$1" "https://127.0.0.1:$APISERVER_PORT$2"
}

# CPU seconds (user + system, all threads) of one of the run's daemons; 0 for none.
daemon_cpu() {
  [[ -n ${DAEMON_PID[$1]:-} ]] || { echo 0; return; }
  sed 's/.*) //' "/proc/${DAEMON_PID[$1]}/stat" | awk -v hz="$HZ" '{print ($12 + $13) / hz}'
}
servers_cpu() {  # gpulint-webhook and the references together: one of them serves
  echo "$(daemon_cpu webhook) $(daemon_cpu go-h1) $(daemon_cpu go-h2)" | awk '{print $1 + $2 + $3}'
}

# The machine's busy CPU seconds, all cores (/proc/stat: all but idle and iowait).
machine_cpu() { awk -v hz="$HZ" '$1 == "cpu" {print ($2 + $3 + $4 + $7 + $8 + $9) / hz}' /proc/stat; }

# Seconds the API server spent in calls to the webhooks, so far
# (apiserver_admission_webhook_admission_duration_seconds; every variant's
# webhooks are named *.gpulint.io).
webhook_call_seconds() {
  api GET /metrics | awk '/^apiserver_admission_webhook_admission_duration_seconds_sum\{/ &&
    /name="[^"]*gpulint\.io"/ {s += $NF} END {printf "%.6f\n", s}'
}

snapshot() {  # snapshot: one line of counters, in the order measure() records them
  echo "$(date +%s.%N) $(machine_cpu) $(daemon_cpu kube-apiserver) $(daemon_cpu etcd)" \
    "$(servers_cpu) $(webhook_call_seconds)"
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
# measure N POD VARIANT: one round's part of a row. The variant in force, a
# warm-up of 2N pods (every connection, the API server's to the webhook
# included, made and busy), then the part's pods, timed, then every pod of the
# namespace deleted. Appends the pods' times to cell-N-POD-VARIANT.ms and one
# line of counters to its .tsv.
measure() {
  local n=$1 pod=$2 v=$3 cell=$E2E_TMP/cell-$1-$2-$3 count=$((pods_per_row / rounds))
  local before after client calls_before calls_made load
  set_variant "$v"
  run=$((run + 1))
  creators "$n" "$pod" $((n * 2)) "w$run" >/dev/null
  calls_before=$(calls)
  before=$(snapshot)
  client=$(creators "$n" "$pod" "$count" "r$run" --samples "$cell.ms")
  after=$(snapshot)
  calls_made=$(calls_between "$calls_before" "$(calls)")
  load=$(cut -d' ' -f1 /proc/loadavg)
  empty_namespace
  local pods errors marked client_cpu seconds first_error expect_marked=0
  IFS=$'\t' read -r pods errors marked client_cpu seconds first_error < <(
    jq -r '[.pods, .errors, .marked, .cpu_s, .seconds, (.first_error // "-")] | @tsv' <<<"$client")
  ((pods > 0)) || fail "$n creators, $pod pod, $v: no pod created" "$count pods" "$first_error"
  ((errors == 0)) || echo "admission: $n creators, $pod, $v: $errors errors, first: $first_error" >&2
  patches "$pod" "$v" && expect_marked=$pods
  ((marked == expect_marked)) ||
    fail "$n creators, $pod pod, $v: $marked created pods carry $MARKER" "$expect_marked"
  # Every pod called the webhooks as the variant says (a pod that failed may
  # or may not have got as far).
  [[ $(calls_per_pod "$calls_made" "$pods") == "${EXPECTED[$v]}" || $errors -gt 0 ]] ||
    fail "$n creators, $pod pod, $v: $pods pods made these webhook calls: $calls_made" \
      "${EXPECTED[$v]} per pod (validate mutate admit go-h1 go-h2 go-h2/1.1)"
  # 1-6 from the snapshots (wall, then CPU s of the machine, API server, etcd,
  # webhook server; s in webhook calls as the API server measures them), 7-10
  # from the client (CPU s, pods, errors, s sending), the load average, then
  # the calls per pod, all and over HTTP/2
  local per_pod
  per_pod=$(calls_per_pod "$calls_made" "$pods" | awk '{s = 0; for (i = 1; i <= NF; i++) s += $i; print s, $5}')
  awk -v tail="$client_cpu $pods $errors $seconds $load $per_pod" '
    NR == 1 {for (i = 1; i <= NF; i++) b[i] = $i}
    NR == 2 {for (i = 1; i <= NF; i++) printf "%.6f ", $i - b[i]; print tail}' \
    <<<"$before"$'\n'"$after" >>"$cell.tsv"
  echo "admission: $K8S_VERSION, $n creators, $pod, $v: $(jq -r '"\(.pods) pods, \(.pods_per_s)/s, p50 \(.p50_ms) ms, p99 \(.p99_ms) ms"' <<<"$client")," \
    "API server $(awk '{printf "%.2f", 1000 * $3 / $8}' <(tail -n 1 "$cell.tsv")) ms CPU/pod (load $load)" >&2
}

# row N POD VARIANT: the table's row for a cell, its rounds together.
declare -A base_cpu=()
row() {
  local n=$1 pod=$2 v=$3 cell=$E2E_TMP/cell-$1-$2-$3 stats p50 p99
  stats=$(python3 "$here/admission_creators.py" --summarize "$cell.ms")
  IFS=$'\t' read -r p50 p99 < <(jq -r '[.p50_ms, .p99_ms] | @tsv' <<<"$stats")
  local cpu
  cpu=$(awk '{a += $3; p += $8} END {printf "%.2f", 1000 * a / p}' "$cell.tsv")
  local added=-
  if [[ $v == without ]]; then
    base_cpu[$n/$pod]=$cpu
  elif [[ -n ${base_cpu[$n/$pod]:-} ]]; then
    added=$(awk -v a="$cpu" -v b="${base_cpu[$n/$pod]}" 'BEGIN {printf "%+.2f", a - b}')
  fi
  awk -v lead="| $K8S_VERSION | $n | $pod | $v |" -v mid="| $p50 | $p99 | $cpu |" -v added="$added" '
    {for (i = 1; i <= 10; i++) s[i] += $i
     part = 1000 * $3 / $8; lo = (NR == 1 || part < lo) ? part : lo; hi = (NR == 1 || part > hi) ? part : hi
     llo = (NR == 1 || $11 < llo) ? $11 : llo; lhi = (NR == 1 || $11 > lhi) ? $11 : lhi
     calls = $12 ($13 > 0 ? ", " $13 " over HTTP/2" : "")}
    END {
      wall = s[1]; pods = s[8]
      others = (s[2] - s[3] - s[4] - s[5] - s[7]) / wall
      if (others < 0) others = 0
      printf "%s %s | %d | %d | %.1f %s %.2f–%.2f | %s | %.2f | %.2f | %.2f | %.1f | %s–%s |\n", lead, calls,
        pods, s[9], pods / s[10], mid, lo, hi, added, 1000 * s[6] / pods, 1000 * s[5] / pods,
        s[2] / wall, others, llo, lhi
    }' "$cell.tsv"
}

# Each cell in rounds, each round through every variant (odd rounds in
# reverse), so that a change in the machine's load falls on all of them.
for n in "${creator_counts[@]}"; do
  for pod in plain gpu; do
    for ((r = 0; r < rounds; r++)); do
      order=("${variants[@]}")
      if ((r % 2)); then
        order=()
        for ((i = ${#variants[@]} - 1; i >= 0; i--)); do order+=("${variants[$i]}"); done
      fi
      for v in "${order[@]}"; do measure "$n" "$pod" "$v"; done
    done
  done
done
daemon_alive webhook || die_with_log "gpulint-webhook died during the benchmark" webhook

for n in "${creator_counts[@]}"; do
  for pod in plain gpu; do
    for v in "${variants[@]}"; do row "$n" "$pod" "$v"; done
  done
done
echo "admission: $K8S_VERSION, $pods_per_row pods per row in $rounds rounds, done in $((SECONDS - start)) s" >&2
