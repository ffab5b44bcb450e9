#!/usr/bin/env python3
"""Every test case's name is one ctest can run as its own entry.

    tests/test_names.py GPULINT_TESTS

catch_discover_tests makes a ctest entry per test case that runs the binary
with the name as its test spec. CMake cuts a name at ';' into two entries,
and Catch reads a spec that starts with '-' as an option, one that starts
with 'exclude:' or '~' as "every test but", a '*' at either end as a
wildcard and '\\' as an escape (',' '[' ']' are escaped by CMake's Catch
module): such an entry runs the wrong tests, or none. Exit status 1 names
each.
"""
import subprocess
import sys

BAD_ANYWHERE = {";": "CMake cuts it there", "\\": "Catch reads it as an escape"}
BAD_START = {"-": "Catch reads it as an option", "~": "Catch reads it as 'all but'",
             "exclude:": "Catch reads it as 'all but'", " ": "ctest trims it",
             "*": "Catch reads it as a wildcard"}


def main():
    if len(sys.argv) != 2:
        print("usage: tests/test_names.py GPULINT_TESTS", file=sys.stderr)
        return 2
    # Catch v2 exits with the number of tests listed.
    names = subprocess.run([sys.argv[1], "--list-test-names-only"],
                           capture_output=True, text=True).stdout.splitlines()
    names = [n for n in names if n]
    bad = []
    for name in names:
        why = [w for c, w in BAD_ANYWHERE.items() if c in name]
        why += [w for p, w in BAD_START.items() if name.startswith(p)]
        if name.endswith(" "):
            why.append("ctest trims it")
        if name.endswith("*"):
            why.append("Catch reads it as a wildcard")
        if why:
            bad.append(f"  {name!r}: {'; '.join(why)}")
    if len(names) < 100:
        print(f"only {len(names)} test names listed: is this gpulint_tests?", file=sys.stderr)
        return 1
    if bad:
        print("test names ctest cannot run as they are:", *bad, sep="\n", file=sys.stderr)
        return 1
    print(f"{len(names)} test names, each runnable on its own")
    return 0


if __name__ == "__main__":
    sys.exit(main())
