/* Op family: movement (data movement, shape arithmetic, sequences and
 * optionals). These ops compute nothing: 0 FLOPs, the traffic of reading
 * their inputs and writing their outputs. Reshape, Flatten, Squeeze,
 * Unsqueeze and Identity are views (a metadata change, no bytes); Constant,
 * Shape and Size produce a few bytes at graph build time and are views too.
 * Shape arithmetic is folded (known contents flow to the outputs) because
 * torch exports compute Reshape targets through Shape→Gather→Concat chains. */
#include <math.h>
#include <string.h>

#include "../graph.h"
#include "../tensor.h"
#include "families.h"

/* ------------------------------------------------------------ helpers -- */

/* Output i with a known rank but unknown dims (or unknown rank when rank < 0). */
static int unknown_out(rl_ctx *c, rl_node *n, int i, int dtype, int rank) {
    int64_t dims[RL_MAX_RANK_HARD];
    if (rank > RL_MAX_RANK_HARD) rank = -1;
    for (int k = 0; k < rank; k++) dims[k] = -1;
    return rl_set_out(c, n, i, dtype, rank, dims) == RL_OK ? RL_UNKNOWN : RL_FAIL;
}

static int dtype_of(const rl_value *v) { return v ? v->dtype : 0; }

/* Contents known for every element. */
static bool contents_known(const rl_value *v) {
    if (!v || v->n_known < 0 || !v->ival || !v->fval) return false;
    int64_t numel = rl_numel(v);
    return numel >= 0 && numel == v->n_known;
}

/* Result of an rl_set_out: RL_OK, or RL_UNKNOWN when some dim is -1. */
static int set_out_checked(rl_ctx *c, rl_node *n, int i, int dtype, int rank, const int64_t *dims) {
    if (rl_set_out(c, n, i, dtype, rank, dims) != RL_OK) return RL_FAIL;
    if (rank < 0) return RL_UNKNOWN;
    for (int k = 0; k < rank; k++)
        if (dims[k] < 0) return RL_UNKNOWN;
    return RL_OK;
}

static int64_t prod_dims(int rank, const int64_t *dims) {
    int64_t p = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 0) return -1;
        if (!rl_mul_ok(p, dims[k], &p)) return -1;
    }
    return p;
}

static void unravel(int64_t flat, int rank, const int64_t *dims, int64_t *coord) {
    for (int k = rank - 1; k >= 0; k--) {
        int64_t d = dims[k] > 0 ? dims[k] : 1;
        coord[k] = flat % d;
        flat /= d;
    }
}

static int64_t ravel(int rank, const int64_t *dims, const int64_t *coord) {
    int64_t idx = 0;
    for (int k = 0; k < rank; k++) idx = idx * dims[k] + coord[k];
    return idx;
}

/* Copy src's contents to output i following idx (source flat index per output
 * element); nothing when the source or the count is not small and known. */
static void fold_indexed(rl_ctx *c, rl_node *n, int out_i, const rl_value *src, int64_t count,
                         const int64_t *idx) {
    if (!contents_known(src) || count < 0 || count > RL_FOLD_MAX_ELEMS) return;
    int64_t *iv = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *iv);
    double *fv = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *fv);
    if (!iv || !fv) return;
    for (int64_t e = 0; e < count; e++) {
        if (idx[e] < 0 || idx[e] >= src->n_known) return;
        iv[e] = src->ival[idx[e]];
        fv[e] = src->fval[idx[e]];
    }
    rl_set_out_contents(c, n, out_i, count, iv, fv);
}

/* Same contents, same order (views). */
static void fold_same(rl_ctx *c, rl_node *n, int out_i, const rl_value *src) {
    if (!contents_known(src)) return;
    rl_value *o = rl_out(n, out_i);
    if (o && rl_numel(o) == src->n_known) rl_set_out_contents(c, n, out_i, src->n_known, src->ival, src->fval);
}

/* Output 0 of a reshaping view of x (Reshape, Flatten, Squeeze, Unsqueeze):
 * the given shape, and x's folded contents in the same order. */
static int set_view_out(rl_ctx *c, rl_node *n, const rl_value *x, int dtype, int rank, const int64_t *dims) {
    int r = set_out_checked(c, n, 0, dtype, rank, dims);
    if (r == RL_OK) fold_same(c, n, 0, x);
    return r;
}

/* Folding scratch: an index array for every output element, when small. */
static int64_t *fold_scratch(rl_ctx *c, const rl_node *n, int out_i, const rl_value *src, int64_t *count) {
    const rl_value *o = rl_out(n, out_i);
    *count = rl_numel(o);
    if (!contents_known(src) || *count < 0 || *count > RL_FOLD_MAX_ELEMS) return NULL;
    return rl_arena_alloc(c->arena, (size_t)(*count + 1) * sizeof(int64_t));
}

/* Where an output element of a pure data movement comes from: the geometry
 * its coordinate map reads (each op uses the fields it needs). */
typedef struct fold_map {
    const rl_value *src;
    int out_rank;
    const int64_t *perm;          /* Transpose: output axis k is source axis perm[k] */
    const int64_t *first, *step;  /* Slice: per axis */
    int axis;                     /* Split: the axis, and this output's offset on it */
    int64_t offset;
} fold_map;

typedef void (*fold_coord_fn)(const fold_map *m, const int64_t *out_coord, int64_t *src_coord);

/* Folds output out_i (shape out_dims) of a data movement: each element copies
 * the source element whose coordinates `to_src` gives. Nothing when the
 * source's contents are unknown or the output is not small. */
static void fold_moved(rl_ctx *c, rl_node *n, int out_i, const int64_t *out_dims, const fold_map *m,
                       fold_coord_fn to_src) {
    int64_t count;
    int64_t *idx = fold_scratch(c, n, out_i, m->src, &count);
    if (!idx) return;
    int64_t oc[RL_MAX_RANK_HARD], ic[RL_MAX_RANK_HARD];
    for (int64_t e = 0; e < count; e++) {
        unravel(e, m->out_rank, out_dims, oc);
        to_src(m, oc, ic);
        idx[e] = ravel(m->src->rank, m->src->dims, ic);
    }
    fold_indexed(c, n, out_i, m->src, count, idx);
}

/* An integer list from input `input` (opset >= from) or attribute `attr`
 * (older opsets). Returns the count; -1 when given but unknown, -2 when absent. */
static int64_t ints_arg(rl_node *n, int input, const char *attr, bool from_input,
                        const int64_t **vals) {
    if (from_input) {
        rl_value *v = rl_in(n, input);
        if (!v) return -2;
        if (!contents_known(v)) {
            rl_needs_runtime(n, input);
            return -1;
        }
        *vals = v->ival;
        return v->n_known;
    }
    int cnt = rl_attr_ints(n, attr, vals);
    return cnt < 0 ? -2 : cnt;
}

/* How many entries the runtime-valued 1-D input holds (its known length),
 * -1 when not known. A shape, axes or sizes input whose values wait for run
 * time still fixes the rank of the result through its length. */
static int64_t runtime_len(const rl_node *n, int input) {
    const rl_value *v = rl_in(n, input);
    return v && v->rank == 1 && v->dims[0] >= 0 ? v->dims[0] : -1;
}

/* The axes an op acts on, made non-negative in ax[]: `axes` (cnt entries,
 * from an attribute or a constant input, see ints_arg) or, when the op names
 * none (cnt < 0), the first `count` axes in order. An axis outside
 * [-rank, rank) or a repeated one is an error: ONNX forbids repeats or leaves
 * them undefined, so no shape would be right. Returns the number of axes, or
 * -1 after rl_bad. */
static int resolve_axes(rl_ctx *c, const rl_node *n, const int64_t *axes, int64_t cnt, int64_t count, int rank,
                        int *ax) {
    int64_t k = cnt >= 0 ? cnt : count;
    if (k > rank) {
        rl_bad(c, n, "%lld axes named for an input of rank %d", (long long)k, rank);
        return -1;
    }
    bool seen[RL_MAX_RANK_HARD] = {false};
    for (int64_t i = 0; i < k; i++) {
        ax[i] = cnt >= 0 ? rl_axis(c, n, axes[i], rank) : (int)i;
        if (ax[i] < 0) return -1;
        if (seen[ax[i]]) {
            if (axes[i] < 0)
                rl_bad(c, n, "axes name axis %d twice (%lld counts from the end of rank %d)", ax[i],
                       (long long)axes[i], rank);
            else
                rl_bad(c, n, "axes name axis %d twice", ax[i]);
            return -1;
        }
        seen[ax[i]] = true;
    }
    return (int)k;
}

/* Output 0 like x where runtime values decide the size along the named axes:
 * those unknown, the others kept; every dim unknown when the axes themselves
 * are not known (cnt < 0). `shrinks`: the op cannot grow a dim (Slice), so x's
 * dims bound the result. */
static int unknown_along_axes(rl_ctx *c, rl_node *n, const rl_value *x, const int64_t *axes, int64_t cnt,
                              bool shrinks) {
    int r = x->rank, ax[RL_MAX_RANK_HARD];
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0; k < r; k++) dims[k] = cnt >= 0 ? x->dims[k] : -1;
    int na = cnt >= 0 ? resolve_axes(c, n, axes, cnt, 0, r, ax) : 0;
    if (na < 0) return RL_FAIL;
    for (int i = 0; i < na; i++) dims[ax[i]] = -1;
    if (set_out_checked(c, n, 0, x->dtype, r, dims) == RL_FAIL) return RL_FAIL;
    if (shrinks) rl_set_out_bounds(c, n, 0, x->dims, false);
    return RL_UNKNOWN;
}

