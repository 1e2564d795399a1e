/* The per-layer part of an answer (contract in analyze.h): each layer's
 * fields through the layer writer, and the written layers joined to the
 * printed answer (rows in place, columns or CSV after it). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "layer_writer.h"
#include "json.h"
#include "measured.h"
#include "parallel.h"
#include "precision.h"

/* One layer's fields, in the order of docs/api.md's layer rows. */
static void write_layer(rl_layer_writer *w, const rl_node *n, const rl_layer_time *L, const rl_options *o,
                        bool has_energy, const rl_layer_comm *comm) {
    const rl_cost *k = &n->cost;
    rl_layer_num(w, "index", n->index);
    rl_layer_str(w, "name", n->name);
    rl_layer_str(w, "op", n->op_type);
    rl_layer_str(w, "domain", n->domain);
    if (o->layer_io) {
        rl_layer_tensors(w, "inputs", n->inv, n->n_in);
        rl_layer_tensors(w, "outputs", n->outv, n->n_out);
    }
    rl_layer_num(w, "matrix_flops", k->matrix_flops);
    rl_layer_num(w, "vector_flops", k->vector_flops);
    rl_layer_num(w, "flops", L->flops);
    rl_layer_num(w, "macs", k->macs);
    rl_layer_num(w, "input_bytes", k->input_bytes);
    rl_layer_num(w, "weight_bytes", k->weight_bytes);
    rl_layer_num(w, "output_bytes", k->output_bytes);
    rl_layer_num(w, "bytes", L->bytes);
    rl_layer_num(w, "fused_bytes", L->fused_bytes);
    rl_layer_num(w, "intensity", L->bytes > 0 ? L->flops / L->bytes : 0);
    rl_layer_num(w, "t_compute", L->tc);
    rl_layer_num(w, "t_memory", L->tm);
    rl_layer_num(w, "t", L->t);
    rl_layer_str(w, "bound", rl_bound_id(L->bound));
    rl_layer_num(w, "forecast_s", L->forecast_s);
    /* how far the layer's forecast is from its floor: where the headroom is (null without a floor) */
    rl_layer_num(w, "headroom", L->t > 0 ? L->forecast_s / L->t : NAN);
    rl_layer_str(w, "op_class", rl_value_id(RL_LIST_OP_CLASS, L->op_class));
    rl_layer_str(w, "precision", rl_precision_name(L->prec));
    rl_layer_bool(w, "kernel", L->kernel);
    rl_layer_num(w, "kernels", L->kernels);
    if (L->fused_into >= 0) rl_layer_num(w, "fused_into", L->fused_into);
    else rl_layer_null(w, "fused_into");
    if (has_energy) {
        rl_layer_num(w, "energy_j", L->energy);
        rl_layer_str(w, "energy_bound", rl_bound_id(L->energy_bound));
    }
    /* The kernel the layer starts, as the charts place it (timing.h): null
     * for a layer fused into another's kernel. */
    rl_layer_num(w, "kernel_intensity", L->kernel_bytes > 0 ? L->kernel_flops / L->kernel_bytes : NAN);
    rl_layer_num(w, "kernel_flops_per_s", L->kernel_t > 0 ? L->kernel_flops / L->kernel_t : NAN);
    if (has_energy) rl_layer_num(w, "kernel_flop_per_j", L->kernel_energy > 0 ? L->kernel_flops / L->kernel_energy : NAN);
    /* and its own figures, so a chart's tooltip gives the point's (a fused
     * group's), not its first layer's; t_compute and t_memory place it on
     * the time-based roofline as kernel_intensity does on the time one */
    rl_layer_num(w, "kernel_flops", L->kernel_flops);
    rl_layer_num(w, "kernel_bytes", L->kernel_bytes);
    rl_layer_num(w, "kernel_t", L->kernel_t);
    rl_layer_num(w, "kernel_t_compute", L->kernel_tc);
    rl_layer_num(w, "kernel_t_memory", L->kernel_tm);
    if (o->training) {
        rl_layer_num(w, "bwd_flops", 2 * L->flops);
        rl_layer_num(w, "bwd_bytes", 2 * L->bytes);
    }
    if (comm) { /* over several devices (parallel.h): what one device sends for it */
        rl_layer_num(w, "comm_bytes", comm->comm_bytes);
        rl_layer_num(w, "t_comms_s", comm->t_comms_s);
        rl_layer_str(w, "split", rl_shard_name(comm->shard));
        rl_layer_num(w, "stage", comm->stage);
    }
    rl_layer_bool(w, "known", k->known);
    rl_layer_bool(w, "supported", n->op != NULL);
    if (k->note) rl_layer_str(w, "note", k->note);
}

