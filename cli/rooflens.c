/* rooflens: the command-line face of the core. It reads the model (skipping
 * weight payloads with fseeko), builds the same JSON request the web page
 * sends, and prints the response as a table, JSON or CSV. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "calibrate.h"
#include "cli.h"

enum command { CMD_ANALYZE, CMD_DIFF, CMD_BATCH };

/* The usage text, in two parts around the --precision line, whose list of
 * precisions comes from the core's table (rl_precisions). */
static const char usage_head[] =
    "usage: rooflens MODEL.onnx [options]\n"
    "       rooflens --list-hw\n"
    "       rooflens --check-hw [--shipped] ID|FILE...\n"
    "       rooflens diff OLD.onnx NEW.onnx [options]\n"
    "       rooflens batch DIR|FILES... [options]\n"
    "       rooflens calibrate [--out FILE] [--runs N] [--id ID]   (see rooflens calibrate --help)\n"
    "\n"
    "Reports where the time and energy of an ONNX model go on a hardware profile:\n"
    "per-layer FLOPs, bytes, arithmetic intensity, roofline times and energy.\n"
    "\n"
    "options:\n"
    "  --hw ID|FILE          hardware profile id (see --list-hw) or a profile JSON file\n"
    "                        (default h100-sxm)\n"
    "  --power-mode NAME     a power mode of the device (e.g. for jetson-agx-orin)\n"
    "  --batch N             set every leading symbolic batch dimension to N\n"
    "  --dim NAME=V          set the symbolic dimension NAME to V (repeatable)\n"
    "  --precision P         model (default: the model's own dtypes) or one of\n";
static const char usage_tail[] =
    "  --mode M              inference (default) or training (adds backward estimates)\n"
    "  --sol S               speed-of-light model for the headline time: unfused,\n"
    "                        fused (default) or fused_prefetched\n"
    "  --format F            table (default), json, csv, or netron (a netron:attachment\n"
    "                        JSON to drop onto the same model in Netron)\n"
    "  --measured FILE       a profile of the model's real per-kernel times: ONNX Runtime\n"
    "                        profiling JSON, trtexec --exportProfile JSON or a name,time_s\n"
    "                        CSV (detected); adds measured time, efficiency and the time\n"
    "                        lost to each layer\n"
    "  --measured-format F   auto (default), ort, trtexec or csv\n"
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
    "  --check-hw ID|FILE... check hardware profiles with the core's validator (every\n"
    "                        power mode; exit 3 when one is refused); --shipped first\n"
    "                        adds the rules of a profile shipped in hw/ (every figure\n"
    "                        with its source and kind)\n"
    "  -h, --help            this help\n"
    "\n"
    "LLM inference (a decoder with a KV cache; see docs/llm.md):\n"
    "  --llm                 prefill and decode phases: time to first token, time per\n"
    "                        output token, tokens/s, KV cache, memory fit, batch and\n"
    "                        context sweeps (--batch sets the batch)\n"
    "  --prompt P            prompt tokens (default 512)\n"
    "  --generate G          generated tokens (default 128)\n"
    "  --weight-bits B       store matrix weights at 16, 8 or 4 bits (default: the\n"
    "                        model's own; MatMulNBits weights keep theirs)\n"
    "  --weight-group N      weights per scale for 8 and 4 bits (default 128)\n"
    "  --kv-bits B           KV cache at 16, 8 or 4 bits (default: the activations')\n"
    "  --llm-dims LIST       name the dims by role: batch=NAME,seq=NAME,past=NAME,total=NAME\n"
    "\n"
    "diff: what changed from OLD to NEW under the same options (layers matched by name,\n"
    "then by op and position; docs/ci.md); --format table, json, csv or markdown:\n"
    "  --fail-if EXPR        exit 5 when a threshold is crossed, e.g.\n"
    "                        \"time>+5%,flops>+10%,unsupported>0\" (grammar in docs/ci.md)\n"
    "  --label-old S, --label-new S   names shown for the two models (default: the paths)\n"
    "  --top K               changed layers shown in table and markdown (default 10)\n"
    "  --strict              exit 4 when the NEW model is incompletely analysed\n"
    "batch: one row per model (files, or every .onnx under DIR, one at a time); a model\n"
    "that cannot be read is reported in its row and the others still come\n"
    "\n"
    "exit codes: 0 ok, 2 usage (a bad --fail-if too), 3 bad model or request (batch: any\n"
    "row), 4 incomplete analysis with --strict, 5 a --fail-if threshold crossed\n";

static void print_usage(FILE *out) {
    fputs(usage_head, out);
    fputs("                        ", out);
    char *json = rl_precisions();
    cJSON *list = cJSON_Parse(json ? json : "[]");
    rl_free(json);
    const cJSON *p;
    int i = 0;
    cJSON_ArrayForEach(p, list) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
        if (cJSON_IsString(name)) fprintf(out, "%s%s", i++ ? ", " : "", name->valuestring);
    }
    cJSON_Delete(list);
    fputs(":\n                        applies to every floating tensor\n", out);
    fputs(usage_tail, out);
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "rooflens: ");
    fprintf(stderr, fmt, txt(arg)); /* arg: what the user typed, shown as typed but escaped */
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
                txt(id_or_file), txt(p));
        return NULL;
    }
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j) fprintf(stderr, "rooflens: the hardware profile %s is not valid JSON\n", txt(p));
    return j;
}

/* --check-hw: each profile through the core's validator (rl_check_hardware,
 * every power mode; rl_check_shipped_hardware after --shipped); one line each. */