/* Scalar from an input's known contents. */
static bool scalar_in(rl_node *n, int i, double *out) {
    rl_value *v = rl_in(n, i);
    if (!contents_known(v) || v->n_known < 1) {
        if (v) rl_needs_runtime(n, i);
        return false;
    }
    *out = v->fval[0];
    return true;
}

/* ----------------------------------------------------------- Constant -- */

static int shape_constant(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *o = rl_out(n, 0);
    if (!o) return RL_OK;
    const Onnx__AttributeProto *a;
    int rc = RL_OK;
    if ((a = rl_attr(n, "value")) && a->t) {
        if (rl_value_from_tensor(c, o, a->t, n->name)) return RL_FAIL;
    } else if ((a = rl_attr(n, "sparse_value")) && a->sparse_tensor) {
        const Onnx__SparseTensorProto *sp = a->sparse_tensor;
        int64_t dims[RL_MAX_RANK_HARD];
        if (sp->n_dims > RL_MAX_RANK_HARD) return rl_bad(c, n, "sparse constant has too many dimensions");
        for (size_t k = 0; k < sp->n_dims; k++) dims[k] = sp->dims[k];
        int dt = sp->values && sp->values->has_data_type ? sp->values->data_type : 0;
        rc = set_out_checked(c, n, 0, dt, (int)sp->n_dims, dims);
    } else if ((a = rl_attr(n, "value_float"))) {
        if (rl_set_out(c, n, 0, RL_DT_FLOAT, 0, NULL) != RL_OK) return RL_FAIL;
        double f = a->f;
        rl_set_out_contents(c, n, 0, 1, NULL, &f);
    } else if ((a = rl_attr(n, "value_floats"))) {
        int64_t cnt = (int64_t)a->n_floats;
        if (rl_set_out(c, n, 0, RL_DT_FLOAT, 1, &cnt) != RL_OK) return RL_FAIL;
        double *fv = rl_arena_alloc(c->arena, (size_t)(cnt + 1) * sizeof *fv);
        if (fv && cnt <= RL_FOLD_MAX_ELEMS) {
            for (int64_t k = 0; k < cnt; k++) fv[k] = a->floats[k];
            rl_set_out_contents(c, n, 0, cnt, NULL, fv);
        }
    } else if ((a = rl_attr(n, "value_int"))) {
        if (rl_set_out(c, n, 0, RL_DT_INT64, 0, NULL) != RL_OK) return RL_FAIL;
        int64_t i = a->i;
        rl_set_out_contents(c, n, 0, 1, &i, NULL);
    } else if ((a = rl_attr(n, "value_ints"))) {
        int64_t cnt = (int64_t)a->n_ints;
        if (rl_set_out(c, n, 0, RL_DT_INT64, 1, &cnt) != RL_OK) return RL_FAIL;
        rl_set_out_contents(c, n, 0, cnt, a->ints, NULL);
    } else if ((a = rl_attr(n, "value_string"))) {
        if (rl_set_out(c, n, 0, RL_DT_STRING, 0, NULL) != RL_OK) return RL_FAIL;
    } else if ((a = rl_attr(n, "value_strings"))) {
        int64_t cnt = (int64_t)a->n_strings;
        if (rl_set_out(c, n, 0, RL_DT_STRING, 1, &cnt) != RL_OK) return RL_FAIL;
    } else {
        return rl_bad(c, n, "a Constant needs one of the value attributes");
    }
    o->kind = RL_VALUE_CONSTANT;
    return rc;
}

/* -------------------------------------------------------- Shape, Size -- */

static int shape_shape(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, RL_DT_INT64, 1);
    int r = x->rank;
    int64_t start = rl_attr_i(c, n, "start", 0), end = rl_attr_i(c, n, "end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    if (start < 0) start = 0;
    if (start > r) start = r;
    if (end < 0) end = 0;
    if (end > r) end = r;
    int64_t len = end > start ? end - start : 0;
    if (rl_set_out(c, n, 0, RL_DT_INT64, 1, &len) != RL_OK) return RL_FAIL;
    bool all = true;
    for (int64_t k = start; k < end; k++)
        if (x->dims[k] < 0) all = false;
    if (all) rl_set_out_contents(c, n, 0, len, x->dims + start, NULL);
    return RL_OK;
}

static int shape_size(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    if (rl_set_out(c, n, 0, RL_DT_INT64, 0, NULL) != RL_OK) return RL_FAIL;
    int64_t numel = rl_numel(rl_in(n, 0));
    if (numel >= 0) rl_set_out_contents(c, n, 0, 1, &numel, NULL);
    return RL_OK;
}

/* ------------------------------------------------------------ Reshape -- */

static int shape_reshape(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *target = NULL;
    int64_t cnt = ints_arg(n, 1, "shape", n->opset >= 5, &target);
    if (cnt == -2) return rl_bad(c, n, "Reshape needs a target shape");
    int dt = dtype_of(x);
    if (cnt < 0) {
        /* the target's length still gives the rank */
        int64_t len = runtime_len(n, 1);
        int rank = len <= RL_MAX_RANK_HARD ? (int)len : -1;
        /* a 1-D target holds every element, whatever its value */
        int64_t numel = rl_numel(x);
        if (rank == 1 && numel >= 0) return set_out_checked(c, n, 0, dt, 1, &numel);
        return unknown_out(c, n, 0, dt, rank);
    }
    if (cnt > RL_MAX_RANK_HARD) return rl_bad(c, n, "target shape has %lld dims", (long long)cnt);
    bool allowzero = rl_attr_i(c, n, "allowzero", 0) != 0;
    int64_t dims[RL_MAX_RANK_HARD];
    int infer_at = -1;
    for (int k = 0; k < cnt; k++) {
        int64_t d = target[k];
        if (d == 0 && !allowzero) {
            if (!x || x->rank < 0) d = -1;
            else if (k >= x->rank) return rl_bad(c, n, "shape entry %d is 0 but the input has rank %d", k, x->rank);
            else d = x->dims[k];
            dims[k] = d;
            continue;
        }
        if (d == -1) {
            if (infer_at >= 0) return rl_bad(c, n, "target shape has more than one -1");
            infer_at = k;
        } else if (d < -1) {
            return rl_bad(c, n, "target shape has the negative entry %lld", (long long)d);
        }
        dims[k] = d;
    }
    if (infer_at >= 0) {
        int64_t total = rl_numel(x), rest = 1;
        bool rest_known = true;
        for (int k = 0; k < cnt; k++) {
            if (k == infer_at) continue;
            if (dims[k] < 0) rest_known = false;
            else if (!rl_mul_ok(rest, dims[k], &rest)) return rl_bad(c, n, "target shape overflows");
        }
        if (total >= 0 && rest_known) {
            if (rest == 0 || total % rest) return rl_bad(c, n, "cannot reshape %lld elements into the target shape", (long long)total);
            dims[infer_at] = total / rest;
        } else {
            dims[infer_at] = -1;
        }
    }
    int64_t total = rl_numel(x), out_total = prod_dims((int)cnt, dims);
    if (total >= 0 && out_total >= 0 && total != out_total)
        return rl_bad(c, n, "cannot reshape %lld elements into %lld", (long long)total, (long long)out_total);
    return set_view_out(c, n, x, dt, (int)cnt, dims);
}

/* ------------------------------------------------------------ Flatten -- */

static int shape_flatten(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), 2);
    int64_t axis = rl_attr_i(c, n, "axis", 1);
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis > x->rank) return rl_bad(c, n, "axis %lld is out of range for rank %d", (long long)axis, x->rank);
    int64_t dims[2] = {prod_dims((int)axis, x->dims), prod_dims(x->rank - (int)axis, x->dims + axis)};
    return set_view_out(c, n, x, x->dtype, 2, dims);
}

/* -------------------------------------------------- Squeeze/Unsqueeze -- */

static int shape_squeeze(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *axes = NULL;
    int64_t cnt = ints_arg(n, 1, "axes", n->opset >= 13, &axes);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), -1);
    if (cnt == -1) {
        int64_t len = runtime_len(n, 1);
        int rank = len >= 0 && len <= x->rank ? x->rank - (int)len : -1;
        /* k runtime axes and exactly k dims of size 1: those are the ones */
        int ones = 0;
        bool all_known = rl_shape_known(x);
        for (int k = 0; all_known && k < x->rank; k++) ones += x->dims[k] == 1;
        if (rank >= 0 && all_known && ones == x->rank - rank && ones > 0) {
            int64_t dims[RL_MAX_RANK_HARD];
            int r = 0;
            for (int k = 0; k < x->rank; k++)
                if (x->dims[k] != 1) dims[r++] = x->dims[k];
            return set_out_checked(c, n, 0, x->dtype, r, dims);
        }
        return unknown_out(c, n, 0, x->dtype, rank);
    }
    bool drop[RL_MAX_RANK_HARD] = {false};
    if (cnt == -2) {
        for (int k = 0; k < x->rank; k++) {
            if (x->dims[k] < 0) return unknown_out(c, n, 0, x->dtype, -1);
            drop[k] = x->dims[k] == 1;
        }
    } else {
        int ax[RL_MAX_RANK_HARD], na = resolve_axes(c, n, axes, cnt, 0, x->rank, ax);
        if (na < 0) return RL_FAIL;
        for (int i = 0; i < na; i++) {
            if (x->dims[ax[i]] > 1)
                return rl_bad(c, n, "cannot squeeze axis %d of size %lld", ax[i], (long long)x->dims[ax[i]]);
            drop[ax[i]] = true;
        }
    }
    int64_t dims[RL_MAX_RANK_HARD];
    int r = 0;
    for (int k = 0; k < x->rank; k++)
        if (!drop[k]) dims[r++] = x->dims[k];
    return set_view_out(c, n, x, x->dtype, r, dims);
}

