/* Op family: layout (Transpose, Concat, Split, Slice, Expand, Tile, Pad,
 * CenterCropPad, DepthToSpace, SpaceToDepth, Trilu, ReverseSequence). These
 * ops move data without computing: 0 FLOPs, the traffic of reading their
 * inputs (or the part they keep) and writing their outputs. Small known
 * contents are folded so shape arithmetic flows through them. */
#include <math.h>
#include <string.h>

#include "op.h"
#include "families.h"

/* ---------------------------------------------------------- Transpose -- */

static void transposed_from(const rl_fold_map *m, const int64_t *oc, int64_t *ic) {
    for (int k = 0; k < m->out_rank; k++) ic[m->perm[k]] = oc[k];
}

static int shape_transpose(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    int r = x->rank;
    int64_t perm[RL_MAX_RANK_HARD];
    const int64_t *p = NULL;
    int cnt = rl_attr_ints(n, "perm", &p);
    if (cnt < 0) {
        for (int k = 0; k < r; k++) perm[k] = r - 1 - k;
    } else {
        if (cnt != r) return rl_bad(c, n, "perm has %d entries for an input of rank %d", cnt, r);
        bool seen[RL_MAX_RANK_HARD] = {false};
        for (int k = 0; k < r; k++) {
            int a = rl_axis(c, n, p[k], r);
            if (a < 0) return RL_FAIL;
            if (seen[a]) return rl_bad(c, n, "perm repeats axis %d", a);
            seen[a] = true;
            perm[k] = a;
        }
    }
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0; k < r; k++) dims[k] = x->dims[perm[k]];
    int res = rl_set_out_status(c, n, 0, x->dtype, r, dims);
    rl_fold_map m = {.src = x, .out_rank = r, .perm = perm};
    if (res == RL_OK) rl_fold_moved(c, n, 0, dims, &m, transposed_from);
    return res;
}

/* ------------------------------------------------------------- Concat -- */

static int shape_concat(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *first = NULL;
    for (int i = 0; i < n->n_in && !first; i++) first = rl_in(n, i);
    if (!first) return rl_bad(c, n, "Concat has no inputs");
    int rank = -1;
    for (int i = 0; i < n->n_in; i++) {
        rl_value *v = rl_in(n, i);
        if (!v || v->rank < 0) continue;
        if (rank < 0) rank = v->rank;
        else if (v->rank != rank) return rl_bad(c, n, "inputs have ranks %d and %d", rank, v->rank);
    }
    if (rank < 0) return rl_set_out_unknown(c, n, 0, first->dtype, -1);
    if (rank == 0) return rl_bad(c, n, "cannot concatenate scalars");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 0), rank);
    if (axis < 0) return RL_FAIL;
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0; k < rank; k++) dims[k] = -1;
    int64_t total = 0;
    bool any_unknown_rank = false;
    for (int i = 0; i < n->n_in; i++) {
        rl_value *v = rl_in(n, i);
        if (!v) continue;
        if (v->rank < 0) { any_unknown_rank = true; continue; }
        for (int k = 0; k < rank; k++) {
            if (k == axis) continue;
            if (dims[k] < 0) dims[k] = v->dims[k];
            else if (v->dims[k] >= 0 && v->dims[k] != dims[k])
                return rl_bad(c, n, "input %d has %lld on axis %d, others %lld", i, (long long)v->dims[k], k, (long long)dims[k]);
        }
        if (total >= 0) {
            if (v->dims[axis] < 0) total = -1;
            else if (!rl_add_ok(total, v->dims[axis], &total)) return rl_bad(c, n, "concatenated size overflows");
        }
    }
    dims[axis] = any_unknown_rank ? -1 : total;
    int res = rl_set_out_status(c, n, 0, first->dtype, rank, dims);
    if (res != RL_OK) return res;
    int64_t count = rl_numel(rl_out(n, 0));
    if (count < 0 || count > RL_FOLD_MAX_ELEMS) return res;
    for (int i = 0; i < n->n_in; i++)
        if (rl_in(n, i) && !rl_contents_known(rl_in(n, i))) return res;
    int64_t *iv;
    double *fv;
    if (rl_fold_alloc(c, count, &iv, &fv) < 0) return res;
    int64_t oc[RL_MAX_RANK_HARD];
    for (int64_t e = 0; e < count; e++) {
        rl_unravel(e, rank, dims, oc);
        int64_t pos = oc[axis];
        iv[e] = 0; /* the inputs' sizes add up to the output's: one of them holds e */
        fv[e] = 0;
        for (int i = 0; i < n->n_in; i++) {
            rl_value *v = rl_in(n, i);
            if (!v) continue;
            if (pos < v->dims[axis]) {
                oc[axis] = pos;
                int64_t s = rl_ravel(rank, v->dims, oc);
                iv[e] = v->ival[s];
                fv[e] = v->fval[s];
                break;
            }
            pos -= v->dims[axis];
        }
    }
    rl_adopt_out_contents(n, 0, count, iv, fv);
    return res;
}

