/* Writes docs/operators.md, the operator reference, from the code itself so
 * the two cannot drift:
 *   - one row per entry of rl_operator_table() (domain, op, opset range,
 *     whether it infers shapes, the cost formula in words);
 *   - per entry, how many of the ONNX node-test models using the op
 *     (../shared/onnx-node-tests, beside the checkout) rooflens gets right:
 *     every output's type and shape inferred ("inferred"), and additionally
 *     those whose runtime-dependent shape agrees with the model's declaration
 *     ("+ consistent"), by the rule of tests/conformance_rule.c, which
 *     tests/test_conformance.c (docs/conformance.md) uses too.
 *
 *   gen_operator_doc --root DIR --out FILE     write the doc
 *   gen_operator_doc --root DIR --check FILE   exit 1 if FILE differs from what
 *                                              would be written (ctest operator_doc)
 *
 * Without the node-test models the counts cannot be computed: --out refuses,
 * and --check compares everything but the count column (and says so). */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_rule.h"
#include "rooflens.h"

#define UNAVAILABLE "(not computed)"

/* ------------------------------------------------------ the op entries -- */
typedef struct entry {
    const char *op, *domain, *cost;
    int since, until; /* until 0 = open */
    bool shape, view;
    int models, inferred, consistent;
} entry;

static int cmp_entry(const void *a, const void *b) {
    const entry *x = a, *y = b;
    int d = strcmp(x->domain, y->domain);
    if (d) return d;
    d = strcmp(x->op, y->op);
    if (d) return d;
    return x->since - y->since;
}

/* The entry a model of `domain` at `opset` uses for `op`, as rl_op_find picks it. */
static entry *entry_for(entry *e, int n, const char *domain, const char *op, int opset) {
    entry *oldest = NULL;
    for (int i = 0; i < n; i++) {
        if (strcmp(e[i].op, op) || strcmp(e[i].domain, domain)) continue;
        if (opset >= e[i].since && (e[i].until == 0 || opset <= e[i].until)) return &e[i];
        if (!oldest || e[i].since < oldest->since) oldest = &e[i];
    }
    return oldest && opset < oldest->since ? oldest : NULL;
}

/* ------------------------------------------------ the conformance run -- */
/* 2: every checked output inferred; 1: inferred or declared-consistent; 0: a
 * miss (conformance_rule.c decides, as for docs/conformance.md). */
static int judge_model(const char *dir, const cJSON *t) {
    conf_verdict v;
    conf_judge(dir, t, &v);
    return v.kind == CONF_OK_INFERRED ? 2 : v.kind == CONF_OK_DECLARED_RUNTIME ? 1 : 0;
}

/* ops of the node tests missing from the table, with their model counts */
typedef struct missing {
    char name[96];
    int models;
} missing;

static int cmp_missing(const void *a, const void *b) {
    return strcmp(((const missing *)a)->name, ((const missing *)b)->name);
}

static bool run_conformance(const char *root, entry *e, int n, missing *miss, int *n_miss, int *total) {
    char dir[1100];
    bool present;
    snprintf(dir, sizeof dir, "%s/../shared/onnx-node-tests", root);
    cJSON *manifest = conf_load_manifest(dir, &present);
    if (!manifest) return false;
    const cJSON *t;
    cJSON_ArrayForEach(t, manifest) {
        (*total)++;
        int verdict = judge_model(dir, t);
        const cJSON *opsets = cJSON_GetObjectItem(t, "opset");
        const cJSON *op;
        cJSON_ArrayForEach(op, cJSON_GetObjectItem(t, "op_types")) {
            const char *name = cJSON_GetStringValue(op);
            if (!name) continue;
            /* the op's domain is one the model imports; ai.onnx first */
            entry *hit = NULL;
            const cJSON *dv;
            for (int pass = 0; pass < 2 && !hit; pass++) {
                cJSON_ArrayForEach(dv, opsets) {
                    bool onnx = strcmp(dv->string, "ai.onnx") == 0;
                    if ((pass == 0) != onnx) continue;
                    hit = entry_for(e, n, dv->string, name, (int)dv->valuedouble);
                    if (hit) break;
                }
            }
            if (hit) {
                hit->models++;
                if (verdict == 2) hit->inferred++;
                if (verdict >= 1) hit->consistent++;
                continue;
            }
            int j = 0;
            while (j < *n_miss && strcmp(miss[j].name, name)) j++;
            if (j == *n_miss && *n_miss < 512) snprintf(miss[(*n_miss)++].name, sizeof miss->name, "%s", name);
            if (j < *n_miss) miss[j].models++;
        }
    }
    cJSON_Delete(manifest);
    return true;
}

