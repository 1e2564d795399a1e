#!/usr/bin/python3
"""The layering check of rooflens: lower layers never use higher ones.

The map is ONE table, in docs/architecture.md between <!-- layers:begin -->
and <!-- layers:end -->: a layer's name, its files (backquoted paths or globs
relative to the repository root) and the layers it may use. This script
checks, against that table:

  * every file of core/src/**, core/include/*, cli/* and wasm/api.c is in
    exactly one layer (a new file in no layer fails);
  * every `#include "..."` in those files lands in the file's own layer or in
    one its row names;
  * with --archive, every function a core object file calls in another
    (nm of librooflens_core.a) obeys the same rule;
  * the "may use" relation has no cycle (the arrows are one-way);
  * the analysis contract, core/include/rooflens.h, names no cJSON type: the
    helpers that read an answer with cJSON are rooflens_text.h's;
  * with --archive, no circle between the files of the core: no two files
    that call each other, nor a longer ring of calls (a.c calls b.c calls
    c.c calls a.c), even inside one layer; a circle is reported with the
    function each step calls.

The page has a map of its own, the table between <!-- page-layers:begin -->
and <!-- page-layers:end -->: every web/js/*.js is in exactly one layer, and
every import it makes (static, re-export or dynamic import(); relative paths
resolved, a package name as npm:NAME) lands in its own layer or in one its
row names; that relation has no cycle either.

Known violations are listed in the doc's allow-list table (between
<!-- allow:begin --> and <!-- allow:end -->): they are reported but do not
fail; an allow-list entry that matches no violation fails, so it is deleted
when the fix lands.

Usage: tools/checks/layers.py [--root DIR] [--archive librooflens_core.a]
       tools/checks/layers.py --self-test   (proves the check fails when it must)
Exit status 0 when the tree keeps the map, 1 otherwise.
"""
import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from source_checks import c_sources, report_case  # noqa: E402

DOC = "docs/architecture.md"
INCLUDE_DIRS = ("core/src", "core/include", "cli")  # the -I paths of the builds
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


class MapError(Exception):
    pass


def table_rows(text, begin, end):
    """The cells of each body row of the Markdown table between two markers."""
    try:
        block = text.split(begin, 1)[1].split(end, 1)[0]
    except IndexError:
        raise MapError(f"{DOC}: the markers {begin} ... {end} are missing")
    rows = []
    for line in block.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if set("".join(cells)) <= set("- :"):
            continue  # the separator row
        rows.append(cells)
    return rows[1:]  # drop the header row


def read_layer_table(text, begin, end):
    """The layers of the Markdown table between two markers: name ->
    {"files": [globs], "uses": set()}, in table order."""
    layers = {}
    for cells in table_rows(text, begin, end):
        if len(cells) != 3:
            raise MapError(f"{DOC}: layer row needs 3 cells (Layer | Files | May use): {cells}")
        name, files, uses = cells
        if name in layers:
            raise MapError(f"{DOC}: layer '{name}' appears twice")
        globs = re.findall(r"`([^`]+)`", files)
        if not globs:
            raise MapError(f"{DOC}: layer '{name}' lists no files")
        layers[name] = {"files": globs, "uses": {u.strip() for u in uses.split(",") if u.strip()}}
    for name in layers:
        for u in layers[name]["uses"]:
            if u not in layers:
                raise MapError(f"{DOC}: layer '{name}' may use '{u}', which is no layer")
    return layers


def read_doc(root):
    with open(os.path.join(root, DOC), encoding="utf-8") as f:
        return f.read()


def read_map(root):
    text = read_doc(root)
    layers = read_layer_table(text, "<!-- layers:begin -->", "<!-- layers:end -->")
    order = list(layers)
    allow = []  # (from, to, "include" | "call")
    for cells in table_rows(text, "<!-- allow:begin -->", "<!-- allow:end -->"):
        if len(cells) != 5 or cells[2] not in ("include", "call"):
            raise MapError(f"{DOC}: allow-list row needs 5 cells (From | To | Seen as: include or call | Reason | Fixed by): {cells}")
        src, dst = (c.strip("`") for c in cells[:2])
        allow.append((src, dst, cells[2]))
    return layers, order, allow


