#!/usr/bin/env bash
# Both binaries say which commit they were built from (common/version.h,
# written by cmake/version.cmake at each build):
# - `gpulint --version`, `gpulint version` and `gpulint-webhook --version`
#   print project()'s version and HEAD of the source tree's git work tree,
#   "with uncommitted changes" when its tracked files differ from HEAD;
# - cmake/version.cmake itself, run on copies: a tree without .git, and one
#   inside another repository, get no revision and say so; GPULINT_REVISION
#   is taken when given, and refused when it is not a commit.
#
#   tests/version_test.sh SOURCE_DIR VERSION GPULINT GPULINT_WEBHOOK
set -euo pipefail

if [ $# -ne 4 ]; then
  echo "usage: $0 SOURCE_DIR VERSION GPULINT GPULINT_WEBHOOK" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
version=$2
gpulint=$3
webhook=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
  revision=$(git -C "$src" rev-parse HEAD)
  suffix=
  [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] || suffix=", with uncommitted changes"
  want="$version (git $revision$suffix)"
else
  want="$version (no git revision: built from a source tree without .git)"
fi
for cmd in "$gpulint --version" "$gpulint version" "$webhook --version"; do
  program=$(basename "${cmd%% *}")
  # shellcheck disable=SC2086 # the words of $cmd are the command
  got=$($cmd 2>&1) || fail "$program: '${cmd#* }' exited $?: $got"
  [ "$got" = "$program $want" ] || fail "$program ${cmd#* }: '$got', not '$program $want'"
done

# version_of DIR [NAME=VALUE...]: cmake/version.cmake's revision for a
# source tree at DIR (empty: none), and whether it found changes.
version_of() {
  local dir=$1
  shift
  env "$@" cmake -DSOURCE_DIR="$dir" -DVERSION="$version" -DOUTPUT="$tmp/out.cc" \
    -P "$src/cmake/version.cmake" >"$tmp/log" 2>&1 || return 1
  sed -n 's/.*VersionInfo info{"[^"]*", "\([0-9a-f]*\)", \(true\|false\)}.*/\1 \2/p' "$tmp/out.cc"
}
mkdir "$tmp/plain"
got=$(version_of "$tmp/plain" GPULINT_REVISION=) || fail "version.cmake failed on a tree without git: $(cat "$tmp/log")"
[ "$got" = " false" ] || fail "a tree without .git: revision '$got', not none"
git init -q "$tmp/other"
git -C "$tmp/other" -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m other
mkdir "$tmp/other/gpulint"
got=$(version_of "$tmp/other/gpulint" GPULINT_REVISION=) || fail "version.cmake failed inside another repository"
[ "$got" = " false" ] || fail "a tree inside another repository took its commit: '$got'"
got=$(version_of "$tmp/other" GPULINT_REVISION=) || fail "version.cmake failed on a repository"
[ "$got" = "$(git -C "$tmp/other" rev-parse HEAD) false" ] || fail "a repository's own tree: '$got'"
given=0123456789abcdef0123456789abcdef01234567
got=$(version_of "$tmp/plain" GPULINT_REVISION=$given) || fail "version.cmake refused GPULINT_REVISION=$given"
[ "$got" = "$given false" ] || fail "GPULINT_REVISION=$given: '$got'"
if version_of "$tmp/plain" 'GPULINT_REVISION=$(id)' >/dev/null; then
  fail "GPULINT_REVISION='\$(id)' was taken"
fi
grep -q "is not a git commit" "$tmp/log" || fail "GPULINT_REVISION='\$(id)': $(cat "$tmp/log")"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "version: gpulint and gpulint-webhook $want; without git: no revision, said so"