static int shape_unsqueeze(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *axes = NULL;
    int64_t cnt = ints_arg(n, 1, "axes", n->opset >= 13, &axes);
    if (cnt == -2) return rl_bad(c, n, "Unsqueeze needs axes");
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), -1);
    if (cnt == -1) {
        int64_t len = runtime_len(n, 1);
        if (rl_in(n, 1) && rl_in(n, 1)->rank == 0) len = 1; /* a scalar axis */
        int rank = len >= 0 && len <= RL_MAX_RANK_HARD ? x->rank + (int)len : -1;
        if (rank > RL_MAX_RANK_HARD) rank = -1;
        /* inserting 1s among dims that are all 1 gives all 1s, wherever they go */
        bool all_one = rank >= 0;
        for (int k = 0; all_one && k < x->rank; k++) all_one = x->dims[k] == 1;
        if (all_one) {
            int64_t dims[RL_MAX_RANK_HARD];
            for (int k = 0; k < rank; k++) dims[k] = 1;
            return set_out_checked(c, n, 0, x->dtype, rank, dims);
        }
        return unknown_out(c, n, 0, x->dtype, rank);
    }
    int64_t out_rank = x->rank + cnt;
    if (out_rank > RL_MAX_RANK_HARD) return rl_bad(c, n, "result rank %lld is too large", (long long)out_rank);
    bool ins[RL_MAX_RANK_HARD] = {false};
    int ax[RL_MAX_RANK_HARD], na = resolve_axes(c, n, axes, cnt, 0, (int)out_rank, ax);
    if (na < 0) return RL_FAIL;
    for (int i = 0; i < na; i++) ins[ax[i]] = true;
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0, s = 0; k < out_rank; k++) dims[k] = ins[k] ? 1 : x->dims[s++];
    return set_view_out(c, n, x, x->dtype, (int)out_rank, dims);
}

/* ---------------------------------------------------------- Transpose -- */

static void transposed_from(const fold_map *m, const int64_t *oc, int64_t *ic) {
    for (int k = 0; k < m->out_rank; k++) ic[m->perm[k]] = oc[k];
}

static int shape_transpose(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), -1);
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
    int res = set_out_checked(c, n, 0, x->dtype, r, dims);
    fold_map m = {.src = x, .out_rank = r, .perm = perm};
    if (res == RL_OK) fold_moved(c, n, 0, dims, &m, transposed_from);
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
    if (rank < 0) return unknown_out(c, n, 0, first->dtype, -1);
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
    int res = set_out_checked(c, n, 0, first->dtype, rank, dims);
    if (res != RL_OK) return res;
    int64_t count = rl_numel(rl_out(n, 0));
    if (count < 0 || count > RL_FOLD_MAX_ELEMS) return res;
    for (int i = 0; i < n->n_in; i++)
        if (rl_in(n, i) && !contents_known(rl_in(n, i))) return res;
    int64_t *iv = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *iv);
    double *fv = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *fv);
    if (!iv || !fv) return res;
    int64_t oc[RL_MAX_RANK_HARD];
    for (int64_t e = 0; e < count; e++) {
        unravel(e, rank, dims, oc);
        int64_t pos = oc[axis];
        for (int i = 0; i < n->n_in; i++) {
            rl_value *v = rl_in(n, i);
            if (!v) continue;
            if (pos < v->dims[axis]) {
                oc[axis] = pos;
                int64_t s = ravel(rank, v->dims, oc);
                iv[e] = v->ival[s];
                fv[e] = v->fval[s];
                break;
            }
            pos -= v->dims[axis];
        }
    }
    rl_set_out_contents(c, n, 0, count, iv, fv);
    return res;
}

/* -------------------------------------------------------------- Split -- */

static void split_from(const fold_map *m, const int64_t *oc, int64_t *ic) {
    memcpy(ic, oc, (size_t)m->out_rank * sizeof *ic);
    ic[m->axis] += m->offset;
}

static int shape_split(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    int nout = n->n_out;
    if (!x || x->rank < 0) {
        for (int i = 0; i < nout; i++)
            if (unknown_out(c, n, i, dtype_of(x), -1) == RL_FAIL) return RL_FAIL;
        return RL_UNKNOWN;
    }
    if (x->rank == 0) return rl_bad(c, n, "the input is a scalar: Split needs a tensor of rank 1 or more");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 0), x->rank);
    if (axis < 0) return RL_FAIL;
    const int64_t *split = NULL;
    int64_t cnt = ints_arg(n, 1, "split", n->opset >= 13, &split);
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
        int64_t len = cnt == -1 ? runtime_len(n, 1) : -1;
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
        int r = set_out_checked(c, n, i, x->dtype, x->rank, dims);
        if (r == RL_FAIL) return r;
        if (r == RL_UNKNOWN) {
            res = RL_UNKNOWN;
            rl_set_out_bounds(c, n, i, x->dims, false);
        }
        fold_map m = {.src = x, .out_rank = x->rank, .axis = axis, .offset = offset};
        if (r == RL_OK) fold_moved(c, n, i, dims, &m, split_from);
        if (sizes[i] >= 0) offset += sizes[i];
    }
    return res;
}

/* -------------------------------------------------------------- Slice -- */

static void sliced_from(const fold_map *m, const int64_t *oc, int64_t *ic) {
    for (int k = 0; k < m->out_rank; k++) ic[k] = m->first[k] + oc[k] * m->step[k];
}

static int shape_slice(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    bool inputs = n->opset >= 10;
    const int64_t *starts = NULL, *ends = NULL, *axes = NULL, *steps = NULL;
    int64_t ns = ints_arg(n, 1, "starts", inputs, &starts);
    int64_t ne = ints_arg(n, 2, "ends", inputs, &ends);
    int64_t na = ints_arg(n, 3, "axes", inputs, &axes);
    int64_t nst = inputs ? ints_arg(n, 4, "steps", true, &steps) : -2;
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), -1);
    int r = x->rank;
    if (ns == -2 || ne == -2) return rl_bad(c, n, "Slice needs starts and ends");
    /* runtime bounds: the sliced axes are unknown, no longer than the input's */
    if (ns == -1 || ne == -1 || na == -1 || nst == -1) return unknown_along_axes(c, n, x, axes, na, true);
    if (ns != ne || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
        return rl_bad(c, n, "starts, ends, axes and steps differ in length");
    int64_t dims[RL_MAX_RANK_HARD], first[RL_MAX_RANK_HARD], step[RL_MAX_RANK_HARD];
    for (int k = 0; k < r; k++) {
        dims[k] = x->dims[k];
        first[k] = 0;
        step[k] = 1;
    }
    int ax[RL_MAX_RANK_HARD];
    if (resolve_axes(c, n, axes, na, ns, r, ax) < 0) return RL_FAIL;
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
    int res = set_out_checked(c, n, 0, x->dtype, r, dims);
    fold_map m = {.src = x, .out_rank = r, .first = first, .step = step};
    if (res == RL_OK) fold_moved(c, n, 0, dims, &m, sliced_from);
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

/* ------------------------------------------------------------- Gather -- */

static int shape_gather(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *ind = rl_in(n, 1);
    if (!x || !ind || x->rank < 0 || ind->rank < 0) return unknown_out(c, n, 0, dtype_of(x), -1);
    if (x->rank == 0) return rl_bad(c, n, "cannot gather from a scalar");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 0), x->rank);
    if (axis < 0) return RL_FAIL;
    int rank = x->rank - 1 + ind->rank;
    if (rank > RL_MAX_RANK_HARD) return rl_bad(c, n, "result rank %d is too large", rank);
    int64_t dims[RL_MAX_RANK_HARD];
    int k = 0;
    for (int i = 0; i < axis; i++) dims[k++] = x->dims[i];
    for (int i = 0; i < ind->rank; i++) dims[k++] = ind->dims[i];
    for (int i = axis + 1; i < x->rank; i++) dims[k++] = x->dims[i];
    int res = set_out_checked(c, n, 0, x->dtype, rank, dims);
    int64_t count;
    int64_t *idx = res == RL_OK && contents_known(ind) ? fold_scratch(c, n, 0, x, &count) : NULL;
    if (idx) {
        int64_t oc[RL_MAX_RANK_HARD], ic[RL_MAX_RANK_HARD], jc[RL_MAX_RANK_HARD];
        int64_t d = x->dims[axis];
        for (int64_t e = 0; e < count; e++) {
            unravel(e, rank, dims, oc);
            for (int i = 0; i < ind->rank; i++) jc[i] = oc[axis + i];
            int64_t j = ind->ival[ravel(ind->rank, ind->dims, jc)];
            if (j < 0) j += d;
            if (j < 0 || j >= d) return res; /* out of range: no folding */
            for (int i = 0; i < axis; i++) ic[i] = oc[i];
            ic[axis] = j;
            for (int i = axis + 1; i < x->rank; i++) ic[i] = oc[i - 1 + ind->rank];
            idx[e] = ravel(x->rank, x->dims, ic);
        }
        fold_indexed(c, n, 0, x, count, idx);
    }
    return res;
}

/* Gathers read only the rows they pick, not the whole (often huge) table:
 * replace the data input's bytes by the output's size in its element type. */
static void cost_gather(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    const rl_value *o = rl_out(n, 0);
    if (o) rl_cost_read_part(c, k, rl_in(n, 0), rl_numel_d(o));
}

