#!/usr/bin/env bash
# `gpulint audit` at scale: bench/audit_api.py serves a made-up cluster over
# HTTPS page by page (limit/continue, 500 objects a page), and gpulint audit
# reads it whole, as it reads a real API server. A row per size: objects read,
# the JSON served, wall time, gpulint's CPU (user+sys) and peak RSS. Prints a
# markdown table on stdout.
# Usage: bench/audit.sh BUILD_DIR
# The API stand-in runs on the same cores: wall time counts its work too
# (making and serializing every object in Python); gpulint's CPU does not.
set -euo pipefail
build=${1:?usage: audit.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
api_pid=""
cleanup() {
  if [[ -n $api_pid ]]; then kill "$api_pid" 2>/dev/null || true; wait "$api_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "| nodes | deployments | replicasets | pods | JSON served MB | wall s | cpu s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|"
row() {  # row NODES DEPLOYMENTS PODS-PER-DEPLOYMENT
  local dir=$tmp/$1-$2-$3
  mkdir -p "$dir"
  mkfifo "$dir/in"
  python3 "$here/audit_api.py" --nodes "$1" --deployments "$2" --pods-per "$3" "$dir" \
    <"$dir/in" >"$dir/stats" &
  api_pid=$!
  exec 3>"$dir/in"
  for _ in $(seq 100); do [[ -f $dir/kubeconfig ]] && break; sleep 0.1; done
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$build/gpulint" audit --kubeconfig "$dir/kubeconfig" \
    --format json --fail-on none >"$dir/report.json"
  echo stats >&3
  for _ in $(seq 50); do [[ -s $dir/stats ]] && break; sleep 0.1; done
  exec 3>&-
  wait "$api_pid" 2>/dev/null || true
  api_pid=""
  read -r wall user sys rss <"$dir/time"
  local pods served
  pods=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['pods'])" "$dir/report.json")
  served=$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['bytes'] / 1e6))" "$dir/stats")
  printf '| %s | %s | %s | %s | %s | %s | %.2f | %.1f |\n' "$1" "$2" "$((2 * $2))" "$pods" "$served" \
    "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc -l)"
}
row 500 1000 15
row 5000 1000 15
row 5000 1000 150
row 5000 10000 15