static int check_hw(int n, char **items, const char *dir) {
    bool shipped = n > 0 && !strcmp(items[0], "--shipped");
    if (shipped) n--, items++;
    if (n == 0) return usage_error("%s needs at least one profile id or file", "--check-hw");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        cJSON *j = load_profile(items[i], dir);
        char *text = j ? cJSON_PrintUnformatted(j) : NULL;
        cJSON_Delete(j);
        char *res = !text ? NULL : shipped ? rl_check_shipped_hardware(text) : rl_check_hardware(text);
        free(text);
        cJSON *r = res ? cJSON_Parse(res) : NULL;
        rl_free(res);
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(r, "error");
        if (!r || err) {
            bad++;
            printf("FAIL %s: %s [%s]\n", txt(items[i]), err ? tstr(err, "message") : "not readable",
                   err ? tstr(err, "where") : "");
        } else {
            const cJSON *budget = cJSON_GetObjectItemCaseSensitive(r, "power_budget_w");
            const char *model = cJSON_IsString(cJSON_GetObjectItem(r, "energy_model")) ? tstr(r, "energy_model") : NULL;
            char b[32] = "unknown";
            if (cJSON_IsNumber(budget)) snprintf(b, sizeof b, "%.4g W", budget->valuedouble);
            printf("ok   %-20s %d power modes; power budget %s; energy %s\n",
                   tstr(r, "id"),
                   cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "modes")), b, model ? model : "none");
        }
        cJSON_Delete(r);
    }
    return bad ? EXIT_BAD_MODEL : EXIT_OK;
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
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) names[n++] = strdup(e->d_name);
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
            printf("%-22s %s", txt(id->valuestring), cJSON_IsString(nm) ? txt(nm->valuestring) : "");
            if (cJSON_IsArray(modes) && cJSON_GetArraySize(modes) > 0) {
                printf("  [power modes:");
                const cJSON *m;
                cJSON_ArrayForEach(m, modes) {
                    const cJSON *mid = cJSON_GetObjectItem(m, "id");
                    if (cJSON_IsString(mid)) printf(" %s", txt(mid->valuestring));
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

char *error_json(const char *code, const char *message) {
    /* the same error object the core gives, so every caller reports it one way */
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "schema", ROOFLENS_SCHEMA);
    cJSON_AddFalseToObject(e, "ok");
    cJSON *eo = cJSON_AddObjectToObject(e, "error");
    cJSON_AddStringToObject(eo, "code", code);
    cJSON_AddStringToObject(eo, "message", message);
    cJSON_AddStringToObject(eo, "where", "");
    char *text = cJSON_PrintUnformatted(e);
    cJSON_Delete(e);
    return text;
}

/* The model file opened for reading, or NULL with *err. Opened without
 * blocking, so that a FIFO with no writer cannot hang the open; a folder is
 * refused, and so is anything but a regular file when regular_only. */
static FILE *open_model(const char *path, bool regular_only, char **err) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    char msg[512];
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(msg, sizeof msg, "cannot open the file: %s", strerror(errno));
        if (fd >= 0) close(fd);
        *err = error_json("cannot_open", msg);
        return NULL;
    }
    if (S_ISDIR(st.st_mode) || (regular_only && !S_ISREG(st.st_mode))) {
        close(fd);
        *err = error_json("not_a_file", S_ISDIR(st.st_mode) ? "a folder, not a model file"
                                                           : "not a regular file (a FIFO, a device or a socket): not read");
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK); /* a pipe's writer may be slower than us */
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        *err = error_json("cannot_open", "cannot open the file: out of memory");
    }
    return f;
}

