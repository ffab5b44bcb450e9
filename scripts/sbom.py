#!/usr/bin/env python3
"""The SBOM of the static binaries: which Debian packages they contain.

    scripts/sbom.py --name gpulint-0.1.0-linux-amd64 --version 0.1.0 \
        --source-dir . --map build/gpulint.map --map build/webhook/gpulint-webhook.map \
        [--header /usr/include/rapidjson/reader.h ...] -o gpulint.spdx.json

Reads GNU ld's link maps (-Wl,-Map, cmake/shipped_binary.cmake): every
archive member the link took (libyaml.a(api.o)) and every object file it
loaded (the C runtime's crt files). Each such file belongs to a Debian
package (dpkg -S), whose version and source dpkg-query gives; a header-only
library (--header: nlohmann/json, RapidJSON) is compiled in and named by one
of its headers. Writes SPDX 2.3 JSON: the gpulint package, each Debian package
with its purl, and a STATIC_LINK (archives) or CONTAINS (headers) relationship
from gpulint to each. Deterministic: the same inputs give the same bytes; its
time is SOURCE_DATE_EPOCH, else the commit's, else 0.
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys

# "/usr/lib/x86_64-linux-gnu/libyaml.a(api.o)" as it starts a line of the map's
# first section, and "LOAD /path/crt1.o" in its memory map.
MEMBER = re.compile(r"^(/\S+\.a)\((?:[^()]*)\)")
LOAD = re.compile(r"^LOAD (/\S+\.o)$")


def linked_files(map_path):
    """The archives and object files a link map says were used."""
    files = set()
    with open(map_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = MEMBER.match(line) or LOAD.match(line.rstrip("\n"))
            if m:
                files.add(os.path.normpath(m.group(1)))
    if not files:
        sys.exit(f"sbom: {map_path} names no archive or object file: is it a GNU ld link map?")
    return files


def owner(path):
    """The package that installed path, as dpkg -S names it (with :arch where
    the package is Multi-Arch: same)."""
    for candidate in (path, os.path.realpath(path)):
        run = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if run.returncode == 0:
            # "libyaml-dev:arm64: /usr/lib/aarch64-linux-gnu/libyaml.a"; a
            # diverted or shared path may list several: the first is enough.
            return run.stdout.split(": ", 1)[0].split(",")[0].strip()
    sys.exit(f"sbom: no Debian package installed {path}: the SBOM would be incomplete")


def package_facts(package):
    fmt = "${Package}\t${Architecture}\t${Version}\t${source:Package}\t${source:Version}"
    out = subprocess.run(["dpkg-query", "-W", "-f", fmt, package], capture_output=True,
                         text=True, check=True).stdout
    name, arch, version, source, source_version = out.split("\t")
    return {"name": name, "arch": arch, "version": version, "source": source,
            "source_version": source_version}


def spdx_id(text):
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]", "-", text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--name", required=True, help="the document's name: gpulint-VERSION-linux-ARCH")
    p.add_argument("--version", required=True)
    p.add_argument("--source-dir", required=True)
    p.add_argument("--map", action="append", required=True, help="a binary's GNU ld link map")
    p.add_argument("--header", action="append", default=[], help="a header-only library's header")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args()

    uses = {}  # package -> {"STATIC_LINK"|"CONTAINS": set of files}
    for m in a.map:
        for path in linked_files(m):
            uses.setdefault(owner(path), {}).setdefault("STATIC_LINK", set()).add(path)
    for header in a.header:
        uses.setdefault(owner(header), {}).setdefault("CONTAINS", set()).add(header)

    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    revision = ""
    git = subprocess.run(["git", "-C", a.source_dir, "log", "-1", "--format=%ct %H"],
                         capture_output=True, text=True)
    if git.returncode == 0 and git.stdout.strip():
        commit_time, revision = git.stdout.split()
        epoch = epoch or commit_time
    created = datetime.datetime.fromtimestamp(int(epoch or 0), datetime.timezone.utc)

    root = spdx_id("gpulint")
    packages = [{
        "SPDXID": root, "name": "gpulint", "versionInfo": a.version,
        "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
        "licenseConcluded": "Apache-2.0", "licenseDeclared": "Apache-2.0",
        "copyrightText": "2026 The gpulint Authors",
        "primaryPackagePurpose": "APPLICATION",
        "comment": "gpulint and gpulint-webhook, linked statically" +
                   (f" from git commit {revision}" if revision else "") +
                   "; the licences of what they contain: /usr/share/doc/gpulint/copyright",
    }]
    relationships = [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                      "relatedSpdxElement": root}]
    for package in sorted(uses):
        facts = package_facts(package)
        element = spdx_id(f"deb-{facts['name']}-{facts['arch']}")
        files = sorted(f for kind in uses[package].values() for f in kind)
        packages.append({
            "SPDXID": element, "name": facts["name"], "versionInfo": facts["version"],
            "supplier": "Organization: Debian", "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False, "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION",
            "primaryPackagePurpose": "LIBRARY",
            "sourceInfo": f"Debian source package {facts['source']} {facts['source_version']}",
            "comment": "compiled in from " + ", ".join(files),
            "externalRefs": [{
                "referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                "referenceLocator": f"pkg:deb/debian/{facts['name']}@{facts['version']}"
                                    f"?arch={facts['arch']}&distro=debian-12",
            }],
        })
        for kind in sorted(uses[package]):
            relationships.append({"spdxElementId": root, "relationshipType": kind,
                                  "relatedSpdxElement": element})

    body = {"packages": packages, "relationships": relationships}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    doc = {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": a.name,
        "documentNamespace": f"https://spdx.org/spdxdocs/{a.name}-{digest}",
        "creationInfo": {"created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "creators": ["Tool: gpulint-scripts-sbom.py"]},
        **body,
    }
    tmp = a.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, sort_keys=False)
        f.write("\n")
    os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
