/* rooflens: the command-line face of the core. It reads the model (skipping
 * weight payloads with fseeko), builds the same JSON request the web page
 * sends, and prints the response as a table, JSON or CSV. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli.h"

static const char usage_text[] =
    "usage: rooflens MODEL.onnx [options]\n"
    "       rooflens diff OLD.onnx NEW.onnx [options] [--fail-if EXPR]\n"
    "       rooflens batch DIR|MODEL.onnx... [options]\n"
    "       rooflens --list-hw\n"
    "\n"
    "Reports where the time and energy of an ONNX model go on a hardware profile:\n"
    "per-layer FLOPs, bytes, arithmetic intensity, roofline times and energy.\n"
    "\n"
    "options (all three commands):\n"
    "  --hw ID|FILE          hardware profile id (see --list-hw) or a profile JSON file\n"
    "                        (default h100-sxm)\n"
    "  --power-mode NAME     a power mode of the device (e.g. for jetson-agx-orin)\n"
    "  --batch N             set every leading symbolic batch dimension to N\n"
    "  --dim NAME=V          set the symbolic dimension NAME to V (repeatable)\n"
    "  --precision P         model (default: the model's own dtypes), fp32, tf32, fp16,\n"
    "                        bf16, fp8, int8: applies to every floating tensor\n"
    "  --mode M              inference (default) or training (adds backward estimates)\n"
    "  --sol S               speed-of-light model for the headline time: unfused,\n"
    "                        fused (default) or fused_prefetched\n"
    "  --format F            table (default), json or csv; diff and batch also markdown\n"
    "  --top K               layers shown in the table (default 15; 0 = all)\n"
    "  --strict              exit 4 when any operator is unsupported or any shape unknown\n"
    "  --hw-dir DIR          where profile ids are looked up (default: $ROOFLENS_HW_DIR,\n"
    "                        else the hw/ folder rooflens was built with)\n"    "\n"
    "what-if studies (one at a time; a table, or the JSON response with --format json):\n"
    "  --compare LIST        the model on several devices: comma-separated ids or profile\n"
    "                        files, each optionally ID:MODE (e.g. h100-sxm,a100-sxm-80gb,\n"
    "                        jetson-agx-orin:15w)\n"
    "  --sweep-batch SPEC    the batch from A to B in powers of two (1..1024) or a comma\n"
    "                        list (1,8,64): intensity, time and energy per sample, and the\n"
    "                        critical batch where the model turns compute-bound\n"
    "  --power-modes         every power mode of the --hw device: time, energy, Pareto\n"
    "                        front and the least-energy mode within --max-slowdown\n"
    "  --max-slowdown X      slowdown allowed for the recommendation, as a fraction of\n"
    "                        the fastest mode's time (default 0.05 = 5%)\n"
    "\n"
    "diff: what changed from OLD to NEW under the same options (layers matched by name,\n"
    "then by op and position; docs/ci.md):\n"
    "  --fail-if EXPR        exit 5 when a threshold is crossed, e.g.\n"
    "                        \"time>+5%,flops>+10%,unsupported>0\" (grammar in docs/ci.md)\n"
    "  --label-old S, --label-new S   names shown for the two models (default: the paths)\n"
    "  --top K               changed layers shown in table and markdown (default 10)\n"
    "  --strict              exit 4 when the NEW model is incompletely analysed\n"
    "batch: one row per model (files, or every .onnx under DIR, one at a time); a model\n"
    "that cannot be read is reported in its row and the others still come\n"
    "\n"
    "  -h, --help            this help\n"
    "\n"
    "exit codes: 0 ok, 2 usage (a bad --fail-if too), 3 bad model or request (batch: any\n"
    "row), 4 incomplete analysis with --strict, 5 a --fail-if threshold crossed\n";

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "rooflens: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nrun 'rooflens --help' for usage\n");
    return EXIT_USAGE;
}

char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
        }
    }
    fclose(f);
    if (buf) buf[len] = 0;
    return buf;
}

static const char *hw_dir(const char *override) {
    if (override) return override;
    const char *env = getenv("ROOFLENS_HW_DIR");
    if (env && env[0]) return env;
#ifdef ROOFLENS_HW_DIR
    return ROOFLENS_HW_DIR;
#else
    return "hw";
#endif
}

static cJSON *load_profile(const char *id_or_file, const char *dir) {
    char path[4096];
    const char *p = id_or_file;
    if (!strchr(id_or_file, '/') && !strstr(id_or_file, ".json")) {
        snprintf(path, sizeof path, "%s/%s.json", dir, id_or_file);
        p = path;
    }
    char *text = read_text(p);
    if (!text) {
        fprintf(stderr, "rooflens: no hardware profile '%s' (looked for %s); run 'rooflens --list-hw'\n",
                id_or_file, p);
        return NULL;
    }
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j) fprintf(stderr, "rooflens: the hardware profile %s is not valid JSON\n", p);
    return j;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_hw(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "rooflens: cannot open the hardware folder %s: %s\n", dir, strerror(errno));
        return EXIT_USAGE;
    }
    char *names[1024];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 1024) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 && strcmp(e->d_name, "schema.json") != 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *text = read_text(path);
        cJSON *j = text ? cJSON_Parse(text) : NULL;
        const cJSON *id = cJSON_GetObjectItem(j, "id"), *nm = cJSON_GetObjectItem(j, "name");
        const cJSON *modes = cJSON_GetObjectItem(j, "power_modes");
        if (cJSON_IsString(id)) {
            printf("%-22s %s", id->valuestring, cJSON_IsString(nm) ? nm->valuestring : "");
            if (cJSON_IsArray(modes) && cJSON_GetArraySize(modes) > 0) {
                printf("  [power modes:");
                const cJSON *m;
                cJSON_ArrayForEach(m, modes) {
                    const cJSON *mid = cJSON_GetObjectItem(m, "id");
                    if (cJSON_IsString(mid)) printf(" %s", mid->valuestring);
                }
                printf("]");
            }
            printf("\n");
        }
        cJSON_Delete(j);
        free(text);
        free(names[i]);
    }
    return EXIT_OK;
}

/* Read the model, jumping over weight payloads. */
rl_model *read_model(const char *path, char **err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        /* the same error object the core gives, so every caller reports it one way */
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "schema", ROOFLENS_SCHEMA);
        cJSON_AddFalseToObject(e, "ok");
        cJSON *eo = cJSON_AddObjectToObject(e, "error");
        char msg[512];
        snprintf(msg, sizeof msg, "cannot open the file: %s", strerror(errno));
        cJSON_AddStringToObject(eo, "code", "cannot_open");
        cJSON_AddStringToObject(eo, "message", msg);
        cJSON_AddStringToObject(eo, "where", "");
        *err = cJSON_PrintUnformatted(e);
        cJSON_Delete(e);
        return NULL;
    }
    /* fseeko happily moves past the end of a file: clamp each skip to what
     * the file holds, so a truncated payload is reported at the file's real
     * end rather than at the offset its length field promised. */
    struct stat st;
    off_t size = fstat(fileno(f), &st) == 0 ? st.st_size : -1;
    rl_reader *r = rl_reader_new(NULL);
    static unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        int64_t skip = rl_reader_feed(r, buf, n);
        if (skip <= 0) {
            if (skip < 0) break;
            continue;
        }
        off_t pos = ftello(f);
        if (size >= 0 && pos >= 0 && (off_t)skip > size - pos) {
            rl_reader_skip(r, (uint64_t)(size - pos));
            break;
        }
        if (fseeko(f, (off_t)skip, SEEK_CUR) == 0) rl_reader_skip(r, (uint64_t)skip);
    }
    fclose(f);
    rl_model *m = rl_reader_finish(r, err);
    rl_reader_free(r);
    return m;
}

