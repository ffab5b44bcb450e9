#!/usr/bin/env bash
# What the size of the cluster costs: at 50 and 5,000 nodes (bench/gen_nodes.py),
# the webhook's server CPU per review (nodes given with --nodes, the reviews of
# bench/gen.py sent by wrk over TLS, one keep-alive connection; CPU from
# /proc), its RSS once loaded and after the run, and `gpulint check --nodes`
# CPU time over the 20 MB stream. Prints a markdown table on stdout.
# Rows: 50 and 5000 (the mixed shapes), 5000-8 (every GPU node 8 GPUs, through
# the device plugin) and 5000-dra (the same 8 GPUs each, through DRA:
# DeviceClasses and a ResourceSlice per GPU node, none in allocatable).
# Usage: bench/nodes.sh BUILD_DIR DATA_DIR   (DATA_DIR gets what is missing)
# Env: BENCH_SECONDS (wrk seconds per row, default 10), BENCH_REPS (check runs
# per row, the lowest CPU kept; default 3), BENCH_PORT (default 18453),
# BENCH_ROWS (default "50 5000 5000-8 5000-dra").
# CPU is user+sys of the measured process: on a shared machine wall time
# counts what others took from the core.
set -euo pipefail
build=${1:?usage: nodes.sh BUILD_DIR DATA_DIR}
data=${2:?usage: nodes.sh BUILD_DIR DATA_DIR}
seconds=${BENCH_SECONDS:-10}
reps=${BENCH_REPS:-3}
port=${BENCH_PORT:-18453}
read -r -a rows <<<"${BENCH_ROWS:-50 5000 5000-8 5000-dra}"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$data"
[[ -f $data/stream-20mb.yaml && -d $data/reviews ]] ||
  python3 "$here/gen.py" --out "$data" --sizes 20 --dir-files 0 --reviews 200 >&2
for row in "${rows[@]}"; do  # ROW is COUNT, COUNT-8 or COUNT-dra
  flags=()
  case $row in
    *-8) flags=(--eight) ;;
    *-dra) flags=(--eight --dra) ;;
  esac
  [[ -f $data/nodes-$row.yaml ]] ||
    python3 "$here/gen_nodes.py" --count "${row%%-*}" "${flags[@]}" --out "$data/nodes-$row.yaml"
done

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
ls "$data"/reviews/*.json >"$tmp/list"
hz=$(getconf CLK_TCK)
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
rss_mb() { awk '/VmRSS/{printf "%.1f", $2/1024}' "/proc/$1/status"; }

start() {  # start NODES_FILE
  if curl -s -o /dev/null -k "https://127.0.0.1:$port/"; then
    echo "nodes.sh: something already answers on port $port; set BENCH_PORT" >&2; return 1
  fi
  "$build/webhook/gpulint-webhook" --listen "127.0.0.1:$port" --cert "$tmp/cert.pem" \
    --key "$tmp/key.pem" --nodes "$1" >/dev/null 2>"$tmp/server.log" &
  server_pid=$!
  for _ in $(seq 300); do
    kill -0 "$server_pid" 2>/dev/null || break
    if curl -s -o /dev/null --cacert "$tmp/cert.pem" "https://127.0.0.1:$port/readyz" &&
       grep -q '"nodes loaded"' "$tmp/server.log"; then return 0; fi
    sleep 0.1
  done
  echo "nodes.sh: the webhook did not start" >&2; cat "$tmp/server.log" >&2; return 1
}

# webhook NODES -> "cpu_us_per_review rss_loaded rss_after errors"
webhook() {
  start "$data/nodes-$1.yaml"
  local rss0 before after
  rss0=$(rss_mb "$server_pid")
  before=$(ticks "$server_pid")
  wrk -t1 -c1 -d"${seconds}s" --timeout 5s -s "$here/reviews.lua" "https://127.0.0.1:$port" \
    -- "$tmp/list" >"$tmp/wrk" 2>&1 || true
  after=$(ticks "$server_pid")
  local rss1 line
  rss1=$(rss_mb "$server_pid")
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  line=$(grep '^RESULT' "$tmp/wrk" || echo "RESULT requests=0 duration_us=1 p50_us=0 p99_us=0 errors=-1")
  echo "$line" | sed 's/[a-z0-9_]*=//g' | awk -v t=$((after - before)) -v hz="$hz" -v r0="$rss0" -v r1="$rss1" \
    '{ printf "%.1f %s %s %d\n", ($2 > 0 ? t / hz / $2 * 1e6 : 0), r0, r1, $6 }'
}

# check NODES -> "cpu_s" (the lowest of BENCH_REPS runs)
check() {
  local best=""
  for ((i = 0; i < reps; i++)); do
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$build/gpulint" check --nodes "$data/nodes-$1.yaml" \
      "$data/stream-20mb.yaml" >/dev/null 2>&1 || true
    local cpu
    cpu=$(tail -1 "$tmp/time" | awk '{printf "%.2f", $1 + $2}')
    if [[ -z $best ]] || (( $(echo "$cpu < $best" | bc -l) )); then best=$cpu; fi
  done
  echo "$best"
}

declare -A review rss0 rss1 errs checks
for n in "${rows[@]}"; do
  read -r review[$n] rss0[$n] rss1[$n] errs[$n] < <(webhook "$n")
  checks[$n]=$(check "$n")
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo "| nodes | webhook CPU µs/review | webhook RSS MB (loaded / after) | review errors | check --nodes, 20 MB stream: CPU s |"
echo "|---|---|---|---|---|"
for n in "${rows[@]}"; do
  echo "| $n | ${review[$n]} | ${rss0[$n]} / ${rss1[$n]} | ${errs[$n]} | ${checks[$n]} |"
done
for pair in 5000/50 5000-dra/5000-8 5000-dra/5000; do
  a=${pair%/*} b=${pair#*/}
  [[ -n ${review[$a]:-} && -n ${review[$b]:-} ]] || continue
  echo "| $a / $b | $(ratio "${review[$a]}" "${review[$b]}")× | | |" \
    "$(ratio "${checks[$a]}" "${checks[$b]}")× |"
done
