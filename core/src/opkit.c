/* Helpers shared by the operator families: attributes, outputs, broadcasting. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph.h"

rl_value *rl_in(const rl_node *n, int i) {
    if (i < 0 || i >= n->n_in) return NULL;
    return n->inv[i];
}

rl_value *rl_out(const rl_node *n, int i) {
    if (i < 0 || i >= n->n_out) return NULL;
    return n->outv[i];
}

bool rl_shape_known(const rl_value *v) {
    if (!v || v->rank < 0) return false;
    for (int i = 0; i < v->rank; i++)
        if (v->dims[i] < 0) return false;
    return true;
}

int64_t rl_numel(const rl_value *v) {
    if (!rl_shape_known(v)) return -1;
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++)
        if (!rl_mul_ok(n, v->dims[i], &n)) return -1;
    return n;
}

bool rl_dims_countable(int rank, const int64_t *dims) {
    int64_t total = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 0) continue;
        if (dims[k] > RL_MAX_ELEMS || !rl_mul_ok(total, dims[k], &total) || total > RL_MAX_ELEMS) return false;
    }
    return true;
}

void rl_dims_overflow(rl_ctx *c, const rl_value *v, int rank, const int64_t *dims, const char *where,
                      const char *what) {
    char shape[200];
    size_t len = (size_t)snprintf(shape, sizeof shape, "[");
    for (int k = 0; k < rank && len < sizeof shape; k++)
        len += (size_t)snprintf(shape + len, sizeof shape - len, k ? ",%lld" : "%lld", (long long)dims[k]);
    if (len < sizeof shape) snprintf(shape + len, sizeof shape - len, "]");
    rl_error_set(c->err, "dim_overflow", where,
                 "%s '%.200s' would have the shape %s: more than 2^53 elements (or a dimension past "
                 "2^53), which no real tensor has; check the model's dimensions and the sizes given "
                 "to symbolic dims", what, v && v->name ? v->name : "?", shape);
}

double rl_numel_d(const rl_value *v) {
    int64_t n = rl_numel(v);
    return n < 0 ? 0.0 : (double)n;
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

const char *rl_attr_s(const rl_node *n, const char *name, const char *def) {
    const Onnx__AttributeProto *a = rl_attr(n, name);
    if (!a || !a->has_s) return def;
    /* protobuf-c bytes are not NUL-terminated; attribute strings are short */
    static _Thread_local char buf[4][256];
    static _Thread_local int k;
    char *b = buf[k++ & 3];
    size_t len = a->s.len < 255 ? a->s.len : 255;
    memcpy(b, a->s.data, len);
    b[len] = 0;
    return b;
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

void rl_set_out_contents(rl_ctx *c, rl_node *n, int i, int64_t count, const int64_t *ival,
                         const double *fval) {
    rl_value *v = rl_out(n, i);
    if (!v || count < 0 || count > RL_FOLD_MAX_ELEMS) return;
    int64_t *iv = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *iv);
    double *fv = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *fv);
    if (!iv || !fv) return;
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

double rl_value_bytes(const rl_ctx *c, const rl_value *v) {
    if (!v || v->type != RL_TYPE_TENSOR) return 0;
    return rl_numel_d(v) * rl_elem_bytes(c, v->dtype);
}

void rl_cost_read_part(const rl_ctx *c, rl_cost *k, const rl_value *v, double elements) {
    if (!v || v->type != RL_TYPE_TENSOR) return;
    double all = rl_value_bytes(c, v), part = (elements > 0 ? elements : 0) * rl_elem_bytes(c, v->dtype);
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
