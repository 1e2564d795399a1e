#!/usr/bin/python3
"""The WebAssembly module's exports, from their one source: the functions
wasm/api.c defines with EMSCRIPTEN_KEEPALIVE (plus Emscripten's malloc and
free, which the JS side uses to pass bytes in).

  tools/checks/wasm_exports.py --api wasm/api.c --out exports.json
      writes the list for emcc's -sEXPORTED_FUNCTIONS=@exports.json (run by
      wasm/CMakeLists.txt at configure time; rewritten only when it changes)
  tools/checks/wasm_exports.py --api wasm/api.c --check-js web/js/core.js [...]
      fails when a script calls a module function (m._name) that is not
      exported, or when an exported function is called by no script
  tools/checks/wasm_exports.py --self-test
"""
import argparse
import json
import os
import re
import sys
import tempfile

RUNTIME = ["_malloc", "_free"]  # Emscripten's allocator, not defined in api.c
KEEPALIVE_RE = re.compile(r"^EMSCRIPTEN_KEEPALIVE\b[^(;{]*?\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.M)
JS_CALL_RE = re.compile(r"\.m\._([A-Za-z_][A-Za-z0-9_]*)\b")


def exports_of(api_text):
    names = KEEPALIVE_RE.findall(api_text)
    if not names:
        raise SystemExit("wasm-exports: no EMSCRIPTEN_KEEPALIVE function found in the API file")
    return RUNTIME + ["_" + n for n in names]


def write_if_changed(path, text):
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def check_js(exports, scripts):
    """Problems (one line each) between the exports and the scripts' calls."""
    called = {}
    for path in scripts:
        with open(path, encoding="utf-8") as f:
            for name in JS_CALL_RE.findall(f.read()):
                called.setdefault("_" + name, path)
    problems = [f"{path} calls {name}, which wasm/api.c does not export (define it with EMSCRIPTEN_KEEPALIVE)"
                for name, path in sorted(called.items()) if name not in exports]
    problems += [f"{name} is exported but no script calls it: remove it from wasm/api.c or use it"
                 for name in exports if name not in called]
    return problems


def self_test():
    api = ("EMSCRIPTEN_KEEPALIVE const char *rlw_version(void) { return \"1\"; }\n"
           "EMSCRIPTEN_KEEPALIVE char *rlw_info(rl_model *m) {\n    return 0;\n}\n"
           "char *not_exported(void);\n")
    ex = exports_of(api)
    bad = 0
    cases = [
        ("the KEEPALIVE definitions are the exports", ex == ["_malloc", "_free", "_rlw_version", "_rlw_info"]),
    ]
    with tempfile.TemporaryDirectory() as d:
        js = os.path.join(d, "core.js")
        with open(js, "w") as f:
            f.write("this.m._malloc(1); this.m._free(0); this.m._rlw_version(); this.m._rlw_info(0);\n")
        cases.append(("scripts calling exactly the exports pass", check_js(ex, [js]) == []))
        with open(js, "a") as f:
            f.write("this.m._rlw_missing();\n")
        p = check_js(ex, [js])
        cases.append(("a call of a function not exported fails", len(p) == 1 and "_rlw_missing" in p[0]))
        with open(js, "w") as f:
            f.write("this.m._malloc(1); this.m._free(0); this.m._rlw_version();\n")
        p = check_js(ex, [js])
        cases.append(("an export no script calls fails", len(p) == 1 and "_rlw_info is exported" in p[0]))
    for title, ok in cases:
        print(f"{'ok  ' if ok else 'FAIL'} {title}")
        bad += 0 if ok else 1
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--api")
    ap.add_argument("--out")
    ap.add_argument("--check-js", nargs="+")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        sys.exit(1 if self_test() else 0)
    if not a.api:
        ap.error("--api is required")
    with open(a.api, encoding="utf-8") as f:
        exports = exports_of(f.read())
    if a.out:
        write_if_changed(a.out, json.dumps(exports) + "\n")
    if a.check_js:
        problems = check_js(exports, a.check_js)
        for p in problems:
            print(f"FAIL {p}")
        if problems:
            sys.exit(1)
        print(f"wasm exports ok: {len(exports)} exports, each called by {', '.join(a.check_js)}")


if __name__ == "__main__":
    main()
