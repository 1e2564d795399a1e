/* rooflens batch: the command-line face of rl_model_summary, one row per
 * model, one model in memory at a time. Every figure printed here is read
 * from the core's answer; this file only lays it out. */
#define _POSIX_C_SOURCE 200809L
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "print.h"

/* --------------------------------------------------------------- batch -- */
/* What a batch goes through: model files, and the paths it could not go
 * into (code and message set), which are reported in rows of their own. */
typedef struct batch_item {
    char *path, *message;
    const char *code;
} batch_item;
typedef struct batch_items {
    batch_item *v;
    int n, cap;
} batch_items;

/* Folders nested deeper than this below a folder named on the command line
 * are reported, not searched (a bound on the walk's recursion). */
#define WALK_MAX_DEPTH 32

static int items_add(batch_items *l, const char *path, const char *code, const char *message) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        batch_item *nv = realloc(l->v, (size_t)cap * sizeof *nv);
        if (!nv) return -1;
        l->v = nv;
        l->cap = cap;
    }
    batch_item *it = &l->v[l->n];
    *it = (batch_item){strdup(path), message ? strdup(message) : NULL, code};
    if (!it->path || (message && !it->message)) {
        free(it->path);
        free(it->message);
        return -1;
    }
    l->n++;
    return 0;
}

static void items_free(batch_items *l) {
    for (int i = 0; i < l->n; i++) free(l->v[i].path), free(l->v[i].message);
    free(l->v);
}

static bool is_onnx_name(const char *name) {
    size_t n = strlen(name);
    return n > 5 && !strcmp(name + n - 5, ".onnx");
}

/* Every .onnx file under `dir`, sorted, recursively; links to folders are
 * not followed (a link loop must not hang the batch). A folder that cannot
 * be listed, or lies too deep, becomes a row of its own. Returns -1 only
 * when out of memory. */
static int walk(const char *dir, batch_items *out, int depth) {
    if (depth > WALK_MAX_DEPTH) {
        char msg[160];
        snprintf(msg, sizeof msg, "a folder more than %d levels deep: not searched for models (name it on the "
                                  "command line to include it)", WALK_MAX_DEPTH);
        return items_add(out, dir, "too_deep", msg);
    }
    name_list names;
    const char *why = NULL;
    if (list_folder(dir, &names, &why)) {
        char msg[300];
        snprintf(msg, sizeof msg, "cannot list the folder: %s", why);
        return items_add(out, dir, "cannot_list", msg);
    }
    int rc = 0;
    for (int i = 0; i < names.n && !rc; i++) {
        const char *name = names.names[i];
        if (name[0] == '.') continue;
        size_t len = strlen(dir) + strlen(name) + 2;
        char *p = malloc(len);
        if (!p) { rc = -1; break; }
        snprintf(p, len, "%s/%s", dir, name);
        struct stat st;
        if (lstat(p, &st) != 0) rc = is_onnx_name(name) ? items_add(out, p, "cannot_open", strerror(errno)) : 0;
        else if (S_ISDIR(st.st_mode)) rc = walk(p, out, depth + 1);
        else if (is_onnx_name(name)) rc = items_add(out, p, NULL, NULL); /* not a regular file: said in its row */
        free(p);
    }
    name_list_free(&names);
    return rc;
}

/* A summary value as CSV: arrays joined with ';'. */
static void csv_value(const cJSON *v) {
    if (cJSON_IsString(v)) csv_field(stdout, v->valuestring);
    else if (cJSON_IsNumber(v)) csv_number(stdout, v);
    else if (cJSON_IsBool(v)) fputs(cJSON_IsTrue(v) ? "true" : "false", stdout);
    else if (cJSON_IsArray(v)) {
        size_t len = 1;
        const cJSON *x;
        cJSON_ArrayForEach(x, v) if (cJSON_IsString(x)) len += strlen(x->valuestring) + 1;
        char *joined = calloc(1, len);
        if (!joined) return;
        cJSON_ArrayForEach(x, v) if (cJSON_IsString(x)) {
            if (joined[0]) strcat(joined, ";");
            strcat(joined, x->valuestring);
        }
        csv_field(stdout, joined);
        free(joined);
    }
}