/* Read the model, jumping over weight payloads. */
rl_model *read_model(const char *path, bool regular_only, char **err) {
    FILE *f = open_model(path, regular_only, err);
    if (!f) return NULL;
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
const char *tstr(const cJSON *o, const char *k) { return txt(str(o, k)); }

static const char *opt_eng(const cJSON *o, const char *k, const char *unit, char *buf, size_t cap) {
    if (!cJSON_IsNumber(cJSON_GetObjectItem(o, k))) return "-";
    return eng(num(o, k), unit, buf, cap);
}

static int cmp_time(const void *a, const void *b) {
    double ta = num(*(cJSON *const *)a, "t"), tb = num(*(cJSON *const *)b, "t");
    return ta < tb ? 1 : ta > tb ? -1 : 0;
}

/* The totals and the headline: the chosen model's figures, as every other
 * surface shows them, then the three models side by side. */
static void print_headline(const cJSON *res) {
    const cJSON *tot = cJSON_GetObjectItem(res, "totals"), *sol = cJSON_GetObjectItem(res, "sol");
    const cJSON *ch = cJSON_GetObjectItem(sol, "chosen");
    const double total_t = num(ch, "time_s");
    char a[32], b[32], c2[32], d[32], e[32], f[32];
    printf("\ntotals    %s FLOPs (matrix %s, vector %s), %s moved unfused (%s fused), intensity %.2f FLOP/B\n",
           eng(num(tot, "flops"), "", a, sizeof a), eng(num(tot, "matrix_flops"), "", b, sizeof b),
           eng(num(tot, "vector_flops"), "", c2, sizeof c2), eng(num(tot, "bytes"), "B", d, sizeof d),
           eng(num(tot, "fused_bytes"), "B", e, sizeof e), num(tot, "intensity"));
    printf("\npredicted %s  (%s, %s granularity; bound: %s)\n", tsec(total_t, a, sizeof a), tstr(ch, "model"),
           tstr(ch, "granularity"), tstr(ch, "bound"));
    printf("          bounds %s ... %s; %g kernels, launch floor %s\n", tsec(num(ch, "lower_bound_s"), a, sizeof a),
           tsec(num(ch, "upper_bound_s"), b, sizeof b), num(ch, "kernels"), tsec(num(ch, "launch_floor_s"), c2, sizeof c2));
    if (cJSON_IsNumber(cJSON_GetObjectItem(ch, "energy_j")))
        printf("          energy %s per inference, average power %s%s\n", eng(num(ch, "energy_j"), "J", a, sizeof a),
               eng(num(ch, "avg_power_w"), "W", b, sizeof b),
               cJSON_IsTrue(cJSON_GetObjectItem(ch, "power_capped")) ? " (held to the power budget)" : "");
    printf("\nspeed of light       %10s %10s %10s %10s %8s %10s %-8s %10s\n", "time", "lower", "upper", "roofline",
           "kernels", "launches", "bound", "energy");
    for (int i = 0; i < 3; i++) {
        static const char *const models[] = {"unfused", "fused", "fused_prefetched"};
        const cJSON *m = cJSON_GetObjectItem(sol, models[i]);
        printf("  %-18s %10s %10s %10s %10s %8g %10s %-8s %10s%s\n", models[i], tsec(num(m, "time_s"), a, sizeof a),
               tsec(num(m, "lower_bound_s"), b, sizeof b), tsec(num(m, "upper_bound_s"), c2, sizeof c2),
               tsec(num(m, "roof_time_s"), d, sizeof d), num(m, "kernels"), tsec(num(m, "launch_floor_s"), e, sizeof e),
               tstr(m, "bound"), opt_eng(m, "energy_j", "J", f, sizeof f),
               !strcmp(models[i], tstr(ch, "model")) ? "  <- chosen" : "");
    }
}

static void print_table(const cJSON *res, int top) {
    const cJSON *model = cJSON_GetObjectItem(res, "model"), *hw = cJSON_GetObjectItem(res, "hardware");
    const cJSON *sol = cJSON_GetObjectItem(res, "sol");
    const cJSON *roof = cJSON_GetObjectItem(res, "roofline"), *opt = cJSON_GetObjectItem(res, "options");
    char a[32], b[32], c2[32], d[32], e[32];
    printf("model     %s  (%d nodes, %s params, %s of weights)\n", tstr(model, "name")[0] ? tstr(model, "name") : "(unnamed)",
           (int)num(model, "nodes"), eng(num(model, "params"), "", a, sizeof a), eng(num(model, "weight_bytes"), "B", b, sizeof b));
    printf("hardware  %s%s%s  precision %s%s%s%s, %s\n", tstr(hw, "name"),
           cJSON_IsString(cJSON_GetObjectItem(hw, "power_mode")) ? ", mode " : "",
           cJSON_IsString(cJSON_GetObjectItem(hw, "power_mode")) ? tstr(hw, "power_mode_name") : "",
           tstr(roof, "precision"), strcmp(str(roof, "precision"), str(roof, "requested_precision")) ? " (" : "",
           strcmp(str(roof, "precision"), str(roof, "requested_precision")) ? tstr(roof, "requested_precision") : "",
           strcmp(str(roof, "precision"), str(roof, "requested_precision")) ? " requested)" : "", tstr(opt, "mode"));
    if (cJSON_IsNumber(cJSON_GetObjectItem(opt, "batch"))) {
        printf("batch     %g", num(opt, "batch"));
        if (!strcmp(str(opt, "batch_applied"), "scaled"))
            printf(" (the model's fixed batch %g, scaled: FLOPs and activations x%g, weights once)",
                   num(opt, "batch_base"), num(opt, "batch") / num(opt, "batch_base"));
        printf("\n");
    }
    const cJSON *dims = cJSON_GetObjectItem(model, "dims");
    if (cJSON_GetArraySize(dims) > 0) {
        printf("dims     ");
        const cJSON *dd;
        cJSON_ArrayForEach(dd, dims) printf(" %s=%g", txt(dd->string), num(dd, "value"));
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
    const cJSON *ch = cJSON_GetObjectItem(sol, "chosen");
    double total_t = num(ch, "time_s"); /* the layers' times are their shares of it */
    printf("\n%-32s %-18s %10s %10s %8s %10s %8s %6s\n", "layer (top by time)", "op", "FLOPs", "bytes", "AI",
           "time", "bound", "share");
    for (int i = 0; i < shown; i++) {
        const cJSON *r = rows[i];
        printf("%-32s %-18s %10s %10s %8.1f %10s %8s %5.1f%%\n", txt_cut(str(r, "name"), 32), txt_cut(str(r, "op"), 18), eng(num(r, "flops"), "", a, sizeof a),
               eng(num(r, "bytes"), "B", b, sizeof b), num(r, "intensity"), tsec(num(r, "t"), c2, sizeof c2),
               tstr(r, "bound"), total_t > 0 ? 100 * num(r, "t") / total_t : 0);
    }
    if (shown < n) printf("(%d more layers; --top 0 shows all)\n", n - shown);
    free(rows);
    print_headline(res);
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
        cJSON_ArrayForEach(l, w) printf("  [%s] %s\n", tstr(l, "code"), tstr(l, "message"));
    }
}

/* ------------------------------------------------------------ measured -- */
static const char *pct_of(double part, double whole, char *buf, size_t cap) {
    if (whole > 0) snprintf(buf, cap, "%.1f%%", 100 * part / whole);
    else snprintf(buf, cap, "-");
    return buf;
}

/* The measured profile against the prediction, and the kernel groups that
 * lose the most time against their speed of light. */
static void print_measured(const cJSON *res, int top) {
    const cJSON *ms = cJSON_GetObjectItem(res, "measured");
    if (!ms) return;
    const cJSON *layers = cJSON_GetObjectItem(res, "layers"), *ch = cJSON_GetObjectItem(cJSON_GetObjectItem(res, "sol"), "chosen");
    static const struct { const char *id, *name; } formats[] = {
        {"ort", "ONNX Runtime profile"}, {"trtexec", "trtexec profile"}, {"csv", "CSV profile"}};
    const char *fname = tstr(ms, "format");
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (!strcmp(formats[i].id, fname)) fname = formats[i].name;
    char a[32], b[32], c[32], d[32];
    double total = num(ms, "total_s");
    printf("\nmeasured  %s, %d run%s averaged%s: %s in %d kernels", fname, (int)num(ms, "runs"),
           num(ms, "runs") == 1 ? "" : "s", cJSON_IsTrue(cJSON_GetObjectItem(ms, "warmup_excluded")) ? " (warm-up run left out)" : "",
           tsec(total, a, sizeof a), (int)num(ms, "kernels"));
    if (cJSON_IsNumber(cJSON_GetObjectItem(ms, "run_wall_s"))) printf(" (%s a run, wall clock)", tsec(num(ms, "run_wall_s"), b, sizeof b));
    printf("\n          predicted %s (%s, %s): measured is %.3gx the prediction\n", tsec(num(ms, "predicted_s"), a, sizeof a),
           tstr(ch, "model"), tstr(ch, "granularity"), num(ms, "measured_over_predicted"));
    printf("          %d of %d kernels matched to nodes (%s of the measured time); %d nodes measured, %d of them "
           "placed in a fused kernel by inference\n", (int)num(ms, "matched"), (int)num(ms, "kernels"),
           pct_of(num(ms, "matched_s"), total, b, sizeof b), (int)num(ms, "nodes_measured"), (int)num(ms, "nodes_inferred"));
    printf("          speed of light of the matched kernels %s: efficiency %s; SOL <= measured for %s of their time\n",
           tsec(num(ms, "sol_s"), a, sizeof a), pct_of(num(ms, "sol_s"), num(ms, "matched_s"), b, sizeof b),
           pct_of(num(ms, "sol_bound_share"), 1, c, sizeof c));
    const cJSON *groups = cJSON_GetObjectItem(ms, "groups");
    int n = cJSON_GetArraySize(groups), shown = top > 0 && top < n ? top : n;
    printf("\nwhere the time is lost (kernels by recoverable time = measured - speed of light)\n");
    printf("%-40s %-14s %5s %10s %10s %7s %10s %6s\n", "kernel", "op", "nodes", "measured", "SOL", "effic.", "lost", "share");
    const cJSON *g;
    int row = 0;
    cJSON_ArrayForEach(g, groups) {
        if (row++ >= shown) break;
        const cJSON *ks = cJSON_GetObjectItem(g, "kernels");
        char name[64];
        const char *kn = txt(cJSON_GetStringValue(cJSON_GetArrayItem(ks, 0)));
        /* long names differ at their end: keep that */
        snprintf(name, sizeof name, "%s%s%s", strlen(kn) > 36 ? "..." : "", txt_tail(kn, 33),
                 cJSON_GetArraySize(ks) > 1 ? " (+)" : "");
        const char *opn = txt_cut(str(g, "op"), 14);
        const cJSON *eff = cJSON_GetObjectItem(g, "efficiency");
        char effs[16];
        if (cJSON_IsNumber(eff)) snprintf(effs, sizeof effs, "%.1f%%", 100 * eff->valuedouble);
        else snprintf(effs, sizeof effs, "?");
        printf("%-40s %-14s %5d %10s %10s %7s %10s %6s\n", name, opn, cJSON_GetArraySize(cJSON_GetObjectItem(g, "nodes")),
               tsec(num(g, "measured_s"), a, sizeof a), tsec(num(g, "sol_s"), b, sizeof b), effs,
               tsec(num(g, "recoverable_s"), c, sizeof c), pct_of(num(g, "measured_s"), total, d, sizeof d));
    }
    if (shown < n) printf("(%d more kernels; --top 0 shows all)\n", n - shown);
    const cJSON *un = cJSON_GetObjectItem(ms, "unmatched");
    if (cJSON_GetArraySize(un) > 0) {
        printf("\nkernels that name no node of the model (%d, %s of the measured time)\n", cJSON_GetArraySize(un),
               pct_of(num(ms, "unmatched_s"), total, a, sizeof a));
        cJSON_ArrayForEach(g, un)
            printf("  %-40s %-14s %10s  %s\n", tstr(g, "name"), tstr(g, "op"), tsec(num(g, "time_s"), b, sizeof b), tstr(g, "why"));
    }
    const cJSON *unm = cJSON_GetObjectItem(ms, "unmeasured");
    if (cJSON_GetArraySize(unm) > 0) {
        printf("\nnodes with work but no measured kernel (%d):", cJSON_GetArraySize(unm));
        int k = 0;
        cJSON_ArrayForEach(g, unm) {
            if (k++ == 8) { printf(" ..."); break; }
            printf(" %s", tstr(cJSON_GetArrayItem(layers, (int)g->valuedouble), "name"));
        }
        printf("\n");
    }
}

/* A text cell: a leading =, +, -, @, tab or CR would make a spreadsheet read
 * a model's name as a formula (=HYPERLINK(...)), so such a cell gets a
 * leading ' as the page's CSV does (web/js/export.js); then quoted when it
 * holds a comma, a quote or a line break. Numbers are written apart. */
void csv_field(FILE *f, const char *s) {
    bool formula = strchr("=+-@\t\r", s[0]) != NULL && s[0];
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
                                       "energy_j", "precision", "known",
                                       /* only with a measured profile: */
                                       "measured_s", "efficiency", "recoverable_s"};
    size_t nc = sizeof cols / sizeof *cols - (cJSON_GetObjectItem(res, "measured") ? 0 : 3);
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
    printf("model     %s  (%d nodes)\n", tstr(model, "name")[0] ? tstr(model, "name") : "(unnamed)",
           (int)num(model, "nodes"));
    printf("options   precision %s, speed-of-light model %s, %s\n\n", tstr(roof, "precision"), tstr(opt, "sol"),
           tstr(opt, "mode"));
}

