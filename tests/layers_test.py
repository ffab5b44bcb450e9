#!/usr/bin/env python3
"""Holds every #include in the layered folders to cmake/layers.cmake.

Usage: layers_test.py <build>/layers.txt <source dir>

A file in a layer's folder may include its own folder and the folders of the
layers it builds on, directly or through others; nothing above it or beside it.
Everything else fails:
  - a header named *_internal.h included from outside its folder (a folder
    exports the rest);
  - test support (*_test_support.h, *_test_util.h) included by code that ships;
  - a source file under a layer's top folder (engine/, lint/, webhook/,
    common/, kube/: every top folder the table names) outside every layer's
    folder, so that a new folder must be given a place in the table;
  - code that ships including a header from a folder in no layer (generated/,
    the build's generated headers, excepted): an include of tests/ or of a
    folder the table does not know fails rather than passes unchecked.
Tests (*_test.cc and test support) may include any header a front end may.

And the size every source file keeps: none of C++, Python or shell anywhere in
the tree (tests, scripts and benchmarks included; testdata and build trees
not) is over 500 lines.

And one type per name: no two files define a class or struct of the same name
in the same named namespace. The test binary links every layer, and the
linker keeps one of two inline constructors of that name whatever their
layouts (an ODR violation that only the sanitizers show, as a stack overflow).
Prints each violation as file:line: message and exits 1 when there is one.
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
GENERATED = "generated"  # headers the build writes (cmake/), below every layer
MAX_LINES = 500
SOURCE_SUFFIXES = (".cc", ".h", ".py", ".sh")
# Not walked for the size rule: data, and what tools write.
NOT_SOURCES = ("testdata", ".git", "node_modules", "__pycache__")


def is_test(path):
    name = os.path.basename(path)
    return name.endswith("_test.cc") or name.endswith("_test_support.h") or name.endswith(
        "_test_util.h")


def check(table_lines, src, roots=None):
    """The violations in `src`, as "file:line: message" strings. `roots`: the
    folders walked, by default the top folder of every layer's folder."""
    layers = {}  # name -> (folder, [builds on])
    for line in table_lines:
        if line.startswith("#") or not line.strip():
            continue
        name, folder, *below = line.split()
        layers[name] = (folder, below)
    by_folder = {folder: name for name, (folder, _) in layers.items()}
    if roots is None:
        roots = sorted({folder.split("/")[0] for folder, _ in layers.values()})

    def reach(name, seen=None):
        seen = set() if seen is None else seen
        for b in layers[name][1]:
            if b not in seen:
                seen.add(b)
                reach(b, seen)
        return seen

    problems = []
    checked = 0
    for root in roots:
        for dirpath, _, files in os.walk(os.path.join(src, root)):
            folder = os.path.relpath(dirpath, src)
            for f in sorted(files):
                if not (f.endswith(".cc") or f.endswith(".h")):
                    continue
                path = os.path.join(folder, f)
                layer = by_folder.get(folder)
                if layer is None:
                    problems.append(f"{path}:1: in no layer's folder (cmake/layers.cmake)")
                    continue
                allowed = reach(layer) | {layer}
                for n, text in enumerate(open(os.path.join(src, path)), 1):
                    m = INCLUDE.match(text)
                    if not m:
                        continue
                    target = m.group(1)
                    tfolder = os.path.dirname(target)
                    tname = os.path.basename(target)
                    checked += 1
                    if tname.endswith("_internal.h") and tfolder != folder:
                        problems.append(f"{path}:{n}: includes {target}, internal to {tfolder}/")
                    if is_test(path):
                        continue
                    if is_test(target):
                        problems.append(f"{path}:{n}: includes test support {target}")
                        continue
                    tlayer = by_folder.get(tfolder)
                    if tlayer is None:
                        if tfolder != GENERATED:
                            problems.append(f"{path}:{n}: includes {target}, from a folder in "
                                            "no layer (cmake/layers.cmake)")
                        continue
                    if tlayer in allowed:
                        continue
                    if layer in reach(tlayer):
                        why = f"layer {tlayer} is above {layer}"
                    else:
                        why = f"{layer} does not build on {tlayer}"
                    problems.append(f"{path}:{n}: includes {target}: {why}")
    return problems, checked, len(layers)


