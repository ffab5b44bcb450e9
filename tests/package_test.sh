#!/usr/bin/env bash
# The packages, made by the real cpack from a finished build:
# - the Debian package, taken apart with dpkg-deb: named and versioned as
#   project() says, both binaries (and nothing else) in /usr/bin, each with its
#   man page, the default policy, the docs, dependencies read off the binaries;
# - the tarball, taken apart with tar: gpulint-VERSION-linux-ARCH.tar.gz, its
#   .sha256 in sha256sum's format and right, exactly the binaries, man pages,
#   default policy and README.md under a top directory of the same name, each
#   STATIC_BINARY linked static (no interpreter, no shared library).
# Each unpacked into a directory of its own: the binaries are stripped and run,
# gpulint lints with the packaged policy (the source's, byte for byte), and the
# man pages are of this version.
#
#   tests/package_test.sh BUILD_DIR SOURCE_DIR VERSION CPACK [STATIC_BINARY...]
#
# Exit status 77 (skipped) when cpack, dpkg-deb, dpkg-shlibdeps or help2man is
# missing, a failure instead under CI=true (./dev installs them all).
set -euo pipefail

if [ $# -lt 4 ]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR VERSION CPACK [STATIC_BINARY...]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
version=$3
cpack=$4
shift 4
static_binaries=("$@")
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

if ! out=$("$cpack" --config "$build_dir/CPackConfig.cmake" -B "$tmp/out" 2>&1); then
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
# Read off the binaries by dpkg-shlibdeps: none when both are static, else a
# few of the libraries they link, as it names their packages.
depends_packages=$(tr ',' '\n' <<<"$depends" | awk '{print $1}')
if [ ${#static_binaries[@]} -eq 2 ]; then
  [ -z "$depends" ] || fail "both binaries are static, yet Depends: $depends"
else
  for package in libc6 libstdc++6 libyaml-0-2 libre2-9 libssl3; do
    grep -qxF -- "$package" <<<"$depends_packages" || fail "Depends lacks $package: $depends"
  done
fi

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

# check_installed NAME PREFIX: the files of a package unpacked with PREFIX
# (its bin/ and share/) work where they land.
check_installed() {
  local name=$1 prefix=$2
  local gpulint=$prefix/bin/gpulint findings rc webhook_help man upper page
  [[ "$("$gpulint" --version 2>&1)" == "gpulint $version ("* ]] ||
    fail "$name: gpulint --version: $("$gpulint" --version 2>&1)"
  cmp -s "$prefix/share/gpulint/default.yaml" "$src/policies/default.yaml" ||
    fail "$name: share/gpulint/default.yaml is not policies/default.yaml"
  set +e
  findings=$("$gpulint" check --policy "$prefix/share/gpulint/default.yaml" \
    "$src/testdata/rules/gpu-fractional/fail-half.yaml" 2>&1)
  rc=$?
  set -e
  [ $rc -eq 1 ] && grep -q '\[gpu-fractional\]' <<<"$findings" ||
    fail "$name: gpulint with the packaged policy (exit $rc): $findings"
  # Read whole first: grep -q stops at its match, and under pipefail the
  # webhook's SIGPIPE on the rest of its help would fail the pipe.
  webhook_help=$("$prefix/bin/gpulint-webhook" --help 2>&1)
  grep -q -- '--listen' <<<"$webhook_help" || fail "$name: gpulint-webhook --help does not describe --listen"
  for page in gpulint gpulint-webhook; do
    if file "$prefix/bin/$page" 2>/dev/null | grep -q 'not stripped'; then fail "$name: $page is not stripped"; fi
    man=$(gzip -dc "$prefix/share/man/man1/$page.1.gz" 2>/dev/null || true)
    upper=$(tr '[:lower:]' '[:upper:]' <<<"$page")
    grep -qE "^\.TH \"?$upper\"? \"?1\"? .*\"$page $version\"" <<<"$man" ||
      fail "$name: $page.1 has no .TH for $upper, section 1, version $version"
  done
  grep -q 'gpulint check' <<<"$(gzip -dc "$prefix/share/man/man1/gpulint.1.gz")" ||
    fail "$name: gpulint.1 does not show the check command"
}

root=$tmp/root
dpkg-deb -x "$deb" "$root"
check_installed "the .deb" "$root/usr"

# The tarball and its checksum.
tarball_name=gpulint-$version-linux-$arch
tarball=$tmp/out/$tarball_name.tar.gz
if [ ! -f "$tarball" ]; then
  fail "cpack made no $tarball_name.tar.gz:"$'\n'"$out"
else
  sum=$(cat "$tarball.sha256" 2>/dev/null || true)
  [[ "$sum" =~ ^[0-9a-f]{64}\ \ $tarball_name\.tar\.gz$ ]] ||
    fail "$tarball_name.tar.gz.sha256 is not one sha256sum line for it: '$sum'"
  (cd "$tmp/out" && sha256sum --quiet -c "$tarball_name.tar.gz.sha256") ||
    fail "$tarball_name.tar.gz does not match its .sha256"
  expected="$tarball_name/README.md
$tarball_name/bin/gpulint
$tarball_name/bin/gpulint-webhook
$tarball_name/bin/kubectl-gpulint
$tarball_name/share/gpulint/default.yaml
$tarball_name/share/man/man1/gpulint-webhook.1.gz
$tarball_name/share/man/man1/gpulint.1.gz"
  tar_listing=$(tar -tvzf "$tarball")
  actual=$(grep -v '^d' <<<"$tar_listing" | awk '{print $6}' | sort)
  grep -q " $tarball_name/bin/kubectl-gpulint -> gpulint\$" <<<"$tar_listing" ||
    fail "bin/kubectl-gpulint in the tarball is not a link to gpulint"
  [ "$actual" = "$expected" ] || fail "the tarball holds:"$'\n'"$actual"$'\n'"expected:"$'\n'"$expected"
  mkdir "$tmp/tarball"
  tar -xzf "$tarball" -C "$tmp/tarball"
  top=$tmp/tarball/$tarball_name
  cmp -s "$top/README.md" "$src/README.md" || fail "the tarball's README.md is not the source's"
  for binary in "${static_binaries[@]}"; do
    if readelf -lW "$top/bin/$binary" | grep -q 'program interpreter' ||
      readelf -dW "$top/bin/$binary" | grep -q '(NEEDED)'; then
      fail "the tarball's $binary is not static: $(file "$top/bin/$binary")"
    fi
  done
  check_installed "the tarball" "$top"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "package: $(basename "$deb"): both binaries, man pages, default policy, docs; Depends: ${depends:-none}"
echo "package: $tarball_name.tar.gz and its .sha256: both binaries (${static_binaries[*]:-none} static), man pages, default policy, README.md"
