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

# ---- the webhook, as the chart installs it -----------------------------------------

# install_webhook: renders charts/gpulint-webhook with its defaults (namespace
# gpulint) and installs what it renders: every object but the Deployment
# (there is no kubelet to run its pods) and the webhook configurations, which
# go in last, pointed at the process started here. That process is the
# Deployment's container: build/webhook/gpulint-webhook with the rendered
# args, its volumes as local directories (the Secret's files from the test CA,
# the ConfigMaps' rendered data), --listen on a free loopback port and
# --in-cluster replaced by a kubeconfig holding a token of the chart's
# ServiceAccount, so the chart's own RBAC is all it is granted.
install_webhook() {
  local out=$E2E_TMP/chart
  mkdir -p "$out" "$E2E_TMP/volumes"
  WEBHOOK_PORT=${WEBHOOK_PORT:-$(free_port)}
  helm_capabilities
  local capabilities
  read -ra capabilities <<<"$HELM_CAPABILITIES"
  # Deny mode cluster-wide, so the incidents' scenarios see denials; the
  # modes scenario labels namespaces (and switches the cluster's mode).
  "$HELM" template gpulint-webhook "$CHART" --namespace gpulint "${capabilities[@]}" \
    "${E2E_CHART_VALUES[@]}" >"$out/rendered.yaml" 2>"$out/helm.err" ||
    { cat "$out/helm.err" >&2; missing_tool "helm template $CHART failed"; }
  k create --dry-run=client -o json -f "$out/rendered.yaml" |
    jq -s '[.[] | if .kind == "List" then .items[] else . end]' | stand_ins >"$out/objects.json"
  local kinds
  kinds=$(jq -r '[.[].kind] | join(" ")' "$out/objects.json")
  echo "e2e: the chart renders: $kinds"

  k create namespace gpulint >/dev/null
  # Everything but the Deployment, whose container runs here; the webhook
  # configurations as helm makes them, empty: the webhook fills them in
  # (webhook.selfRegister) once it can answer.
  jq '{apiVersion: "v1", kind: "List", items: [.[] | select(.kind != "Deployment")]}' \
    "$out/objects.json" | k apply -f - >"$out/apply.out" 2>&1 ||
    { cat "$out/apply.out" >&2; missing_tool "kubectl apply of the chart's objects failed"; }
  jq '{apiVersion: "v1", kind: "List", items: [.[] | select(.kind == "ValidatingWebhookConfiguration"
        or .kind == "MutatingWebhookConfiguration")]}' "$out/objects.json" >"$out/webhooks.json"
  [[ $(jq '[.items[] | select(.webhooks == [])] | length' "$out/webhooks.json") == 2 ]] ||
    missing_tool "the chart does not render both webhook configurations empty (webhook.selfRegister): $kinds"

  local deployment pod container
  deployment=$(jq -c '[.[] | select(.kind == "Deployment")] | if length == 1 then .[0] else error("expected one Deployment, got \(length)") end' \
    "$out/objects.json") || missing_tool "the chart does not render exactly one Deployment"
  pod=$(jq -c '.spec.template.spec' <<<"$deployment")
  container=$(jq -c '.containers[0]' <<<"$pod")

  # The volumes the container mounts, as local directories.
  local mounts=() mount vname vol dir cm
  while IFS=$'\t' read -r vname mount; do
    vol=$(jq -c --arg n "$vname" '.volumes[] | select(.name == $n)' <<<"$pod")
    dir=$E2E_TMP/volumes/$vname
    mkdir -p "$dir"
    if jq -e '.secret' <<<"$vol" >/dev/null; then
      # The serving certificate, whoever makes it in a cluster (the chart or
      # cert-manager): here the test CA's.
      cp "$E2E_TMP/pki/webhook.crt" "$dir/tls.crt"
      cp "$E2E_TMP/pki/webhook.key" "$dir/tls.key"
      cp "$E2E_TMP/pki/ca.crt" "$dir/ca.crt"
    elif jq -e '.configMap' <<<"$vol" >/dev/null; then
      cm=$(jq -c --arg n "$(jq -r .configMap.name <<<"$vol")" \
        '.[] | select(.kind == "ConfigMap" and .metadata.name == $n)' "$out/objects.json")
      [[ -n $cm ]] ||
        missing_tool "volume $vname: ConfigMap $(jq -r .configMap.name <<<"$vol") is not rendered by the chart"
      python3 - "$dir" "$cm" "$vol" <<'PY'
import json, os, sys
d, cm, vol = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
data = cm.get("data") or {}
items = vol["configMap"].get("items") or [{"key": k, "path": k} for k in data]
for item in items:
    with open(os.path.join(d, item["path"]), "w") as f:
        f.write(data[item["key"]])
