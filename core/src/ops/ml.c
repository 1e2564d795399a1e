/* Op family: ai.onnx.ml, the classical machine-learning operators (tree
 * ensembles, linear models, SVMs, encoders, feature plumbing).
 *
 * These run on a CPU in practice, but they are costed like every other
 * layer so a pipeline (say, a scaler and a tree ensemble after a CNN) shows
 * its share. Conventions shared by the whole family:
 *   - the samples N are the first axis of X ([N, F], or 1 for a 1-D X);
 *   - the model's parameters live in node attributes (coefficients, tree
 *     tables, vocabularies), not in initializers, so weight_bytes counts the
 *     attribute arrays a runtime reads: 8 bytes per int, 4 per float, a
 *     string's length, a tensor attribute's elements at its dtype (the
 *     reader keeps attribute arrays; only tensor payloads above a size are
 *     dropped, and their dims survive);
 *   - a comparison or a table lookup counts as one vector FLOP. */
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "families.h"

/* ------------------------------------------------------------ helpers -- */

static bool attr_has(const rl_node *n, const char *name) { return rl_attr(n, name) != NULL; }

static int attr_count(const rl_node *n, const char *name) {
    const Onnx__AttributeProto *a = rl_attr(n, name);
    if (!a) return 0;
    if (a->n_ints) return (int)a->n_ints;
    if (a->n_floats) return (int)a->n_floats;
    if (a->n_strings) return (int)a->n_strings;
    if (a->t) {
        int64_t e = 1;
        for (size_t k = 0; k < a->t->n_dims; k++)
            if (a->t->dims[k] < 0 || !rl_mul_ok(e, a->t->dims[k], &e)) return 0;
        return e > INT32_MAX ? INT32_MAX : (int)e;
    }
    return 0;
}

/* Bytes of every attribute array of the node: the model's parameters. */
static double attr_data_bytes(const rl_node *n) {
    double b = 0;
    if (!n->proto) return 0;
    for (size_t i = 0; i < n->proto->n_attribute; i++) {
        const Onnx__AttributeProto *a = n->proto->attribute[i];
        b += 8.0 * (double)a->n_ints + 4.0 * (double)a->n_floats;
        for (size_t s = 0; s < a->n_strings; s++) b += (double)a->strings[s].len;
        if (a->t) {
            double e = 1;
            for (size_t k = 0; k < a->t->n_dims; k++) e *= a->t->dims[k] > 0 ? (double)a->t->dims[k] : 0;
            int bits = rl_dtype_bits(a->t->has_data_type ? a->t->data_type : 0);
            b += e * (bits > 0 ? bits / 8.0 : 0);
        }
    }
    return b;
}

/* Samples and features of X: [N, F] or [F] (one sample). -1 when unknown. */
static void samples_features(const rl_node *n, int64_t *N, int64_t *F) {
    const rl_value *x = rl_in(n, 0);
    *N = -1;
    *F = -1;
    if (!x || x->rank < 0) return;
    if (x->rank == 0) { *N = 1; *F = 1; return; }
    if (x->rank == 1) { *N = 1; *F = x->dims[0]; return; }
    *N = x->dims[0];
    int64_t f = 1;
    for (int k = 1; k < x->rank; k++) {
        if (x->dims[k] < 0 || !rl_mul_ok(f, x->dims[k], &f)) { f = -1; break; }
    }
    *F = f;
}

static double samples_d(const rl_node *n) {
    int64_t N, F;
    samples_features(n, &N, &F);
    return N > 0 ? (double)N : 0;
}

/* Vector FLOPs per score of a post_transform (exp/log-based ones dominate). */
static double post_transform_flops(rl_ctx *c, const rl_node *n) {
    const char *p = rl_attr_s(c, n, "post_transform", "NONE");
    if (strcmp(p, "NONE") == 0) return 0;
    if (strcmp(p, "PROBIT") == 0) return 10; /* an inverse-erf approximation */
    return 5;                                /* LOGISTIC, SOFTMAX, SOFTMAX_ZERO */
}

/* Label dtype of a classifier: strings when string labels are given. */
static int label_dtype(const rl_node *n) {
    return attr_count(n, "classlabels_strings") > 0 ? RL_DT_STRING : RL_DT_INT64;
}

