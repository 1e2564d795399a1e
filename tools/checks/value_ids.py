#!/usr/bin/env python3
"""One spelling of every bound id and every format id: their tables.

The ids the answer writes for a bound ("compute", "overhead" ...) live in
one enum-indexed table, core/src/words.c (BOUNDS), as do the measured
profiles' formats (MEASURED_FORMATS); the CLI's --format values live in
cli/formats.c (FORMATS). Every other source file carries the enum value, or
asks the table (rl_bound_id, rl_value_of, cli_format_of), or reads the
core's words (rl_words) on the page. A second spelling in code, a string
compared with or assigned to a bound or a format, is a copy that can drift:
it is how the launch-bound graph once fell back to grey.
    tools/checks/value_ids.py --root REPO_ROOT
Exit status 1, with each file, line and id, when a source file of the core,
the CLI, the WebAssembly face or the page's scripts spells one in code (a
comparison, an assignment, a fallback, a case, a call of a bound helper, a
list of two or more). Comments are not code and are passed over."""
import argparse
import os
import re
import sys

TABLES = {"bound": ("core/src/words.c", r"\[RL_BOUND_\w+\]\s*=\s*\{\"(\w+)\""),
          "measured format": ("core/src/words.c", r"\[RL_PROFILE_\w+\]\s*=\s*\{\"(\w+)\""),
          "format": ("cli/formats.c", r"\[CLI_FORMAT_\w+\]\s*=\s*\{\"(\w+)\""),
          # what a forecast, and its band, rest on (BASES, BAND_BASES)
          "basis": ("core/src/words.c", r"\[RL_(?:BASIS|BAND)_\w+\]\s*=\s*\{\"([\w -]+)\"")}
# A value is a bound's or a format's only where the code speaks of one: the
# ids are common words ("none", "unknown", "memory", "table") with other
# meanings elsewhere (a profile's fusion "none", a gate's "unknown").
MENTION = {"bound": r"bound", "measured format": r"format", "format": r"format", "basis": r"basis"}
SCANNED = ("core", "cli", "wasm", "web/js")
# The page's one reader of the core's words: it files a bound the table
# lacks under the table's "unknown", as the core does (rl_bound_from_id).
READERS = ("web/js/words.js",)
SUFFIXES = (".c", ".h", ".js", ".mjs")


def table_ids(root):
    """{kind: (table path, [ids])} read from the tables themselves."""
    out = {}
    for kind, (path, row) in TABLES.items():
        with open(os.path.join(root, path), encoding="utf-8") as f:
            out[kind] = (path, re.findall(row, f.read()))
    return out


def code_lines(text):
    """(line number, the line with its comments blanked) for each line."""
    out, in_block = [], False
    for n, line in enumerate(text.split("\n"), 1):
        code, i, quote = [], 0, None
        while i < len(line):
            ch, two = line[i], line[i:i + 2]
            if in_block:
                if two == "*/":
                    in_block, i = False, i + 2
                else:
                    i += 1
                continue
            if quote:
                code.append(ch)
                if ch == "\\" and i + 1 < len(line):
                    code.append(line[i + 1])
                    i += 1
                elif ch == quote:
                    quote = None
            elif two == "/*":
                in_block, i = True, i + 2
                continue
            elif two == "//":
                break
            else:
                if ch in "\"'`":
                    quote = ch
                code.append(ch)
            i += 1
        out.append((n, "".join(code)))
    return out


def patterns(ids):
    """The places where an id is a value in code, one regex over its quoted form."""
    q = "(?:\"|')(?:%s)(?:\"|')" % "|".join(re.escape(i) for i in ids)
    return [re.compile(p) for p in (
        r"(?:===|!==|==|!=)\s*" + q, q + r"\s*(?:===|!==|==|!=)",       # compared
        r"strcmp\([^;]*,\s*" + q + r"\s*\)", r"strcmp\(\s*" + q,         # compared in C
        r"(?<![=!<>:])=\s*" + q,                                         # assigned
        r"\|\|\s*" + q, r"\?\?\s*" + q, r"\?\s*" + q + r"\s*:",         # a fallback or a choice
        r":\s*" + q + r"\s*[;)]", r"case\s+" + q + r"\s*:",             # the other side; a case
        r"[Bb]ound\w*\([^()]*" + q,                                      # a bound helper's argument
        r"\(\s*(?:\"|')bound(?:\"|')\s*,\s*" + q, r"RL_WORD_BOUND\s*,\s*" + q,  # a word of kind bound
        q + r"\s*,\s*" + q,                                              # a list of them
        r"(?:\"|')basis(?:\"|')\s*,\s*" + q,                               # written under the key "basis"
    )]


