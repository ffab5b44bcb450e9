#!/usr/bin/env bash
# gpulint's SARIF against GitHub code scanning's ingestion rules
# (tests/sarif_github.py): manifests, stdin named with --stdin-filename, a
# kustomization (kubectl) and a chart (helm), whose findings must name files
# of the repository, and a run of more findings than code scanning takes. The
# checker is first shown to refuse what code scanning refuses.
#
#   tests/sarif_github_test.sh GPULINT_DIR SOURCE_DIR
#
# helm comes from GPULINT_HELM or scripts/install-helm.sh, kubectl from PATH.
# Exit status 77 (skipped) when one cannot be had; under CI=true that is a
# failure instead. (The audit's SARIF is checked on a live cluster by
# tests/e2e/scenarios/q_audit.sh.)
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 GPULINT_DIR SOURCE_DIR" >&2
  exit 2
fi
gpulint=$(cd "$1" && pwd)/gpulint
src=$(cd "$2" && pwd)
check="python3 $src/tests/sarif_github.py --root $src"
[ -x "$gpulint" ] || { echo "FAIL: no gpulint in $1" >&2; exit 1; }

# shellcheck source=tests/shell_support.sh
. "$src/tests/shell_support.sh"
find_helm "$src"
kubectl=$(command -v kubectl || true)
[ -n "$kubectl" ] || missing "kubectl is not installed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/tools"
ln -s "$helm" "$tmp/tools/helm"
ln -s "$kubectl" "$tmp/tools/kubectl"
export PATH=$tmp/tools:$PATH
cd "$src"

# accepted NAME FILE: the checker finds nothing wrong with FILE.
accepted() {
  local problems
  if problems=$($check "$2" 2>&1); then
    echo "ok: $1"
  else
    fail "$1: code scanning would refuse it:"$'\n'"$(head -20 <<<"$problems")"
  fi
}
# refused NAME FILE PROBLEM: the checker finds PROBLEM in FILE.
refused() {
  local problems
  problems=$($check "$2" 2>&1) && { fail "the checker passes $1"; return; }
  grep -qF -- "$3" <<<"$problems" || fail "the checker does not say '$3' of $1:"$'\n'"$problems"
}

# --- The checker refuses what code scanning refuses.
good=$tmp/good.sarif
"$gpulint" check -q --format sarif --fail-on none testdata/rules/gpu-fractional/fail-half.yaml >"$good"
accepted "one manifest's findings" "$good"
jq '.runs[0].results[0].locations = []' "$good" >"$tmp/bad.sarif"
refused "a result with no location" "$tmp/bad.sarif" "no location"
jq 'del(.runs[0].results[0].locations[0].physicalLocation)' "$good" >"$tmp/bad.sarif"
refused "a result with only a logical location" "$tmp/bad.sarif" "has no physicalLocation"
jq '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = "overlays/prod%20(kustomized)"' \
  "$good" >"$tmp/bad.sarif"
refused "a result in a file that does not exist" "$tmp/bad.sarif" "names no file of the repository"
jq '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri = "../outside.yaml"' \
  "$good" >"$tmp/bad.sarif"
refused "a result outside the repository" "$tmp/bad.sarif" "leaves the repository root"
jq 'del(.runs[0].results[0].locations[0].physicalLocation.region)' "$good" >"$tmp/bad.sarif"
refused "a result with no line" "$tmp/bad.sarif" "no region"
jq 'del(.runs[0].results[0].partialFingerprints.primaryLocationLineHash)' "$good" >"$tmp/bad.sarif"
refused "a result with no primaryLocationLineHash" "$tmp/bad.sarif" "primaryLocationLineHash"
jq '.runs[0].tool.driver.rules[0].fullDescription.text = ("x" * 1025)' "$good" >"$tmp/bad.sarif"
refused "a rule description past 1,024 characters" "$tmp/bad.sarif" "more than 1024"
jq '.runs[0].results[0].message.text = ""' "$good" >"$tmp/bad.sarif"
refused "an empty message" "$tmp/bad.sarif" "message.text is missing or empty"
jq '.runs[0].results = [range(25001) as $i | .runs[0].results[0]]' "$good" >"$tmp/bad.sarif"
refused "more than 25,000 results" "$tmp/bad.sarif" "more than 25000"

