#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan), seeds them from
# testdata/ (the corpus and the captured AdmissionReviews too), examples/ and policies/,
# and runs each for SECONDS (default 120), one after another. Exits non-zero
# when any target crashed, hung, leaked or broke a property; the input that did
# it is kept under $BUILD_DIR/artifacts/ (replay: $BUILD_DIR/fuzz/TARGET FILE).
#
#   fuzz/run.sh [SECONDS]   fuzz each target for SECONDS; the corpus grows in
#                           $BUILD_DIR/corpus/ from one run to the next
#   fuzz/run.sh --smoke     for CI: every seed and every file of fuzz/regressions/
#                           once, then 10 s of fuzzing per target, from scratch
#
# Environment: BUILD_DIR (default build-fuzz), CXX (default clang++-14),
# JOBS (default nproc), TARGETS (default: every target that was built).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-120}
smoke=false
if [ "$seconds" = --smoke ]; then
  smoke=true
  seconds=${SMOKE_SECONDS:-10}
fi
case "$seconds" in
  '' | *[!0-9]*) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

BUILD_DIR=${BUILD_DIR:-build-fuzz}
CXX=${CXX:-clang++-14}
JOBS=${JOBS:-$(nproc)}
if ! command -v "$CXX" >/dev/null; then
  echo "fuzz: $CXX not found; apt-get install clang-14 libclang-rt-14-dev" >&2
  exit 2
fi

if [ -f "$BUILD_DIR/CMakeCache.txt" ]; then
  # An existing build dir keeps its compiler, flags and tests: CI shares the one
  # scripts/check-sanitize.sh made with CMAKE_ARGS=-DGPULINT_FUZZ=ON.
  cmake -S . -B "$BUILD_DIR" -DGPULINT_FUZZ=ON >/dev/null
else
  cmake -S . -B "$BUILD_DIR" -DCMAKE_CXX_COMPILER="$CXX" -DGPULINT_FUZZ=ON \
    -DGPULINT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" >/dev/null
fi
all_targets=(quantity yaml_loader policy)
# The admission and http targets exist when the webhook is built.
grep -qs admission_fuzzer "$BUILD_DIR/build.ninja" "$BUILD_DIR/fuzz/Makefile" &&
  all_targets+=(admission http)
read -r -a targets <<<"${TARGETS:-${all_targets[*]}}"
cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]/%/_fuzzer}"

seeds="$BUILD_DIR/seeds"
rm -rf "$seeds"
fuzz/make_corpus.sh "$seeds"

for s in llvm-symbolizer-14 /usr/lib/llvm-14/bin/llvm-symbolizer llvm-symbolizer; do
  if command -v "$s" >/dev/null; then
    export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v "$s")}
    break
  fi
done

failed=()
for t in "${targets[@]}"; do
  max_len=16384
  [ "$t" = quantity ] && max_len=128
  corpus="$BUILD_DIR/corpus/$t"
  $smoke && corpus=$(mktemp -d)
  mkdir -p "$corpus" "$BUILD_DIR/artifacts"
  inputs=("$corpus" "$seeds/$t")
  [ -d "fuzz/regressions/$t" ] && inputs+=("fuzz/regressions/$t")
  dict=()
  [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
  echo "== fuzz: $t for ${seconds}s" >&2
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: memory is bounded.
  if ! "$BUILD_DIR/fuzz/${t}_fuzzer" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$BUILD_DIR/artifacts/$t-" "${inputs[@]}"; then
    failed+=("$t")
  fi
  $smoke && rm -rf "$corpus"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $BUILD_DIR/artifacts/)" >&2
  exit 1
fi
echo "fuzz: ${targets[*]}: no failures in ${seconds}s each" >&2