/* ------------------------------------------------------------- printing -- */
const char *eng(double v, const char *unit, char *buf, size_t cap) {
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    int i = 0;
    double a = fabs(v);
    while (a >= 1000 && i < 6) { a /= 1000; v /= 1000; i++; }
    snprintf(buf, cap, "%.3g %s%s", v, pre[i], unit);
    return buf;
}

const char *tsec(double s, char *buf, size_t cap) {
    if (s == 0) snprintf(buf, cap, "0 s");
    else if (s < 1e-6) snprintf(buf, cap, "%.3g ns", s * 1e9);
    else if (s < 1e-3) snprintf(buf, cap, "%.3g us", s * 1e6);
    else if (s < 1) snprintf(buf, cap, "%.3g ms", s * 1e3);
    else snprintf(buf, cap, "%.3g s", s);
    return buf;
}

double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}
const char *str(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int cmp_time(const void *a, const void *b) {
    double ta = num(*(cJSON *const *)a, "t"), tb = num(*(cJSON *const *)b, "t");
    return ta < tb ? 1 : ta > tb ? -1 : 0;
}

static void print_table(const cJSON *res, int top) {
    const cJSON *model = cJSON_GetObjectItem(res, "model"), *hw = cJSON_GetObjectItem(res, "hardware");
    const cJSON *tot = cJSON_GetObjectItem(res, "totals"), *sol = cJSON_GetObjectItem(res, "sol");
    const cJSON *roof = cJSON_GetObjectItem(res, "roofline"), *opt = cJSON_GetObjectItem(res, "options");
    char a[32], b[32], c2[32], d[32], e[32];
    printf("model     %s  (%d nodes, %s params, %s of weights)\n", str(model, "name")[0] ? str(model, "name") : "(unnamed)",
           (int)num(model, "nodes"), eng(num(model, "params"), "", a, sizeof a), eng(num(model, "weight_bytes"), "B", b, sizeof b));
    printf("hardware  %s%s%s  precision %s, %s\n", str(hw, "name"),
           cJSON_IsString(cJSON_GetObjectItem(hw, "power_mode")) ? ", mode " : "",
           cJSON_IsString(cJSON_GetObjectItem(hw, "power_mode")) ? str(hw, "power_mode_name") : "",
           str(roof, "precision"), str(opt, "mode"));
    const cJSON *dims = cJSON_GetObjectItem(model, "dims");
    if (cJSON_GetArraySize(dims) > 0) {
        printf("dims     ");
        const cJSON *dd;
        cJSON_ArrayForEach(dd, dims) printf(" %s=%g", dd->string, num(dd, "value"));
        printf("\n");
    }
    const cJSON *layers = cJSON_GetObjectItem(res, "layers");
    int n = cJSON_GetArraySize(layers);
    cJSON **rows = malloc((size_t)(n + 1) * sizeof *rows);
    int k = 0;
    const cJSON *l;
    cJSON_ArrayForEach(l, layers) rows[k++] = (cJSON *)l;
    qsort(rows, (size_t)n, sizeof *rows, cmp_time);
    int shown = top > 0 && top < n ? top : n;
    double total_t = num(tot, "t");
    printf("\n%-32s %-18s %10s %10s %8s %10s %8s %6s\n", "layer (top by time)", "op", "FLOPs", "bytes", "AI",
           "time", "bound", "share");
    for (int i = 0; i < shown; i++) {
        const cJSON *r = rows[i];
        char name[33];
        snprintf(name, sizeof name, "%s", str(r, "name"));
        char opn[19];
        snprintf(opn, sizeof opn, "%s", str(r, "op"));
        printf("%-32s %-18s %10s %10s %8.1f %10s %8s %5.1f%%\n", name, opn, eng(num(r, "flops"), "", a, sizeof a),
               eng(num(r, "bytes"), "B", b, sizeof b), num(r, "intensity"), tsec(num(r, "t"), c2, sizeof c2),
               str(r, "bound"), total_t > 0 ? 100 * num(r, "t") / total_t : 0);
    }
    if (shown < n) printf("(%d more layers; --top 0 shows all)\n", n - shown);
    free(rows);
    printf("\ntotals    %s FLOPs (matrix %s, vector %s), %s moved, intensity %.2f FLOP/B\n",
           eng(num(tot, "flops"), "", a, sizeof a), eng(num(tot, "matrix_flops"), "", b, sizeof b),
           eng(num(tot, "vector_flops"), "", c2, sizeof c2), eng(num(tot, "bytes"), "B", d, sizeof d), num(tot, "intensity"));
    printf("          sum of layer times %s (compute %s, memory %s); %d kernels, launch floor %s\n",
           tsec(num(tot, "t"), a, sizeof a), tsec(num(tot, "t_compute"), b, sizeof b),
           tsec(num(tot, "t_memory"), c2, sizeof c2), (int)num(tot, "kernels"), tsec(num(tot, "launch_floor_s"), d, sizeof d));
    if (cJSON_GetObjectItem(tot, "energy_j"))
        printf("          energy %s per inference\n", eng(num(tot, "energy_j"), "J", a, sizeof a));
    printf("\nspeed of light        per-op sum   whole graph   bytes\n");
    static const char *const models[] = {"unfused", "fused", "fused_prefetched"};
    for (int i = 0; i < 3; i++) {
        const cJSON *m = cJSON_GetObjectItem(sol, models[i]);
        const cJSON *po = cJSON_GetObjectItem(m, "per_op"), *wg = cJSON_GetObjectItem(m, "whole_graph");
        printf("  %-18s %12s  %12s   %s%s\n", models[i], tsec(num(po, "time_s"), a, sizeof a),
               tsec(num(wg, "time_s"), b, sizeof b), eng(num(po, "bytes"), "B", c2, sizeof c2),
               strcmp(str(m, "intended"), "per_op") == 0 ? "   (per-op intended)" : "   (whole graph intended)");
    }
    const cJSON *ch = cJSON_GetObjectItem(sol, "chosen");
    printf("  bounds: lower %s, upper %s;  chosen %s/%s = %s\n", tsec(num(sol, "lower_bound_s"), a, sizeof a),
           tsec(num(sol, "upper_bound_s"), b, sizeof b), str(ch, "model"), str(ch, "granularity"),
           tsec(num(ch, "time_s"), c2, sizeof c2));
    printf("\nroofline  time balance %.1f FLOP/B", num(roof, "time_balance"));
    if (cJSON_IsNumber(cJSON_GetObjectItem(roof, "energy_balance")))
        printf(", energy balance %.1f (%.1f without static power), peak %s (%s without static)",
               num(roof, "energy_balance"), num(roof, "energy_balance_no_static"),
               eng(num(roof, "peak_flop_per_j"), "FLOP/J", d, sizeof d),
               eng(num(roof, "peak_flop_per_j_no_static"), "FLOP/J", e, sizeof e));
    printf("\n");
    const cJSON *w = cJSON_GetObjectItem(res, "warnings");
    if (cJSON_GetArraySize(w) > 0) {
        printf("\nwarnings\n");
        cJSON_ArrayForEach(l, w) printf("  [%s] %s\n", str(l, "code"), str(l, "message"));
    }
}

void csv_field(FILE *f, const char *s) {
    /* a model's names are untrusted: a spreadsheet must not run them */
    bool formula = strchr("=+-@\t\r", s[0]) && s[0];
    bool quote = strpbrk(s, ",\"\n\r") != NULL;
    if (quote) fputc('"', f);
    if (formula) fputc('\'', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    if (quote) fputc('"', f);
}

void csv_number(FILE *f, const cJSON *v) {
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) fprintf(f, "%.17g", v->valuedouble);
}

static void print_csv(const cJSON *res) {
    static const char *const cols[] = {"index", "name", "op", "domain", "matrix_flops", "vector_flops",
                                       "flops", "macs", "input_bytes", "weight_bytes", "output_bytes",
                                       "bytes", "intensity", "t_compute", "t_memory", "t", "bound",
                                       "energy_j", "precision", "known"};
    size_t nc = sizeof cols / sizeof *cols;
    for (size_t i = 0; i < nc; i++) printf("%s%s", cols[i], i + 1 < nc ? "," : "\n");
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(res, "layers")) {
        for (size_t i = 0; i < nc; i++) {
            const cJSON *v = cJSON_GetObjectItem(l, cols[i]);
            if (cJSON_IsString(v)) csv_field(stdout, v->valuestring);
            else if (cJSON_IsNumber(v)) csv_number(stdout, v);
            else if (cJSON_IsBool(v)) printf("%s", cJSON_IsTrue(v) ? "true" : "false");
            printf("%s", i + 1 < nc ? "," : "\n");
        }
    }
}

