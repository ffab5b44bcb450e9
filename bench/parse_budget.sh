#!/usr/bin/env bash
# The parse budget real reviews need (bench/parse_budget.cc): every captured
# review of testdata/admission (both sets), and every document of
# testdata/corpus sent as a Pod CREATE's object would be, as compact JSON.
# Prints the spread of the least multiple each needs, and the largest
# bodies that need more than the default.
# Usage: bench/parse_budget.sh BUILD   (a build with -DGPULINT_BUILD_BENCH=ON)
set -euo pipefail
build=${1:?usage: parse_budget.sh BUILD}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$root/testdata/corpus" "$tmp" <<'PY'
import json, os, sys, yaml
corpus, out = sys.argv[1:3]
n = 0
for dirpath, _, files in os.walk(corpus):
    for f in sorted(files):
        if not f.endswith((".yaml", ".yml")):
            continue
        try:
            docs = list(yaml.safe_load_all(open(os.path.join(dirpath, f))))
        except yaml.YAMLError:
            continue  # not YAML (a Helm template): no API server would send it
        for doc in docs:
            if not isinstance(doc, dict):
                continue
            review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                      "request": {"uid": "u", "operation": "CREATE", "object": doc}}
            n += 1
            with open(os.path.join(out, f"corpus-{n:04d}.json"), "w") as w:
                json.dump(review, w, separators=(",", ":"), default=str)
PY
"$build/bench/parse_budget" "$root"/testdata/admission/[0-9]*.json \
  "$root"/testdata/admission/v1.36/[0-9]*.json "$tmp"/corpus-*.json >"$tmp/least"
awk '{ print $2 }' "$tmp/least" | sort -n | awk '{ a[NR] = $1 } END {
  printf "%d reviews: least budget median %d, p90 %d, p99 %d, max %d\n", NR, a[int(NR / 2) + 1],
    a[int(NR * 0.9)], a[int(NR * 0.99)], a[NR] }'
echo "the largest bodies that need more than the default 12 (the webhook admits any under 1 MiB):"
awk '$2 > 12' "$tmp/least" | sort -k1,1n | tail -n 3 | sed "s|$tmp/||; s|$root/||"
