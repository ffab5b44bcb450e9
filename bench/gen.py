#!/usr/bin/env python3
"""Deterministic benchmark inputs for bench/lint.sh and bench/webhook.sh.

Manifest streams are built from the documents of testdata/corpus (real GPU
projects: Pods, Deployments, DaemonSets, Jobs, CRDs, with and without GPUs,
comments kept), each copy renamed so no two objects are the same, joined with
'---' in an order drawn from a fixed seed. Helm templates ('{{') and the two
corpus documents that are not valid YAML are left out: a stream of parse errors
would measure the error path, and the libyaml ceiling needs whole streams.

AdmissionReviews are the captures in testdata/admission with fresh uids and
names; the file name says which endpoint each one goes to (-validate/-mutate),
so a run mixes allowed, denied and mutated answers.

Same seed, same corpus -> byte-identical output.
"""
import argparse
import json
import os
import random
import re
import sys

import yaml  # PyYAML (python3-yaml): only to drop corpus documents that are not YAML

SEED = 20261122
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "testdata"))

NAME_RE = re.compile(r"^(  name: )([A-Za-z0-9][-A-Za-z0-9.]*)\s*$", re.M)
DOC_SPLIT = re.compile(r"^---[^\n]*\n", re.M)


def parses(doc):
    try:
        list(yaml.safe_load_all(doc))
        return True
    except yaml.YAMLError:
        return False


def corpus_documents(corpus):
    """Every YAML document of the corpus with a kind, sorted for determinism."""
    docs = []
    for root, _, files in os.walk(corpus):
        for f in sorted(files):
            if not f.endswith((".yaml", ".yml")):
                continue
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            if "{{" in text:
                continue
            for doc in DOC_SPLIT.split(text):
                if re.search(r"^kind:", doc, re.M) and doc.strip() and parses(doc):
                    docs.append(doc if doc.endswith("\n") else doc + "\n")
    docs.sort()
    return docs


def renamed(doc, n):
    # Only the object's own metadata.name (two-space indent), so selectors and
    # references inside the spec stay as the corpus wrote them.
    return NAME_RE.sub(lambda m: "%s%s-b%d" % (m.group(1), m.group(2)[:40], n), doc, count=1)


def stream(docs, rng, size, start=0):
    """Documents until `size` bytes; returns (text, next index)."""
    out, total, n = [], 0, start
    while total < size:
        doc = renamed(rng.choice(docs), n)
        if rng.random() < 0.15:
            doc = "# generated copy %d of a corpus document\n" % n + doc
        piece = ("---\n" if out else "") + doc
        out.append(piece)
        total += len(piece.encode())
        n += 1
    return "".join(out), n


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def gen_manifests(out, docs, sizes_mb, dir_files, dir_file_kb):
    for mb in sizes_mb:
        rng = random.Random(SEED + mb)
        text, _ = stream(docs, rng, mb * 1000 * 1000)
        write(os.path.join(out, "stream-%dmb.yaml" % mb), text)
    d = os.path.join(out, "dir")
    os.makedirs(d, exist_ok=True)
    rng = random.Random(SEED)
    n = 0
    for i in range(dir_files):
        # Sizes from a few KB to a few times the mean, as rendered charts are.
        size = int(dir_file_kb * 1000 * rng.uniform(0.2, 1.8))
        text, n = stream(docs, rng, size, n)
        write(os.path.join(d, "m%04d.yaml" % i), text)


def gen_reviews(out, admission, count):
    caps = []
    for f in sorted(os.listdir(admission)):
        if re.match(r"^\d\d-.*\.json$", f):
            with open(os.path.join(admission, f), encoding="utf-8") as fh:
                caps.append((f, json.load(fh)))
    d = os.path.join(out, "reviews")
    os.makedirs(d, exist_ok=True)
    rng = random.Random(SEED)
    for i in range(count):
        f, review = caps[i % len(caps)]
        r = json.loads(json.dumps(review))
        req = r["request"]
        req["uid"] = "%08x-%04x-4%03x-8%03x-%012x" % (
            rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
            rng.getrandbits(12), rng.getrandbits(48))
        meta = (req.get("object") or {}).get("metadata") or {}
        if meta.get("name"):
            meta["name"] = "%s-r%d" % (meta["name"], i)
            req["name"] = meta["name"]
        # 16 and 17 are the denials: they go to /validate, the others where captured.
        endpoint = "validate" if "validate" in f or "mutate-only" in f else "mutate"
        # Compact, as kube-apiserver sends it.
        write(os.path.join(d, "%04d-%s.json" % (i, endpoint)),
              json.dumps(r, separators=(",", ":")))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--data", "--shared", dest="data", default=DEFAULT_DATA,
                   help="the folder holding corpus/ and admission/ (default: testdata/)")
    p.add_argument("--sizes", default="1,20,200", help="stream sizes in MB (10^6 bytes)")
    p.add_argument("--dir-files", type=int, default=2000)
    p.add_argument("--dir-file-kb", type=int, default=20)
    p.add_argument("--reviews", type=int, default=200)
    a = p.parse_args()
    docs = corpus_documents(os.path.join(a.data, "corpus"))
    if not docs:
        sys.exit("gen.py: no documents in %s/corpus" % a.data)
    os.makedirs(a.out, exist_ok=True)
    sizes = [int(s) for s in a.sizes.split(",") if s]
    gen_manifests(a.out, docs, sizes, a.dir_files, a.dir_file_kb)
    gen_reviews(a.out, os.path.join(a.data, "admission"), a.reviews)
    print("gen.py: %d corpus documents -> %s" % (len(docs), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
