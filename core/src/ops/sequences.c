/* Op family: sequences and optionals (Sequence*, SplitToSequence,
 * ConcatFromSequence, Optional*). A sequence is not costed as a tensor; the
 * element type and shape are tracked when every element agrees. */
#include <string.h>

#include "op.h"
#include "families.h"

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
    return set_seq(c, n, 0, rl_value_dtype(first), same ? first->rank : -1, same ? first->dims : NULL, n->n_in);
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
    int dt = s && s->dtype ? s->dtype : rl_value_dtype(t);
    return set_seq(c, n, 0, dt, same ? t->rank : -1, same ? t->dims : NULL, len);
}

static int shape_sequence_erase(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    int len = s && s->seq_len > 0 ? s->seq_len - 1 : -1;
    return set_seq(c, n, 0, rl_value_dtype(s), s ? s->rank : -1, s ? s->dims : NULL, len);
}

static int shape_sequence_at(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    if (!s || s->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(s), -1);
    return rl_set_out_status(c, n, 0, s->dtype, s->rank, s->dims);
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
    if (!x || x->rank < 0) return set_seq(c, n, 0, rl_value_dtype(x), -1, NULL, -1);
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
    if (rl_contents_known(sp) && sp->rank == 0 && sp->n_known == 1 && sp->ival[0] > 0 && d >= 0) {
        int64_t chunk = sp->ival[0];
        int64_t parts = d / chunk + (d % chunk != 0); /* ceil, without d + chunk overflowing */
        dims[axis] = chunk;
        bool even = d % chunk == 0;
        return set_seq(c, n, 0, x->dtype, even ? x->rank : -1, even ? dims : NULL, parts <= INT32_MAX ? (int)parts : -1);
    }
    int len = rl_contents_known(sp) && sp->rank == 1 && sp->n_known <= INT32_MAX ? (int)sp->n_known : -1;
    return set_seq(c, n, 0, x->dtype, -1, NULL, len);
}

static int shape_concat_from_sequence(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *s = rl_in(n, 0);
    bool new_axis = rl_attr_i(c, n, "new_axis", 0) != 0;
    if (!s || s->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(s), -1);
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
    return rl_set_out_status(c, n, 0, s->dtype, r, dims);
}

/* ---------------------------------------------------------- optionals -- */

static int shape_optional(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (rl_set_out(c, n, 0, rl_value_dtype(x), x ? x->rank : -1, x ? x->dims : NULL) != RL_OK) return RL_FAIL;
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
    if (!x) return rl_set_out_unknown(c, n, 0, 0, -1);
    if (rl_set_out(c, n, 0, x->dtype, x->rank, x->dims) != RL_OK) return RL_FAIL;
    rl_value *o = rl_out(n, 0);
    /* an optional of a sequence yields the sequence */
    if (o && x->type == RL_TYPE_SEQUENCE) {
        o->type = RL_TYPE_SEQUENCE;
        o->seq_len = x->seq_len;
        return RL_OK;
    }
    if (x->type == RL_TYPE_TENSOR) rl_fold_same(c, n, 0, x);
    return rl_shape_known(o) ? RL_OK : RL_UNKNOWN;
}

/* ---------------------------------------------------------- the table -- */

#define COPY_DOC "0 FLOPs; reads its inputs and writes its outputs"

static const rl_op_def ops[] = {
    {.name = "SequenceConstruct", .domain = "", .since = 11, .shape = shape_sequence_construct,
     .cost_doc = "0 FLOPs; sequences are not costed as tensors"},
    {.name = "SequenceEmpty", .domain = "", .since = 11, .shape = shape_sequence_empty, .cost_doc = "0 FLOPs"},
    {.name = "SequenceInsert", .domain = "", .since = 11, .shape = shape_sequence_insert,
     .cost_doc = "0 FLOPs; reads the inserted tensor"},
    {.name = "SequenceErase", .domain = "", .since = 11, .shape = shape_sequence_erase, .cost_doc = "0 FLOPs"},
    {.name = "SequenceAt", .domain = "", .since = 11, .shape = shape_sequence_at,
     .cost_doc = "0 FLOPs; writes the picked element"},
    {.name = "SequenceLength", .domain = "", .since = 11, .shape = shape_sequence_length, .cost_doc = "0 FLOPs"},
    {.name = "SplitToSequence", .domain = "", .since = 11, .shape = shape_split_to_sequence,
     .cost_doc = COPY_DOC},
    {.name = "ConcatFromSequence", .domain = "", .since = 11, .shape = shape_concat_from_sequence,
     .cost_doc = COPY_DOC},
    {.name = "Optional", .domain = "", .since = 15, .shape = shape_optional, .cost_doc = "0 FLOPs"},
    {.name = "OptionalHasElement", .domain = "", .since = 15, .shape = shape_optional_has_element,
     .cost_doc = "0 FLOPs"},
    {.name = "OptionalGetElement", .domain = "", .since = 15, .shape = shape_optional_get_element,
     .cost_doc = "0 FLOPs"},
};
RL_FAMILY(sequences, ops);
