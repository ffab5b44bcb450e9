#!/usr/bin/env python3
"""ARCHITECTURE.md's recipe for a rule, held to the tree and to the scaffold.

    tests/new_rule_test.py SOURCE_DIR CXX

1. Every path the recipe ("Where to add", "A rule") names is in the tree: a
   rule's own paths with <name> taken as an existing rule's.
2. scripts/new-rule, run into a copy of the tree, writes the rule's source,
   its registry entry and its golden cases; the copy configures (cmake), and
   its build compiles the new source and its example in (the library's build
   rules, generated/rule_examples.h); the new source compiles (-fsyntax-only,
   with the library's flags). The copy is not built and its tests are not run:
   that would cost a full build (ten minutes on two cores). That the
   placeholder's golden cases pass was checked by hand, once, in a built tree.
3. It refuses a name that exists, and a name that is not kebab-case.
"""
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print("FAIL: " + message)


def recipe(root):
    text = (root / "ARCHITECTURE.md").read_text()
    start = text.find("- **A rule.**")
    end = text.find("- **A workload kind**", start)
    check(start >= 0 and end > start, "ARCHITECTURE.md has no recipe for a rule ('- **A rule.**')")
    return text[start:end]


def check_recipe(root):
    section = recipe(root)
    check("./dev new-rule" in section and "scripts/new-rule" in section,
          "the recipe names the scaffold (./dev new-rule, scripts/new-rule)")
    paths = [p for p in re.findall(r"`([^`\s]+)`", section)
             if "/" in p and not p.startswith("./") and not p.startswith("-")]
    check(len(paths) >= 10, f"the recipe names {len(paths)} paths; it should name every place")
    for path in paths:
        # A rule's own places, as an existing rule has them.
        real = path.replace("<name>", "gpu_fractional" if path.startswith("engine/")
                            else "gpu-fractional")
        check(bool(list(root.glob(real))), f"the recipe names {path}, which is not in the tree")
    print(f"recipe: {len(paths)} paths, all in the tree" if not failures else "recipe: failed")


def copy_tree(root, into):
    ignore = shutil.ignore_patterns(".git", ".cache", "build", "build-*", "__pycache__")
    shutil.copytree(root, into, ignore=ignore, symlinks=True)


def new_rule(tree, name):
    return subprocess.run([sys.executable, str(tree / "scripts" / "new-rule"), name],
                          capture_output=True, text=True)


def check_scaffold(root, cxx):
    before = len(failures)
    with tempfile.TemporaryDirectory() as tmp:
        tree = pathlib.Path(tmp) / "tree"
        copy_tree(root, tree)
        made = new_rule(tree, "sample-rule")
        check(made.returncode == 0, f"scripts/new-rule sample-rule: {made.stderr}")
        source = tree / "engine/rules/sample_rule.cc"
        cases = tree / "testdata/rules/sample-rule"
        for path in (source, cases / "fail-example.yaml", cases / "fail-example.expected",
                     cases / "pass-example.yaml"):
            check(path.is_file(), f"the scaffold wrote no {path.relative_to(tree)}")
        registry = (tree / "engine/rules/registry.cc").read_text()
        check("extern const Rule kSampleRuleRule;\n" in registry,
              "the registry declares the new rule")
        rules = registry[registry.find("kRules = {"):registry.find("return kRules;")]
        check("&kSampleRuleRule," in rules, "the registry lists the new rule")
        check('{"sample-rule", Severity::' in source.read_text(), "the source names the rule")

        again = new_rule(tree, "sample-rule")
        check(again.returncode == 2 and "exists already" in again.stderr,
              "a second scripts/new-rule sample-rule is refused")
        bad = new_rule(tree, "Sample_Rule")
        check(bad.returncode == 2 and "kebab-case" in bad.stderr, "a name not in kebab-case is refused")
        taken = new_rule(tree, "gpu-fractional")
        check(taken.returncode == 2, "an existing rule's name is refused")

        build = tree / "build"
        configured = subprocess.run(
            ["cmake", "-S", str(tree), "-B", str(build), "-DGPULINT_BUILD_TESTS=OFF",
             "-DCMAKE_BUILD_TYPE=RelWithDebInfo"], capture_output=True, text=True)
        check(configured.returncode == 0, "the tree with the new rule configures:\n" +
              configured.stdout[-2000:] + configured.stderr[-2000:])
        if configured.returncode != 0:
            return
        examples = (build / "generated/rule_examples.h").read_text()
        check('rule == "sample-rule"' in examples, "its example is compiled in (rule_examples.h)")
        rules_dir = build / "CMakeFiles/gpulint_rules.dir"
        check("engine/rules/sample_rule.cc" in (rules_dir / "build.make").read_text(),
              "the rules library builds the new source")
        flags = {}
        for line in (rules_dir / "flags.make").read_text().splitlines():
            key, _, value = line.partition(" = ")
            flags[key] = value
        command = [cxx, *shlex.split(flags.get("CXX_DEFINES", "")),
                   *shlex.split(flags.get("CXX_INCLUDES", "")),
                   *shlex.split(flags.get("CXX_FLAGS", "")), "-fsyntax-only", str(source)]
        compiled = subprocess.run(command, capture_output=True, text=True, cwd=build)
        check(compiled.returncode == 0, "the new source compiles:\n" + compiled.stderr[-3000:])
        if len(failures) == before:
            print("scaffold: sample-rule written, registered, configured and compiled")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1]).resolve()
    check_recipe(root)
    check_scaffold(root, argv[2])
    if failures:
        print(f"{len(failures)} failed")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
