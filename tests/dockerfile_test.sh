#!/usr/bin/env bash
# No Docker engine runs here, so the Dockerfile is held to what can be
# checked without one:
#   - a build stage on dev's Debian and a runtime stage;
#   - the build stage is dev itself: `./dev deps` after copying dev alone,
#     then `./dev build` of exactly the shipped CMake targets, and no package
#     installed by hand;
#   - the binaries it copies out are the built ones, at the paths the build
#     puts them (BUILT_BINARY, in dev's build directory), into a directory on
#     the default PATH;
#   - the runtime stage is distroless/static or scratch: nothing in it but
#     the binaries, each static (no interpreter, no NEEDED: readelf), and no
#     RUN (there is no shell); SSL_CERT_FILE names the base's CA bundle, as
#     the static OpenSSL's default is Debian's /usr/lib/ssl;
#   - it runs as the chart's numeric non-root user, with gpulint-webhook as
#     its entrypoint;
#   - the chart fits it: the webhook's container gives no command (the
#     entrypoint runs), its probes are HTTP, it has no lifecycle hook, and
#     every command the chart's pods run is one of the image's binaries.
#
#   tests/dockerfile_test.sh SOURCE_DIR BUILD_DIR [BUILT_BINARY...]
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 SOURCE_DIR BUILD_DIR [BUILT_BINARY...]" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
shift 2
dockerfile=$src/Dockerfile
chart=$src/charts/gpulint-webhook

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The Dockerfile's instructions, one per line: continuations joined, comments
# and blank lines dropped.
instructions=$(sed -e '/^[[:space:]]*#/d' "$dockerfile" | sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' |
  sed -e '/^[[:space:]]*$/d' -e 's/[[:space:]]\{1,\}/ /g')
last_from=$(grep -n '^FROM ' <<<"$instructions" | tail -n 1 | cut -d: -f1)
build_stage=$(sed -n "1,$((last_from - 1))p" <<<"$instructions")
runtime_stage=$(sed -n "$last_from,\$p" <<<"$instructions")
# A stage's RUN commands, split at &&, one per line.
run_commands() { grep '^RUN ' <<<"$1" | sed 's/^RUN //' | sed 's/ && /\n/g' | sed 's/^ *//; s/ *$//'; }

# 1. Stages.
froms=$(grep '^FROM ' <<<"$instructions" | awk '{print $2}')
[ "$(wc -l <<<"$froms")" = 2 ] || fail "expected a build and a runtime stage, found FROM: $froms"
grep -qx 'FROM debian:bookworm-slim AS build' <<<"$build_stage" ||
  fail "the build stage is not 'FROM debian:bookworm-slim AS build' (dev's Debian)"
grep -q '^# Debian bookworm' "$src/dev" || fail "dev no longer says it runs on Debian bookworm"
runtime_base=$(tail -n 1 <<<"$froms")

# 2. The build stage is dev: dev copied alone and `./dev deps`, then the
# source and `./dev build` of the shipped targets; no apt-get of its own.
build_steps=$(grep -E '^(COPY|RUN) ' <<<"$build_stage" | sed 's/ && .*//')
want_steps="COPY dev ./
RUN ./dev deps
COPY . .
RUN ./dev build gpulint gpulint-webhook"
[ "$build_steps" = "$want_steps" ] ||
  fail "the build stage's steps are:"$'\n'"$build_steps"$'\n'"not:"$'\n'"$want_steps"
grep -q 'apt-get' <<<"$build_stage" && fail "the build stage installs packages itself; ./dev deps does"
for arm in deps build; do
  grep -qE "^  $arm\)" "$src/dev" || fail "dev has no '$arm' command"
done
for target in gpulint gpulint-webhook; do
  grep -rqE "add_executable\\($target[[:space:]]" "$src/CMakeLists.txt" "$src/webhook/CMakeLists.txt" ||
    fail "no CMake target $target"
done

# 3. The binaries copied out are the built ones, from dev's build directory.
grep -q '^BUILD_DIR=${BUILD_DIR:-build}$' "$src/dev" || fail "dev's build directory is no longer build/"
install_line=$(run_commands "$build_stage" | grep -F 'install ' | grep -F -- '/out/' || true)
[ -n "$install_line" ] || fail "the build stage installs no binary into /out"
grep -qE -- '-t /out/usr/local/bin ' <<<"$install_line" ||
  fail "the binaries do not go to /usr/local/bin (on the default PATH): $install_line"
