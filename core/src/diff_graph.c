/* The graph of a diff (diff_match.h, rl_diff_graph_add; docs/api.md,
 * "Diff"): what the page's graph and module views of two models and
 * `rooflens diff --format dot` draw. Every figure is the diff's own (the
 * layers' old and new figures are those of diff.matched, diff.added and
 * diff.removed, the table's and the Markdown's); this file says, for each
 * layer, module and edge, what changed: one place for the words "slower",
 * "faster", "same", "added" and "removed" and for the colours they are
 * drawn in. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff_match.h"
#include "graph.h"
#include "json.h"

/* The kinds of change: the one table (ids as the answer writes them, the
 * words a user reads, their meaning and colour). A figure that changed by
 * less than SAME_WITHIN of itself is the same: the shares of a model's time
 * are rounded differently when another layer changes. */
typedef enum { CH_ADDED, CH_REMOVED, CH_SLOWER, CH_FASTER, CH_SAME, CH_UNKNOWN, CH_COUNT } change_kind;

static const struct {
    const char *id, *name, *meaning, *color;
} CHANGES[CH_COUNT] = {
    [CH_ADDED] = {"added", "added", "Only the new model has this layer.", "#6a3d9a"},
    [CH_REMOVED] = {"removed", "removed", "Only the old model has this layer.", "#767676"},
    [CH_SLOWER] = {"slower", "costs more", "The figure grew from the old model to the new one.", "#b2182b"},
    [CH_FASTER] = {"faster", "costs less", "The figure shrank from the old model to the new one.", "#2166ac"},
    [CH_SAME] = {"same", "no change", "The figure is the same in both models.", "#f2f2f2"},
    [CH_UNKNOWN] = {"unknown", "not known", "One of the models has no such figure (energy on a profile without it).",
                    "#ffffff"},
};
_Static_assert(sizeof CHANGES / sizeof CHANGES[0] == CH_COUNT, "one row of CHANGES per change_kind");

#define SAME_WITHIN 1e-9
/* The strengths a change is drawn in: below the first step, to the second,
 * and beyond (a relative change; one from zero is the strongest). */
static const double SCALE_STEPS[] = {0.1, 0.5};

/* The figures a change is shown in, the first the default. */
enum { FIG_FORECAST, FIG_FLOOR, FIG_ENERGY, FIG_BYTES, FIG_COUNT };
static const struct {
    const char *id, *name, *unit;
} FIGURES[FIG_COUNT] = {
    [FIG_FORECAST] = {"forecast_s", "time at the forecast", "s"},
    [FIG_FLOOR] = {"t", "time at the speed of light", "s"},
    [FIG_ENERGY] = {"energy_j", "energy", "J"},
    [FIG_BYTES] = {"bytes", "bytes moved", "B"},
};

static double layer_figure(const dlayer *l, int f) {
    return f == FIG_FORECAST ? l->forecast : f == FIG_FLOOR ? l->t : f == FIG_ENERGY ? l->energy : l->bytes;
}

static change_kind change_of(double old, double nw) {
    if (!isfinite(old) || !isfinite(nw)) return isnan(old) && isnan(nw) ? CH_SAME : CH_UNKNOWN;
    double big = fmax(fabs(old), fabs(nw));
    if (fabs(nw - old) <= SAME_WITHIN * big) return CH_SAME;
    return nw > old ? CH_SLOWER : CH_FASTER;
}

static double ratio_of(double old, double nw) {
    if (!isfinite(old) || !isfinite(nw)) return NAN;
    return old != 0 ? (nw - old) / old : nw == old ? 0 : NAN;
}

static cJSON *num_array(const double *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) cJSON_AddItemToArray(a, isfinite(v[i]) ? cJSON_CreateNumber(v[i]) : cJSON_CreateNull());
    return a;
}

static cJSON *kind_array(const unsigned char *k, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateString(CHANGES[k[i]].id));
    return a;
}

/* An int column of a graph section ("from", "to", ...) as n ints; -1 where missing. */
static int *int_column(const cJSON *arr, int n, rl_arena *a) {
    int *v = rl_arena_alloc(a, ((size_t)n + 1) * sizeof *v), i = 0;
    if (!v) return NULL;
    for (int k = 0; k < n; k++) v[k] = -1;
    const cJSON *x;
    cJSON_ArrayForEach(x, arr) {
        if (i >= n) break;
        v[i++] = cJSON_IsNumber(x) && x->valuedouble >= -2 && x->valuedouble < 2147483647.0 ? (int)x->valuedouble : -1;
    }
    return v;
}