/* -------------------------------------------------------------- Split -- */

static void split_from(const rl_fold_map *m, const int64_t *oc, int64_t *ic) {
    memcpy(ic, oc, (size_t)m->out_rank * sizeof *ic);
    ic[m->axis] += m->offset;
}

static int shape_split(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    int nout = n->n_out;
    if (!x || x->rank < 0) {
        for (int i = 0; i < nout; i++)
            if (rl_set_out_unknown(c, n, i, rl_value_dtype(x), -1) == RL_FAIL) return RL_FAIL;
        return RL_UNKNOWN;
    }
    if (x->rank == 0) return rl_bad(c, n, "the input is a scalar: Split needs a tensor of rank 1 or more");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 0), x->rank);
    if (axis < 0) return RL_FAIL;
    const int64_t *split = NULL;
    int64_t cnt = rl_ints_arg(n, 1, "split", n->opset >= 13, &split);
    int64_t d = x->dims[axis];
    int64_t *sizes = rl_arena_alloc(c->arena, (size_t)(nout + 1) * sizeof *sizes);
    if (!sizes) return rl_bad(c, n, "out of memory");
    if (cnt >= 0) {
        if (cnt != nout) return rl_bad(c, n, "split has %lld entries for %d outputs", (long long)cnt, nout);
        int64_t sum = 0;
        for (int i = 0; i < nout; i++) {
            if (split[i] < 0) return rl_bad(c, n, "negative split size %lld", (long long)split[i]);
            sizes[i] = split[i];
            if (!rl_add_ok(sum, split[i], &sum)) return rl_bad(c, n, "split sizes overflow");
        }
        if (d >= 0 && sum != d) return rl_bad(c, n, "split sizes sum to %lld, the axis has %lld", (long long)sum, (long long)d);
    } else if (cnt == -1 || d < 0 || nout == 0) {
        /* runtime sizes of an empty axis can only be 0 */
        for (int i = 0; i < nout; i++) sizes[i] = d == 0 ? 0 : -1;
        int64_t len = cnt == -1 ? rl_in_runtime_len(n, 1) : -1;
        if (len >= 0 && len != nout) return rl_bad(c, n, "split has %lld entries for %d outputs", (long long)len, nout);
    } else {
        int64_t parts = rl_attr_i(c, n, "num_outputs", nout);
        if (parts != nout) return rl_bad(c, n, "num_outputs %lld but %d outputs", (long long)parts, nout);
        /* opset 18: ceil(d/n) for each output and the remainder in the last */
        int64_t chunk = (d + nout - 1) / nout;
        if (n->opset < 18 && d % nout) return rl_bad(c, n, "axis of %lld does not split evenly into %d", (long long)d, nout);
        int64_t left = d;
        for (int i = 0; i < nout; i++) {
            sizes[i] = left < chunk ? left : chunk;
            left -= sizes[i];
        }
    }
    int res = RL_OK;
    int64_t offset = 0;
    for (int i = 0; i < nout; i++) {
        int64_t dims[RL_MAX_RANK_HARD];
        memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
        dims[axis] = sizes[i];
        int r = rl_set_out_status(c, n, i, x->dtype, x->rank, dims);
        if (r == RL_FAIL) return r;
        if (r == RL_UNKNOWN) {
            res = RL_UNKNOWN;
            rl_set_out_bounds(c, n, i, x->dims, false);
        }
        rl_fold_map m = {.src = x, .out_rank = x->rank, .axis = axis, .offset = offset};
        if (r == RL_OK) rl_fold_moved(c, n, i, dims, &m, split_from);
        if (sizes[i] >= 0) offset += sizes[i];
    }
    return res;
}