/* Markdown cell text: the model's strings cannot break the table. */
/* A name in a Markdown cell: the core's escaping, as the diff's comment
 * has it (no mention, link or math a file name could make). */
static void md_text(const char *s) {
    char *t = rl_markdown_text(s, 0);
    fputs(t ? t : "", stdout);
    rl_free(t);
}

/* The table's model column: as wide as the longest name shown (within
 * reason: a longer one pushes only its own row), so the figures line up. */
static int name_width(const batch_items *items) {
    int w = 5; /* "model" */
    for (int i = 0; i < items->n; i++) {
        int n = (int)text_columns(txt(items->v[i].path));
        if (n > w) w = n;
    }
    return w < 72 ? w : 72;
}

static void batch_header(cli_format format, const cJSON *fields, int width) {
    if (format == CLI_FORMAT_CSV) {
        tprintf("file,ok,error_code,error_message");
        const cJSON *f;
        cJSON_ArrayForEach(f, fields) tprintf(",%s", f->valuestring);
        putchar('\n');
    } else if (format == CLI_FORMAT_TABLE) {
        tprintf("%-*s %8s %10s %10s %14s %10s  %-30s  %-16s %10s %8s\n", width, "model", "layers", "FLOPs", "bytes",
               "speed of light", "forecast", "likely", "limited by", "energy", "warnings");
    } else if (format == CLI_FORMAT_MARKDOWN) {
        tprintf("| model | layers | FLOPs | bytes moved | speed of light | forecast | likely | limited by | energy | warnings |\n"
               "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |\n");
    }
}

/* One row: `res` is rl_model_summary's answer or an error object. */
static void batch_row(cli_format format, const char *path, const cJSON *res, const cJSON *fields, int width) {
    bool ok = cJSON_IsTrue(get(res, "ok"));
    const cJSON *s = get(res, "summary"), *eo = get(res, "error");
    char a[40], b[40], c[40], e[40], fc[40];
    /* the forecast beside the floor; a dash where the core gives none */
    const char *forecast = cJSON_IsNumber(get(s, "forecast_s")) ? tsec(num(s, "forecast_s"), fc, sizeof fc) : RL_NO_FIGURE;
    /* its band, or the core's words for a stack without a track record */
    char band[96];
    const char *likely = band_text(s, "forecast_low_s", "forecast_high_s", false, band, sizeof band);
    if (!likely) likely = cJSON_IsString(get(s, "forecast_track_record")) ? str(s, "forecast_track_record") : RL_NO_FIGURE;
    if (format == CLI_FORMAT_JSON) {
        cJSON *row = cJSON_CreateObject();
        /* a file name need not be UTF-8; the line must be: bytes that are not are written \xNN */
        size_t cap = 4 * strlen(path) + 1;
        char *file = malloc(cap);
        if (file) rl_text_escape(file, cap, path, 0);
        cJSON_AddStringToObject(row, "file", file ? file : "");
        free(file);
        cJSON_AddBoolToObject(row, "ok", ok);
        cJSON_AddItemToObject(row, ok ? "summary" : "error", cJSON_Duplicate(ok ? s : eo, true));
        char *t = cJSON_PrintUnformatted(row);
        if (t) puts(t);
        free(t);
        cJSON_Delete(row);
    } else if (format == CLI_FORMAT_CSV) {
        csv_field(stdout, path);
        tprintf(",%s,", ok ? "true" : "false");
        csv_field(stdout, ok ? "" : str(eo, "code"));
        putchar(',');
        csv_field(stdout, ok ? "" : str(eo, "message"));
        const cJSON *f;
        cJSON_ArrayForEach(f, fields) {
            putchar(',');
            if (ok) csv_value(get(s, f->valuestring));
        }
        putchar('\n');
    } else if (format == CLI_FORMAT_TABLE) {
        if (!ok) {
            tprintf("%-*s error: %s [%s]\n", width, txt(path), tstr(eo, "message"), tstr(eo, "code"));
            return;
        }
        tprintf("%-*s %8s %10s %10s %14s %10s  %-30s  %-16s %10s %8s\n", width, txt(path), numf("%g", num(s, "layers")),
               eng(num(s, "flops"), "", a, sizeof a), eng(num(s, "bytes"), "B", b, sizeof b), tsec(num(s, "time_s"), c, sizeof c),
               forecast, txt(likely), word("bound", str(s, "bound")),
               cJSON_IsNumber(get(s, "energy_j")) ? eng(num(s, "energy_j"), "J", e, sizeof e) : RL_NO_FIGURE, numf("%g", num(s, "warnings")));
    } else {
        tprintf("| ");
        md_text(path);
        if (!ok) {
            tprintf(" | could not be analysed: ");
            md_text(str(eo, "message"));
            tprintf(" | | | | | | | | |\n");
            return;
        }
        tprintf(" | %s | %s | %s | %s | %s | ", numf("%g", num(s, "layers")), eng(num(s, "flops"), "FLOP", a, sizeof a),
               eng(num(s, "bytes"), "B", b, sizeof b), tsec(num(s, "time_s"), c, sizeof c), forecast);
        md_text(likely);
        tprintf(" | %s | %s | %s |\n", word("bound", str(s, "bound")),
               cJSON_IsNumber(get(s, "energy_j")) ? eng(num(s, "energy_j"), "J", e, sizeof e) : RL_NO_FIGURE, numf("%g", num(s, "warnings")));
    }
}