/* ------------------------------------------------------------ the doc -- */
typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)(n > 0 ? n : 0) + 1024;
        b->p = realloc(b->p, b->cap);
        if (!b->p) exit(3);
    }
}

/* Markdown table cells must not contain a bare '|'. */
static void put_cell(buf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '|') put(b, "\\|");
        else if (*s == '\n') put(b, " ");
        else put(b, "%c", *s);
    }
}

static char *render(entry *e, int n, const missing *miss, int n_miss, bool counted, int total) {
    buf b = {malloc(1 << 16), 0, 1 << 16};
    int domains = 0, with_shape = 0, tested = 0, inferred_all = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || strcmp(e[i].domain, e[i - 1].domain)) domains++;
        if (e[i].shape) with_shape++;
        if (e[i].models > 0) tested++;
        if (e[i].models > 0 && e[i].inferred == e[i].models) inferred_all++;
    }
    put(&b, "# Operators\n\n"
            "Generated by `tools/make-docs/gen_operator_doc.c` from the operator table itself "
            "(`rl_operator_table()`, one entry per operator and opset range in `core/src/ops/`); "
            "do not edit by hand. The ctest `operator_doc` fails when this file is stale; "
            "regenerate it with\n\n"
            "    cmake --build build --target gen_operator_doc && build/tools/gen_operator_doc --root . --out docs/operators.md\n\n");
    put(&b, "%d entries in %d domains; %d infer output shapes (the others leave them unknown and "
            "warn).\n\n", n, domains, with_shape);
    put(&b, "**Conventions.** 1 multiply-accumulate = 2 FLOP. Matrix FLOPs run on the matrix unit, "
            "vector FLOPs on the vector unit; *N* is the number of samples (rows) of an ai.onnx.ml "
            "operator. Bytes are every tensor a layer reads and writes unless the formula says "
            "otherwise; ai.onnx.ml operators also count their attribute arrays (tree tables, "
            "coefficients, vocabularies) as weight bytes. A node calling a model-local function "
            "(ModelProto.functions) is one layer costing its expanded body: its inputs and attribute "
            "references are bound, shapes are inferred through the body, and recursion is reported as "
            "a warning.\n\n");
    put(&b, "**Conformance** counts the ONNX node-test models (`shared/onnx-node-tests`, the ONNX "
            "backend tests' models) whose main graph uses the operator at an opset this entry covers: "
            "*inferred* = every output's type and shape inferred from the graph alone; *+ consistent* "
            "also counts outputs whose size depends on a runtime value and whose declared shape agrees "
            "with rooflens's partial inference (the rule of `docs/conformance.md`).\n\n");
    if (counted)
        put(&b, "Conformance totals: %d models; %d entries used by them, %d of which have every model "
                "inferred.\n\n", total, tested, inferred_all);
    else
        put(&b, "Conformance totals: " UNAVAILABLE "\n\n");
    put(&b, "| domain | operator | opsets | shapes | cost | conformance (inferred / + consistent / models) |\n");
    put(&b, "| --- | --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < n; i++) {
        put(&b, "| %s | %s | ", e[i].domain, e[i].op);
        if (e[i].until) put(&b, "%d–%d", e[i].since, e[i].until);
        else put(&b, "%d+", e[i].since);
        put(&b, " | %s | ", e[i].shape ? (e[i].view ? "inferred (view)" : "inferred") : "unknown");
        put_cell(&b, e[i].cost && e[i].cost[0] ? e[i].cost : "bytes only");
        if (!counted) put(&b, " | " UNAVAILABLE " |\n");
        else if (e[i].models == 0) put(&b, " | no node test |\n");
        else put(&b, " | %d / %d / %d |\n", e[i].inferred, e[i].consistent, e[i].models);
    }
    if (counted && n_miss > 0) {
        put(&b, "\n## Node-test operators not in the table\n\n"
                "Their layers count bytes from known shapes and zero FLOPs, with an `unsupported_op` "
                "warning.\n\n| operator | node-test models |\n| --- | --- |\n");
        for (int i = 0; i < n_miss; i++) put(&b, "| %s | %d |\n", miss[i].name, miss[i].models);
    }
    return b.p;
}

/* A copy with the counts replaced by '*': the last cell of every table row
 * and the totals line. Free with free(). */
