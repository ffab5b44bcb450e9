#!/usr/bin/env bash
# gpulint check over the generated streams: MB/s, objects/s, peak RSS; and
# libyaml's event parser alone over the same bytes (the ceiling).
# Usage: bench/lint.sh BUILD_DIR DATA_DIR   (DATA_DIR from bench/gen.py)
# Prints a markdown table on stdout. Rates use wall time, and CPU time
# (user+sys from /usr/bin/time -v): on a shared machine the second is the
# fair one, since wall time counts what other processes took from the core.
# gpulint gives every document a parser of its own (one broken document does
# not hide the next), so "a parser per document" is its real ceiling.
set -euo pipefail
build=${1:?usage: lint.sh BUILD_DIR DATA_DIR}
data=${2:?usage: lint.sh BUILD_DIR DATA_DIR}
gpulint=$build/gpulint
events=$build/bench/yaml_events
reps=${BENCH_REPS:-3}
ncpu=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run LABEL CPUS REPS CMD... -> one table row, the best (lowest wall) of REPS.
run() {
  local label=$1 cpus=$2 n=$3; shift 3
  local best_wall="" best_line=""
  for ((i = 0; i < n; i++)); do
    local t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -v -o "$tmp/time" taskset -c "$cpus" "$@" >"$tmp/out" 2>"$tmp/err" || true
    t1=$(date +%s.%N)
    local wall cpu rss
    wall=$(echo "$t1 - $t0" | bc -l)
    cpu=$(awk -F': ' '/User time/{u=$2} /System time/{s=$2} END{printf "%.2f", u+s}' "$tmp/time")
    rss=$(awk -F': ' '/Maximum resident/{printf "%.1f", $2/1024}' "$tmp/time")
    if [[ -z $best_wall ]] || (( $(echo "$wall < $best_wall" | bc -l) )); then
      best_wall=$wall
      best_line="$cpu $rss"
      cp "$tmp/out" "$tmp/best_out"; cp "$tmp/err" "$tmp/best_err"
    fi
  done
  read -r cpu rss <<<"$best_line"
  local bytes objects
  bytes=$BYTES
  objects=""
  # gpulint's summary: "gpulint: ... in N objects (M files)"; yaml_events: "bytes events docs".
  if grep -q ' objects (' "$tmp/best_err"; then
    objects=$(sed -n 's/.* in \([0-9]*\) objects\? .*/\1/p' "$tmp/best_err" | tail -1)
  else
    objects=$(awk '{print $3}' "$tmp/best_out")
  fi
  awk -v l="$label" -v c="$cpus" -v b="$bytes" -v w="$best_wall" -v u="$cpu" -v r="$rss" -v o="$objects" \
    'BEGIN{ printf "| %s | %s | %.1f | %.3f | %.2f | %.1f | %.1f | %.0f | %.1f |\n",
            l, c, b/1e6, w, u, b/1e6/w, (u>0 ? b/1e6/u : 0), o/w, r }'
}

echo "| what | cpus | MB | wall s | cpu s | MB/s (wall) | MB/s (cpu) | objects/s (libyaml: documents/s) | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|"
jobs_flag=()
if "$gpulint" check --help 2>&1 | grep -q -- '--jobs'; then jobs_flag=(--jobs 1); fi
for mb in 1 20 200; do
  f=$data/stream-${mb}mb.yaml
  [[ -f $f ]] || continue
  BYTES=$(stat -c %s "$f")
  n=$reps; [[ $mb == 200 ]] && n=1
  run "libyaml events, ${mb} MB stream" 0 "$n" "$events" "$f"
  run "libyaml events, a parser per document, ${mb} MB" 0 "$n" "$events" --per-document "$f"
  run "gpulint check, ${mb} MB stream" 0 "$n" "$gpulint" check "${jobs_flag[@]}" "$f"
done
if [[ -d $data/dir ]]; then
  BYTES=$(cat "$data"/dir/*.yaml | wc -c)
  nfiles=$(ls "$data"/dir | wc -l)
  all=0-$((ncpu - 1)); [[ $ncpu -gt 2 ]] && all=0-1
  run "libyaml events, dir ($nfiles files)" 0 "$reps" "$events" "$data"/dir/*.yaml
  run "gpulint check, dir ($nfiles files)" 0 "$reps" "$gpulint" check "${jobs_flag[@]}" "$data/dir"
  if [[ ${#jobs_flag[@]} -gt 0 ]]; then
    run "gpulint check --jobs 2, dir ($nfiles files)" "$all" "$reps" "$gpulint" check --jobs 2 "$data/dir"
  fi
fi