def find_cycle(layers):
    """A list of layer names forming a cycle of the may-use relation, or None."""
    state = {}

    def visit(n, path):
        state[n] = 1
        for u in sorted(layers[n]["uses"]):
            if state.get(u) == 1:
                return path[path.index(u):] + [u] if u in path else [n, u]
            if u not in state:
                c = visit(u, path + [u])
                if c:
                    return c
        state[n] = 2
        return None

    for n in layers:
        if n not in state:
            c = visit(n, [n])
            if c:
                return c
    return None


def call_circles(edges):
    """The circles of calls between files: each strongly connected set of
    two or more files of the call edges (src, dst, "call", how), as a list
    of steps (src, dst, how) that goes round it once. Tarjan's algorithm,
    without recursion (a deep chain of files must not hit Python's limit)."""
    succ = {}
    how = {}
    for src, dst, kind, h in edges:
        if kind != "call" or src == dst:
            continue
        succ.setdefault(src, set()).add(dst)
        succ.setdefault(dst, set())
        how.setdefault((src, dst), h)
    index, low, on, stack, sets = {}, {}, set(), [], []
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(succ[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                members = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    members.append(w)
                    if w == v:
                        break
                if len(members) > 1:
                    sets.append(sorted(members))
    circles = []
    for members in sets:
        # one way round: from the first file, a shortest path back to it
        # through the set (breadth first)
        inside = set(members)
        start = members[0]
        prev = {}
        queue = [start]
        while queue and start not in prev:
            nxt = []
            for v in queue:
                for w in sorted(succ[v] & inside):
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
            queue = nxt
        path, v = [], start
        while True:
            u = prev[v]
            path.append((u, v, how[(u, v)]))
            v = u
            if v == start:
                break
        circles.append(list(reversed(path)))
    return sorted(circles)


def layer_of(path, layers):
    hits = [n for n, l in layers.items() if any(fnmatch.fnmatchcase(path, g) for g in l["files"])]
    return hits


def resolve_include(root, src, name):
    """The repository path an #include "name" in src reaches, or name itself
    when it is no file of the tree (a generated header such as onnx.pb-c.h)."""
    for d in (os.path.dirname(src),) + INCLUDE_DIRS:
        p = os.path.normpath(os.path.join(d, name)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, p)):
            return p
    return name


def archive_calls(archive):
    """(caller object, callee object, symbol) for each call across objects of
    a static library, from nm's output."""
    out = subprocess.run(["nm", "-A", archive], capture_output=True, text=True, check=True).stdout
    return calls_from_nm(out)


def calls_from_nm(nm_text):
    defs, uses = {}, []
    for line in nm_text.splitlines():
        m = re.match(r"^(?:[^:]*:)?([^:\s]+\.o):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$", line.strip())
        if not m:
            continue
        obj, kind, sym = m.groups()
        if kind == "U":
            uses.append((obj, sym))
        elif kind in "TDRBC":
            defs[sym] = obj
    return sorted({(obj, defs[sym], sym) for obj, sym in uses if sym in defs and defs[sym] != obj})


def check_map(title, layers, files, edges, out):
    """The checks both maps share: the may-use relation has no cycle, each
    file is in exactly one layer, and each edge (src, dst, kind, how) lands
    in its source's layer or in one that layer may use. Returns (failures,
    violations): a violation is keyed (src, dst, kind) so that an allow-list
    can excuse it; files in no layer and cycles are failures outright."""
    failures = 0
    cycle = find_cycle(layers)
    if cycle:
        print(f"FAIL {title} may-use relation has a cycle: {' -> '.join(cycle)} (arrows must be one-way)", file=out)
        failures += 1
    where = {}
    for f in files:
        hits = layer_of(f, layers)
        if len(hits) == 1:
            where[f] = hits[0]
            continue
        print(f"FAIL {f} is in {'no layer' if not hits else 'several layers (' + ', '.join(hits) + ')'}: "
              f"it belongs in exactly one row of {title} table in {DOC}", file=out)
        failures += 1
    violations = {}
    for src, dst, kind, how in edges:
        ls = where.get(src)
        if ls is None:
            continue  # already reported
        ld = where.get(dst)
        if ld is None:
            hits = layer_of(dst, layers)
            ld = hits[0] if len(hits) == 1 else None
        if ld is None:
            violations.setdefault((src, dst, kind), f"{src} ({ls}) {how} {dst}, which is in no layer")
        elif ld != ls and ld not in layers[ls]["uses"]:
            violations.setdefault((src, dst, kind), f"{src} ({ls}) {how} {dst} ({ld}): '{ls}' may not use '{ld}'")
    return failures, violations


def c_edges(root, files, archive, nm_text):
    """Each #include of the C sources, and with an archive (or nm text) each
    call across its object files, as (src, dst, kind, how)."""
    edges = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            for name in INCLUDE_RE.findall(fh.read()):
                edges.append((f, resolve_include(root, f, name), "include", "includes"))
    if archive or nm_text is not None:
        by_object = {}
        for f in files:
            if f.endswith(".c") and f.startswith("core/"):
                by_object.setdefault(os.path.basename(f) + ".o", []).append(f)
        calls = calls_from_nm(nm_text) if nm_text is not None else archive_calls(archive)
        for caller, callee, sym in calls:
            a, b = by_object.get(caller), by_object.get(callee)
            if not a or not b or len(a) > 1 or len(b) > 1:
                continue  # generated code (onnx.pb-c.c) or an ambiguous name
            edges.append((a[0], b[0], "call", f"calls {sym} of"))
    return edges


def check(root, archive=None, out=sys.stdout, nm_text=None):
    """Returns the number of failures; prints each."""
    try:
        layers, order, allow = read_map(root)
    except (MapError, OSError) as e:
        print(f"FAIL {e}", file=out)
        return 1
    files = c_sources(root)
    edges = c_edges(root, files, archive, nm_text)
    failures, violations = check_map("the core's", layers, files, edges, out)
    for circle in call_circles(edges):
        steps = "; ".join(f"{a} {h} {b}" for a, b, h in circle)
        print(f"FAIL a circle between the core's files ({len(circle)} files call each other round): {steps}. "
              f"Break it: move what both need into a file of its own, or let the caller pass it in", file=out)
        failures += 1
    allowed = set(allow)
    for key, what in sorted(violations.items()):
        if key in allowed:
            print(f"allowed (known, see the allow-list in {DOC}): {what}", file=out)
        else:
            print(f"FAIL {what}", file=out)
            failures += 1
    for key in allow:
        if key not in violations and (archive or nm_text is not None or key[2] == "include"):
            print(f"FAIL allow-list entry {key[0]} -> {key[1]} matches no violation any more: delete it from {DOC}", file=out)
            failures += 1
    contract = os.path.join(root, "core/include/rooflens.h")
    if os.path.exists(contract):
        with open(contract, encoding="utf-8") as f:
            if re.search(r"\bcJSON\b", f.read()):
                print("FAIL core/include/rooflens.h names cJSON: the analysis contract speaks JSON text only; "
                      "a helper over cJSON's objects goes in core/include/rooflens_text.h", file=out)
                failures += 1
    page_failures = check_page(root, out)
    if failures == 0:
        print(f"layers ok: {len(files)} files in {len(layers)} layers, "
              f"{'includes and calls' if archive or nm_text is not None else 'includes'} checked, {len(violations)} known violation(s) allowed",
              file=out)
    return failures + page_failures


# ------------------------------------------------------------------ the page
PAGE_DIR = "web/js"
PAGE_BEGIN, PAGE_END = "<!-- page-layers:begin -->", "<!-- page-layers:end -->"
JS_IMPORT_RES = (
    re.compile(r"^\s*(?:import|export)\b[^;'\"]*?\bfrom\s*['\"]([^'\"]+)['\"]", re.M),  # import x from, export {x} from
    re.compile(r"^\s*import\s*['\"]([^'\"]+)['\"]", re.M),                                 # import 'side-effect'
    re.compile(r"\bimport\(\s*['\"]([^'\"]+)['\"]\s*\)"),                                    # import('...')
)


def page_sources(root):
    d = os.path.join(root, PAGE_DIR)
    if not os.path.isdir(d):
        return []
    return sorted(f"{PAGE_DIR}/{n}" for n in os.listdir(d) if n.endswith((".js", ".mjs")))


def js_imports(text):
    """The module specifiers a script imports, comments left out."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    return [m for r in JS_IMPORT_RES for m in r.findall(text)]


def resolve_js(src, spec):
    """A repository path for a relative specifier, npm:NAME for a package."""
    if spec.startswith((".", "/")):
        return os.path.normpath(os.path.join(os.path.dirname(src), spec)).replace(os.sep, "/")
    return "npm:" + spec


def check_page(root, out):
    """The page's layers: returns the number of failures; prints each. The
    page has no allow-list: every violation fails."""
    try:
        layers = read_layer_table(read_doc(root), PAGE_BEGIN, PAGE_END)
    except (MapError, OSError) as e:
        print(f"FAIL {e}", file=out)
        return 1
    files = page_sources(root)
    edges = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            edges += [(f, resolve_js(f, spec), "import", "imports") for spec in js_imports(fh.read())]
    failures, violations = check_map("the page's", layers, files, edges, out)
    for _, what in sorted(violations.items()):
        print(f"FAIL {what}", file=out)
    failures += len(violations)
    if failures == 0:
        print(f"page layers ok: {len(files)} scripts in {len(layers)} layers, {len(edges)} imports checked", file=out)
    return failures


def self_test(repo_root):
    """Runs the check on copies of the tree with one flaw put in each, and
    fails unless each flaw is caught (and the untouched copy passes)."""
    import io

    def copy_tree():
        d = tempfile.mkdtemp(prefix="rooflens-layers-")
        for sub in ("docs", "core", "cli", "wasm", "web"):
            shutil.copytree(os.path.join(repo_root, sub), os.path.join(d, sub),
                            ignore=shutil.ignore_patterns("*.md") if sub != "docs" else None)
        return d

    def append(path, text):
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)

    def edit_row(d, start, old_end, new_end):
        """The map's row that starts with `start`: its end replaced (the
        files in between may change without breaking the self-test)."""
        p = os.path.join(d, DOC)
        with open(p, encoding="utf-8") as f:
            lines = f.read().split("\n")
        hit = [i for i, ln in enumerate(lines) if ln.startswith(start) and ln.endswith(old_end)]
        assert hit, start
        lines[hit[0]] = lines[hit[0]][: -len(old_end)] + new_end
        with open(p, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))

    def edit_doc(d, old, new):
        p = os.path.join(d, DOC)
        with open(p, encoding="utf-8") as f:
            text = f.read()
        assert old in text, old
        with open(p, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))

    cases = [
        ("the untouched tree passes", None, None),
        ("an upward include (reader.c includes timing.h) fails",
         ("core/src/reader.c", '\n#include "timing.h"\n'),
         "core/src/reader.c (reader) includes core/src/timing.h (timing)"),
        ("an include of an op header from the graph layer fails",
         ("core/src/model.c", '\n#include "ops/families.h"\n'),
         "'graph' may not use 'ops'"),
        ("a face including a core header fails",
         ("cli/main.c", '\n#include "../core/src/hw.h"\n'),
         "cli/main.c (faces) includes core/src/hw.h (hardware)"),
        ("the analysis contract naming cJSON fails",
         ("core/include/rooflens.h", "\nstruct cJSON;\n"),
         "core/include/rooflens.h names cJSON"),
        ("a core file in no layer fails",
         ("core/src/newmodule.c", "int rl_new(void);\n"),
         "core/src/newmodule.c is in no layer"),
        ("a cycle in the map fails",
         lambda d: edit_row(d, "| reader |", "| public, base |", "| public, base, graph |"),
         "the core's may-use relation has a cycle"),
        ("a stale allow-list entry fails",
         lambda d: edit_doc(d, "<!-- allow:end -->",
                            "| `core/src/arena.c` | `core/src/hw.h` | include | test | test |\n<!-- allow:end -->"),
         "allow-list entry core/src/arena.c -> core/src/hw.h matches no violation"),
    ]
    # the page's state row as the map gives it today (a new state module must not break the self-test)
    with open(os.path.join(repo_root, "docs", "architecture.md"), encoding="utf-8") as f:
        state_row = next(line for line in f.read().splitlines() if line.startswith("| state | `web/js/"))
    cases += [
        ("the page: a state module importing a view fails",
         ("web/js/state.js", "\nimport { LayerTable } from './table.js';\n"),
         "web/js/state.js (state) imports web/js/table.js (views): 'state' may not use 'views'"),
        ("the page: a view importing the controller fails",
         ("web/js/charts.js", "\nexport { app } from './app.js';\n"),
         "web/js/charts.js (views) imports web/js/app.js (controller): 'views' may not use 'controller'"),
        ("the page: a dynamic import is checked too (the controller loading the WASM binding)",
         ("web/js/main.js", "\nconst lazy = () => import('./core.js');\n"),
         "web/js/main.js (controller) imports web/js/core.js (reading): 'controller' may not use 'reading'"),
        ("the page: a package no row names fails",
         ("web/js/table.js", "\nimport 'left-pad';\n"),
         "web/js/table.js (views) imports npm:left-pad, which is in no layer"),
        ("the page: a script in no layer fails",
         ("web/js/newview.js", "export const x = 1;\n"),
         "web/js/newview.js is in no layer"),
        ("the page: a cycle in its map fails",
         lambda d: edit_doc(d, state_row, state_row[:-2] + " views |"),
         "the page's may-use relation has a cycle"),
    ]
    bad = 0
    # nm output made up for the purpose: reader.c calling rl_time_graph (timing)
    fake_nm = ("lib.a:reader.c.o:                 U rl_time_graph\n"
               "lib.a:reader.c.o:0000000000000000 T rl_reader_new\n"
               "lib.a:timing.c.o:0000000000000010 T rl_time_graph\n"
               "lib.a:analyze.c.o:                 U rl_time_graph\n")
    cases.append(("an upward call (reader.c calls rl_time_graph of timing.c) fails", "nm",
                  "core/src/reader.c (reader) calls rl_time_graph of core/src/timing.c (timing)"))
    for title, flaw, expect in cases:
        d = copy_tree()
        try:
            nm = None
            if flaw == "nm":
                nm = fake_nm
            elif isinstance(flaw, tuple) and flaw[0] == "nm":  # ("nm", made-up nm output)
                nm = flaw[1]
            elif isinstance(flaw, tuple):   # (path, text appended to it)
                append(os.path.join(d, flaw[0]), flaw[1])
            elif flaw:
                flaw(d)
            buf = io.StringIO()
            n = check(d, None, buf, nm)
            got = buf.getvalue()
            ok = (n == 0) if expect is None else (n > 0 and expect in got)
        finally:
            shutil.rmtree(d)
        bad += report_case(title, ok, got)
    # two files of one layer that call each other (as timing.c and forecast.c did)
    circle_nm = ("lib.a:timing.c.o:                 U rl_forecast_graph\n"
                 "lib.a:timing.c.o:0000000000000000 T rl_time_graph\n"
                 "lib.a:forecast.c.o:                 U rl_time_graph\n"
                 "lib.a:forecast.c.o:0000000000000010 T rl_forecast_graph\n")
    cases.append(("two core files that call each other fail", ("nm", circle_nm),
                  "a circle between the core's files (2 files call each other round): "
                  "core/src/forecast.c calls rl_time_graph of core/src/timing.c; "
                  "core/src/timing.c calls rl_forecast_graph of core/src/forecast.c"))
    # a ring of three files: no two of them call each other
    ring_nm = ("lib.a:reader.c.o:                 U rl_b\nlib.a:reader.c.o:0000000000000000 T rl_a\n"
               "lib.a:tensor.c.o:                 U rl_c\nlib.a:tensor.c.o:0000000000000000 T rl_b\n"
               "lib.a:graph.c.o:                 U rl_a\nlib.a:graph.c.o:0000000000000000 T rl_c\n")
    cases.append(("a ring of three core files fails", ("nm", ring_nm),
                  "a circle between the core's files (3 files call each other round): core/src/graph.c calls rl_a of "
                  "core/src/reader.c; core/src/reader.c calls rl_b of core/src/tensor.c; core/src/tensor.c calls rl_c "
                  "of core/src/graph.c"))
    calls = calls_from_nm(fake_nm)
    ok = calls == [("analyze.c.o", "timing.c.o", "rl_time_graph"), ("reader.c.o", "timing.c.o", "rl_time_graph")]
    bad += report_case("nm output gives the calls across objects", ok)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--archive", help="librooflens_core.a, to check calls across object files too")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        sys.exit(1 if self_test(a.root) else 0)
    sys.exit(1 if check(a.root, a.archive) else 0)


if __name__ == "__main__":
    main()