/* The model of one batch item summarised, or the reason it was not: the
 * core's answer or an error object of the same shape (malloc'd). */
static char *summarise_item(const batch_item *it, const rl_hw *hw, const char *request) {
    if (it->code) return error_json(it->code, it->message);
    char *err = NULL; /* a FIFO, a device or a socket is refused before it is opened (read_model) */
    rl_model *m = read_model(it->path, false, &err);
    if (!m) return err;
    char *out = rl_model_summary_hw(m, hw, request);
    rl_model_free(m);
    return out;
}

int run_batch(cJSON *req, cli_args *A) {
    const char *const *paths = A->paths;
    const cli_format format = A->format;
    int n_paths = A->n_paths;
    batch_items items = {0};
    for (int i = 0; i < n_paths; i++) {
        struct stat st;
        bool folder = stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode);
        if (folder ? walk(paths[i], &items, 0) : items_add(&items, paths[i], NULL, NULL)) {
            fprintf(stderr, "rooflens: out of memory listing the models\n");
            items_free(&items);
            return EXIT_BAD_MODEL;
        }
    }
    char *fields_text = rl_summary_fields();
    cJSON *fields = cJSON_Parse(fields_text);
    rl_free(fields_text);
    char *text = cJSON_PrintUnformatted(req);
    const int width = name_width(&items);
    batch_header(format, fields, width);
    int failed = 0;
    /* one model at a time: read, summarise, print, free */
    for (int i = 0; i < items.n; i++) {
        char *out = summarise_item(&items.v[i], A->hw_handle, text);
        cJSON *res = cJSON_Parse(out);
        if (!res) res = cJSON_Parse("{\"ok\":false,\"error\":{\"code\":\"out_of_memory\",\"message\":\"out of memory\",\"where\":\"\"}}");
        failed += !cJSON_IsTrue(get(res, "ok"));
        batch_row(format, items.v[i].path, res, fields, width);
        fflush(stdout);
        cJSON_Delete(res);
        rl_free(out);
    }
    free(text);
    cJSON_Delete(fields);
    if (failed) fprintf(stderr, "rooflens: %d of %d models could not be analysed (see their rows)\n", failed, items.n);
    items_free(&items);
    return failed ? EXIT_BAD_MODEL : EXIT_OK;
}
