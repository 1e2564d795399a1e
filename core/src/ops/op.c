/* The op kit: helpers for the operator families. Each one's contract
 * (ownership, lifetime, errors) is in op.h; comments here say why. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "op.h"
#include "../storage.h"

rl_value *rl_in(const rl_node *n, int i) {
    if (i < 0 || i >= n->n_in) return NULL;
    return n->inv[i];
}

rl_value *rl_out(const rl_node *n, int i) {
    if (i < 0 || i >= n->n_out) return NULL;
    return n->outv[i];
}






const Onnx__AttributeProto *rl_attr(const rl_node *n, const char *name) {
    if (!n->proto) return NULL;
    for (size_t i = 0; i < n->proto->n_attribute; i++) {
        const Onnx__AttributeProto *a = n->proto->attribute[i];
        if (a->name && strcmp(a->name, name) == 0) return a;
    }
    return NULL;
}

/* The one place an attribute becomes an integer. A FLOAT attribute read as
 * an integer (an exporter's type slip) must be a whole number inside int64:
 * converting NaN, an infinity or 1e30 is undefined behaviour in C. Anything
 * outside [lo, hi] is the model's error, reported once as bad_attribute
 * naming the node and the attribute; the caller gets `def` back and the
 * inference driver stops at the recorded error. */
static int64_t attr_int_checked(rl_ctx *c, const rl_node *n, const char *name, int64_t def, int64_t lo,
                                int64_t hi, const char *range) {
    const Onnx__AttributeProto *a = rl_attr(n, name);
    if (!a || (!a->has_i && !a->has_f)) return def;
    if (a->has_i) {
        if (a->i >= lo && a->i <= hi) return a->i;
        if (c)
            rl_error_set(c->err, "bad_attribute", n->name,
                     "node '%s' (%s): attribute '%s' is %lld; it must be %s", n->name, n->op_type, name,
                     (long long)a->i, range);
        return def;
    }
    double f = a->f;
    /* 2^63 is exactly representable; every double below it converts */
    if (f == f && f > -9.2233720368547758e18 && f < 9.2233720368547758e18 && f == (double)(int64_t)f) {
        int64_t v = (int64_t)f;
        if (v >= lo && v <= hi) return v;
    }
    if (c)
        rl_error_set(c->err, "bad_attribute", n->name,
                     "node '%s' (%s): attribute '%s' is the number %g; it must be %s", n->name, n->op_type,
                     name, f, range);
    return def;
}

int64_t rl_attr_i(rl_ctx *c, const rl_node *n, const char *name, int64_t def) {
    return attr_int_checked(c, n, name, def, INT64_MIN, INT64_MAX, "a whole number within 64-bit range");
}

int64_t rl_attr_i_in(rl_ctx *c, const rl_node *n, const char *name, int64_t def, int64_t lo, int64_t hi) {
    char range[96];
    if (hi == INT64_MAX) snprintf(range, sizeof range, "a whole number of at least %lld", (long long)lo);
    else snprintf(range, sizeof range, "a whole number from %lld to %lld", (long long)lo, (long long)hi);
    return attr_int_checked(c, n, name, def, lo, hi, range);
}

double rl_attr_f(const rl_node *n, const char *name, double def) {
    const Onnx__AttributeProto *a = rl_attr(n, name);
    if (!a) return def;
    if (a->has_f) return a->f;
    if (a->has_i) return (double)a->i;
    return def;
}

const char *rl_attr_s(rl_ctx *c, const rl_node *n, const char *name, const char *def) {
    const Onnx__AttributeProto *a = rl_attr(n, name);
    if (!a || !a->has_s) return def;
    /* protobuf-c bytes are not NUL-terminated: a copy that lives as long as the analysis */
    char *s = rl_arena_alloc(c->arena, a->s.len + 1);
    if (!s) {
        rl_error_set(c->err, "out_of_memory", n->name, "out of memory");
        return def;
    }
    if (a->s.len) memcpy(s, a->s.data, a->s.len);
    return s;
}

int rl_attr_ints(const rl_node *n, const char *name, const int64_t **vals) {
    const Onnx__AttributeProto *a = rl_attr(n, name);
    if (!a) return -1;
    *vals = a->ints;
    return (int)a->n_ints;
}