static int shape_gather_elements(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *ind = rl_in(n, 1);
    if (!ind || ind->rank < 0) return unknown_out(c, n, 0, dtype_of(x), x ? x->rank : -1);
    if (x && x->rank >= 0 && x->rank != ind->rank) return rl_bad(c, n, "data rank %d and indices rank %d differ", x->rank, ind->rank);
    return set_out_checked(c, n, 0, dtype_of(x), ind->rank, ind->dims);
}

static int shape_gather_nd(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *ind = rl_in(n, 1);
    if (!x || !ind || x->rank < 0 || ind->rank < 1) return unknown_out(c, n, 0, dtype_of(x), -1);
    int64_t b = rl_attr_i(c, n, "batch_dims", 0);
    int64_t last = ind->dims[ind->rank - 1];
    if (b < 0 || b >= ind->rank || b > x->rank) return rl_bad(c, n, "batch_dims %lld out of range", (long long)b);
    if (last < 0) return unknown_out(c, n, 0, x->dtype, -1);
    if (b + last > x->rank) return rl_bad(c, n, "indices address %lld dims of a rank-%d input", (long long)(b + last), x->rank);
    int64_t dims[RL_MAX_RANK_HARD];
    int r = 0;
    for (int i = 0; i < ind->rank - 1; i++) dims[r++] = ind->dims[i];
    for (int64_t i = b + last; i < x->rank; i++) {
        if (r >= RL_MAX_RANK_HARD) return rl_bad(c, n, "result rank too large");
        dims[r++] = x->dims[i];
    }
    return set_out_checked(c, n, 0, x->dtype, r, dims);
}

/* ------------------------------------------------------------ Scatter -- */

static int shape_like_data(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

/* A reduction (add, mul, max, min) does one FLOP per update element. */
static void cost_scatter(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const char *red = rl_attr_s(n, "reduction", "none");
    if (strcmp(red, "none") != 0) k->vector_flops = rl_numel_d(rl_in(n, 2));
}

/* ------------------------------------------------------- Expand, Tile -- */

/* numpy broadcast: source dims of 1 repeat, the source aligns to the right */
static void broadcast_from(const fold_map *m, const int64_t *oc, int64_t *ic) {
    const rl_value *x = m->src;
    for (int k = 0; k < x->rank; k++) ic[k] = x->dims[k] == 1 ? 0 : oc[k + m->out_rank - x->rank];
}

static int shape_expand(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *shape = NULL;
    int64_t cnt = ints_arg(n, 1, "", true, &shape);
    if (cnt < 0 || !x || x->rank < 0) {
        int rank = -1;
        int64_t len = runtime_len(n, 1);
        if (x && x->rank >= 0 && len >= 0 && len <= RL_MAX_RANK_HARD) rank = x->rank > len ? x->rank : (int)len;
        if (rank < 0) return unknown_out(c, n, 0, dtype_of(x), rank);
        /* broadcasting keeps every input dim other than 1 */
        int64_t dims[RL_MAX_RANK_HARD];
        for (int k = 0; k < rank; k++) {
            int j = k - (rank - x->rank);
            dims[k] = j >= 0 && x->dims[j] > 1 ? x->dims[j] : -1;
        }
        return set_out_checked(c, n, 0, x->dtype, rank, dims) == RL_FAIL ? RL_FAIL : RL_UNKNOWN;
    }
    if (cnt > RL_MAX_RANK_HARD) return rl_bad(c, n, "shape has %lld entries", (long long)cnt);
    for (int64_t i = 0; i < cnt; i++)
        if (shape[i] < 0) return rl_bad(c, n, "shape has the negative entry %lld", (long long)shape[i]);
    int64_t dims[RL_MAX_RANK_HARD];
    int r = rl_broadcast(c, n, x->rank, x->dims, (int)cnt, shape, dims);
    if (r < 0) return RL_FAIL;
    int res = set_out_checked(c, n, 0, x->dtype, r, dims);
    fold_map m = {.src = x, .out_rank = r};
    if (res == RL_OK) fold_moved(c, n, 0, dims, &m, broadcast_from);
    return res;
}

static void tiled_from(const fold_map *m, const int64_t *oc, int64_t *ic) {
    for (int k = 0; k < m->out_rank; k++) ic[k] = oc[k] % m->src->dims[k];
}

static int shape_tile(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *rep = NULL;
    int64_t cnt = ints_arg(n, 1, "", true, &rep);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), -1);
    if (cnt < 0) return unknown_out(c, n, 0, x->dtype, x->rank);
    if (cnt != x->rank) return rl_bad(c, n, "repeats has %lld entries for rank %d", (long long)cnt, x->rank);
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0; k < x->rank; k++) {
        if (rep[k] < 0) return rl_bad(c, n, "negative repeat %lld", (long long)rep[k]);
        if (x->dims[k] < 0) dims[k] = -1;
        else if (!rl_mul_ok(x->dims[k], rep[k], &dims[k])) return rl_bad(c, n, "tiled size overflows");
    }
    int res = set_out_checked(c, n, 0, x->dtype, x->rank, dims);
    fold_map m = {.src = x, .out_rank = x->rank};
    if (res == RL_OK) fold_moved(c, n, 0, dims, &m, tiled_from);
    return res;
}

/* ---------------------------------------------------------------- Pad -- */

static int shape_pad(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const int64_t *pads = NULL, *axes = NULL;
    int64_t np = ints_arg(n, 1, n->opset >= 11 ? "" : (n->opset >= 2 ? "pads" : "paddings"), n->opset >= 11, &pads);
    int64_t na = n->opset >= 18 ? ints_arg(n, 3, "", true, &axes) : -2;
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), -1);
    int r = x->rank;
    if (np == -2) return rl_bad(c, n, "Pad needs pads");
    if (np == -1 || na == -1) return unknown_out(c, n, 0, x->dtype, r);
    int64_t nax = na >= 0 ? na : r;
    if (np != 2 * nax) return rl_bad(c, n, "pads has %lld entries for %lld axes", (long long)np, (long long)nax);
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)r * sizeof *dims);
    int ax[RL_MAX_RANK_HARD];
    if (resolve_axes(c, n, axes, na, nax, r, ax) < 0) return RL_FAIL;
    for (int64_t i = 0; i < nax; i++) {
        int a = ax[i];
        if (dims[a] < 0) continue;
        int64_t d = dims[a];
        if (!rl_add_ok(d, pads[i], &d) || !rl_add_ok(d, pads[i + nax], &d))
            return rl_bad(c, n, "padded size overflows");
        if (d < 0) return rl_bad(c, n, "padding makes axis %d negative", a);
        dims[a] = d;
    }
    return set_out_checked(c, n, 0, x->dtype, r, dims);
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

/* ------------------------------------------------------------- Resize -- */

/* Scale per axis -> floor(d * scale); sizes -> those, with the aspect policy. */
static int resize_dims(rl_ctx *c, rl_node *n, const rl_value *x, const double *scales, int64_t nscales,
                       const int64_t *sizes, int64_t nsizes, const int64_t *axes, int64_t naxes,
                       int64_t *dims) {
    int r = x->rank;
    int64_t cnt = scales ? nscales : nsizes;
    int64_t nax = naxes >= 0 ? naxes : r;
    if (cnt != nax) return rl_bad(c, n, "%s has %lld entries for %lld axes", scales ? "scales" : "sizes", (long long)cnt, (long long)nax);
    int ax[RL_MAX_RANK_HARD];
    if (resolve_axes(c, n, axes, naxes, nax, r, ax) < 0) return RL_FAIL;
    memcpy(dims, x->dims, (size_t)r * sizeof *dims);
    if (scales) {
        for (int64_t i = 0; i < nax; i++) {
            double s = scales[i];
            if (!(s > 0) || s > 1e9) return rl_bad(c, n, "scale %g is not a positive size factor", s);
            int64_t d = x->dims[ax[i]];
            double out = floor((double)d * s + 1e-9);
            if (out > (double)RL_MAX_ELEMS) return rl_bad(c, n, "scaled size %g is too large", out);
            dims[ax[i]] = d < 0 ? -1 : (int64_t)out;
        }
        return RL_OK;
    }
    const char *policy = rl_attr_s(n, "keep_aspect_ratio_policy", "stretch");
    bool larger = strcmp(policy, "not_smaller") == 0;
    if (strcmp(policy, "stretch") == 0) {
        for (int64_t i = 0; i < nax; i++) {
            if (sizes[i] < 0) return rl_bad(c, n, "negative size %lld", (long long)sizes[i]);
            dims[ax[i]] = sizes[i];
        }
        return RL_OK;
    }
    double scale = larger ? 0 : INFINITY;
    for (int64_t i = 0; i < nax; i++) {
        int64_t d = x->dims[ax[i]];
        if (d <= 0) { for (int64_t j = 0; j < nax; j++) dims[ax[j]] = -1; return RL_OK; }
        double s = (double)sizes[i] / (double)d;
        scale = larger ? (s > scale ? s : scale) : (s < scale ? s : scale);
    }
    for (int64_t i = 0; i < nax; i++) {
        double out = floor((double)x->dims[ax[i]] * scale + 0.5);
        if (!(out <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "resized size %g is too large", out);
        dims[ax[i]] = (int64_t)out;
    }
    return RL_OK;
}

static int shape_resize(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), -1);
    int r = x->rank;
    const double *scales = NULL;
    const int64_t *sizes = NULL, *axes = NULL;
    int64_t nscales = -2, nsizes = -2, naxes = -2;
    bool upsample = strcmp(n->op_type, "Upsample") == 0;
    double dscale[RL_MAX_RANK_HARD];
    if (upsample && n->opset < 9) {
        const float *fs = NULL;
        int cnt = rl_attr_floats(n, "scales", &fs);
        if (cnt < 0) return rl_bad(c, n, "Upsample needs scales");
        if (cnt > RL_MAX_RANK_HARD) return rl_bad(c, n, "too many scales");
        for (int i = 0; i < cnt; i++) dscale[i] = fs[i];
        scales = dscale;
        nscales = cnt;
    } else {
        int si = (upsample || n->opset < 11) ? 1 : 2;
        rl_value *sv = rl_in(n, si), *zv = (upsample || n->opset < 11) ? NULL : rl_in(n, 3);
        if (sv && rl_numel(sv) != 0) {
            nscales = rl_in_floats(n, si, &scales);
            if (!contents_known(sv)) {
                nscales = -1;
                rl_needs_runtime(n, si);
            }
        } else if (zv && rl_numel(zv) != 0) {
            nsizes = contents_known(zv) ? zv->n_known : -1;
            sizes = zv->ival;
            if (nsizes < 0) rl_needs_runtime(n, 3);
        }
        if (!upsample && n->opset >= 18) naxes = ints_arg(n, -1, "axes", false, &axes);
    }
    if (nscales == -2 && nsizes == -2) return rl_bad(c, n, "needs scales or sizes");
    /* runtime scales or sizes: the resized axes are unknown (and may grow) */
    if (nscales == -1 || nsizes == -1) return unknown_along_axes(c, n, x, axes, naxes, false);
    int64_t dims[RL_MAX_RANK_HARD];
    if (resize_dims(c, n, x, nscales >= 0 ? scales : NULL, nscales, sizes, nsizes, axes, naxes, dims) != RL_OK)
        return RL_FAIL;
    return set_out_checked(c, n, 0, x->dtype, r, dims);
}

