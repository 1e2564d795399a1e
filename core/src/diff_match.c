/* The layers of a diff (diff_match.h): reading each side's layer rows
 * from its analysis, and matching the two models' layers by name, then by
 * op and position (docs/ci.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_match.h"
#include "graph.h"
#include "json.h"

/* The op-sequence alignment of one stretch of renamed layers costs
 * old × new table cells; larger stretches pair layers of an op in order. */
#define DIFF_LCS_MAX_CELLS (1u << 21)


/* ---- one side's layer rows, read from the packed layer table
 * ("layers": "packed", docs/api.md): the figures are the doubles after the
 * answer's text, the very values its JSON text reads back as, so a diff
 * reads them without writing or parsing a row. */
typedef struct packed_table {
    const cJSON *columns; /* layer_columns.columns */
    int count;
    const unsigned char *doubles; /* count doubles a slot */
    size_t n_doubles;
} packed_table;

/* One column: its doubles (a number, or an index into `values` for a coded
 * one), or its text items, one a row (NULL where a sparse column lacks the
 * row). */
typedef struct packed_col {
    const unsigned char *f64;
    const cJSON **values, **items;
    int n_values;
} packed_col;

static bool packed_col_open(const packed_table *t, const char *key, packed_col *c, rl_arena *a) {
    memset(c, 0, sizeof *c);
    const cJSON *col = rl_json_get(t->columns, key), *k = rl_json_get(col, "f64"), *v;
    if (!col) return true; /* absent: every row reads as missing */
    if (cJSON_IsNumber(k)) {
        double first = k->valuedouble * t->count;
        if (!(k->valuedouble >= 0) || first + t->count > (double)t->n_doubles) return false;
        c->f64 = t->doubles + (size_t)first * sizeof(double);
        const cJSON *values = rl_json_get(col, "enum");
        if (!values) return true;
        c->n_values = cJSON_GetArraySize(values);
        c->values = rl_arena_alloc(a, (size_t)(c->n_values + 1) * sizeof *c->values);
        int i = 0;
        if (c->values) cJSON_ArrayForEach(v, values) c->values[i++] = v;
        return c->values != NULL;
    }
    c->items = rl_arena_alloc(a, (size_t)(t->count + 1) * sizeof *c->items);
    if (!c->items) return false;
    memset(c->items, 0, (size_t)(t->count + 1) * sizeof *c->items);
    int i = 0;
    if (cJSON_IsArray(col)) { /* dense text: one value a row */
        cJSON_ArrayForEach(v, col) if (i < t->count) c->items[i++] = v;
        return true;
    }
    const cJSON *rows = rl_json_get(col, "rows"), *r = rows ? rows->child : NULL; /* sparse */
    for (v = rl_json_get(col, "values") ? rl_json_get(col, "values")->child : NULL; v && r; v = v->next, r = r->next)
        if (cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < t->count) c->items[(int)r->valuedouble] = v;
    return true;
}

/* Row i's double (memcpy: the answer's bytes need not be aligned). */
static double packed_double(const packed_col *c, int i) {
    double d;
    memcpy(&d, c->f64 + (size_t)i * sizeof d, sizeof d);
    return d;
}

/* Row i's value as a JSON item (NULL: null or missing); numbers of a plain
 * f64 column are read with packed_num. */
static const cJSON *packed_item(const packed_col *c, int i) {
    if (c->f64 && c->values) {
        double d = packed_double(c, i);
        return d >= 0 && d < c->n_values ? c->values[(int)d] : NULL;
    }
    return c->items ? c->items[i] : NULL;
}

