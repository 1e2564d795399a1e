#!/usr/bin/env python3
"""One colour per bound: the core's table of bounds (core/src/words.c,
BOUNDS) is the only source file that spells a bound's colour. The page
reads the colours from rl_words() and the CLI from the answer's
graph.colors, so a second spelling (a chart's own palette, a fallback grey)
is a copy that can drift, as Compare's blue compute once did.
    tools/checks/bound_colors.py --root REPO_ROOT
Exit status 1, with each file and colour, when another source file (the
core, the CLI, the WebAssembly face, the page's scripts, styles and HTML)
spells one."""
import argparse
import os
import re
import sys

TABLE = "core/src/words.c"
SCANNED = ("core", "cli", "wasm", "web")
SUFFIXES = (".c", ".h", ".js", ".mjs", ".css", ".html")
ROW = re.compile(r'\[RL_BOUND_(\w+)\]\s*=\s*\{"(\w+)",.*?"(#[0-9a-fA-F]{6})"\}', re.S)


def bound_colors(root):
    """{colour (lower case): bound id} from the table."""
    with open(os.path.join(root, TABLE), encoding="utf-8") as f:
        return {m.group(3).lower(): m.group(2) for m in ROW.finditer(f.read())}


def spellings(root, colors):
    """[(path, colour, bound)] for every bound colour spelled outside the table."""
    found = []
    for d in SCANNED:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for n in sorted(names):
                path = os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/")
                if path == TABLE or not n.endswith(SUFFIXES):
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    text = f.read().lower()
                found += [(path, c, b) for c, b in colors.items() if c in text]
    return sorted(found)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    root = ap.parse_args().root
    colors = bound_colors(root)
    if len(colors) < 5:
        print(f"{TABLE}: found {len(colors)} bound colours; is BOUNDS still the table?")
        return 1
    found = spellings(root, colors)
    for path, c, b in found:
        print(f"{path}: spells {c}, the colour of bound {b}: read it from the core's words (rl_words) instead")
    print(f"bound colours: {len(colors)} in {TABLE}, {len(found)} spelled elsewhere")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