#define RL_OOM_LAYERS                                                                               \
    "out of memory while writing the layers; analyse with the command-line tool, or raise the memory " \
    "available"

/* The per-layer figures, written apart from the cJSON tree and joined to
 * its printed text: rows (`rows`) where the ROWS_MARK stands, columns
 * (`columns`) appended as the answer's last member. */

/* The answer when the layers ran out of memory (NULL when even it could not
 * be made). */
static char *layers_oom_answer(void) {
    rl_error e = {0};
    rl_error_set(&e, "out_of_memory", "layers", RL_OOM_LAYERS);
    return rl_error_json(&e);
}

/* "layers" in the tree while the rows wait apart: a raw byte the printer
 * writes nowhere else (a string's control characters are escaped), so the
 * printed text holds it once. */
#define ROWS_MARK "\x01"

/* The CSV's rows and filter (checked by analyze_request.c) handed to the
 * writer; a layer index the graph lacks, or one listed twice (each layer is
 * a row once, so the CSV is never longer than the whole table), is an error
 * naming it. */
static int csv_select(rl_layer_writer *w, const cJSON *csv, int n_layers, rl_error *err) {
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(csv, "rows");
    const cJSON *filter = cJSON_GetObjectItemCaseSensitive(csv, "filter");
    int n = cJSON_IsArray(rows) ? cJSON_GetArraySize(rows) : 0, k = 0;
    int *order = cJSON_IsArray(rows) ? malloc(((size_t)n + 1) * sizeof *order) : NULL;
    int *listed_at = order ? malloc(((size_t)n_layers + 1) * sizeof *listed_at) : NULL; /* its place + 1, 0 none */
    if (listed_at) memset(listed_at, 0, ((size_t)n_layers + 1) * sizeof *listed_at);
    const cJSON *r, *list = listed_at ? rows : NULL;
    cJSON_ArrayForEach(r, list) {
        int layer = r->valuedouble < n_layers ? (int)r->valuedouble : -1;
        if (layer < 0 || listed_at[layer]) {
            if (layer < 0)
                rl_error_set(err, "bad_request", "csv.rows",
                             "csv.rows[%d] is layer %.0f, but the analysed graph has %d layers (0 to %d)", k,
                             r->valuedouble, n_layers, n_layers - 1);
            else
                rl_error_set(err, "bad_request", "csv.rows",
                             "csv.rows[%d] lists layer %d again (first at csv.rows[%d]): list each layer once", k,
                             layer, listed_at[layer] - 1);
            free(order), free(listed_at);
            return -1;
        }
        listed_at[layer] = k + 1;
        order[k++] = layer;
    }
    bool ok = !(cJSON_IsArray(rows) && !listed_at) &&
              rl_layer_writer_csv_select(w, order, n, cJSON_IsString(filter) ? filter->valuestring : NULL);
    free(order), free(listed_at);
    if (!ok) rl_error_set(err, "out_of_memory", "layers", RL_OOM_LAYERS);
    return ok ? 0 : -1;
}

/* The per-layer figures through the layer writer (layer_writer.h). Rows
 * stand in the tree as ROWS_MARK, and splice_rows puts them in its place
 * after printing; columns are kept and appended to the printed response
 * as its last member, "layer_columns", by append_layer_columns. Either
 * way the layers (most of a big answer) are in memory once: a copy into a
 * printer's buffer grown by doubling held them three times over. */
/* Every row of the layers through w (NULL: nothing), or those of L->order. */
static void write_rows(rl_layer_writer *w, const rl_layers_later *L) {
    for (int k = 0; w && k < L->n_rows; k++) {
        int i = L->order ? L->order[k] : k;
        rl_layer_row_begin(w);
        write_layer(w, &L->g->nodes[i], &L->lt[i], L->o, L->has_energy, rl_parallel_layer(L->par, i));
        rl_measured_layer_put(L->measured, i, w);
        rl_layer_row_end(w);
    }
}

/* "top_layers": the layers by floor time, longest first (ties, and a time
 * that is not a number, after: in graph order), as the CLI's table sorts
 * them. */
typedef struct by_time {
    double t;
    int row;
} by_time;