/* ------------------------------------------------------------- studies -- */
static void print_study_header(const cJSON *res) {
    const cJSON *model = cJSON_GetObjectItem(res, "model"), *roof = cJSON_GetObjectItem(res, "roofline");
    const cJSON *opt = cJSON_GetObjectItem(res, "options");
    printf("model     %s  (%d nodes)\n", str(model, "name")[0] ? str(model, "name") : "(unnamed)",
           (int)num(model, "nodes"));
    printf("options   precision %s, speed-of-light model %s, %s\n\n", str(roof, "precision"), str(opt, "sol"),
           str(opt, "mode"));
}

static const char *opt_eng(const cJSON *o, const char *k, const char *unit, char *buf, size_t cap) {
    if (!cJSON_IsNumber(cJSON_GetObjectItem(o, k))) return "-";
    return eng(num(o, k), unit, buf, cap);
}

static void print_compare(const cJSON *st) {
    char a[32], b[32], c[32], d[32], e[32], f[32];
    printf("%-34s %-10s %-5s %10s %10s %10s %10s %10s %-8s %10s\n", "hardware", "mode", "prec", "unfused",
           "fused", "prefetched", "chosen", "energy", "bound", "launches");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(st, "rows")) {
        const cJSON *h = cJSON_GetObjectItem(r, "hardware"), *sol = cJSON_GetObjectItem(r, "sol");
        char name[35];
        snprintf(name, sizeof name, "%s", str(h, "id"));
        const char *mode = cJSON_IsString(cJSON_GetObjectItem(h, "power_mode")) ? str(h, "power_mode") : "-";
        const cJSON *err = cJSON_GetObjectItem(r, "error");
        if (cJSON_IsObject(err)) {
            printf("%-34s %-10s error: %s [%s]\n", name, mode, str(err, "message"), str(err, "code"));
            continue;
        }
        printf("%-34s %-10s %-5s %10s %10s %10s %10s %10s %-8s %10s\n", name, mode, str(r, "precision"),
               tsec(num(sol, "unfused"), a, sizeof a), tsec(num(sol, "fused"), b, sizeof b),
               tsec(num(sol, "fused_prefetched"), c, sizeof c), tsec(num(r, "chosen_time_s"), d, sizeof d),
               opt_eng(r, "energy_j", "J", e, sizeof e), str(r, "bound"),
               tsec(num(r, "launch_floor_s"), f, sizeof f));
    }
}