/* -------------------------------------------------------------- Slice -- */

static void sliced_from(const rl_fold_map *m, const int64_t *oc, int64_t *ic) {
    for (int k = 0; k < m->out_rank; k++) ic[k] = m->first[k] + oc[k] * m->step[k];
}

static int shape_slice(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    bool inputs = n->opset >= 10;
    const int64_t *starts = NULL, *ends = NULL, *axes = NULL, *steps = NULL;
    int64_t ns = rl_ints_arg(n, 1, "starts", inputs, &starts);
    int64_t ne = rl_ints_arg(n, 2, "ends", inputs, &ends);
    int64_t na = rl_ints_arg(n, 3, "axes", inputs, &axes);
    int64_t nst = inputs ? rl_ints_arg(n, 4, "steps", true, &steps) : -2;
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    int r = x->rank;
    if (ns == -2 || ne == -2) return rl_bad(c, n, "Slice needs starts and ends");
    /* runtime bounds: the sliced axes are unknown, no longer than the input's */
    if (ns == -1 || ne == -1 || na == -1 || nst == -1) return rl_set_out_unknown_along_axes(c, n, x, axes, na, true);
    if (ns != ne || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
        return rl_bad(c, n, "starts, ends, axes and steps differ in length");
    int64_t dims[RL_MAX_RANK_HARD], first[RL_MAX_RANK_HARD], step[RL_MAX_RANK_HARD];
    for (int k = 0; k < r; k++) {
        dims[k] = x->dims[k];
        first[k] = 0;
        step[k] = 1;
    }
    int ax[RL_MAX_RANK_HARD];
    if (rl_resolve_axes(c, n, axes, na, ns, r, ax) < 0) return RL_FAIL;
    for (int64_t i = 0; i < ns; i++) {
        int a = ax[i];
        int64_t st = nst >= 0 ? steps[i] : 1;
        if (st == 0 || st == INT64_MIN) return rl_bad(c, n, "step %lld", (long long)st);
        int64_t d = x->dims[a];
        if (d < 0) { dims[a] = -1; continue; }
        int64_t s = starts[i], e = ends[i];
        if (s < 0) s = s < -d ? -1 : s + d;      /* (avoid overflow on INT64_MIN) */
        if (e < 0) e = e < -d ? -1 : e + d;
        if (st > 0) {
            s = s < 0 ? 0 : s > d ? d : s;
            e = e < 0 ? 0 : e > d ? d : e;
        } else {
            s = s < 0 ? -1 : s > d - 1 ? d - 1 : s;
            e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
        }
        int64_t len;
        if (st > 0) len = e > s ? (e - s - 1) / st + 1 : 0;
        else len = s > e ? (s - e - 1) / (-st) + 1 : 0;
        dims[a] = len;
        first[a] = s;
        step[a] = st;
    }
    int res = rl_set_out_status(c, n, 0, x->dtype, r, dims);
    rl_fold_map m = {.src = x, .out_rank = r, .first = first, .step = step};
    if (res == RL_OK) rl_fold_moved(c, n, 0, dims, &m, sliced_from);
    return res;
}

/* The integer list of an input (from_input) or attribute that shape
 * inference already resolved, for a cost function: its length, or -1 when it
 * is not known. */
static int64_t known_ints(const rl_node *n, int input, const char *attr, bool from_input, const int64_t **vals) {
    if (from_input) return rl_in(n, input) ? rl_in_ints(n, input, vals) : -2;
    int cnt = rl_attr_ints(n, attr, vals);
    return cnt < 0 ? -2 : cnt;
}

/* A slice reads only the elements it keeps when its step along the last axis
 * is ±1 (steps on outer axes skip whole rows). A larger step along the last
 * axis touches every cache line between the kept elements: the whole input
 * is charged (a bound), as it is when the steps are known only at run time. */
static void cost_slice(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    const rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (!x || !o || x->rank < 1) return;
    bool inputs = n->opset >= 10;
    const int64_t *starts = NULL, *axes = NULL, *steps = NULL;
    int64_t ns = known_ints(n, 1, "starts", inputs, &starts); /* the count of sliced axes */
    int64_t na = known_ints(n, 3, "axes", inputs, &axes);
    int64_t nst = inputs ? known_ints(n, 4, "", true, &steps) : -2;
    if (na == -1 || nst == -1 || ns < 0) return;
    for (int64_t i = 0; i < ns && nst >= 0; i++) {
        int64_t a = na >= 0 ? axes[i] : i;
        if (a < 0) a += x->rank;
        if (a == x->rank - 1 && steps[i] != 1 && steps[i] != -1) return;
    }
    rl_cost_read_part(c, k, x, rl_numel_d(o));
}

/* ------------------------------------------------------- Expand, Tile -- */

/* numpy broadcast: source dims of 1 repeat, the source aligns to the right */
static void broadcast_from(const rl_fold_map *m, const int64_t *oc, int64_t *ic) {
    const rl_value *x = m->src;
    for (int k = 0; k < x->rank; k++) ic[k] = x->dims[k] == 1 ? 0 : oc[k + m->out_rank - x->rank];
}

static int shape_expand(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *shape = NULL;
    int64_t cnt = rl_ints_arg(n, 1, "", true, &shape);
    if (cnt < 0 || !x || x->rank < 0) {
        int rank = -1;
        int64_t len = rl_in_runtime_len(n, 1);
        if (x && x->rank >= 0 && len >= 0 && len <= RL_MAX_RANK_HARD) rank = x->rank > len ? x->rank : (int)len;
        if (rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), rank);
        /* broadcasting keeps every input dim other than 1 */
        int64_t dims[RL_MAX_RANK_HARD];
        for (int k = 0; k < rank; k++) {
            int j = k - (rank - x->rank);
            dims[k] = j >= 0 && x->dims[j] > 1 ? x->dims[j] : -1;
        }
        return rl_set_out_status(c, n, 0, x->dtype, rank, dims) == RL_FAIL ? RL_FAIL : RL_UNKNOWN;
    }
    if (cnt > RL_MAX_RANK_HARD) return rl_bad(c, n, "shape has %lld entries", (long long)cnt);
    for (int64_t i = 0; i < cnt; i++)
        if (shape[i] < 0) return rl_bad(c, n, "shape has the negative entry %lld", (long long)shape[i]);
    int64_t dims[RL_MAX_RANK_HARD];
    int r = rl_broadcast(c, n, x->rank, x->dims, (int)cnt, shape, dims);
    if (r < 0) return RL_FAIL;
    int res = rl_set_out_status(c, n, 0, x->dtype, r, dims);
    rl_fold_map m = {.src = x, .out_rank = r};
    if (res == RL_OK) rl_fold_moved(c, n, 0, dims, &m, broadcast_from);
    return res;
}

