#!/usr/bin/python3
"""Every path under tools/ that the tree names exists.

Scripts move (tools/ is grouped by purpose, tools/README.md), and a command
in a document, a CI step or another script that names the old path fails
only when somebody runs it. This check reads the README, the docs (their
Markdown and the data files that say which script made them), the hardware
profiles, the CI files (.ci/run, .github/workflows, action.yml), every
CMakeLists.txt, the Makefile, package.json and the sources of tools/,
tests/, web/, wasm/, core/ and cli/, and fails on each `tools/...` path
that names no file or folder of the tree.

    tools/checks/tool_paths.py --root REPO_ROOT
    tools/checks/tool_paths.py --self-test

A path under a build folder (build/tools/gen_operator_doc is a program the
build makes) is not a source path and is left alone, as is a pattern
(tools/bench/*.mjs). Exit status 1, with each file, line and path, when a
path is stale."""
import argparse
import os
import re
import sys
import tempfile

FILES = ("README.md", "Makefile", "action.yml", "package.json", ".ci/run")
DIRS = ("docs", "hw", ".github/workflows", ".ci", "tools", "tests", "web", "wasm", "core", "cli")
SUFFIXES = (".md", ".json", ".yml", ".yaml", ".sh", ".py", ".mjs", ".js", ".c", ".h", ".txt", ".html", ".cmake")
SKIPPED_DIRS = {"node_modules", "vendor", "samples", "__pycache__", ".git"}
SELF = "tools/checks/tool_paths.py"
LARGEST = 4 << 20  # bytes; the large fixtures are models, not text that names scripts

# The text before "tools/" (a root such as ${CMAKE_SOURCE_DIR}/ or ../../)
# and the path itself; a path ends before a character no file name here has.
MENTION = re.compile(r"([\w.${}/-]*)\btools/([\w./-]*)")
# A path joined from its parts: os.path.join(ROOT, "tools", "make-models", "x.py")
JOINED = re.compile(r"""["']tools["']((?:\s*,\s*["'][\w.-]+["'])+)""")
PART = re.compile(r"""["']([\w.-]+)["']""")
BUILD_PREFIX = re.compile(r"(^|/)(build[\w-]*|\$B|\$\{?BUILD_DIR\}?)/$")


def scanned_files(root):
    """Repository-relative paths of the files whose text is read."""
    out = [f for f in FILES if os.path.isfile(os.path.join(root, f))]
    for d in DIRS:
        for dirpath, dirnames, names in os.walk(os.path.join(root, d)):
            dirnames[:] = sorted(n for n in dirnames if n not in SKIPPED_DIRS)
            for n in sorted(names):
                if n.endswith(SUFFIXES) or n == "CMakeLists.txt" or d == ".ci":
                    out.append(os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/"))
    out.append("CMakeLists.txt")
    return sorted(set(p for p in out if os.path.isfile(os.path.join(root, p))))


def mentions(text):
    """[(line number, 'tools/...')] for each tools path the text names as a
    source path (not a build output, not a pattern)."""
    found = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in MENTION.finditer(line):
            prefix, rest = m.group(1), m.group(2).rstrip(".")
            if prefix and not prefix.endswith("/"):
                continue  # another word ending in "tools", e.g. devtools/
            if BUILD_PREFIX.search(prefix):
                continue  # a program the build makes, not a file of the tree
            after = line[m.end():m.end() + 1]
            if after in ("*", "{", "<", "$") or "*" in rest:
                continue  # a pattern or a name completed at run time
            found.append((lineno, "tools/" + rest))
        for m in JOINED.finditer(line):
            found.append((lineno, "/".join(["tools"] + PART.findall(m.group(1)))))
    return found


def stale_paths(root):
    """[(file, line, path)] for every named tools path that does not exist."""
    stale = []
    for path in scanned_files(root):
        if path == SELF:
            continue  # its self-test names stale paths on purpose
        full = os.path.join(root, path)
        if os.path.getsize(full) > LARGEST:
            continue
        try:
            with open(full, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            continue  # a binary fixture
        for lineno, named in mentions(text):
            if not os.path.exists(os.path.join(root, named)):
                stale.append((path, lineno, named))
    return stale


def check(root):
    stale = stale_paths(root)
    for path, lineno, named in stale:
        print(f"{path}:{lineno}: names {named}, which does not exist: write its path under tools/ now "
              "(tools/README.md lists every script)")
    print(f"tool paths: {len(stale)} stale in {len(scanned_files(root))} files read")
    return 1 if stale else 0


def self_test():
    """A small tree with one good and one stale mention of each kind; the
    check must flag exactly the stale ones."""
    cases = {
        "README.md": "Run `tools/run.sh` then tools/gone.sh.\n",
        "docs/a.md": "build/tools/gen_doc is built; tools/bench/*.mjs are benchmarks; devtools/x.sh is not ours.\n",
        ".ci/run": "tools/ci/\ntools/old-dir/x.py\n",
        "CMakeLists.txt": 'add_test(NAME t COMMAND "${CMAKE_SOURCE_DIR}/tools/checks/x.py")\n'
                          'add_test(NAME u COMMAND "${CMAKE_SOURCE_DIR}/tools/x-old.py")\n',
        "tests/web/a.test.mjs": "await import('../../tools/make/huge.mjs');\n",
        "tests/a.py": 'run(os.path.join(ROOT, "tools", "ci", "a.sh"))\nsys.path.insert(0, join(HERE, "tools", "gone"))\n',
    }
    want = {("README.md", 1, "tools/gone.sh"), (".ci/run", 2, "tools/old-dir/x.py"),
            ("CMakeLists.txt", 2, "tools/x-old.py"), ("tests/web/a.test.mjs", 1, "tools/make/huge.mjs"),
            ("tests/a.py", 2, "tools/gone")}
    with tempfile.TemporaryDirectory() as root:
        for f in ("tools/run.sh", "tools/ci/a.sh", "tools/checks/x.py", "tools/bench/a.mjs"):
            os.makedirs(os.path.dirname(os.path.join(root, f)), exist_ok=True)
            open(os.path.join(root, f), "w").close()
        for f, text in cases.items():
            os.makedirs(os.path.dirname(os.path.join(root, f)) or root, exist_ok=True)
            with open(os.path.join(root, f), "w") as out:
                out.write(text)
        got = set(stale_paths(root))
    for s in sorted(want - got):
        print(f"self-test: missed {s}")
    for s in sorted(got - want):
        print(f"self-test: flagged a good path {s}")
    print(f"self-test: {len(want)} stale paths, {len(want & got)} caught, {len(got - want)} wrongly flagged")
    return 0 if got == want else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--self-test", action="store_true", help="run the check on a small tree of known verdict")
    args = ap.parse_args()
    return self_test() if args.self_test else check(args.root)


if __name__ == "__main__":
    sys.exit(main())