static int64_t label_count(const rl_node *n) {
    int s = attr_count(n, "classlabels_strings");
    return s > 0 ? s : attr_count(n, "classlabels_ints") + attr_count(n, "classlabels_int64s");
}

/* Classifier outputs: Y [N] labels, Z [N, E] scores (float). */
static int set_classifier_outputs(rl_ctx *c, rl_node *n, int64_t N, int64_t E) {
    int64_t y[1] = {N}, z[2] = {N, E};
    if (rl_set_out(c, n, 0, label_dtype(n), 1, y) != RL_OK) return RL_FAIL;
    if (rl_set_out(c, n, 1, RL_DT_FLOAT, 2, z) != RL_OK) return RL_FAIL;
    return N >= 0 && E >= 0 ? RL_OK : RL_UNKNOWN;
}

static void add_attr_weights(const rl_node *n, rl_cost *k) { k->weight_bytes += attr_data_bytes(n); }

/* The type a graph declares for a value (inputs, value_info, outputs),
 * searched outward through enclosing scopes: maps carry their value type
 * only there. */
static const Onnx__TypeProto *declared_type(const rl_graph *g, const char *name) {
    for (; g; g = g->parent) {
        const Onnx__GraphProto *gp = g->proto;
        if (!gp) continue;
        for (size_t i = 0; i < gp->n_input; i++)
            if (gp->input[i]->name && strcmp(gp->input[i]->name, name) == 0) return gp->input[i]->type;
        for (size_t i = 0; i < gp->n_value_info; i++)
            if (gp->value_info[i]->name && strcmp(gp->value_info[i]->name, name) == 0)
                return gp->value_info[i]->type;
        for (size_t i = 0; i < gp->n_output; i++)
            if (gp->output[i]->name && strcmp(gp->output[i]->name, name) == 0) return gp->output[i]->type;
    }
    return NULL;
}

static int map_value_dtype(const rl_graph *g, const rl_value *v) {
    if (!v) return 0;
    const Onnx__TypeProto *tp = declared_type(g, v->name);
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_MAP_TYPE || !tp->map_type) return 0;
    const Onnx__TypeProto *vt = tp->map_type->value_type;
    if (!vt || vt->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vt->tensor_type) return 0;
    return vt->tensor_type->has_elem_type ? vt->tensor_type->elem_type : 0;
}

/* ----------------------------------------------------- element-wise ones -- */

/* Normalizer, Scaler: float output of X's shape. Binarizer, Imputer: X's type. */
static int shape_float_like(rl_ctx *c, rl_graph *g, rl_node *n) {
    const rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input X");
    return rl_set_out(c, n, 0, RL_DT_FLOAT, x->rank, x->dims) == RL_OK ? RL_OK : RL_FAIL;
}

static int shape_same(rl_ctx *c, rl_graph *g, rl_node *n) {
    const rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input X");
    return rl_set_out_like(c, n, 0, x) == RL_OK ? RL_OK : RL_FAIL;
}

/* per_elem vector FLOPs per output element, plus the attribute arrays read */
static void cost_elementwise(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * n->op->per_elem;
    add_attr_weights(n, k);
}

/* ---------------------------------------------------------- encoders -- */

static int shape_label_encoder(rl_ctx *c, rl_graph *g, rl_node *n) {
    const rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input X");
    int dt;
    const Onnx__AttributeProto *vt = rl_attr(n, "values_tensor");
    if (vt && vt->t && vt->t->has_data_type) dt = vt->t->data_type;
    else if (attr_has(n, "values_strings")) dt = RL_DT_STRING;
    else if (attr_has(n, "values_int64s")) dt = RL_DT_INT64;
    else if (attr_has(n, "values_floats")) dt = RL_DT_FLOAT;
    else dt = x->dtype == RL_DT_STRING ? RL_DT_INT64 : RL_DT_STRING; /* opset 1: string <-> int64 */
    return rl_set_out(c, n, 0, dt, x->rank, x->dims) == RL_OK ? RL_OK : RL_FAIL;
}

/* CategoryMapper converts strings to int64 and int64 to strings. */
static int shape_category_mapper(rl_ctx *c, rl_graph *g, rl_node *n) {
    const rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input X");
    int dt = x->dtype == RL_DT_STRING ? RL_DT_INT64 : RL_DT_STRING;
    if (!x->dtype) dt = attr_has(n, "default_string") ? RL_DT_STRING : RL_DT_INT64;
    return rl_set_out(c, n, 0, dt, x->rank, x->dims) == RL_OK ? RL_OK : RL_FAIL;
}