static void print_compare(const cJSON *st) {
    char a[32], b[32], c[32], d[32], e[32], f[32];
    printf("%-34s %-10s %-5s %10s %10s %10s %10s %10s %-8s %10s\n", "hardware", "mode", "prec", "unfused",
           "fused", "prefetched", "chosen", "energy", "bound", "launches");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(st, "rows")) {
        const cJSON *h = cJSON_GetObjectItem(r, "hardware"), *sol = cJSON_GetObjectItem(r, "sol");
        const char *name = txt_cut(str(h, "id"), 34);
        const char *mode = cJSON_IsString(cJSON_GetObjectItem(h, "power_mode")) ? tstr(h, "power_mode") : "-";
        const cJSON *err = cJSON_GetObjectItem(r, "error");
        if (cJSON_IsObject(err)) {
            printf("%-34s %-10s error: %s [%s]\n", name, mode, tstr(err, "message"), tstr(err, "code"));
            continue;
        }
        printf("%-34s %-10s %-5s %10s %10s %10s %10s %10s %-8s %10s\n", name, mode, tstr(r, "precision"),
               tsec(num(sol, "unfused"), a, sizeof a), tsec(num(sol, "fused"), b, sizeof b),
               tsec(num(sol, "fused_prefetched"), c, sizeof c), tsec(num(r, "chosen_time_s"), d, sizeof d),
               opt_eng(r, "energy_j", "J", e, sizeof e), tstr(r, "bound"),
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
            printf("%8g error: %s [%s]\n", num(r, "batch"), tstr(err, "message"), tstr(err, "code"));
            continue;
        }
        printf("%8g %10s %10s %9.2f %12s %10s %12s %12s %-8s\n", num(r, "batch"), eng(num(r, "flops"), "", a, sizeof a),
               eng(num(r, "bytes"), "B", b, sizeof b), num(r, "intensity"),
               eng(num(r, "attainable_flops_per_s"), "FLOP/s", c, sizeof c), tsec(num(r, "time_s"), d, sizeof d),
               tsec(num(r, "time_per_sample_s"), e, sizeof e), opt_eng(r, "energy_per_sample_j", "J", f, sizeof f),
               tstr(r, "bound"));
    }
    const cJSON *cb = cJSON_GetObjectItem(st, "critical_batch");
    if (cJSON_IsNumber(cb)) printf("\ncritical batch %g (time balance %.4g FLOP/B)\n", cb->valuedouble, num(st, "time_balance"));
    else printf("\nno critical batch in the range (time balance %.4g FLOP/B)\n", num(st, "time_balance"));
    printf("%s\n", tstr(st, "note"));
}

static void print_power_modes(const cJSON *st) {
    char a[32], b[32], c[32];
    printf("%-14s %10s %10s %10s %-8s %9s %14s %7s\n", "mode", "time", "energy", "avg power", "bound",
           "slowdown", "compute-bound", "pareto");
    const cJSON *r;
    const char *rec = tstr(st, "recommended");
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(st, "rows")) {
        printf("%-14s %10s %10s %10s %-8s %8.1f%% %13.0f%% %7s%s\n", tstr(r, "mode"), tsec(num(r, "time_s"), a, sizeof a),
               opt_eng(r, "energy_j", "J", b, sizeof b), opt_eng(r, "avg_power_w", "W", c, sizeof c), tstr(r, "bound"),
               100 * num(r, "slowdown"), 100 * num(r, "compute_bound_time_share"),
               cJSON_IsTrue(cJSON_GetObjectItem(r, "pareto")) ? "yes" : "no",
               !strcmp(str(r, "mode"), rec) ? "   <- recommended" : "");
    }
    printf("\nfastest %s; recommended %s (at most %.4g%% slower)\n%s\n", tstr(st, "fastest"), rec,
           100 * num(st, "max_slowdown"), tstr(st, "reason"));
}

static void print_study(const cJSON *res) {
    const cJSON *st = cJSON_GetObjectItem(res, "study");
    print_study_header(res);
    const char *kind = tstr(st, "kind");
    if (!strcmp(kind, "compare")) print_compare(st);
    else if (!strcmp(kind, "batch_sweep")) print_sweep(st);
    else print_power_modes(st);
    const cJSON *w = cJSON_GetObjectItem(res, "warnings"), *l;
    if (cJSON_GetArraySize(w) > 0) {
        printf("\nwarnings (the request's own analysis)\n");
        cJSON_ArrayForEach(l, w) printf("  [%s] %s\n", tstr(l, "code"), tstr(l, "message"));
    }
}

