/* The core's text helpers for every face (rooflens_text.h): rl_format_eng, the one number
 * format (the CLI's tables, and the same text as the Markdown's and the
 * gate's rl_fmt_eng, which it is to replace), and rl_text_escape (what a
 * terminal may be shown: controls and bidi overrides escaped, bytes that are
 * not UTF-8 escaped, cuts between characters) and rl_csv_text (one CSV
 * text cell: no formula, quoted when needed). */
#include <stdbool.h>

#include "check.h"
#include "diff.h"
#include "internal.h"
#include "rooflens.h"
#include "rooflens_text.h"

static void check_format(double v, const char *unit, int sign, const char *want) {
    char got[64];
    rl_format_eng(got, sizeof got, v, unit, sign);
    CHECK(!strcmp(got, want), "rl_format_eng(%g, \"%s\", %d) = \"%s\", want \"%s\"", v, unit, sign, got, want);
}

/* rl_csv_text, the one CSV text cell: the whole cell, and the same cut
 * short into a buffer of 4 bytes (as snprintf: the length is the whole
 * cell's). */
static void check_csv(const char *s, const char *want) {
    char got[64], small[4];
    size_t n = rl_csv_text(got, sizeof got, s);
    CHECK(!strcmp(got, want) && n == strlen(want), "rl_csv_text(\"%s\") = \"%s\" (%zu), want \"%s\"", s ? s : "(null)",
          got, n, want);
    size_t m = rl_csv_text(small, sizeof small, s);
    CHECK(m == strlen(want) && !strncmp(small, want, 3) && strlen(small) == (m < 3 ? m : 3),
          "rl_csv_text(\"%s\") into 4 bytes = \"%s\" (%zu)", s ? s : "(null)", small, m);
    CHECK(rl_csv_text(NULL, 0, s) == strlen(want), "rl_csv_text(NULL, 0) measures the cell");
}

static void check_escape(const char *s, size_t cap, int controls, const char *want) {
    char got[256];
    size_t n = rl_text_escape(got, cap, s, controls);
    CHECK(!strcmp(got, want) && n == strlen(want), "rl_text_escape(cap %zu) = \"%s\", want \"%s\"", cap, got, want);
}

int main(void) {
    check_format(2.88e-9, "s", 0, "2.88 ns");
    check_format(0, "s", 0, "0 s");
    check_format(0, "", 1, "0");
    check_format(19260, "FLOP", 0, "19.3 kFLOP");
    check_format(999.7, "B", 0, "1 kB"); /* not "1e+03 B" */
    check_format(7.77e-6, "J", 0, "7.77 \xc2\xb5J");
    check_format(-3000, "", 1, "-3 k");
    check_format(5.39e-7, "s", 1, "+539 ns");
    check_format(0.5, "FLOP", 0, "0.5 FLOP"); /* sub-unit prefixes only for s, J, W */
    check_format(1.0 / 0.0, "s", 0, "n/a");
    check_format(0.0 / 0.0, "", 0, "n/a");
    /* the same text as the Markdown's formatter, over a sweep of magnitudes and units */
    static const char *const units[] = {"", "s", "J", "W", "B", "FLOP"};
    int differ = 0;
    for (int u = 0; u < 6; u++)
        for (double v = 1.234e-16; v < 1e22; v *= 7.3)
            for (int sign = 0; sign < 2; sign++) {
                char a[64], b[64];
                rl_format_eng(a, sizeof a, sign ? -v : v, units[u], sign);
                rl_fmt_eng(b, sizeof b, sign ? -v : v, units[u], sign);
                differ += strcmp(a, b) != 0;
            }
    CHECK(differ == 0, "rl_format_eng and rl_fmt_eng differ on %d values", differ);

    check_escape("plain \xc3\xa9t\xc3\xa9", 64, 1, "plain \xc3\xa9t\xc3\xa9");
    check_escape("a\x1b]0;t\x07z", 64, 1, "a\\x1b]0;t\\x07z");
    check_escape("cr\rlf\ntab\tdel\x7f", 64, 1, "cr\\x0dlf\\x0atab\\x09del\\x7f");
    check_escape("c1\xc2\x9b!", 64, 1, "c1\\x9b!");
    check_escape("\xe2\x80\xae" "rlo \xe2\x81\xa6" "lri \xe2\x80\x8f" "rlm \xe2\x80\xa8" "ls", 64, 1,
                 "\\u202erlo \\u2066lri \\u200frlm \\u2028ls");
    check_escape("bad\xff\xc3(", 64, 1, "bad\\xff\\xc3(");
    check_escape("bad\xff ctl\x1b", 64, 0, "bad\\xff ctl\x1b"); /* controls 0: only the bytes that are not UTF-8 */
    check_escape("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 1, "\xc3\xa9\xc3\xa9");  /* 5 bytes fit: cut between characters */
    check_escape("ab\x1b", 6, 1, "ab");                                 /* an escape is never cut */
    check_escape(NULL, 8, 1, "");

    check_csv("conv1", "conv1");
    check_csv("a,b", "\"a,b\"");
    check_csv("say \"hi\"", "\"say \"\"hi\"\"\"");
    check_csv("=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\"");
    check_csv("-1", "'-1");
    check_csv("+x", "'+x");
    check_csv("@sum", "'@sum");
    check_csv("\tname", "'\tname");
    check_csv("line\nbreak", "\"line\nbreak\"");
    check_csv("\rx", "\"'\rx\"");
    check_csv("", "");
    check_csv(NULL, "");
    /* rl_utf8_bad_at: the first byte that is not UTF-8, past ASCII runs and whole characters */
    static const struct { const char *s; long at; } utf8[] = {
        {"conv1/weight", -1}, {"", -1}, {"caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80", -1},
        {"abc\xff", 3}, {"ab\xc3\xa9\xfe", 4}, {"\x80", 0}, {"layer\xe2\x82", 5},
        {"x\xc0\xaf", 1}, {"x\xed\xa0\x80", 1}, {"x\xf4\x90\x80\x80", 1},
    };
    for (size_t i = 0; i < sizeof utf8 / sizeof *utf8; i++)
        CHECK(rl_utf8_bad_at(utf8[i].s) == utf8[i].at, "rl_utf8_bad_at(case %zu) = %ld, want %ld", i,
              rl_utf8_bad_at(utf8[i].s), utf8[i].at);
    /* rl_utf8_repair: drops the bytes that are not UTF-8, after an ASCII start or within */
    static const struct { const char *in, *out; } repair[] = {
        {"conv1/weight", "conv1/weight"}, {"abc\xff" "d\xc3\xa9", "abcd\xc3\xa9"}, {"\xff\xfe" "ab", "ab"},
        {"a\xc3\xa9\xe2\x82" "b", "a\xc3\xa9" "b"}, {"", ""},
    };
    for (size_t i = 0; i < sizeof repair / sizeof *repair; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%s", repair[i].in);
        size_t n = rl_utf8_repair(buf);
        CHECK(!strcmp(buf, repair[i].out) && n == strlen(repair[i].out), "rl_utf8_repair(case %zu) = \"%s\" (%zu)", i, buf, n);
    }
    return check_report("text_format");
}