static double *num_column(const cJSON *arr, int n, rl_arena *a) {
    double *v = rl_arena_alloc(a, ((size_t)n + 1) * sizeof *v);
    if (!v) return NULL;
    for (int k = 0; k < n; k++) v[k] = NAN;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, arr) {
        if (i >= n) break;
        v[i++] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
    }
    return v;
}

/* ------------------------------------------------------------- layers -- */
/* One side's layers: where each one's figures are in the diff (its index in
 * diff.matched, or in diff.added for the new side, diff.removed for the
 * old) and its change in each figure. new_at: the new side's, for the old
 * side's matched layers. */
static bool add_side(cJSON *g, const char *key, const dlayer *self, int n, const dlayer *other, const int *new_at,
                     int *at, bool is_new, rl_arena *a) {
    unsigned char *kinds = rl_arena_alloc(a, (size_t)FIG_COUNT * ((size_t)n + 1));
    if (!kinds) return false;
    for (int i = 0, matched = 0, alone = 0; i < n; i++) {
        const dlayer *l = &self[i], *p = l->partner >= 0 ? &other[l->partner] : NULL;
        at[i] = p ? (is_new ? matched++ : new_at[l->partner]) : alone++;
        for (int f = 0; f < FIG_COUNT; f++) {
            change_kind k = !p ? (is_new ? CH_ADDED : CH_REMOVED)
                               : is_new ? change_of(layer_figure(p, f), layer_figure(l, f))
                                        : change_of(layer_figure(l, f), layer_figure(p, f));
            kinds[(size_t)f * n + i] = (unsigned char)k;
        }
    }
    cJSON *s = cJSON_AddObjectToObject(g, key);
    cJSON_AddNumberToObject(s, "layers", n);
    cJSON_AddItemToObject(s, "at", cJSON_CreateIntArray(at, n));
    cJSON *ch = cJSON_AddObjectToObject(s, "change");
    for (int f = 0; ch && f < FIG_COUNT; f++) cJSON_AddItemToObject(ch, FIGURES[f].id, kind_array(kinds + (size_t)f * n, n));
    return true;
}

/* -------------------------------------------------------------- edges -- */
typedef struct edges {
    int n, *from, *to, *slot;
    rl_name_map *pairs; /* "from>to" -> edge */
} edges;

static const char *pair_key(int from, int to, char *buf, size_t cap) {
    snprintf(buf, cap, "%d>%d", from, to);
    return buf;
}

static bool read_edges(const cJSON *res, int layers, edges *e, rl_arena *a) {
    const cJSON *ed = rl_json_get(rl_json_get(res, "graph"), "edges");
    double n = rl_json_get_num(ed, "count");
    e->n = n >= 0 && n < 2147483647.0 ? (int)n : 0;
    e->from = int_column(rl_json_get(ed, "from"), e->n, a);
    e->to = int_column(rl_json_get(ed, "to"), e->n, a);
    e->slot = int_column(rl_json_get(ed, "output"), e->n, a);
    e->pairs = rl_map_new(a, (size_t)e->n + 1);
    if (!e->from || !e->to || !e->slot || !e->pairs) return false;
    char buf[32];
    for (int k = 0; k < e->n; k++) {
        if (e->from[k] < 0 || e->from[k] >= layers || e->to[k] < 0 || e->to[k] >= layers) {
            e->from[k] = e->to[k] = -1; /* not a pair of this side's layers: left out */
            continue;
        }
        const char *key = rl_arena_strdup(a, pair_key(e->from[k], e->to[k], buf, sizeof buf));
        if (!key) return false;
        if (rl_map_get(e->pairs, key) < 0) rl_map_put(e->pairs, key, k);
    }
    return true;
}

static const char *shape_at(const dlayer *l, int slot) {
    return slot >= 0 && slot < l->n_out && l->out_shapes ? l->out_shapes[slot] : "?";
}

/* One edge of the union graph: nodes are the new layers (0..m-1) and then
 * the removed old ones (m + their place in diff.removed). */
typedef struct edge_cols {
    cJSON *from, *to, *old_shape, *new_shape, *change;
} edge_cols;

