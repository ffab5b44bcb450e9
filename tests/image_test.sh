#!/usr/bin/env bash
# The container image `./dev image` makes with no container engine
# (scripts/oci-image.py), from this build (and the arm64 build, when given),
# read by standard tools as a registry client and a runtime would:
#   - made twice, from inputs touched in between and under another umask, it
#     is the same archive byte for byte: the same digest;
#   - skopeo reads it (oci-archive:): an index of linux/amd64 (and
#     linux/arm64), each image with the OCI annotations (version, revision,
#     licence, source) and the config every image has (`oci-image.py config`);
#   - umoci unpacks each platform's image into a runtime bundle: its root
#     filesystem holds exactly the expected files, the binaries and SBOM of
#     that platform's build; this machine's runtime config runs
#     gpulint-webhook as 65532 with the image's environment;
#   - in that root, and nothing else, as uid 65532 with only the image's
#     environment, the entrypoint serves HTTPS and answers an AdmissionReview
#     a real API server sent; the CA bundle SSL_CERT_FILE names is Debian's,
#     every certificate of it read by OpenSSL, and gpulint in the root loads
#     it (a server it does not sign is refused as unverified).
#
#   tests/image_test.sh [--arm64 DIR] SOURCE_DIR BUILD_DIR
#
# Exit status 1, never a skip, when skopeo or umoci is missing (./dev test
# installs them), or when it cannot enter the root. Without --arm64 the image
# is of this machine's platform alone. When --arm64 names no arm64 build
# (./dev package and ./dev image make it), the test does the rest, says so
# and ends in 77 (skipped, in part), a failure instead under CI=true.
set -euo pipefail

