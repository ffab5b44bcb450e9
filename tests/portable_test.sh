#!/usr/bin/env bash
# The portable binaries (cmake/shipped_binary.cmake) in an empty root: a
# chroot holding nothing but the binary, its input files and a static helm
# (no /lib, no /etc, no /dev, no /proc). Each binary has no interpreter and
# no shared library (readelf); in the empty root gpulint lints the bundled
# examples (text and JSON), reads a stream on stdin, runs on two threads,
# lists and explains its rules, reports bad input with its position, and
# renders a chart with helm (posix_spawn, no /dev/null); each run's status,
# stdout and stderr are the same word for word as the same command's in the
# build machine's root, where the suite's golden tests also run this binary.
# For gpulint-webhook, when it is given: --help, then it serves HTTPS from the
# empty root (its certificate, key and nodes files of the root) and judges a
# review a real API server sent as on the machine's root; and both binaries'
# static OpenSSL trusts the CA of SSL_CERT_FILE where no CA is configured
# (`gpulint audit` with a kubeconfig without one, against that webhook), as
# its compiled-in store is Debian's /usr/lib/ssl, absent there.
#
#   tests/portable_test.sh SOURCE_DIR GPULINT [GPULINT_WEBHOOK]
#
# Runs as root (chroot), or else in an unprivileged user namespace (unshare
# -r); when neither can enter the root it fails, it never skips. helm comes
# from GPULINT_HELM or scripts/install-helm.sh (npm); without it the chart
# case alone is not run and the test ends in 77 (skipped), a failure instead
# under CI=true.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 SOURCE_DIR GPULINT [GPULINT_WEBHOOK]" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
gpulint=$2
webhook=${3:-}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# static BINARY: no program interpreter (ld.so) and no NEEDED library.
static() {
  local headers dynamic
  headers=$(readelf -lW "$1") || { fail "readelf cannot read $1"; return 1; }
  dynamic=$(readelf -dW "$1")
  if grep -q 'Requesting program interpreter' <<<"$headers"; then
    fail "$(basename "$1") asks for a program interpreter: $(grep interpreter <<<"$headers")"
  elif grep -q '(NEEDED)' <<<"$dynamic"; then
    fail "$(basename "$1") needs shared libraries:"$'\n'"$(grep '(NEEDED)' <<<"$dynamic")"
  else
    return 0
  fi
  return 1
}

