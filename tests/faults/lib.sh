# shellcheck shell=bash
# Sourced by each fault case: a temp dir, certificates made by openssl, the
# real gpulint-webhook on a free loopback port, probes over TLS, wrk with the
# captured reviews, and a trap that stops everything started here.
# Environment: GPULINT_WEBHOOK (default build/webhook/gpulint-webhook).
set -euo pipefail

FAULTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$FAULTS/../.." && pwd)
WEBHOOK=${GPULINT_WEBHOOK:-$ROOT/build/webhook/gpulint-webhook}
ADMISSION=${GPULINT_ADMISSION:-$ROOT/testdata/admission}
CASE=$(basename "$0" .sh)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpulint-faults-$CASE-XXXXXX")
server_pid=""
port=""
helpers=()  # other processes this case started
curl_tls=(--cacert "$tmp/ca.pem")  # how probes trust the server

cleanup() {
  local p
  for p in "${helpers[@]}" $server_pid; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${helpers[@]}" $server_pid; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

note() { echo "  $CASE: $*"; }
fail() {
  echo "FAIL $CASE: $*"
  if [[ -f $tmp/server.log ]]; then
    echo "  --- last server log lines:"; grep -v '"msg":"admission"' "$tmp/server.log" | tail -n 15 | sed 's/^/  /'
  fi
  exit 1
}
pass() { echo "PASS $CASE: $*"; exit 0; }

# ---- certificates ----------------------------------------------------------

# A CA for this case: $tmp/ca.pem, $tmp/ca.key.
make_ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=gpulint faults CA" -keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>/dev/null
}

# make_leaf NAME [STARTDATE ENDDATE]: $tmp/NAME.crt and $tmp/NAME.key signed
# by the CA, SAN localhost and 127.0.0.1, a random serial. With dates
# (YYYYMMDDHHMMSSZ) the validity is set through `openssl ca`, which, unlike
# `x509 -days`, can make a certificate that has already expired.
make_leaf() {
  local name=$1 start=${2:-} end=${3:-}
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -subj "/CN=$name" -keyout "$tmp/$name.key" -out "$tmp/$name.csr" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$tmp/leaf.ext"
  if [[ -z $start ]]; then
    openssl x509 -req -in "$tmp/$name.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" \
      -set_serial "0x$(openssl rand -hex 8)" -days 2 -extfile "$tmp/leaf.ext" \
      -out "$tmp/$name.crt" 2>/dev/null
    return
  fi
  mkdir -p "$tmp/ca-db"
  : >"$tmp/ca-db/index.txt"
  openssl rand -hex 8 >"$tmp/ca-db/serial"
  cat >"$tmp/ca-db/ca.cnf" <<CNF
[ca]
default_ca = local
[local]
database = $tmp/ca-db/index.txt
new_certs_dir = $tmp/ca-db
serial = $tmp/ca-db/serial
default_md = sha256
policy = anything
unique_subject = no
[anything]
commonName = supplied
CNF
  openssl ca -batch -notext -config "$tmp/ca-db/ca.cnf" -cert "$tmp/ca.pem" -keyfile "$tmp/ca.key" \
    -in "$tmp/$name.csr" -startdate "$start" -enddate "$end" -extfile "$tmp/leaf.ext" \
    -out "$tmp/$name.crt" 2>/dev/null
}

serial_of() { openssl x509 -in "$1" -noout -serial | cut -d= -f2; }

# The serial of the certificate a new TLS connection is served.
served_serial() {
  openssl s_client -connect "127.0.0.1:$port" -CAfile "$tmp/ca.pem" </dev/null 2>/dev/null |
    openssl x509 -noout -serial 2>/dev/null | cut -d= -f2
}

# ---- the server ------------------------------------------------------------

