#!/usr/bin/env bash
# No container engine runs here, so the Dockerfile is held to what can be
# checked without one, and to the image `./dev image` makes without one
# (scripts/oci-image.py; tests/image_test.sh takes that image apart):
#   - a build stage on dev's Debian and a runtime stage FROM scratch;
#   - the build stage is dev itself: `./dev deps` after copying dev alone,
#     then `./dev rootfs /out`, and no package installed by hand;
#   - the runtime stage copies /out and nothing else, and runs nothing (there
#     is no shell); its ENV, USER, ENTRYPOINT and EXPOSE are, in order, what
#     every image's config says (`scripts/oci-image.py config`);
#   - what `./dev rootfs` lays out from this build (its component `shipped`,
#     stripped, then scripts/oci-image.py rootfs) holds the built binaries
#     (the same --version, static: no interpreter, no NEEDED), /etc/passwd
#     with the chart's uid, the CA bundle SSL_CERT_FILE names, /tmp and the
#     licence;
#   - the chart fits it: it runs as that uid, the webhook's container gives
#     no command (the entrypoint runs), its probes are HTTP, it has no
#     lifecycle hook, and every command the chart's pods run is a binary on
#     the image's PATH.
#
#   tests/dockerfile_test.sh SOURCE_DIR BUILD_DIR [BUILT_BINARY...]
#
# With no BUILT_BINARY (a sanitizer build, which ships nothing) only the
# Dockerfile's text and the chart are checked.
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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

# 1. Stages.
froms=$(grep '^FROM ' <<<"$instructions" | awk '{print $2}')
[ "$(wc -l <<<"$froms")" = 2 ] || fail "expected a build and a runtime stage, found FROM: $froms"
grep -qx 'FROM debian:bookworm-slim AS build' <<<"$build_stage" ||
  fail "the build stage is not 'FROM debian:bookworm-slim AS build' (dev's Debian)"
grep -q '^# Debian bookworm' "$src/dev" || fail "dev no longer says it runs on Debian bookworm"
[ "$(grep '^FROM ' <<<"$runtime_stage")" = "FROM scratch" ] ||
  fail "the runtime stage is not FROM scratch: $(grep '^FROM ' <<<"$runtime_stage")"

# 2. The build stage is dev: dev copied alone and `./dev deps`, then the
# source and `./dev rootfs /out`; no apt-get of its own.
build_steps=$(grep -E '^(COPY|RUN) ' <<<"$build_stage")
want_steps="COPY dev ./
RUN ./dev deps
COPY . .
RUN ./dev rootfs /out"
[ "$build_steps" = "$want_steps" ] ||
  fail "the build stage's steps are:"$'\n'"$build_steps"$'\n'"not:"$'\n'"$want_steps"
grep -q 'apt-get' <<<"$build_stage" && fail "the build stage installs packages itself; ./dev deps does"
for arm in deps rootfs; do
  grep -qE "^  $arm\)" "$src/dev" || fail "dev has no '$arm' command"
done
grep -q '^ARG GPULINT_REVISION=' <<<"$build_stage" ||
  fail "the build stage takes no GPULINT_REVISION (.dockerignore leaves .git out: --version would name no commit)"
grep -qx '\.git' "$src/.dockerignore" || fail ".dockerignore no longer leaves .git out; is GPULINT_REVISION still needed?"

# 3. The runtime stage: the files of /out, and the config every image has.
[ "$(grep -E '^(COPY|ADD|RUN) ' <<<"$runtime_stage")" = "COPY --from=build /out/ /" ] ||
  fail "the runtime stage does more than copy the build's /out:"$'\n'"$(grep -E '^(COPY|ADD|RUN) ' <<<"$runtime_stage")"
