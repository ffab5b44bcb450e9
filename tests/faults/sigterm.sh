#!/usr/bin/env bash
# SIGTERM under load. What "graceful" means here, each checked:
#  - /readyz answers 503 at once, while reviews are still answered (the drain);
#  - wrk, running through SIGTERM and the drain, sees no failed request;
#  - a request whose first half was read before SIGTERM and whose second half
#    arrives after the listener has closed still gets its whole answer;
#  - new connections are refused once the listener closes;
#  - the process exits 0 within the grace period (drain + 5 s, the chart gives 30).
source "$(dirname "$0")/lib.sh"
CASE=sigterm
drain=3

make_ca
make_leaf serving
start_server --cert "$tmp/serving.crt" --key "$tmp/serving.key" --drain-seconds $drain
wait_ready
review=$(ls "$ADMISSION"/02-*.json)

python3 "$FAULTS/slow_request.py" "$port" "$tmp/ca.pem" "$review" validate \
  "$tmp/sent" "$tmp/go" >"$tmp/slow.out" 2>&1 &
slow_pid=$!
helpers+=("$slow_pid")
for _ in $(seq 100); do [[ -f $tmp/sent ]] && break; sleep 0.05; done
[[ -f $tmp/sent ]] || fail "the slow request could not send its first half: $(cat "$tmp/slow.out")"

wrk_start "$tmp/wrk" $((drain - 1)) 8
sleep 0.5
# Times are taken from just before the signal: under load they can only be overstated.
t0=$(date +%s%N)
kill -TERM "$server_pid"
for _ in $(seq 20); do
  code=$(status /readyz)
  [[ $code == 503 ]] && break
  sleep 0.05
done
[[ $code == 503 ]] || fail "/readyz is $code after SIGTERM, expected 503"
grep -q "shutting down" "$tmp/last-body" || fail "/readyz does not say why: $(cat "$tmp/last-body")"
ready_ms=$((($(date +%s%N) - t0) / 1000000))
[[ $(post_review "$review" validate) == 200 ]] || fail "a review on a new connection during the drain was not answered"
note "readyz 503 ${ready_ms} ms after SIGTERM; a new connection still served during the drain"

wait "$wrk_pid" || true
wrk_check "$tmp/wrk" "keep-alive x8 through SIGTERM"

# The listener closes after the drain: wait until a connection is refused.
closed=""
for _ in $(seq 100); do
  if ! curl -s -o /dev/null --max-time 1 --cacert "$tmp/ca.pem" "https://127.0.0.1:$port/healthz"; then
    closed=yes; break
  fi
  sleep 0.05
done
[[ -n $closed ]] || fail "the listener still accepts $drain s after the drain began"
closed_ms=$((($(date +%s%N) - t0) / 1000000))
note "listener closed ${closed_ms} ms after SIGTERM"
touch "$tmp/go"
wait "$slow_pid" || true
grep -q "status=200 uid_ok=yes" "$tmp/slow.out" ||
  fail "the request in flight across the listener's close got: $(cat "$tmp/slow.out")"
note "the request in flight across the close: $(cat "$tmp/slow.out")"

limit=$((drain + 5))
for _ in $(seq $((limit * 20))); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$server_pid" 2>/dev/null && fail "still running ${limit} s after SIGTERM"
rc=0
wait "$server_pid" || rc=$?
server_pid=""
exit_ms=$((($(date +%s%N) - t0) / 1000000))
((rc == 0)) || fail "exit status $rc after SIGTERM"
log_has '"msg":"stopped"' || fail "no 'stopped' log line"
pass "readyz 503 in ${ready_ms} ms, in-flight request answered, exit 0 in ${exit_ms} ms (drain ${drain} s, limit ${limit} s)"
