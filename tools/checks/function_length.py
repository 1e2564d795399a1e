#!/usr/bin/python3
"""The length rules of rooflens: no C function over 80 lines without a
reason written above it, and no source file over 800 lines (C of the core,
the CLI and the WASM face, and the page's scripts in web/js) without a
reason written at its top (the marker below within its first 20 lines).

A function is counted from the first line of its signature to its closing
brace (a `}` in column 0), both included. One longer than LIMIT lines passes
only when the comment just above its signature (the contiguous block of
comment lines that ends on the line before it) holds the marker

    Long because

followed by the reason, e.g. `/* ... Long because it is one switch over
every token kind, clearer whole than split. */`. docs/architecture.md
("Function length") states the rule.

Files: those of tools/checks/source_checks.py: core/src/**, core/include/*, cli/** (.c
and .h) and wasm/api.c.

Usage: tools/checks/function_length.py [--root DIR] [--limit N]
       tools/checks/function_length.py --self-test   (proves the check fails when it must)
Exit status 0 when every long function gives its reason, 1 otherwise.
"""
import argparse
import io
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from source_checks import c_sources, report_case  # noqa: E402

LIMIT = 80
FILE_LIMIT = 800
FILE_HEAD = 20   # lines at the top of a file where its reason for being long is looked for
MARKER = "Long because"
# A line in column 0 that opens a declarator with a parameter list before any
# '=' or ';': the start of a function signature (or of a prototype, which
# ends in ';' before any '{').
SIGNATURE_START = re.compile(r"^[A-Za-z_][^;=#]*\(")
ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)", re.S)
# A return type alone on the line above the name ("static int\nname(...)").
RETURN_TYPE_LINE = re.compile(r"^[A-Za-z_][\w\s\*]*$")
NOT_A_FUNCTION = re.compile(r"^(typedef|return|if|for|while|switch|do|else)\b")


def comment_above(lines, i):
    """The text of the contiguous comment block ending on line i-1 ('' if none)."""
    j = i - 1
    block = []
    in_block = False
    while j >= 0:
        s = lines[j].strip()
        if in_block:
            block.append(s)
            if "/*" in s:
                in_block = False
                j -= 1
                continue
        elif s.startswith("//"):
            block.append(s)
        elif s.endswith("*/"):
            block.append(s)
            in_block = "/*" not in s
        else:
            break
        j -= 1
    return " ".join(reversed(block))