config=$(python3 "$src/scripts/oci-image.py" config)
want=$(jq -r '(.Env[] | "ENV " + .), "USER " + .User, "EXPOSE " + (.ExposedPorts | keys[] | sub("/tcp$"; "")),
  "ENTRYPOINT " + (.Entrypoint | tojson)' <<<"$config")
got=$(grep -E '^(ENV|USER|EXPOSE|ENTRYPOINT) ' <<<"$runtime_stage")
[ "$got" = "$want" ] ||
  fail "the runtime stage says:"$'\n'"$got"$'\n'"the image's config (scripts/oci-image.py config) says:"$'\n'"$want"
uid=$(jq -r '.User | split(":")[0]' <<<"$config")
# Kubernetes' runAsNonRoot can only verify a numeric user.
[[ "$uid" =~ ^[0-9]+$ ]] && [ "$uid" -ne 0 ] || fail "the image's user '$uid' is not a numeric non-root uid"
chart_uid=$(sed -n 's/^ *runAsUser: *\([0-9]*\).*/\1/p' "$chart/values.yaml" | head -n 1)
[ "$uid" = "$chart_uid" ] || fail "the image runs as uid $uid, the chart as $chart_uid"
path_dirs=$(jq -r '.Env[] | select(startswith("PATH=")) | ltrimstr("PATH=")' <<<"$config" | tr ':' ' ')
cert_file=$(jq -r '.Env[] | select(startswith("SSL_CERT_FILE=")) | ltrimstr("SSL_CERT_FILE=")' <<<"$config")

# 4. What `./dev rootfs` lays out from this build, as its `stage` does.
if [ $# -gt 0 ]; then
  grep -q 'cmake --install "$1" --strip --component shipped --prefix "$2"' "$src/dev" ||
    fail "dev's stage no longer installs the component shipped, stripped"
  arch=$(dpkg --print-architecture)
  if ! out=$(cmake --install "$build_dir" --strip --component shipped --prefix "$tmp/stage" 2>&1); then
    fail "cmake --install of the component shipped failed: $out"
  elif ! out=$(python3 "$src/scripts/oci-image.py" rootfs "$tmp/root" --platform "$arch=$tmp/stage" 2>&1); then
    fail "scripts/oci-image.py rootfs failed: $out"
  else
    root=$tmp/root
    for binary in "$@"; do
      name=$(basename "$binary")
      found=
      for dir in $path_dirs; do [ -x "$root$dir/$name" ] && found=$root$dir/$name && break; done
      if [ -z "$found" ]; then
        fail "$name is on no directory of the image's PATH ($path_dirs)"
        continue
      fi
      if readelf -lW "$found" | grep -q 'program interpreter' || readelf -dW "$found" | grep -q '(NEEDED)'; then
        fail "$name is linked dynamically; the image has no library for it (GPULINT_STATIC)"
      fi
      [ "$("$found" --version 2>&1)" = "$("$binary" --version 2>&1)" ] ||
        fail "the image's $name is not the built one: $("$found" --version 2>&1)"
    done
    grep -q "^[^:]*:[^:]*:$uid:$uid:" "$root/etc/passwd" || fail "the image's /etc/passwd has no user $uid"
    grep -q "^[^:]*:[^:]*:$uid:" "$root/etc/group" || fail "the image's /etc/group has no group $uid"
    grep -q 'BEGIN CERTIFICATE' "$root$cert_file" 2>/dev/null || fail "SSL_CERT_FILE $cert_file is no CA bundle in the image"
    [ "$(stat -c %a "$root/tmp")" = 1777 ] || fail "the image's /tmp is not mode 1777"
    cmp -s "$root/usr/share/doc/gpulint/copyright" "$src/packaging/copyright" ||
      fail "the image's /usr/share/doc/gpulint/copyright is not packaging/copyright"
  fi
fi

# 5. The chart's containers: the webhook's entrypoint runs, its probes need
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
echo "Dockerfile: built by ./dev rootfs, FROM scratch, the config of ./dev image's, uid $uid${1:+, the built binaries static on its PATH}, fits the chart"
