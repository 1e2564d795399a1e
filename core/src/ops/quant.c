/* Op family: quant (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear).
 * The output keeps the input's shape; the element types change, and the
 * bytes are counted at the real element sizes (int4/uint4/float4 pack two
 * per byte, int2/uint2 four per byte: rl_dtype_bits). Vector work per
 * element: quantize = scale, round-and-shift, saturate (3); dequantize =
 * shift, scale (2); the dynamic form first finds min and max (2 more). */
#include "op.h"
#include "families.h"

/* QuantizeLinear's output type: the zero point's, else output_dtype (opset
 * 21 on), else uint8. */
static int quantize_dtype(rl_ctx *c, const rl_node *n) {
    const rl_value *zp = rl_in(n, 2);
    if (zp && zp->dtype) return zp->dtype;
    int64_t od = n->opset >= 21 ? rl_attr_i(c, n, "output_dtype", 0) : 0;
    if (od > 0 && od < RL_DT_COUNT) return (int)od;
    return RL_DT_UINT8;
}

/* DequantizeLinear's output type: float before opset 19, then the scale's
 * type, or output_dtype when given (opset 23 on). */
static int dequantize_dtype(rl_ctx *c, const rl_node *n) {
    int64_t od = n->opset >= 23 ? rl_attr_i(c, n, "output_dtype", 0) : 0;
    if (od > 0 && od < RL_DT_COUNT) return (int)od;
    const rl_value *s = rl_in(n, 1);
    if (n->opset >= 19 && s && s->dtype) return s->dtype;
    return RL_DT_FLOAT;
}

/* Scales must be a scalar, one per slice along axis, or (block_size > 0)
 * the input's shape with the axis divided into blocks. */
static int check_scale(rl_ctx *c, rl_node *n, const rl_value *x) {
    const rl_value *s = rl_in(n, 1);
    if (!s || s->rank < 0 || !x || x->rank < 0) return RL_OK;
    /* at most a tensor dim, so (dim + block - 1) cannot overflow */
    int64_t block = n->opset >= 21 ? rl_attr_i_in(c, n, "block_size", 0, 0, RL_MAX_ELEMS) : 0;
    if (c->err->code[0]) return RL_FAIL;
    if (s->rank == 0 || (s->rank == 1 && s->dims[0] == 1 && block == 0)) return RL_OK;
    if (x->rank == 0) return rl_bad(c, n, "a scalar input needs a scalar scale");
    int axis = rl_axis(c, n, rl_attr_i(c, n, "axis", 1), x->rank);
    if (axis < 0) return RL_FAIL;
    if (block == 0) {
        if (s->rank != 1) return rl_bad(c, n, "per-axis scales must be 1-D, got rank %d", s->rank);
        if (s->dims[0] >= 0 && x->dims[axis] >= 0 && s->dims[0] != x->dims[axis])
            return rl_bad(c, n, "%lld scales for an axis of %lld", (long long)s->dims[0], (long long)x->dims[axis]);
        return RL_OK;
    }
    if (s->rank != x->rank) return rl_bad(c, n, "blocked scales must have the input's rank %d, got %d", x->rank, s->rank);
    for (int k = 0; k < x->rank; k++) {
        int64_t want = x->dims[k];
        if (k == axis && want >= 0) want = (want + block - 1) / block;
        if (want >= 0 && s->dims[k] >= 0 && s->dims[k] != want)
            return rl_bad(c, n, "scale dim %d is %lld, blocks of %lld need %lld", k, (long long)s->dims[k],
                          (long long)block, (long long)want);
    }
    return RL_OK;
}

/* (De)quantization keeps x's shape; the output type is dtype_of's. */
static int shape_rescaled(rl_ctx *c, rl_node *n, int (*dtype_of)(rl_ctx *, const rl_node *)) {
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (check_scale(c, n, x) != RL_OK) return RL_FAIL;
    if (rl_set_out(c, n, 0, dtype_of(c, n), x->rank, x->dims) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

static int shape_quantize(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    return shape_rescaled(c, n, quantize_dtype);
}

static int shape_dequantize(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    return shape_rescaled(c, n, dequantize_dtype);
}

/* y (uint8, x's shape), y_scale (float scalar), y_zero_point (uint8 scalar). */
static int shape_dynamic_quantize(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (rl_set_out(c, n, 0, RL_DT_UINT8, x->rank, x->dims) != RL_OK ||
        rl_set_out(c, n, 1, RL_DT_FLOAT, 0, NULL) != RL_OK ||
        rl_set_out(c, n, 2, RL_DT_UINT8, 0, NULL) != RL_OK)
        return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

static void cost_per_input(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    k->vector_flops = rl_numel_d(rl_in(n, 0)) * n->op->per_elem;
}

static const rl_op_def ops[] = {
    {.name = "QuantizeLinear", .domain = "", .since = 10,
     .shape = shape_quantize, .cost = cost_per_input, .per_elem = 3,
     .cost_doc = "3 vector FLOPs per element (scale, round and add the zero point, saturate); bytes at the real "
                "element sizes (4-bit types two per byte, 2-bit types four per byte)"},
    {.name = "DequantizeLinear", .domain = "", .since = 10,
     .shape = shape_dequantize, .cost = cost_per_input, .per_elem = 2,
     .cost_doc = "2 vector FLOPs per element (subtract the zero point, scale); bytes at the real element sizes"},
    {.name = "DynamicQuantizeLinear", .domain = "", .since = 11,
     .shape = shape_dynamic_quantize, .cost = cost_per_input, .per_elem = 5,
     .cost_doc = "5 vector FLOPs per element (min and max, then scale, round, saturate)"},
};
RL_FAMILY(quant, ops);
