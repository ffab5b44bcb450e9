#!/usr/bin/env bash
# gpulint-webhook in front of a real Kubernetes control plane (etcd,
# kube-apiserver, kube-scheduler, kube-controller-manager) on loopback, with
# hollow GPU nodes: what kubectl prints and what the scheduler decides, for
# the incidents of docs/incidents.md, on Kubernetes 1.28 and 1.36.
# tests/e2e/README.md has the details.
#
#   tests/e2e/run.sh [--k8s VERSION] [SCENARIO...]
#
# VERSION is 1.28 or 1.36 (or GPULINT_K8S_VERSION); without one, the suite
# runs on each version in turn. A scenario is its letter (a..u; m..p and t need
# 1.36); the default is every scenario the version runs.
#
# Environment: GPULINT_K8S_ASSETS (control-plane binaries, one directory per
# version separated by colons; default ../shared/k8s/v1.28.7 and
# ../shared/k8s/v1.36.2 beside the repository), GPULINT_WEBHOOK (default
# build/webhook/gpulint-webhook), GPULINT_BINARY (build/gpulint),
# GPULINT_KUBECTL (one kubectl, or one per version separated by colons),
# GPULINT_HELM, GPULINT_ETCD, GPULINT_E2E_CHART (another copy of
# charts/gpulint-webhook), GPULINT_E2E_KEEP=1 (keep the temporary directory
# with every log), CI=true (missing assets fail instead of skipping).
# Exit status: 0 all passed, 1 a failure, 77 skipped (assets missing, not CI).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=cluster.sh
source "$here/cluster.sh"
SCENARIO=e2e

if [[ ${1:-} == --k8s ]]; then
  [[ -n ${2:-} ]] || { echo "run.sh: --k8s needs a version (${K8S_VERSIONS[*]})" >&2; exit 2; }
  export GPULINT_K8S_VERSION=$2
  shift 2
fi
# No version given: each in turn, each a run of its own. The worst result
# wins: a failure, then a skip.
if [[ -z ${GPULINT_K8S_VERSION:-} ]]; then
  worst=0
  for v in "${K8S_VERSIONS[@]}"; do
    rc=0
    GPULINT_K8S_VERSION=$v "$0" "$@" || rc=$?
    if ((rc != 0 && rc != 77)); then worst=1; elif ((rc == 77 && worst == 0)); then worst=77; fi
  done
  exit "$worst"
fi

# Scenario letter -> script [argument]; g runs twice, around an API server
# restart that enables ExtendedResourceToleration (last, so the other
# scenarios run against the default admission plugins).
declare -A SCRIPTS=(
  [a]="a_clean_deployment.sh"
  [b]="b_gib_vs_gb.sh"
  [c]="c_vram.sh"
  [d]="d_driver_memory.sh"
  [e]="e_mps_replicas.sh"
  [f]="f_hidden_gpus.sh"
  [g-without]="g_extended_resource_toleration.sh without"
  [g-with]="g_extended_resource_toleration.sh with"
  [h]="h_rollout.sh"
  [i]="i_node_agents.sh"
  [j]="j_broken_policy.sh"
  [k]="k_modes.sh"
  [l]="l_fit.sh"
  [m]="m_pod_level_resources.sh"
  [n]="n_resize.sh"
  [o]="o_dra.sh"
  [p]="p_sidecars.sh"
  [q]="q_audit.sh"
  [r]="r_least_privilege.sh"
  [s]="s_real_card.sh"
  [t]="t_dra_extended_resources.sh"
  [u]="u_ratchet.sh"
)
ORDER=(a b c d e f h i j k l m n o p q r s t u g-without g-with)
# What only newer servers can show: the first minor version each scenario
# runs on (pod-level resources and their resize, DRA resource.k8s.io/v1 with
# extended resources, and native sidecars are all on by default in 1.36;
# none of them is in 1.28).
declare -A SINCE=([m]=36 [n]=36 [o]=36 [p]=36 [t]=36)
# Scenarios that need longer than SCENARIO_SECONDS: l creates its pods one at a time.
declare -A SCENARIO_LIMIT=([l]=240)