/* nearest: 1 op per output element (index arithmetic and copy);
 * linear: 2^k taps, a multiply-add each (2·2^k FLOPs) over k resized axes;
 * cubic: 4^k taps, 2·4^k FLOPs. */
static void cost_resize(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (!x || !o || x->rank != o->rank) return;
    int resized = 0;
    for (int i = 0; i < x->rank; i++)
        if (x->dims[i] != o->dims[i]) resized++;
    if (resized == 0) resized = 1;
    const char *mode = rl_attr_s(n, "mode", "nearest");
    double per = 1;
    if (strstr(mode, "linear")) per = 2.0 * pow(2.0, resized);
    else if (strcmp(mode, "cubic") == 0) per = 2.0 * pow(4.0, resized);
    k->vector_flops = rl_numel_d(o) * per;
}

/* --------------------------------------------------- Cast and friends -- */

static double cast_value(int to, double v) {
    if (to == RL_DT_BOOL) return v != 0;
    if (rl_dtype_is_int(to)) return trunc(v);
    if (to == RL_DT_FLOAT) return (float)v;
    return v;
}

static int shape_cast(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    int to = strcmp(n->op_type, "CastLike") == 0 ? dtype_of(rl_in(n, 1)) : (int)rl_attr_i(c, n, "to", 0);
    if (to < 0 || to >= RL_DT_COUNT) return rl_bad(c, n, "unknown target type %d", to);
    if (!x) return unknown_out(c, n, 0, to, -1);
    int res = set_out_checked(c, n, 0, to, x->rank, x->dims);
    if (res == RL_OK && contents_known(x)) {
        int64_t cnt = x->n_known;
        double *fv = rl_arena_alloc(c->arena, (size_t)(cnt + 1) * sizeof *fv);
        int64_t *iv = rl_arena_alloc(c->arena, (size_t)(cnt + 1) * sizeof *iv);
        if (fv && iv) {
            bool from_int = rl_dtype_is_int(x->dtype) || x->dtype == RL_DT_BOOL;
            for (int64_t e = 0; e < cnt; e++) {
                fv[e] = cast_value(to, from_int ? (double)x->ival[e] : x->fval[e]);
                /* integer to integer keeps all 64 bits */
                iv[e] = from_int && rl_dtype_is_int(to) ? x->ival[e]
                        : fv[e] != fv[e] ? 0 /* NaN, +-inf and huge values saturate: a */
                        : fv[e] >= 9.2233720368547748e18 ? INT64_MAX /* direct cast is UB */
                        : fv[e] <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)fv[e];
            }
            rl_set_out_contents(c, n, 0, cnt, iv, fv);
        }
    }
    return res;
}

static int shape_identity(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    if (x && o && x->type != RL_TYPE_TENSOR) {
        o->seq_len = x->seq_len;
        return RL_OK;
    }
    fold_same(c, n, 0, x);
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

static int shape_eye_like(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    int dt = (int)rl_attr_i(c, n, "dtype", dtype_of(x));
    if (!x) return unknown_out(c, n, 0, dt, 2);
    if (x->rank >= 0 && x->rank != 2) return rl_bad(c, n, "EyeLike needs a rank-2 input");
    return set_out_checked(c, n, 0, dt, x->rank, x->dims);
}

/* ------------------------------------------ ConstantOfShape, Range... -- */

static int shape_constant_of_shape(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    const Onnx__AttributeProto *a = rl_attr(n, "value");
    int dt = a && a->t && a->t->has_data_type ? a->t->data_type : RL_DT_FLOAT;
    double fill = 0;
    if (a && a->t) {
        rl_value tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.name = n->name;
        if (rl_value_from_tensor(c, &tmp, a->t, n->name)) return RL_FAIL;
        if (tmp.n_known >= 1) fill = tmp.fval[0];
    }
    if (!contents_known(s)) {
        rl_needs_runtime(n, 0);
        int64_t len = runtime_len(n, 0);
        return unknown_out(c, n, 0, dt, len <= RL_MAX_RANK_HARD ? (int)len : -1);
    }
    if (s->n_known > RL_MAX_RANK_HARD) return rl_bad(c, n, "shape has %lld entries", (long long)s->n_known);
    for (int64_t i = 0; i < s->n_known; i++)
        if (s->ival[i] < 0) return rl_bad(c, n, "negative dimension %lld", (long long)s->ival[i]);
    int res = set_out_checked(c, n, 0, dt, (int)s->n_known, s->ival);
    int64_t count = rl_numel(rl_out(n, 0));
    if (res == RL_OK && count >= 0 && count <= RL_FOLD_MAX_ELEMS) {
        double *fv = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *fv);
        if (fv) {
            for (int64_t e = 0; e < count; e++) fv[e] = fill;
            rl_set_out_contents(c, n, 0, count, NULL, fv);
        }
    }
    return res;
}

static int shape_range(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    int dt = dtype_of(rl_in(n, 0));
    double start, limit, delta;
    if (!scalar_in(n, 0, &start) || !scalar_in(n, 1, &limit) || !scalar_in(n, 2, &delta))
        return unknown_out(c, n, 0, dt, 1);
    if (delta == 0) return rl_bad(c, n, "Range with delta 0");
    double cnt = ceil((limit - start) / delta);
    if (!(cnt >= 0)) cnt = 0;
    if (cnt > (double)RL_MAX_ELEMS) return rl_bad(c, n, "Range would produce %g elements", cnt);
    int64_t len = (int64_t)cnt;
    if (rl_set_out(c, n, 0, dt, 1, &len) != RL_OK) return RL_FAIL;
    if (len <= RL_FOLD_MAX_ELEMS) {
        double *fv = rl_arena_alloc(c->arena, (size_t)(len + 1) * sizeof *fv);
        if (fv) {
            for (int64_t e = 0; e < len; e++) fv[e] = start + (double)e * delta;
            rl_set_out_contents(c, n, 0, len, NULL, fv);
        }
    }
    return RL_OK;
}

static int shape_one_hot(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *ind = rl_in(n, 0), *vals = rl_in(n, 2);
    int dt = dtype_of(vals);
    if (!ind || ind->rank < 0) return unknown_out(c, n, 0, dt, -1);
    int r = ind->rank + 1;
    if (r > RL_MAX_RANK_HARD) return rl_bad(c, n, "result rank too large");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", -1), r);
    if (axis < 0) return RL_FAIL;
    double depth;
    int64_t d = -1;
    if (scalar_in(n, 1, &depth)) {
        if (!(depth >= 1 && depth <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "depth %g", depth);
        d = (int64_t)depth;
    }
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0, s = 0; k < r; k++) dims[k] = k == axis ? d : ind->dims[s++];
    return set_out_checked(c, n, 0, dt, r, dims);
}

static int shape_non_zero(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, RL_DT_INT64, 2);
    int64_t dims[2] = {x->rank, -1};
    if (contents_known(x)) {
        int64_t nz = 0;
        for (int64_t e = 0; e < x->n_known; e++) nz += x->fval[e] != 0;
        dims[1] = nz;
    }
    int r = set_out_checked(c, n, 0, RL_DT_INT64, 2, dims);
    if (r == RL_UNKNOWN) {
        /* as many columns as non-zero elements: at most all of them */
        int64_t bound[2] = {-1, rl_numel(x)};
        rl_needs_runtime(n, 0);
        rl_set_out_bounds(c, n, 0, bound, false);
    }
    return r;
}

