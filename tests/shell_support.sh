# Sourced by the shell tests that serve a review from a built webhook
# (tests/image_test.sh, tests/arm64_test.sh): counting failures, a free
# loopback port, a self-signed serving certificate, and waiting for /readyz.

failures=0
# fail MESSAGE: count a failure and say it; the test goes on to say the rest.
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# self_signed KEY CERT: a P-256 key and a certificate for 127.0.0.1.
self_signed() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$1" -out "$2" 2>/dev/null
}

# wait_ready URL CACERT PID: until URL/readyz answers 200 (20 s at most), or
# the process PID has gone. Fails (status 1) when it never answered.
wait_ready() {
  local i
  for i in $(seq 200); do
    curl -sf --cacert "$2" "$1/readyz" >/dev/null && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