int rl_attr_floats(const rl_node *n, const char *name, const float **vals) {
    const Onnx__AttributeProto *a = rl_attr(n, name);
    if (!a) return -1;
    *vals = a->floats;
    return (int)a->n_floats;
}

int rl_bad(rl_ctx *c, const rl_node *n, const char *fmt, ...) {
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rl_error_set(c->err, "bad_node", n->name, "node '%s' (%s): %s", n->name, n->op_type, buf);
    return RL_FAIL;
}

int rl_set_out(rl_ctx *c, rl_node *n, int i, int dtype, int rank, const int64_t *dims) {
    rl_value *v = rl_out(n, i);
    if (!v) return RL_OK;
    if (rank > (int)c->model->limits.max_rank || rank > RL_MAX_RANK_HARD) {
        rl_error_set(c->err, "limit_rank", n->name, "node '%s' (%s) would produce a tensor of rank %d, "
                     "more than the limit of %u; raise limits.max_rank (at most %d) if the model is "
                     "genuine", n->name, n->op_type, rank, c->model->limits.max_rank, RL_MAX_RANK_HARD);
        return RL_FAIL;
    }
    v->type = RL_TYPE_TENSOR;
    if (dtype) v->dtype = dtype;
    if (rank < 0) {
        v->rank = -1;
        return RL_OK;
    }
    int64_t *d = rl_arena_alloc(c->arena, (size_t)(rank + 1) * sizeof *d);
    if (!d) {
        rl_error_set(c->err, "out_of_memory", n->name, "out of memory");
        return RL_FAIL;
    }
    for (int k = 0; k < rank; k++) {
        d[k] = dims[k];
        if (d[k] < -1) return rl_bad(c, n, "output %d would have the negative dimension %lld", i, (long long)d[k]);
    }
    if (!rl_dims_countable(rank, d)) {
        char what[300];
        snprintf(what, sizeof what, "output %d of node '%.200s' (%.60s)", i, n->name, n->op_type);
        rl_dims_overflow(c, v, rank, d, n->name, what);
        return RL_FAIL;
    }
    v->rank = rank;
    v->dims = d;
    return RL_OK;
}