static void print_sweep(const cJSON *st) {
    char a[32], b[32], c[32], d[32], e[32], f[32];
    printf("%8s %10s %10s %9s %12s %10s %12s %12s %-8s\n", "batch", "FLOPs", "bytes", "AI", "attainable",
           "time", "time/sample", "J/sample", "bound");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(st, "rows")) {
        const cJSON *err = cJSON_GetObjectItem(r, "error");
        if (cJSON_IsObject(err)) {
            printf("%8g error: %s [%s]\n", num(r, "batch"), str(err, "message"), str(err, "code"));
            continue;
        }
        printf("%8g %10s %10s %9.2f %12s %10s %12s %12s %-8s\n", num(r, "batch"), eng(num(r, "flops"), "", a, sizeof a),
               eng(num(r, "bytes"), "B", b, sizeof b), num(r, "intensity"),
               eng(num(r, "attainable_flops_per_s"), "FLOP/s", c, sizeof c), tsec(num(r, "time_s"), d, sizeof d),
               tsec(num(r, "time_per_sample_s"), e, sizeof e), opt_eng(r, "energy_per_sample_j", "J", f, sizeof f),
               str(r, "bound"));
    }
    const cJSON *cb = cJSON_GetObjectItem(st, "critical_batch");
    if (cJSON_IsNumber(cb)) printf("\ncritical batch %g (time balance %.4g FLOP/B)\n", cb->valuedouble, num(st, "time_balance"));
    else printf("\nno critical batch in the range (time balance %.4g FLOP/B)\n", num(st, "time_balance"));
    printf("%s\n", str(st, "note"));
}

