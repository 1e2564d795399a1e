/* Op family: elementwise (unary, binary and variadic math, activations,
 * comparisons, Where). Output = broadcast of the inputs; cost = output
 * elements x a per-op factor of vector FLOPs. Small integer tensors are
 * folded, because torch exports compute shapes with Add/Mul/Div/Where. */
#include <math.h>
#include <string.h>

#include "op.h"
#include "families.h"

/* Broadcast every present input; returns rank or -1 (error set) or -2 (unknown). */
static int broadcast_inputs(rl_ctx *c, rl_node *n, int first, int64_t *out) {
    int rank = 0;
    for (int i = first; i < n->n_in; i++) {
        rl_value *v = rl_in(n, i);
        if (!v) continue;
        if (v->rank < 0) return -2;
        int64_t tmp[RL_MAX_RANK_HARD];
        int r = rl_broadcast(c, n, rank, out, v->rank, v->dims, tmp);
        if (r < 0) return -1;
        memcpy(out, tmp, (size_t)r * sizeof *out);
        rank = r;
    }
    return rank;
}

/* Flat index into input `v` (broadcast) for output coordinate `idx`. */
static int64_t bcast_index(const rl_value *v, int out_rank, const int64_t *odims, int64_t flat) {
    int64_t coord[RL_MAX_RANK_HARD];
    for (int k = out_rank - 1; k >= 0; k--) {
        int64_t d = odims[k] ? odims[k] : 1;
        coord[k] = flat % d;
        flat /= d;
    }
    int64_t idx = 0;
    for (int k = 0; k < v->rank; k++) {
        int ok = k + (out_rank - v->rank);
        int64_t c = v->dims[k] == 1 ? 0 : coord[ok];
        idx = idx * v->dims[k] + c;
    }
    return idx;
}

typedef double (*fold_fn)(const double *a, int n);

static double f_add(const double *a, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
static double f_sub(const double *a, int n) { (void)n; return a[0] - a[1]; }
static double f_mul(const double *a, int n) { double s = 1; for (int i = 0; i < n; i++) s *= a[i]; return s; }
static double f_div(const double *a, int n) { (void)n; return a[1] != 0 ? a[0] / a[1] : 0; }
static double f_max(const double *a, int n) { double s = a[0]; for (int i = 1; i < n; i++) if (a[i] > s) s = a[i]; return s; }
static double f_min(const double *a, int n) { double s = a[0]; for (int i = 1; i < n; i++) if (a[i] < s) s = a[i]; return s; }
static double f_eq(const double *a, int n) { (void)n; return a[0] == a[1]; }
static double f_lt(const double *a, int n) { (void)n; return a[0] < a[1]; }
static double f_gt(const double *a, int n) { (void)n; return a[0] > a[1]; }
static double f_le(const double *a, int n) { (void)n; return a[0] <= a[1]; }
static double f_ge(const double *a, int n) { (void)n; return a[0] >= a[1]; }
static double f_and(const double *a, int n) { (void)n; return a[0] != 0 && a[1] != 0; }
static double f_or(const double *a, int n) { (void)n; return a[0] != 0 || a[1] != 0; }
static double f_not(const double *a, int n) { (void)n; return a[0] == 0; }
static double f_neg(const double *a, int n) { (void)n; return -a[0]; }
static double f_abs(const double *a, int n) { (void)n; return fabs(a[0]); }
static double f_sqrt(const double *a, int n) { (void)n; return sqrt(a[0]); }
static double f_floor(const double *a, int n) { (void)n; return floor(a[0]); }
static double f_ceil(const double *a, int n) { (void)n; return ceil(a[0]); }
static double f_where(const double *a, int n) { (void)n; return a[0] != 0 ? a[1] : a[2]; }
static double f_mod(const double *a, int n) { (void)n; return a[1] != 0 ? fmod(a[0], a[1]) : 0; }
static double f_pow(const double *a, int n) { (void)n; return pow(a[0], a[1]); }

static const struct { const char *name; fold_fn fn; } folds[] = {
    {"Add", f_add}, {"Sub", f_sub}, {"Mul", f_mul}, {"Div", f_div}, {"Max", f_max},
    {"Min", f_min}, {"Sum", f_add}, {"Equal", f_eq}, {"Less", f_lt}, {"Greater", f_gt},
    {"LessOrEqual", f_le}, {"GreaterOrEqual", f_ge}, {"And", f_and}, {"Or", f_or},
    {"Not", f_not}, {"Neg", f_neg}, {"Abs", f_abs}, {"Sqrt", f_sqrt}, {"Floor", f_floor},
    {"Ceil", f_ceil}, {"Where", f_where}, {"Mod", f_mod}, {"Pow", f_pow},
};

static void try_fold(rl_ctx *c, rl_node *n, int rank, const int64_t *dims) {
    fold_fn fn = NULL;
    for (size_t i = 0; i < sizeof folds / sizeof *folds; i++)
        if (strcmp(folds[i].name, n->op_type) == 0) fn = folds[i].fn;
    if (!fn || n->n_in > 8) return;
    int64_t count = 1;
    for (int k = 0; k < rank; k++)
        if (!rl_mul_ok(count, dims[k], &count)) return;
    if (count > RL_FOLD_MAX_ELEMS) return;
    for (int i = 0; i < n->n_in; i++) {
        rl_value *v = rl_in(n, i);
        if (!v || v->n_known < 0 || !rl_shape_known(v)) return;
    }
    double *res = rl_arena_alloc(c->arena, (size_t)(count + 1) * sizeof *res);
    if (!res) return;
    rl_value *o = rl_out(n, 0);
    bool integer = o && (rl_dtype_is_int(o->dtype));
    for (int64_t e = 0; e < count; e++) {
        double args[8];
        for (int i = 0; i < n->n_in; i++) {
            const rl_value *v = rl_in(n, i);
            args[i] = v->fval[bcast_index(v, rank, dims, e)];
        }
        double r = fn(args, n->n_in);
        /* integer division in ONNX truncates toward zero */
        if (integer) r = trunc(r);
        res[e] = r;
    }
    rl_set_out_contents(c, n, 0, count, NULL, res);
}

static int out_dtype(const rl_node *n) {
    static const char *const boolean_ops[] = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
                                              "And", "Or", "Xor", "Not", "IsNaN", "IsInf"};
    for (size_t i = 0; i < sizeof boolean_ops / sizeof *boolean_ops; i++)
        if (strcmp(n->op_type, boolean_ops[i]) == 0) return RL_DT_BOOL;
    if (strcmp(n->op_type, "Where") == 0) {
        rl_value *x = rl_in(n, 1);
        return x ? x->dtype : 0;
    }
    for (int i = 0; i < n->n_in; i++)
        if (rl_in(n, i)) return rl_in(n, i)->dtype;
    return 0;
}