static void tiled_from(const rl_fold_map *m, const int64_t *oc, int64_t *ic) {
    for (int k = 0; k < m->out_rank; k++) ic[k] = oc[k] % m->src->dims[k];
}

static int shape_tile(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *rep = NULL;
    int64_t cnt = rl_ints_arg(n, 1, "", true, &rep);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    if (cnt < 0) return rl_set_out_unknown(c, n, 0, x->dtype, x->rank);
    if (cnt != x->rank) return rl_bad(c, n, "repeats has %lld entries for rank %d", (long long)cnt, x->rank);
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0; k < x->rank; k++) {
        if (rep[k] < 0) return rl_bad(c, n, "negative repeat %lld", (long long)rep[k]);
        if (x->dims[k] < 0) dims[k] = -1;
        else if (!rl_mul_ok(x->dims[k], rep[k], &dims[k])) return rl_bad(c, n, "tiled size overflows");
    }
    int res = rl_set_out_status(c, n, 0, x->dtype, x->rank, dims);
    rl_fold_map m = {.src = x, .out_rank = x->rank};
    if (res == RL_OK) rl_fold_moved(c, n, 0, dims, &m, tiled_from);
    return res;
}

/* ---------------------------------------------------------------- Pad -- */

static int shape_pad(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *pads = NULL, *axes = NULL;
    int64_t np = rl_ints_arg(n, 1, n->opset >= 11 ? "" : (n->opset >= 2 ? "pads" : "paddings"), n->opset >= 11, &pads);
    int64_t na = n->opset >= 18 ? rl_ints_arg(n, 3, "", true, &axes) : -2;
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    int r = x->rank;
    if (np == -2) return rl_bad(c, n, "Pad needs pads");
    if (np == -1 || na == -1) return rl_set_out_unknown(c, n, 0, x->dtype, r);
    int64_t nax = na >= 0 ? na : r;
    if (np != 2 * nax) return rl_bad(c, n, "pads has %lld entries for %lld axes", (long long)np, (long long)nax);
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)r * sizeof *dims);
    int ax[RL_MAX_RANK_HARD];
    if (rl_resolve_axes(c, n, axes, na, nax, r, ax) < 0) return RL_FAIL;
    for (int64_t i = 0; i < nax; i++) {
        int a = ax[i];
        if (dims[a] < 0) continue;
        int64_t d = dims[a];
        if (!rl_add_ok(d, pads[i], &d) || !rl_add_ok(d, pads[i + nax], &d))
            return rl_bad(c, n, "padded size overflows");
        if (d < 0) return rl_bad(c, n, "padding makes axis %d negative", a);
        dims[a] = d;
    }
    return rl_set_out_status(c, n, 0, x->dtype, r, dims);
}