# start_server [--open-files N] FLAGS...: the real binary on 127.0.0.1, a free
# port picked by the kernel (read back from the "listening" log line).
start_server() {
  local limit=""
  if [[ ${1:-} == --open-files ]]; then limit=$2; shift 2; fi
  if [[ -n $limit ]]; then
    (ulimit -n "$limit" && exec "$WEBHOOK" --listen 127.0.0.1:0 "$@") >/dev/null 2>"$tmp/server.log" &
  else
    "$WEBHOOK" --listen 127.0.0.1:0 "$@" >/dev/null 2>"$tmp/server.log" &
  fi
  server_pid=$!
  local i
  for i in $(seq 100); do
    port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9]*\).*/\1/p' "$tmp/server.log" | head -n1)
    [[ -n $port ]] && return 0
    kill -0 "$server_pid" 2>/dev/null || fail "the server exited at start: $(cat "$tmp/server.log")"
    sleep 0.05
  done
  fail "the server did not log 'listening' within 5 s"
}

# status PATH: the HTTP status of a GET over TLS, verified against the CA.
status() {
  curl -s -o "$tmp/last-body" -w '%{http_code}' --max-time 5 "${curl_tls[@]}" \
    "https://127.0.0.1:$port$1" || true
}

wait_ready() {
  local i
  for i in $(seq 100); do
    [[ $(status /readyz) == 200 ]] && return 0
    sleep 0.05
  done
  fail "/readyz did not answer 200 within 5 s"
}

# metric SERIES: its value from /metrics (empty when absent).
metric() {
  curl -s --max-time 5 "${curl_tls[@]}" "https://127.0.0.1:$port/metrics" |
    awk -v s="$1" 'index($0, s " ") == 1 { print substr($0, length(s) + 2) }'
}

# wait_metric SERIES VALUE [TENTHS]: polls until the series has that value.
wait_metric() {
  local i
  for i in $(seq "${3:-50}"); do
    [[ $(metric "$1") == "$2" ]] && return 0
    sleep 0.1
  done
  fail "$1 is '$(metric "$1")', expected $2"
}

log_has() { grep -q -- "$1" "$tmp/server.log"; }

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }

# POST one captured review; prints the HTTP status.
post_review() {  # post_review FILE ENDPOINT
  curl -s -o "$tmp/last-body" -w '%{http_code}' --max-time 5 "${curl_tls[@]}" \
    -H 'Content-Type: application/json' --data-binary @"$1" "https://127.0.0.1:$port/$2" || true
}

# ---- load ------------------------------------------------------------------

# The captured reviews as reviews.lua reads them: ENDPOINT UID PATH.
review_list() {
  local f endpoint
  for f in "$ADMISSION"/[0-9][0-9]-*.json; do
    endpoint=mutate
    [[ $f == *-validate* ]] && endpoint=validate
    echo "$endpoint $(jq -r .request.uid "$f") $f"
  done >"$tmp/reviews.list"
}

# wrk_start OUT SECONDS CONNECTIONS [WRK FLAGS...]: wrk in the background.
wrk_start() {
  local out=$1 seconds=$2 conns=$3; shift 3
  [[ -f $tmp/reviews.list ]] || review_list
  local threads=2
  ((conns < 2)) && threads=1
  timeout $((seconds + 15)) wrk -t"$threads" -c"$conns" -d"${seconds}s" --timeout 5s "$@" \
    -s "$FAULTS/reviews.lua" "https://127.0.0.1:$port" -- "$tmp/reviews.list" >"$out" 2>&1 &
  wrk_pid=$!
  helpers+=("$wrk_pid")
}

# wrk_field OUT NAME: one figure from the RESULT line.
wrk_field() { sed -n "s/^RESULT.* $2=\([0-9.]*\).*/\1/p" "$1"; }

# wrk_check OUT LABEL: fails unless every request was answered 200 with a
# review of a uid sent, and no socket error; prints the figures.
wrk_check() {
  local out=$1 label=$2
  grep -q '^RESULT' "$out" || fail "$label: wrk printed no result: $(cat "$out")"
  local n bad
  n=$(wrk_field "$out" requests)
  bad=$(($(wrk_field "$out" non200) + $(wrk_field "$out" bad_body) + $(wrk_field "$out" connect) +
         $(wrk_field "$out" read) + $(wrk_field "$out" write) + $(wrk_field "$out" timeout)))
  note "$label: $(sed -n 's/^RESULT //p' "$out")"
  ((n > 0)) || fail "$label: no request completed"
  ((bad == 0)) || fail "$label: $bad failed requests"
}
