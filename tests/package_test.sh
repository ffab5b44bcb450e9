#!/usr/bin/env bash
# The Debian package, made by the real cpack from a finished build and taken
# apart with dpkg-deb: named and versioned as project() says, both binaries
# (and nothing else) in /usr/bin, each with its man page, the default policy
# byte for byte, the docs, dependencies read off the binaries; unpacked into
# an empty root, its gpulint runs, and lints with the packaged policy.
#
#   tests/package_test.sh BUILD_DIR SOURCE_DIR VERSION [CPACK]
#
# Exit status 77 (skipped) when cpack, dpkg-deb, dpkg-shlibdeps or help2man is
# missing, a failure instead under CI=true (./dev installs them all).
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR VERSION [CPACK]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
version=$3
cpack=${4:-cpack}
for tool in "$cpack" dpkg-deb dpkg-shlibdeps help2man; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    [ "${CI:-}" = true ] && { echo "FAIL: $tool is not installed (./dev installs it)" >&2; exit 1; }
    echo "SKIPPED: $tool is not installed (Debian packages cmake, dpkg-dev, help2man; ./dev installs them)"
    exit 77
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

if ! out=$("$cpack" --config "$build_dir/CPackConfig.cmake" -G DEB -B "$tmp/out" 2>&1); then
  echo "FAIL: cpack failed:"$'\n'"$out" >&2
  exit 1
fi
debs=("$tmp"/out/*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || { echo "FAIL: cpack made no single .deb:"$'\n'"$out" >&2; exit 1; }
deb=${debs[0]}
arch=$(dpkg --print-architecture)
[ "$(basename "$deb")" = "gpulint_${version}_$arch.deb" ] || fail "package file $(basename "$deb"), not gpulint_${version}_$arch.deb"

# Control fields.
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = gpulint ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), project() says $version"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
depends=$(field Depends)
# A few of the libraries the binaries link, as dpkg-shlibdeps names their packages.
depends_packages=$(tr ',' '\n' <<<"$depends" | awk '{print $1}')
for package in libc6 libstdc++6 libyaml-0-2 libre2-9 libssl3; do
  grep -qxF -- "$package" <<<"$depends_packages" || fail "Depends lacks $package: $depends"
done

# Contents: exactly these files (directories aside).
expected="./usr/bin/gpulint
./usr/bin/gpulint-webhook
./usr/bin/kubectl-gpulint
./usr/share/doc/gpulint/README.md
./usr/share/doc/gpulint/policy-reference.md
./usr/share/gpulint/default.yaml
./usr/share/man/man1/gpulint-webhook.1.gz
./usr/share/man/man1/gpulint.1.gz"
listing=$(dpkg-deb -c "$deb")
actual=$(grep -v '^d' <<<"$listing" | awk '{print $6}' | sort)
# kubectl's plugin is a link to gpulint.
grep -q ' \./usr/bin/kubectl-gpulint -> gpulint$' <<<"$listing" ||
  fail "usr/bin/kubectl-gpulint is not a link to gpulint"
[ "$actual" = "$expected" ] || fail "the package holds:"$'\n'"$actual"$'\n'"expected:"$'\n'"$expected"

# Unpacked into an empty root: the files work where they land.
root=$tmp/root
dpkg-deb -x "$deb" "$root"
gpulint=$root/usr/bin/gpulint
[ "$("$gpulint" --version 2>&1)" = "gpulint $version" ] ||
  fail "packaged gpulint --version: $("$gpulint" --version 2>&1)"
cmp -s "$root/usr/share/gpulint/default.yaml" "$src/policies/default.yaml" ||
  fail "usr/share/gpulint/default.yaml is not policies/default.yaml"
set +e
findings=$("$gpulint" check --policy "$root/usr/share/gpulint/default.yaml" \
  "$src/testdata/rules/gpu-fractional/fail-half.yaml" 2>&1)
rc=$?
set -e
[ $rc -eq 1 ] && grep -q '\[gpu-fractional\]' <<<"$findings" ||
  fail "packaged gpulint with the packaged policy (exit $rc): $findings"
# Read whole first: grep -q stops at its match, and under pipefail the
# webhook's SIGPIPE on the rest of its help would fail the pipe.
webhook_help=$("$root/usr/bin/gpulint-webhook" --help 2>&1)
grep -q -- '--listen' <<<"$webhook_help" ||
  fail "packaged gpulint-webhook --help does not describe --listen"
if file "$gpulint" 2>/dev/null | grep -q 'not stripped'; then fail "gpulint is not stripped"; fi
for page in gpulint gpulint-webhook; do
  man=$(gzip -dc "$root/usr/share/man/man1/$page.1.gz" 2>/dev/null || true)
  upper=$(tr '[:lower:]' '[:upper:]' <<<"$page")
  grep -qE "^\.TH \"?$upper\"? \"?1\"? .*\"$page $version\"" <<<"$man" ||
    fail "$page.1 has no .TH for $upper, section 1, version $version"
done
grep -q 'gpulint check' <<<"$(gzip -dc "$root/usr/share/man/man1/gpulint.1.gz")" ||
  fail "gpulint.1 does not show the check command"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "package: $(basename "$deb"): both binaries, man pages, default policy, docs; Depends: $depends"
