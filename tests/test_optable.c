/* The operator table checks itself:
 *   1. no two rows of the same (domain, op) cover the same opset (ranges
 *      are well formed: since >= 1, until 0 = open or >= since);
 *   2. every row says what it costs (cost_doc, shown in docs/operators.md):
 *      a row with no cost function says so in words too ("0 FLOPs...");
 *   3. the rows that no data-driven case in tests/cases exercises are
 *      listed, and their count may not grow past the figure recorded below.
 * A case exercises a row when a node of its model resolves to that row
 * (rl_op_find with the model's opset, as inference does) in the analysis
 * the case runs. Nodes inside control-flow bodies are not counted.
 *
 *   test_optable TESTS_DIR SOURCE_DIR */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_model.h"
#include "internal.h"

/* Rows no case exercises: 126 of 252 when the op kit was split (issue 16);
 * most of them (elementwise maths, ml, training) are covered only by the
 * conformance run. Lower this as cases are added; it must never grow: a new
 * operator comes with its case (docs/adding-an-operator.md). */
#define MAX_UNEXERCISED 126

typedef struct row {
    const rl_op_def *def;
    bool exercised;
} row;

static row *rows;
static size_t n_rows;

static void collect_rows(void) {
    for (size_t f = 0; f < rl_op_family_count; f++) n_rows += rl_op_families[f]->count;
    rows = calloc(n_rows ? n_rows : 1, sizeof *rows);
    size_t k = 0;
    for (size_t f = 0; f < rl_op_family_count; f++)
        for (size_t i = 0; i < rl_op_families[f]->count; i++) rows[k++].def = &rl_op_families[f]->ops[i];
}

static int last_opset(const rl_op_def *d) { return d->until ? d->until : 1 << 30; }

static void check_ranges_unique(void) {
    for (size_t i = 0; i < n_rows; i++) {
        const rl_op_def *a = rows[i].def;
        CHECK(a->name && a->name[0] && a->domain, "row %zu has no name or domain", i);
        if (!a->name || !a->domain) continue;
        CHECK(a->since >= 1 && (a->until == 0 || a->until >= a->since),
              "%s '%s': opset range %d..%d is not a range", a->domain, a->name, a->since, a->until);
        CHECK(strcmp(a->domain, "ai.onnx") != 0, "'%s': the default domain is written \"\", not ai.onnx", a->name);
        for (size_t j = i + 1; j < n_rows; j++) {
            const rl_op_def *b = rows[j].def;
            if (!b->name || !b->domain || strcmp(a->name, b->name) || strcmp(a->domain, b->domain)) continue;
            bool overlap = a->since <= last_opset(b) && b->since <= last_opset(a);
            CHECK(!overlap, "%s '%s': rows for opsets %d..%d and %d..%d overlap", a->domain[0] ? a->domain : "ai.onnx",
                  a->name, a->since, a->until, b->since, b->until);
        }
    }
}

static void check_cost_described(void) {
    for (size_t i = 0; i < n_rows; i++) {
        const rl_op_def *d = rows[i].def;
        CHECK(d->cost_doc && strlen(d->cost_doc) >= 5, "%s '%s' (opset %d): the row has no cost description",
              d->domain, d->name, d->since);
    }
}

static void mark(const char *domain, const char *op, int opset) {
    const rl_op_def *d = rl_op_find(domain, op, opset);
    for (size_t i = 0; d && i < n_rows; i++)
        if (rows[i].def == d) rows[i].exercised = true;
}

/* Runs one case's analysis as test_cases does and marks the rows its layers use. */
static void mark_case(const cJSON *tc, const char *fixtures, const char *unit_hw) {
    const char *model = cJSON_GetStringValue(cJSON_GetObjectItem(tc, "model"));
    if (!model) return;
    cJSON *res = check_run_case(tc, fixtures, unit_hw, model);
    const cJSON *opsets = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "model"), "opsets");
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(res, "layers")) {
        const char *op = cJSON_GetStringValue(cJSON_GetObjectItem(l, "op"));
        const char *domain = cJSON_GetStringValue(cJSON_GetObjectItem(l, "domain"));
        if (!op || !domain) continue;
        const cJSON *v = cJSON_GetObjectItem(opsets, domain[0] ? domain : "ai.onnx");
        mark(domain, op, cJSON_IsNumber(v) ? v->valueint : 1 << 20);
    }
    cJSON_Delete(res);
}

static int cmp_name(const void *a, const void *b) { return strcmp(a, b); }

static void mark_all_cases(const char *tests_dir) {
    char dir[1024], fixtures[1024], hw[1024];
    snprintf(dir, sizeof dir, "%s/cases", tests_dir);
    snprintf(fixtures, sizeof fixtures, "%s/fixtures", tests_dir);
    snprintf(hw, sizeof hw, "%s/hw/unit.json", tests_dir);
    char *unit_hw = check_read_file(hw, NULL);
    CHECK(unit_hw != NULL, "cannot read %s", hw);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    if (!d || !unit_hw) {
        if (d) closedir(d);
        free(unit_hw);
        return;
    }
    static char names[256][256];
    int n_names = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n_names < 256) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len < sizeof names[0] && strcmp(e->d_name + len - 5, ".json") == 0)
            memcpy(names[n_names++], e->d_name, len + 1);
    }
    closedir(d);
    qsort(names, (size_t)n_names, sizeof *names, cmp_name);
    int n_cases = 0;
    for (int i = 0; i < n_names; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *text = check_read_file(path, NULL);
        cJSON *cases = text ? cJSON_Parse(text) : NULL;
        CHECK(cJSON_IsArray(cases), "%s is not a JSON array of cases", path);
        const cJSON *tc;
        cJSON_ArrayForEach(tc, cases) {
            mark_case(tc, fixtures, unit_hw);
            n_cases++;
        }
        cJSON_Delete(cases);
        free(text);
    }
    CHECK(n_cases > 0, "no cases found under %s", dir);
    printf("%d cases in %d files\n", n_cases, n_names);
    free(unit_hw);
}

static void report_unexercised(void) {
    int count = 0;
    printf("rows no case in tests/cases exercises:\n");
    for (size_t i = 0; i < n_rows; i++) {
        const rl_op_def *d = rows[i].def;
        if (rows[i].exercised) continue;
        count++;
        if (d->until) printf("  %s %s (opsets %d-%d)\n", d->domain[0] ? d->domain : "ai.onnx", d->name, d->since, d->until);
        else printf("  %s %s (opset %d+)\n", d->domain[0] ? d->domain : "ai.onnx", d->name, d->since);
    }
    printf("%d of %zu rows have no case (at most %d allowed)\n", count, n_rows, MAX_UNEXERCISED);
    CHECK(count <= MAX_UNEXERCISED,
          "%d rows have no case, more than the %d recorded: a new operator comes with a case in tests/cases",
          count, MAX_UNEXERCISED);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_optable TESTS_DIR [SOURCE_DIR]\n");
        return 2;
    }
    collect_rows();
    CHECK(n_rows > 0, "the table is empty");
    check_ranges_unique();
    check_cost_described();
    mark_all_cases(argv[1]);
    report_unexercised();
    free(rows);
    return check_report("test_optable");
}