static int shape_one_hot_encoder(rl_ctx *c, rl_graph *g, rl_node *n) {
    const rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input X");
    int64_t cats = attr_count(n, "cats_int64s") + attr_count(n, "cats_strings");
    if (cats == 0) return rl_bad(c, n, "needs cats_int64s or cats_strings");
    if (x->rank < 0) return rl_set_out(c, n, 0, RL_DT_FLOAT, -1, NULL) == RL_OK ? RL_UNKNOWN : RL_FAIL;
    if (x->rank + 1 > RL_MAX_RANK_HARD) return rl_bad(c, n, "input rank %d is too large", x->rank);
    int64_t d[RL_MAX_RANK_HARD];
    memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
    d[x->rank] = cats;
    return rl_set_out(c, n, 0, RL_DT_FLOAT, x->rank + 1, d) == RL_OK ? RL_OK : RL_FAIL;
}

/* One lookup per input element; the output is written in full (OneHot). */
static void cost_lookup(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->vector_flops = rl_numel_d(rl_in(n, 0));
    add_attr_weights(n, k);
}

/* ----------------------------------------------------- feature plumbing -- */

static int shape_array_feature_extractor(rl_ctx *c, rl_graph *g, rl_node *n) {
    const rl_value *x = rl_in(n, 0), *idx = rl_in(n, 1);
    if (!x || !idx) return rl_bad(c, n, "needs X and the indices Y");
    int64_t k = rl_numel(idx);
    if (x->rank < 0) return rl_set_out(c, n, 0, x->dtype, -1, NULL) == RL_OK ? RL_UNKNOWN : RL_FAIL;
    int64_t d[RL_MAX_RANK_HARD];
    int r;
    if (x->rank <= 1) { /* a 1-D X gives one row */
        d[0] = 1;
        d[1] = k;
        r = 2;
    } else {
        memcpy(d, x->dims, (size_t)x->rank * sizeof *d);
        d[x->rank - 1] = k;
        r = x->rank;
    }
    if (rl_set_out(c, n, 0, x->dtype, r, d) != RL_OK) return RL_FAIL;
    return k >= 0 ? RL_OK : RL_UNKNOWN;
}

/* A gather along the last axis: it reads only what it writes, plus the indices. */
static void cost_array_feature_extractor(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->input_bytes = k->weight_bytes = 0;
    for (int i = 0; i < 2; i++) {
        const rl_value *v = rl_in(n, i);
        if (!v) continue;
        double b = i == 0 ? k->output_bytes : rl_value_bytes(c, v);
        if (v->kind == RL_VALUE_WEIGHT || v->kind == RL_VALUE_CONSTANT) k->weight_bytes += b;
        else k->input_bytes += b;
    }
}

static int shape_feature_vectorizer(rl_ctx *c, rl_graph *g, rl_node *n) {
    const int64_t *dims = NULL;
    int nd = rl_attr_ints(n, "inputdimensions", &dims);
    int64_t N = -1, total = 0;
    bool known = true;
    for (int i = 0; i < n->n_in; i++) {
        const rl_value *x = rl_in(n, i);
        if (!x) continue;
        int64_t xn = -1, xf = -1;
        if (x->rank == 1) { xn = 1; xf = x->dims[0]; }
        else if (x->rank >= 2) { xn = x->dims[0]; xf = x->dims[x->rank - 1]; }
        if (N < 0) N = xn;
        int64_t f = (nd > i) ? dims[i] : xf;
        if (f < 0) known = false;
        else if (!rl_add_ok(total, f, &total)) return rl_bad(c, n, "feature count overflows");
    }
    int64_t d[2] = {N, known ? total : -1};
    if (rl_set_out(c, n, 0, RL_DT_FLOAT, 2, d) != RL_OK) return RL_FAIL;
    return N >= 0 && known ? RL_OK : RL_UNKNOWN;
}

/* DictVectorizer: one map in, a [1, vocabulary] row of the map's value type. */
static int shape_dict_vectorizer(rl_ctx *c, rl_graph *g, rl_node *n) {
    int64_t v = attr_count(n, "string_vocabulary") + attr_count(n, "int64_vocabulary");
    if (v == 0) return rl_bad(c, n, "needs string_vocabulary or int64_vocabulary");
    int dt = map_value_dtype(g, rl_in(n, 0));
    int64_t d[2] = {1, v};
    if (rl_set_out(c, n, 0, dt ? dt : RL_DT_FLOAT, 2, d) != RL_OK) return RL_FAIL;
    return RL_OK;
}