static void print_power_modes(const cJSON *st) {
    char a[32], b[32], c[32];
    printf("%-14s %10s %10s %10s %9s %14s %7s\n", "mode", "time", "energy", "avg power", "slowdown",
           "compute-bound", "pareto");
    const cJSON *r;
    const char *rec = str(st, "recommended");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(st, "rows")) {
        printf("%-14s %10s %10s %10s %8.1f%% %13.0f%% %7s%s\n", str(r, "mode"), tsec(num(r, "time_s"), a, sizeof a),
               opt_eng(r, "energy_j", "J", b, sizeof b), opt_eng(r, "avg_power_w", "W", c, sizeof c),
               100 * num(r, "slowdown"), 100 * num(r, "compute_bound_time_share"),
               cJSON_IsTrue(cJSON_GetObjectItem(r, "pareto")) ? "yes" : "no",
               !strcmp(str(r, "mode"), rec) ? "   <- recommended" : "");
    }
    printf("\nfastest %s; recommended %s (at most %.4g%% slower)\n%s\n", str(st, "fastest"), rec,
           100 * num(st, "max_slowdown"), str(st, "reason"));
}

static void print_study(const cJSON *res) {
    const cJSON *st = cJSON_GetObjectItem(res, "study");
    print_study_header(res);
    const char *kind = str(st, "kind");
    if (!strcmp(kind, "compare")) print_compare(st);
    else if (!strcmp(kind, "batch_sweep")) print_sweep(st);
    else print_power_modes(st);
    const cJSON *w = cJSON_GetObjectItem(res, "warnings"), *l;
    if (cJSON_GetArraySize(w) > 0) {
        printf("\nwarnings (the request's own analysis)\n");
        cJSON_ArrayForEach(l, w) printf("  [%s] %s\n", str(l, "code"), str(l, "message"));
    }
}

