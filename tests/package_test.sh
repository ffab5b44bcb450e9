#!/usr/bin/env bash
# The packages, made by the real cpack from a finished build, and from the
# arm64 build (cmake/aarch64-linux-gnu.cmake) when --arm64 names it:
# - the Debian package, taken apart with dpkg-deb: named, versioned and of
#   the architecture project() and the build say, both binaries (and nothing
#   else) in /usr/bin, each with its man page, the default policy, the docs,
#   the licence (/usr/share/doc/gpulint/copyright: packaging/copyright) and
#   the SBOM; dependencies read off the binaries;
# - the tarball, taken apart with tar: gpulint-VERSION-linux-ARCH.tar.gz, its
#   .sha256 in sha256sum's format and right, exactly the binaries, man pages,
#   default policy, README.md, LICENSE, copyright and SBOM under a top
#   directory of the same name, each STATIC_BINARY linked static (no
#   interpreter, no shared library);
# - the SBOM (scripts/sbom.py), against what the links really used, read here
#   on its own: each archive member and object file the link maps name, its
#   package by dpkg -S and that package's version; the header-only libraries
#   by the headers the compiler read (its .d files); every package's source
#   among those packaging/copyright gives the licence of; the OpenSSL the
#   binary holds is the version the SBOM names.
# Each unpacked into a directory of its own: the binaries are stripped and run
# (arm64's under qemu-aarch64), gpulint lints with the packaged policy (the
# source's, byte for byte), and the man pages are of this version.
#
#   tests/package_test.sh [--arm64 DIR] BUILD_DIR SOURCE_DIR VERSION CPACK [STATIC_BINARY...]
#
# Exit status 77 (skipped) when cpack, dpkg-deb, dpkg-shlibdeps or help2man is
# missing, or when --arm64 names no arm64 build (after the native packages
# passed); a failure instead under CI=true (./dev installs them all, and
# ./dev package makes the arm64 build).
set -euo pipefail

arm64_dir=
if [ "${1:-}" = --arm64 ]; then
  arm64_dir=$2
  shift 2