/* ----------------------------------------------------------------- LLM -- */
static const char *opt_count(const cJSON *o, const char *k, char *buf, size_t cap) {
    if (!cJSON_IsNumber(cJSON_GetObjectItem(o, k))) return "unknown";
    snprintf(buf, cap, "%.0f", num(o, k));
    return buf;
}

static void print_llm_phases(const cJSON *L) {
    const cJSON *pre = cJSON_GetObjectItem(L, "prefill"), *dec = cJSON_GetObjectItem(L, "decode");
    char a[32], b[32], c[32], d[32];
    printf("%-16s %10s %10s %10s %9s  %-8s %s\n", "phase", "time", "FLOPs", "bytes", "AI", "bound", "launch floor");
    printf("%-16s %10s %10s %10s %9.1f  %-8s %s\n", "prefill", tsec(num(pre, "time_s"), a, sizeof a),
           eng(num(pre, "flops"), "", b, sizeof b), eng(num(pre, "bytes"), "B", c, sizeof c),
           num(pre, "bytes") > 0 ? num(pre, "flops") / num(pre, "bytes") : 0, tstr(pre, "bound"),
           tsec(num(pre, "launch_floor_s"), d, sizeof d));
    if (!cJSON_IsObject(dec)) return;
    printf("%-16s %10s %10s %10s %9.1f  %-8s %s (captured graph: not paid)\n", "decode step",
           tsec(num(dec, "mean_time_per_token_s"), a, sizeof a), eng(num(dec, "flops_per_step"), "", b, sizeof b),
           eng(num(dec, "bytes_per_step"), "B", c, sizeof c),
           num(dec, "bytes_per_step") > 0 ? num(dec, "flops_per_step") / num(dec, "bytes_per_step") : 0,
           tstr(dec, "bound"), tsec(num(dec, "launch_floor_s"), d, sizeof d));
}

static void print_llm_memory(const cJSON *L) {
    char a[32], b[32], c[32], d[32], e[32];
    bool kv = cJSON_IsNumber(cJSON_GetObjectItem(L, "kv_cache_bytes"));
    printf("\nmemory    weights %s", eng(num(L, "weight_bytes"), "B", a, sizeof a));
    if (kv)
        printf(" + KV cache %s (%s per token x %g tokens x batch %g)", eng(num(L, "kv_cache_bytes"), "B", b, sizeof b),
               eng(num(L, "kv_cache_bytes_per_token"), "B", c, sizeof c),
               num(L, "prompt_tokens") + num(L, "generated_tokens"), num(L, "batch"));
    printf(" + activations %s\n          = %s", eng(num(L, "activation_bytes"), "B", d, sizeof d),
           eng(num(L, "memory_required_bytes"), "B", e, sizeof e));
    const cJSON *fits = cJSON_GetObjectItem(L, "fits");
    if (cJSON_IsBool(fits))
        printf(" of %s: %s\n", eng(num(L, "device_memory_bytes"), "B", a, sizeof a),
               cJSON_IsTrue(fits) ? "fits" : "does NOT fit");
    else
        printf(" (device memory unknown)\n");
    printf("          largest batch that fits: %s", opt_count(L, "max_batch", a, sizeof a));
    if (kv) printf("; longest context at batch %g: %s tokens", num(L, "batch"), opt_count(L, "max_context", b, sizeof b));
    printf("\n");
}

static void print_llm_sweeps(const cJSON *L) {
    const cJSON *bs = cJSON_GetObjectItem(L, "batch_sweep"), *cs = cJSON_GetObjectItem(L, "context_sweep"), *r;
    char a[32], b[32], c[32];
    if (cJSON_IsObject(bs)) {
        printf("\ndecode batch sweep (prompt %g, generate %g)\n%8s %10s %12s %-8s %10s %s\n", num(L, "prompt_tokens"),
               num(L, "generated_tokens"), "batch", "TPOT", "tokens/s", "bound", "memory", "fits");
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(bs, "rows")) {
            const cJSON *f = cJSON_GetObjectItem(r, "fits");
            printf("%8g %10s %12s %-8s %10s %s\n", num(r, "batch"), tsec(num(r, "tpot_s"), a, sizeof a),
                   eng(num(r, "tokens_per_s"), "", b, sizeof b), tstr(r, "bound"),
                   eng(num(r, "memory_required_bytes"), "B", c, sizeof c),
                   cJSON_IsBool(f) ? (cJSON_IsTrue(f) ? "yes" : "no (memory)") : "-");
        }
        const cJSON *cb = cJSON_GetObjectItem(bs, "compute_bound_batch");
        if (cJSON_IsNumber(cb)) printf("decode turns compute-bound at batch %g", cb->valuedouble);
        else printf("decode stays memory-bound over the batches swept");
        printf("; largest batch that fits: %s\n", opt_count(bs, "max_batch", a, sizeof a));
    }
    if (cJSON_IsObject(cs)) {
        printf("\ndecode context sweep (batch %g)\n%10s %10s %12s %-8s %s\n", num(L, "batch"), "context", "TPOT",
               "tokens/s", "bound", "fits");
        cJSON_ArrayForEach(r, cJSON_GetObjectItem(cs, "rows")) {
            const cJSON *f = cJSON_GetObjectItem(r, "fits");
            printf("%10g %10s %12s %-8s %s\n", num(r, "context"), tsec(num(r, "tpot_s"), a, sizeof a),
                   eng(num(r, "tokens_per_s"), "", b, sizeof b), tstr(r, "bound"),
                   cJSON_IsBool(f) ? (cJSON_IsTrue(f) ? "yes" : "no (memory)") : "-");
        }
    }
}

