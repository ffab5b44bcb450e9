#!/usr/bin/env bash
# Two builds against each other, run in turn so the machine's drift falls on
# both: `gpulint check` CPU time on a 20 MB stream, and the webhook's CPU per
# review at 16 keep-alive connections over TLS. One line per run.
# Usage: bench/compare.sh BASE_BUILD NEW_BUILD DATA_DIR  (Release builds;
# DATA_DIR from bench/gen.py --sizes 20). Env: REPS (5), SECS (10 per wrk run),
# ONLY=lint (no webhook runs: builds whose webhooks are the same).
set -euo pipefail
base_build=${1:?usage: compare.sh BASE_BUILD NEW_BUILD DATA_DIR}
new_build=${2:?usage: compare.sh BASE_BUILD NEW_BUILD DATA_DIR}
data=${3:?usage: compare.sh BASE_BUILD NEW_BUILD DATA_DIR}
reps=${REPS:-5}; secs=${SECS:-10}
here=$(cd "$(dirname "$0")" && pwd)
declare -A builds=([base]=$base_build [new]=$new_build)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
for ((i = 0; i < reps; i++)); do
  for b in base new; do
    python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f" % (r.ru_utime + r.ru_stime))' taskset -c 0 ${builds[$b]}/gpulint check --jobs 1 $data/stream-20mb.yaml > $tmp/t
    echo "lint $b $(cat $tmp/t)"
  done
done
[[ ${ONLY:-} == lint ]] && exit 0
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout $tmp/key.pem -out $tmp/cert.pem 2>/dev/null
ls $data/reviews/*.json > $tmp/list
for ((i = 0; i < reps; i++)); do
  for b in base new; do
    [[ $b == new ]] && port=$((19600 + i)) || port=$((19500 + i))
    ${builds[$b]}/webhook/gpulint-webhook --listen 127.0.0.1:$port --cert $tmp/cert.pem --key $tmp/key.pem >/dev/null 2>$tmp/log &
    pid=$!
    for _ in $(seq 100); do curl -s -o /dev/null --cacert $tmp/cert.pem https://127.0.0.1:$port/ && break; sleep 0.1; done
    before=$(ticks $pid)
    wrk -t2 -c16 -d${secs}s --timeout 5s -s $here/reviews.lua https://127.0.0.1:$port -- $tmp/list > $tmp/wrk 2>&1 || true
    after=$(ticks $pid)
    kill $pid; wait $pid 2>/dev/null || true
    grep '^RESULT' $tmp/wrk | sed 's/[a-z0-9_]*=//g' | awk -v b=$b -v t=$((after - before)) -v hz=$hz \
      '{printf "webhook %s %.1f us/req %.0f req/s errors %d\n", b, t / hz / $2 * 1e6, $2 / ($3 / 1e6), $6}'
  done
done