static char *mask_counts(const char *text) {
    buf b = {malloc(strlen(text) + 1024), 0, strlen(text) + 1024};
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        int len = (int)(end ? (size_t)(end - line) : strlen(line));
        const char *last = NULL;
        if (len > 2 && line[0] == '|' && strncmp(line, "| ---", 5) != 0)
            for (const char *p = line + 1; p < line + len - 1; p++)
                if (*p == '|' && p[-1] != '\\') last = p;
        if (last) put(&b, "%.*s *|\n", (int)(last + 1 - line), line);
        else if (strncmp(line, "Conformance totals:", 19) == 0) put(&b, "Conformance totals: *\n");
        else put(&b, "%.*s\n", len, line);
        line = end ? end + 1 : NULL;
    }
    return b.p;
}

/* Keeps only the table rows of the entries (the not-in-table section needs the counts). */
static void drop_missing_section(char *text) {
    char *s = strstr(text, "\n\n## Node-test operators not in the table");
    if (s) s[1] = 0; /* keep the newline ending the last row */
}

int main(int argc, char **argv) {
    const char *root = ".", *out = NULL, *check = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc) root = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--check") && i + 1 < argc) check = argv[++i];
        else {
            fprintf(stderr, "usage: gen_operator_doc [--root DIR] (--out FILE | --check FILE)\n");
            return 2;
        }
    }
    if (!out == !check) {
        fprintf(stderr, "usage: gen_operator_doc [--root DIR] (--out FILE | --check FILE)\n");
        return 2;
    }
    char *table = rl_operator_table();
    cJSON *arr = cJSON_Parse(table);
    rl_free(table);
    int n = cJSON_GetArraySize(arr);
    entry *e = calloc((size_t)n + 1, sizeof *e);
    int k = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        entry *x = &e[k++];
        x->op = cJSON_GetStringValue(cJSON_GetObjectItem(o, "op")) ?: "?";
        x->domain = cJSON_GetStringValue(cJSON_GetObjectItem(o, "domain")) ?: "?";
        x->cost = cJSON_GetStringValue(cJSON_GetObjectItem(o, "cost")) ?: "";
        x->since = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(o, "since"));
        const cJSON *u = cJSON_GetObjectItem(o, "until");
        x->until = cJSON_IsNumber(u) ? u->valueint : 0;
        x->shape = cJSON_IsTrue(cJSON_GetObjectItem(o, "shape"));
        x->view = cJSON_IsTrue(cJSON_GetObjectItem(o, "view"));
    }
    qsort(e, (size_t)n, sizeof *e, cmp_entry);
    static missing miss[512];
    int n_miss = 0, total = 0;
    bool counted = run_conformance(root, e, n, miss, &n_miss, &total);
    qsort(miss, (size_t)n_miss, sizeof *miss, cmp_missing);
    char *doc = render(e, n, miss, n_miss, counted, total);
    int rc = 0;
    if (out) {
        if (!counted) {
            fprintf(stderr, "gen_operator_doc: no node-test models at %s/../shared/onnx-node-tests; the "
                            "conformance counts cannot be computed, so %s is left as it is\n", root, out);
            rc = 1;
        } else {
            FILE *f = fopen(out, "w");
            if (!f || fputs(doc, f) < 0 || fclose(f) != 0) {
                fprintf(stderr, "gen_operator_doc: cannot write %s\n", out);
                rc = 1;
            } else {
                printf("wrote %s: %d entries, %d node-test models\n", out, n, total);
            }
        }
    } else {
        char *committed = conf_read_file(check, NULL);
        if (!committed) {
            fprintf(stderr, "gen_operator_doc: cannot read %s\n", check);
            rc = 1;
        } else {
            if (!counted) {
                /* compare everything the code alone decides */
                drop_missing_section(doc);
                drop_missing_section(committed);
                char *a = mask_counts(doc), *b = mask_counts(committed);
                free(doc);
                free(committed);
                doc = a;
                committed = b;
                printf("gen_operator_doc: no node-test models beside the checkout; comparing %s "
                       "without its conformance counts\n", check);
            }
            if (strcmp(doc, committed) != 0) {
                const char *a = doc, *b = committed;
                int line = 1;
                while (*a && *a == *b) {
                    if (*a == '\n') line++;
                    a++;
                    b++;
                }
                fprintf(stderr,
                        "%s is stale (first difference at line %d): the operator table or its "
                        "conformance changed. Regenerate it:\n  cmake --build build --target "
                        "gen_operator_doc && build/tools/gen_operator_doc --root . --out docs/operators.md\n",
                        check, line);
                rc = 1;
            } else {
                printf("%s is up to date (%d entries%s)\n", check, n, counted ? ", conformance counted" : "");
            }
            free(committed);
        }
    }
    free(doc);
    free(e);
    cJSON_Delete(arr);
    return rc;
}
