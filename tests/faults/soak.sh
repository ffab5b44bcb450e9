#!/usr/bin/env bash
# The soak: SECONDS (default 600) of valid reviews (wrk, keep-alive x8 and a
# handshake per request x2) mixed with hostile traffic (hostile.py: garbage
# and nested bodies, huge Content-Length, chunked, 100 KB headers, half
# bodies, plain HTTP, TLS 1.0; slowhttptest slowloris and slow bodies in
# rounds), sampling the server's RSS and open descriptors every 5 s.
# Flat means, comparing the last third of the run with the first third after
# a 10% warm-up: max RSS within 10% (+1 MiB), max descriptors within 10% (+16);
# and once the traffic stops, descriptors back to the idle count (+4) within
# 15 s. Prints a markdown table and the verdict; exits 1 when not flat or when
# a valid review failed. Not in CI: run by hand, e.g. tests/faults/soak.sh 600.
source "$(dirname "$0")/lib.sh"
CASE=soak
seconds=${1:-600}

make_ca
make_leaf serving
start_server --cert "$tmp/serving.crt" --key "$tmp/serving.key" --drain-seconds 0
wait_ready
idle_fds=$(fds "$server_pid")
url="https://127.0.0.1:$port/validate"
t0=$SECONDS

wrk_start "$tmp/keepalive" "$seconds" 8
ka_pid=$wrk_pid
wrk_start "$tmp/close" "$seconds" 2 -H "Connection: close"
close_pid=$wrk_pid
python3 "$FAULTS/hostile.py" "$port" "$tmp/ca.pem" "$seconds" >"$tmp/hostile.out" 2>&1 &
hostile_pid=$!
helpers+=("$hostile_pid")
(  # slow clients in rounds of 20 s, 200 connections each, alternating modes
  mode=H
  while ((SECONDS - t0 + 20 <= seconds)); do
    slowhttptest -$mode -c 200 -r 50 -i 3 -x 10 -s 8192 -l 20 -t POST -f application/json \
      -u "$url" >/dev/null 2>&1 || true
    [[ $mode == H ]] && mode=B || mode=H
  done
) &
slow_pid=$!
helpers+=("$slow_pid")

echo "t_s rss_kb fds threads" >"$tmp/samples"
while ((SECONDS - t0 < seconds)); do
  kill -0 "$server_pid" 2>/dev/null || fail "the server died at $((SECONDS - t0)) s"
  echo "$((SECONDS - t0)) $(rss_kb "$server_pid") $(fds "$server_pid") $(ls "/proc/$server_pid/task" | wc -l)" >>"$tmp/samples"
  sleep 5
done
wait "$ka_pid" "$close_pid" "$hostile_pid" || true
kill "$slow_pid" 2>/dev/null || true
wait "$slow_pid" 2>/dev/null || true
end_fds=""
for _ in $(seq 30); do
  end_fds=$(fds "$server_pid")
  ((end_fds <= idle_fds + 4)) && break
  sleep 0.5
done

echo
echo "| t (s) | RSS (MiB) | open fds | threads |"
echo "|---|---|---|---|"
awk -v step=$((seconds / 10 > 5 ? seconds / 10 : 5)) 'NR > 1 && ($1 % step < 5 || $1 < 5) {
  printf "| %d | %.1f | %d | %d |\n", $1, $2 / 1024, $3, $4 }' "$tmp/samples"
verdict=$(awk -v total="$seconds" 'NR > 1 {
    t = $1; warm = total * 0.1; third = (total - warm) / 3
    if (t >= warm && t < warm + third) { if ($2 > r1) r1 = $2; if ($3 > f1) f1 = $3 }
    if (t >= warm + 2 * third) { if ($2 > r3) r3 = $2; if ($3 > f3) f3 = $3 }
  } END {
    flat = (r3 <= r1 * 1.10 + 1024) && (f3 <= f1 * 1.10 + 16)
    printf "%s first_third_max_rss_mib=%.1f last_third_max_rss_mib=%.1f first_third_max_fds=%d last_third_max_fds=%d",
      flat ? "flat" : "growing", r1 / 1024, r3 / 1024, f1, f3 }' "$tmp/samples")
echo
note "$verdict"
note "descriptors: $idle_fds idle before, $end_fds after the traffic stopped"
note "hostile: $(sed -n 's/^RESULT //p' "$tmp/hostile.out")"
wrk_check "$tmp/keepalive" "valid keep-alive x8"
wrk_check "$tmp/close" "valid handshake per request x2"
[[ $(sed -n 's/.* wrong=\([0-9]*\).*/\1/p' "$tmp/hostile.out") == 0 ]] || fail "hostile traffic got a wrong answer"
[[ $verdict == flat* ]] || fail "RSS or descriptors grew: $verdict"
((end_fds <= idle_fds + 4)) || fail "$end_fds descriptors open after the traffic stopped, $idle_fds before"
pass "${seconds} s of mixed traffic: $verdict"
