#!/usr/bin/env python3
"""The licence, as a legal review reads it:
- LICENSE is the Apache License 2.0, word for word as Debian ships it
  (/usr/share/common-licenses/Apache-2.0);
- the chart carries the same file, its Chart.yaml names Apache-2.0 for
  Artifact Hub, and its .helmignore does not leave LICENSE out of the
  packaged chart;
- packaging/copyright, which the .deb, the tarball and the image carry, is
  machine-readable as Debian's copyright format 1.0 says: a header with
  Format, paragraphs of fields with continuation lines, each Files paragraph
  with Copyright and License, every licence it names given in full in a
  stand-alone License paragraph, and none given that nothing names; and its
  header names a licence for each Debian source package it lists.

    tests/licence_test.py SOURCE_DIR
"""
import fnmatch
import os
import re
import sys

FORMAT = "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def paragraphs(text, fail):
    """Debian control paragraphs: [{field: value}], continuation lines kept."""
    out = []
    for n, block in enumerate(re.split(r"\n\s*\n", text.strip("\n"))):
        fields, last = {}, None
        for line in block.split("\n"):
            if line.startswith((" ", "\t")):
                if last is None:
                    fail(f"paragraph {n + 1} starts with a continuation line: {line!r}")
                else:
                    fields[last] += "\n" + line
            elif re.match(r"^[A-Za-z][A-Za-z0-9-]*:", line):
                last, _, value = line.partition(":")
                if last in fields:
                    fail(f"paragraph {n + 1} repeats the field {last}")
                fields[last] = value.strip()
            else:
                fail(f"paragraph {n + 1}: not a field or a continuation line: {line!r}")
        out.append(fields)
    return out


def licence_names(expression):
    """The licences of a License field's first line: 'A and B or C with X-exception'."""
    names = set()
    for part in re.split(r"\s+(?:and|or)\s+", expression.split("\n")[0].strip()):
        names.add(part.strip().rstrip(","))
    return names - {""}


def main():
    src = sys.argv[1]
    failures = []
    fail = failures.append

    licence = read(os.path.join(src, "LICENSE"))
    debian = "/usr/share/common-licenses/Apache-2.0"
    if os.path.exists(debian):
        if licence.strip("\n") != read(debian).strip("\n"):
            fail("LICENSE is not the Apache License 2.0 as Debian ships it")
    elif "Apache License\n                           Version 2.0, January 2004" not in licence:
        fail("LICENSE is not the Apache License 2.0")

    chart = os.path.join(src, "charts", "gpulint-webhook")
    if read(os.path.join(chart, "LICENSE")) != licence:
        fail("charts/gpulint-webhook/LICENSE is not LICENSE")
    if not re.search(r"^annotations:\n(?:  .*\n)*  artifacthub\.io/license: Apache-2\.0$",
                     read(os.path.join(chart, "Chart.yaml")), re.M):
        fail("Chart.yaml has no annotation artifacthub.io/license: Apache-2.0")
    for line in read(os.path.join(chart, ".helmignore")).splitlines():
        pattern = line.strip()
        if pattern and not pattern.startswith("#") and fnmatch.fnmatch("LICENSE", pattern.rstrip("/")):
            fail(f"the chart's .helmignore leaves LICENSE out: {pattern}")

    paras = paragraphs(read(os.path.join(src, "packaging", "copyright")), fail)
    header, rest = paras[0], paras[1:]
    if header.get("Format") != FORMAT:
        fail(f"packaging/copyright: the header's Format is not {FORMAT}")
    if header.get("Upstream-Name") != "gpulint":
        fail("packaging/copyright: Upstream-Name is not gpulint")
    files = [p for p in rest if "Files" in p]
    standalone = {p["License"].split("\n")[0].strip(): p["License"] for p in rest if "Files" not in p}
    if not files or files[0]["Files"] != "*" or files[0].get("License") != "Apache-2.0":
        fail("packaging/copyright: the first Files paragraph is not 'Files: *' under Apache-2.0")
    named = set()
    for p in files:
        for field in ("Copyright", "License"):
            if not p.get(field):
                fail(f"packaging/copyright: Files: {p['Files'].split()[0]} has no {field}")
        named |= licence_names(p.get("License", ""))
    for p in rest:
        if "Files" not in p and "License" not in p:
            fail(f"packaging/copyright: a paragraph with neither Files nor License: {list(p)}")
    for name in sorted(named):
        text = standalone.get(name, "")
        if len(text.split("\n")) < 5:
            fail(f"packaging/copyright: the licence {name} is named but not given in full")
    for name in sorted(set(standalone) - named):
        fail(f"packaging/copyright: the licence {name} is given but no Files paragraph names it")
    # The header's table: a Debian source package, then what it is and its licences.
    table = re.findall(r"^ {3}([a-z0-9][a-z0-9.+-]+) {2,}.*?: (.+)$", header.get("Comment", ""), re.M)
    if len(table) < 5:
        fail(f"packaging/copyright: the header lists {len(table)} source packages")
    for source, licences in table:
        for name in sorted(licence_names(licences)):
            if name not in standalone:
                fail(f"packaging/copyright: {source}'s licence {name} is not among its License paragraphs")

    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"licence: Apache-2.0 in LICENSE and the chart; packaging/copyright: {len(files)} Files "
          f"paragraphs, {len(standalone)} licences in full, {len(table)} source packages")


if __name__ == "__main__":
    main()