int rl_shape_like_input(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

int rl_set_out_like(rl_ctx *c, rl_node *n, int i, const rl_value *src) {
    if (!src) return rl_set_out(c, n, i, 0, -1, NULL);
    int r = rl_set_out(c, n, i, src->dtype, src->rank, src->dims);
    rl_value *v = rl_out(n, i);
    if (v && src->type != RL_TYPE_TENSOR) v->type = src->type;
    return r;
}

/* Folded float results (Cast, Mul of floats...) may be NaN or far outside
 * int64; converting those directly is undefined behaviour, so they saturate. */
static int64_t fold_to_i64(double d) {
    if (d != d) return 0;
    if (d >= 9.2233720368547748e18) return INT64_MAX;
    if (d <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)d;
}

/* Arrays for count folded elements and one more (never empty), the extra
 * slot zero: the caller writes the count before any is read. */
static bool fold_arrays(rl_ctx *c, int64_t count, int64_t **iv, double **fv) {
    *iv = rl_arena_alloc_uninit(c->arena, (size_t)(count + 1) * sizeof **iv);
    *fv = rl_arena_alloc_uninit(c->arena, (size_t)(count + 1) * sizeof **fv);
    if (!*iv || !*fv) return false;
    (*iv)[count] = 0;
    (*fv)[count] = 0;
    return true;
}

int rl_fold_alloc(rl_ctx *c, int64_t count, int64_t **iv, double **fv) {
    if (count < 0 || count > RL_FOLD_MAX_ELEMS) return -1;
    return fold_arrays(c, count, iv, fv) ? 0 : -1;
}

void rl_adopt_out_contents(rl_node *n, int i, int64_t count, int64_t *iv, double *fv) {
    rl_value *v = rl_out(n, i);
    if (!v || count < 0 || count > RL_FOLD_MAX_ELEMS) return;
    v->ival = iv;
    v->fval = fv;
    v->n_known = count;
}

void rl_set_out_contents(rl_ctx *c, rl_node *n, int i, int64_t count, const int64_t *ival,
                         const double *fval) {
    rl_value *v = rl_out(n, i);
    if (!v || count < 0 || count > RL_FOLD_MAX_ELEMS) return;
    int64_t *iv;
    double *fv;
    if (!fold_arrays(c, count, &iv, &fv)) return;
    for (int64_t k = 0; k < count; k++) {
        iv[k] = ival ? ival[k] : fold_to_i64(fval[k]);
        fv[k] = fval ? fval[k] : (double)ival[k];
    }
    v->ival = iv;
    v->fval = fv;
    v->n_known = count;
}

int rl_broadcast(rl_ctx *c, const rl_node *n, int ra, const int64_t *a, int rb, const int64_t *b,
                 int64_t *out) {
    int r = ra > rb ? ra : rb;
    for (int k = 0; k < r; k++) {
        int ia = k - (r - ra), ib = k - (r - rb);
        int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
        if (da == 1) out[k] = db;
        else if (db == 1) out[k] = da;
        else if (da == -1 || db == -1) out[k] = da == -1 ? db : da;
        else if (da == db) out[k] = da;
        else {
            rl_bad(c, n, "cannot broadcast dimension %lld against %lld (axis %d of the result)",
                   (long long)da, (long long)db, k);
            return -1;
        }
    }
    return r;
}

int rl_axis(rl_ctx *c, const rl_node *n, int64_t axis, int rank) {
    if (axis < -rank || axis >= (rank > 0 ? rank : 1)) {
        rl_bad(c, n, "axis %lld is out of range for rank %d", (long long)axis, rank);
        return -1;
    }
    return (int)(axis < 0 ? axis + rank : axis);
}

int64_t rl_in_ints(const rl_node *n, int i, const int64_t **vals) {
    rl_value *v = rl_in(n, i);
    if (!v || v->n_known < 0) return -1;
    *vals = v->ival;
    return v->n_known;
}

int64_t rl_in_floats(const rl_node *n, int i, const double **vals) {
    rl_value *v = rl_in(n, i);
    if (!v || v->n_known < 0) return -1;
    *vals = v->fval;
    return v->n_known;
}

double rl_elem_bytes(const rl_ctx *c, int dtype) {
    if (c->precision_dtype && rl_dtype_is_float(dtype)) dtype = c->precision_dtype;
    return rl_dtype_bits(dtype) / 8.0;
}

double rl_value_storage_bytes(const rl_value *v) {
    if (v->stored_bytes > 0) return v->stored_bytes;
    return v->storage != RL_ST_DTYPE ? rl_storage_bytes(v->storage, rl_numel_d(v)) : -1;
}

/* A weight with a storage of its own (storage.h) keeps its stored size
 * whatever precision the request names, as a packed int4 weight does. */
double rl_value_bytes(const rl_ctx *c, const rl_value *v) {
    if (!v || v->type != RL_TYPE_TENSOR) return 0;
    double stored = rl_value_storage_bytes(v);
    return stored >= 0 ? stored : rl_numel_d(v) * rl_elem_bytes(c, v->dtype);
}

bool rl_block_quantized(const rl_value *v) {
    return v && v->storage > RL_ST_DTYPE && v->storage < RL_ST_COUNT && rl_storage_table[v->storage].quantized;
}

void rl_cost_read_part(const rl_ctx *c, rl_cost *k, const rl_value *v, double elements) {
    if (!v || v->type != RL_TYPE_TENSOR) return;
    double all = rl_value_bytes(c, v);
    double each = v->stored_bytes > 0 && rl_numel_d(v) > 0 ? all / rl_numel_d(v)
                  : v->storage != RL_ST_DTYPE     ? rl_storage_elem_bytes(v->storage)
                                                  : rl_elem_bytes(c, v->dtype);
    double part = (elements > 0 ? elements : 0) * each;
    if (!(part < all)) return;
    if (v->kind == RL_VALUE_WEIGHT || v->kind == RL_VALUE_CONSTANT) k->weight_bytes -= all - part;
    else k->input_bytes -= all - part;
}

void rl_needs_runtime(rl_node *n, int i) {
    if (!n->runtime_dep) n->runtime_input = i;
    n->runtime_dep = true;
}

void rl_set_out_bounds(rl_ctx *c, rl_node *n, int i, const int64_t *dim_max, bool one_or_max) {
    rl_value *v = rl_out(n, i);
    if (!v || v->rank <= 0) return;
    int64_t *m = rl_arena_alloc(c->arena, (size_t)v->rank * sizeof *m);
    if (!m) return;
    memcpy(m, dim_max, (size_t)v->rank * sizeof *m);
    v->dim_max = m;
    v->dims_one_or_max = one_or_max;
}

/* ------------------------------------ outputs, windows, folding, axes -- */
int rl_set_out_unknown(rl_ctx *c, rl_node *n, int i, int dtype, int rank) {
    int64_t dims[RL_MAX_RANK_HARD];
    if (rank > RL_MAX_RANK_HARD) rank = -1;
    for (int k = 0; k < rank; k++) dims[k] = -1;
    return rl_set_out(c, n, i, dtype, rank, rank > 0 ? dims : NULL) == RL_OK ? RL_UNKNOWN : RL_FAIL;
}

rl_ctx *rl_quiet_ctx(rl_quiet *q, const rl_ctx *c) {
    q->ctx = *c;
    memset(&q->scratch, 0, sizeof q->scratch);
    q->ctx.err = &q->scratch;
    return &q->ctx;
}

/* Product of dims[from..to), -1 if any is unknown or it overflows. */
int64_t rl_dims_prod(const int64_t *dims, int from, int to) {
    int64_t p = 1;
    for (int k = from; k < to; k++) {
        if (dims[k] < 0 || !rl_mul_ok(p, dims[k], &p)) return -1;
    }
    return p;
}

bool rl_op_is(const rl_node *n, const char *op) { return strcmp(n->op_type, op) == 0; }

int rl_value_dtype(const rl_value *v) { return v ? v->dtype : 0; }

int rl_in_dtype(const rl_node *n, int i) { return rl_value_dtype(rl_in(n, i)); }

int64_t rl_in_dim(const rl_node *n, int i, int axis) {
    const rl_value *v = rl_in(n, i);
    if (!v || v->rank < 0 || axis < 0 || axis >= v->rank) return -1;
    return v->dims[axis];
}

int rl_window_read(rl_ctx *c, const rl_node *n, const rl_value *w, int nsp, rl_window *gm) {
    if (nsp < 1 || nsp > RL_MAX_RANK_HARD - 2) return rl_bad(c, n, "unsupported spatial rank %d", nsp);
    gm->nsp = nsp;
    const int64_t *v = NULL;
    int cnt = rl_attr_ints(n, "kernel_shape", &v);
    if (cnt >= 0 && cnt != nsp) return rl_bad(c, n, "kernel_shape has %d entries for %d spatial axes", cnt, nsp);
    for (int i = 0; i < nsp; i++) {
        if (cnt >= 0) gm->k[i] = v[i];
        else if (w && w->rank == nsp + 2) gm->k[i] = w->dims[i + 2];
        else gm->k[i] = -1;
        if (cnt >= 0 && (v[i] < 1 || v[i] > RL_MAX_ELEMS))
            return rl_bad(c, n, "kernel size %lld is not a positive tensor size", (long long)v[i]);
    }
    cnt = rl_attr_ints(n, "strides", &v);
    if (cnt >= 0 && cnt != nsp) return rl_bad(c, n, "strides has %d entries for %d spatial axes", cnt, nsp);
    for (int i = 0; i < nsp; i++) {
        gm->s[i] = cnt >= 0 ? v[i] : 1;
        if (gm->s[i] < 1 || gm->s[i] > RL_MAX_ELEMS)
            return rl_bad(c, n, "stride %lld is not a positive tensor size", (long long)gm->s[i]);
    }
    cnt = rl_attr_ints(n, "dilations", &v);
    if (cnt >= 0 && cnt != nsp) return rl_bad(c, n, "dilations has %d entries for %d spatial axes", cnt, nsp);
    for (int i = 0; i < nsp; i++) {
        gm->d[i] = cnt >= 0 ? v[i] : 1;
        if (gm->d[i] < 1 || gm->d[i] > RL_MAX_ELEMS)
            return rl_bad(c, n, "dilation %lld is not a positive tensor size", (long long)gm->d[i]);
    }
    cnt = rl_attr_ints(n, "pads", &v);
    if (cnt >= 0 && cnt != 2 * nsp) return rl_bad(c, n, "pads has %d entries for %d spatial axes", cnt, nsp);
    for (int i = 0; i < nsp; i++) {
        gm->pb[i] = cnt >= 0 ? v[i] : 0;
        gm->pe[i] = cnt >= 0 ? v[i + nsp] : 0;
        if (gm->pb[i] < 0 || gm->pe[i] < 0) return rl_bad(c, n, "negative padding");
        if (gm->pb[i] > RL_MAX_ELEMS || gm->pe[i] > RL_MAX_ELEMS)
            return rl_bad(c, n, "padding %lld is past any tensor size",
                          (long long)(gm->pb[i] > gm->pe[i] ? gm->pb[i] : gm->pe[i]));
    }
    const char *ap = rl_attr_s(c, n, "auto_pad", "NOTSET");
    strncpy(gm->auto_pad, ap, sizeof gm->auto_pad - 1);
    gm->auto_pad[sizeof gm->auto_pad - 1] = 0;
    return RL_OK;
}

bool rl_window_same_pad(const rl_window *gm) {
    return strcmp(gm->auto_pad, "SAME_UPPER") == 0 || strcmp(gm->auto_pad, "SAME_LOWER") == 0;
}

/* Output length of one axis of a convolution or pooling window; -1
 * unknown, -2 when the window is larger than the padded input. Every
 * operand is at most RL_MAX_ELEMS (rl_window_read and the dim invariant), so only
 * the dilated window d·(k-1) can overflow, and it is checked. */
int64_t rl_window_out_len(const rl_window *gm, int i, int64_t in, bool ceil_mode) {
    if (in < 0 || gm->k[i] < 0) return -1;
    if (rl_window_same_pad(gm)) return (in + gm->s[i] - 1) / gm->s[i];
    int64_t eff;
    if (gm->k[i] < 1 || !rl_mul_ok(gm->d[i], gm->k[i] - 1, &eff) || eff > 4 * RL_MAX_ELEMS) return -2;
    eff += 1;
    int64_t span = in - eff;
    if (strcmp(gm->auto_pad, "VALID") != 0) span += gm->pb[i] + gm->pe[i];
    if (span < 0) return -2;
    int64_t out = span / gm->s[i] + 1;
    if (ceil_mode && span % gm->s[i]) {
        out++;
        /* the last window must start inside the input or the left padding */
        if ((out - 1) * gm->s[i] >= in + gm->pb[i]) out--;
    }
    return out;
}

int rl_set_window_out(rl_ctx *c, rl_node *n, int idx, int dt, const rl_value *x, const rl_window *gm,
                          int64_t channels, bool ceil_mode) {
    int64_t out[RL_MAX_RANK_HARD];
    out[0] = x->dims[0];
    out[1] = channels;
    for (int i = 0; i < gm->nsp; i++) {
        out[i + 2] = rl_window_out_len(gm, i, x->dims[i + 2], ceil_mode);
        if (out[i + 2] == -2)
            return rl_bad(c, n, "the window (kernel %lld, dilation %lld) is larger than the padded input (%lld) on spatial axis %d",
                          (long long)gm->k[i], (long long)gm->d[i], (long long)x->dims[i + 2], i);
    }
    if (rl_set_out(c, n, idx, dt, gm->nsp + 2, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, idx)) ? RL_OK : RL_UNKNOWN;
}

bool rl_contents_known(const rl_value *v) {
    if (!v || v->n_known < 0 || !v->ival || !v->fval) return false;
    int64_t numel = rl_numel(v);
    return numel >= 0 && numel == v->n_known;
}

int rl_set_out_status(rl_ctx *c, rl_node *n, int i, int dtype, int rank, const int64_t *dims) {
    if (rl_set_out(c, n, i, dtype, rank, dims) != RL_OK) return RL_FAIL;
    if (rank < 0) return RL_UNKNOWN;
    for (int k = 0; k < rank; k++)
        if (dims[k] < 0) return RL_UNKNOWN;
    return RL_OK;
}

void rl_unravel(int64_t flat, int rank, const int64_t *dims, int64_t *coord) {
    for (int k = rank - 1; k >= 0; k--) {
        int64_t d = dims[k] > 0 ? dims[k] : 1;
        coord[k] = flat % d;
        flat /= d;
    }
}

int64_t rl_ravel(int rank, const int64_t *dims, const int64_t *coord) {
    int64_t idx = 0;
    for (int k = 0; k < rank; k++) idx = idx * dims[k] + coord[k];
    return idx;
}

void rl_fold_indexed(rl_ctx *c, rl_node *n, int out_i, const rl_value *src, int64_t count,
                         const int64_t *idx) {
    if (!rl_contents_known(src)) return;
    int64_t *iv;
    double *fv;
    if (rl_fold_alloc(c, count, &iv, &fv) < 0) return;
    for (int64_t e = 0; e < count; e++) {
        if (idx[e] < 0 || idx[e] >= src->n_known) return;
        iv[e] = src->ival[idx[e]];
        fv[e] = src->fval[idx[e]];
    }
    rl_adopt_out_contents(n, out_i, count, iv, fv);
}

void rl_fold_same(rl_ctx *c, rl_node *n, int out_i, const rl_value *src) {
    if (!rl_contents_known(src)) return;
    rl_value *o = rl_out(n, out_i);
    if (o && rl_numel(o) == src->n_known) rl_set_out_contents(c, n, out_i, src->n_known, src->ival, src->fval);
}

int64_t *rl_fold_scratch(rl_ctx *c, const rl_node *n, int out_i, const rl_value *src, int64_t *count) {
    const rl_value *o = rl_out(n, out_i);
    *count = rl_numel(o);
    if (!rl_contents_known(src) || *count < 0 || *count > RL_FOLD_MAX_ELEMS) return NULL;
    return rl_arena_alloc_uninit(c->arena, (size_t)(*count + 1) * sizeof(int64_t));
}

void rl_fold_moved(rl_ctx *c, rl_node *n, int out_i, const int64_t *out_dims, const rl_fold_map *m,
                       rl_fold_coord_fn to_src) {
    int64_t count;
    int64_t *idx = rl_fold_scratch(c, n, out_i, m->src, &count);
    if (!idx) return;
    int64_t oc[RL_MAX_RANK_HARD], ic[RL_MAX_RANK_HARD];
    for (int64_t e = 0; e < count; e++) {
        rl_unravel(e, m->out_rank, out_dims, oc);
        to_src(m, oc, ic);
        idx[e] = rl_ravel(m->src->rank, m->src->dims, ic);
    }
    rl_fold_indexed(c, n, out_i, m->src, count, idx);
}

int64_t rl_ints_arg(rl_node *n, int input, const char *attr, bool from_input,
                        const int64_t **vals) {
    if (from_input) {
        rl_value *v = rl_in(n, input);
        if (!v) return -2;
        if (!rl_contents_known(v)) {
            rl_needs_runtime(n, input);
            return -1;
        }
        *vals = v->ival;
        return v->n_known;
    }
    int cnt = rl_attr_ints(n, attr, vals);
    return cnt < 0 ? -2 : cnt;
}

int64_t rl_in_runtime_len(const rl_node *n, int input) {
    const rl_value *v = rl_in(n, input);
    return v && v->rank == 1 && v->dims[0] >= 0 ? v->dims[0] : -1;
}

int rl_resolve_axes(rl_ctx *c, const rl_node *n, const int64_t *axes, int64_t cnt, int64_t count, int rank,
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

int rl_set_out_unknown_along_axes(rl_ctx *c, rl_node *n, const rl_value *x, const int64_t *axes, int64_t cnt,
                              bool shrinks) {
    int r = x->rank, ax[RL_MAX_RANK_HARD];
    int64_t dims[RL_MAX_RANK_HARD];
    for (int k = 0; k < r; k++) dims[k] = cnt >= 0 ? x->dims[k] : -1;
    int na = cnt >= 0 ? rl_resolve_axes(c, n, axes, cnt, 0, r, ax) : 0;
    if (na < 0) return RL_FAIL;
    for (int i = 0; i < na; i++) dims[ax[i]] = -1;
    if (rl_set_out_status(c, n, 0, x->dtype, r, dims) == RL_FAIL) return RL_FAIL;
    if (shrinks) rl_set_out_bounds(c, n, 0, x->dims, false);
    return RL_UNKNOWN;
}

bool rl_in_scalar(rl_node *n, int i, double *out) {
    rl_value *v = rl_in(n, i);
    if (!rl_contents_known(v) || v->n_known < 1) {
        if (v) rl_needs_runtime(n, i);
        return false;
    }
    *out = v->fval[0];
    return true;
}

/* Expected number of distinct experts that T tokens routed to k of E each
 * touch, under uniform routing: E·(1 − (1 − k/E)^T) (op.h). */
double rl_moe_experts_touched(double experts, double k, double tokens) {
    if (experts <= 0) return 0;
    if (k >= experts) return experts;
    return experts * (1 - pow(1 - k / experts, tokens));
}
