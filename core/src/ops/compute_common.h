/* Small helpers shared by the compute op families (matmul, conv, pool, norm,
 * reduce, rnn, attention). Static inline so each family stays one file. */
#ifndef ROOFLENS_COMPUTE_COMMON_H
#define ROOFLENS_COMPUTE_COMMON_H
#include <string.h>

#include "../graph.h"

/* Output i with unknown shape but a known dtype: the node is still valid. */
static inline int cc_unknown(rl_ctx *c, rl_node *n, int i, int dtype, int rank) {
    int64_t dims[RL_MAX_RANK_HARD];
    if (rank > RL_MAX_RANK_HARD) rank = -1;
    for (int k = 0; k < rank; k++) dims[k] = -1;
    return rl_set_out(c, n, i, dtype, rank, rank > 0 ? dims : NULL) == RL_OK ? RL_UNKNOWN : RL_FAIL;
}

/* A context whose errors land in a scratch record: a cost function re-reads
 * what the shape function already validated and reported, and must not
 * overwrite the model's error. Use: cc_quiet q; helper(cc_quiet_ctx(&q, c), ...). */
typedef struct cc_quiet {
    rl_ctx ctx;
    rl_error scratch;
} cc_quiet;

static inline rl_ctx *cc_quiet_ctx(cc_quiet *q, const rl_ctx *c) {
    q->ctx = *c;
    memset(&q->scratch, 0, sizeof q->scratch);
    q->ctx.err = &q->scratch;
    return &q->ctx;
}

/* Product of dims[from..to), -1 if any is unknown or it overflows. */
static inline int64_t cc_prod(const int64_t *dims, int from, int to) {
    int64_t p = 1;
    for (int k = from; k < to; k++) {
        if (dims[k] < 0 || !rl_mul_ok(p, dims[k], &p)) return -1;
    }
    return p;
}

static inline bool cc_is(const rl_node *n, const char *op) { return strcmp(n->op_type, op) == 0; }

/* Dtype of input i, 0 when absent. */
static inline int cc_dtype(const rl_node *n, int i) {
    const rl_value *v = rl_in(n, i);
    return v ? v->dtype : 0;
}

/* A dim of input i, -1 when unknown. */
static inline int64_t cc_dim(const rl_node *n, int i, int axis) {
    const rl_value *v = rl_in(n, i);
    if (!v || v->rank < 0 || axis < 0 || axis >= v->rank) return -1;
    return v->dims[axis];
}

/* Per-spatial-axis geometry read from the attributes. */
typedef struct conv_geom {
    int nsp;                               /* spatial rank */
    int64_t k[RL_MAX_RANK_HARD];           /* kernel */
    int64_t s[RL_MAX_RANK_HARD];           /* strides */
    int64_t d[RL_MAX_RANK_HARD];           /* dilations */
    int64_t pb[RL_MAX_RANK_HARD];          /* pad at the beginning */
    int64_t pe[RL_MAX_RANK_HARD];          /* pad at the end */
    char auto_pad[32];
} conv_geom;

/* Reads kernel_shape (or the weight's trailing dims), strides, dilations,
 * pads and auto_pad; RL_FAIL on values no runtime would accept. */
static inline int read_geom(rl_ctx *c, const rl_node *n, const rl_value *w, int nsp, conv_geom *gm) {
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
    const char *ap = rl_attr_s(n, "auto_pad", "NOTSET");
    strncpy(gm->auto_pad, ap, sizeof gm->auto_pad - 1);
    gm->auto_pad[sizeof gm->auto_pad - 1] = 0;
    return RL_OK;
}

static inline bool is_same_pad(const conv_geom *gm) {
    return strcmp(gm->auto_pad, "SAME_UPPER") == 0 || strcmp(gm->auto_pad, "SAME_LOWER") == 0;
}

/* Output length of one axis of a convolution or pooling window; -1
 * unknown, -2 when the window is larger than the padded input. Every
 * operand is at most RL_MAX_ELEMS (read_geom and the dim invariant), so only
 * the dilated window d·(k-1) can overflow, and it is checked. */
static inline int64_t window_out(const conv_geom *gm, int i, int64_t in, bool ceil_mode) {
    if (in < 0 || gm->k[i] < 0) return -1;
    if (is_same_pad(gm)) return (in + gm->s[i] - 1) / gm->s[i];
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

/* Conv-like output [N, Cout, spatial...] from X's dims and the geometry. */
static inline int set_window_out(rl_ctx *c, rl_node *n, int idx, int dt, const rl_value *x, const conv_geom *gm,
                          int64_t channels, bool ceil_mode) {
    int64_t out[RL_MAX_RANK_HARD];
    out[0] = x->dims[0];
    out[1] = channels;
    for (int i = 0; i < gm->nsp; i++) {
        out[i + 2] = window_out(gm, i, x->dims[i + 2], ceil_mode);
        if (out[i + 2] == -2)
            return rl_bad(c, n, "the window (kernel %lld, dilation %lld) is larger than the padded input (%lld) on spatial axis %d",
                          (long long)gm->k[i], (long long)gm->d[i], (long long)x->dims[i + 2], i);
    }
    if (rl_set_out(c, n, idx, dt, gm->nsp + 2, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, idx)) ? RL_OK : RL_UNKNOWN;
}

#endif
