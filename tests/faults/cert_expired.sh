#!/usr/bin/env bash
# A serving certificate past its notAfter: the server still starts and serves
# (the API server will refuse the handshake; a person must see why), logs that
# the certificate has expired, and exposes the expiry in /metrics.
source "$(dirname "$0")/lib.sh"
CASE=cert-expired

make_ca
make_leaf expired 20200101000000Z 20200201000000Z
start_server --cert "$tmp/expired.crt" --key "$tmp/expired.key" --drain-seconds 0
# A client that checks dates refuses it, which is the point of the alarm.
grep -q 'certificate has expired' <(curl -sS --cacert "$tmp/ca.pem" "https://127.0.0.1:$port/healthz" 2>&1) ||
  fail "curl does not refuse the certificate as expired"
# The probes look anyway, as kubelet does (it does not verify the certificate).
curl_tls=(-k)
wait_ready
log_has '"level":"error","msg":"certificate expired".*"not_after":"2020-02-01T00:00:00Z"' ||
  fail "no 'certificate expired' error with its notAfter in the log"
expiry=$(metric gpulint_webhook_certificate_expiry_timestamp_seconds)
[[ $expiry == 1580515200 ]] || fail "gpulint_webhook_certificate_expiry_timestamp_seconds is '$expiry', expected 1580515200"
expired=$(metric gpulint_webhook_certificate_expired)
[[ $expired == 1 ]] || fail "gpulint_webhook_certificate_expired is '$expired', expected 1"

# And a valid one rotated in clears the alarm.
make_leaf valid
cp "$tmp/valid.key" "$tmp/expired.key.new" && mv "$tmp/expired.key.new" "$tmp/expired.key"
cp "$tmp/valid.crt" "$tmp/expired.crt.new" && mv "$tmp/expired.crt.new" "$tmp/expired.crt"
wait_metric gpulint_webhook_certificate_expired 0 40
curl_tls=(--cacert "$tmp/ca.pem")
[[ $(status /healthz) == 200 ]] || fail "the valid certificate rotated in does not serve"
pass "logged as expired (not_after 2020-02-01T00:00:00Z), expiry $expiry and expired=1 in /metrics, cleared by rotation"
