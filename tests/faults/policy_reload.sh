#!/usr/bin/env bash
# A bad policy reload under load: a valid edit is taken, then a policy that
# does not parse is refused, the last good one keeps deciding, readiness stays
# true, and wrk sees no failed request throughout.
source "$(dirname "$0")/lib.sh"
CASE=policy-reload

make_ca
make_leaf serving
cp "$ROOT/policies/default.yaml" "$tmp/policy.yaml"
start_server --cert "$tmp/serving.crt" --key "$tmp/serving.key" --policy "$tmp/policy.yaml" \
  --drain-seconds 0
wait_ready
# A GPU pod in namespace gpu-test whose request differs from its limit.
review=$(ls "$ADMISSION"/16-*.json)
allowed() {
  [[ $(post_review "$review" validate) == 200 ]] || fail "/validate did not answer 200"
  jq -r .response.allowed "$tmp/last-body"
}
[[ $(allowed) == false ]] || fail "the default policy does not deny review 16"

wrk_start "$tmp/wrk" 5 8
sleep 1
# A valid edit: gpu-test becomes an exempt namespace.
sed 's/^    namespaces: \[\]$/    namespaces: [gpu-test]/' "$ROOT/policies/default.yaml" >"$tmp/edit.yaml"
mv "$tmp/edit.yaml" "$tmp/policy.yaml"
wait_metric 'gpulint_webhook_reloads_total{what="policy",result="ok"}' 2 40
[[ $(allowed) == true ]] || fail "the edited policy (gpu-test exempt) still denies review 16"
note "valid edit taken: review 16 now allowed"

printf 'apiVersion: gpulint.io/v1alpha1\nkind: Policy\nspec: {vram: [\n' >"$tmp/bad.yaml"
mv "$tmp/bad.yaml" "$tmp/policy.yaml"
wait_metric 'gpulint_webhook_reloads_total{what="policy",result="failed"}' 1 40
log_has '"msg":"policy refused, the last good one keeps serving"' ||
  fail "the bad policy was not logged as refused"
[[ $(allowed) == true ]] || fail "after the bad policy, review 16 is no longer judged by the last good one"
[[ $(status /readyz) == 200 ]] || fail "/readyz is $(status /readyz) after the bad policy"
[[ $(metric gpulint_webhook_ready) == 1 ]] || fail "gpulint_webhook_ready is not 1 after the bad policy"
note "bad policy refused: the last good one decides, ready"

wait "$wrk_pid" || true
wrk_check "$tmp/wrk" "keep-alive x8"
pass "a bad policy reload under load, zero failed requests"