static int shape_compress(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *cond = rl_in(n, 1);
    const Onnx__AttributeProto *ax = rl_attr(n, "axis");
    int dt = dtype_of(x);
    int64_t kept = -1;
    if (contents_known(cond)) {
        kept = 0;
        for (int64_t e = 0; e < cond->n_known; e++) kept += cond->ival[e] != 0;
    } else if (cond) {
        rl_needs_runtime(n, 1);
    }
    if (!ax) {
        int r = set_out_checked(c, n, 0, dt, 1, &kept);
        int64_t bound = rl_numel(x);
        if (r == RL_UNKNOWN) rl_set_out_bounds(c, n, 0, &bound, false);
        return r;
    }
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dt, -1);
    int a = rl_axis(c, n, ax->i, x->rank);
    if (a < 0) return RL_FAIL;
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    if (kept >= 0 && dims[a] >= 0 && kept > dims[a]) kept = dims[a];
    dims[a] = kept;
    int r = set_out_checked(c, n, 0, dt, x->rank, dims);
    if (r == RL_UNKNOWN) rl_set_out_bounds(c, n, 0, x->dims, false);
    return r;
}

static int shape_unique(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    const Onnx__AttributeProto *ax = rl_attr(n, "axis");
    int res = RL_UNKNOWN;
    if (ax && x && x->rank >= 0) {
        int a = rl_axis(c, n, ax->i, x->rank);
        if (a < 0) return RL_FAIL;
        int64_t dims[RL_MAX_RANK_HARD];
        memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
        dims[a] = -1;
        if (rl_set_out(c, n, 0, x->dtype, x->rank, dims) != RL_OK) return RL_FAIL;
        if (rl_set_out(c, n, 2, RL_DT_INT64, 1, &x->dims[a]) != RL_OK) return RL_FAIL;
    } else {
        int64_t unk = -1, numel = rl_numel(x);
        /* constant input, flattened: the distinct values can be counted */
        if (!ax && contents_known(x)) {
            int64_t distinct = 0;
            for (int64_t e = 0; e < x->n_known; e++) {
                bool seen = false;
                for (int64_t f = 0; f < e && !seen; f++) seen = x->fval[f] == x->fval[e];
                distinct += !seen;
            }
            if (rl_set_out(c, n, 0, x->dtype, 1, &distinct) != RL_OK || rl_set_out(c, n, 2, RL_DT_INT64, 1, &numel) != RL_OK ||
                rl_set_out(c, n, 1, RL_DT_INT64, 1, &distinct) != RL_OK || rl_set_out(c, n, 3, RL_DT_INT64, 1, &distinct) != RL_OK)
                return RL_FAIL;
            return RL_OK;
        }
        if (ax) {
            if (rl_set_out(c, n, 0, dtype_of(x), -1, NULL) != RL_OK) return RL_FAIL;
        } else if (rl_set_out(c, n, 0, dtype_of(x), 1, &unk) != RL_OK) {
            return RL_FAIL;
        }
        if (rl_set_out(c, n, 2, RL_DT_INT64, 1, ax ? &unk : &numel) != RL_OK) return RL_FAIL;
    }
    int64_t unk = -1;
    if (rl_set_out(c, n, 1, RL_DT_INT64, 1, &unk) != RL_OK || rl_set_out(c, n, 3, RL_DT_INT64, 1, &unk) != RL_OK)
        return RL_FAIL;
    /* the distinct count depends on the data: at most every element (or slice) */
    rl_needs_runtime(n, 0);
    int64_t numel = rl_numel(x), bound[RL_MAX_RANK_HARD];
    if (ax && x && x->rank >= 0) {
        memcpy(bound, x->dims, (size_t)x->rank * sizeof *bound);
        rl_set_out_bounds(c, n, 0, bound, false);
        numel = x->dims[rl_axis(c, n, ax->i, x->rank)];
    } else {
        bound[0] = numel;
        rl_set_out_bounds(c, n, 0, bound, false);
    }
    rl_set_out_bounds(c, n, 1, &numel, false);
    rl_set_out_bounds(c, n, 3, &numel, false);
    return res;
}

/* ------------------------------------------- Depth/space, TopK, misc -- */

static int shape_depth_space(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, dtype_of(x), 4);
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
    return set_out_checked(c, n, 0, x->dtype, 4, dims);
}

static int shape_topk(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) {
        if (unknown_out(c, n, 1, RL_DT_INT64, -1) == RL_FAIL) return RL_FAIL;
        return unknown_out(c, n, 0, dtype_of(x), -1);
    }
    if (x->rank == 0) return rl_bad(c, n, "TopK of a scalar");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", -1), x->rank);
    if (axis < 0) return RL_FAIL;
    int64_t k = -1;
    double kv;
    if (n->opset < 10) k = rl_attr_i(c, n, "k", -1);
    else if (scalar_in(n, 1, &kv)) k = kv >= 0 && kv <= (double)RL_MAX_ELEMS ? (int64_t)kv : -2;
    if (k < -1 || (k >= 0 && x->dims[axis] >= 0 && k > x->dims[axis]))
        return rl_bad(c, n, "k = %lld for an axis of %lld", (long long)k, (long long)x->dims[axis]);
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[axis] = k;
    int r = set_out_checked(c, n, 0, x->dtype, x->rank, dims);
    if (r == RL_FAIL || set_out_checked(c, n, 1, RL_DT_INT64, x->rank, dims) == RL_FAIL) return RL_FAIL;
    if (k < 0) {
        rl_set_out_bounds(c, n, 0, x->dims, false);
        rl_set_out_bounds(c, n, 1, x->dims, false);
    }
    return r;
}

/* A heap selection: every input element is compared against a k-heap. */
static void cost_topk(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (!x || !o || x->rank < 1 || o->rank != x->rank) return;
    int64_t axis = rl_attr_i(c, n, "axis", -1);
    if (axis < 0) axis += x->rank;
    if (axis < 0 || axis >= x->rank) return;
    int64_t kk = o->dims[axis];
    k->vector_flops = rl_numel_d(x) * (kk > 2 ? log2((double)kk) : 1.0);
}

static int shape_like_first_known(rl_ctx *c, rl_graph *g, rl_node *n) {
    return shape_like_data(c, g, n);
}

/* ---------------------------------------------------------- sequences -- */

/* A sequence value keeps the element dtype, and in rank/dims the element
 * shape when all elements share it (rank -1 otherwise); seq_len its length. */
static int set_seq(rl_ctx *c, rl_node *n, int i, int dtype, int rank, const int64_t *dims, int seq_len) {
    if (rl_set_out(c, n, i, dtype, rank, dims) != RL_OK) return RL_FAIL;
    rl_value *o = rl_out(n, i);
    if (o) {
        o->type = RL_TYPE_SEQUENCE;
        o->seq_len = seq_len;
    }
    return RL_OK;
}

static bool same_shape(const rl_value *a, const rl_value *b) {
    if (!a || !b || a->rank < 0 || a->rank != b->rank) return false;
    for (int k = 0; k < a->rank; k++)
        if (a->dims[k] != b->dims[k] || a->dims[k] < 0) return false;
    return true;
}

static int shape_sequence_construct(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *first = rl_in(n, 0);
    bool same = first != NULL;
    for (int i = 1; i < n->n_in && same; i++) same = same_shape(first, rl_in(n, i));
    if (same && n->n_in == 1) same = rl_shape_known(first);
    return set_seq(c, n, 0, dtype_of(first), same ? first->rank : -1, same ? first->dims : NULL, n->n_in);
}

static int shape_sequence_empty(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    return set_seq(c, n, 0, (int)rl_attr_i(c, n, "dtype", RL_DT_FLOAT), -1, NULL, 0);
}

static int shape_sequence_insert(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0), *t = rl_in(n, 1);
    int len = s && s->seq_len >= 0 ? s->seq_len + 1 : -1;
    bool same = s && (s->seq_len == 0 ? rl_shape_known(t) : same_shape(s, t));
    int dt = s && s->dtype ? s->dtype : dtype_of(t);
    return set_seq(c, n, 0, dt, same ? t->rank : -1, same ? t->dims : NULL, len);
}

static int shape_sequence_erase(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    int len = s && s->seq_len > 0 ? s->seq_len - 1 : -1;
    return set_seq(c, n, 0, dtype_of(s), s ? s->rank : -1, s ? s->dims : NULL, len);
}

static int shape_sequence_at(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    if (!s || s->rank < 0) return unknown_out(c, n, 0, dtype_of(s), -1);
    return set_out_checked(c, n, 0, s->dtype, s->rank, s->dims);
}

static int shape_sequence_length(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    if (rl_set_out(c, n, 0, RL_DT_INT64, 0, NULL) != RL_OK) return RL_FAIL;
    if (s && s->seq_len >= 0) {
        int64_t len = s->seq_len;
        rl_set_out_contents(c, n, 0, 1, &len, NULL);
    }
    return RL_OK;
}

static int shape_split_to_sequence(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *sp = rl_in(n, 1);
    if (!x || x->rank < 0) return set_seq(c, n, 0, dtype_of(x), -1, NULL, -1);
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 0), x->rank);
    if (axis < 0) return RL_FAIL;
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    int64_t d = x->dims[axis];
    if (!sp) {
        /* chunks of 1, the axis dropped unless keepdims */
        bool keep = rl_attr_i(c, n, "keepdims", 1) != 0;
        int r = x->rank;
        if (!keep) {
            for (int k = axis; k + 1 < r; k++) dims[k] = dims[k + 1];
            r--;
        } else {
            dims[axis] = 1;
        }
        return set_seq(c, n, 0, x->dtype, r, dims, d >= 0 && d <= INT32_MAX ? (int)d : -1);
    }
    if (contents_known(sp) && sp->rank == 0 && sp->n_known == 1 && sp->ival[0] > 0 && d >= 0) {
        int64_t chunk = sp->ival[0];
        int64_t parts = d / chunk + (d % chunk != 0); /* ceil, without d + chunk overflowing */
        dims[axis] = chunk;
        bool even = d % chunk == 0;
        return set_seq(c, n, 0, x->dtype, even ? x->rank : -1, even ? dims : NULL, parts <= INT32_MAX ? (int)parts : -1);
    }
    int len = contents_known(sp) && sp->rank == 1 && sp->n_known <= INT32_MAX ? (int)sp->n_known : -1;
    return set_seq(c, n, 0, x->dtype, -1, NULL, len);
}

