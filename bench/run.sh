#!/usr/bin/env bash
# The whole benchmark in one command: builds (Release, bench helpers on), the
# Go reference, generates the inputs, runs bench/lint.sh and bench/webhook.sh,
# and prints markdown (paste into bench/RESULTS.md). Not for CI.
# Needs: cmake, g++, python3 + PyYAML, wrk, golang-1.19-go, openssl, curl, bc.
# Env: BENCH_BUILD (default /tmp/gpulint-bench-build), BENCH_DATA
# (/tmp/gpulint-bench-data), BENCH_SECONDS (10 per wrk run), BENCH_REPS (3),
# BENCH_SKIP_BUILD=1 to reuse the build.
#
#   bench/run.sh admission   builds gpulint-webhook (Release) and runs only
#                            bench/admission_latency.sh: admission latency
#                            through a real API server (what tests/e2e needs:
#                            the control-plane assets, etcd, kubectl, helm)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD:-/tmp/gpulint-bench-build}
data=${BENCH_DATA:-/tmp/gpulint-bench-data}
go=${GO:-$(command -v go || echo /usr/lib/go-1.19/bin/go)}
what=${1:-all}
case $what in
  all) targets=(gpulint gpulint-webhook yaml_events) ;;
  admission) targets=(gpulint-webhook) ;;
  *) echo "usage: bench/run.sh [admission]" >&2; exit 2 ;;
esac

if [[ ${BENCH_SKIP_BUILD:-0} != 1 ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPULINT_BUILD_BENCH=ON \
    -DGPULINT_BUILD_TESTS=OFF >&2
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >&2
fi

machine() {
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'),"
  echo "$(awk '/MemTotal/{printf "%.0f GB", $2/1048576}' /proc/meminfo) RAM, $(uname -sr);" \
    "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)."
}

if [[ $what == admission ]]; then
  echo "### Admission latency through a real API server (\`bench/admission_latency.sh\`, $(date -u +%Y-%m-%d))"
  echo
  machine
  echo
  GPULINT_WEBHOOK=$build/webhook/gpulint-webhook "$here/admission_latency.sh"
  exit
fi
(cd "$here/reference" && GOCACHE=/tmp/gpulint-bench-gocache GOFLAGS= GOTOOLCHAIN=local \
  "$go" build -o "$build/bench/reference" .) >&2
[[ -f $data/stream-200mb.yaml ]] || python3 "$here/gen.py" --out "$data" >&2

echo "## gpulint benchmark, $(date -u +%Y-%m-%d)"
echo
machine
echo
echo "### Lint (\`bench/lint.sh\`)"
echo
"$here/lint.sh" "$build" "$data"
echo
echo "### Webhook (\`bench/webhook.sh\`, wrk over TLS on loopback, ${BENCH_SECONDS:-10} s per row)"
echo
"$here/webhook.sh" "$build" "$data" "$build/bench/reference"