static int cmp_time(const void *a, const void *b) {
    double ta = ((const by_time *)a)->t, tb = ((const by_time *)b)->t;
    if (isnan(ta) || isnan(tb)) return isnan(ta) - isnan(tb);
    return ta < tb ? 1 : ta > tb ? -1 : ((const by_time *)a)->row - ((const by_time *)b)->row;
}

/* The first `top` layers of g by time into later (in c's arena), and how
 * many there are in the answer ("layers_total"); false when out of memory. */
static bool top_layers(cJSON *root, const rl_ctx *c, const rl_graph *g, const rl_layer_time *lt, int top,
                       rl_layers_later *later) {
    by_time *rows = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *rows);
    int *order = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *order);
    if (!rows || !order || !cJSON_AddNumberToObject(root, "layers_total", g->n_nodes)) return false;
    /* by the figure the answer writes: two layers whose times print alike tie */
    for (int i = 0; i < g->n_nodes; i++) rows[i] = (by_time){rl_json_number_value(lt[i].t), i};
    qsort(rows, (size_t)g->n_nodes, sizeof *rows, cmp_time);
    later->n_rows = top < g->n_nodes ? top : g->n_nodes;
    for (int k = 0; k < later->n_rows; k++) order[k] = rows[k].row;
    later->order = order;
    return true;
}

int rl_analyze_layers(cJSON *root, const rl_ctx *c, const rl_graph *g, const rl_layer_time *lt,
                              const rl_options *o, bool has_energy, const rl_measured *measured,
                              const rl_parallel *par, rl_layers_out *out, rl_error *err) {
    rl_layers_later later = {c, g, lt, o, has_energy, measured, par, NULL, g->n_nodes};
    if (o->top_layers > 0 && !top_layers(root, c, g, lt, o->top_layers, &later)) {
        rl_error_set(err, "out_of_memory", "layers", RL_OOM_LAYERS);
        return -1;
    }
    if (out->stream && (o->layers_layout == RL_LAYERS_ROWS || (o->layers_layout == RL_LAYERS_CSV && !o->csv))) {
        /* written by rl_analyze_write_answer, after the text before them
         * (rows) or after the whole text (a CSV of every layer in graph
         * order: one with a selection waits for all its rows) */
        out->later = later;
        out->waiting = true;
        if (o->layers_layout == RL_LAYERS_CSV || cJSON_AddRawToObject(root, "layers", ROWS_MARK)) return 0;
        rl_error_set(err, "out_of_memory", "layers", RL_OOM_LAYERS);
        return -1;
    }
    rl_layer_writer *w = rl_layer_writer_new(o->layers_layout, c);
    if (w) rl_layer_writer_expect_rows(w, later.n_rows);
    if (w && o->csv && csv_select(w, o->csv, g->n_nodes, err)) {
        rl_layer_writer_free(w);
        return -1;
    }
    write_rows(w, &later);
    if (o->layers_layout != RL_LAYERS_ROWS) {
        out->columns = w;
        if (w) return 0;
        rl_error_set(err, "out_of_memory", "layers", RL_OOM_LAYERS);
        return -1;
    }
    out->rows = rl_layer_writer_finish(w);
    if (out->rows && cJSON_AddRawToObject(root, "layers", ROWS_MARK)) return 0;
    rl_error_set(err, "out_of_memory", "layers", RL_OOM_LAYERS);
    return -1;
}

/* The printed response `text` with `rows` in place of its ROWS_MARK: the
 * rows' buffer grown to the whole answer, the rows moved up and the text
 * around them copied in; frees both. An answer without the mark (the
 * out-of-memory answer of rl_json_finish) is returned as it is. */
static char *splice_rows(char *text, char *rows) {
    const char *mark = text ? strchr(text, ROWS_MARK[0]) : NULL;
    if (!mark) {
        free(rows);
        return text;
    }
    size_t head = (size_t)(mark - text), tail = strlen(mark + 1), n = strlen(rows);
    char *all = realloc(rows, head + n + tail + 1);
    if (!all) {
        free(rows), free(text);
        return layers_oom_answer();
    }
    memmove(all + head, all, n);
    memcpy(all, text, head);
    memcpy(all + head + n, mark + 1, tail + 1);
    free(text);
    return all;
}

/* Whether `text` (n bytes) is an "ok": true answer object, which gets the
 * layer columns or CSV appended (the out-of-memory answer does not). */
static bool ok_object(const char *text, size_t n) {
    return n >= 2 && text[n - 1] == '}' && rl_answer_ok(text);
}

