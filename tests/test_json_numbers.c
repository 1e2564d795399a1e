/* The numbers of every answer: the text the core writes for a double
 * (cJSON's forms: "%1.15g" when that reads back within an ulp, else
 * "%1.17g") and the double that text reads back as (the packed columns'
 * doubles, rl_json_number_value) equal what printing and reading back
 * give, for doubles of every kind: random bit patterns, figures of every
 * magnitude, short decimals, and short decimals moved by one to four ulps,
 * whose 15 digits sit at the edge of reading back. The core decides most
 * of them without printing (util.c); this is its check against printing. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"

/* The printed test, as cJSON writes a number. */
static double reference(double d, char text[32]) {
    snprintf(text, 32, "%1.15g", d);
    double back = strtod(text, NULL);
    double mag = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
    if (fabs(back - d) <= mag * DBL_EPSILON) return back;
    snprintf(text, 32, "%1.17g", d);
    return d;
}

static uint64_t state = 0x9E3779B97F4A7C15u;
static uint64_t next(void) { /* xorshift64*: the same doubles on every run */
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Du;
}

static int checked, differ;
static void check_one(double d) {
    if (!isfinite(d) || (d > -1e15 && d < 1e15 && d == (double)(int64_t)d)) return; /* written as digits */
    char want[32];
    double value = reference(d, want);
    rl_json_text t = {0};
    rl_json_text_number(&t, d);
    char *got = rl_json_text_finish(&t);
    double v = rl_json_number_value(d);
    bool same = got && !strcmp(got, want) && memcmp(&v, &value, sizeof v) == 0;
    if (!same && differ++ < 5)
        CHECK(0, "%a: text \"%s\" value %a, printed \"%s\" value %a", d, got ? got : "(oom)", v, want, value);
    checked++;
    free(got);
}

int main(void) {
    for (int i = 0; i < 200000; i++) { /* random bit patterns */
        uint64_t bits = next();
        double d;
        memcpy(&d, &bits, sizeof d);
        check_one(d);
    }
    for (int i = 0; i < 300000; i++) /* figures from 1e-12 to 1e40 */
        check_one(pow(10, -12 + 52 * (double)(next() >> 11) / 9007199254740992.0) * ((next() & 1) ? 1 : -1));
    for (int i = 0; i < 200000; i++) { /* short decimals, and one to four ulps from them */
        double digits = (double)(next() % 1000000000000000u);
        double d = digits * pow(10, (int)(next() % 50) - 30);
        check_one(d);
        double up = d, down = d;
        for (int u = 1; u <= 4; u++) check_one(up = nextafter(up, INFINITY)), check_one(down = nextafter(down, 0));
    }
    for (int e = -12; e <= 40; e++) { /* powers of ten and their neighbours */
        double p = pow(10, e), up = p, down = p;
        check_one(p);
        for (int u = 1; u <= 8; u++) check_one(up = nextafter(up, INFINITY)), check_one(down = nextafter(down, 0));
    }
    CHECK(differ == 0, "%d of %d doubles written or read back otherwise than printed", differ, checked);
    CHECK(checked > 1000000, "doubles checked: %d", checked);
    return check_report("json numbers");
}