/* CastMap: a map keyed by int64 to a [1, entries] row; SPARSE packs to max_map. */
static int shape_cast_map(rl_ctx *c, rl_graph *g, rl_node *n) {
    const char *to = rl_attr_s(c, n, "cast_to", "TO_FLOAT");
    int dt = strcmp(to, "TO_STRING") == 0 ? RL_DT_STRING : strcmp(to, "TO_INT64") == 0 ? RL_DT_INT64 : RL_DT_FLOAT;
    bool sparse = strcmp(rl_attr_s(c, n, "map_form", "DENSE"), "SPARSE") == 0;
    int64_t d[2] = {1, sparse ? rl_attr_i(c, n, "max_map", 1) : -1};
    if (d[1] < -1) return rl_bad(c, n, "max_map %lld is negative", (long long)d[1]);
    if (rl_set_out(c, n, 0, dt, 2, d) != RL_OK) return RL_FAIL;
    return d[1] >= 0 ? RL_OK : RL_UNKNOWN; /* a dense map's size is the data's */
}

static void cost_per_output(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    k->vector_flops = rl_numel_d(rl_out(n, 0));
    add_attr_weights(n, k);
}

/* ZipMap: [N, C] scores to a sequence of N maps (label -> score). */
static int shape_zipmap(rl_ctx *c, rl_graph *g, rl_node *n) {
    const rl_value *x = rl_in(n, 0);
    rl_value *o = rl_out(n, 0);
    int64_t labels = label_count(n);
    if (labels == 0) return rl_bad(c, n, "needs classlabels_strings or classlabels_int64s");
    if (x && x->rank == 2 && x->dims[1] >= 0 && x->dims[1] != labels)
        return rl_bad(c, n, "X has %lld columns for %lld labels", (long long)x->dims[1], (long long)labels);
    if (o) {
        o->type = RL_TYPE_SEQUENCE;
        o->dtype = 0;
        o->rank = -1;
        o->seq_len = (x && x->rank >= 1 && x->dims[0] >= 0) ? (int)(x->dims[0] > INT32_MAX ? -1 : x->dims[0]) : -1;
    }
    return RL_OK;
}

/* ------------------------------------------------------- linear models -- */

/* Rows of coefficients: len(intercepts), else len(coefficients) / F. */
static int64_t linear_rows(const rl_node *n, int64_t F) {
    int64_t rows = attr_count(n, "intercepts");
    if (rows > 0) return rows;
    int64_t coef = attr_count(n, "coefficients");
    return (F > 0 && coef % F == 0) ? coef / F : -1;
}

static int shape_linear_classifier(rl_ctx *c, rl_graph *g, rl_node *n) {
    int64_t N, F;
    samples_features(n, &N, &F);
    if (attr_count(n, "coefficients") == 0) return rl_bad(c, n, "needs coefficients");
    if (label_count(n) == 0) return rl_bad(c, n, "needs classlabels_ints or classlabels_strings");
    int64_t E = linear_rows(n, F);
    /* one row of coefficients for two labels: binary, scores for both classes */
    if (E == 1 && label_count(n) == 2) E = 2;
    return set_classifier_outputs(c, n, N, E);
}

static int shape_linear_regressor(rl_ctx *c, rl_graph *g, rl_node *n) {
    int64_t N, F;
    samples_features(n, &N, &F);
    int64_t d[2] = {N, rl_attr_i(c, n, "targets", 1)};
    if (d[1] < 1) return rl_bad(c, n, "targets is %lld", (long long)d[1]);
    if (rl_set_out(c, n, 0, RL_DT_FLOAT, 2, d) != RL_OK) return RL_FAIL;
    return N >= 0 ? RL_OK : RL_UNKNOWN;
}

/* N x rows x F multiply-adds (a GEMV per sample), then intercepts, the
 * post_transform and (classifiers) an arg-max per score. */