fi
if [ $# -lt 4 ]; then
  echo "usage: $0 [--arm64 DIR] BUILD_DIR SOURCE_DIR VERSION CPACK [STATIC_BINARY...]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
version=$3
cpack=$4
shift 4
static_binaries=("$@")
skip() {
  [ "${CI:-}" = true ] && { echo "FAIL: $*" >&2; exit 1; }
  echo "SKIPPED: $*"
  exit 77
}
for tool in "$cpack" dpkg-deb dpkg-shlibdeps help2man; do
  command -v "$tool" >/dev/null 2>&1 ||
    skip "$tool is not installed (Debian packages cmake, dpkg-dev, help2man; ./dev installs them)"
done
no_arm64=
if [ -n "$arm64_dir" ]; then
  if [ -f "$arm64_dir/CPackConfig.cmake" ] && [ -x "$arm64_dir/webhook/gpulint-webhook" ] &&
    command -v qemu-aarch64 >/dev/null; then
    arm64_dir=$(cd "$arm64_dir" && pwd)
  else
    no_arm64="no arm64 build in $arm64_dir, or no qemu-aarch64 (./dev package makes the build, installs qemu-user)"
    [ "${CI:-}" != true ] || { echo "FAIL: $no_arm64" >&2; exit 1; }
    arm64_dir=
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# check_installed NAME PREFIX RUN...: the files of a package unpacked with
# PREFIX (its bin/ and share/) work where they land; RUN (none, or
# qemu-aarch64) runs them.
check_installed() {
  local name=$1 prefix=$2
  shift 2
  local run=("$@")
  local gpulint=$prefix/bin/gpulint findings rc webhook_help man upper page got
  got=$("${run[@]}" "$gpulint" --version 2>&1)
  [[ "$got" == "gpulint $version ("* ]] || fail "$name: gpulint --version: $got"
  cmp -s "$prefix/share/gpulint/default.yaml" "$src/policies/default.yaml" ||
    fail "$name: share/gpulint/default.yaml is not policies/default.yaml"
  cmp -s "$prefix/share/doc/gpulint/copyright" "$src/packaging/copyright" ||
    fail "$name: share/doc/gpulint/copyright is not packaging/copyright"
  set +e
  findings=$("${run[@]}" "$gpulint" check --policy "$prefix/share/gpulint/default.yaml" \
    "$src/testdata/rules/gpu-fractional/fail-half.yaml" 2>&1)
  rc=$?
  set -e
  [ $rc -eq 1 ] && grep -q '\[gpu-fractional\]' <<<"$findings" ||
    fail "$name: gpulint with the packaged policy (exit $rc): $findings"
  # Read whole first: grep -q stops at its match, and under pipefail the
  # webhook's SIGPIPE on the rest of its help would fail the pipe.
  webhook_help=$("${run[@]}" "$prefix/bin/gpulint-webhook" --help 2>&1)
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

# linked_packages BUILD_DIR: "package version" of each file the two links
# used, by their maps, one a line, sorted.
linked_packages() {
  local map
  for map in "$1/gpulint.map" "$1/webhook/gpulint-webhook.map"; do
    [ -s "$map" ] || { fail "no link map $map (cmake/shipped_binary.cmake)"; continue; }
    # An archive member taken ("/x/libyaml.a(api.o)" starting a line), or an
    # object file loaded ("LOAD /x/crti.o").
    sed -n -e 's/^\(\/[^ (]*\.a\)(.*/\1/p' -e 's/^LOAD \(\/[^ ]*\.o\)$/\1/p' "$map"
  done | sort -u | while read -r file; do
    file=$(realpath -m -s "$file")
    dpkg -S "$file" 2>/dev/null || dpkg -S "$(realpath "$file")" || echo "UNOWNED: $file"
  done | sed 's/: .*//; s/,.*//' | sort -u | while read -r package; do
    [[ "$package" == UNOWNED* ]] && { echo "$package"; continue; }
    echo "${package%%:*} $(dpkg-query -W -f '${Version}' "$package")"
  done | sort -u
}

# header_packages BUILD_DIR: the packages of the header-only libraries the
# compiler read for the shipped code (nlohmann/json, RapidJSON).
header_packages() {
  find "$1/CMakeFiles" -path '*gpulint_*.dir/*' -name '*.o.d' -print0 |
    xargs -0 cat | tr ' \\' '\n\n' | grep -E '^/usr/include/(nlohmann/json\.hpp|rapidjson/reader\.h)$' |
    sort -u | while read -r header; do
      package=$(dpkg -S "$header" | sed 's/: .*//')
      echo "${package%%:*} $(dpkg-query -W -f '${Version}' "$package")"
    done | sort -u
}

# check_sbom NAME BUILD_DIR SBOM: the SBOM lists what the links used.
check_sbom() {
  local name=$1 dir=$2 sbom=$3 listed linked headers sources source openssl
  if ! jq -e '.spdxVersion == "SPDX-2.3" and .dataLicense == "CC0-1.0"' "$sbom" >/dev/null 2>&1; then
    fail "$name: $sbom is not an SPDX 2.3 JSON document"
    return
  fi
  listed=$(jq -r '.packages[] | select(.supplier == "Organization: Debian") | .name + " " + .versionInfo' "$sbom" | sort)
  linked=$(linked_packages "$dir")
  headers=$(header_packages "$dir")
  [ -n "$headers" ] || fail "$name: no .d file shows nlohmann/json or RapidJSON read"
  [ "$listed" = "$(sort -u <<<"$linked"$'\n'"$headers")" ] ||
    fail "$name: the SBOM lists:"$'\n'"$listed"$'\n'"the links used (and the headers):"$'\n'"$linked"$'\n'"$headers"
  for required in 'libc6-dev(-arm64-cross)?' libssl-dev libyaml-dev libre2-dev; do
    grep -qE "^$required " <<<"$linked" || fail "$name: the links used no ${required%%(*}?"$'\n'"$linked"
  done
  # Every package's source has its licence in packaging/copyright's table.
  sources=$(jq -r '.packages[].sourceInfo // empty | split(" ")[3]' "$sbom" | sort -u)
  for source in $sources; do
    grep -qE "^ {3}$source " "$src/packaging/copyright" ||
      fail "$name: the SBOM's source package $source has no licence in packaging/copyright"
  done
  openssl=$(jq -r '.packages[] | select(.name | startswith("libssl-dev")) | .versionInfo' "$sbom" | sed 's/-.*//')
  # Its providers report OpenSSL's version as a string of its own.
  LC_ALL=C grep -aqP "\\x00${openssl//./\\.}\\x00" "$dir/gpulint" ||
    fail "$name: the binary holds no OpenSSL version string $openssl, which the SBOM names"
}

# check_arch NAME BUILD_DIR ARCH RUN...: cpack in BUILD_DIR, its two packages
# taken apart, and its SBOM.
check_arch() {
  local name=$1 dir=$2 arch=$3
  shift 3
  local run=("$@") out deb debs depends depends_packages expected listing actual
  local tarball_name tarball sum tar_listing top binary
  mkdir -p "$tmp/$arch"
  if ! out=$("$cpack" --config "$dir/CPackConfig.cmake" -B "$tmp/$arch/out" 2>&1); then
    fail "$name: cpack failed:"$'\n'"$out"
    return
  fi
  debs=("$tmp/$arch"/out/*.deb)
  if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    fail "$name: cpack made no single .deb:"$'\n'"$out"
    return
  fi
  deb=${debs[0]}
  [ "$(basename "$deb")" = "gpulint_${version}_$arch.deb" ] || fail "package file $(basename "$deb"), not gpulint_${version}_$arch.deb"

  # Control fields.
  [ "$(dpkg-deb -f "$deb" Package)" = gpulint ] || fail "$name: Package: $(dpkg-deb -f "$deb" Package)"
  [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "$name: Version: $(dpkg-deb -f "$deb" Version), project() says $version"
  [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "$name: Architecture: $(dpkg-deb -f "$deb" Architecture)"
  [ -n "$(dpkg-deb -f "$deb" Maintainer)" ] || fail "$name: no Maintainer"
  depends=$(dpkg-deb -f "$deb" Depends)
  # Read off the binaries by dpkg-shlibdeps: none when both are static, else a
  # few of the libraries they link, as it names their packages.
  depends_packages=$(tr ',' '\n' <<<"$depends" | awk '{print $1}')
  if [ ${#static_binaries[@]} -eq 2 ]; then
    [ -z "$depends" ] || fail "$name: both binaries are static, yet Depends: $depends"
  else
    for package in libc6 libstdc++6 libyaml-0-2 libre2-9 libssl3; do
      grep -qxF -- "$package" <<<"$depends_packages" || fail "$name: Depends lacks $package: $depends"
    done
  fi

  # Contents: exactly these files (directories aside).
  expected="./usr/bin/gpulint
./usr/bin/gpulint-webhook
./usr/bin/kubectl-gpulint
./usr/share/doc/gpulint/README.md
./usr/share/doc/gpulint/copyright
./usr/share/doc/gpulint/policy-reference.md
./usr/share/doc/gpulint/sbom.spdx.json
./usr/share/gpulint/default.yaml
./usr/share/man/man1/gpulint-webhook.1.gz
./usr/share/man/man1/gpulint.1.gz"
  listing=$(dpkg-deb -c "$deb")
  actual=$(grep -v '^d' <<<"$listing" | awk '{print $6}' | sort)
  # kubectl's plugin is a link to gpulint.
  grep -q ' \./usr/bin/kubectl-gpulint -> gpulint$' <<<"$listing" ||
    fail "$name: usr/bin/kubectl-gpulint is not a link to gpulint"
  [ "$actual" = "$expected" ] || fail "$name: the package holds:"$'\n'"$actual"$'\n'"expected:"$'\n'"$expected"
  dpkg-deb -x "$deb" "$tmp/$arch/root"
  check_installed "$name .deb" "$tmp/$arch/root/usr" "${run[@]}"

  # The SBOM, beside the packages and in them.
  tarball_name=gpulint-$version-linux-$arch
  if [ ! -f "$dir/$tarball_name.spdx.json" ]; then
    fail "$name: no SBOM $dir/$tarball_name.spdx.json"
  else
    cmp -s "$dir/$tarball_name.spdx.json" "$tmp/$arch/root/usr/share/doc/gpulint/sbom.spdx.json" ||
      fail "$name: the .deb's sbom.spdx.json is not $tarball_name.spdx.json"
    check_sbom "$name" "$dir" "$dir/$tarball_name.spdx.json"
  fi

  # The tarball and its checksum.
  tarball=$tmp/$arch/out/$tarball_name.tar.gz
  if [ ! -f "$tarball" ]; then
    fail "$name: cpack made no $tarball_name.tar.gz:"$'\n'"$out"
    return
  fi
  sum=$(cat "$tarball.sha256" 2>/dev/null || true)
  [[ "$sum" =~ ^[0-9a-f]{64}\ \ $tarball_name\.tar\.gz$ ]] ||
    fail "$tarball_name.tar.gz.sha256 is not one sha256sum line for it: '$sum'"
  (cd "$tmp/$arch/out" && sha256sum --quiet -c "$tarball_name.tar.gz.sha256") ||
    fail "$tarball_name.tar.gz does not match its .sha256"
  expected="$tarball_name/LICENSE
$tarball_name/README.md
$tarball_name/bin/gpulint
$tarball_name/bin/gpulint-webhook
$tarball_name/bin/kubectl-gpulint
$tarball_name/share/doc/gpulint/copyright
$tarball_name/share/doc/gpulint/sbom.spdx.json
$tarball_name/share/gpulint/default.yaml
$tarball_name/share/man/man1/gpulint-webhook.1.gz
$tarball_name/share/man/man1/gpulint.1.gz"
  tar_listing=$(tar -tvzf "$tarball")
  actual=$(grep -v '^d' <<<"$tar_listing" | awk '{print $6}' | sort)
  grep -q " $tarball_name/bin/kubectl-gpulint -> gpulint\$" <<<"$tar_listing" ||
    fail "bin/kubectl-gpulint in the tarball is not a link to gpulint"
  [ "$actual" = "$expected" ] || fail "the tarball holds:"$'\n'"$actual"$'\n'"expected:"$'\n'"$expected"
  mkdir "$tmp/$arch/tarball"
  tar -xzf "$tarball" -C "$tmp/$arch/tarball"
  top=$tmp/$arch/tarball/$tarball_name
  cmp -s "$top/README.md" "$src/README.md" || fail "the tarball's README.md is not the source's"
  cmp -s "$top/LICENSE" "$src/LICENSE" || fail "the tarball's LICENSE is not the source's"
  for binary in "${static_binaries[@]}"; do
    if readelf -lW "$top/bin/$binary" | grep -q 'program interpreter' ||
      readelf -dW "$top/bin/$binary" | grep -q '(NEEDED)'; then
      fail "the tarball's $binary is not static: $(file "$top/bin/$binary")"
    fi
  done
  check_installed "$name tarball" "$top" "${run[@]}"
  echo "package: $(basename "$deb") and $tarball_name.tar.gz (.sha256, .spdx.json): both binaries (${static_binaries[*]:-none} static), man pages, default policy, docs, licence; Depends: ${depends:-none}"
}

check_arch "$(dpkg --print-architecture)" "$build_dir" "$(dpkg --print-architecture)"
[ -z "$arm64_dir" ] || check_arch arm64 "$arm64_dir" arm64 qemu-aarch64

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
[ -z "$no_arm64" ] || skip "(in part) the native packages passed; $no_arm64"
