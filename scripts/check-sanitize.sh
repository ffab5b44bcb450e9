#!/usr/bin/env bash
# Builds everything (engine, CLI, webhook, tests) with AddressSanitizer and
# UndefinedBehaviorSanitizer under clang and runs the test suite under them.
# Any sanitizer report fails the test that caused it.
#
#   scripts/check-sanitize.sh [CTEST_ARGS...]    e.g. -R hostile, -E webhook
#
# Environment: BUILD_DIR (default build-asan), JOBS (default: nproc),
# CXX (default clang++-14), SANITIZE_FLAGS (default -O0 -gline-tables-only),
# CMAKE_ARGS (e.g. -DGPULINT_FUZZ=ON to build the fuzz targets alongside, for
# fuzz/run.sh --smoke with the same BUILD_DIR). Needs Debian's clang-14 and
# libclang-rt-14-dev; llvm-14 for symbolized stack traces.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}
CXX=${CXX:-clang++-14}
if ! command -v "$CXX" >/dev/null; then
  echo "check-sanitize: $CXX not found; apt-get install clang-14 libclang-rt-14-dev" >&2
  exit 2
fi

# -O0 builds in half the time of -O1 and the suite is I/O-bound; line tables
# are all a stack trace needs. SANITIZE_FLAGS="-O1 -g" for a debugger.
cmake -S . -B "$BUILD_DIR" -DCMAKE_CXX_COMPILER="$CXX" -DGPULINT_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="${SANITIZE_FLAGS:--O0 -gline-tables-only}" \
  ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"

# Leaks count as failures; stack traces name the line (symbolizer from llvm-14).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for s in llvm-symbolizer-14 /usr/lib/llvm-14/bin/llvm-symbolizer llvm-symbolizer; do
  if command -v "$s" >/dev/null; then
    export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v "$s")}
    break
  fi
done
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@"
