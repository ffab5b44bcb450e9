#!/usr/bin/env bash
# gpulint's shell completion (gpulint completion bash|zsh) in the real shells:
# bash's completion function called as bash calls it, and zsh driven on a
# terminal (zsh/zpty) as a user types, TAB included. Every option completion
# offers is one the command accepts, and every option its --help lists is
# offered: the scripts come from the commands' own option tables.
#
#   tests/completion_test.sh GPULINT_DIR
#
# Exit status 77 (skipped) when zsh is not installed (Debian package zsh;
# ./dev installs it); under CI=true that is a failure.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 GPULINT_DIR" >&2
  exit 2
fi
gpulint=$(cd "$1" && pwd)/gpulint
[ -x "$gpulint" ] || { echo "FAIL: no gpulint in $1" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir k8s && touch k8s/pod.yaml limits.yaml

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# --- bash: _gpulint as `complete -F` calls it.
source <("$gpulint" completion bash)
[ "$(complete -p gpulint)" = "complete -o bashdefault -o filenames -F _gpulint gpulint" ] ||
  fail "bash: gpulint's completion is not _gpulint: $(complete -p gpulint)"
complete -p kubectl-gpulint >/dev/null || fail "bash: kubectl-gpulint has no completion"
# offered WORD...: what bash offers for the command line WORD... (the last one
# being completed), sorted, one per line.
offered() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _gpulint gpulint "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect() {
  local want=$1
  shift
  local got
  got=$(offered "$@")
  [ "$got" = "$want" ] || fail "bash: '$*' offers:"$'\n'"$got"$'\n'"expected:"$'\n'"$want"
}
expect $'check\ncompletion' gpulint c
expect 'policy' gpulint po
expect $'--fail-on\n--format' gpulint check --f
expect 'sarif' gpulint check --format s
expect 'sarif' gpulint check --format = s   # --format=s, as bash splits it
expect $'error\ninfo\nnone\nwarning' gpulint check --fail-on ''
expect 'openreports' gpulint audit --report-format o
expect '--namespace' gpulint audit --n
expect $'gpu-fractional' gpulint explain gpu-fr
expect $'check\nschema' gpulint policy ''
expect 'zsh' gpulint completion z
expect 'audit' gpulint help au
expect 'k8s' gpulint check --policy limits.yaml k8
expect 'limits.yaml' gpulint audit --policy li
expect 'k8s' gpulint k8                      # gpulint FILE... is check

# Every option offered is accepted (the help it asks for is printed, exit 0),
# and every option a command's --help lists under Options is offered.
commands=$(offered gpulint '' | grep -vxE 'k8s|limits.yaml' | tr '\n' ' ')
for cmd in $commands; do
  [ "$cmd" = help ] && continue
  options=$(offered gpulint "$cmd" -)
  for option in $options; do
    # A flag alone, an option that takes a value with one.
    "$gpulint" "$cmd" "$option" --help >/dev/null 2>&1 ||
      "$gpulint" "$cmd" "$option" x --help >/dev/null 2>&1 ||
      fail "gpulint $cmd does not take the offered option $option"
  done
  listed=$("$gpulint" "$cmd" --help | sed -n '/^Options:/,/^[^ ]/p' |
    { grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z-]*' || true; } | { grep -oE -- '--[a-z][a-z-]*$' || true; } |
    sort -u)
  for option in $listed; do
    grep -qxF -- "$option" <<<"$options" || fail "gpulint $cmd --help lists $option, completion does not offer it"
  done
done

# --- zsh: typed on a terminal, completed with TAB.
if ! command -v zsh >/dev/null 2>&1; then
  if [ "${CI:-}" = true ]; then
    fail "zsh is not installed, and CI=true makes that a failure"
  else
    echo "SKIPPED (in part): zsh is not installed (Debian package zsh), its completion is untested"
    [ "$failures" -eq 0 ] && exit 77
  fi
else
  mkdir zfunctions
  "$gpulint" completion zsh >zfunctions/_gpulint
  zsh -n zfunctions/_gpulint || fail "zsh: the completion does not parse"
  # Each case: what is typed before TAB, and what the line must then read.
  cat >cases <<'EOF'
gpulint check --fo	gpulint check --format=
gpulint check --format=sa	gpulint check --format=sarif
gpulint comp	gpulint completion
gpulint explain gpu-fr	gpulint explain gpu-fractional
gpulint audit --report-format=open	gpulint audit --report-format=openreports
gpulint policy sch	gpulint policy schema
gpulint audit --all-n	gpulint audit --all-namespaces
gpulint check --policy lim	gpulint check --policy limits.yaml
EOF
  cat >drive.zsh <<'EOF'
zmodload zsh/zpty
zpty z 'zsh -f -i'
# shown SECONDS: what the terminal showed meanwhile, without its escapes.
shown() {
  local out= line i
  for i in {1..$(( $1 * 10 ))}; do
    while zpty -r -t z line; do out+=$line; done
    sleep 0.1
  done
  print -r -- "$out"
}
zpty -w z "PS1='> '; fpath=($PWD/zfunctions \$fpath); autoload -U compinit; compinit -u -D"
shown 3 >/dev/null
while IFS=$'\t' read -r typed want; do
  zpty -w -n z "$typed"$'\t'
  print -r -- "$want	$(shown 1 | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/[\x07\x08\r]//g' | tr -d '\n')"
  zpty -w -n z $'\C-u'
  shown 0.5 >/dev/null
done <cases
zpty -d z
EOF
  checked=0
  while IFS=$'\t' read -r want got; do
    checked=$((checked + 1))
    [[ "$got" == *"$want"* ]] || fail "zsh: the line does not read '$want' after TAB:"$'\n'"$got"
  done < <(timeout 120 zsh -f drive.zsh)
  [ "$checked" -eq "$(wc -l <cases)" ] || fail "zsh: $checked of $(wc -l <cases) cases ran"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "completion: bash offers commands, options, their values and rule names; every option offered is taken and every one listed is offered; zsh completes as typed"