static void print_llm(const cJSON *res) {
    const cJSON *L = cJSON_GetObjectItem(res, "llm"), *model = cJSON_GetObjectItem(res, "model");
    const cJSON *hw = cJSON_GetObjectItem(res, "hardware"), *roles = cJSON_GetObjectItem(L, "roles");
    const cJSON *q = cJSON_GetObjectItem(L, "quantization"), *dec = cJSON_GetObjectItem(L, "decode"), *it;
    char a[32], b[32], c[32], d[32];
    printf("model     %s  (%d nodes)\n", tstr(model, "name")[0] ? tstr(model, "name") : "(unnamed)", (int)num(model, "nodes"));
    printf("hardware  %s%s%s\n", tstr(hw, "name"), cJSON_IsString(cJSON_GetObjectItem(hw, "power_mode")) ? ", mode " : "",
           cJSON_IsString(cJSON_GetObjectItem(hw, "power_mode")) ? tstr(hw, "power_mode_name") : "");
    printf("roles    ");
    static const char *const role_keys[] = {"batch", "seq", "past", "total"};
    for (int i = 0; i < 4; i++)
        if (cJSON_IsString(cJSON_GetObjectItem(roles, role_keys[i])))
            printf(" %s='%s'", role_keys[i], tstr(roles, role_keys[i]));
    printf("  (%g KV cache inputs)\n", num(roles, "kv_inputs"));
    printf("run       batch %g, prompt %g tokens", num(L, "batch"), num(L, "prompt_tokens"));
    if (cJSON_IsObject(dec)) printf(", %g generated", num(L, "generated_tokens"));
    const cJSON *wb = cJSON_GetObjectItem(q, "weight_bits"), *kb = cJSON_GetObjectItem(q, "kv_bits");
    snprintf(a, sizeof a, cJSON_IsNumber(wb) ? "%.0f-bit" : "as stored", num(q, "weight_bits"));
    snprintf(b, sizeof b, cJSON_IsNumber(kb) ? "%.0f-bit" : "as the activations", num(q, "kv_bits"));
    printf("; precision %s, weights %s, KV cache %s; speed-of-light model %s\n\n",
           tstr(cJSON_GetObjectItem(res, "roofline"), "precision"), a, b, tstr(L, "sol"));
    print_llm_phases(L);
    printf("\nTTFT      %s\n", tsec(num(L, "ttft_s"), a, sizeof a));
    if (cJSON_IsObject(dec)) {
        printf("TPOT      %s mean (first %s, last %s; %s over %g steps analysed)\n",
               tsec(num(dec, "mean_time_per_token_s"), a, sizeof a), tsec(num(dec, "first_time_per_token_s"), b, sizeof b),
               tsec(num(dec, "last_time_per_token_s"), c, sizeof c), tstr(dec, "method"), num(dec, "steps_evaluated"));
        printf("e2e       %s;  %s tokens/s;  energy %s per token\n", tsec(num(L, "e2e_s"), a, sizeof a),
               eng(num(L, "tokens_per_s"), "", b, sizeof b), opt_eng(L, "energy_per_token_j", "J", d, sizeof d));
    }
    print_llm_memory(L);
    print_llm_sweeps(L);
    printf("\nassumptions\n");
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(L, "assumptions")) printf("  - %s\n", txt(it->valuestring));
    if (cJSON_GetArraySize(cJSON_GetObjectItem(L, "notes")) > 0) {
        printf("notes\n");
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(L, "notes")) printf("  - %s\n", txt(it->valuestring));
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

/* "batch=NAME,seq=NAME,..." into llm.dims. */
static int parse_llm_dims(cJSON *llm, const char *spec) {
    cJSON *d = cJSON_AddObjectToObject(llm, "dims");
    char *copy = strdup(spec);
    int rc = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) { rc = -1; break; }
        *eq = 0;
        cJSON_DeleteItemFromObject(d, item);
        cJSON_AddStringToObject(d, item, eq + 1);
    }
    free(copy);
    return rc;
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

/* The command line, as parsed: the request under construction (req, dims,
 * llm_req; freed by args_free until they are handed on) and the choices
 * that decide what is run and printed. */
typedef struct cli_args {
    enum command cmd;
    const char **paths;
    int n_paths;
    const char *hw, *format, *dir;
    int top; /* -1: the command's default */
    const char *fail_if, *label_old, *label_new;
    bool strict, power_modes, llm;
    const char *compare, *sweep, *max_slowdown;
    const char *measured, *measured_format;
    int studies;
    cJSON *req, *dims, *llm_req; /* llm_req: --llm options, joined to req with --llm */
} cli_args;

/* Parse result of one option: handled, not this parser's, or an exit code. */
enum { ARG_DONE = -1, ARG_NOT_MINE = -2 };

static void args_free(cli_args *A) {
    cJSON_Delete(A->req);
    cJSON_Delete(A->dims);
    cJSON_Delete(A->llm_req);
    free(A->paths);
    A->req = A->dims = A->llm_req = NULL;
    A->paths = NULL;
}

/* A usage error after what was parsed is freed (it would leak at exit). */
static int args_usage_error(cli_args *A, const char *fmt, const char *arg) {
    args_free(A);
    return usage_error(fmt, arg);
}

/* The options that take a number or NAME=VALUE: --top, --batch, --dim and
 * the --llm counts. */
static int parse_number_option(cli_args *A, const char *a, const char *val) {
    char *end;
    if (!strcmp(a, "--top")) {
        long t = strtol(val, &end, 10);
        if (*end || t < 0 || t > INT_MAX || end == val) return args_usage_error(A, "--top needs a whole number, not '%s'", val);
        A->top = (int)t;
    } else if (!strcmp(a, "--batch")) {
        long long b = strtoll(val, &end, 10);
        if (*end || b < 1) return args_usage_error(A, "--batch needs a whole number of at least 1, not '%s'", val);
        cJSON_AddNumberToObject(A->req, "batch", (double)b);
    } else if (!strcmp(a, "--dim")) {
        const char *eq = strchr(val, '=');
        if (!eq || eq == val) return args_usage_error(A, "--dim needs NAME=VALUE, not '%s'", val);
        long long v = strtoll(eq + 1, &end, 10);
        if (*end || v < 0 || end == eq + 1) return args_usage_error(A, "--dim needs a whole number after '=', in '%s'", val);
        char *name = strndup(val, (size_t)(eq - val)); /* the whole name, however long */
        if (name) cJSON_AddNumberToObject(A->dims, name, (double)v);
        free(name);
    } else if (!strcmp(a, "--prompt") || !strcmp(a, "--generate") || !strcmp(a, "--weight-bits") ||
               !strcmp(a, "--kv-bits") || !strcmp(a, "--weight-group")) {
        char key[32], msg[96];
        long long v = strtoll(val, &end, 10);
        snprintf(msg, sizeof msg, "%s needs a whole number of at least 1, not '%%s'", a);
        if (*end || end == val || v < 1) return args_usage_error(A, msg, val);
        snprintf(key, sizeof key, "%s", a + 2);
        for (char *k = key; *k; k++) if (*k == '-') *k = '_';
        cJSON_DeleteItemFromObject(A->llm_req, key);
        cJSON_AddNumberToObject(A->llm_req, key, (double)v);
    } else if (!strcmp(a, "--llm-dims")) {
        if (parse_llm_dims(A->llm_req, val))
            return args_usage_error(A, "--llm-dims needs ROLE=NAME,... with roles batch, seq, past, total, not '%s'", val);
    } else {
        return ARG_NOT_MINE;
    }
    return ARG_DONE;
}

/* The options that take a value and keep it as given (or check it against
 * a list: --format). */
