"""What the source checks of tools/ (checks/layers.py, checks/function_length.py)
share: the C files of the core, the CLI and the WebAssembly face that they
read, and the way their self-tests report a case."""
import os

SCANNED_DIRS = ("core/src", "core/include", "cli")
SCANNED_FILES = ("wasm/api.c",)


def c_sources(root):
    """Repository-relative paths ('/'-separated, sorted) of every .c and .h
    file of SCANNED_DIRS, and of SCANNED_FILES that exist, under root."""
    out = []
    for d in SCANNED_DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            out += [os.path.relpath(os.path.join(dirpath, n), root).replace(os.sep, "/")
                    for n in names if n.endswith((".c", ".h"))]
    out += [f for f in SCANNED_FILES if os.path.exists(os.path.join(root, f))]
    return sorted(out)


def report_case(title, ok, said=""):
    """Prints one self-test case ('ok' or 'FAIL', with what the check said
    when it failed); returns 1 when it failed, else 0."""
    print(f"{'ok  ' if ok else 'FAIL'} {title}")
    if not ok and said:
        print("     check said:\n" + "".join("       " + l + "\n" for l in said.splitlines()))
    return 0 if ok else 1