/* Row i's number, NaN for null or missing (rl_json_get_num's default). */
static double packed_num(const packed_col *c, int i) {
    if (c->f64 && !c->values) return packed_double(c, i);
    const cJSON *v = packed_item(c, i);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *packed_str(const packed_col *c, int i) {
    const cJSON *v = packed_item(c, i);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* The fields a diff reads of a layer: the one place that knows them. */
enum { F_INDEX, F_NAME, F_OP, F_DOMAIN, F_BOUND, F_FLOPS, F_BYTES, F_INTENSITY, F_T, F_ENERGY, F_KI, F_KF,
       F_SUPPORTED, F_KNOWN, F_FORECAST, F_COUNT };
static const char *const diff_fields[F_COUNT] = {
    "index", "name", "op", "domain", "bound", "flops", "bytes", "intensity", "t", "energy_j",
    "kernel_intensity", "kernel_flops_per_s", "supported", "known", "forecast_s"};

/* Row i into d; the strings are copied, so the row outlives the answer. */
static bool diff_layer_read(const packed_col *c, int i, dlayer *d, rl_arena *a) {
    d->index = (int)packed_num(&c[F_INDEX], i);
    d->name = rl_arena_strdup(a, packed_str(&c[F_NAME], i));
    d->op = rl_arena_strdup(a, packed_str(&c[F_OP], i));
    d->domain = rl_arena_strdup(a, packed_str(&c[F_DOMAIN], i));
    d->bound = rl_arena_strdup(a, packed_str(&c[F_BOUND], i));
    d->flops = packed_num(&c[F_FLOPS], i);
    d->bytes = packed_num(&c[F_BYTES], i);
    d->intensity = packed_num(&c[F_INTENSITY], i);
    d->t = packed_num(&c[F_T], i);
    d->energy = packed_num(&c[F_ENERGY], i);
    d->kernel_intensity = packed_num(&c[F_KI], i);
    d->kernel_flops_per_s = packed_num(&c[F_KF], i);
    d->supported = !cJSON_IsFalse(packed_item(&c[F_SUPPORTED], i));
    d->known = !cJSON_IsFalse(packed_item(&c[F_KNOWN], i));
    d->forecast = packed_num(&c[F_FORECAST], i);
    d->partner = -1;
    return d->name && d->op && d->domain && d->bound;
}

/* ---- the layers' output shapes (the diff's graph marks an edge whose
 * tensor changed shape): a column of lists, packed ({"ends": k, "flat":
 * [...]}, row i's items end at double i of slot k) or as text (one array a
 * row). */
typedef struct list_col {
    const unsigned char *ends; /* packed: the ends, one double a row */
    const cJSON **flat;        /* packed: the items */
    int n_flat;
    const cJSON **rows;        /* text: each row's array */
} list_col;

static bool list_col_open(const packed_table *t, const char *key, list_col *c, rl_arena *a) {
    memset(c, 0, sizeof *c);
    const cJSON *col = rl_json_get(t->columns, key), *k = rl_json_get(col, "ends"), *v;
    const cJSON *items = cJSON_IsNumber(k) ? rl_json_get(col, "flat") : col;
    int n = cJSON_GetArraySize(items), i = 0;
    const cJSON **to = rl_arena_alloc(a, ((size_t)n + 1) * sizeof *to);
    if (!to) return false;
    cJSON_ArrayForEach(v, items) to[i++] = v;
    if (!cJSON_IsNumber(k)) {
        c->rows = to;
        c->n_flat = n; /* rows listed */
        return true;
    }
    double first = k->valuedouble * t->count;
    if (!(k->valuedouble >= 0) || first + t->count > (double)t->n_doubles) return false;
    c->ends = t->doubles + (size_t)first * sizeof(double);
    c->flat = to;
    c->n_flat = n;
    return true;
}

/* Row i's items: *items and their number (0 for null or a missing row). */
static int list_row(const list_col *c, int i, const cJSON ***items, const cJSON **scratch, int cap) {
    if (c->rows) {
        const cJSON *row = i < c->n_flat ? c->rows[i] : NULL, *v;
        int n = 0;
        cJSON_ArrayForEach(v, row) if (n < cap) scratch[n++] = v;
        *items = scratch;
        return n;
    }
    if (!c->ends) return 0;
    double from = 0, to;
    if (i > 0) memcpy(&from, c->ends + (size_t)(i - 1) * sizeof from, sizeof from);
    memcpy(&to, c->ends + (size_t)i * sizeof to, sizeof to);
    if (isnan(to)) return 0;
    /* a null row before this one ends where the last list did */
    for (int p = i - 1; isnan(from) && p > 0; p--) memcpy(&from, c->ends + (size_t)(p - 1) * sizeof from, sizeof from);
    if (isnan(from)) from = 0; /* only null rows before it: it starts the list */
    if (!(from >= 0 && from <= to && to <= c->n_flat)) return 0;
    *items = c->flat + (size_t)from;
    return (int)(to - from);
}

#define SHAPE_TEXT 160
/* A shape as the page writes it (graph-model.js shapeText): [1, 64, ?]; "?" for no shape. */
static const char *shape_text(const cJSON *const *dims, int n, bool known, rl_arena *a) {
    char buf[SHAPE_TEXT];
    size_t at = 0;
    if (!known) return "?";
    at += (size_t)snprintf(buf, sizeof buf, "[");
    for (int k = 0; k < n && at < sizeof buf; k++) {
        if (cJSON_IsNumber(dims[k])) at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%.0f", k ? ", " : "", dims[k]->valuedouble);
        else at += (size_t)snprintf(buf + at, sizeof buf - at, "%s?", k ? ", " : "");
    }
    if (at < sizeof buf) snprintf(buf + at, sizeof buf - at, "]");
    return rl_arena_strdup(a, buf);
}

/* Each layer's listed outputs' shapes, from the layer table's "outputs"
 * and the tensor table `tt` (its doubles at `tdoubles`). */
static bool read_shapes(const packed_table *lt, const cJSON *tt, const unsigned char *tdoubles, size_t tn, side *sd,
                        rl_arena *a) {
    double count = rl_json_get_num(tt, "count");
    packed_table t = {rl_json_get(tt, "columns"), count >= 0 && count <= INT32_MAX ? (int)count : 0, tdoubles, tn};
    list_col outs, shapes;
    if (!list_col_open(lt, "outputs", &outs, a) || !list_col_open(&t, "shape", &shapes, a)) return false;
    const cJSON *scratch[64], *dims_scratch[64], **items = NULL, **dims = NULL;
    for (int i = 0; i < sd->n; i++) {
        dlayer *d = &sd->layers[i];
        int n = list_row(&outs, i, &items, scratch, 64);
        d->out_shapes = rl_arena_alloc(a, ((size_t)n + 1) * sizeof *d->out_shapes);
        if (!d->out_shapes) return false;
        for (int k = 0; k < n; k++) {
            double ti = cJSON_IsNumber(items[k]) ? items[k]->valuedouble : -1;
            bool has = ti >= 0 && ti < t.count;
            int nd = has ? list_row(&shapes, (int)ti, &dims, dims_scratch, 64) : 0;
            bool known = has && (shapes.rows ? ti < shapes.n_flat && cJSON_IsArray(shapes.rows[(int)ti]) : true);
            if (has && shapes.ends) { /* packed: a null shape has a NaN end */
                double e;
                memcpy(&e, shapes.ends + (size_t)ti * sizeof e, sizeof e);
                known = !isnan(e);
            }
            if (!(d->out_shapes[k] = shape_text(dims, nd, known, a))) return false;
        }
        d->n_out = n;
    }
    return true;
}

/* The rows of the packed table in `columns` (the text of layer_columns
 * less its tensor table) with the answer's doubles. */
static bool read_rows(const cJSON *lc, const cJSON *tensors, const char *out, size_t size, side *sd, rl_arena *a) {
    packed_table t = {rl_json_get(lc, "columns"), 0, NULL, 0};
    double count = rl_json_get_num(lc, "count"), bytes = rl_json_get_num(lc, "packed_bytes");
    size_t at = (strlen(out) + 1 + 7) & ~(size_t)7; /* the doubles start at the next multiple of 8 */
    if (!cJSON_IsObject(t.columns) || !(count >= 0) || count > INT32_MAX || !(bytes >= 0) || at > size ||
        bytes > (double)(size - at))
        return false;
    t.count = (int)count;
    t.doubles = (const unsigned char *)out + at;
    t.n_doubles = (size_t)bytes / sizeof(double);
    packed_col c[F_COUNT];
    for (int f = 0; f < F_COUNT; f++)
        if (!packed_col_open(&t, diff_fields[f], &c[f], a)) return false;
    sd->layers = rl_arena_alloc(a, (size_t)(t.count + 1) * sizeof *sd->layers);
    if (!sd->layers) return false;
    for (sd->n = 0; sd->n < t.count; sd->n++)
        if (!diff_layer_read(c, sd->n, &sd->layers[sd->n], a)) return false;
    if (!tensors) return true;
    /* the tensor table's doubles follow the layer table's */
    double tbytes = rl_json_get_num(tensors, "packed_bytes");
    size_t tat = at + (size_t)bytes;
    if (!(tbytes >= 0) || tat > size || tbytes > (double)(size - tat)) return false;
    return read_shapes(&t, tensors, (const unsigned char *)out + tat, (size_t)tbytes / sizeof(double), sd, a);
}

/* The last place `key` stands in text, or NULL. */
static const char *last_of(const char *text, const char *key) {
    const char *last = NULL;
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) last = p;
    return last;
}

/* A JSON object's text from `from` to `to`, closed with `close`, parsed. */
static cJSON *parse_cut(const char *from, const char *to, const char *close) {
    size_t n = (size_t)(to - from), k = strlen(close);
    char *s = malloc(n + k + 1);
    if (!s) return NULL;
    memcpy(s, from, n);
    memcpy(s + n, close, k + 1);
    cJSON *o = cJSON_ParseWithLength(s, n + k);
    free(s);
    return o;
}

/* Analyses `m` (the request asks for packed layers) and reads the answer:
 * sd->res is the answer less its layer table, sd->layers the rows read from
 * the table's columns and doubles. The layer table is the answer's last
 * member and its tensor table the table's last (docs/api.md), so each is
 * found as the last place its key followed by {"count": stands (a string
 * holds its quotes escaped), and neither the tensors' names and shapes nor
 * any layer figure is parsed as text. Returns false with err set when out
 * of memory or when the answer cannot be read. */
bool rl_diff_analyze_side(rl_model *m, const rl_hw *hw, const char *request_text, bool shapes, side *sd, rl_arena *a, rl_error *err) {
    memset(sd, 0, sizeof *sd);
    size_t size = 0;
    char *out = rl_model_analyze_hw(m, hw, request_text, &size);
    const char *lc = out ? last_of(out, ",\"layer_columns\":{\"count\":") : NULL;
    bool ok = out != NULL;
    if (lc) {
        const char *open = lc + strlen(",\"layer_columns\":"), *tensors = last_of(open, ",\"tensors\":{\"count\":");
        cJSON *table = tensors ? parse_cut(open, tensors, "}") : NULL;
        /* the tensor table ends before the layer table's and the answer's closing braces */
        size_t len = strlen(out);
        const char *topen = tensors ? tensors + strlen(",\"tensors\":") : NULL;
        cJSON *ttable = shapes && topen && len >= 2 && out + len - 2 > topen ? parse_cut(topen, out + len - 2, "") : NULL;
        ok = table && (!shapes || ttable) && read_rows(table, ttable, out, size, sd, a);
        cJSON_Delete(table);
        cJSON_Delete(ttable);
        sd->res = ok ? parse_cut(out, lc, "}") : NULL;
    } else if (ok) {
        sd->res = cJSON_Parse(out); /* an error answer, or one without layers */
    }
    rl_free(out);
    if (!sd->res) rl_error_set(err, "out_of_memory", "", "out of memory while reading the analysis");
    return sd->res != NULL;
}

/* Pairs the k-th unmatched old layer with key K with the k-th unmatched new
 * layer with key K, in graph order, among old[o0..o1) and new[n0..n1).
 * key(l) NULL or "" takes no part. */
typedef const char *(*layer_key)(const dlayer *l, char *buf, size_t cap);

static const char *name_key(const dlayer *l, char *buf, size_t cap) { return l->name; }

static const char *op_key(const dlayer *l, char *buf, size_t cap) {
    snprintf(buf, cap, "%s\x1f%s", l->domain, l->op);
    return buf;
}

static bool pair_in_order(dlayer *o, int o0, int o1, dlayer *nw, int n0, int n1, layer_key key, char by,
                          rl_arena *a) {
    int n = o1 - o0;
    if (n <= 0 || n1 <= n0) return true;
    /* per key: a chain of old layers (next[]) from its first (the map's
     * value), the chain's tail while building it, then the next to give */
    rl_name_map *heads = rl_map_new(a, (size_t)n);
    int *next = rl_arena_alloc(a, (size_t)n * sizeof *next), *tail = rl_arena_alloc(a, (size_t)n * sizeof *tail);
    int *cursor = rl_arena_alloc(a, (size_t)n * sizeof *cursor);
    if (!heads || !next || !tail || !cursor) return false;
    char buf[600];
    for (int i = o0; i < o1; i++) {
        if (o[i].partner >= 0) continue;
        const char *k = key(&o[i], buf, sizeof buf);
        if (!k || !k[0]) continue;
        int r = i - o0, h = rl_map_get(heads, k);
        next[r] = -1;
        if (h < 0) {
            const char *kk = k == buf ? rl_arena_strdup(a, buf) : k;
            if (!kk) return false;
            rl_map_put(heads, kk, r);
            tail[r] = cursor[r] = r;
        } else {
            next[tail[h]] = r;
            tail[h] = r;
        }
    }
    for (int j = n0; j < n1; j++) {
        if (nw[j].partner >= 0) continue;
        const char *k = key(&nw[j], buf, sizeof buf);
        if (!k || !k[0]) continue;
        int h = rl_map_get(heads, k);
        if (h < 0 || cursor[h] < 0) continue;
        int i = o0 + cursor[h];
        cursor[h] = next[cursor[h]];
        o[i].partner = j;
        o[i].matched_by = by;
        nw[j].partner = i;
        nw[j].matched_by = by;
    }
    return true;
}

/* Longest common subsequence of the op sequences of old[o0..o1) and
 * new[n0..n1) (all unmatched), so an inserted or removed layer does not
 * shift the pairing of the layers after it. */
static bool align_ops(dlayer *o, int o0, int o1, dlayer *nw, int n0, int n1) {
    const size_t lo = (size_t)(o1 - o0), ln = (size_t)(n1 - n0), w = ln + 1;
    uint32_t *L = calloc((lo + 1) * w, sizeof *L);
    if (!L) return false;
    for (size_t i = lo; i-- > 0;)
        for (size_t j = ln; j-- > 0;)
            L[i * w + j] = o[o0 + i].op_id == nw[n0 + j].op_id
                               ? L[(i + 1) * w + j + 1] + 1
                               : (L[(i + 1) * w + j] >= L[i * w + j + 1] ? L[(i + 1) * w + j] : L[i * w + j + 1]);
    for (size_t i = 0, j = 0; i < lo && j < ln;) {
        if (o[o0 + i].op_id == nw[n0 + j].op_id) {
            o[o0 + i].partner = n0 + (int)j;
            o[o0 + i].matched_by = 'p';
            nw[n0 + j].partner = o0 + (int)i;
            nw[n0 + j].matched_by = 'p';
            i++, j++;
        } else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) i++;
        else j++;
    }
    free(L);
    return true;
}