static int parse_value_option(cli_args *A, const char *a, const char *val) {
    static const char *const request_keys[][2] = {
        {"--power-mode", "power_mode"}, {"--precision", "precision"}, {"--mode", "mode"}, {"--sol", "sol"}};
    for (size_t k = 0; k < sizeof request_keys / sizeof *request_keys; k++)
        if (!strcmp(a, request_keys[k][0])) {
            cJSON_AddStringToObject(A->req, request_keys[k][1], val);
            return ARG_DONE;
        }
    if (!strcmp(a, "--format")) {
        A->format = val;
        bool markdown = A->cmd != CMD_ANALYZE && !strcmp(val, "markdown");
        bool netron = A->cmd == CMD_ANALYZE && !strcmp(val, "netron");
        if (strcmp(val, "table") && strcmp(val, "json") && strcmp(val, "csv") && !markdown && !netron) {
            if (A->cmd == CMD_ANALYZE) return args_usage_error(A, "--format must be table, json, csv or netron, not '%s'", val);
            return args_usage_error(A, "--format must be table, json, csv or markdown, not '%s'", val);
        }
        return ARG_DONE;
    }
    const char **slot = !strcmp(a, "--hw")                ? &A->hw
                        : !strcmp(a, "--hw-dir")          ? &A->dir
                        : !strcmp(a, "--compare")         ? &A->compare
                        : !strcmp(a, "--sweep-batch")     ? &A->sweep
                        : !strcmp(a, "--max-slowdown")    ? &A->max_slowdown
                        : !strcmp(a, "--measured")        ? &A->measured
                        : !strcmp(a, "--measured-format") ? &A->measured_format
                        : !strcmp(a, "--fail-if")         ? &A->fail_if
                        : !strcmp(a, "--label-old")       ? &A->label_old
                        : !strcmp(a, "--label-new")       ? &A->label_new
                                                          : NULL;
    if (!slot) return parse_number_option(A, a, val);
    *slot = val;
    if (slot == &A->compare || slot == &A->sweep) A->studies++;
    return ARG_DONE;
}

/* The options that take a value (parse_value_option, parse_number_option). */
static bool is_value_option(const char *a) {
    static const char *const names[] = {
        "--hw", "--hw-dir", "--power-mode", "--precision", "--mode", "--sol", "--format", "--top", "--batch",
        "--dim", "--compare", "--sweep-batch", "--max-slowdown", "--prompt", "--generate", "--weight-bits",
        "--kv-bits", "--weight-group", "--llm-dims", "--measured", "--measured-format", "--fail-if",
        "--label-old", "--label-new"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (!strcmp(a, names[k])) return true;
    return false;
}

/* Every argument after the command word. Returns ARG_DONE to go on, or the
 * exit code of an option that ends the run (--help, --check-hw, an error). */
static int parse_args(cli_args *A, int first, int argc, char **argv) {
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { print_usage(stdout); args_free(A); return EXIT_OK; }
        else if (!strcmp(a, "--version")) { printf("rooflens %s\n", ROOFLENS_VERSION); args_free(A); return EXIT_OK; }
        else if (!strcmp(a, "--list-hw")) { args_free(A); return list_hw(hw_dir(A->dir)); }
        else if (!strcmp(a, "--check-hw")) {
            args_free(A);
            if (i + 1 >= argc) return usage_error("%s needs at least one profile id or file", a);
            return check_hw(argc - i - 1, argv + i + 1, hw_dir(A->dir));
        }
        else if (!strcmp(a, "--power-modes")) { A->power_modes = true; A->studies++; }
        else if (!strcmp(a, "--llm")) A->llm = true;
        else if (!strcmp(a, "--strict")) A->strict = true;
        else if (!strcmp(a, "--")) {
            while (++i < argc) A->paths[A->n_paths++] = argv[i]; /* the rest are models, even "-x.onnx" */
        } else if (is_value_option(a)) {
            if (!val) return args_usage_error(A, "%s needs a value", a);
            i++;
            int rc = parse_value_option(A, a, val);
            if (rc != ARG_DONE) return rc == ARG_NOT_MINE ? args_usage_error(A, "unknown option '%s'", a) : rc;
        } else if (a[0] == '-' && a[1]) return args_usage_error(A, "unknown option '%s'", a);
        else A->paths[A->n_paths++] = a;
    }
    return ARG_DONE;
}

/* The combinations of options that make no sense, refused before any work. */
static int check_combinations(cli_args *A) {
    bool analyze = A->cmd == CMD_ANALYZE;
    if (analyze && A->n_paths > 1)
        return args_usage_error(A, "one model at a time (got a second: '%s'); 'rooflens diff OLD NEW' compares two", A->paths[1]);
    if (A->cmd == CMD_DIFF && A->n_paths != 2)
        return args_usage_error(A, "%s", "rooflens diff needs two models: OLD.onnx NEW.onnx");
    if (!analyze && (A->studies || A->llm || A->measured))
        return args_usage_error(A, "%s", "--compare, --sweep-batch, --power-modes, --llm and --measured are views of one model, not of diff or batch");
    if (A->cmd != CMD_DIFF && (A->fail_if || A->label_old || A->label_new))
        return args_usage_error(A, "%s", "--fail-if, --label-old and --label-new go with rooflens diff");
    if (A->cmd == CMD_BATCH && (A->strict || A->top >= 0))
        return args_usage_error(A, "%s", "--strict and --top do not apply to rooflens batch");
    if (!A->llm && cJSON_GetArraySize(A->llm_req) > 0)
        return args_usage_error(A, "%s", "--prompt, --generate, --weight-bits, --weight-group, --kv-bits and --llm-dims go with --llm");
    if (A->llm && A->studies)
        return args_usage_error(A, "%s", "--llm is a view of its own: not with --compare, --sweep-batch or --power-modes");
    if (A->llm && !strcmp(A->format, "csv"))
        return args_usage_error(A, "%s", "--llm prints a table or JSON (--format table|json), not csv");
    if (A->studies > 1) return args_usage_error(A, "%s", "--compare, --sweep-batch and --power-modes: one study at a time");
    if (A->max_slowdown && !A->power_modes) return args_usage_error(A, "%s", "--max-slowdown goes with --power-modes");
    if (A->studies && (!strcmp(A->format, "csv") || !strcmp(A->format, "netron")))
        return args_usage_error(A, "a study prints a table or JSON (--format table|json), not %s", A->format);
    if (A->measured_format && !A->measured) return args_usage_error(A, "%s", "--measured-format goes with --measured");
    if (A->measured && A->studies) return args_usage_error(A, "%s", "--measured goes with one analysis, not with a study");
    return ARG_DONE;
}

