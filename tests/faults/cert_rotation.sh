#!/usr/bin/env bash
# Certificate rotation under load. LAYOUT "rename": the pair is replaced by an
# atomic rename of each file (an editor, cert-manager's csi driver); "secret":
# a Secret volume as kubelet lays it out, tls.crt -> ..data/tls.crt, with
# ..data swapped to a new directory in one rename. Then a garbage pair, which
# must be refused while the last good certificate keeps serving.
# Two wrk runs go on throughout: keep-alive connections (which keep the
# certificate they were made with) and one handshake per request (which must
# get the new one); neither may see a single failed request.
source "$(dirname "$0")/lib.sh"
layout=${1:?usage: cert_rotation.sh rename|secret}
CASE=cert-rotation-$layout

make_ca
make_leaf first
make_leaf second
live=$tmp/live
mkdir -p "$live"
publish() {  # publish CERT_FILE KEY_FILE
  if [[ $layout == rename ]]; then
    cp "$2" "$live/.tls.key.tmp" && mv "$live/.tls.key.tmp" "$live/tls.key"
    cp "$1" "$live/.tls.crt.tmp" && mv "$live/.tls.crt.tmp" "$live/tls.crt"
  else
    local version
    version="..$(date +%s%N)"
    mkdir "$live/$version"
    cp "$1" "$live/$version/tls.crt"
    cp "$2" "$live/$version/tls.key"
    ln -s "$version" "$live/..data_tmp"
    mv -T "$live/..data_tmp" "$live/..data"
  fi
}
if [[ $layout == secret ]]; then
  ln -s ..data/tls.crt "$live/tls.crt"
  ln -s ..data/tls.key "$live/tls.key"
fi
publish "$tmp/first.crt" "$tmp/first.key"

start_server --cert "$live/tls.crt" --key "$live/tls.key" --drain-seconds 0
wait_ready
first=$(serial_of "$tmp/first.crt") second=$(serial_of "$tmp/second.crt")
[[ $(served_serial) == "$first" ]] || fail "a new connection is not served the first certificate"

wrk_start "$tmp/keepalive" 6 8
keepalive_pid=$wrk_pid
wrk_start "$tmp/close" 6 4 -H "Connection: close"
close_pid=$wrk_pid
sleep 2

publish "$tmp/second.crt" "$tmp/second.key"
# A rename of two files can be seen half done (the new key with the old
# certificate): that reload is refused and counted, the next one takes.
wait_metric 'gpulint_webhook_reloads_total{what="certificate",result="ok"}' 2 40
seen=$(served_serial)
[[ $seen == "$second" ]] || fail "after rotation a new connection got serial $seen, expected $second"
note "rotated: new connections get serial $second"
failed=$(metric 'gpulint_webhook_reloads_total{what="certificate",result="failed"}')
failed=${failed:-0}

sleep 1
echo "not a certificate" >"$tmp/garbage.crt"
publish "$tmp/garbage.crt" "$tmp/second.key"
wait_metric 'gpulint_webhook_reloads_total{what="certificate",result="failed"}' $((failed + 1)) 40
log_has '"msg":"certificate refused, the last good one keeps serving"' ||
  fail "the garbage pair was not logged as refused"
seen=$(served_serial)
[[ $seen == "$second" ]] || fail "after the garbage pair a new connection got serial '$seen', expected $second"
[[ $(status /readyz) == 200 ]] || fail "/readyz is not 200 after the garbage pair"
note "garbage pair refused (reloads failed=$((failed + 1))), serial $second still served, ready"

wait "$keepalive_pid" || true
wait "$close_pid" || true
wrk_check "$tmp/keepalive" "keep-alive x8"
wrk_check "$tmp/close" "handshake per request x4"
kill -0 "$server_pid" || fail "the server died"
pass "rotation and a garbage pair under load, zero failed requests"