def spellings(root, ids):
    """[(path, line, kind, id)] for each id spelled in code outside its table."""
    found = []
    compiled = {k: (path, patterns(v), v) for k, (path, v) in ids.items()}
    for d in SCANNED:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for name in sorted(names):
                path = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
                if not name.endswith(SUFFIXES) or path in READERS:
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    lines = code_lines(f.read())
                for kind, (table, pats, kind_ids) in compiled.items():
                    if path == table:
                        continue
                    for n, line in lines:
                        if not re.search(MENTION[kind], line, re.I):
                            continue
                        for p in pats:
                            for m in p.finditer(line):
                                hit = re.search("(?:\"|')(%s)(?:\"|')" % "|".join(map(re.escape, kind_ids)), m.group(0))
                                found.append((path, n, kind, hit.group(1)))
    return sorted(set(found))


# Lines the check must find (each spells a bound or a format id in code)
# and lines it must pass over, run by --self-test so that a pattern that
# stops matching is seen.
FOUND = ['if (strcmp(L->bound, "overhead") == 0)', "rows.find((r) => r.bound === 'power')",
         "const bound = this.model.bound(n) || 'unknown';", 'bound_color(colors, "none")',
         'r->bound = "compute";', "boundPhrase('power')", 'bool csv = !strcmp(A->format, "csv");',
         "const FORMAT_NAMES = { ort: 'ONNX Runtime profile' }; if (format === 'trtexec') x();",
         'L->energy_bound = f >= q ? "compute" : "memory";', 'cJSON_AddStringToObject(f, "basis", "analytic");',
         'strcmp(b->basis, "fit cross-validation") ? a : b']
PASSED = ['/* the bound "none" */ x = 1;', 'cJSON_AddStringToObject(row, "bound", rl_bound_id(b));',
          'fusion = "none"; // no bound', 'tprintf(fmt, "batch", "bound", "memory", "fits");', "el('th', 'bound')",
          'if (format == CLI_FORMAT_JSON) puts(out);',
          'cJSON_AddStringToObject(f, "basis", rl_value_id(RL_LIST_BASIS, RL_BASIS_ANALYTIC));']


def self_test():
    ids = {"bound": ("t", ["compute", "memory", "overhead", "power", "none", "unknown"]),
           "measured format": ("t", ["ort", "trtexec", "csv"]), "format": ("t", ["table", "json", "csv"]),
           "basis": ("t", ["analytic", "calibrated", "published results", "fit cross-validation"])}
    bad = 0
    for want, lines in ((True, FOUND), (False, PASSED)):
        for line in lines:
            code = code_lines(line)[0][1]
            hit = any(re.search(MENTION[k], code, re.I) and any(p.search(code) for p in patterns(v))
                      for k, (_, v) in ids.items())
            if hit != want:
                print(f"self-test: {'missed' if want else 'flagged'}: {line}")
                bad += 1
    print(f"self-test: {len(FOUND) + len(PASSED) - bad} of {len(FOUND) + len(PASSED)} lines judged right")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=".")
    ap.add_argument("--self-test", action="store_true", help="check the patterns on lines of known verdict")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    root = args.root
    ids = table_ids(root)
    for kind, (path, v) in ids.items():
        if len(v) < 3:
            print(f"{path}: found {len(v)} {kind} ids; is the table still there?")
            return 1
    found = spellings(root, ids)
    for path, n, kind, i in found:
        print(f"{path}:{n}: spells the {kind} id '{i}' in code: use its table ({ids[kind][0]}) instead")
    print(f"value ids: {sum(len(v) for _, v in ids.values())} in their tables, {len(found)} spelled elsewhere")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
