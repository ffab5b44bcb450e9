#!/usr/bin/env bash
# l. gpulint fits pods as kube-scheduler does: random hollow nodes (cpu,
# memory, ephemeral-storage, hugepages-2Mi and GPUs in mixed units) and random
# pods (app and init containers, limits without requests, quantities at a
# node's boundary, a RuntimeClass's overhead; on 1.36 also native sidecars,
# pod-level resources, DRA claims, and GPUs through DRA's extended resources:
# nvidia.com/gpu backed by a DeviceClass, served by devices on nodes that do
# not list it), each pod created alone in an audit-mode namespace so that
# the scheduler decides it. For every pod, the same verdict (bound or not) and
# the same count of nodes under each Insufficient resource as `gpulint check
# --nodes` gives (tests/e2e/fit.py). GPULINT_E2E_FIT_SEED picks other pods;
# the seed is printed.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
new_namespace e2e-l
kc label namespace "$NS" gpulint.io/mode=audit
expect_ok "label namespace $NS gpulint.io/mode=audit"
SEED=${GPULINT_E2E_FIT_SEED:-20261125}
PODS=${GPULINT_E2E_FIT_PODS:-48}

kc apply -f - <<'YAML'
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gpulint-fit-kata}
handler: runc
overhead:
  podFixed: {cpu: 250m, memory: 120Mi}
YAML
expect_ok "a RuntimeClass with overhead"
at_exit 'k delete runtimeclass gpulint-fit-kata'

while IFS= read -r node; do
  name=$(jq -r .name <<<"$node")
  make_node "$name" '{"gpulint-fit":"true"}' '[{"key":"gpulint-fit","value":"only","effect":"NoSchedule"}]' \
    "$(jq -c .capacity <<<"$node")"
  at_exit "k delete node $name"
done < <(python3 "$E2E/fit.py" nodes "$SEED" "$K8S_MINOR")
note "nodes: $(python3 "$E2E/fit.py" nodes "$SEED" "$K8S_MINOR" | jq -rc '"\(.name) \(.capacity)"' | tr '\n' ' ')"
if ((K8S_MINOR >= 34)); then
  # The GPUs of DRA: a DeviceClass backing nvidia.com/gpu, the ResourceSlices
  # of the fit nodes that publish devices, the claim templates.
  python3 "$E2E/fit.py" dra "$SEED" >"$E2E_TMP/l-dra.json"
  kc apply -n "$NS" -f "$E2E_TMP/l-dra.json"
  expect_ok "the DeviceClass, ResourceSlices and ResourceClaimTemplates of the fit nodes"
  note "devices: $(jq -rc '[.items[] | select(.kind == "ResourceSlice") | "\(.spec.nodeName) \([.spec.devices[] | "\(.attributes.type.string):\(.capacity.memory.value)"] | join(","))"] | join(" ")' "$E2E_TMP/l-dra.json")"
  at_exit "k delete -n $NS -f $E2E_TMP/l-dra.json"
fi

set +e
OUT=$(NS=$NS python3 "$E2E/fit.py" run "$SEED" "$PODS" "$GPULINT" "$K8S_MINOR" 2>&1)
RC=$?
set -e
((RC == 0)) || fail "gpulint and kube-scheduler disagree on the fit of random pods (seed $SEED)" \
  "the same verdicts and Insufficient counts" "$OUT"
while IFS= read -r line; do note "$line"; done <<<"$OUT"  # the tally; on 1.36 DRA's too