/* "A..B" = the powers of two from A to B; or a comma list. */
static cJSON *parse_batches(const char *spec) {
    cJSON *arr = cJSON_CreateArray();
    const char *dots = strstr(spec, "..");
    if (dots) {
        char *end;
        long long lo = strtoll(spec, &end, 10), hi;
        if (end != dots || lo < 1) goto bad;
        hi = strtoll(dots + 2, &end, 10);
        if (*end || hi < lo || hi > 1000000000LL) goto bad;
        for (long long b = 1; b <= hi; b *= 2)
            if (b >= lo) cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)b));
        if (cJSON_GetArraySize(arr) == 0) goto bad;
        return arr;
    }
    for (const char *p = spec; *p;) {
        char *end;
        long long b = strtoll(p, &end, 10);
        if (end == p || b < 1 || (*end && *end != ',')) goto bad;
        cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)b));
        p = *end ? end + 1 : end;
    }
    if (cJSON_GetArraySize(arr) > 0) return arr;
bad:
    cJSON_Delete(arr);
    return NULL;
}

/* "ID[:MODE],..." into the study's parallel hardware and power_modes arrays. */
static int build_compare(cJSON *study, const char *list, const char *dir) {
    cJSON *hws = cJSON_AddArrayToObject(study, "hardware");
    cJSON *modes = cJSON_AddArrayToObject(study, "power_modes");
    char *copy = strdup(list);
    int rc = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(item, ':');
        /* a colon inside a file path is part of the path */
        if (colon && (strchr(colon, '/') || strstr(colon, ".json"))) colon = NULL;
        if (colon) *colon = 0;
        cJSON *profile = load_profile(item, dir);
        if (!profile) { rc = -1; break; }
        cJSON_AddItemToArray(hws, profile);
        cJSON_AddItemToArray(modes, colon && colon[1] ? cJSON_CreateString(colon + 1) : cJSON_CreateNull());
    }
    if (!rc && cJSON_GetArraySize(hws) == 0) {
        fprintf(stderr, "rooflens: --compare needs at least one hardware id\n");
        rc = -1;
    }
    free(copy);
    return rc;
}

/* --------------------------------------------------------------- main -- */
enum command { CMD_ANALYZE, CMD_DIFF, CMD_BATCH };

/* The single analysis: read the model, analyse, print. */
static int run_analyze(cJSON *req, const char *model_path, const char *format, int top, bool strict,
                       bool study) {
    char *err = NULL;
    rl_model *m = read_model(model_path, &err);
    if (!m) {
        if (!err) return EXIT_BAD_MODEL;
        if (!strcmp(format, "json")) puts(err);
        else {
            cJSON *e = cJSON_Parse(err);
            const cJSON *eo = cJSON_GetObjectItem(e, "error");
            fprintf(stderr, "rooflens: %s: %s [%s]%s%s\n", model_path, str(eo, "message"), str(eo, "code"),
                    str(eo, "where")[0] ? " at " : "", str(eo, "where"));
            cJSON_Delete(e);
        }
        rl_free(err);
        return EXIT_BAD_MODEL;
    }
    char *text = cJSON_PrintUnformatted(req);
    char *out = rl_model_analyze(m, text);
    free(text);
    rl_model_free(m);
    cJSON *res = cJSON_Parse(out);
    int rc = EXIT_OK;
    if (!cJSON_IsTrue(cJSON_GetObjectItem(res, "ok"))) {
        const cJSON *eo = cJSON_GetObjectItem(res, "error");
        if (!strcmp(format, "json")) puts(out);
        else fprintf(stderr, "rooflens: %s: %s [%s]%s%s\n", model_path, str(eo, "message"), str(eo, "code"),
                     str(eo, "where")[0] ? " at " : "", str(eo, "where"));
        rc = EXIT_BAD_MODEL;
    } else {
        if (!strcmp(format, "json")) puts(out);
        else if (!strcmp(format, "csv")) print_csv(res);
        else if (study) print_study(res);
        else print_table(res, top);
        const cJSON *tot = cJSON_GetObjectItem(res, "totals");
        if (strict && (num(tot, "unknown_layers") > 0 || cJSON_GetArraySize(cJSON_GetObjectItem(tot, "unsupported_ops")) > 0))
            rc = EXIT_INCOMPLETE;
    }
    cJSON_Delete(res);
    rl_free(out);
    return rc;
}

