"""How the scripts of tools/ write a figure as text, one way for all: an
engineering prefix and three significant digits (1.2829e-3 s -> "1.28 ms"),
in the docs' worked examples (make-docs/) and the validation tables
(validate/) alike. Standard library only; imported (run, it checks itself: ctest figures_self_test):

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
    from figures import eng
"""
import math

PREFIX = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"))
MISSING = "–"  # a figure the run did not give


def prefixed(v):
    """(scale, prefix) of the largest prefix v reaches once rounded (999.6 reaches k)."""
    return next(((s, q) for s, q in PREFIX if abs(v) >= s * 0.9995), PREFIX[-1])


def eng(v, unit="", sig=3):
    """1.2829e-3, 's' -> '1.28 ms': engineering prefix, `sig` significant
    digits (trailing zeros kept: they are significant); None -> '–'."""
    if v is None:
        return MISSING
    if v == 0:
        return f"0 {unit}"
    scale, p = prefixed(v)
    x = v / scale
    magnitude = 1.0 if 0.9995 <= abs(x) < 1 else abs(x)  # 0.9996 k rounds to 1.00 k: count its digits
    digits = max(sig - 1 - int(math.floor(math.log10(magnitude))), 0)
    return f"{x:.{digits}f} {p}{unit}"


# (value, unit, text): each a case the first copies of eng() got wrong or a
# prefix's edge; the self-test fails on the first that differs
CASES = ((1.2829e-3, "s", "1.28 ms"), (None, "s", MISSING), (0, "s", "0 s"), (12e12, "FLOP/s", "12.0 TFLOP/s"),
         (999.6, "B", "1.00 kB"), (0.99951, "s", "1.00 s"), (4.2e-10, "s", "0.420 ns"), (-2.5e-3, "s", "-2.50 ms"),
         (123456, "B", "123 kB"), (3.35e12, "B/s", "3.35 TB/s"))

if __name__ == "__main__":
    wrong = [(v, u, want, eng(v, u)) for v, u, want in CASES if eng(v, u) != want]
    for v, u, want, got in wrong:
        print(f"eng({v!r}, {u!r}) = {got!r}, want {want!r}")
    print(f"figures: {len(CASES) - len(wrong)} of {len(CASES)} cases right")
    raise SystemExit(1 if wrong else 0)
