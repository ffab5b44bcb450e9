#!/usr/bin/env bash
# 5,000 idle connections against a server allowed 1,024 open files: it runs
# out of descriptors. It must not crash, spin or hang: it says so in the log,
# keeps within its limit, and once the idle clients go away a normal request
# is answered at once.
source "$(dirname "$0")/lib.sh"
CASE=idle-connections
limit=1024 count=5000 hold=6

make_ca
make_leaf serving
start_server --open-files $limit --cert "$tmp/serving.crt" --key "$tmp/serving.key" --drain-seconds 0
wait_ready
review=$(ls "$ADMISSION"/02-*.json)
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }

python3 "$FAULTS/idle_connections.py" "$port" $count $hold >"$tmp/idle.out" 2>&1 &
idle_pid=$!
helpers+=("$idle_pid")
sleep 2
# The descriptors run out within the first second; measure the two after.
before=$(ticks "$server_pid")
max_fds=0
for _ in $(seq 20); do
  n=$(fds "$server_pid")
  ((n > max_fds)) && max_fds=$n
  sleep 0.1
done
cpu_pct=$((($(ticks "$server_pid") - before) * 100 / $(getconf CLK_TCK) / 2))
kill -0 "$server_pid" 2>/dev/null || fail "the server died with $count idle connections"
note "while held: $(head -n1 "$tmp/idle.out"), server fds max $max_fds (limit $limit), server CPU ${cpu_pct}%, RSS $(rss_kb "$server_pid") kB"
((max_fds <= limit)) || fail "$max_fds open files, over the limit $limit"
((cpu_pct < 50)) || fail "the server used ${cpu_pct}% CPU holding idle connections: a busy loop"
log_has '"msg":"out of file descriptors' || fail "nothing in the log says the descriptors ran out"

wait "$idle_pid" || true
t0=$(date +%s%N)
code=000
for _ in $(seq 100); do
  code=$(post_review "$review" validate)
  [[ $code == 200 ]] && break
  sleep 0.1
done
recover_ms=$((($(date +%s%N) - t0) / 1000000))
kill -0 "$server_pid" 2>/dev/null || fail "the server died after the idle clients left"
[[ $code == 200 ]] || fail "no review answered within 10 s of the idle clients leaving (last HTTP $code)"
((recover_ms < 2000)) || fail "the first review after the idle clients left took ${recover_ms} ms"
[[ $(status /readyz) == 200 ]] || fail "/readyz is not 200 after the idle clients left"
pass "$count idle connections, fds max $max_fds/$limit, CPU ${cpu_pct}%, alive; a review answered ${recover_ms} ms after they left"