arm64_dir=
no_arm64=
if [ "${1:-}" = --arm64 ]; then
  if [ -f "$2/CMakeCache.txt" ] && [ -x "$2/webhook/gpulint-webhook" ]; then
    arm64_dir=$(cd "$2" && pwd)
  else
    no_arm64="no arm64 build in $2 (./dev package or ./dev image makes it)"
    [ "${CI:-}" != true ] || { echo "FAIL: $no_arm64" >&2; exit 1; }
  fi
  shift 2
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 [--arm64 DIR] SOURCE_DIR BUILD_DIR" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
for tool in skopeo umoci jq curl openssl python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (./dev test installs it)" >&2; exit 1; }
done
# shellcheck source=tests/shell_support.sh
. "$src/tests/shell_support.sh"
tmp=$(mktemp -d)
webhook_pid=
cleanup() {
  [ -z "$webhook_pid" ] || kill "$webhook_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

arch=$(dpkg --print-architecture)
version=$(sed -n 's/^project(gpulint VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
revision=0123456789abcdef0123456789abcdef01234567
source_url=https://git.example.com/gpulint
platforms=(--platform "$arch=$tmp/stage-$arch")
cmake --install "$build_dir" --strip --component shipped --prefix "$tmp/stage-$arch" >/dev/null
if [ -n "$arm64_dir" ]; then
  cmake --install "$arm64_dir" --strip --component shipped --prefix "$tmp/stage-arm64" >/dev/null
  platforms+=(--platform "arm64=$tmp/stage-arm64")
fi
make_image() {
  SOURCE_DATE_EPOCH=1767225600 python3 "$src/scripts/oci-image.py" archive -o "$1" \
    --version "$version" --revision "$revision" --source "$source_url" "${platforms[@]}"
}

# 1. Reproducible.
digest=$(make_image "$tmp/image.tar")
touch -d '2001-02-03 04:05' "$tmp"/stage-*/bin/* "$tmp"/stage-*/share/doc/gpulint/*
again=$(umask 077 && make_image "$tmp/again.tar")
[ "$digest" = "$again" ] || fail "the image's digest changed: $digest, then $again"
cmp -s "$tmp/image.tar" "$tmp/again.tar" || fail "the two archives differ"

# 2. As skopeo reads it.
image=oci-archive:$tmp/image.tar:$version
if ! index=$(skopeo inspect --raw "$image" 2>&1); then
  fail "skopeo inspect --raw: $index"
  index='{}'
fi
[ "$(jq -r .mediaType <<<"$index")" = application/vnd.oci.image.index.v1+json ] ||
  fail "the image is not an OCI image index: $index"
want_platforms=$(printf '%s\n' "linux/$arch" ${arm64_dir:+linux/arm64} | sort)
got_platforms=$(jq -r '.manifests[]?.platform | .os + "/" + .architecture' <<<"$index" | sort)
[ "$got_platforms" = "$want_platforms" ] || fail "the index's platforms: $got_platforms, not $want_platforms"
want_config=$(python3 "$src/scripts/oci-image.py" config | jq -S .)
for platform in $want_platforms; do
  a=${platform#linux/}
  if ! inspect=$(skopeo inspect --override-arch "$a" "$image" 2>&1); then
    fail "skopeo inspect ($a): $inspect"
    continue
  fi
  [ "$(jq -r .Architecture <<<"$inspect")" = "$a" ] || fail "$a: Architecture $(jq -r .Architecture <<<"$inspect")"
  for label in "version=$version" "revision=$revision" "licenses=Apache-2.0" "source=$source_url"; do
    [ "$(jq -r --arg k "org.opencontainers.image.${label%%=*}" '.Labels[$k]' <<<"$inspect")" = "${label#*=}" ] ||
      fail "$a: annotation org.opencontainers.image.${label%%=*} is not ${label#*=}: $(jq -c .Labels <<<"$inspect")"
  done
  config=$(skopeo inspect --override-arch "$a" --config "$image" | jq -S '.config | del(.Labels)')
  [ "$config" = "$want_config" ] || fail "$a: the config is"$'\n'"$config"$'\n'"not"$'\n'"$want_config"
  [ "$(jq '.Layers | length' <<<"$inspect")" = 2 ] || fail "$a: not two layers: $(jq -c .Layers <<<"$inspect")"
done

# 3. Unpacked by umoci as runtime bundles, one per platform: exactly the
# expected files, the binaries those staged for it. This machine's bundle is
# the one run below.
want_files="./etc/group
./etc/passwd
./etc/ssl/certs/ca-certificates.crt
./usr/local/bin/gpulint
./usr/local/bin/gpulint-webhook
./usr/share/doc/gpulint/copyright
./usr/share/doc/gpulint/sbom.spdx.json"
for platform in $want_platforms; do
  a=${platform#linux/}
  skopeo copy -q --override-arch "$a" "$image" "oci:$tmp/layout-$a:gpulint" >/dev/null ||
    { fail "skopeo copy of linux/$a to an OCI layout failed"; continue; }
  umoci unpack --image "$tmp/layout-$a:gpulint" "$tmp/bundle-$a" >"$tmp/umoci.log" 2>&1 ||
    { fail "umoci unpack of linux/$a: $(cat "$tmp/umoci.log")"; continue; }
  files=$(cd "$tmp/bundle-$a/rootfs" && find . -mindepth 1 \( -type f -o -type l \) | sort)
  [ "$files" = "$want_files" ] || fail "$a: the root filesystem holds:"$'\n'"$files"$'\n'"not:"$'\n'"$want_files"
  for b in gpulint gpulint-webhook; do
    cmp -s "$tmp/bundle-$a/rootfs/usr/local/bin/$b" "$tmp/stage-$a/bin/$b" || fail "$a: the image's $b is not the $a build's"
  done
  cmp -s "$tmp/bundle-$a/rootfs/usr/share/doc/gpulint/sbom.spdx.json" "$tmp/stage-$a/share/doc/gpulint/sbom.spdx.json" ||
    fail "$a: the image's SBOM is not the $a build's"
done
[ -d "$tmp/bundle-$arch/rootfs" ] || { echo "FAIL: no bundle of linux/$arch to run" >&2; exit 1; }
mv "$tmp/bundle-$arch" "$tmp/bundle"
root=$tmp/bundle/rootfs
[ "$(stat -c %a "$root/tmp")" = 1777 ] || fail "/tmp is not mode 1777"
cmp -s "$root/usr/share/doc/gpulint/copyright" "$src/packaging/copyright" || fail "the licence is not packaging/copyright"
spec=$tmp/bundle/config.json
[ "$(jq -c .process.args "$spec")" = '["gpulint-webhook"]' ] || fail "the runtime's args: $(jq -c .process.args "$spec")"
[ "$(jq -c '[.process.user.uid, .process.user.gid]' "$spec")" = '[65532,65532]' ] ||
  fail "the runtime's user: $(jq -c .process.user "$spec")"
for env in $(jq -r '.Env[]' <<<"$want_config"); do
  jq -e --arg e "$env" '.process.env | index($e)' "$spec" >/dev/null || fail "the runtime's env lacks $env"
done

# 4. The CA bundle: Debian's Mozilla certificates, each read by OpenSSL.
bundle=$root/etc/ssl/certs/ca-certificates.crt
want_certs=$(find /usr/share/ca-certificates/mozilla -name '*.crt' | wc -l)
got_certs=$(openssl crl2pkcs7 -nocrl -certfile "$bundle" 2>/dev/null | openssl pkcs7 -print_certs -noout 2>/dev/null |
  grep -c '^subject=' || true)
[ "$want_certs" -gt 100 ] && [ "$got_certs" = "$want_certs" ] ||
  fail "the CA bundle holds $got_certs certificates OpenSSL reads, ca-certificates $want_certs"

# 5. The entrypoint in the root, as uid 65532 with the image's environment.
self_signed "$root/tmp/key.pem" "$tmp/cert.pem"
cp "$tmp/cert.pem" "$root/tmp/cert.pem"
chmod 0644 "$root/tmp/key.pem" "$root/tmp/cert.pem"
mapfile -t image_env < <(jq -r '.Env[]' <<<"$want_config")
entrypoint=$(jq -r '.Entrypoint[0]' <<<"$want_config")
# By absolute path: env looks programs up on the image's PATH.
chroot_bin=$(command -v chroot || echo /usr/sbin/chroot)
if [ "$(id -u)" -eq 0 ]; then
  enter=("$chroot_bin" --userspec=65532:65532 "$root")
else
  enter=("$(command -v unshare)" -r "$chroot_bin" "$root")  # uid 0 in a namespace of its own: no other to become
fi
port=$(free_port)
env -i "${image_env[@]}" "${enter[@]}" "$entrypoint" --listen "127.0.0.1:$port" --cert /tmp/cert.pem \
  --key /tmp/key.pem --drain-seconds 0 2>"$tmp/webhook.log" &
webhook_pid=$!
url=https://127.0.0.1:$port
wait_ready "$url" "$tmp/cert.pem" $webhook_pid || fail "the image's webhook is not ready: $(cat "$tmp/webhook.log")"
answer=$(curl -sS --cacert "$tmp/cert.pem" -H 'Content-Type: application/json' \
  --data-binary "@$src/testdata/admission/16-pod-create-gpu-request-ne-limit-mutate-only.json" "$url/validate" 2>&1 || true)
grep -qF '"allowed":false' <<<"$answer" && grep -qF gpu-request-limit-mismatch <<<"$answer" ||
  fail "the image's webhook did not deny the review:"$'\n'"$answer"$'\n'"$(cat "$tmp/webhook.log")"
# gpulint in the root loads SSL_CERT_FILE's bundle: the webhook's certificate
# is in none of it, so the connection is refused as unverified, not for a
# bundle it cannot read.
printf '%s\n' 'apiVersion: v1' 'kind: Config' 'current-context: c' \
  "clusters: [{name: c, cluster: {server: \"$url\"}}]" 'users: [{name: u, user: {token: image-test-token}}]' \
  'contexts: [{name: c, context: {cluster: c, user: u}}]' >"$root/tmp/kubeconfig"
chmod 0644 "$root/tmp/kubeconfig"
audit=$(env -i "${image_env[@]}" "${enter[@]}" gpulint audit --kubeconfig /tmp/kubeconfig 2>&1 || true)
grep -qF "self-signed certificate" <<<"$audit" || fail "gpulint audit from the image:"$'\n'"$audit"
status=0
kill -TERM $webhook_pid 2>/dev/null || true
wait $webhook_pid || status=$?
webhook_pid=
[ $status -eq 0 ] || fail "the image's webhook exited $status after SIGTERM:"$'\n'"$(cat "$tmp/webhook.log")"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
if [ -n "$no_arm64" ]; then
  echo "SKIPPED (in part): the image of linux/$arch alone passed; $no_arm64"
  exit 77
fi
echo "image: $digest, the same twice; $(tr '\n' ' ' <<<"$want_platforms")read by skopeo, unpacked by umoci; the webhook served a review from its root as 65532"