static void cost_linear(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    int64_t N, F;
    samples_features(n, &N, &F);
    int64_t rows = strcmp(n->op_type, "LinearRegressor") == 0 ? rl_attr_i(c, n, "targets", 1) : linear_rows(n, F);
    if (N < 0 || F < 0 || rows < 0) return;
    double macs = (double)N * (double)rows * (double)F;
    k->macs = macs;
    k->matrix_flops = 2 * macs;
    bool classifier = strcmp(n->op_type, "LinearClassifier") == 0;
    k->vector_flops = (double)N * (double)rows * (1 + (classifier ? 1 : 0) + post_transform_flops(c, n));
    add_attr_weights(n, k);
}

/* ---------------------------------------------------------------- SVMs -- */

static int64_t svm_support_vectors(const rl_node *n, int64_t F) {
    int64_t sv = attr_count(n, "support_vectors");
    if (sv == 0) return 0;
    return F > 0 ? sv / F : -1;
}

/* SVC with support vectors and no probability calibration scores every
 * class pair (one-vs-one); a linear SVM or a calibrated one scores each class. */
static int shape_svm_classifier(rl_ctx *c, rl_graph *g, rl_node *n) {
    int64_t N, F;
    samples_features(n, &N, &F);
    int64_t classes = label_count(n);
    if (classes == 0) return rl_bad(c, n, "needs classlabels_ints or classlabels_strings");
    int64_t E = classes;
    bool proba = attr_count(n, "prob_a") > 0;
    if (svm_support_vectors(n, F) != 0 && !proba && classes > 2) E = classes * (classes - 1) / 2;
    return set_classifier_outputs(c, n, N, E);
}

static int shape_svm_regressor(rl_ctx *c, rl_graph *g, rl_node *n) {
    int64_t N, F;
    samples_features(n, &N, &F);
    int64_t d[2] = {N, 1};
    if (rl_set_out(c, n, 0, RL_DT_FLOAT, 2, d) != RL_OK) return RL_FAIL;
    return N >= 0 ? RL_OK : RL_UNKNOWN;
}

/* Kernel evaluation per support vector: a dot product of F (matrix work),
 * then LINEAR 0, POLY/RBF/SIGMOID ~3 vector FLOPs; the decision functions
 * weigh the kernel values (coefficients: one multiply-add each). Without
 * support vectors (linear mode) it is a linear model over coefficients. */
static void cost_svm(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    int64_t N, F;
    samples_features(n, &N, &F);
    if (N < 0 || F < 0) return;
    int64_t sv = svm_support_vectors(n, F);
    if (sv < 0) return;
    double coef = attr_count(n, "coefficients");
    double macs;
    if (sv == 0) {
        macs = (double)N * coef; /* coefficients are [classes x F] */
        k->vector_flops = (double)N * (coef / (F > 0 ? (double)F : 1)) * (1 + post_transform_flops(c, n));
    } else {
        const char *kt = rl_attr_s(c, n, "kernel_type", "LINEAR");
        double kernel = strcmp(kt, "LINEAR") == 0 ? 0 : 3;
        macs = (double)N * (double)sv * (double)F + (double)N * coef;
        /* one decision per class pair (classifier) or one output (regressor), each
         * with its bias and post_transform */
        double classes = (double)label_count(n);
        double decisions = classes > 1 ? classes * (classes - 1) / 2 : 1;
        k->vector_flops = (double)N * ((double)sv * kernel + decisions * (1 + post_transform_flops(c, n)));
    }
    k->macs = macs;
    k->matrix_flops = 2 * macs;
    add_attr_weights(n, k);
}

/* -------------------------------------------------------- tree ensembles -- */

typedef struct tree_stats {
    double trees;
    double path_sum; /* sum over trees of the deepest root-to-leaf path, in comparisons */
    bool ok;
} tree_stats;

typedef struct node_key {
    int64_t tree, id;
    int index;
} node_key;

static int cmp_key(const void *a, const void *b) {
    const node_key *x = a, *y = b;
    if (x->tree != y->tree) return x->tree < y->tree ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return 0;
}

