#!/usr/bin/env bash
# No Docker engine runs here, so the Dockerfile is held to what can be
# checked without one:
#   - both stages are debian:bookworm-slim;
#   - the build stage installs dev's packages and runs dev's build() commands;
#   - the binaries it installs are the ones the CMake build produces, at the
#     paths it produces them;
#   - the runtime stage installs the Debian package of every shared library
#     the built binaries need (readelf + dpkg, when they are given);
#   - it runs as a numeric non-root user, the chart's, with gpulint-webhook as
#     its entrypoint.
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

# The words apt-get installs in a stage.
apt_packages() {
  grep -o -- '--no-install-recommends [^&]*' <<<"$1" | sed 's/--no-install-recommends//' | tr ' ' '\n' |
    sed '/^$/d' | sort -u
}
# A RUN instruction's commands, split at &&, one per line.
run_commands() { grep '^RUN ' <<<"$1" | sed 's/^RUN //' | sed 's/ && /\n/g' | sed 's/^ *//; s/ *$//'; }

# 1. Base images.
froms=$(grep '^FROM ' <<<"$instructions" | awk '{print $2}')
[ "$(wc -l <<<"$froms")" = 2 ] || fail "expected a build and a runtime stage, found FROM: $froms"
while read -r image; do
  [ "$image" = debian:bookworm-slim ] || fail "stage on $image, not debian:bookworm-slim"
done <<<"$froms"

# 2. dev's packages in the build stage (less those the Dockerfile names as
# dev's test-only packages, in its comment).
dev_packages=$(sed -n '/^PACKAGES=(/,/)/p' "$src/dev" | sed 's/PACKAGES=(//; s/)//' | tr ' ' '\n' |
  sed '/^$/d' | sort -u)
[ -n "$dev_packages" ] || fail "no PACKAGES=(...) in dev"
test_only=$(sed -n "s/.*dev's test-only packages, not installed here:\(.*\)/\1/p" "$dockerfile" | tr ' ' '\n')
installed=$(apt_packages "$build_stage")
for p in $dev_packages; do
  grep -qx -- "$p" <<<"$installed" || grep -qx -- "$p" <<<"$test_only" ||
    fail "dev installs $p, the Dockerfile's build stage does not"
done

# 3. dev's build() commands, each one a command of the build stage's RUN.
# dev passes its extra arguments on ("$@"); the image build has none.
dev_build=$(sed -n '/^build() {/,/^}/p' "$src/dev" | sed '1d;$d' | sed 's/ "\$@"//; s/[[:space:]]\{1,\}/ /g; s/^ *//; s/ *$//')
[ -n "$dev_build" ] || fail "no build() function in dev"
commands=$(run_commands "$build_stage")
while IFS= read -r line; do
  grep -qxF -- "$line" <<<"$commands" || fail "dev's build() runs '$line', the Dockerfile does not"
done <<<"$dev_build"

# 4. The binaries installed from the build tree are CMake targets, at the
# paths the build puts them.
install_line=$(grep -F 'install ' <<<"$commands" | grep -F -- '/out/' || true)
[ -n "$install_line" ] || fail "the build stage installs no binary into /out"
for target in gpulint gpulint-webhook; do
  grep -rqE "add_executable\\($target[[:space:]]" "$src/CMakeLists.txt" "$src/webhook/CMakeLists.txt" ||
    fail "no CMake target $target"
  grep -qE "\"\\\$BUILD_DIR/([a-z]+/)?$target\"" <<<"$install_line" ||
    fail "the build stage does not install $target: $install_line"
done
for binary in "$@"; do
  rel=${binary#"$build_dir"/}
  grep -qF "\"\$BUILD_DIR/$rel\"" <<<"$install_line" ||
    fail "the build puts $(basename "$binary") at $rel; the Dockerfile installs: $install_line"
done

# 5. The runtime stage: its own packages, the build's /out, nothing else.
runtime_packages=$(apt_packages "$runtime_stage")
grep '^COPY ' <<<"$runtime_stage" | grep -vq -- '--from=build /out/ /' &&
  fail "the runtime stage copies more than the build's /out: $(grep '^COPY ' <<<"$runtime_stage")"
if command -v readelf >/dev/null && command -v ldd >/dev/null && command -v dpkg >/dev/null; then
  base="libc6 libgcc-s1 libstdc++6"  # in debian:bookworm-slim
  # "binary soname path" for each library a binary names (NEEDED), at the
  # path the loader picks.
  needed=$(for binary in "$@"; do
    libs=$(ldd "$binary")
    for soname in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      path=$(awk -v so="$soname" '$1 == so && $2 == "=>" {print $3}' <<<"$libs")
      echo "$(basename "$binary") $soname ${path:-?}"
    done
  done)
  # One dpkg query for all of them (it is slow); dpkg knows a file by the path
  # it shipped it at, /lib or /usr/lib.
  paths=$(awk '{print $3; sub("^/usr", "", $3); print $3; print "/usr" $3}' <<<"$needed" | sort -u)
  owners=$(dpkg -S $paths 2>/dev/null || true)
  while read -r binary soname path; do
    [ -n "$binary" ] || continue
    package=$(awk -F': ' -v a="$path" -v b="${path#/usr}" -v c="/usr$path" \
      '$2 == a || $2 == b || $2 == c {sub(":.*", "", $1); print $1; exit}' <<<"$owners")
    if [ -z "$package" ]; then
      fail "$soname (needed by $binary, at $path): no Debian package"
    elif ! grep -qx -- "$package" <<<"$runtime_packages" && [[ " $base " != *" $package "* ]]; then
      fail "$binary needs $soname from $package; the runtime stage does not install it"
    fi
  done <<<"$needed"
else
  echo "note: readelf, ldd or dpkg missing: the runtime libraries were not checked"
fi

# 6. User and entrypoint.
user=$(grep '^USER ' <<<"$runtime_stage" | tail -n 1 | awk '{print $2}')
uid=${user%%:*}
# Kubernetes' runAsNonRoot can only verify a numeric user.
[[ "$uid" =~ ^[0-9]+$ ]] && [ "$uid" -ne 0 ] || fail "runtime USER '$user' is not a numeric non-root uid"
chart_uid=$(sed -n 's/^ *runAsUser: *\([0-9]*\).*/\1/p' "$src/charts/gpulint-webhook/values.yaml" | head -n 1)
[ "$uid" = "$chart_uid" ] || fail "the image runs as uid $uid, the chart as $chart_uid"
entrypoint=$(grep '^ENTRYPOINT ' <<<"$runtime_stage" | tail -n 1)
[ "$entrypoint" = 'ENTRYPOINT ["gpulint-webhook"]' ] ||
  fail "runtime ENTRYPOINT is '$entrypoint', not [\"gpulint-webhook\"]"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "Dockerfile: dev's packages and build commands, CMake's binaries, their libraries, non-root uid $uid"
