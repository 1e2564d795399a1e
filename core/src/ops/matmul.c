/* Op family: matmul (MatMul, Gemm, Einsum and their quantized and
 * com.microsoft variants). Matrix products count 2 FLOP per MAC as
 * matrix_flops; scaling and bias terms count as vector_flops. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "op.h"
#include "families.h"

/* ----------------------------------------------------------------- MatMul -- */

/* Where A and B sit among the inputs, and the output dtype, per variant. */
static void matmul_operands(const rl_node *n, int *ia, int *ib, int *dtype) {
    *ia = 0;
    *ib = 1;
    *dtype = rl_in_dtype(n, 0);
    if (rl_op_is(n, "QLinearMatMul")) {
        *ib = 3;
        /* the output takes y_zero_point's type (uint8 or int8) */
        *dtype = rl_in_dtype(n, 7) ? rl_in_dtype(n, 7) : rl_in_dtype(n, 0);
    } else if (rl_op_is(n, "MatMulInteger") || rl_op_is(n, "MatMulInteger16")) {
        *dtype = RL_DT_INT32;
    } else if (rl_op_is(n, "MatMulIntegerToFloat")) {
        *dtype = rl_in_dtype(n, 2) ? rl_in_dtype(n, 2) : RL_DT_FLOAT; /* a_scale's float type */
    } else if (rl_op_is(n, "DynamicQuantizeMatMul")) {
        *dtype = rl_in_dtype(n, 0) ? rl_in_dtype(n, 0) : RL_DT_FLOAT;
    }
}

/* An operand as the product sees it. 1-D operands are promoted (A gets a
 * leading 1, B a trailing 1; numpy matmul). FusedMatMul (onnxruntime
 * ContribOperators.md) first applies transBatchA/B, which transposes dim 0
 * with the batch dims, the permutation [1, ..., r-2, 0, r-1], then transA/B,
 * which swaps the last two dims. Returns the rank written to dims. */
static int matmul_operand(rl_ctx *c, const rl_node *n, const rl_value *v, bool is_b, int64_t *dims) {
    int r = v->rank;
    if (r == 1) {
        dims[is_b ? 0 : 1] = v->dims[0];
        dims[is_b ? 1 : 0] = 1;
        return 2;
    }
    bool fused = rl_op_is(n, "FusedMatMul");
    bool trans = fused && rl_attr_i(c, n, is_b ? "transB" : "transA", 0) != 0;
    bool trans_batch = fused && rl_attr_i(c, n, is_b ? "transBatchB" : "transBatchA", 0) != 0;
    if (trans_batch && r > 2) {
        memcpy(dims, v->dims + 1, (size_t)(r - 2) * sizeof *dims);
        dims[r - 2] = v->dims[0];
        dims[r - 1] = v->dims[r - 1];
    } else {
        memcpy(dims, v->dims, (size_t)r * sizeof *dims);
    }
    if (trans) {
        int64_t t = dims[r - 1];
        dims[r - 1] = dims[r - 2];
        dims[r - 2] = t;
    }
    return r;
}

/* [batch..., M, K] x [batch..., K, N] with the batch dims broadcast; a
 * promoted 1-D operand's added dim is removed from the result again. */