# --- gpulint's own.
"$gpulint" check -q --format sarif --fail-on none testdata/rules testdata/corpus examples \
  >"$tmp/corpus.sarif" 2>/dev/null || true
accepted "every rule's cases, the corpus and the examples" "$tmp/corpus.sarif"
[ "$(jq '.runs[0].results | length' "$tmp/corpus.sarif")" -gt 100 ] ||
  fail "the corpus gave too few results to prove anything"

# stdin, named.
file=testdata/rules/gpu-fractional/fail-half.yaml
"$gpulint" check -q --format sarif --fail-on none --stdin-filename "$file" - <"$file" >"$tmp/stdin.sarif"
accepted "stdin with --stdin-filename" "$tmp/stdin.sarif"
[ "$(jq -r '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri] | unique | join(" ")' \
  "$tmp/stdin.sarif")" = "$file" ] || fail "stdin's results are not on $file"
cmp -s <(jq 'del(.runs[0].invocations)' "$tmp/stdin.sarif") \
  <("$gpulint" check -q --format sarif --fail-on none "$file" | jq 'del(.runs[0].invocations)') ||
  fail "stdin named $file does not give the SARIF of $file itself"
set +e
out=$("$gpulint" check --format sarif - <"$file" 2>&1)
status=$?
set -e
[ $status -eq 2 ] && grep -qF -- "--format sarif reading stdin needs --stdin-filename PATH" <<<"$out" ||
  fail "SARIF of unnamed stdin: exit $status: $out"

# A kustomization: on its resource files where kustomize read them, else on
# its kustomization.yaml; never on a file that does not exist.
"$gpulint" check -q --format sarif --fail-on none testdata/sources/gpu-kustomize \
  testdata/sources/kustomize-overlay >"$tmp/kustomize.sarif"
accepted "kustomizations" "$tmp/kustomize.sarif"
got=$(jq -r '.runs[0].results[] | .locations[0].physicalLocation
  | "\(.artifactLocation.uri):\(.region.startLine)"' "$tmp/kustomize.sarif" | sort | tr '\n' ' ')
want="testdata/sources/gpu-kustomize/deployment.yaml:16 testdata/sources/kustomize-overlay/job.yaml:15 testdata/sources/kustomize-overlay/kustomization.yaml:1 "
[ "$got" = "$want" ] || fail "kustomizations' results are at: $got; expected: $want"

# A chart.
"$gpulint" check -q --format sarif --fail-on none testdata/sources/placed-chart testdata/sources/gpu-chart \
  >"$tmp/chart.sarif"
accepted "charts" "$tmp/chart.sarif"

# More findings than code scanning takes: the first 25,000, and a notification.
for i in $(seq 25010); do
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec:\n  containers:\n  - name: c\n    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04\n    resources: {limits: {memory: 1Gi, nvidia.com/gpu: 0.5}}\n---\n' "$i"
done >"$tmp/many.yaml"
(cd "$tmp" && "$gpulint" check -q --format sarif --fail-on none many.yaml >many.sarif 2>/dev/null) || true
if problems=$(python3 "$src/tests/sarif_github.py" --root "$tmp" "$tmp/many.sarif" 2>&1); then
  echo "ok: 25,010 findings"
else
  fail "25,010 findings: code scanning would refuse them:"$'\n'"$(head -5 <<<"$problems")"
fi
[ "$(jq '.runs[0].results | length' "$tmp/many.sarif")" -eq 25000 ] || fail "not 25,000 results"
jq -r '.runs[0].invocations[0].toolExecutionNotifications[0].message.text' "$tmp/many.sarif" |
  grep -qF "10 more findings are not in this log: GitHub code scanning refuses a run of more than 25000 results" ||
  fail "the 10 findings past 25,000 are not said"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "sarif-github: the checker refuses what code scanning refuses; gpulint's SARIF of manifests, stdin, kustomizations, charts and 25,010 findings passes it"