static int find_node(const node_key *keys, int count, int64_t tree, int64_t id) {
    int lo = 0, hi = count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        node_key k = {tree, id, 0};
        int cmp = cmp_key(&k, &keys[mid]);
        if (cmp == 0) return keys[mid].index;
        if (cmp < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return -1;
}

/* The deepest path of every tree of the opset-1/3 form: nodes_treeids and
 * nodes_nodeids name the nodes, nodes_truenodeids/falsenodeids the children
 * (node ids of the same tree), nodes_modes "LEAF" the leaves. A depth-first
 * walk from each tree's root, bounded by the node count so a malformed
 * table (a cycle) cannot hang it. */
static tree_stats tree_stats_v1(rl_ctx *c, const rl_node *n) {
    tree_stats st = {0};
    const int64_t *tid = NULL, *nid = NULL, *tt = NULL, *ff = NULL;
    int cnt = rl_attr_ints(n, "nodes_treeids", &tid);
    int cn = rl_attr_ints(n, "nodes_nodeids", &nid);
    int ct = rl_attr_ints(n, "nodes_truenodeids", &tt);
    int cf = rl_attr_ints(n, "nodes_falsenodeids", &ff);
    const Onnx__AttributeProto *modes = rl_attr(n, "nodes_modes");
    if (cnt <= 0 || cn != cnt || ct != cnt || cf != cnt || !modes || (int)modes->n_strings != cnt) return st;
    node_key *keys = rl_arena_alloc(c->arena, (size_t)cnt * sizeof *keys);
    int *depth = rl_arena_alloc(c->arena, (size_t)cnt * sizeof *depth);
    int *stack = rl_arena_alloc(c->arena, (size_t)cnt * 2 * sizeof *stack);
    bool *child = rl_arena_alloc(c->arena, (size_t)cnt * sizeof *child);
    if (!keys || !depth || !stack || !child) return st;
    for (int i = 0; i < cnt; i++) keys[i] = (node_key){tid[i], nid[i], i};
    qsort(keys, (size_t)cnt, sizeof *keys, cmp_key);
    for (int i = 1; i < cnt; i++)
        if (keys[i].tree == keys[i - 1].tree && keys[i].id == keys[i - 1].id) return st; /* duplicate id */
    bool *is_leaf = rl_arena_alloc(c->arena, (size_t)cnt * sizeof *is_leaf);
    if (!is_leaf) return st;
    for (int i = 0; i < cnt; i++)
        is_leaf[i] = modes->strings[i].len == 4 && memcmp(modes->strings[i].data, "LEAF", 4) == 0;
    for (int i = 0; i < cnt; i++) {
        if (is_leaf[i]) continue;
        int a = find_node(keys, cnt, tid[i], tt[i]), b = find_node(keys, cnt, tid[i], ff[i]);
        if (a >= 0) child[a] = true;
        if (b >= 0) child[b] = true;
    }
    long budget = (long)cnt * 4 + 16;
    for (int r = 0; r < cnt; r++) {
        if (child[r]) continue; /* a root: nobody's child */
        st.trees += 1;
        int top = 0, deepest = 0;
        stack[top++] = r;
        depth[r] = 0;
        while (top > 0) {
            if (--budget < 0) return st; /* a cycle */
            int u = stack[--top];
            if (is_leaf[u]) {
                if (depth[u] > deepest) deepest = depth[u];
                continue;
            }
            int kids[2] = {find_node(keys, cnt, tid[u], tt[u]), find_node(keys, cnt, tid[u], ff[u])};
            for (int j = 0; j < 2; j++) {
                if (kids[j] < 0) { /* a branch to nowhere: the path ends here */
                    if (depth[u] + 1 > deepest) deepest = depth[u] + 1;
                    continue;
                }
                if (top >= cnt * 2) return st;
                depth[kids[j]] = depth[u] + 1;
                stack[top++] = kids[j];
            }
        }
        st.path_sum += deepest;
    }
    st.ok = st.trees > 0;
    return st;
}

/* The opset-5 TreeEnsemble form: tree_roots index the node arrays, child
 * ids index them too unless nodes_trueleafs/falseleafs mark them as leaves. */
static tree_stats tree_stats_v5(rl_ctx *c, const rl_node *n) {
    tree_stats st = {0};
    const int64_t *roots = NULL, *tt = NULL, *ff = NULL, *tl = NULL, *fl = NULL;
    int nr = rl_attr_ints(n, "tree_roots", &roots);
    int ct = rl_attr_ints(n, "nodes_truenodeids", &tt);
    int cf = rl_attr_ints(n, "nodes_falsenodeids", &ff);
    int ctl = rl_attr_ints(n, "nodes_trueleafs", &tl);
    int cfl = rl_attr_ints(n, "nodes_falseleafs", &fl);
    if (nr <= 0 || ct < 0 || cf != ct || ctl != ct || cfl != ct) return st;
    int cnt = ct;
    int *stack = rl_arena_alloc(c->arena, (size_t)(cnt + 1) * 2 * sizeof *stack);
    int *depth = rl_arena_alloc(c->arena, (size_t)(cnt + 1) * sizeof *depth);
    if (!stack || !depth) return st;
    long budget = (long)cnt * 4 + 16;
    for (int t = 0; t < nr; t++) {
        st.trees += 1;
        int deepest = 0;
        if (roots[t] < 0 || roots[t] >= cnt) { /* a tree that is a single leaf */
            continue;
        }
        int top = 0;
        stack[top++] = (int)roots[t];
        depth[roots[t]] = 1;
        while (top > 0) {
            if (--budget < 0) return st;
            int u = stack[--top];
            if (depth[u] > deepest) deepest = depth[u];
            int64_t kid[2] = {tt[u], ff[u]};
            bool leaf[2] = {tl[u] != 0, fl[u] != 0};
            for (int j = 0; j < 2; j++) {
                if (leaf[j] || kid[j] < 0 || kid[j] >= cnt) continue;
                if (top >= cnt * 2) return st;
                depth[kid[j]] = depth[u] + 1;
                stack[top++] = (int)kid[j];
            }
        }
        st.path_sum += deepest;
    }
    st.ok = true;
    return st;
}

static int shape_tree_classifier(rl_ctx *c, rl_graph *g, rl_node *n) {
    int64_t N, F;
    samples_features(n, &N, &F);
    int64_t classes = label_count(n);
    if (classes == 0) return rl_bad(c, n, "needs classlabels_int64s or classlabels_strings");
    return set_classifier_outputs(c, n, N, classes);
}

static int shape_tree_regressor(rl_ctx *c, rl_graph *g, rl_node *n) {
    int64_t N, F;
    samples_features(n, &N, &F);
    int64_t d[2] = {N, rl_attr_i(c, n, "n_targets", 1)};
    if (d[1] < 1) return rl_bad(c, n, "n_targets is %lld", (long long)d[1]);
    /* TreeEnsemble (opset 5) answers in X's type; the older regressor in float */
    const rl_value *x = rl_in(n, 0);
    int dt = strcmp(n->op_type, "TreeEnsemble") == 0 && x && x->dtype ? x->dtype : RL_DT_FLOAT;
    if (rl_set_out(c, n, 0, dt, 2, d) != RL_OK) return RL_FAIL;
    return N >= 0 ? RL_OK : RL_UNKNOWN;
}

/* Per sample: one comparison per level of each tree's deepest path, one
 * accumulation per tree and output column, then the aggregation and
 * post_transform per output column. Without a readable tree table the
 * number of nodes stands in for the paths (a gross upper bound, noted). */
static void cost_tree(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    double N = samples_d(n);
    const rl_value *z = rl_out(n, strcmp(n->op_type, "TreeEnsembleClassifier") == 0 ? 1 : 0);
    double E = (z && z->rank == 2 && z->dims[1] > 0) ? (double)z->dims[1] : 1;
    tree_stats st = strcmp(n->op_type, "TreeEnsemble") == 0 ? tree_stats_v5(c, n) : tree_stats_v1(c, n);
    double paths = st.path_sum, trees = st.trees;
    if (!st.ok) {
        paths = attr_count(n, "nodes_truenodeids"); /* one entry per node in both forms */
        trees = 1;
        k->note = "the tree tables could not be walked (inconsistent or cyclic): counting every node once";
    }
    k->vector_flops = N * (paths + trees * E + E * (1 + post_transform_flops(c, n)));
    add_attr_weights(n, k);
}

/* ------------------------------------------------------------ the table -- */

#define ML "ai.onnx.ml"
static const rl_op_def ops[] = {
    {.name = "ArrayFeatureExtractor", .domain = ML, .since = 1,
     .shape = shape_array_feature_extractor, .cost = cost_array_feature_extractor,
     .cost_doc = "0 FLOPs; reads only the picked elements (output size) and the indices"},
    {.name = "Binarizer", .domain = ML, .since = 1,
     .shape = shape_same, .cost = cost_elementwise, .per_elem = 1,
     .cost_doc = "1 comparison per element"},
    {.name = "CastMap", .domain = ML, .since = 1, .shape = shape_cast_map, .cost = cost_per_output,
     .cost_doc = "1 per output element (a conversion); shape [1, max_map] when SPARSE, [1, ?] when DENSE"},
    {.name = "CategoryMapper", .domain = ML, .since = 1, .shape = shape_category_mapper, .cost = cost_lookup,
     .cost_doc = "1 lookup per element; weight bytes: the category tables"},
    {.name = "DictVectorizer", .domain = ML, .since = 1,
     .shape = shape_dict_vectorizer, .cost = cost_per_output,
     .cost_doc = "1 lookup per vocabulary entry; output [1, vocabulary] of the map's value type"},
    {.name = "FeatureVectorizer", .domain = ML, .since = 1, .shape = shape_feature_vectorizer,
     .cost_doc = "0 FLOPs: a concatenation along the feature axis (bytes only)"},
    {.name = "Imputer", .domain = ML, .since = 1, .shape = shape_same, .cost = cost_elementwise, .per_elem = 2,
     .cost_doc = "2 per element (compare, select)"},
    {.name = "LabelEncoder", .domain = ML, .since = 1, .shape = shape_label_encoder, .cost = cost_lookup,
     .cost_doc = "1 lookup per element; the output type follows values_* / values_tensor (opset 1: string <-> int64)"},
    {.name = "LinearClassifier", .domain = ML, .since = 1,
     .shape = shape_linear_classifier, .cost = cost_linear,
     .cost_doc = "matrix 2*N*C*F (C classes, F features); vector N*C*(2 + post_transform: 5 logistic/softmax, 10 probit)"},
    {.name = "LinearRegressor", .domain = ML, .since = 1, .shape = shape_linear_regressor, .cost = cost_linear,
     .cost_doc = "matrix 2*N*T*F (T targets); vector N*T*(1 + post_transform)"},
    {.name = "Normalizer", .domain = ML, .since = 1,
     .shape = shape_float_like, .cost = cost_elementwise, .per_elem = 3,
     .cost_doc = "3 per element (square or abs, row sum, divide)"},
    {.name = "OneHotEncoder", .domain = ML, .since = 1, .shape = shape_one_hot_encoder, .cost = cost_lookup,
     .cost_doc = "1 lookup per input element; writes N x categories floats"},
    {.name = "SVMClassifier", .domain = ML, .since = 1, .shape = shape_svm_classifier, .cost = cost_svm,
     .cost_doc = "matrix 2*N*(SV*F + coefficients) (kernel dot products, decision sums); vector N*(SV*3 for "
                "POLY/RBF/SIGMOID + class pairs x (1 + post_transform))"},
    {.name = "SVMRegressor", .domain = ML, .since = 1, .shape = shape_svm_regressor, .cost = cost_svm,
     .cost_doc = "matrix 2*N*(SV*F + coefficients); vector N*(SV*3 for non-linear kernels + 1 + post_transform)"},
    {.name = "Scaler", .domain = ML, .since = 1,
     .shape = shape_float_like, .cost = cost_elementwise, .per_elem = 2,
     .cost_doc = "2 per element (subtract offset, scale)"},
    {.name = "TreeEnsemble", .domain = ML, .since = 5, .shape = shape_tree_regressor, .cost = cost_tree,
     .cost_doc = "per sample: 1 comparison per level of every tree's deepest path + trees x targets accumulations "
                "+ targets x (1 + post_transform); weight bytes: the tree tables"},
    {.name = "TreeEnsembleClassifier", .domain = ML, .since = 1,
     .shape = shape_tree_classifier, .cost = cost_tree,
     .cost_doc = "per sample: 1 comparison per level of every tree's deepest path + trees x classes votes "
                "+ classes x (1 + post_transform); weight bytes: the tree tables"},
    {.name = "TreeEnsembleRegressor", .domain = ML, .since = 1,
     .shape = shape_tree_regressor, .cost = cost_tree,
     .cost_doc = "per sample: 1 comparison per level of every tree's deepest path + trees x targets accumulations "
                "+ targets x (1 + post_transform); weight bytes: the tree tables"},
    {.name = "ZipMap", .domain = ML, .since = 1, .shape = shape_zipmap,
     .cost_doc = "0 FLOPs: repackages [N, C] scores as a sequence of N maps (not costed as tensors)"},
};
RL_FAMILY(ml, ops);