/* The printed response `text` ("{...}") with ,"layer_columns":{...} before
 * its closing brace (packed: and the doubles after it; *size: the answer's
 * bytes); frees the writer. An answer that is not an object (the
 * out-of-memory answer of rl_json_finish) is returned as it is. */
static char *append_layer_columns(char *text, size_t cap, rl_layer_writer *w, size_t *size, const char *member) {
    size_t n = text ? strlen(text) : 0;
    if (!ok_object(text, n)) { /* only an "ok": true answer gets columns */
        rl_layer_writer_free(w);
        return text;
    }
    rl_json_text t = {text, n - 1, cap > n ? cap : n + 1, false};
    rl_json_text_put(&t, member, strlen(member));
    rl_layer_writer_finish_into(w, &t, "}");
    char *s = rl_json_text_finish(&t);
    if (s) {
        *size = t.n;
        return s;
    }
    return layers_oom_answer();
}

char *rl_analyze_join_layers(char *text, size_t cap, rl_layers_out *out, size_t *size, const rl_options *o) {
    if (out->rows) {
        char *rows = out->rows;
        out->rows = NULL;
        return splice_rows(text, rows);
    }
    if (!out->columns) return text;
    rl_layer_writer *w = out->columns;
    out->columns = NULL;
    const char *member = o->layers_layout == RL_LAYERS_CSV ? ",\"layer_csv\":" : ",\"layer_columns\":";
    return append_layer_columns(text, cap, w, size, member);
}

/* The CSV's answer streamed: the text with its "layer_csv" member and its
 * NUL, then the header and the rows in pieces as they are written. */
static int write_csv_answer(char *text, rl_layers_out *out, rl_write_fn write, void *ctx, bool *answered_ok) {
    static const char member[] = ",\"layer_csv\":{\"format\":\"csv\"}}";
    size_t n = strlen(text);
    *answered_ok = ok_object(text, n);
    if (!*answered_ok) return write(ctx, text, n) ? -1 : 0;
    rl_layer_writer *w = rl_layer_writer_new(RL_LAYERS_CSV, out->later.c);
    if (!w) { /* nothing written yet: the short answer instead */
        *answered_ok = false;
        char *oom = layers_oom_answer();
        int rc = oom && !write(ctx, oom, strlen(oom)) ? 0 : -1;
        free(oom);
        return rc;
    }
    rl_layer_writer_stream(w, write, ctx);
    bool ok = !write(ctx, text, n - 1) && !write(ctx, member, sizeof member); /* its NUL too */
    if (ok) {
        write_rows(w, &out->later);
        ok = rl_layer_writer_finish_stream(w);
    } else {
        rl_layer_writer_free(w);
    }
    return ok ? 0 : -1;
}

/* The text before the mark, the rows in pieces as they are written, the
 * text after it: the bytes rl_analyze_join_layers would have joined. */
int rl_analyze_write_answer(char *text, rl_layers_out *out, rl_write_fn write, void *ctx, bool *answered_ok) {
    *answered_ok = false;
    if (text && out->waiting && out->later.o->layers_layout == RL_LAYERS_CSV) {
        int rc = write_csv_answer(text, out, write, ctx, answered_ok);
        free(text);
        out->waiting = false;
        return rc;
    }
    const char *mark = text && out->waiting ? strchr(text, ROWS_MARK[0]) : NULL;
    rl_layer_writer *w = mark ? rl_layer_writer_new(RL_LAYERS_ROWS, out->later.c) : NULL;
    if (mark && !w) { /* nothing written yet: the short answer instead */
        free(text);
        text = layers_oom_answer();
        mark = NULL;
    }
    int rc = 0;
    *answered_ok = text && rl_answer_ok(text);
    if (!text) rc = -1;
    else if (!mark) rc = write(ctx, text, strlen(text)) ? -1 : 0;
    else {
        rl_layer_writer_stream(w, write, ctx);
        bool ok = !write(ctx, text, (size_t)(mark - text));
        if (ok) {
            write_rows(w, &out->later);
            ok = rl_layer_writer_finish_stream(w) && !write(ctx, mark + 1, strlen(mark + 1));
        } else {
            rl_layer_writer_free(w);
        }
        rc = ok ? 0 : -1;
    }
    free(text);
    out->waiting = false;
    return rc;
}

void rl_analyze_layers_free(rl_layers_out *out) {
    rl_layer_writer_free(out->columns);
    free(out->rows);
    *out = (rl_layers_out){0};
}