def too_long(src):
    """Source files over MAX_LINES lines, as "file:line: message" strings."""
    problems = []
    for dirpath, dirs, files in os.walk(src):
        # Not data, nor build trees (build/, build-arm64/, any CMakeCache.txt's folder).
        dirs[:] = sorted(d for d in dirs if d not in NOT_SOURCES and not d.startswith("build")
                         and not os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt")))
        for f in sorted(files):
            if not f.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(dirpath, f)
            with open(path, errors="replace") as text:
                n = sum(1 for _ in text)
            if n > MAX_LINES:
                problems.append(f"{os.path.relpath(path, src)}:{MAX_LINES + 1}: {n} lines, over "
                                f"the {MAX_LINES} a source file may have")
    return problems


NAMESPACE_OPEN = re.compile(r"^(?:inline\s+)?namespace\s*([A-Za-z_][\w:]*)?\s*\{")
NAMESPACE_CLOSE = re.compile(r"^\}\s*//\s*namespace")
TYPE = re.compile(r"^(?:struct|class)\s+([A-Za-z_]\w*)\b(?!::)[^;]*$")  # not A::B's B


def same_names(src, roots):
    """Types of one name defined in two files in the same named namespace."""
    seen = {}  # "ns::Name" -> first "file:line"
    problems = []
    for root in roots:
        for dirpath, dirs, files in os.walk(os.path.join(src, root)):
            dirs[:] = sorted(d for d in dirs if d not in NOT_SOURCES)
            for f in sorted(files):
                if not f.endswith((".cc", ".h")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, f), src)
                stack = []
                with open(os.path.join(src, path), errors="replace") as text:
                    for n, line in enumerate(text, 1):
                        opened = NAMESPACE_OPEN.match(line)
                        if opened:
                            stack.append(opened.group(1) or "")
                        elif NAMESPACE_CLOSE.match(line) and stack:
                            stack.pop()
                        defined = TYPE.match(line)
                        if not defined or "" in stack:
                            continue  # an anonymous namespace's is the file's own
                        name = "::".join(stack + [defined.group(1)])
                        first = seen.setdefault(name, f"{path}:{n}")
                        if not first.startswith(path + ":"):
                            problems.append(f"{path}:{n}: defines {name}, as {first} does: "
                                            "one of the two must be renamed or made the file's own")
    return problems


def self_test():
    """The check finds each kind of violation in a small tree made for it."""
    with tempfile.TemporaryDirectory() as src:
        files = {
            "x/low/low.h": "",
            "x/low/low_internal.h": "",
            "x/low/low_test_support.h": "",
            "x/low/low.cc": '#include "x/high/high.h"\n',  # upward
            "x/high/high.h": '#include "x/low/low.h"\n',  # fine
            "x/high/high.cc": '#include "x/low/low_internal.h"\n'  # internal
                              '#include "x/low/low_test_support.h"\n',  # test support
            "x/high/high_test.cc": '#include "x/low/low_test_support.h"\n',  # fine
            "x/stray/stray.cc": "",  # in no layer
            "x/high/long.sh": "echo\n" * 501,  # too long
            "x/high/fits.py": "\n" * 500,  # fine
            "testdata/long.sh": "echo\n" * 501,  # data: not a source file
            "build-x/long.cc": "\n" * 501,  # a build tree's
            "x/high/unknown.cc": '#include "generated/version.h"\n'  # fine
                                 '#include "y/elsewhere.h"\n'  # a folder in no layer
                                 '#include "tests/temp_dir.h"\n',  # likewise
        }
        for name, text in files.items():
            os.makedirs(os.path.join(src, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(src, name), "w") as f:
                f.write(text)
        problems, _, _ = check(["low x/low", "high x/high low"], src)  # roots: x, from the table
        want = ["x/high/high.cc:1: includes x/low/low_internal.h, internal to x/low/",
                "x/high/high.cc:2: includes test support x/low/low_test_support.h",
                "x/high/unknown.cc:2: includes y/elsewhere.h, from a folder in no layer "
                "(cmake/layers.cmake)",
                "x/high/unknown.cc:3: includes tests/temp_dir.h, from a folder in no layer "
                "(cmake/layers.cmake)",
                "x/low/low.cc:1: includes x/high/high.h: layer high is above low",
                "x/stray/stray.cc:1: in no layer's folder (cmake/layers.cmake)"]
        if sorted(problems) != want:
            print("self-test: the check found", problems, "in a tree made to hold", want)
            return False
        with open(os.path.join(src, "x/low/one.h"), "w") as f:
            f.write("namespace g {\nstruct Same;\nstruct Same {\n};\n}  // namespace g\n")
        with open(os.path.join(src, "x/high/two.cc"), "w") as f:
            f.write("namespace g {\nnamespace {\nstruct Same {};\n}  // namespace\n"
                    "class Same : public Base {\n};\n}  // namespace g\n"
                    "namespace h {\nstruct Same {};\n}  // namespace h\n")
        clashes = same_names(src, ["x"])
        if clashes != ["x/low/one.h:3: defines g::Same, as x/high/two.cc:5 does: one of the two "
                       "must be renamed or made the file's own"]:
            print("self-test: the name check found", clashes)
            return False
        long_files = too_long(src)
        if long_files != ["x/high/long.sh:501: 501 lines, over the 500 a source file may have"]:
            print("self-test: the size check found", long_files)
            return False
    return True


def main():
    if not self_test():
        return 1
    with open(sys.argv[1]) as table:
        problems, checked, layers = check(table.readlines(), sys.argv[2])
    problems += too_long(sys.argv[2])
    problems += same_names(sys.argv[2], ["common", "engine", "kube", "lint", "webhook", "tests",
                                         "fuzz", "bench"])
    for p in problems:
        print(p)
    print(f"{checked} includes checked in {layers} layers, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