/* Negative pads crop: the kernel reads only the part of the input that
 * stays, d + min(0, begin) + min(0, end) along each axis. Positive pads read
 * the whole input (edge and reflect modes read inside it too). */
static void cost_pad(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    const rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return;
    const int64_t *pads = NULL, *axes = NULL;
    int64_t np = known_ints(n, 1, n->opset >= 11 ? "" : (n->opset >= 2 ? "pads" : "paddings"), n->opset >= 11, &pads);
    int64_t na = n->opset >= 18 ? known_ints(n, 3, "", true, &axes) : -2;
    if (np < 0 || na == -1) return;
    int64_t nax = na >= 0 ? na : x->rank;
    if (np != 2 * nax) return;
    double kept = 1;
    int64_t keep[RL_MAX_RANK_HARD];
    memcpy(keep, x->dims, (size_t)x->rank * sizeof *keep);
    for (int64_t i = 0; i < nax; i++) {
        int64_t a = na >= 0 ? axes[i] : i;
        if (a < 0) a += x->rank;
        if (a < 0 || a >= x->rank) return;
        keep[a] += (pads[i] < 0 ? pads[i] : 0) + (pads[i + nax] < 0 ? pads[i + nax] : 0);
    }
    for (int a = 0; a < x->rank; a++) kept *= (double)(keep[a] > 0 ? keep[a] : 0);
    rl_cost_read_part(c, k, x, kept);
}

/* ----------------------------------------- DepthToSpace, SpaceToDepth -- */

static int shape_depth_space(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), 4);
    if (x->rank != 4) return rl_bad(c, n, "needs a rank-4 input, got rank %d", x->rank);
    int64_t b = rl_attr_i(c, n, "blocksize", 0);
    if (b <= 0 || b > (INT64_C(1) << 20)) return rl_bad(c, n, "blocksize %lld", (long long)b);
    int64_t b2 = b * b, dims[4];
    const int64_t *d = x->dims;
    bool to_space = strcmp(n->op_type, "DepthToSpace") == 0;
    dims[0] = d[0];
    if (to_space) {
        if (d[1] >= 0 && d[1] % b2) return rl_bad(c, n, "%lld channels do not divide by blocksize² %lld", (long long)d[1], (long long)b2);
        dims[1] = d[1] < 0 ? -1 : d[1] / b2;
        for (int k = 2; k < 4; k++)
            if (d[k] < 0) dims[k] = -1;
            else if (!rl_mul_ok(d[k], b, &dims[k])) return rl_bad(c, n, "size overflows");
    } else {
        for (int k = 2; k < 4; k++) {
            if (d[k] >= 0 && d[k] % b) return rl_bad(c, n, "axis %d of %lld does not divide by blocksize", k, (long long)d[k]);
            dims[k] = d[k] < 0 ? -1 : d[k] / b;
        }
        if (d[1] < 0) dims[1] = -1;
        else if (!rl_mul_ok(d[1], b2, &dims[1])) return rl_bad(c, n, "size overflows");
    }
    return rl_set_out_status(c, n, 0, x->dtype, 4, dims);
}