static int shape_matmul(rl_ctx *c, rl_graph *g, rl_node *n) {
    int ia, ib, dt;
    matmul_operands(n, &ia, &ib, &dt);
    rl_value *a = rl_in(n, ia), *b = rl_in(n, ib);
    if (!a || !b) return rl_bad(c, n, "needs two operands");
    if (a->rank < 0 || b->rank < 0) return rl_set_out_unknown(c, n, 0, dt, -1);
    if (a->rank == 0 || b->rank == 0) return rl_bad(c, n, "operands must have rank 1 or more");
    if (a->rank > RL_MAX_RANK_HARD || b->rank > RL_MAX_RANK_HARD) return rl_bad(c, n, "rank too large");
    int64_t ad[RL_MAX_RANK_HARD + 1], bd[RL_MAX_RANK_HARD + 1];
    int ra = matmul_operand(c, n, a, false, ad), rb = matmul_operand(c, n, b, true, bd);
    int64_t k1 = ad[ra - 1], k2 = bd[rb - 2];
    if (k1 >= 0 && k2 >= 0 && k1 != k2)
        return rl_bad(c, n, "inner dimensions differ (%lld vs %lld)", (long long)k1, (long long)k2);
    int64_t out[RL_MAX_RANK_HARD + 2];
    int rbatch = rl_broadcast(c, n, ra - 2, ad, rb - 2, bd, out);
    if (rbatch < 0) return RL_FAIL;
    int r = rbatch;
    if (a->rank > 1) out[r++] = ad[ra - 2];
    if (b->rank > 1) out[r++] = bd[rb - 1];
    if (rl_set_out(c, n, 0, dt, r, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* K of a matmul-like node: the last dim of A as the product sees it. */
static double matmul_k(rl_ctx *c, const rl_node *n, int ia) {
    const rl_value *a = rl_in(n, ia);
    if (!a || a->rank < 1 || a->rank > RL_MAX_RANK_HARD) return 0;
    int64_t ad[RL_MAX_RANK_HARD + 1];
    int ra = matmul_operand(c, n, a, false, ad);
    return ad[ra - 1] < 0 ? 0 : (double)ad[ra - 1];
}

/* Every output element is a K-long dot product: macs = outputs x K (this is
 * batch*M*N*K with the broadcast batch folded into the output count). */
static void cost_matmul(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    int ia, ib, dt;
    matmul_operands(n, &ia, &ib, &dt);
    double outs = rl_numel_d(rl_out(n, 0));
    k->macs = outs * matmul_k(c, n, ia);
    k->matrix_flops = 2 * k->macs;
    if (rl_op_is(n, "FusedMatMul") && rl_attr_f(n, "alpha", 1.0) != 1.0) k->vector_flops = outs;
    else k->vector_flops = outs * n->op->per_elem;
    if (rl_op_is(n, "DynamicQuantizeMatMul")) /* quantizing A: min/max scan, scale, round */
        k->vector_flops += 3 * rl_numel_d(rl_in(n, 0));
    if (rl_block_quantized(rl_in(n, ib))) k->vector_flops += 2 * rl_numel_d(rl_in(n, ib)); /* dequantize */
}

/* MatMulNBits' attributes, bounded so every product below stays finite and
 * positive: N and K are tensor dims, bits 1..8 (the contrib spec uses 2..8),
 * block_size a positive count (0 = not given). */
typedef struct nbits_attrs {
    int64_t N, K, bits, block;
} nbits_attrs;

static void read_nbits(rl_ctx *c, const rl_node *n, nbits_attrs *a) {
    a->N = rl_attr_i_in(c, n, "N", -1, 0, RL_MAX_ELEMS);
    a->K = rl_attr_i_in(c, n, "K", -1, 0, RL_MAX_ELEMS);
    a->bits = rl_attr_i_in(c, n, "bits", 4, 1, 8);
    a->block = rl_attr_i_in(c, n, "block_size", 0, 1, RL_MAX_ELEMS);
}

/* MatMulNBits: A[..., K] x B packed 4-bit [N, blocks, blob] -> [..., N]. */
static int shape_matmul_nbits(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *a = rl_in(n, 0);
    nbits_attrs at;
    read_nbits(c, n, &at);
    if (c->err->code[0]) return RL_FAIL;
    int64_t N = at.N, K = at.K;
    if (N < 0 || K < 0) return rl_bad(c, n, "needs attributes N and K");
    if (!a) return rl_bad(c, n, "needs input A");
    if (a->rank < 1) return rl_set_out_unknown(c, n, 0, a->dtype, a->rank);
    if (a->dims[a->rank - 1] >= 0 && a->dims[a->rank - 1] != K)
        return rl_bad(c, n, "A's last dimension is not K=%lld", (long long)K);
    int64_t out[RL_MAX_RANK_HARD];
    memcpy(out, a->dims, (size_t)a->rank * sizeof *out);
    out[a->rank - 1] = N;
    if (rl_set_out(c, n, 0, a->dtype, a->rank, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(a) ? RL_OK : RL_UNKNOWN;
}

/* Replaces v's bytes in the default count (weights or inputs, by where v
 * comes from) with the bytes a kernel really reads. */
static void recount_bytes(const rl_ctx *c, const rl_value *v, double real, rl_cost *k) {
    if (!v) return;
    double *bucket = v->kind == RL_VALUE_WEIGHT || v->kind == RL_VALUE_CONSTANT ? &k->weight_bytes : &k->input_bytes;
    *bucket += real - rl_value_bytes(c, v);
}

static void cost_matmul_nbits(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    nbits_attrs at;
    read_nbits(c, n, &at); /* the shape function validated them */
    double K = (double)at.K, N = (double)at.N, bits = (double)at.bits;
    double outs = rl_numel_d(rl_out(n, 0));
    k->macs = outs * K;
    k->matrix_flops = 2 * k->macs;
    /* dequantizing the weights: one multiply-add per weight element */
    k->vector_flops = 2 * K * N;
    /* The packed B is bits/8 bytes per weight whatever its declared uint8
     * shape says, so count it from N, K and bits; scales keep their size. */
    recount_bytes(c, rl_in(n, 1), N * K * bits / 8.0, k);
    /* zero_points (ContribOperators.md): uint8 ones are packed like B, bits
     * per zero point with each of the N rows padded to whole bytes, so
     * N·ceil(blocks·bits/8) bytes; ones of A's float type are not packed and
     * keep their declared size. Both K and block are at most 2^53: no overflow. */
    const rl_value *zp = rl_in(n, 3);
    if (zp && zp->dtype == RL_DT_UINT8 && at.block > 0) {
        double blocks = (double)((at.K + at.block - 1) / at.block);
        recount_bytes(c, zp, N * ceil(blocks * bits / 8.0), k);
    }
}

/* ---------------------------------------------------------- MoE, QMoE -- */
/* com.microsoft MoE and QMoE (ContribOperators.md): each token runs through
 * the top k of E experts, each expert a 2- or 3-matrix MLP (fc1, fc2 and,
 * for gated activations, fc3 or an fc1 of twice the rows). Output: the
 * input's shape. */
static int shape_moe(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *x = rl_in(n, 0);
    if (!x || !rl_in(n, 1)) return rl_bad(c, n, "needs input and router_probs");
    if (x->rank >= 0 && x->rank != 2 && x->rank != 3)
        return rl_bad(c, n, "input must be [tokens, hidden] or [batch, sequence, hidden] (got rank %d)", x->rank);
    if (rl_attr_i_in(c, n, "k", 1, 1, INT32_MAX) < 1 || c->err->code[0]) return RL_FAIL;
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

/* Active experts only: T tokens × k experts × (2 or 3 matrices of
 * hidden × inter). Weights read: the experts the tokens touch (expected,
 * uniform routing), not all E. */
static void cost_moe(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    bool quant = rl_op_is(n, "QMoE");
    const rl_value *x = rl_in(n, 0), *fc2 = rl_in(n, quant ? 5 : 4);
    int64_t hidden = x->rank > 0 ? x->dims[x->rank - 1] : -1;
    int64_t E = rl_in_dim(n, 1, 1);
    if (hidden <= 0 || E <= 0 || !fc2 || fc2->rank != 3) return;
    double pack = quant ? 8.0 / (double)rl_attr_i_in(c, n, "expert_weight_bits", 4, 1, 8) : 1;
    /* fc2 is [E, hidden, inter/pack]; an older MoE layout has [E, inter, hidden] */
    double inter = fc2->dims[1] == hidden ? (double)fc2->dims[2] * pack : (double)fc2->dims[1];
    double tokens = rl_numel_d(x) / (double)hidden, topk = (double)rl_attr_i_in(c, n, "k", 1, 1, INT32_MAX);
    if (topk > (double)E) topk = (double)E;
    bool gated = rl_in(n, quant ? 8 : 6) != NULL || rl_attr_i(c, n, "swiglu_fusion", 0) != 0;
    double matrices = gated ? 3 : 2, rows = tokens * topk;
    k->macs = rows * (double)hidden * inter * matrices;
    k->matrix_flops = 2 * k->macs;
    /* pick the top k of E, activation (4 per element), weigh and sum the k outputs */
    k->vector_flops = tokens * (double)E + rows * inter * 4 + rows * (double)hidden * 2;
    double touched = rl_moe_experts_touched((double)E, topk, tokens);
    if (quant || rl_block_quantized(fc2)) /* dequantize */
        k->vector_flops += 2 * touched * (double)hidden * inter * matrices;
    k->weight_bytes *= touched / (double)E;
}

/* ------------------------------------------------------------------- Gemm -- */
static int shape_gemm(rl_ctx *c, rl_graph *g, rl_node *n) {
    rl_value *a = rl_in(n, 0), *b = rl_in(n, 1);
    if (!a || !b) return rl_bad(c, n, "needs A and B");
    int dt = a->dtype;
    if (a->rank < 0 || b->rank < 0) return rl_set_out_unknown(c, n, 0, dt, 2);
    if (a->rank != 2 || b->rank != 2) return rl_bad(c, n, "A and B must be 2-D (got ranks %d and %d)", a->rank, b->rank);
    bool ta = rl_attr_i(c, n, "transA", 0) != 0, tb = rl_attr_i(c, n, "transB", 0) != 0;
    int64_t M = a->dims[ta ? 1 : 0], Ka = a->dims[ta ? 0 : 1];
    int64_t Kb = b->dims[tb ? 1 : 0], N = b->dims[tb ? 0 : 1];
    if (Ka >= 0 && Kb >= 0 && Ka != Kb)
        return rl_bad(c, n, "inner dimensions differ (%lld vs %lld)", (long long)Ka, (long long)Kb);
    int64_t out[2] = {M, N};
    rl_value *cv = rl_in(n, 2);
    if (cv && cv->rank > 2) return rl_bad(c, n, "C must have rank 2 or less");
    if (rl_set_out(c, n, 0, dt, 2, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* 2·M·N·K matrix FLOPs; one vector FLOP per output element for each of the
 * bias add, alpha != 1 and beta != 1 (a kernel folds them into its epilogue,
 * but the arithmetic is still done). */
static void cost_gemm(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    const rl_value *a = rl_in(n, 0);
    if (!a || a->rank != 2) return; /* A's shape unknown: the layer is already marked unknown */
    bool ta = rl_attr_i(c, n, "transA", 0) != 0;
    double K = (double)a->dims[ta ? 0 : 1];
    double outs = rl_numel_d(rl_out(n, 0));
    k->macs = outs * K;
    k->matrix_flops = 2 * k->macs;
    bool has_c = rl_in(n, 2) != NULL;
    double v = 0;
    if (has_c) v += outs;
    if (rl_attr_f(n, "alpha", 1.0) != 1.0) v += outs;
    if (has_c && rl_attr_f(n, "beta", 1.0) != 1.0) v += outs;
    k->vector_flops = v;
}

/* ----------------------------------------------------------------- Einsum -- */
#define EINSUM_MAX_TERMS 16

typedef struct einsum_parse {
    int n_terms;
    char terms[EINSUM_MAX_TERMS][RL_MAX_RANK_HARD + 4]; /* letters; '.' marks the ellipsis */
    char out[RL_MAX_RANK_HARD + 4];
    bool explicit_out;
} einsum_parse;

/* Letters of one term, the ellipsis as a single '.'; false when malformed. */
static bool einsum_term(const char *s, size_t len, char *dst) {
    int k = 0;
    bool ellipsis = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ') continue;
        if (s[i] == '.') {
            if (ellipsis || i + 2 >= len + 0 || s[i + 1] != '.' || s[i + 2] != '.') return false;
            ellipsis = true;
            i += 2;
            dst[k++] = '.';
        } else if (isalpha((unsigned char)s[i])) {
            dst[k++] = s[i];
        } else {
            return false;
        }
        if (k > RL_MAX_RANK_HARD) return false;
    }
    dst[k] = 0;
    return true;
}

static bool einsum_parse_eq(const char *eq, einsum_parse *p) {
    memset(p, 0, sizeof *p);
    const char *arrow = strstr(eq, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    size_t start = 0;
    for (size_t i = 0; i <= lhs_len; i++) {
        if (i == lhs_len || eq[i] == ',') {
            if (p->n_terms >= EINSUM_MAX_TERMS) return false;
            if (!einsum_term(eq + start, i - start, p->terms[p->n_terms++])) return false;
            start = i + 1;
        }
    }
    if (arrow) {
        p->explicit_out = true;
        return einsum_term(arrow + 2, strlen(arrow + 2), p->out);
    }
    /* implicit output: the ellipsis, then letters seen once, alphabetically */
    int counts[128] = {0};
    bool any_ellipsis = false;
    for (int t = 0; t < p->n_terms; t++)
        for (const char *q = p->terms[t]; *q; q++) {
            if (*q == '.') any_ellipsis = true;
            else counts[(unsigned char)*q]++;
        }
    int k = 0;
    if (any_ellipsis) p->out[k++] = '.';
    for (int ch = 'A'; ch <= 'z'; ch++)
        if (counts[ch] == 1 && k < RL_MAX_RANK_HARD) p->out[k++] = (char)ch;
    p->out[k] = 0;
    return true;
}

/* Sizes of every index and the broadcast ellipsis dims; out shape. */
typedef struct einsum_sizes {
    int64_t letter[128];
    int64_t ell[RL_MAX_RANK_HARD];
    int ell_rank;
} einsum_sizes;

static int einsum_infer(rl_ctx *c, rl_node *n, const einsum_parse *p, einsum_sizes *s, int64_t *out,
                        int *out_rank) {
    for (int i = 0; i < 128; i++) s->letter[i] = -2; /* -2 = not seen */
    s->ell_rank = 0;
    if (p->n_terms != n->n_in) return rl_bad(c, n, "the equation has %d operands but the node %d inputs", p->n_terms, n->n_in);
    for (int t = 0; t < p->n_terms; t++) {
        const rl_value *v = rl_in(n, t);
        if (!v || v->rank < 0) return RL_UNKNOWN;
        int letters = (int)strlen(p->terms[t]);
        bool has_ell = strchr(p->terms[t], '.') != NULL;
        int named = letters - (has_ell ? 1 : 0);
        if (has_ell ? v->rank < named : v->rank != named)
            return rl_bad(c, n, "operand %d has rank %d, the equation term '%s' wants %d", t, v->rank, p->terms[t], named);
        int er = v->rank - named, d = 0;
        for (const char *q = p->terms[t]; *q; q++) {
            if (*q == '.') {
                /* right-aligned broadcast of the ellipsis dims */
                int64_t tmp[RL_MAX_RANK_HARD];
                int r = rl_broadcast(c, n, s->ell_rank, s->ell, er, v->dims + d, tmp);
                if (r < 0) return RL_FAIL;
                memcpy(s->ell, tmp, (size_t)r * sizeof *tmp);
                s->ell_rank = r;
                d += er;
                continue;
            }
            int64_t dim = v->dims[d++];
            int64_t *cur = &s->letter[(unsigned char)*q];
            if (*cur == -2 || *cur == -1) *cur = dim;
            else if (dim >= 0 && dim != *cur) {
                /* a size-1 index broadcasts, as onnxruntime allows */
                if (*cur == 1) *cur = dim;
                else if (dim != 1)
                    return rl_bad(c, n, "index '%c' has sizes %lld and %lld", *q, (long long)*cur, (long long)dim);
            }
        }
    }
    int r = 0;
    for (const char *q = p->out; *q; q++) {
        if (*q == '.') {
            for (int e = 0; e < s->ell_rank; e++) out[r++] = s->ell[e];
        } else {
            int64_t d = s->letter[(unsigned char)*q];
            if (d == -2) return rl_bad(c, n, "output index '%c' appears in no operand", *q);
            out[r++] = d;
        }
        if (r > RL_MAX_RANK_HARD - 1) return rl_bad(c, n, "output rank too large");
    }
    *out_rank = r;
    return RL_OK;
}

static int shape_einsum(rl_ctx *c, rl_graph *g, rl_node *n) {
    const char *eq = rl_attr_s(c, n, "equation", NULL);
    int dt = rl_in_dtype(n, 0);
    if (!eq) return rl_bad(c, n, "needs the equation attribute");
    einsum_parse p;
    if (!einsum_parse_eq(eq, &p)) return rl_bad(c, n, "cannot parse the equation '%s'", eq);
    einsum_sizes s;
    int64_t out[RL_MAX_RANK_HARD];
    int r = 0;
    int res = einsum_infer(c, n, &p, &s, out, &r);
    if (res == RL_FAIL) return RL_FAIL;
    if (res == RL_UNKNOWN) return rl_set_out_unknown(c, n, 0, dt, -1);
    if (rl_set_out(c, n, 0, dt, r, out) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, 0)) ? RL_OK : RL_UNKNOWN;
}

/* With two or more operands and a summed index it is a contraction: every
 * combination of all distinct indices is one MAC (2 FLOP, matrix unit).
 * Otherwise (transpose, diagonal, reduction of one operand, outer or
 * elementwise product) it is vector work: one FLOP per element of the
 * larger of the index space and the output. */
static void cost_einsum(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    const char *eq = rl_attr_s(c, n, "equation", NULL);
    einsum_parse p;
    if (!eq || !einsum_parse_eq(eq, &p)) return;
    einsum_sizes s;
    int64_t out[RL_MAX_RANK_HARD];
    int r = 0;
    rl_quiet quiet; /* shapes were checked already; do not touch the error */
    if (einsum_infer(rl_quiet_ctx(&quiet, c), (rl_node *)n, &p, &s, out, &r) != RL_OK) return;
    bool used[128] = {false}, in_out[128] = {false};
    for (int t = 0; t < p.n_terms; t++)
        for (const char *q = p.terms[t]; *q; q++) used[(unsigned char)*q] = *q != '.';
    for (const char *q = p.out; *q; q++) in_out[(unsigned char)*q] = true;
    double space = 1;
    bool summed = false;
    for (int ch = 0; ch < 128; ch++) {
        if (!used[ch]) continue;
        space *= (double)(s.letter[ch] < 0 ? 0 : s.letter[ch]);
        if (!in_out[ch]) summed = true;
    }
    for (int e = 0; e < s.ell_rank; e++) space *= (double)(s.ell[e] < 0 ? 0 : s.ell[e]);
    if (p.n_terms >= 2 && summed) {
        k->macs = space * (p.n_terms - 1);
        k->matrix_flops = 2 * k->macs;
    } else if (p.n_terms >= 2) {
        k->vector_flops = space * (p.n_terms - 1);
    } else {
        k->vector_flops = summed ? space : 0; /* a pure transpose/diagonal moves data only */
    }
}

static const rl_op_def ops[] = {
    {.name = "MatMul", .domain = "", .since = 1, .shape = shape_matmul, .cost = cost_matmul,
     .cost_doc = "2·batch·M·N·K matrix FLOPs (numpy broadcast; 1-D operands promoted)"},
    {.name = "Gemm", .domain = "", .since = 1, .shape = shape_gemm, .cost = cost_gemm,
     .cost_doc = "2·M·N·K matrix FLOPs; + M·N vector FLOPs each for bias C, alpha≠1, beta≠1"},
    {.name = "Einsum", .domain = "", .since = 12, .shape = shape_einsum, .cost = cost_einsum,
     .cost_doc = "contraction: 2·(product of all distinct index sizes) matrix FLOPs; otherwise vector FLOPs "
                "per element of the index space"},
    {.name = "MatMulInteger", .domain = "", .since = 10, .shape = shape_matmul, .cost = cost_matmul,
     .cost_doc = "2·batch·M·N·K integer matrix ops; int32 output"},
    {.name = "QLinearMatMul", .domain = "", .since = 10,
     .shape = shape_matmul, .cost = cost_matmul, .per_elem = 3,
     .cost_doc = "2·batch·M·N·K integer matrix ops; + 3 vector ops per output (requantize: scale, round, "
                "zero point)"},
    {.name = "FusedMatMul", .domain = "com.microsoft", .since = 1, .shape = shape_matmul, .cost = cost_matmul,
     .cost_doc = "as MatMul after transBatchA/B (dim 0 moved behind the batch dims) and transA/B; + 1 vector "
                "FLOP per output when alpha≠1"},
    {.name = "MatMulInteger16", .domain = "com.microsoft", .since = 1,
     .shape = shape_matmul, .cost = cost_matmul,
     .cost_doc = "2·batch·M·N·K integer matrix ops; int32 output"},
    {.name = "MatMulIntegerToFloat", .domain = "com.microsoft", .since = 1,
     .shape = shape_matmul, .cost = cost_matmul, .per_elem = 3,
     .cost_doc = "2·batch·M·N·K integer matrix ops; + 3 vector FLOPs per output (scale, zero point, bias)"},
    {.name = "DynamicQuantizeMatMul", .domain = "com.microsoft", .since = 1,
     .shape = shape_matmul, .cost = cost_matmul, .per_elem = 3,
     .cost_doc = "2·batch·M·N·K integer matrix ops; + 3 per A element (quantize) + 3 per output (dequantize, "
                "bias)"},
    {.name = "MatMulNBits", .domain = "com.microsoft", .since = 1,
     .shape = shape_matmul_nbits, .cost = cost_matmul_nbits,
     .cost_doc = "2·M·N·K matrix FLOPs; + 2·N·K vector FLOPs to dequantize; B read at bits/8 bytes per "
                "weight, uint8 zero_points at N·ceil(blocks·bits/8) bytes"},
    {.name = "MoE", .domain = "com.microsoft", .since = 1, .shape = shape_moe, .cost = cost_moe,
     .cost_doc = "active experts only: 2·tokens·k·hidden·inter·(2, or 3 when gated) matrix FLOPs; expert "
                "weights read for the E·(1 − (1 − k/E)^tokens) experts the tokens touch (uniform routing)"},
    {.name = "QMoE", .domain = "com.microsoft", .since = 1, .shape = shape_moe, .cost = cost_moe,
     .cost_doc = "as MoE, with packed expert_weight_bits weights; + 2 vector FLOPs per touched expert weight "
                "to dequantize"},
};
RL_FAMILY(matmul, ops);