/* The request's study object from --compare, --sweep-batch or --power-modes. */
static int add_study(cJSON *req, const cli_args *A) {
    cJSON *study = cJSON_AddObjectToObject(req, "study");
    if (A->compare) {
        cJSON_AddStringToObject(study, "kind", "compare");
        if (build_compare(study, A->compare, hw_dir(A->dir))) return EXIT_USAGE;
    } else if (A->sweep) {
        cJSON_AddStringToObject(study, "kind", "batch_sweep");
        cJSON *b = parse_batches(A->sweep);
        if (!b)
            return usage_error("--sweep-batch needs A..B (powers of two from A to B) or a comma list of "
                               "whole numbers >= 1, not '%s'", A->sweep);
        cJSON_AddItemToObject(study, "batches", b);
    } else {
        cJSON_AddStringToObject(study, "kind", "power_modes");
        if (A->max_slowdown) {
            char *end;
            double x = strtod(A->max_slowdown, &end);
            if (*end || end == A->max_slowdown || !isfinite(x))
                return usage_error("--max-slowdown needs a finite number (0.05 = 5%% slower), not '%s'", A->max_slowdown);
            cJSON_AddNumberToObject(study, "max_slowdown", x);
        }
    }
    return ARG_DONE;
}

/* The request's measured object: the profile's text and its format. */
static int add_measured(cJSON *req, const cli_args *A) {
    char *text = read_text(A->measured);
    if (!text) {
        fprintf(stderr, "rooflens: cannot read the measured profile %s: %s\n", txt(A->measured), strerror(errno));
        return EXIT_USAGE;
    }
    cJSON *ms = cJSON_AddObjectToObject(req, "measured");
    cJSON_AddStringToObject(ms, "text", text);
    cJSON_AddStringToObject(ms, "format", A->measured_format ? A->measured_format : "auto");
    free(text);
    return ARG_DONE;
}

static void print_error_line(const char *model_path, const cJSON *eo) {
    fprintf(stderr, "rooflens: %s: %s [%s]%s%s\n", txt(model_path), tstr(eo, "message"), tstr(eo, "code"),
            tstr(eo, "where")[0] ? " at " : "", tstr(eo, "where"));
}

/* One analysis (or study, or LLM view) of one model, printed in the chosen
 * format. Takes req (deleted here). */
static int analyze_and_print(cJSON *req, const char *model_path, const cli_args *A, int top) {
    const char *format = A->format;
    char *err = NULL;
    rl_model *m = read_model(model_path, false, &err);
    if (!m) {
        cJSON_Delete(req);
        if (!err) return EXIT_BAD_MODEL;
        if (!strcmp(format, "json")) puts(err);
        else {
            cJSON *e = cJSON_Parse(err);
            print_error_line(model_path, cJSON_GetObjectItem(e, "error"));
            cJSON_Delete(e);
        }
        rl_free(err);
        return EXIT_BAD_MODEL;
    }
    char *text = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    char *out = rl_model_analyze(m, text);
    free(text);
    rl_model_free(m);
    cJSON *res = cJSON_Parse(out);
    int rc = EXIT_OK;
    if (!cJSON_IsTrue(cJSON_GetObjectItem(res, "ok"))) {
        if (!strcmp(format, "json")) puts(out);
        else print_error_line(model_path, cJSON_GetObjectItem(res, "error"));
        rc = EXIT_BAD_MODEL;
    } else {
        if (!strcmp(format, "json")) puts(out);
        else if (!strcmp(format, "csv")) print_csv(res);
        else if (!strcmp(format, "netron")) {
            char *att = rl_netron_attachment(out);
            puts(att);
            rl_free(att);
        }
        else if (A->studies) print_study(res);
        else if (A->llm) print_llm(res);
        else {
            print_table(res, top);
            print_measured(res, top);
        }
        const cJSON *tot = cJSON_GetObjectItem(res, "totals");
        if (A->strict && (num(tot, "unknown_layers") > 0 || cJSON_GetArraySize(cJSON_GetObjectItem(tot, "unsupported_ops")) > 0))
            rc = EXIT_INCOMPLETE;
    }
    cJSON_Delete(res);
    rl_free(out);
    return rc;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "calibrate")) return rl_calibrate_main(argc - 1, argv + 1);
    cli_args A = {.cmd = CMD_ANALYZE, .hw = "h100-sxm", .format = "table", .top = -1};
    int first = 1;
    if (argc > 1 && !strcmp(argv[1], "diff")) A.cmd = CMD_DIFF, first = 2;
    else if (argc > 1 && !strcmp(argv[1], "batch")) A.cmd = CMD_BATCH, first = 2;
    A.paths = calloc((size_t)argc + 1, sizeof *A.paths);
    A.llm_req = cJSON_CreateObject();
    A.req = cJSON_CreateObject();
    A.dims = cJSON_CreateObject();
    int rc = parse_args(&A, first, argc, argv);
    if (rc != ARG_DONE) return rc;
    if (A.n_paths == 0) {
        print_usage(stderr);
        args_free(&A);
        return EXIT_USAGE;
    }
    if ((rc = check_combinations(&A)) != ARG_DONE) return rc;
    cJSON *profile = load_profile(A.hw, hw_dir(A.dir));
    if (!profile) {
        args_free(&A);
        return EXIT_USAGE;
    }
    cJSON *req = A.req;
    A.req = NULL;
    cJSON_AddItemToObject(req, "hardware", profile);
    cJSON_AddItemToObject(req, "dims", A.dims);
    A.dims = NULL;
    if (A.cmd != CMD_ANALYZE) {
        if (A.cmd == CMD_DIFF) {
            diff_args da = {A.paths[0], A.paths[1], A.format, A.fail_if, A.label_old ? A.label_old : A.paths[0],
                            A.label_new ? A.label_new : A.paths[1], A.top >= 0 ? A.top : 10, A.strict};
            rc = run_diff(req, &da);
        } else {
            rc = run_batch(req, A.paths, A.n_paths, A.format);
        }
        cJSON_Delete(req);
        args_free(&A);
        return rc;
    }
    const char *model_path = A.paths[0];
    if (A.llm) {
        cJSON_AddItemToObject(req, "llm", A.llm_req);
        A.llm_req = NULL;
        cJSON_AddFalseToObject(req, "layers"); /* the view carries the figures */
    }
    if (A.studies) {
        if ((rc = add_study(req, &A)) != ARG_DONE) { cJSON_Delete(req); args_free(&A); return rc; }
        /* the study carries the figures; the per-layer rows are not printed */
        cJSON_AddFalseToObject(req, "layers");
    } else if (!A.llm && strcmp(A.format, "json")) cJSON_AddTrueToObject(req, "layers");
    if (A.measured && (rc = add_measured(req, &A)) != ARG_DONE) { cJSON_Delete(req); args_free(&A); return rc; }
    rc = analyze_and_print(req, model_path, &A, A.top < 0 ? 15 : A.top);
    args_free(&A);
    return rc;
}
