/* The CLI's printers with an answer that lacks a figure: the accessors'
 * one default (rooflens.h: NaN for a missing number) must reach the table
 * as the unknown mark "n/a", never as a made-up 0 ("0 s", "0.0", "0.00x"),
 * and no arithmetic on the missing number may print a figure. Each answer
 * is hand-built, so the member is surely absent; the printers are the
 * CLI's own files, linked in (tests/CMakeLists.txt). */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "print.h"

/* What `print` writes to stdout for `json`, malloc'd. */
static char *printed(void (*print)(const cJSON *), const char *json) {
    cJSON *res = cJSON_Parse(json);
    FILE *tmp = tmpfile();
    if (!res || !tmp) return NULL;
    fflush(stdout);
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    print(res);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    long n = ftell(tmp);
    char *text = calloc((size_t)(n > 0 ? n : 0) + 1, 1);
    rewind(tmp);
    if (text && n > 0 && fread(text, 1, (size_t)n, tmp) != (size_t)n) text[0] = 0;
    fclose(tmp);
    cJSON_Delete(res);
    return text;
}

/* The line of `text` that starts with `head` (after spaces), or "". */
static const char *line_of(const char *text, const char *head, char *buf, size_t cap) {
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *q = p;
        while (*q == ' ') q++;
        if (!strncmp(q, head, strlen(head))) {
            snprintf(buf, cap, "%.*s", (int)len, p);
            return buf;
        }
        p = end ? end + 1 : NULL;
    }
    return "";
}

/* A compare row whose profile gave only its unfused time: the other times
 * and the launch floor are unknown, not 0 s; the model's node count too. */
static void check_compare_row(void) {
    char *out = printed(print_study, "{\"model\": {\"name\": \"m\"}, \"roofline\": {\"precision\": \"fp32\"},"
                                     " \"options\": {\"sol\": \"fused\", \"mode\": \"inference\"},"
                                     " \"study\": {\"kind\": \"compare\", \"rows\": [{\"hardware\": {\"id\": \"dev\"},"
                                     " \"precision\": \"fp32\", \"sol\": {\"unfused\": 0.002}, \"bound\": \"memory\","
                                     " \"error\": null}]}}");
    char buf[512];
    const char *row = line_of(out, "dev ", buf, sizeof buf);
    CHECK(strstr(row, "2 ms") != NULL, "the unfused time is shown: '%s'", row);
    CHECK(strstr(row, " 0 s") == NULL, "no missing time shown as 0 s: '%s'", row);
    int na = 0;
    for (const char *p = row; (p = strstr(p, "n/a")); p += 3) na++;
    CHECK(na == 7, "fused, prefetched, chosen, forecast, its likely range, launch floor and energy are n/a, the one mark of a missing figure (%d n/a): '%s'", na, row);
    row = line_of(out, "model", buf, sizeof buf);
    CHECK(strstr(row, "(n/a nodes)") != NULL, "a missing node count is n/a: '%s'", row);
    free(out);
}

/* The LLM view without its roofline points: the phases' intensity is the
 * core's (the point's), so without it the column is n/a, not 0.0. */
static void check_llm_intensity(void) {
    char *out = printed(print_llm, "{\"model\": {\"name\": \"m\"}, \"hardware\": {\"name\": \"dev\"},"
                                   " \"llm\": {\"prefill\": {\"time_s\": 0.001, \"flops\": 1e9, \"bytes\": 0,"
                                   " \"bound\": \"compute\"}, \"prompt_tokens\": 8, \"batch\": 1}}");
    char buf[512];
    const char *row = line_of(out, "prefill", buf, sizeof buf);
    CHECK(strstr(row, "n/a") != NULL && strstr(row, " 0.0 ") == NULL, "prefill intensity unknown: '%s'", row);
    row = line_of(out, "roles", buf, sizeof buf);
    CHECK(strstr(row, "(n/a KV cache inputs)") != NULL, "a missing count is n/a: '%s'", row);
    free(out);
}

/* Over several devices without a speed-up: n/a, not a made-up 0.00x. */
static void check_parallel_speedup(void) {
    char *out = printed(print_parallel, "{\"parallel\": {\"tp\": 2, \"pp\": 1, \"dp\": 1, \"devices\": 2,"
                                        " \"time_s\": 0.001, \"bound\": \"memory\"}}");
    char buf[512];
    const char *row = line_of(out, "time", buf, sizeof buf);
    CHECK(strstr(row, "speed-up over one device n/a") != NULL && strstr(row, "0.00x") == NULL, "speed-up unknown: '%s'", row);
    row = line_of(out, "parallel", buf, sizeof buf);
    CHECK(strstr(row, "tp=2 pp=1 dp=1: 2 devices") != NULL, "the counts given are shown: '%s'", row);
    free(out);
}

/* The accessors themselves: the core's one family and its one default. */
static void check_accessors(void) {
    cJSON *o = cJSON_Parse("{\"n\": 3, \"s\": \"x\", \"wrong\": \"4\"}");
    CHECK(num(o, "n") == 3 && isnan(num(o, "missing")) && isnan(num(o, "wrong")), "num: the number or NaN");
    CHECK(!strcmp(str(o, "s"), "x") && !strcmp(str(o, "n"), "") && !strcmp(str(NULL, "s"), ""), "str: the text or \"\"");
    CHECK(get(o, "missing") == NULL && num(NULL, "n") != num(NULL, "n"), "get: NULL; a NULL object reads as missing");
    CHECK(!strcmp(numf("%g", num(o, "missing")), "n/a") && !strcmp(numf("%.1f%%", 12.34), "12.3%"), "numf");
    cJSON_Delete(o);
}

/* The tables count a cell's width in columns: "9.57 µs" (8 bytes, 7
 * columns) takes as many columns as "354 ns" padded to the same width;
 * numbers and left-aligned cells too. */
static void print_cells(const cJSON *unused) {
    (void)unused;
    tprintf("[%10s|%10s|%-9s|%6.2f|%5d|%zu%%]\n", "9.57 µs", "354 ns", "× 2 →", 3.14159, 42, (size_t)7);
}

/* A width given as an argument (*), as printf takes it: a string's counted in
 * columns, a number's written into its spec; negative: left-aligned. */
static void print_star_cells(const cJSON *unused) {
    (void)unused;
    tprintf("[%*s|%-*s|%*s|%*d|%*.1f]\n", 9, "9.57 µs", 9, "354 ns", -8, "× 2", 5, 42, -6, 2.25);
}

static void check_columns(void) {
    char *out = printed(print_cells, "{}");
    CHECK(out && !strcmp(out, "[   9.57 µs|    354 ns|× 2 →    |  3.14|   42|7%]\n"), "cells padded by columns: '%s'", out ? out : "");
    free(out);
    out = printed(print_star_cells, "{}");
    CHECK(out && !strcmp(out, "[  9.57 µs|354 ns   |× 2     |   42|2.2   ]\n"), "widths from the arguments: '%s'", out ? out : "");
    free(out);
}

int main(void) {
    check_columns();
    check_accessors();
    check_compare_row();
    check_llm_intensity();
    check_parallel_speedup();
    return check_report("cli printers");
}