static int shape_concat_from_sequence(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    bool new_axis = rl_attr_i(c, n, "new_axis", 0) != 0;
    if (!s || s->rank < 0) return unknown_out(c, n, 0, dtype_of(s), -1);
    int r = s->rank + (new_axis ? 1 : 0);
    if (r > RL_MAX_RANK_HARD || r == 0) return r == 0 ? rl_bad(c, n, "cannot concatenate scalars") : rl_bad(c, n, "rank too large");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 0), r);
    if (axis < 0) return RL_FAIL;
    int64_t dims[RL_MAX_RANK_HARD];
    int64_t len = s->seq_len;
    for (int k = 0, j = 0; k < r; k++) {
        if (new_axis && k == axis) { dims[k] = len; continue; }
        dims[k] = s->dims[j++];
    }
    if (!new_axis) {
        int64_t tot = -1;
        if (len >= 0 && dims[axis] >= 0 && !rl_mul_ok(len, dims[axis], &tot)) return rl_bad(c, n, "size overflows");
        dims[axis] = tot;
    }
    return set_out_checked(c, n, 0, s->dtype, r, dims);
}

/* ---------------------------------------------------------- optionals -- */

static int shape_optional(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (rl_set_out(c, n, 0, dtype_of(x), x ? x->rank : -1, x ? x->dims : NULL) != RL_OK) return RL_FAIL;
    rl_value *o = rl_out(n, 0);
    if (o) o->type = RL_TYPE_OPTIONAL;
    return RL_OK;
}

static int shape_optional_has_element(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    if (rl_set_out(c, n, 0, RL_DT_BOOL, 0, NULL) != RL_OK) return RL_FAIL;
    rl_value *x = rl_in(n, 0);
    int64_t has = x != NULL;
    if (!x || x->type == RL_TYPE_TENSOR) rl_set_out_contents(c, n, 0, 1, &has, NULL);
    return RL_OK;
}

static int shape_optional_get_element(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return unknown_out(c, n, 0, 0, -1);
    if (rl_set_out(c, n, 0, x->dtype, x->rank, x->dims) != RL_OK) return RL_FAIL;
    rl_value *o = rl_out(n, 0);
    /* an optional of a sequence yields the sequence */
    if (o && x->type == RL_TYPE_SEQUENCE) {
        o->type = RL_TYPE_SEQUENCE;
        o->seq_len = x->seq_len;
        return RL_OK;
    }
    if (x->type == RL_TYPE_TENSOR) fold_same(c, n, 0, x);
    return rl_shape_known(o) ? RL_OK : RL_UNKNOWN;
}

/* --------------------------------------------------------- GridSample -- */

/* X [N, C, D1..Dr], grid [N, H1..Hr, r] -> Y [N, C, H1..Hr]. */
static int shape_grid_sample(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *grid = rl_in(n, 1);
    if (!x || !grid) return rl_bad(c, n, "needs X and grid");
    int r = grid->rank >= 0 ? grid->rank : x->rank;
    if (r < 0) return unknown_out(c, n, 0, x->dtype, -1);
    if (r < 3) return rl_bad(c, n, "grid must have rank 3 or more, got %d", r);
    if (x->rank >= 0 && x->rank != r) return rl_bad(c, n, "X has rank %d, grid rank %d", x->rank, r);
    if (grid->rank >= 0 && grid->dims[r - 1] >= 0 && grid->dims[r - 1] != r - 2)
        return rl_bad(c, n, "grid's last dim is %lld, want %d coordinates", (long long)grid->dims[r - 1], r - 2);
    int64_t dims[RL_MAX_RANK_HARD];
    dims[0] = x->rank >= 0 ? x->dims[0] : grid->dims[0];
    dims[1] = x->rank >= 0 ? x->dims[1] : -1;
    for (int k = 2; k < r; k++) dims[k] = grid->rank >= 0 ? grid->dims[k - 1] : -1;
    return set_out_checked(c, n, 0, x->dtype, r, dims);
}

/* Per output element: unnormalise r coordinates (2 FLOPs each), then
 * nearest 1 op, linear 2·2^r FLOPs (2^r taps), cubic 2·4^r. */
static void cost_grid_sample(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *o = rl_out(n, 0);
    if (!o || o->rank < 3) return; /* a declared shape of another rank: no formula */
    int r = o->rank - 2;
    const char *mode = rl_attr_s(n, "mode", n->opset >= 20 ? "linear" : "bilinear");
    double per = 1;
    if (strstr(mode, "linear")) per = 2.0 * pow(2.0, r);
    else if (strstr(mode, "cubic")) per = 2.0 * pow(4.0, r);
    k->vector_flops = rl_numel_d(o) * (per + 2.0 * r);
}

/* --------------------------------------------------------- AffineGrid -- */

/* theta [N, r, r+1], size = [N, C, D1..Dr] -> grid [N, D1..Dr, r]. */
static int shape_affine_grid(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *theta = rl_in(n, 0), *size = rl_in(n, 1);
    if (!theta || !size) return rl_bad(c, n, "needs theta and size");
    int64_t len = size->rank == 1 ? size->dims[0] : -1;
    if (contents_known(size)) len = size->n_known;
    if (len >= 0 && len != 4 && len != 5) return rl_bad(c, n, "size has %lld entries (4 for 2-D, 5 for 3-D)", (long long)len);
    int nd = len >= 0 ? (int)len - 2 : theta->rank == 3 && theta->dims[1] >= 2 && theta->dims[1] <= 3 ? (int)theta->dims[1] : -1;
    if (nd < 0) return unknown_out(c, n, 0, theta->dtype, -1);
    if (theta->rank >= 0 && (theta->rank != 3 || (theta->dims[1] >= 0 && theta->dims[1] != nd) ||
                             (theta->dims[2] >= 0 && theta->dims[2] != nd + 1)))
        return rl_bad(c, n, "theta must be [N, %d, %d]", nd, nd + 1);
    int64_t dims[6];
    dims[0] = theta->rank == 3 ? theta->dims[0] : -1;
    for (int k = 1; k <= nd; k++) dims[k] = -1;
    dims[nd + 1] = nd;
    if (contents_known(size)) {
        for (int k = 0; k < nd; k++) {
            if (size->ival[k + 2] < 0) return rl_bad(c, n, "negative size %lld", (long long)size->ival[k + 2]);
            dims[k + 1] = size->ival[k + 2];
        }
        if (dims[0] < 0) dims[0] = size->ival[0];
    } else {
        rl_needs_runtime(n, 1);
    }
    return set_out_checked(c, n, 0, theta->dtype, nd + 2, dims);
}

/* Each grid point is theta (r × (r+1)) times its homogeneous base
 * coordinate: 2·(r+1) FLOPs per output element. */
static void cost_affine_grid(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *o = rl_out(n, 0);
    if (!o || o->rank < 1) return;
    k->vector_flops = rl_numel_d(o) * 2.0 * (double)(o->dims[o->rank - 1] + 1);
}

/* ------------------------------------------------------ CenterCropPad -- */

static int shape_center_crop_pad(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *shp = rl_in(n, 1);
    if (!x || !shp) return rl_bad(c, n, "needs input and shape");
    if (x->rank < 0) return unknown_out(c, n, 0, x->dtype, -1);
    const int64_t *axes = NULL;
    int64_t na = ints_arg(n, -1, "axes", false, &axes);
    int ax[RL_MAX_RANK_HARD], cnt = resolve_axes(c, n, axes, na, x->rank, x->rank, ax);
    if (cnt < 0) return RL_FAIL;
    if (shp->rank == 1 && shp->dims[0] >= 0 && shp->dims[0] != cnt)
        return rl_bad(c, n, "shape has %lld entries for %d axes", (long long)shp->dims[0], cnt);
    bool known = contents_known(shp);
    if (!known) rl_needs_runtime(n, 1);
    if (known && shp->n_known != cnt) return rl_bad(c, n, "shape has %lld entries for %d axes", (long long)shp->n_known, cnt);
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    for (int i = 0; i < cnt; i++) {
        int a = ax[i];
        if (known && shp->ival[i] < 0) return rl_bad(c, n, "negative size %lld", (long long)shp->ival[i]);
        dims[a] = known ? shp->ival[i] : -1;
    }
    return set_out_checked(c, n, 0, x->dtype, x->rank, dims);
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

/* ------------------------------------------------------------ BitCast -- */

/* The same bytes read as another type: equal widths keep the shape; a
 * narrower type adds a last dim of the width ratio, a wider one consumes it. */
static int shape_bitcast(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    int64_t to = rl_attr_i(c, n, "to", 0);
    if (to <= 0 || to >= RL_DT_COUNT || rl_dtype_bits((int)to) <= 0) return rl_bad(c, n, "unknown target type %lld", (long long)to);
    if (!x || x->rank < 0) return unknown_out(c, n, 0, (int)to, -1);
    int from_bits = rl_dtype_bits(x->dtype), to_bits = rl_dtype_bits((int)to);
    if (from_bits <= 0) return unknown_out(c, n, 0, (int)to, -1);
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    int r = x->rank;
    if (from_bits > to_bits) {
        if (from_bits % to_bits || r + 1 > RL_MAX_RANK_HARD) return rl_bad(c, n, "cannot split %d-bit elements into %d-bit ones", from_bits, to_bits);
        dims[r++] = from_bits / to_bits;
    } else if (from_bits < to_bits) {
        int64_t ratio = to_bits / from_bits;
        if (to_bits % from_bits || r == 0 || (dims[r - 1] >= 0 && dims[r - 1] != ratio))
            return rl_bad(c, n, "the last dim must hold %lld %d-bit elements to make one %d-bit element",
                          (long long)ratio, from_bits, to_bits);
        r--;
    }
    return set_out_checked(c, n, 0, (int)to, r, dims);
}

/* ------------------------------------------------------ TensorScatter -- */

/* Writes update into past_cache along axis at write_indices; the present
 * cache has the past's shape. */
static int shape_tensor_scatter(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *past = rl_in(n, 0), *upd = rl_in(n, 1);
    if (!past || !upd) return rl_bad(c, n, "needs past_cache and update");
    if (past->rank >= 0 && upd->rank >= 0 && past->rank != upd->rank)
        return rl_bad(c, n, "past_cache has rank %d, update rank %d", past->rank, upd->rank);
    if (past->rank >= 0 && upd->rank >= 0) {
        int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", -2), past->rank);
        if (axis < 0) return RL_FAIL;
        for (int k = 0; k < past->rank; k++) {
            int64_t a = past->dims[k], b = upd->dims[k];
            if (a >= 0 && b >= 0 && (k == axis ? b > a : b != a))
                return rl_bad(c, n, "update dim %d is %lld, the cache's %lld", k, (long long)b, (long long)a);
        }
    }
    return shape_like_data(c, g, n);
}

/* Runtimes update the cache in place (that is what the op is for): the
 * traffic is the update and the indices read and the update-sized region
 * written, not a copy of the whole cache. */
static void cost_tensor_scatter(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)g;
    const rl_value *past = rl_in(n, 0), *upd = rl_in(n, 1);
    if (!past || !upd) return;
    double cache = rl_value_bytes(c, past);
    if (past->kind == RL_VALUE_WEIGHT || past->kind == RL_VALUE_CONSTANT) k->weight_bytes -= cache;
    else k->input_bytes -= cache;
    k->output_bytes = rl_value_bytes(c, upd);
}