int main(int argc, char **argv) {
    const char *hw = "h100-sxm", *format = "table", *dir = NULL;
    int top = -1;
    bool strict = false;
    const char *compare = NULL, *sweep = NULL, *max_slowdown = NULL;
    const char *fail_if = NULL, *label_old = NULL, *label_new = NULL;
    bool power_modes = false;
    int studies = 0;
    enum command cmd = CMD_ANALYZE;
    int first = 1;
    if (argc > 1 && !strcmp(argv[1], "diff")) cmd = CMD_DIFF, first = 2;
    else if (argc > 1 && !strcmp(argv[1], "batch")) cmd = CMD_BATCH, first = 2;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    int n_paths = 0;
    cJSON *req = cJSON_CreateObject();
    cJSON *dims = cJSON_CreateObject();
    /* until dims joins req, a usage error frees both (they would leak at exit) */
#define CLEANUP() (cJSON_Delete(req), cJSON_Delete(dims), free(paths))
#define USAGE_ERROR(fmt, arg) (CLEANUP(), usage_error(fmt, arg))
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!val) return USAGE_ERROR("%s needs a value", a); i++; } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(usage_text, stdout); CLEANUP(); return EXIT_OK; }
        else if (!strcmp(a, "--version")) { printf("rooflens %s\n", ROOFLENS_VERSION); CLEANUP(); return EXIT_OK; }
        else if (!strcmp(a, "--list-hw")) { CLEANUP(); return list_hw(hw_dir(dir)); }
        else if (!strcmp(a, "--hw")) { NEED_VALUE(); hw = val; }
        else if (!strcmp(a, "--hw-dir")) { NEED_VALUE(); dir = val; }
        else if (!strcmp(a, "--power-mode")) { NEED_VALUE(); cJSON_AddStringToObject(req, "power_mode", val); }
        else if (!strcmp(a, "--precision")) { NEED_VALUE(); cJSON_AddStringToObject(req, "precision", val); }
        else if (!strcmp(a, "--mode")) { NEED_VALUE(); cJSON_AddStringToObject(req, "mode", val); }
        else if (!strcmp(a, "--sol")) { NEED_VALUE(); cJSON_AddStringToObject(req, "sol", val); }
        else if (!strcmp(a, "--format")) {
            NEED_VALUE();
            format = val;
            bool markdown = cmd != CMD_ANALYZE && !strcmp(format, "markdown");
            if (strcmp(format, "table") && strcmp(format, "json") && strcmp(format, "csv") && !markdown) {
                if (cmd == CMD_ANALYZE) return USAGE_ERROR("--format must be table, json or csv, not '%s'", format);
                return USAGE_ERROR("--format must be table, json, csv or markdown, not '%s'", format);
            }
        } else if (!strcmp(a, "--top")) {
            NEED_VALUE();
            char *end;
            long t = strtol(val, &end, 10);
            if (*end || t < 0 || end == val) return USAGE_ERROR("--top needs a whole number, not '%s'", val);
            top = (int)t;
        } else if (!strcmp(a, "--batch")) {
            NEED_VALUE();
            char *end;
            long long b = strtoll(val, &end, 10);
            if (*end || b < 1) return USAGE_ERROR("--batch needs a whole number of at least 1, not '%s'", val);
            cJSON_AddNumberToObject(req, "batch", (double)b);
        } else if (!strcmp(a, "--dim")) {
            NEED_VALUE();
            const char *eq = strchr(val, '=');
            char *end;
            if (!eq || eq == val) return USAGE_ERROR("--dim needs NAME=VALUE, not '%s'", val);
            long long v = strtoll(eq + 1, &end, 10);
            if (*end || v < 0 || end == eq + 1) return USAGE_ERROR("--dim needs a whole number after '=', in '%s'", val);
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(eq - val), val);
            cJSON_AddNumberToObject(dims, name, (double)v);
        } else if (!strcmp(a, "--compare")) { NEED_VALUE(); compare = val; studies++; }
        else if (!strcmp(a, "--sweep-batch")) { NEED_VALUE(); sweep = val; studies++; }
        else if (!strcmp(a, "--power-modes")) { power_modes = true; studies++; }
        else if (!strcmp(a, "--max-slowdown")) { NEED_VALUE(); max_slowdown = val; }
        else if (!strcmp(a, "--strict")) strict = true;
        else if (!strcmp(a, "--fail-if")) { NEED_VALUE(); fail_if = val; }
        else if (!strcmp(a, "--label-old")) { NEED_VALUE(); label_old = val; }
        else if (!strcmp(a, "--label-new")) { NEED_VALUE(); label_new = val; }
        else if (!strcmp(a, "--")) {
            while (++i < argc) paths[n_paths++] = argv[i]; /* the rest are models, even "-x.onnx" */
        } else if (a[0] == '-' && a[1]) return USAGE_ERROR("unknown option '%s'", a);
        else paths[n_paths++] = a;
    }
    if (n_paths == 0) {
        fputs(usage_text, stderr);
        CLEANUP();
        return EXIT_USAGE;
    }
    if (cmd == CMD_ANALYZE && n_paths > 1) {
        const char *second = paths[1];
        return USAGE_ERROR("one model at a time (got a second: '%s'); 'rooflens diff OLD NEW' compares two", second);
    }
    if (cmd == CMD_DIFF && n_paths != 2)
        return USAGE_ERROR("%s", "rooflens diff needs two models: OLD.onnx NEW.onnx");
    if (cmd != CMD_ANALYZE && studies)
        return USAGE_ERROR("%s", "--compare, --sweep-batch and --power-modes are studies of one model, not of diff or batch");
    if (cmd != CMD_DIFF && (fail_if || label_old || label_new))
        return USAGE_ERROR("%s", "--fail-if, --label-old and --label-new go with rooflens diff");
    if (cmd == CMD_BATCH && (strict || top >= 0)) return USAGE_ERROR("%s", "--strict and --top do not apply to rooflens batch");
    if (studies > 1) return USAGE_ERROR("%s", "--compare, --sweep-batch and --power-modes: one study at a time");
    if (max_slowdown && !power_modes) return USAGE_ERROR("%s", "--max-slowdown goes with --power-modes");
    if (studies && !strcmp(format, "csv")) return USAGE_ERROR("%s", "a study prints a table or JSON (--format table|json), not csv");
    cJSON *profile = load_profile(hw, hw_dir(dir));
    if (!profile) {
        CLEANUP();
        return EXIT_USAGE;
    }
    cJSON_AddItemToObject(req, "hardware", profile);
    cJSON_AddItemToObject(req, "dims", dims);
    dims = NULL;