PY
    else
      missing_tool "the Deployment mounts volume $vname of a kind the e2e suite cannot stand in for: $vol"
    fi
    mounts+=("$mount=$dir")
  done < <(jq -r '.volumeMounts[]? | [.name, .mountPath] | @tsv' <<<"$container")

  # The args, rewritten.
  local sa args=() arg m prev=""
  sa=$(jq -r '.serviceAccountName // "default"' <<<"$pod")
  while IFS= read -r arg; do
    if [[ $prev == --listen ]]; then
      arg=127.0.0.1:$WEBHOOK_PORT
    elif [[ $arg == --listen=* ]]; then
      arg=--listen=127.0.0.1:$WEBHOOK_PORT
    elif [[ $arg == --in-cluster ]]; then
      arg=--kubeconfig=$E2E_TMP/webhook.kubeconfig
    else
      for m in "${mounts[@]}"; do
        local mp=${m%%=*} local_dir=${m#*=}
        if [[ $arg == --*="$mp"/* ]]; then
          arg="${arg%%=*}=$local_dir/${arg#*="$mp"/}"
        elif [[ $arg == "$mp"/* ]]; then
          arg=$local_dir/${arg#"$mp"/}
        fi
      done
    fi
    args+=("$arg")
    prev=$arg
  done < <(jq -r '.args[]?' <<<"$container")
  # The container's environment: plain values and the pod's own fields.
  local envs=() name value
  while IFS=$'\t' read -r name value; do
    envs+=("$name=$value")
  done < <(jq -r '.env[]? | [.name, (.value // (.valueFrom.fieldRef.fieldPath // "" |
      if . == "metadata.namespace" then "gpulint" elif . == "metadata.name" then "gpulint-webhook-e2e"
      else "" end))] | @tsv' <<<"$container")

  # The chart's ServiceAccount: a token from the TokenRequest API, as a
  # projected service account token would hold in the pod.
  local token
  token=$(k create token "$sa" -n gpulint --duration=3h) ||
    missing_tool "cannot get a token for the chart's ServiceAccount gpulint/$sa"
  kubeconfig "$E2E_TMP/webhook.kubeconfig" "{token: \"$token\"}"

  WEBHOOK_LOG=$E2E_TMP/logs/webhook.log
  POLICY_FILE=$(printf '%s\n' "${args[@]}" | sed -n 's/^--policy=//p' | head -n1)
  # The configurations it registers, each webhook's clientConfig.service
  # replaced by the URL of this process with the service's path.
  REGISTRATION_FILE=$(printf '%s\n' "${args[@]}" | sed -n 's/^--register=//p' | head -n1)
  [[ -n $REGISTRATION_FILE ]] || missing_tool "the chart's Deployment has no --register flag (webhook.selfRegister)"
  cp "$REGISTRATION_FILE" "$out/registration.yaml"
  registration_for_loopback "$out/registration.yaml" >"$REGISTRATION_FILE"
  WEBHOOK_CMDLINE="${args[*]}"
  WEBHOOK_ARGS=("${args[@]}")
  WEBHOOK_ENVS=("${envs[@]}")
  echo "e2e: gpulint-webhook $WEBHOOK_CMDLINE"
  start_webhook
  # The webhook registers itself: the API server then calls both.
  wait_webhook_active
}

# stand_ins: of a JSON list of the rendered objects, what the cluster holds
# beside or instead of them: the client CA's ConfigMap (webhook_client_auth),
# the serving certificate's Secret with the test CA's files (what the process
# run here mounts), and the registration ConfigMap naming this process's URL
# (registration_params_for_loopback), which the access policies read.
stand_ins() {
  local ca=""
  [[ ${E2E_CLIENT_AUTH:-} == 1 ]] && ca=$(cat "$E2E_TMP/pki/webhook-clients.crt")
  jq --arg ca "$ca" --arg crt "$(base64 -w0 <"$E2E_TMP/pki/webhook.crt")" \
      --arg key "$(base64 -w0 <"$E2E_TMP/pki/webhook.key")" \
      --arg cacrt "$(base64 -w0 <"$E2E_TMP/pki/ca.crt")" '
    map(if .kind == "Secret" and .type == "kubernetes.io/tls"
        then .data = {"tls.crt": $crt, "tls.key": $key, "ca.crt": $cacrt} else . end)
    + (if $ca == "" then [] else [{apiVersion: "v1", kind: "ConfigMap",
        metadata: {name: "gpulint-e2e-client-ca", namespace: "gpulint"}, data: {"ca.crt": $ca}}] end)' |
    registration_params_for_loopback
}

# start_webhook: gpulint-webhook as install_webhook laid it out, up and ready,
# its webhook configurations registered.
start_webhook() {
  # A log of its own for each run, so that this one's lines are this run's.
  [[ -s $WEBHOOK_LOG ]] && mv "$WEBHOOK_LOG" "$WEBHOOK_LOG.$(date +%s%N)"
  start_daemon webhook env "${WEBHOOK_ENVS[@]}" "$WEBHOOK" "${WEBHOOK_ARGS[@]}"
  for _ in $(seq 100); do
    grep -q '"msg":"listening"' "$WEBHOOK_LOG" && break
    daemon_alive webhook || die_with_log "gpulint-webhook exited at start" webhook
    sleep 0.1
  done
  grep -q '"msg":"listening"' "$WEBHOOK_LOG" || die_with_log "gpulint-webhook logged no 'listening' within 10 s" webhook
  wait_for 20 "the webhook's /readyz" curl -sf --max-time 2 --cacert "$E2E_TMP/pki/ca.crt" \
    "https://127.0.0.1:$WEBHOOK_PORT/readyz" || die_with_log "gpulint-webhook /readyz not 200 within 20 s" webhook
  wait_for 20 "the webhook's configurations registered" metric_is gpulint_webhook_registered 1 ||
    die_with_log "gpulint-webhook did not register its configurations within 20 s" webhook kube-apiserver
}

# restart_webhook: stopped (as a node failure would: no SIGTERM), then
# started again with the same flags and files; its log starts anew.
restart_webhook() {
  stop_daemon webhook
  start_webhook
}


# register_webhook / unregister_webhook: both configurations the chart renders
# (as install_webhook rewrote them) applied / deleted, each waiting until the
# API server calls the webhook / no longer calls it.
# The configurations helm creates (empty), and a new version of the
# registration file so that the webhook applies it at once.
register_webhook() {
  k apply -f "$E2E_TMP/chart/webhooks.json" >/dev/null
  touch "$REGISTRATION_FILE"
  wait_webhook_active
}
unregister_webhook() {
  k delete -f "$E2E_TMP/chart/webhooks.json" >/dev/null
  wait_for 30 "the webhook no longer called" webhook_not_called ||
    die_with_log "the API server still calls gpulint-webhook 30 s after its configurations were deleted" webhook kube-apiserver
}
webhook_not_called() { ! webhook_validates && ! webhook_mutates; }

# The API server calls both webhooks: a server-side dry run of a Deployment
# asking half a byte of memory (500m, which the API server accepts) is denied
# by validate.gpulint.io, and one of a pod that can reach a GPU node comes
# back with NVIDIA_VISIBLE_DEVICES=void.
webhook_validates() {
  local out
  out=$(k create --dry-run=server -n default -f - 2>&1 <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata: {name: e2e-probe}
spec:
  selector: {matchLabels: {app: e2e-probe}}
  template:
    metadata: {labels: {app: e2e-probe}}
    spec:
      containers:
      - {name: c, image: busybox, resources: {requests: {memory: 500m}}}
EOF
  ) || true
  grep -q 'admission webhook "validate.gpulint.io" denied' <<<"$out"
}
webhook_mutates() {
  k create --dry-run=server -n default -o json -f - 2>/dev/null <<'EOF' |
apiVersion: v1
kind: Pod
metadata: {name: e2e-probe}
spec:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
  containers: [{name: c, image: busybox}]
EOF
    jq -e '.spec.containers[0].env[]? | select(.name == "NVIDIA_VISIBLE_DEVICES" and .value == "void")' >/dev/null
}

wait_webhook_active() {
  wait_for 30 "validate.gpulint.io called" webhook_validates ||
    die_with_log "the API server does not call validate.gpulint.io (30 s)" webhook kube-apiserver
  wait_for 30 "mutate.gpulint.io called" webhook_mutates ||
    die_with_log "the API server does not call mutate.gpulint.io (30 s)" webhook kube-apiserver
}

# The webhook's node watch (through the chart's RBAC) sees every node.
wait_inventory() {
  local want
  want=$(k get nodes -o name | wc -l)
  wait_for 30 "the webhook's inventory" inventory_is "$want" ||
    die_with_log "the webhook's node inventory holds $(webhook_metric gpulint_webhook_inventory_nodes) nodes, not $want, after 30 s (its RBAC is the chart's ClusterRole)" webhook
}
inventory_is() { [[ $(webhook_metric gpulint_webhook_inventory_nodes) == "$1" ]]; }
