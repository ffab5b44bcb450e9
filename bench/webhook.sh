#!/usr/bin/env bash
# gpulint-webhook, the Go reference and a static TLS answer under wrk, over TLS
# on loopback: keep-alive at 1, 16 and 64 connections, and one handshake per
# request at 16. Prints a markdown table on stdout.
# Usage: bench/webhook.sh BUILD_DIR DATA_DIR REFERENCE_BINARY
# Every server is started here and stopped here; each wrk run is bounded
# (BENCH_SECONDS, default 10).
set -euo pipefail
build=${1:?usage: webhook.sh BUILD_DIR DATA_DIR REFERENCE_BINARY}
data=${2:?usage: webhook.sh BUILD_DIR DATA_DIR REFERENCE_BINARY}
reference=${3:?usage: webhook.sh BUILD_DIR DATA_DIR REFERENCE_BINARY}
seconds=${BENCH_SECONDS:-10}
port=${BENCH_PORT:-18443}  # this one and the next two, on 127.0.0.1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
  -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
ls "$data"/reviews/*.json >"$tmp/list"
hz=$(getconf CLK_TCK)

# CPU ticks (user + system, all threads) of a process so far.
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }

start() {  # start PORT CMD...
  local port=$1; shift
  if curl -s -o /dev/null -k "https://127.0.0.1:$port/"; then
    echo "webhook.sh: something already answers on port $port; set BENCH_PORT" >&2; return 1
  fi
  "$@" >/dev/null 2>"$tmp/server.log" &
  server_pid=$!
  for _ in $(seq 100); do
    kill -0 "$server_pid" 2>/dev/null || break
    if curl -s -o /dev/null --cacert "$tmp/cert.pem" "https://127.0.0.1:$port/"; then return 0; fi
    sleep 0.1
  done
  echo "webhook.sh: server on $port did not start" >&2; cat "$tmp/server.log" >&2; return 1
}

stop() {
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
}

load() {  # load NAME PORT CONNS MODE
  local name=$1 port=$2 conns=$3 mode=$4 threads=2 extra=()
  [[ $conns == 1 ]] && threads=1
  [[ $mode == close ]] && extra=(-H "Connection: close")
  local before after
  before=$(ticks "$server_pid")
  wrk -t"$threads" -c"$conns" -d"${seconds}s" --timeout 5s "${extra[@]}" \
    -s "$here/reviews.lua" "https://127.0.0.1:$port" -- "$tmp/list" >"$tmp/wrk" 2>&1 || true
  after=$(ticks "$server_pid")
  local line
  line=$(grep '^RESULT' "$tmp/wrk" || { cat "$tmp/wrk" >&2; echo "RESULT requests=0 duration_us=1 p50_us=0 p99_us=0 errors=-1"; })
  echo "$line" | sed 's/[a-z0-9_]*=//g' | awk -v n="$name" -v c="$conns" -v m="$mode" \
    -v t=$((after - before)) -v hz="$hz" '{
      rps = $2 / ($3 / 1e6);
      cpu = ($2 > 0) ? t / hz / $2 * 1e6 : 0;
      printf "| %s | %s | %s | %.0f | %.2f | %.2f | %.0f | %d |\n", n, c, m, rps, $4 / 1000, $5 / 1000, cpu, $6 }'
}

echo "| server | connections | mode | req/s | p50 ms | p99 ms | server CPU µs/req | errors |"
echo "|---|---|---|---|---|---|---|---|"
bench() {  # bench NAME PORT
  for c in 1 16 64; do load "$1" "$2" "$c" keep-alive; done
  load "$1" "$2" 16 close
}

p1=$port p2=$((port + 1)) p3=$((port + 2))
start $p1 "$build/webhook/gpulint-webhook" --listen 127.0.0.1:$p1 \
  --cert "$tmp/cert.pem" --key "$tmp/key.pem"
bench gpulint-webhook $p1
stop
start $p2 "$reference" -listen 127.0.0.1:$p2 -cert "$tmp/cert.pem" -key "$tmp/key.pem"
bench "Go net/http + encoding/json" $p2
stop
start $p3 "$reference" -static -listen 127.0.0.1:$p3 -cert "$tmp/cert.pem" -key "$tmp/key.pem"
bench "static answer (Go TLS, ceiling)" $p3
stop