copied=$(sed 's/.* -t [^ ]* //' <<<"$install_line" | tr ' ' '\n' | sort)
built=$(for binary in "$@"; do binary=$(readlink -f "$binary"); echo "build/${binary#"$build_dir"/}"; done | sort)
[ "$#" -eq 0 ] || [ "$copied" = "$built" ] ||
  fail "the Dockerfile copies out:"$'\n'"$copied"$'\n'"the build makes:"$'\n'"$built"
grep '^COPY ' <<<"$runtime_stage" | grep -vq -- '--from=build /out/ /' &&
  fail "the runtime stage copies more than the build's /out: $(grep '^COPY ' <<<"$runtime_stage")"

# 4. Only static binaries on a base with nothing to run.
case $runtime_base in
  gcr.io/distroless/static-debian12 | gcr.io/distroless/static-debian12:* | scratch) ;;
  *) fail "the runtime stage is FROM $runtime_base, not gcr.io/distroless/static-debian12 or scratch" ;;
esac
grep -q '^RUN ' <<<"$runtime_stage" &&
  fail "the runtime stage runs a command; its base has no shell: $(grep '^RUN ' <<<"$runtime_stage")"
for binary in "$@"; do
  if readelf -lW "$binary" | grep -q 'program interpreter' || readelf -dW "$binary" | grep -q '(NEEDED)'; then
    fail "$(basename "$binary") is linked dynamically; the image has no library for it (GPULINT_STATIC)"
  fi
done
if [ "$runtime_base" != scratch ]; then
  grep -qx 'ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt' <<<"$runtime_stage" ||
    fail "the runtime stage does not point SSL_CERT_FILE at the base's CA bundle"
fi

# 5. User and entrypoint.
user=$(grep '^USER ' <<<"$runtime_stage" | tail -n 1 | awk '{print $2}')
uid=${user%%:*}
# Kubernetes' runAsNonRoot can only verify a numeric user.
[[ "$uid" =~ ^[0-9]+$ ]] && [ "$uid" -ne 0 ] || fail "runtime USER '$user' is not a numeric non-root uid"
chart_uid=$(sed -n 's/^ *runAsUser: *\([0-9]*\).*/\1/p' "$chart/values.yaml" | head -n 1)
[ "$uid" = "$chart_uid" ] || fail "the image runs as uid $uid, the chart as $chart_uid"
entrypoint=$(grep '^ENTRYPOINT ' <<<"$runtime_stage" | tail -n 1)
[ "$entrypoint" = 'ENTRYPOINT ["gpulint-webhook"]' ] ||
  fail "runtime ENTRYPOINT is '$entrypoint', not [\"gpulint-webhook\"]"

# 6. The chart's containers: the webhook's entrypoint runs, its probes need
# no program, it has no hook, and every command is one of the image's binaries.
deployment=$chart/templates/deployment.yaml
indent=$(sed -n 's/^\( *\)image: .*/\1/p' "$deployment" | head -n 1)
grep -q "^${indent}command:" "$deployment" && fail "the chart's container sets a command; the image's entrypoint should run"
for probe in livenessProbe readinessProbe startupProbe; do
  if grep -A1 -E "^ +$probe:" "$deployment" | grep -q 'exec:'; then
    fail "the chart's $probe runs a program in the image; HTTP probes need none"
  fi
done
grep -q '^ *lifecycle:' "$deployment" &&
  fail "the chart's container has a lifecycle hook; the webhook drains by itself (--drain-seconds)"
binaries=$(for binary in "$@"; do basename "$binary"; done)
programs=$(sed -n 's/^ *command: *\[\([^],]*\).*/\1/p' "$chart"/templates/*.yaml)
for program in $programs; do
  grep -qx -- "$program" <<<"$binaries" ||
    fail "the chart runs $program, which is not one of the image's binaries: $(tr '\n' ' ' <<<"$binaries")"
done
[ "$#" -eq 0 ] || grep -qx gpulint <<<"$programs" ||
  fail "no chart template runs gpulint (the audit CronJob did): is it still needed in the image?"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "Dockerfile: built by ./dev, CMake's binaries, static on $runtime_base, non-root uid $uid, fits the chart"