def blank_comments_and_strings(text):
    """text with comments, string and character literals turned to spaces
    (newlines kept), so that braces and semicolons in them do not count."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def functions(text):
    """(name, first line, last line, comment above) of each function definition:
    a signature starting in column 0, then a body in braces (counted)."""
    lines = text.splitlines()
    code = blank_comments_and_strings(text)
    line_starts = [0]
    for ln in code.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(ln))
    out = []
    i = 0
    while i < len(lines):
        code_line = code[line_starts[i]:line_starts[i + 1]]
        if not SIGNATURE_START.match(code_line) or NOT_A_FUNCTION.match(code_line):
            i += 1
            continue
        # the first ';' or '{' outside parentheses: a prototype or a body
        pos, depth = line_starts[i], 0
        while pos < len(code) and not (depth == 0 and code[pos] in ";{"):
            depth += {"(": 1, ")": -1}.get(code[pos], 0)
            pos += 1
        if pos >= len(code) or code[pos] == ";":
            i = code.count("\n", 0, pos) + 1
            continue
        sig = code[line_starts[i]:pos]
        first = i
        if i > 0 and RETURN_TYPE_LINE.match(lines[i - 1].rstrip()) and not NOT_A_FUNCTION.match(lines[i - 1]):
            first = i - 1
        depth = 0
        while pos < len(code):
            depth += {"{": 1, "}": -1}.get(code[pos], 0)
            if depth == 0:
                break
            pos += 1
        last = code.count("\n", 0, pos)
        name = re.findall(r"([A-Za-z_]\w*)\s*\(", ATTRIBUTE.sub(" ", sig))
        out.append((name[0] if name else "?", first + 1, last + 1, comment_above(lines, first)))
        i = last + 1
    return out


def long_files(root, out):
    """Source files over FILE_LIMIT lines without a reason at their top:
    returns how many; prints each."""
    js = os.path.join(root, "web/js")
    files = c_sources(root) + sorted(f"web/js/{n}" for n in (os.listdir(js) if os.path.isdir(js) else [])
                                     if n.endswith((".js", ".mjs")))
    failures = 0
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
        if len(lines) > FILE_LIMIT and MARKER.lower() not in "\n".join(lines[:FILE_HEAD]).lower():
            failures += 1
            print(f"FAIL {f} is {len(lines)} lines (over {FILE_LIMIT}): split it by what its parts do, or say "
                  f"'{MARKER} ...' at its top", file=out)
    return failures


def check(root, limit=LIMIT, out=sys.stdout):
    """Returns the number of long functions and files without a reason; prints each."""
    failures = long_files(root, out)
    reasoned = 0
    files = c_sources(root)
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            found = functions(fh.read())
        for name, first, last, comment in found:
            n = last - first + 1
            if n <= limit:
                continue
            if MARKER.lower() in comment.lower():
                reasoned += 1
                print(f"long, with a reason: {f}:{first} {name} ({n} lines)", file=out)
            else:
                failures += 1
                print(f"FAIL {f}:{first} {name} is {n} lines (over {limit}): split it, or write "
                      f"why it is clearer whole in a comment just above it that says '{MARKER} ...'", file=out)
    if failures == 0:
        print(f"length ok: {len(files)} C files, every function over {limit} lines "
              f"({reasoned}) says why, no file over {FILE_LIMIT} lines without a reason", file=out)
    return failures


def self_test(repo_root):
    """Runs the check on a small fake tree, once per case, and fails unless
    each flaw is caught and each sound file passes."""
    body = "".join(f"    x += {i};\n" for i in range(85))
    long_fn = "static int long_one(int x) {\n" + body + "    return x;\n}\n"
    split_sig = "static int\nlong_two(int x,\n         int y) {\n" + body + "    return x + y;\n}\n"
    short_fn = "static int short_one(int x) {\n" + body[:400] + "    return x;\n}\n"
    cases = [
        ("a file of short functions passes", None, None),
        ("a long function without a reason fails", long_fn, "long_one is 88 lines"),
        ("a long function whose signature spans lines fails", split_sig, "long_two is 90 lines"),
        ("a long function with an unrelated comment above fails",
         "/* Adds things up. */\n" + long_fn, "long_one is 88 lines"),
        ("a long function with a reason passes",
         "/* Adds things up. Long because it is a test table,\n * clearer whole. */\n" + long_fn, None),
        ("a long function with a // reason passes", "// Long because: a test.\n" + long_fn, None),
        ("a function with braces in its strings and comments is measured by its code",
         "static int braces(int x) {\n    /* } */\n    const char *s = \"}\";\n" + body + "    return x + s[0];\n}\n",
         "braces is 90 lines"),
        ("an attribute before the signature does not hide the function",
         '__attribute__((target("avx2"))) ' + long_fn, "long_one is 88 lines"),
        ("a reason with a blank line before the function does not count",
         "/* Long because of a test. */\n\n" + long_fn, "long_one is 88 lines"),
        ("a file over the file limit fails",
         "".join(f"static int f{i}(int x) {{ return x + {i}; }}\n" for i in range(FILE_LIMIT)), "fake.c is "),
        ("a long file with a reason at its top passes",
         ("HEAD", "/* Long because: a test. */\n" + "".join(f"static int f{i}(int x) {{ return x; }}\n" for i in range(FILE_LIMIT))), None),
        ("a page script over the file limit fails",
         ("web/js/long.js", "".join(f"export const x{i} = {i};\n" for i in range(FILE_LIMIT + 1))), "web/js/long.js is "),
    ]
    bad = 0
    for title, flaw, expect in cases:
        d = tempfile.mkdtemp(prefix="rooflens-fnlen-")
        try:
            os.makedirs(os.path.join(d, "core/src"))
            os.makedirs(os.path.join(d, "web/js"))
            head, path = "", None
            if isinstance(flaw, tuple):   # (file, text): a whole file of its own; "HEAD": fake.c's top
                if flaw[0] == "HEAD":
                    head, flaw = flaw[1], None
                else:
                    path, text = flaw
                    with open(os.path.join(d, path), "w", encoding="utf-8") as f:
                        f.write(text)
                    flaw = None
            with open(os.path.join(d, "core/src/fake.c"), "w", encoding="utf-8") as f:
                f.write(head + short_fn + "\nstatic int one_liner(int x) { return x; }\n" + ("\n" + flaw if flaw else ""))
            buf = io.StringIO()
            n = check(d, LIMIT, buf)
            got = buf.getvalue()
            ok = (n == 0) if expect is None else (n > 0 and expect in got)
        finally:
            shutil.rmtree(d)
        bad += report_case(title, ok, got)
    # the real tree's functions are found: a count too low means the parser went blind
    found = sum(len(functions(open(os.path.join(repo_root, f), encoding="utf-8").read()))
                for f in c_sources(repo_root))
    ok = found > 500
    bad += report_case(f"the tree's functions are found ({found})", ok)
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--limit", type=int, default=LIMIT)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        sys.exit(1 if self_test(a.root) else 0)
    sys.exit(1 if check(a.root, a.limit) else 0)


if __name__ == "__main__":
    main()
