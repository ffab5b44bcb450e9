#!/usr/bin/env bash
# shellcheck disable=SC2034  # the globals set here are read by tests/e2e's files
# The exported ValidatingAdmissionPolicies against gpulint check, on a real
# kube-apiserver (tests/vap/README.md): etcd and kube-apiserver 1.36 started
# as tests/e2e starts them (its cluster.sh: the same assets, certificates,
# processes and cleanup; no scheduler, controller manager or webhook), then
# run.py against that API server.
#
#   tests/vap/run.sh GPULINT DOCUMENTS [TESTDATA]
#
# GPULINT is build/gpulint, DOCUMENTS build/tests/gpulint_vap_documents,
# TESTDATA the directory of manifests (default testdata/).
#
# Environment: as tests/e2e/run.sh for the control plane (GPULINT_K8S_ASSETS,
# GPULINT_ETCD, GPULINT_E2E_KEEP=1, CI=true); the version is always 1.36.
# GPULINT_VAP_EMULATED_VERSION=1.35 runs the API server as the oldest release
# the policies are for.
# Exit status: 0 all agree, 1 a disagreement or a failure, 2 a usage error,
# 77 skipped (the control-plane binaries missing, not CI).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../e2e/lib.sh
source "$here/../e2e/lib.sh"
# shellcheck source=../e2e/cluster.sh
source "$here/../e2e/cluster.sh"
# What the messages of tests/e2e's files call this suite.
SUITE_NAME=vap
SUITE_NOT_RUN="the exported policies were not tried on an API server."

if (($# < 2 || $# > 3)); then
  echo "usage: tests/vap/run.sh GPULINT DOCUMENTS [TESTDATA]" >&2
  exit 2
fi
# The policies are for 1.35 and later (docs/export.md): the suite's 1.36.
GPULINT_K8S_VERSION=1.36
# No controller manager makes the default ServiceAccounts, which the
# ServiceAccount admission plugin would refuse every Pod sent without.
APISERVER_FLAGS=(--disable-admission-plugins=ServiceAccount)
if [[ -n ${GPULINT_VAP_EMULATED_VERSION:-} ]]; then
  APISERVER_FLAGS+=("--emulated-version=$GPULINT_VAP_EMULATED_VERSION")
fi

cluster_prepare --control-plane
control_plane_check "$here/run.py" --work "$E2E_TMP/vap" "$@"
