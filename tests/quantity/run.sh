#!/usr/bin/env bash
# shellcheck disable=SC2034  # the globals set here are read by tests/e2e's files
# gpulint quantity against a real kube-apiserver (tests/quantity/README.md):
# etcd and kube-apiserver 1.36 started as tests/e2e starts them (its
# cluster.sh), then probe.py sends every string of
# testdata/quantity/apiserver.json as a container's memory request through
# server-side dry-run and holds the API server's answer, gpulint quantity's
# and the file to each other.
#
#   tests/quantity/run.sh GPULINT [--write]
#
# --write records what the API server answered in the file instead of
# comparing with it. Environment as tests/vap/run.sh. Exit status: 0 all
# agree, 1 a disagreement or a failure, 2 a usage error, 77 skipped (the
# control-plane binaries missing, not CI).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source=../e2e/cluster.sh
source "$here/../e2e/cluster.sh"
SUITE_NAME=quantity-apiserver
SUITE_NOT_RUN="gpulint quantity was not held to an API server."

if (($# < 1 || $# > 2)); then
  echo "usage: tests/quantity/run.sh GPULINT [--write]" >&2
  exit 2
fi
GPULINT_K8S_VERSION=1.36
# No controller manager makes the default ServiceAccounts, which the
# ServiceAccount admission plugin would refuse every Pod sent without.
# A request timeout of 10 s, not the default minute: the few exponents whose
# arithmetic outlasts it (gpulint quantity says so) come back sooner.
APISERVER_FLAGS=(--disable-admission-plugins=ServiceAccount --request-timeout=10s)

cluster_prepare --control-plane
control_plane_check "$here/probe.py" --table "$ROOT/testdata/quantity/apiserver.json" "$@"