# The root: the binaries at its top, inputs under in/, helm under tools/.
root=$tmp/root
mkdir -p "$root/in" "$root/tools"
# And /tmp, which every root has (distroless's too): a chart is rendered a
# second time from a copy there, to place findings on its template lines.
mkdir -m 1777 "$root/tmp"
static "$gpulint" && cp "$gpulint" "$root/gpulint"
[ -z "$webhook" ] || { static "$webhook" && cp "$webhook" "$root/gpulint-webhook"; }
[ "$failures" -eq 0 ] || exit 1
cp -r "$src/examples" "$src/testdata/sources/gpu-chart" "$root/in/"
cp "$src/testdata/nodes/incidents.yaml" "$root/in/nodes.yaml"
printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x\nspec: [\n' >"$root/in/bad.yaml"

helm=${GPULINT_HELM:-}
if [ -z "$helm" ]; then
  set +e
  helm=$("$src/scripts/install-helm.sh")
  status=$?
  set -e
  [ $status -eq 0 ] || [ $status -eq 77 ] || { echo "FAIL: scripts/install-helm.sh failed ($status)" >&2; exit 1; }
  [ $status -eq 0 ] || helm=
fi
if [ -n "$helm" ]; then
  static "$helm" || exit 1
  cp "$helm" "$root/tools/helm"
fi

# How to enter the root: chroot as root, else in a user namespace of our own.
chroot_bin=$(command -v chroot || echo /usr/sbin/chroot)
enter=()
for way in "$chroot_bin" "unshare -r $chroot_bin"; do
  # shellcheck disable=SC2086 # the words of $way are the command
  if out=$(env -i $way "$root" ./gpulint --version 2>&1); then
    read -ra enter <<<"$way"
    break
  fi
  echo "note: '$way' cannot enter the empty root: $out" >&2
done
if [ ${#enter[@]} -eq 0 ]; then
  echo "FAIL: neither chroot (as root) nor unshare -r chroot (a user namespace) can enter the empty root" >&2
  exit 1
fi
echo "entering the empty root with: ${enter[*]}"

# expect NAME STATUS STDIN BINARY ARGS...: BINARY (./gpulint) run in the empty
# root, with STDIN (a file of the root, or -: none) and PATH=tools, relative
# paths, the root as the working directory; then the same command in the
# machine's root from the same directory. Sets $got to its stdout.
# run_env: more NAME=VALUE for both runs.
got=
run_env=()
expect() {
  local name=$1 want_status=$2 input=$3
  shift 3
  local status=0 host_status=0 host_out in=/dev/null
  [ "$input" = - ] || in=$root/$input
  env -i PATH=tools "${run_env[@]}" "${enter[@]}" "$root" "$@" <"$in" >"$tmp/out" 2>"$tmp/err" || status=$?
  (cd "$root" && env -i PATH=tools "${run_env[@]}" "$@" <"$in" >"$tmp/host_out" 2>"$tmp/host_err") || host_status=$?
  got=$(cat "$tmp/out")
  host_out=$(cat "$tmp/host_out")
  if [ $status -ne "$want_status" ]; then
    fail "$name: exit status $status, not $want_status:"$'\n'"$got"$'\n'"$(cat "$tmp/err")"
  elif [ $host_status -ne $status ] || [ "$host_out" != "$got" ] || ! cmp -s "$tmp/err" "$tmp/host_err"; then
    fail "$name: the empty root and the machine's root differ:"$'\n'"$(diff "$tmp/out" "$tmp/host_out")"$'\n'"$(diff "$tmp/err" "$tmp/host_err")"
  fi
  got=$got$'\n'$(cat "$tmp/err")
}
# has NAME TEXT: the last run's output holds TEXT.
has() { grep -qF -- "$2" <<<"$got" || fail "$1: the output lacks '$2':"$'\n'"$got"; }

expect "check" 1 - ./gpulint check --nodes in/nodes.yaml in/examples
has "check" "in/examples/inference-vram.yaml:26:48: error:"
has "check" "[exceeds-allocatable]"
has "check" "gpulint: 5 errors, 1 warning in 4 objects (4 files)"
expect "check --jobs 2" 1 - ./gpulint check --jobs 2 --nodes in/nodes.yaml in/examples
has "check --jobs 2" "gpulint: 5 errors, 1 warning in 4 objects (4 files)"
expect "check --format json" 1 - ./gpulint check --format json in/examples
python3 -c 'import json, sys; json.load(sys.stdin)' <"$tmp/out" 2>/dev/null || fail "check --format json: not JSON:"$'\n'"$got"
has "check --format json" '"rule":"gpu-fractional"'
expect "check -" 1 in/examples/inference-vram.yaml ./gpulint check -
has "check -" "[gpu-fractional]"
expect "rules" 0 - ./gpulint rules
has "rules" "gpu-fractional"
expect "explain" 0 - ./gpulint explain vram-exceeds-gpu
has "explain" "vram-exceeds-gpu"
expect "--version" 0 - ./gpulint --version
has "--version" "gpulint "
expect "bad input" 2 - ./gpulint check in/bad.yaml in/missing.yaml
has "bad input" "in/bad.yaml:4:5: error: did not find expected ',' or '}'"
has "bad input" "in/missing.yaml: no such file or directory"
if [ -n "$helm" ]; then
  expect "chart (helm)" 0 - ./gpulint check in/gpu-chart
  has "chart (helm)" "in/gpu-chart/templates/deployment.yaml:20:11: warning:"
fi
if [ -n "$webhook" ]; then
  expect "webhook --help" 0 - ./gpulint-webhook --help
  has "webhook --help" "--listen ADDR:PORT"

  # Serving from the empty root: TLS from files of the root, one review.
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$root/in/key.pem" -out "$root/in/cert.pem" 2>/dev/null
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # env, chroot and unshare each exec the next: $! is the webhook itself.
  env -i "${enter[@]}" "$root" ./gpulint-webhook --listen "127.0.0.1:$port" --cert in/cert.pem \
    --key in/key.pem --nodes in/nodes.yaml --drain-seconds 0 2>"$tmp/webhook.log" &
  webhook_pid=$!
  url=https://127.0.0.1:$port
  for _ in $(seq 100); do
    curl -sf --cacert "$root/in/cert.pem" "$url/readyz" >/dev/null && break
    kill -0 $webhook_pid 2>/dev/null || break
    sleep 0.1
  done
  review=$src/testdata/admission/16-pod-create-gpu-request-ne-limit-mutate-only.json
  answer=$(curl -sS --cacert "$root/in/cert.pem" -H 'Content-Type: application/json' \
    --data-binary "@$review" "$url/validate" 2>&1 || true)
  got=$answer
  has "webhook /validate" '"allowed":false'
  has "webhook /validate" "gpu-request-limit-mismatch"

  # Its static OpenSSL's trust where no CA is configured: none (the empty
  # root has no /usr/lib/ssl, and the machine's store lacks this certificate),
  # then SSL_CERT_FILE's.
  printf '%s\n' 'apiVersion: v1' 'kind: Config' 'current-context: c' \
    "clusters: [{name: c, cluster: {server: \"$url\"}}]" \
    'users: [{name: u, user: {token: portable-test-token}}]' 'contexts: [{name: c, context: {cluster: c, user: u}}]' \
    >"$root/in/kubeconfig"
  expect "audit, no CA" 2 - ./gpulint audit --kubeconfig in/kubeconfig
  has "audit, no CA" "failed: self-signed certificate"
  run_env=(SSL_CERT_FILE=in/cert.pem)
  expect "audit, SSL_CERT_FILE" 2 - ./gpulint audit --kubeconfig in/kubeconfig
  run_env=()
  grep -qF "self-signed certificate" <<<"$got" && fail "audit, SSL_CERT_FILE: the CA of SSL_CERT_FILE is not trusted:"$'\n'"$got"
  has "audit, SSL_CERT_FILE" "404"

  kill -TERM $webhook_pid
  status=0
  wait $webhook_pid || status=$?
  [ $status -eq 0 ] || fail "the webhook in the empty root exited $status after SIGTERM:"$'\n'"$(cat "$tmp/webhook.log")"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
covered="gpulint${webhook:+ and gpulint-webhook}"
if [ -z "$helm" ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: helm cannot be installed without npm and unzip, and CI=true makes that a failure" >&2
    exit 1
  fi
  echo "SKIPPED (in part): $covered static and right in an empty root; no helm (npm, unzip), so no chart case"
  exit 77
fi
echo "portable: $covered static, the same output in an empty root as in the machine's, helm run from it${webhook:+, a review served over HTTPS from it}"
