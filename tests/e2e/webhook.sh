# shellcheck shell=bash
# shellcheck disable=SC2034  # globals set here are read by run.sh and exported to the scenarios
# Sourced by cluster.sh: the webhook installed from the rendered chart and
# started as its Deployment's container, registered and unregistered, and
# what the scenarios ask of it (is it called, has its inventory synced).

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