static int shape_elementwise(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    /* every elementwise op needs its first input; without one the broadcast
     * below would silently give a scalar */
    if (!rl_in(n, 0)) return rl_bad(c, n, "needs an input (its first input is missing or empty)");
    int64_t dims[RL_MAX_RANK_HARD];
    /* Clip's min/max and PRelu's slope broadcast to X; the rest broadcast together. */
    int rank = broadcast_inputs(c, n, 0, dims);
    if (rank == -1) return RL_FAIL;
    int dt = out_dtype(n);
    if (rank == -2) return rl_set_out(c, n, 0, dt, -1, NULL) == RL_OK ? RL_UNKNOWN : RL_FAIL;
    if (rl_set_out(c, n, 0, dt, rank, dims) != RL_OK) return RL_FAIL;
    try_fold(c, n, rank, dims);
    return RL_OK;
}

/* Ops whose output takes the first input's shape (Clip, PRelu, Dropout...). */
static int shape_like_first(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (rl_set_out_like(c, n, 0, x) != RL_OK) return RL_FAIL;
    /* Dropout's optional mask output */
    if (n->n_out > 1 && x && rl_set_out(c, n, 1, RL_DT_BOOL, x->rank, x->dims) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

static void cost_per_elem(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    int operands = 0;
    for (int i = 0; i < n->n_in; i++) if (rl_in(n, i)) operands++;
    double per = n->op->per_elem;
    /* variadic Sum/Max/Min/Mean: one op per extra operand */
    if (operands > 2 && (strcmp(n->op_type, "Sum") == 0 || strcmp(n->op_type, "Max") == 0 ||
                         strcmp(n->op_type, "Min") == 0 || strcmp(n->op_type, "Mean") == 0))
        per *= operands - 1;
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * per;
}

static void cost_identity_like(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g; (void)n;
    k->vector_flops = 0;
}

/* ------------------------------------------------------------- random -- */
/* The element type of a random op: its dtype attribute, else (for the
 * *Like forms and Bernoulli) the input's, else float. */
static int random_dtype(rl_ctx *c, const rl_node *n) {
    int64_t dt = rl_attr_i(c, n, "dtype", 0);
    if (dt > 0 && dt < RL_DT_COUNT) return (int)dt;
    const rl_value *x = rl_in(n, 0);
    return x && x->dtype ? x->dtype : RL_DT_FLOAT;
}

/* Bernoulli, RandomUniformLike, RandomNormalLike: the input's shape. */
static int shape_random_like(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (rl_set_out(c, n, 0, random_dtype(c, n), x->rank, x->dims) != RL_OK) return RL_FAIL;
    return rl_shape_known(x) ? RL_OK : RL_UNKNOWN;
}

/* RandomUniform, RandomNormal: the shape attribute. */
static int shape_random(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    const int64_t *shape = NULL;
    int cnt = rl_attr_ints(n, "shape", &shape);
    if (cnt < 0) return rl_bad(c, n, "needs a shape attribute");
    if (cnt > RL_MAX_RANK_HARD) return rl_bad(c, n, "shape has %d entries", cnt);
    for (int k = 0; k < cnt; k++)
        if (shape[k] < 0) return rl_bad(c, n, "negative dimension %lld", (long long)shape[k]);
    int64_t dt = rl_attr_i(c, n, "dtype", RL_DT_FLOAT);
    return rl_set_out(c, n, 0, dt > 0 && dt < RL_DT_COUNT ? (int)dt : RL_DT_FLOAT, cnt, shape) == RL_OK ? RL_OK : RL_FAIL;
}

/* Multinomial: [batch, classes] -> [batch, sample_size] (int32 by default). */
static int shape_multinomial(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (x->rank >= 0 && x->rank != 2) return rl_bad(c, n, "input must be [batch, classes], got rank %d", x->rank);
    int64_t samples = rl_attr_i(c, n, "sample_size", 1);
    if (samples < 1) return rl_bad(c, n, "sample_size %lld", (long long)samples);
    int64_t dims[2] = {x->rank == 2 ? x->dims[0] : -1, samples};
    int64_t dt = rl_attr_i(c, n, "dtype", RL_DT_INT32);
    if (rl_set_out(c, n, 0, dt > 0 && dt < RL_DT_COUNT ? (int)dt : RL_DT_INT32, 2, dims) != RL_OK) return RL_FAIL;
    return dims[0] >= 0 ? RL_OK : RL_UNKNOWN;
}

/* Multinomial: a cumulative sum over the classes, then a binary search
 * (log2 classes compares) per sample. */
static void cost_multinomial(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *x = rl_in(n, 0);
    if (!x || x->rank != 2) return;
    double classes = (double)x->dims[1];
    k->vector_flops = rl_numel_d(x) + rl_numel_d(rl_out(n, 0)) * (classes > 2 ? log2(classes) : 1);
}

static const rl_op_def ops[] = {
    /* binary / variadic arithmetic: one FLOP per output element */
    {.name = "Add", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element"},
    {.name = "Sub", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element"},
    {.name = "Mul", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element"},
    {.name = "Div", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element"},
    {.name = "Pow", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element"},
    {.name = "Mod", .domain = "", .since = 10, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element"},
    {.name = "Sum", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element per extra operand"},
    {.name = "Max", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element per extra operand"},
    {.name = "Min", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element per extra operand"},
    {.name = "Mean", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per output element per extra operand, plus the division"},
    {.name = "PRelu", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 2,
     .cost_doc = "2 FLOPs per output element (compare, multiply)"},
    {.name = "BitShift", .domain = "", .since = 11,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "BitwiseAnd", .domain = "", .since = 18,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "BitwiseOr", .domain = "", .since = 18,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "BitwiseXor", .domain = "", .since = 18,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    /* comparisons and logic */
    {.name = "Equal", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "Less", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "Greater", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "LessOrEqual", .domain = "", .since = 12,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "GreaterOrEqual", .domain = "", .since = 12,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "And", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "Or", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "Xor", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per output element"},
    {.name = "Where", .domain = "", .since = 9,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 select per output element (three broadcast operands)"},
    /* unary */
    {.name = "Not", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per element"},
    {.name = "BitwiseNot", .domain = "", .since = 18,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per element"},
    {.name = "Neg", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element"},
    {.name = "Abs", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element"},
    {.name = "Sign", .domain = "", .since = 9, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element"},
    {.name = "Relu", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element (max with 0)"},
    {.name = "Floor", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element"},
    {.name = "Ceil", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element"},
    {.name = "Round", .domain = "", .since = 11,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element"},
    {.name = "Reciprocal", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element"},
    {.name = "Sqrt", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (square root)"},
    {.name = "Exp", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Log", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Sin", .domain = "", .since = 7, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Cos", .domain = "", .since = 7, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Tan", .domain = "", .since = 7, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Asin", .domain = "", .since = 7, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Acos", .domain = "", .since = 7, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Atan", .domain = "", .since = 7, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Sinh", .domain = "", .since = 9, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Cosh", .domain = "", .since = 9, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Asinh", .domain = "", .since = 9,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Acosh", .domain = "", .since = 9,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Atanh", .domain = "", .since = 9,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Erf", .domain = "", .since = 9, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "Sigmoid", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (exp, add, divide)"},
    {.name = "Tanh", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (transcendental)"},
    {.name = "HardSigmoid", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 3,
     .cost_doc = "3 FLOPs per element (scale, shift, clamp)"},
    {.name = "HardSwish", .domain = "", .since = 14,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 4,
     .cost_doc = "4 FLOPs per element (hard sigmoid, multiply)"},
    {.name = "LeakyRelu", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 2,
     .cost_doc = "2 FLOPs per element (compare, multiply)"},
    {.name = "ThresholdedRelu", .domain = "", .since = 10,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 FLOP per element"},
    {.name = "Elu", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 5,
     .cost_doc = "5 FLOPs per element (exp, subtract, multiply, select)"},
    {.name = "Selu", .domain = "", .since = 1, .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 6,
     .cost_doc = "6 FLOPs per element (exp, multiply twice, select)"},
    {.name = "Celu", .domain = "", .since = 12,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 6,
     .cost_doc = "6 FLOPs per element"},
    {.name = "Softplus", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 6,
     .cost_doc = "6 FLOPs per element (exp, add, log)"},
    {.name = "Softsign", .domain = "", .since = 1,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 3,
     .cost_doc = "3 FLOPs per element (abs, add, divide)"},
    {.name = "Mish", .domain = "", .since = 18,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 10,
     .cost_doc = "10 FLOPs per element (softplus, tanh, multiply)"},
    {.name = "Gelu", .domain = "", .since = 20,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 8,
     .cost_doc = "8 FLOPs per element (erf or tanh form)"},
    {.name = "Shrink", .domain = "", .since = 9,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 2,
     .cost_doc = "2 FLOPs per element"},
    {.name = "IsNaN", .domain = "", .since = 9,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per element"},
    {.name = "IsInf", .domain = "", .since = 10,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 1,
     .cost_doc = "1 op per element"},
    {.name = "Clip", .domain = "", .since = 1, .shape = shape_like_first, .cost = cost_per_elem, .per_elem = 2,
     .cost_doc = "2 FLOPs per element (max, min)"},
    {.name = "Swish", .domain = "", .since = 24,
     .shape = shape_like_first, .cost = cost_per_elem, .per_elem = 6,
     .cost_doc = "6 FLOPs per element (scale by alpha, sigmoid, multiply)"},
    {.name = "SwiGLU", .domain = "", .since = 28,
     .shape = shape_elementwise, .cost = cost_per_elem, .per_elem = 7,
     .cost_doc = "7 FLOPs per output element (Swish of the gate, multiply)"},
    {.name = "Bernoulli", .domain = "", .since = 15,
     .shape = shape_random_like, .cost = cost_per_elem, .per_elem = 2,
     .cost_doc = "2 ops per element (draw, compare)"},
    {.name = "RandomUniformLike", .domain = "", .since = 1,
     .shape = shape_random_like, .cost = cost_per_elem, .per_elem = 2,
     .cost_doc = "2 ops per element (draw, scale)"},
    {.name = "RandomNormalLike", .domain = "", .since = 1,
     .shape = shape_random_like, .cost = cost_per_elem, .per_elem = 6,
     .cost_doc = "6 FLOPs per element (Box-Muller draw, scale, shift)"},
    {.name = "RandomUniform", .domain = "", .since = 1,
     .shape = shape_random, .cost = cost_per_elem, .per_elem = 2,
     .cost_doc = "2 ops per element (draw, scale)"},
    {.name = "RandomNormal", .domain = "", .since = 1,
     .shape = shape_random, .cost = cost_per_elem, .per_elem = 6,
     .cost_doc = "6 FLOPs per element (Box-Muller draw, scale, shift)"},
    {.name = "Multinomial", .domain = "", .since = 7, .shape = shape_multinomial, .cost = cost_multinomial,
     .cost_doc = "1 op per input element (cumulative sum) + log2(classes) compares per sample"},
    {.name = "Dropout", .domain = "", .since = 1, .shape = shape_like_first, .cost = cost_identity_like,
     .cost_doc = "inference: an identity copy; 0 FLOPs, bytes of input and output"},
};
RL_FAMILY(elementwise, ops);