# Before scenario j: the chart installed with a policy the webhook refuses (a
# node class with GPU replicas but no sharing, a rule its values schema cannot
# express), and the webhook started again, so that no valid policy has loaded.
break_policy() {
  "$HELM" template gpulint-webhook "$CHART" --namespace gpulint \
      --set-json 'policy.spec={"nodeClasses":[{"name":"t4-shared","gpu":{"count":1,"replicas":4}}]}' |
    k create --dry-run=client -o json -f - |
    jq -rs '.[] | if .kind == "List" then .items[] else . end
      | select(.kind == "ConfigMap" and (.data["policy.yaml"] // "") != "") | .data["policy.yaml"]' \
      >"$POLICY_FILE.new"
  mv -f "$POLICY_FILE.new" "$POLICY_FILE"
  restart_webhook
}
declare -A BEFORE=([j]=break_policy)
SCENARIO_SECONDS=${GPULINT_E2E_SCENARIO_SECONDS:-90}

K8S_MINOR=${GPULINT_K8S_VERSION#1.}
selected=()
if (($#)); then
  for want in "$@"; do
    case $want in
      g) selected+=(g-without g-with) ;;
      *) [[ -n ${SCRIPTS[$want]:-} ]] || { echo "run.sh: no scenario '$want' (a..u)" >&2; exit 2; }
         [[ $K8S_MINOR =~ ^[0-9]+$ ]] && ((K8S_MINOR < ${SINCE[$want]:-0})) &&
           { echo "run.sh: scenario $want needs Kubernetes 1.${SINCE[$want]} or later, not $GPULINT_K8S_VERSION" >&2; exit 2; }
         selected+=("$want") ;;
    esac
  done
else
  for s in "${ORDER[@]}"; do
    [[ $K8S_MINOR =~ ^[0-9]+$ ]] && ((K8S_MINOR < ${SINCE[$s]:-0})) && continue
    selected+=("$s")
  done
fi

start=$SECONDS
# The API server authenticates to the webhook with a client certificate, the
# chart's clientCA set (cluster.sh, webhook_client_auth): every scenario's
# call goes through it.
E2E_CLIENT_AUTH=1
cluster_prepare
failed=()
scenario_pid=
finish() {
  local rc=$?
  [[ -n $scenario_pid ]] && kill -TERM "$scenario_pid" 2>/dev/null && wait "$scenario_pid" 2>/dev/null
  cluster_cleanup "$rc"
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "e2e: $K8S_VERSION from $K8S_BIN, etcd $("$ETCD" --version | sed -n 's/^etcd Version: //p'), kubectl $KUBECTL"
cluster_up
echo "e2e: control plane up ($((SECONDS - start)) s)"
make_incident_nodes
install_webhook
wait_inventory
echo "e2e: gpulint-webhook installed from the chart on port $WEBHOOK_PORT ($((SECONDS - start)) s)"

export KUBECTL KUBECONFIG E2E_TMP K8S_MINOR WEBHOOK_LOG WEBHOOK_PORT WEBHOOK_CMDLINE POLICY_FILE REGISTRATION_FILE HELM GPULINT CHART HELM_CAPABILITIES
cp "$POLICY_FILE" "$E2E_TMP/policy.default.yaml"
export DEFAULT_POLICY=$E2E_TMP/policy.default.yaml

apiserver_plugins=""
for s in "${selected[@]}"; do
  if [[ $s == g-with && -z $apiserver_plugins ]]; then
    apiserver_plugins=ExtendedResourceToleration
    t=$SECONDS
    restart_apiserver "$apiserver_plugins"
    wait_webhook_active
    echo "e2e: kube-apiserver restarted with --enable-admission-plugins=$apiserver_plugins ($((SECONDS - t)) s)"
  fi
  read -r script arg <<<"${SCRIPTS[$s]}"
  echo "=== scenario $s: ${script%.sh}${arg:+ $arg}"
  [[ -n ${BEFORE[$s]:-} ]] && "${BEFORE[$s]}"
  t=$SECONDS
  rc=0
  limit=${SCENARIO_LIMIT[$s]:-$SCENARIO_SECONDS}
  SCENARIO="$s" setpriv --pdeathsig TERM -- timeout -k 5 "$limit" \
    bash "$here/scenarios/$script" ${arg:+"$arg"} &
  scenario_pid=$!
  wait "$scenario_pid" || rc=$?
  scenario_pid=
  ((rc == 124 || rc == 137)) && echo "FAIL [$s]: did not finish within $limit s"
  if ((rc == 0)); then
    echo "PASS [$s] ($((SECONDS - t)) s)"
  else
    failed+=("$s")
    echo "  ($((SECONDS - t)) s)"
  fi
  daemon_alive webhook || { failed+=("webhook-died"); die_with_log "gpulint-webhook died during scenario $s" webhook; }
  # A scenario that changed the policy and was stopped before it put it back.
  if ! cmp -s "$DEFAULT_POLICY" "$POLICY_FILE"; then
    echo "e2e: scenario $s left its policy behind: the default one is put back"
    cp "$DEFAULT_POLICY" "$POLICY_FILE.new" && mv -f "$POLICY_FILE.new" "$POLICY_FILE"
    sleep 2  # the webhook polls its files every second
  fi
done

echo "e2e: $((${#selected[@]} - ${#failed[@]})) of ${#selected[@]} scenarios passed on $K8S_VERSION in $((SECONDS - start)) s${failed:+; failed: ${failed[*]}}"
((${#failed[@]} == 0))
