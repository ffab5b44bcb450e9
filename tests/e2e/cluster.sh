# shellcheck shell=bash
# shellcheck disable=SC2034  # globals set here are read by run.sh and exported to the scenarios
# Sourced by run.sh (and tests/vap/run.sh, for etcd and kube-apiserver alone):
# the tools and control-plane binaries, certificates made by openssl, etcd +
# kube-apiserver + kube-scheduler + kube-controller-manager on free loopback
# ports, the webhook installed from the rendered chart, and hollow GPU nodes.
# Every process started here is recorded and stopped by cluster_down (run.sh's
# EXIT trap); each is also started with a parent-death signal, so none
# outlives run.sh even when run.sh itself is killed.

# The tools and control-plane assets: tests/e2e/assets.sh.
source "$(dirname "${BASH_SOURCE[0]}")/assets.sh"

# ---- a run ---------------------------------------------------------------------

# cluster_prepare [--control-plane]: what a run needs before its cluster
# starts (run.sh, bench/admission_latency.sh, tests/vap/run.sh): no proxy
# between loopback ports, the Kubernetes version (GPULINT_K8S_VERSION, default
# the oldest of K8S_VERSIONS) with its binaries, the tools checked, and a
# fresh temporary directory E2E_TMP that holds the admin KUBECONFIG. Without
# --control-plane, also the binaries under test (WEBHOOK, GPULINT, CHART),
# helm and a kubectl for the version; with it, only what control_plane_up
# needs.
cluster_prepare() {
  local webhook=true
  [[ ${1:-} == --control-plane ]] && webhook=false
  unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
  K8S_WANT=${GPULINT_K8S_VERSION:-${K8S_VERSIONS[0]}}
  [[ " ${K8S_VERSIONS[*]} " == *" $K8S_WANT "* ]] ||
    missing_tool "GPULINT_K8S_VERSION=$K8S_WANT: the suite runs Kubernetes ${K8S_VERSIONS[*]}"
  K8S_MINOR=${K8S_WANT#1.}
  check_tools
  if $webhook; then
    WEBHOOK=${GPULINT_WEBHOOK:-$ROOT/build/webhook/gpulint-webhook}
    GPULINT=${GPULINT_BINARY:-$ROOT/build/gpulint}
    CHART=${GPULINT_E2E_CHART:-$ROOT/charts/gpulint-webhook}
    E2E_CHART_VALUES=(--set mode=deny)
    check_webhook_tools
  fi
  prepare_assets
  if $webhook; then find_kubectl; fi
  remove_stale_dirs
  E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e.XXXXXX")
  echo $$ >"$E2E_TMP/owner.pid"
  export KUBECONFIG=$E2E_TMP/admin.kubeconfig
}

# cluster_cleanup RC: every process of the run stopped, its etcd data and
# temporary directory removed (kept, and said so, with GPULINT_E2E_KEEP=1).
cluster_cleanup() {
  cluster_down
  [[ -n ${ETCD_DATA:-} ]] && rm -rf "$ETCD_DATA"
  if [[ ${GPULINT_E2E_KEEP:-} == 1 ]]; then
    echo "$SUITE_NAME: logs and certificates kept in $E2E_TMP"
  else
    (($1 == 0)) || echo "$SUITE_NAME: rerun with GPULINT_E2E_KEEP=1 to keep every log (kube-apiserver, webhook, ...)"
    rm -rf "$E2E_TMP"
  fi
}

# ---- processes ---------------------------------------------------------------

declare -A DAEMON_PID=()

# start_daemon NAME CMD...: CMD in the background, its output in logs/NAME.log;
# SIGKILLed when this shell dies, whatever kills it.
start_daemon() {
  local name=$1; shift
  # Made here, not by the background child's redirection: a caller that reads
  # the log at once (install_webhook's wait for "listening") must find it.
  : >>"$E2E_TMP/logs/$name.log"
  setpriv --pdeathsig KILL -- "$@" </dev/null >>"$E2E_TMP/logs/$name.log" 2>&1 &
  DAEMON_PID[$name]=$!
}

stop_daemon() {
  local name=$1 pid=${DAEMON_PID[$1]:-}
  [[ -n $pid ]] || return 0
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset "DAEMON_PID[$name]"
}

daemon_alive() { [[ -n ${DAEMON_PID[$1]:-} ]] && kill -0 "${DAEMON_PID[$1]}" 2>/dev/null; }

cluster_down() {
  local name
  for name in webhook kube-controller-manager kube-scheduler kube-apiserver etcd; do
    stop_daemon "$name"
  done
  for name in "${!DAEMON_PID[@]}"; do stop_daemon "$name"; done
}

# The temporary and etcd directories of runs killed with SIGKILL (their EXIT
# trap never ran): each holds its run's owner.pid; a dead owner's go.
remove_stale_dirs() {
  local d pid
  for d in "${TMPDIR:-/tmp}"/gpulint-e2e.* "${E2E_ETCD_PARENT:-/dev/shm}"/gpulint-e2e-etcd.*; do
    [[ -f $d/owner.pid ]] || continue
    pid=$(cat "$d/owner.pid" 2>/dev/null) || continue
    [[ $pid =~ ^[0-9]+$ ]] && ! kill -0 "$pid" 2>/dev/null && rm -rf "$d"
  done
  return 0
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---- certificates ------------------------------------------------------------

# leaf NAME SUBJECT server|client [SUBJECT-ALT-NAMES]: pki/NAME.crt and
# pki/NAME.key, signed by the CA. Each component's is made where it starts, so
# that a control plane alone (tests/vap) makes no more than it needs.
leaf() {
  local d=$E2E_TMP/pki
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "$2" \
    -keyout "$d/$1.key" -out "$d/$1.csr" 2>/dev/null
  printf 'extendedKeyUsage=%sAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n%s\n' \
    "$3" "${4:+subjectAltName=$4}" >"$d/$1.ext"
  openssl x509 -req -in "$d/$1.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
    -set_serial "0x$(openssl rand -hex 8)" -days 2 -extfile "$d/$1.ext" -out "$d/$1.crt" 2>/dev/null
}

# make_certs: the CA, the API server's serving certificate, the admin's client
# certificate and the service-account key.
make_certs() {
  local d=$E2E_TMP/pki
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=gpulint-e2e-ca" -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
  leaf apiserver /CN=kube-apiserver server \
    IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc
  leaf admin "/O=system:masters/CN=gpulint-e2e-admin" client
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$d/sa.key" 2>/dev/null
  openssl pkey -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
}

# kubeconfig FILE USER-YAML: a kubeconfig for the API server with that user.
kubeconfig() {
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "https://127.0.0.1:$APISERVER_PORT", certificate-authority: "$E2E_TMP/pki/ca.crt"}
users:
- name: e2e
  user: $2
contexts:
- name: e2e
  context: {cluster: e2e, user: e2e}
current-context: e2e
EOF
}

client_cert_user() { echo "{client-certificate: \"$E2E_TMP/pki/$1.crt\", client-key: \"$E2E_TMP/pki/$1.key\"}"; }

# ---- the control plane ---------------------------------------------------------

die_with_log() {  # die_with_log MESSAGE LOG...
  echo "FAIL $SUITE_NAME: $1" >&2
  shift
  local log
  for log in "$@"; do
    echo "  --- last lines of $log:" >&2
    tail -n 25 "$E2E_TMP/logs/$log.log" 2>/dev/null | cut -c1-400 | sed 's/^/  /' >&2
  done
  exit 1
}

start_etcd() {
  ETCD_PORT=$(free_port)
  local peer
  peer=$(free_port)
  # etcd fsyncs every write: on tmpfs that costs nothing.
  ETCD_DATA=$(mktemp -d "${E2E_ETCD_PARENT:-/dev/shm}/gpulint-e2e-etcd.XXXXXX" 2>/dev/null) ||
    ETCD_DATA=$(mktemp -d "$E2E_TMP/etcd.XXXXXX")
  echo $$ >"$ETCD_DATA/owner.pid"
  start_daemon etcd "$ETCD" --name e2e --data-dir "$ETCD_DATA/data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
    --initial-cluster "e2e=http://127.0.0.1:$peer" --log-level warn
  wait_for 20 "etcd health" curl -sf --max-time 1 "http://127.0.0.1:$ETCD_PORT/health" ||
    die_with_log "etcd did not become healthy within 20 s" etcd
}

# Flags added to kube-apiserver's on every start (tests/vap's).
APISERVER_FLAGS=()

# start_apiserver [EXTRA-ADMISSION-PLUGINS]: the API server on APISERVER_PORT
# (picked on the first start, kept on restarts so every kubeconfig still
# works), against the same etcd.
start_apiserver() {
  local plugins=${1:-}
  APISERVER_PORT=${APISERVER_PORT:-$(free_port)}
  local d=$E2E_TMP/pki args=("${APISERVER_FLAGS[@]}")
  [[ -n $plugins ]] && args+=("--enable-admission-plugins=$plugins")
  mkdir -p "$E2E_TMP/apiserver"
  echo "=== kube-apiserver start ${plugins:+(--enable-admission-plugins=$plugins)}" >>"$E2E_TMP/logs/kube-apiserver.log"
  start_daemon kube-apiserver "$K8S_BIN/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$APISERVER_PORT" --cert-dir="$E2E_TMP/apiserver" \
    --tls-cert-file="$d/apiserver.crt" --tls-private-key-file="$d/apiserver.key" \
    --client-ca-file="$d/ca.crt" \
    --service-account-key-file="$d/sa.pub" --service-account-signing-key-file="$d/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=Node,RBAC --allow-privileged=true \
    --profiling=false --enable-priority-and-fairness=false --endpoint-reconciler-type=none "${args[@]}"
  # /readyz needs a credential: the admin client certificate.
  wait_for 60 "kube-apiserver /readyz" curl -sf --max-time 2 --cacert "$d/ca.crt" \
    --cert "$d/admin.crt" --key "$d/admin.key" "https://127.0.0.1:$APISERVER_PORT/readyz" ||
    die_with_log "kube-apiserver was not ready within 60 s" kube-apiserver
}

restart_apiserver() {
  stop_daemon kube-apiserver
  start_apiserver "$@"
}

start_scheduler() {
  leaf scheduler /CN=system:kube-scheduler client
  kubeconfig "$E2E_TMP/scheduler.kubeconfig" "$(client_cert_user scheduler)"
  start_daemon kube-scheduler "$K8S_BIN/kube-scheduler" --kubeconfig="$E2E_TMP/scheduler.kubeconfig" \
    --secure-port=0 --leader-elect=false --profiling=false
}

start_controller_manager() {
  local d=$E2E_TMP/pki
  leaf controller-manager /CN=system:kube-controller-manager client
  kubeconfig "$E2E_TMP/controller-manager.kubeconfig" "$(client_cert_user controller-manager)"
  start_daemon kube-controller-manager "$K8S_BIN/kube-controller-manager" \
    --kubeconfig="$E2E_TMP/controller-manager.kubeconfig" --secure-port=0 --leader-elect=false \
    --profiling=false \
    --controllers='*,-nodelifecycle,-nodeipam,-cloud-node-lifecycle,-service,-route,-persistentvolume-binder,-attachdetach' \
    --service-account-private-key-file="$d/sa.key" --root-ca-file="$d/ca.crt" \
    --cluster-signing-cert-file="$d/ca.crt" --cluster-signing-key-file="$d/ca.key" \
    --use-service-account-credentials=true
}

# control_plane_up: certificates, etcd and kube-apiserver, and the admin
# KUBECONFIG; all tests/vap needs. With E2E_CLIENT_AUTH=1 (run.sh), the API
# server authenticates to the webhook with a client certificate
# (webhook_client_auth).
control_plane_up() {
  mkdir -p "$E2E_TMP/logs" "$E2E_TMP/apiserver"
  make_certs
  if [[ ${E2E_CLIENT_AUTH:-} == 1 ]]; then webhook_client_auth; fi
  start_etcd
  APISERVER_PORT=$(free_port)
  kubeconfig "$KUBECONFIG" "$(client_cert_user admin)"
  start_apiserver
}

# control_plane_check SCRIPT ARG...: etcd and kube-apiserver up (after
# cluster_prepare --control-plane), then python3 SCRIPT --server URL --ca CA
# --cert CERT --key KEY ARG... as the cluster admin, in the background so that
# a signal to the caller ends it at once; every process stopped and cleaned
# up after. Exits with the script's status (tests/vap, tests/quantity).
control_plane_check() {
  local script=$1 start=$SECONDS
  shift
  CHECKER=
  trap control_plane_finish EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  control_plane_up
  echo "$SUITE_NAME: $K8S_VERSION from $K8S_BIN up in $((SECONDS - start)) s (${APISERVER_FLAGS[*]})"
  # No __pycache__ left in the source tree.
  PYTHONDONTWRITEBYTECODE=1 setpriv --pdeathsig TERM -- python3 "$script" \
    --server "https://127.0.0.1:$APISERVER_PORT" --ca "$E2E_TMP/pki/ca.crt" \
    --cert "$E2E_TMP/pki/admin.crt" --key "$E2E_TMP/pki/admin.key" "$@" &
  CHECKER=$!
  local rc=0
  wait "$CHECKER" || rc=$?
  CHECKER=
  exit "$rc"
}

control_plane_finish() {
  local rc=$?
  # Its status is not this run's: a failing wait must not end the cleanup (set -e).
  if [[ -n ${CHECKER:-} ]]; then
    kill -TERM "$CHECKER" 2>/dev/null || true
    wait "$CHECKER" 2>/dev/null || true
  fi
  cluster_cleanup "$rc"
  exit "$rc"
}

# webhook_client_auth: the API server presents a client certificate to the
# webhook, set up as docs/webhook.md#client-authentication-from-the-api-server
# says: a CA of its own for webhook clients (pki/webhook-clients.crt, which
# signs nothing else), a certificate from it, and an AdmissionConfiguration
# whose kubeConfigFile names the webhook by the host:port it is called at.
# The webhook's port is chosen here, before the API server reads the file.
webhook_client_auth() {
  local d=$E2E_TMP/pki
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=gpulint-e2e-webhook-clients" -keyout "$d/webhook-clients.key" \
    -out "$d/webhook-clients.crt" 2>/dev/null
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=kube-apiserver \
    -keyout "$d/apiserver-webhook-client.key" -out "$d/apiserver-webhook-client.csr" 2>/dev/null
  printf 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n' \
    >"$d/apiserver-webhook-client.ext"
  openssl x509 -req -in "$d/apiserver-webhook-client.csr" -CA "$d/webhook-clients.crt" \
    -CAkey "$d/webhook-clients.key" -set_serial "0x$(openssl rand -hex 8)" -days 2 \
    -extfile "$d/apiserver-webhook-client.ext" -out "$d/apiserver-webhook-client.crt" 2>/dev/null
  WEBHOOK_PORT=$(free_port)
  local kubeconfig=$E2E_TMP/apiserver/webhook-clients.kubeconfig
  printf '%s\n' "apiVersion: v1" "kind: Config" "users:" "- name: \"127.0.0.1:$WEBHOOK_PORT\"" \
    "  user:" "    client-certificate: $d/apiserver-webhook-client.crt" \
    "    client-key: $d/apiserver-webhook-client.key" >"$kubeconfig"
  local plugin
  {
    echo "apiVersion: apiserver.config.k8s.io/v1"
    echo "kind: AdmissionConfiguration"
    echo "plugins:"
    for plugin in ValidatingAdmissionWebhook MutatingAdmissionWebhook; do
      echo "- name: $plugin"
      echo "  configuration:"
      echo "    apiVersion: apiserver.config.k8s.io/v1"
      echo "    kind: WebhookAdmissionConfiguration"
      echo "    kubeConfigFile: $kubeconfig"
    done
  } >"$E2E_TMP/apiserver/admission.yaml"
  APISERVER_FLAGS+=("--admission-control-config-file=$E2E_TMP/apiserver/admission.yaml")
  # The ConfigMap the chart's clientCA value names (stand_ins makes it, as a
  # cluster admin would).
  E2E_CHART_VALUES+=(--set clientCA.configMap=gpulint-e2e-client-ca)
}

# helm_capabilities: what `helm install` would learn of this cluster by
# discovery (its version, and every group/version and group/version/Kind it
# serves), as `helm template` flags in HELM_CAPABILITIES (one string, for the
# scenarios too): what the chart renders depends on it (its access policies
# need Kubernetes 1.30's ValidatingAdmissionPolicy v1).
helm_capabilities() {
  local version gv kind served=()
  version=$(k version -o json | jq -r .serverVersion.gitVersion)
  for gv in $(k api-versions); do
    served+=("$gv")
    while IFS= read -r kind; do served+=("$gv/$kind"); done < <(
      k get --raw "$([[ $gv == */* ]] && echo /apis || echo /api)/$gv" |
        jq -r '.resources[] | select(.name | contains("/") | not) | .kind' | sort -u)
  done
  HELM_CAPABILITIES="--kube-version ${version%%-*} --api-versions $(IFS=,; echo "${served[*]}")"
}

cluster_up() {
  control_plane_up
  # The webhook's serving certificate: the configurations' caBundle is ca.crt.
  leaf webhook /CN=gpulint-webhook server IP:127.0.0.1,DNS:localhost
  start_scheduler
  start_controller_manager
  # The controller manager is working once it has made the default
  # ServiceAccount of a namespace.
  wait_for 60 "the default ServiceAccount" k get serviceaccount default -n default ||
    die_with_log "kube-controller-manager made no ServiceAccount within 60 s" kube-controller-manager
}

# The webhook, as the chart installs it: tests/e2e/webhook.sh.
# shellcheck source=webhook.sh
source "$(dirname "${BASH_SOURCE[0]}")/webhook.sh"
