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


/* One analysis layer row: the one place that knows a layer's fields. The
 * strings are copied, so the row outlives the response it came from. */
static bool diff_layer_read(const cJSON *l, dlayer *d, rl_arena *a) {
    d->index = (int)rl_json_get_num(l, "index");
    d->name = rl_arena_strdup(a, rl_json_get_str(l, "name"));
    d->op = rl_arena_strdup(a, rl_json_get_str(l, "op"));
    d->domain = rl_arena_strdup(a, rl_json_get_str(l, "domain"));
    d->bound = rl_arena_strdup(a, rl_json_get_str(l, "bound"));
    d->flops = rl_json_get_num(l, "flops");
    d->bytes = rl_json_get_num(l, "bytes");
    d->intensity = rl_json_get_num(l, "intensity");
    d->t = rl_json_get_num(l, "t");
    d->energy = rl_json_get_num(l, "energy_j");
    d->kernel_intensity = rl_json_get_num(l, "kernel_intensity");
    d->kernel_flops_per_s = rl_json_get_num(l, "kernel_flops_per_s");
    d->supported = !cJSON_IsFalse(rl_json_get(l, "supported"));
    d->known = !cJSON_IsFalse(rl_json_get(l, "known"));
    d->partner = -1;
    return d->name && d->op && d->domain && d->bound;
}

/* The end of the JSON object or array that starts at p, or NULL. The text
 * is the core's own response, so a bracket count that skips strings finds it. */
static char *container_end(char *p) {
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1]) p++;
            if (!*p) return NULL;
        } else if (*p == '{' || *p == '[') depth++;
        else if ((*p == '}' || *p == ']') && --depth == 0) return p + 1;
    }
    return NULL;
}

/* One side of the diff: an analysis response without its layer rows, and
 * the rows it had. */

/* Analyses `m` and reads the response. The layer rows are parsed one at a
 * time from the text and kept as dlayer rows: as one cJSON tree, the rows
 * of a 100,000-layer model (with their tensors) take over a gigabyte. The
 * rest of the response is parsed with the rows blanked out. Returns false
 * with err set when out of memory. */
bool rl_diff_analyze_side(rl_model *m, const char *request_text, side *sd, rl_arena *a, rl_error *err) {
    memset(sd, 0, sizeof *sd);
    char *out = rl_model_analyze(m, request_text);
    bool ok = out != NULL;
    /* the first "layers": [ is the top-level rows (a string cannot hold it unescaped) */
    char *arr = out ? strstr(out, "\"layers\":[") : NULL;
    if (arr) {
        char *open = arr + 9, *close = container_end(open);
        ok = close != NULL;
        int count = 0;
        for (char *p = open + 1; ok && p < close - 1; p++) {
            if (*p != '{') continue;
            char *end = container_end(p);
            ok = end != NULL;
            count++;
            p = ok ? end - 1 : p;
        }
        sd->layers = ok ? rl_arena_alloc(a, (size_t)(count + 1) * sizeof *sd->layers) : NULL;
        ok = sd->layers != NULL;
        for (char *p = open + 1; ok && p < close - 1 && sd->n < count; p++) {
            if (*p != '{') continue;
            char *end = container_end(p);
            cJSON *l = cJSON_ParseWithLength(p, (size_t)(end - p));
            ok = l && diff_layer_read(l, &sd->layers[sd->n++], a);
            cJSON_Delete(l);
            p = end - 1;
        }
        if (ok) {
            memset(open + 1, ' ', (size_t)(close - open - 2));
        }
    }
    sd->res = ok ? cJSON_Parse(out) : NULL;
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