/* ------------------------------------------------------------ the table -- */

#define MOVE(name, since, until, fn, doc) {name, "", since, until, fn, NULL, 0, 0, doc}
#define VIEW(name, since, until, fn, doc) {name, "", since, until, fn, NULL, 0, RL_OP_VIEW, doc}
#define COPY_DOC "0 FLOPs; reads its inputs and writes its outputs"

static const rl_op_def ops[] = {
    VIEW("Constant", 1, 0, shape_constant, "view: its value counts as weight bytes where it is read"),
    VIEW("Shape", 1, 0, shape_shape, "view: metadata only, 0 FLOPs, 0 bytes"),
    VIEW("Size", 1, 0, shape_size, "view: metadata only, 0 FLOPs, 0 bytes"),
    VIEW("Reshape", 1, 0, shape_reshape, "view: no data moves, 0 FLOPs, 0 bytes"),
    VIEW("Flatten", 1, 0, shape_flatten, "view: no data moves, 0 FLOPs, 0 bytes"),
    VIEW("Squeeze", 1, 0, shape_squeeze, "view: no data moves, 0 FLOPs, 0 bytes"),
    VIEW("Unsqueeze", 1, 0, shape_unsqueeze, "view: no data moves, 0 FLOPs, 0 bytes"),
    VIEW("Identity", 1, 0, shape_identity, "view: no data moves, 0 FLOPs, 0 bytes"),
    MOVE("Transpose", 1, 0, shape_transpose, COPY_DOC),
    MOVE("Concat", 1, 0, shape_concat, COPY_DOC),
    MOVE("Split", 1, 0, shape_split, COPY_DOC),
    {"Slice", "", 1, 0, shape_slice, cost_slice, 0, 0,
     "0 FLOPs; reads only the kept elements (output size) when the step along the last axis is ±1, "
     "else the whole input; writes its output"},
    {"Gather", "", 1, 0, shape_gather, cost_gather, 0, 0,
     "0 FLOPs; reads only the gathered rows of the table (output elements × element size) plus the indices"},
    {"GatherElements", "", 11, 0, shape_gather_elements, cost_gather, 0, 0,
     "0 FLOPs; reads the picked elements (output size) plus the indices"},
    {"GatherND", "", 11, 0, shape_gather_nd, cost_gather, 0, 0,
     "0 FLOPs; reads the picked slices (output size) plus the indices"},
    {"ScatterND", "", 11, 0, shape_like_data, cost_scatter, 0, 0,
     "0 FLOPs (1 per update element with a reduction); copies data, reads indices and updates"},
    {"ScatterElements", "", 11, 0, shape_like_data, cost_scatter, 0, 0,
     "0 FLOPs (1 per update element with a reduction); copies data, reads indices and updates"},
    {"Scatter", "", 9, 0, shape_like_data, cost_scatter, 0, 0,
     "0 FLOPs; copies data, reads indices and updates"},
    MOVE("Expand", 8, 0, shape_expand, COPY_DOC),
    MOVE("Tile", 1, 0, shape_tile, COPY_DOC),
    {"Pad", "", 1, 0, shape_pad, cost_pad, 0, 0,
     "0 FLOPs; reads the part of the input that stays (negative pads crop), writes its output"},
    {"Resize", "", 10, 0, shape_resize, cost_resize, 0, 0,
     "per output element: nearest 1 op; linear 2·2^k FLOPs; cubic 2·4^k FLOPs (k = resized axes)"},
    {"Upsample", "", 7, 0, shape_resize, cost_resize, 0, 0,
     "per output element: nearest 1 op; linear 2·2^k FLOPs (k = resized axes)"},
    MOVE("Cast", 1, 0, shape_cast, "0 FLOPs; reads the input, writes it in the new type"),
    MOVE("CastLike", 15, 0, shape_cast, "0 FLOPs; reads the input, writes it in the new type"),
    MOVE("ConstantOfShape", 9, 0, shape_constant_of_shape, "0 FLOPs; writes its output"),
    MOVE("Range", 11, 0, shape_range, "0 FLOPs; writes its output"),
    MOVE("OneHot", 9, 0, shape_one_hot, "0 FLOPs; writes its output"),
    MOVE("NonZero", 9, 0, shape_non_zero, "0 FLOPs; data-dependent output size (unknown unless the input is constant)"),
    MOVE("Trilu", 14, 0, shape_like_first_known, COPY_DOC),
    MOVE("DepthToSpace", 1, 0, shape_depth_space, COPY_DOC),
    MOVE("SpaceToDepth", 1, 0, shape_depth_space, COPY_DOC),
    MOVE("ReverseSequence", 10, 0, shape_like_first_known, COPY_DOC),
    MOVE("Compress", 9, 0, shape_compress, "0 FLOPs; data-dependent output size (unknown unless the condition is constant)"),
    MOVE("Unique", 11, 0, shape_unique, "0 FLOPs counted; data-dependent output size"),
    MOVE("EyeLike", 9, 0, shape_eye_like, "0 FLOPs; writes its output"),
    {"TopK", "", 1, 0, shape_topk, cost_topk, 0, 0,
     "heap selection: input elements × log2(k) compares (log2 taken as 1 for k ≤ 2)"},
    {"GridSample", "", 16, 0, shape_grid_sample, cost_grid_sample, 0, 0,
     "per output element: 2 FLOPs per coordinate to unnormalise, + nearest 1 op, linear 2·2^r "
     "FLOPs, cubic 2·4^r FLOPs (r spatial axes)"},
    {"AffineGrid", "", 20, 0, shape_affine_grid, cost_affine_grid, 0, 0,
     "2·(r+1) vector FLOPs per output element (theta times the base coordinate)"},
    {"CenterCropPad", "", 18, 0, shape_center_crop_pad, cost_center_crop_pad, 0, 0,
     "0 FLOPs; reads the centre it keeps (min of input and output along each axis), writes its output"},
    VIEW("BitCast", 26, 0, shape_bitcast, "view: the same bytes read as another type, 0 FLOPs, 0 bytes"),
    {"TensorScatter", "", 24, 0, shape_tensor_scatter, cost_tensor_scatter, 0, 0,
     "0 FLOPs; in place: reads the update and indices, writes the update-sized region"},
    MOVE("SequenceConstruct", 11, 0, shape_sequence_construct, "0 FLOPs; sequences are not costed as tensors"),
    MOVE("SequenceEmpty", 11, 0, shape_sequence_empty, "0 FLOPs"),
    MOVE("SequenceInsert", 11, 0, shape_sequence_insert, "0 FLOPs; reads the inserted tensor"),
    MOVE("SequenceErase", 11, 0, shape_sequence_erase, "0 FLOPs"),
    MOVE("SequenceAt", 11, 0, shape_sequence_at, "0 FLOPs; writes the picked element"),
    MOVE("SequenceLength", 11, 0, shape_sequence_length, "0 FLOPs"),
    MOVE("SplitToSequence", 11, 0, shape_split_to_sequence, COPY_DOC),
    MOVE("ConcatFromSequence", 11, 0, shape_concat_from_sequence, COPY_DOC),
    MOVE("Optional", 15, 0, shape_optional, "0 FLOPs"),
    MOVE("OptionalHasElement", 15, 0, shape_optional_has_element, "0 FLOPs"),
    MOVE("OptionalGetElement", 15, 0, shape_optional_get_element, "0 FLOPs"),
};
RL_FAMILY(movement, ops);
