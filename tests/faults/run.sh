#!/usr/bin/env bash
# Faults gpulint-webhook must survive, each against the real binary on a free
# loopback port with certificates made here: runs the named cases (default:
# all), each bounded by `timeout`, prints PASS or FAIL per case with its
# figures, and exits 1 when any failed (77 when a tool is missing).
# Usage: tests/faults/run.sh [CASE...]   (GPULINT_WEBHOOK picks the binary)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
declare -A scripts=(
  [cert-rotation-rename]="cert_rotation.sh rename"
  [cert-rotation-secret]="cert_rotation.sh secret"
  [cert-expired]="cert_expired.sh"
  [policy-reload]="policy_reload.sh"
  [sigterm]="sigterm.sh"
  [slow-clients]="slow_clients.sh"
  [idle-connections]="idle_connections.sh"
)
order=(cert-rotation-rename cert-rotation-secret cert-expired policy-reload sigterm slow-clients
       idle-connections)
cases=("$@")
((${#cases[@]})) || cases=("${order[@]}")
for c in "${cases[@]}"; do
  [[ -n ${scripts[$c]:-} ]] || { echo "run.sh: no case '$c'; the cases: ${order[*]}" >&2; exit 2; }
done
for tool in openssl curl jq wrk slowhttptest python3 timeout; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is not installed (./dev test installs it)"; exit 77; }
done
webhook=${GPULINT_WEBHOOK:-$here/../../build/webhook/gpulint-webhook}
[[ -x $webhook ]] || { echo "run.sh: no webhook binary at $webhook (build it, or set GPULINT_WEBHOOK)"; exit 1; }
export GPULINT_WEBHOOK=$webhook

failed=()
start=$SECONDS
for c in "${cases[@]}"; do
  t=$SECONDS
  # shellcheck disable=SC2086  # the script and its argument
  timeout -k 5 90 "$here"/${scripts[$c]}
  rc=$?
  ((rc == 124 || rc == 137)) && echo "FAIL $c: did not finish within 90 s"
  ((rc == 0)) || failed+=("$c")
  echo "  ($((SECONDS - t)) s)"
done
echo "faults: $((${#cases[@]} - ${#failed[@]})) of ${#cases[@]} passed in $((SECONDS - start)) s${failed:+; failed: ${failed[*]}}"
((${#failed[@]} == 0))