#undef CLEANUP
#define CLEANUP() (cJSON_Delete(req), free(paths))
    int rc;
    if (cmd == CMD_DIFF) {
        diff_args da = {paths[0], paths[1], format, fail_if, label_old ? label_old : paths[0],
                        label_new ? label_new : paths[1], top >= 0 ? top : 10, strict};
        rc = run_diff(req, &da);
        CLEANUP();
        return rc;
    }
    if (cmd == CMD_BATCH) {
        rc = run_batch(req, paths, n_paths, format);
        CLEANUP();
        return rc;
    }
    if (studies) {
        cJSON *study = cJSON_AddObjectToObject(req, "study");
        if (compare) {
            cJSON_AddStringToObject(study, "kind", "compare");
            if (build_compare(study, compare, hw_dir(dir))) { CLEANUP(); return EXIT_USAGE; }
        } else if (sweep) {
            cJSON_AddStringToObject(study, "kind", "batch_sweep");
            cJSON *b = parse_batches(sweep);
            if (!b) {
                CLEANUP();
                return usage_error("--sweep-batch needs A..B (powers of two from A to B) or a comma list of "
                                   "whole numbers >= 1, not '%s'", sweep);
            }
            cJSON_AddItemToObject(study, "batches", b);
        } else {
            cJSON_AddStringToObject(study, "kind", "power_modes");
            if (max_slowdown) {
                char *end;
                double x = strtod(max_slowdown, &end);
                if (*end || end == max_slowdown) {
                    CLEANUP();
                    return usage_error("--max-slowdown needs a number (0.05 = 5%% slower), not '%s'", max_slowdown);
                }
                cJSON_AddNumberToObject(study, "max_slowdown", x);
            }
        }
        /* the study carries the figures; the per-layer rows are not printed */
        cJSON_AddFalseToObject(req, "layers");
    } else if (!strcmp(format, "csv") || !strcmp(format, "table")) cJSON_AddTrueToObject(req, "layers");
    rc = run_analyze(req, paths[0], format, top >= 0 ? top : 15, strict, studies > 0);
    CLEANUP();
    return rc;
}