/* Gives every layer of both models an interned (domain, op) id. */
static bool intern_ops(dlayer *o, int n, dlayer *nw, int m, rl_arena *a) {
    rl_name_map *ids = rl_map_new(a, (size_t)(n + m));
    if (!ids) return false;
    int next_id = 0;
    char buf[600];
    for (int s = 0; s < 2; s++) {
        dlayer *L = s ? nw : o;
        for (int i = 0, cnt = s ? m : n; i < cnt; i++) {
            const char *k = op_key(&L[i], buf, sizeof buf);
            int id = rl_map_get(ids, k);
            if (id < 0) {
                const char *kk = rl_arena_strdup(a, k);
                if (!kk) return false;
                id = next_id++;
                rl_map_put(ids, kk, id);
            }
            L[i].op_id = id;
        }
    }
    return true;
}

/* The matching rule (docs/ci.md): by name first; the rest by op and
 * position within each stretch between name-matched layers. */
bool rl_diff_match_layers(dlayer *o, int n, dlayer *nw, int m, rl_arena *a) {
    if (!pair_in_order(o, 0, n, nw, 0, m, name_key, 'n', a)) return false;
    if (!intern_ops(o, n, nw, m, a)) return false;
    /* A stretch is keyed by the old index of the name-matched layer before
     * it (-1: the start). Old stretches are runs between matched layers;
     * a new run takes the key of its preceding layer's partner. */
    int *old_start = rl_arena_alloc(a, (size_t)(n + 1) * sizeof *old_start);
    int *old_end = rl_arena_alloc(a, (size_t)(n + 1) * sizeof *old_end);
    if (!old_start || !old_end) return false;
    for (int k = 0; k <= n; k++) old_start[k] = old_end[k] = 0;
    int anchor = -1;
    for (int i = 0; i < n; i++) {
        if (o[i].partner >= 0) { anchor = i; continue; }
        if (old_end[anchor + 1] == 0) old_start[anchor + 1] = i;
        old_end[anchor + 1] = i + 1;
    }
    anchor = -1;
    for (int j = 0; j < m;) {
        if (nw[j].partner >= 0) { anchor = nw[j].partner; j++; continue; }
        int j1 = j;
        while (j1 < m && nw[j1].partner < 0) j1++;
        int o0 = old_start[anchor + 1], o1 = old_end[anchor + 1];
        if (o1 > o0) {
            size_t cells = (size_t)(o1 - o0 + 1) * (size_t)(j1 - j + 1);
            bool ok = cells <= DIFF_LCS_MAX_CELLS ? align_ops(o, o0, o1, nw, j, j1)
                                                  : pair_in_order(o, o0, o1, nw, j, j1, op_key, 'p', a);
            if (!ok) return false;
        }
        j = j1;
    }
    return true;
}