static void put_edge(edge_cols *c, int from, int to, const char *old_shape, const char *new_shape, const char *change) {
    cJSON_AddItemToArray(c->from, cJSON_CreateNumber(from));
    cJSON_AddItemToArray(c->to, cJSON_CreateNumber(to));
    cJSON_AddItemToArray(c->old_shape, old_shape ? cJSON_CreateString(old_shape) : cJSON_CreateNull());
    cJSON_AddItemToArray(c->new_shape, new_shape ? cJSON_CreateString(new_shape) : cJSON_CreateNull());
    cJSON_AddItemToArray(c->change, cJSON_CreateString(change));
}

/* The new graph's edges first, in its order (edge k here is graph.edges's k
 * of the new analysis), each "same", "shape" (its tensor changed shape) or
 * "added"; then the old edges the new graph lacks, "removed". */
static bool add_edges(cJSON *g, const side *so, const side *sn, const int *old_at, rl_arena *a) {
    edges eo = {0}, en = {0};
    if ((so->res && !read_edges(so->res, so->n, &eo, a)) || !read_edges(sn->res, sn->n, &en, a)) return false;
    cJSON *ed = cJSON_AddObjectToObject(g, "edges");
    edge_cols c = {cJSON_AddArrayToObject(ed, "from"), cJSON_AddArrayToObject(ed, "to"),
                   cJSON_AddArrayToObject(ed, "old_shape"), cJSON_AddArrayToObject(ed, "new_shape"),
                   cJSON_AddArrayToObject(ed, "change")};
    if (!c.from || !c.to || !c.old_shape || !c.new_shape || !c.change) return false;
    char buf[32];
    int count = 0;
    for (int k = 0; k < en.n; k++, count++) {
        int p = en.from[k], q = en.to[k];
        if (p < 0) { /* kept in place, so that k still names the new graph's edge */
            put_edge(&c, -1, -1, NULL, NULL, "same");
            continue;
        }
        const char *now = shape_at(&sn->layers[p], en.slot[k]);
        int op = sn->layers[p].partner, oq = sn->layers[q].partner;
        int was = op >= 0 && oq >= 0 && eo.pairs ? rl_map_get(eo.pairs, pair_key(op, oq, buf, sizeof buf)) : -1;
        const char *before = was >= 0 ? shape_at(&so->layers[op], eo.slot[was]) : NULL;
        put_edge(&c, p, q, before, now, !before ? "added" : strcmp(before, now) ? "shape" : "same");
    }
    for (int k = 0; k < eo.n; k++) {
        int p = eo.from[k], q = eo.to[k];
        if (p < 0) continue;
        int np = so->layers[p].partner, nq = so->layers[q].partner;
        if (np >= 0 && nq >= 0 && rl_map_get(en.pairs, pair_key(np, nq, buf, sizeof buf)) >= 0) continue;
        int from = np >= 0 ? np : sn->n + old_at[p], to = nq >= 0 ? nq : sn->n + old_at[q];
        put_edge(&c, from, to, shape_at(&so->layers[p], eo.slot[k]), NULL, "removed");
        count++;
    }
    cJSON_AddNumberToObject(ed, "count", count);
    cJSON_AddNumberToObject(ed, "new_edges", en.n);
    return true;
}

/* ------------------------------------------------------------ modules -- */
typedef struct modules {
    int n;
    const char **path;
    double *fig[FIG_COUNT];
    rl_name_map *by_path;
} modules;

static bool read_modules(const cJSON *res, modules *m, rl_arena *a) {
    const cJSON *mo = rl_json_get(rl_json_get(res, "graph"), "modules");
    double n = rl_json_get_num(mo, "count");
    m->n = n >= 0 && n < 2147483647.0 ? (int)n : 0;
    m->path = rl_arena_alloc(a, ((size_t)m->n + 1) * sizeof *m->path);
    m->by_path = rl_map_new(a, (size_t)m->n + 1);
    if (!m->path || !m->by_path) return false;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, rl_json_get(mo, "path")) if (i < m->n) m->path[i++] = cJSON_IsString(x) ? x->valuestring : "";
    for (; i < m->n; i++) m->path[i] = "";
    for (int k = 0; k < m->n; k++)
        if (rl_map_get(m->by_path, m->path[k]) < 0) rl_map_put(m->by_path, m->path[k], k);
    for (int f = 0; f < FIG_COUNT; f++)
        if (!(m->fig[f] = num_column(rl_json_get(mo, FIGURES[f].id), m->n, a))) return false;
    return true;
}

/* Each module of the new model with its figures in both (the old model's
 * module of the same path; none: "added") and its change; the old model's
 * modules the new one lacks, by path. */