/* ------------------------------------------------------ CenterCropPad -- */

static int shape_center_crop_pad(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *shp = rl_in(n, 1);
    if (!x || !shp) return rl_bad(c, n, "needs input and shape");
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, x->dtype, -1);
    const int64_t *axes = NULL;
    int64_t na = rl_ints_arg(n, -1, "axes", false, &axes);
    int ax[RL_MAX_RANK_HARD], cnt = rl_resolve_axes(c, n, axes, na, x->rank, x->rank, ax);
    if (cnt < 0) return RL_FAIL;
    if (shp->rank == 1 && shp->dims[0] >= 0 && shp->dims[0] != cnt)
        return rl_bad(c, n, "shape has %lld entries for %d axes", (long long)shp->dims[0], cnt);
    bool known = rl_contents_known(shp);
    if (!known) rl_needs_runtime(n, 1);
    if (known && shp->n_known != cnt) return rl_bad(c, n, "shape has %lld entries for %d axes", (long long)shp->n_known, cnt);
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    for (int i = 0; i < cnt; i++) {
        int a = ax[i];
        if (known && shp->ival[i] < 0) return rl_bad(c, n, "negative size %lld", (long long)shp->ival[i]);
        dims[a] = known ? shp->ival[i] : -1;
    }
    return rl_set_out_status(c, n, 0, x->dtype, x->rank, dims);
}

/* Cropping reads only the centre it keeps: min(input, output) along each axis. */
static void cost_center_crop_pad(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    const rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (!x || !o || x->rank != o->rank) return;
    double kept = 1;
    for (int a = 0; a < x->rank; a++) kept *= (double)(x->dims[a] < o->dims[a] ? x->dims[a] : o->dims[a]);
    rl_cost_read_part(c, k, x, kept);
}

/* ---------------------------------------------------------- the table -- */

#define COPY_DOC "0 FLOPs; reads its inputs and writes its outputs"

static const rl_op_def ops[] = {
    {.name = "Transpose", .domain = "", .since = 1, .shape = shape_transpose, .cost_doc = COPY_DOC},
    {.name = "Concat", .domain = "", .since = 1, .shape = shape_concat, .cost_doc = COPY_DOC},
    {.name = "Split", .domain = "", .since = 1, .shape = shape_split, .cost_doc = COPY_DOC},
    {.name = "Slice", .domain = "", .since = 1, .shape = shape_slice, .cost = cost_slice,
     .cost_doc = "0 FLOPs; reads only the kept elements (output size) when the step along the last axis is ±1, "
                "else the whole input; writes its output"},
    {.name = "Expand", .domain = "", .since = 8, .shape = shape_expand, .flags = RL_OP_BROADCAST, .cost_doc = COPY_DOC},
    {.name = "Tile", .domain = "", .since = 1, .shape = shape_tile, .cost_doc = COPY_DOC},
    {.name = "Pad", .domain = "", .since = 1, .shape = shape_pad, .cost = cost_pad,
     .cost_doc = "0 FLOPs; reads the part of the input that stays (negative pads crop), writes its output"},
    {.name = "Trilu", .domain = "", .since = 14, .shape = rl_shape_like_input, .cost_doc = COPY_DOC},
    {.name = "DepthToSpace", .domain = "", .since = 1, .shape = shape_depth_space, .cost_doc = COPY_DOC},
    {.name = "SpaceToDepth", .domain = "", .since = 1, .shape = shape_depth_space, .cost_doc = COPY_DOC},
    {.name = "ReverseSequence", .domain = "", .since = 10, .shape = rl_shape_like_input,
     .cost_doc = COPY_DOC},
    {.name = "CenterCropPad", .domain = "", .since = 18,
     .shape = shape_center_crop_pad, .cost = cost_center_crop_pad,
     .cost_doc = "0 FLOPs; reads the centre it keeps (min of input and output along each axis), writes its output"},
};
RL_FAMILY(layout, ops);
