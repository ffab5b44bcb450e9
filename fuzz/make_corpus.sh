#!/usr/bin/env bash
# Builds the seed corpus of every fuzz target under OUT_DIR/<target>/, one
# file per seed, named by content so that reruns add nothing twice:
#   quantity     fuzz/seeds/quantity.txt (one per line) and every quantity-like
#                value in the manifests below
#   yaml_loader  manifests from testdata/ (its corpus/ and admission/ included:
#                JSON is YAML), examples/, policies/ and fuzz/seeds/yaml_loader/
#   policy       policies/, testdata/policies/ and fuzz/seeds/policy/
#   admission    testdata/admission/ and fuzz/seeds/admission/
#   http         fuzz/seeds/http/ (request heads)
#
#   fuzz/make_corpus.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: fuzz/make_corpus.sh OUT_DIR}
mkdir -p "$out"/{quantity,yaml_loader,policy,admission,http}

# add TARGET FILE...: copies each file in under its content hash.
add() {
  local target=$1 f
  shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    cp "$f" "$out/$target/$(sha1sum <"$f" | cut -c1-16)"
  done
}
# manifests DIR...: the YAML and JSON files under each existing DIR.
manifests() {
  local d
  for d in "$@"; do
    [ -d "$d" ] && find "$d" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -print0
  done
}

mapfile -d '' docs < <(manifests testdata examples policies fuzz/seeds/yaml_loader | sort -z)
add yaml_loader "${docs[@]}"
mapfile -d '' policies < <(manifests policies testdata/policies fuzz/seeds/policy | sort -z)
add policy "${policies[@]}"
mapfile -d '' reviews < <(manifests testdata/admission fuzz/seeds/admission | sort -z)
add admission "${reviews[@]}"
add http fuzz/seeds/http/*

# Quantities: the hand-picked list, then values of resource-like keys.
{
  cat fuzz/seeds/quantity.txt
  if [ ${#docs[@]} -gt 0 ]; then
    grep -ohE '(cpu|memory|storage|gpu|vram|hugepages-[0-9A-Za-z]+)"?: *"?[-+.0-9][^ ",}]*' \
      "${docs[@]}" 2>/dev/null | sed -E 's/^[^:]*: *"?//' || true
  fi
} | sort -u | while IFS= read -r q; do
  printf '%s' "$q" >"$out/quantity/$(printf '%s' "$q" | sha1sum | cut -c1-16)"
done

for t in quantity yaml_loader policy admission http; do
  echo "fuzz: $t: $(find "$out/$t" -type f | wc -l) seeds" >&2
done
