#!/usr/bin/env bash
# The arm64 binaries (cross-built: cmake/aarch64-linux-gnu.cmake) under
# qemu-user, against this machine's (amd64) build of the same source:
#   - each is a static aarch64 executable (no interpreter, no NEEDED) and
#     prints the same --version, revision included;
#   - `gpulint check` of examples/ (text, JSON, --jobs 2 with nodes), `rules`
#     and a bad input give the same bytes on stdout and stderr, and the same
#     exit status, as on amd64;
#   - gpulint-webhook serves HTTPS under qemu and answers AdmissionReviews a
#     real API server sent with the same bytes as the amd64 webhook.
#
#   tests/arm64_test.sh SOURCE_DIR AMD64_BUILD_DIR ARM64_BUILD_DIR
#
# Without an arm64 build or qemu-aarch64 it says what is missing and exits
# 77 (skipped), a failure instead under CI=true: `./dev package` and
# `./dev image` make the build (build-arm64/) and install qemu-user.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 SOURCE_DIR AMD64_BUILD_DIR ARM64_BUILD_DIR" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
amd64=$(cd "$2" && pwd)
arm64=$3
# shellcheck source=tests/shell_support.sh
. "$src/tests/shell_support.sh"
missing=
command -v qemu-aarch64 >/dev/null || missing="qemu-aarch64 (Debian's qemu-user)"
for b in gpulint webhook/gpulint-webhook; do
  [ -x "$arm64/$b" ] || missing="${missing:+$missing, }$arm64/$b (./dev package builds it)"
done
if [ -n "$missing" ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: no arm64 smoke test without $missing" >&2
    exit 1
  fi
  echo "SKIPPED: no arm64 smoke test without $missing"
  exit 77
fi
arm64=$(cd "$arm64" && pwd)
tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

for b in gpulint webhook/gpulint-webhook; do
  headers=$(readelf -hlW "$arm64/$b")
  grep -q 'Machine: *AArch64' <<<"$headers" || fail "$b is not an AArch64 executable: $(file "$arm64/$b")"
  if grep -q 'program interpreter' <<<"$headers" || readelf -dW "$arm64/$b" | grep -q '(NEEDED)'; then
    fail "$b is not static"
  fi
  [ "$(qemu-aarch64 "$arm64/$b" --version 2>&1)" = "$("$amd64/$b" --version 2>&1)" ] ||
    fail "$b --version: $(qemu-aarch64 "$arm64/$b" --version 2>&1), on amd64 $("$amd64/$b" --version 2>&1)"
done

# same NAME ARGS...: gpulint's stdout, stderr and status, arm64 against amd64,
# from the source tree.
same() {
  local name=$1 a=0 b=0
  shift
  (cd "$src" && qemu-aarch64 "$arm64/gpulint" "$@" >"$tmp/arm.out" 2>"$tmp/arm.err") || a=$?
  (cd "$src" && "$amd64/gpulint" "$@" >"$tmp/amd.out" 2>"$tmp/amd.err") || b=$?
  [ $a -eq $b ] || fail "$name: exit $a on arm64, $b on amd64"
  cmp -s "$tmp/arm.out" "$tmp/amd.out" || fail "$name: stdout differs:"$'\n'"$(diff "$tmp/amd.out" "$tmp/arm.out" | head -20)"
  cmp -s "$tmp/arm.err" "$tmp/amd.err" || fail "$name: stderr differs:"$'\n'"$(diff "$tmp/amd.err" "$tmp/arm.err" | head -20)"
  [ -s "$tmp/amd.out" ] || [ -s "$tmp/amd.err" ] || fail "$name: no output at all"
}
same "check examples/" check --nodes testdata/nodes/incidents.yaml examples/
same "check --format json --jobs 2" check --format json --jobs 2 --nodes testdata/nodes/incidents.yaml examples/
same "fix --diff --mutations" fix --diff --mutations --nodes testdata/nodes/incidents.yaml examples/
same "rules" rules
same "bad input" check testdata/policies/typo.yaml no-such-file.yaml
same "quantity" quantity 500Gi 500GB 0.5

# Both webhooks, one review each at a time; their answers byte for byte.
self_signed "$tmp/key.pem" "$tmp/cert.pem"
start() {  # start NAME PORT COMMAND...
  local name=$1 port=$2
  shift 2
  "$@" --listen "127.0.0.1:$port" --cert "$tmp/cert.pem" --key "$tmp/key.pem" \
    --nodes "$src/testdata/nodes/incidents.yaml" --drain-seconds 0 2>"$tmp/$name.log" &
  pids+=($!)
  wait_ready "https://127.0.0.1:$port" "$tmp/cert.pem" $! || fail "the $name webhook is not ready: $(cat "$tmp/$name.log")"
}
arm_port=$(free_port)
amd_port=$(free_port)
start arm64 "$arm_port" qemu-aarch64 "$arm64/webhook/gpulint-webhook"
start amd64 "$amd_port" "$amd64/webhook/gpulint-webhook"
reviews=0
for review in "$src"/testdata/admission/*.json; do
  grep -q '"kind": *"AdmissionReview"' "$review" || continue
  for path in validate mutate; do
    for port in "$arm_port" "$amd_port"; do
      curl -sS --cacert "$tmp/cert.pem" -H 'Content-Type: application/json' --data-binary "@$review" \
        -o "$tmp/answer.$port" -w '%{http_code}\n' "https://127.0.0.1:$port/$path" >"$tmp/status.$port" 2>&1 || true
    done
    cmp -s "$tmp/answer.$arm_port" "$tmp/answer.$amd_port" && cmp -s "$tmp/status.$arm_port" "$tmp/status.$amd_port" ||
      fail "/$path $(basename "$review"): arm64 answered $(cat "$tmp/status.$arm_port") $(head -c 300 "$tmp/answer.$arm_port"), amd64 $(cat "$tmp/status.$amd_port") $(head -c 300 "$tmp/answer.$amd_port")"
  done
  reviews=$((reviews + 1))
done
[ "$reviews" -ge 10 ] || fail "only $reviews AdmissionReviews in testdata/admission"
grep -q '"allowed":false' "$tmp"/answer.* 2>/dev/null || true

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "arm64: both binaries static AArch64; under qemu-aarch64 check, fix, rules, quantity and bad input as on amd64, byte for byte; the webhook answered $reviews reviews on /validate and /mutate as on amd64"