static bool add_modules(cJSON *g, const side *so, const side *sn, rl_arena *a) {
    modules mo = {0}, mn = {0};
    if ((so->res && !read_modules(so->res, &mo, a)) || !read_modules(sn->res, &mn, a)) return false;
    int *old_index = rl_arena_alloc(a, ((size_t)mn.n + 1) * sizeof(int));
    double *old = rl_arena_alloc(a, ((size_t)mn.n + 1) * sizeof(double)), *ratio = rl_arena_alloc(a, ((size_t)mn.n + 1) * sizeof(double));
    unsigned char *kinds = rl_arena_alloc(a, (size_t)mn.n + 1);
    if (!old_index || !old || !ratio || !kinds) return false;
    for (int k = 0; k < mn.n; k++) old_index[k] = mo.by_path ? rl_map_get(mo.by_path, mn.path[k]) : -1;
    cJSON *out = cJSON_AddObjectToObject(g, "modules");
    cJSON_AddNumberToObject(out, "count", mn.n);
    cJSON_AddItemToObject(out, "path", cJSON_CreateStringArray(mn.path, mn.n));
    cJSON_AddItemToObject(out, "old_index", cJSON_CreateIntArray(old_index, mn.n));
    for (int f = 0; f < FIG_COUNT; f++) {
        for (int k = 0; k < mn.n; k++) {
            old[k] = old_index[k] >= 0 ? mo.fig[f][old_index[k]] : NAN;
            ratio[k] = ratio_of(old[k], mn.fig[f][k]);
            kinds[k] = (unsigned char)(old_index[k] < 0 ? CH_ADDED : change_of(old[k], mn.fig[f][k]));
        }
        cJSON *fo = cJSON_AddObjectToObject(out, FIGURES[f].id);
        cJSON_AddItemToObject(fo, "old", num_array(old, mn.n));
        cJSON_AddItemToObject(fo, "new", num_array(mn.fig[f], mn.n));
        cJSON_AddItemToObject(fo, "ratio", num_array(ratio, mn.n));
        cJSON_AddItemToObject(fo, "change", kind_array(kinds, mn.n));
    }
    cJSON *gone = cJSON_AddArrayToObject(g, "removed_modules");
    for (int k = 0; gone && k < mo.n; k++)
        if (rl_map_get(mn.by_path, mo.path[k]) < 0) cJSON_AddItemToArray(gone, cJSON_CreateString(mo.path[k]));
    return true;
}

/* ------------------------------------------------------------- legend -- */
static void add_legend(cJSON *g) {
    cJSON *figs = cJSON_AddArrayToObject(g, "figures");
    for (int f = 0; figs && f < FIG_COUNT; f++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", FIGURES[f].id);
        cJSON_AddStringToObject(o, "name", FIGURES[f].name);
        cJSON_AddStringToObject(o, "unit", FIGURES[f].unit);
        cJSON_AddItemToArray(figs, o);
    }
    cJSON *kinds = cJSON_AddArrayToObject(g, "kinds");
    for (int k = 0; kinds && k < CH_COUNT; k++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", CHANGES[k].id);
        cJSON_AddStringToObject(o, "name", CHANGES[k].name);
        cJSON_AddStringToObject(o, "meaning", CHANGES[k].meaning);
        cJSON_AddStringToObject(o, "color", CHANGES[k].color);
        cJSON_AddItemToArray(kinds, o);
    }
    cJSON *scale = cJSON_AddObjectToObject(g, "scale");
    cJSON_AddItemToObject(scale, "steps", cJSON_CreateDoubleArray(SCALE_STEPS, sizeof SCALE_STEPS / sizeof *SCALE_STEPS));
    cJSON_AddNumberToObject(scale, "same_within", SAME_WITHIN);
}

bool rl_diff_graph_add(cJSON *d, const side *so, const side *sn, rl_arena *a) {
    cJSON *g = cJSON_AddObjectToObject(d, "graph");
    if (!g) return false;
    add_legend(g);
    int *new_at = rl_arena_alloc(a, ((size_t)sn->n + 1) * sizeof(int));
    int *old_at = rl_arena_alloc(a, ((size_t)so->n + 1) * sizeof(int));
    if (!new_at || !old_at) return false;
    if (!add_side(g, "new", sn->layers, sn->n, so->layers, NULL, new_at, true, a)) return false;
    if (!add_side(g, "old", so->layers, so->n, sn->layers, new_at, old_at, false, a)) return false;
    return add_edges(g, so, sn, old_at, a) && add_modules(g, so, sn, a);
}
