/* Op family: control (If, Loop, Scan). A control node costs what its bodies
 * cost: the bodies are built and inferred here with the values that flow in,
 * stored in n->subgraphs, and rl_cost_graph counts them n->sub_multiplier
 * times. If counts its costlier branch (the one taken when the condition is
 * a known constant), Loop its trip count when M is a known constant, Scan its
 * sequence length. */
#include <string.h>

#include "op.h"
#include "families.h"

/* Trip counts above this are "run until cond" sentinels, not real counts. */
#define RL_MAX_TRIP INT64_C(1000000000)

static const Onnx__GraphProto *graph_attr(const rl_node *n, const char *name) {
    const Onnx__AttributeProto *a = rl_attr(n, name);
    return a ? a->g : NULL;
}

static rl_value *temp_value(rl_ctx *c, const char *name, int dtype, int rank, const int64_t *dims) {
    rl_value *v = rl_arena_alloc(c->arena, sizeof *v);
    if (!v) return NULL;
    v->name = name;
    v->type = RL_TYPE_TENSOR;
    v->dtype = dtype;
    v->rank = rank;
    v->producer = -1;
    v->n_known = -1;
    v->seq_len = -1;
    v->declared_rank = -2;
    if (rank > 0) {
        v->dims = rl_arena_alloc(c->arena, (size_t)rank * sizeof *v->dims);
        if (!v->dims) return NULL;
        memcpy(v->dims, dims, (size_t)rank * sizeof *v->dims);
    }
    return v;
}

/* A copy of v without its contents: loop-carried values change every
 * iteration, so folding the first iteration's contents would be wrong. */
static rl_value *without_contents(rl_ctx *c, const rl_value *v) {
    if (!v) return NULL;
    rl_value *t = temp_value(c, v->name, v->dtype, v->rank, v->dims);
    if (t) {
        t->type = v->type;
        t->seq_len = v->seq_len;
    }
    return t;
}

static rl_graph *build_body(rl_ctx *c, rl_graph *g, rl_node *n, const Onnx__GraphProto *body,
                            int n_preset, rl_value *const *preset) {
    rl_graph *b = c->walkers->body_infer(c, g, n, body, n_preset, preset);
    if (!b && !c->err->code[0]) rl_bad(c, n, "could not build its body");
    return b;
}

static bool store_bodies(rl_ctx *c, rl_node *n, rl_graph *const *bodies, int count, double times) {
    n->subgraphs = rl_arena_alloc(c->arena, (size_t)count * sizeof *n->subgraphs);
    if (!n->subgraphs) return false;
    memcpy(n->subgraphs, bodies, (size_t)count * sizeof *bodies);
    n->n_subgraphs = count;
    n->sub_multiplier = times;
    return true;
}

/* Output i takes body value src's type and shape (and contents if asked). */
static int set_from_body(rl_ctx *c, rl_node *n, int i, const rl_value *src, bool contents) {
    if (!src) return rl_set_out(c, n, i, 0, -1, NULL);
    if (rl_set_out_like(c, n, i, src) != RL_OK) return RL_FAIL;
    rl_value *o = rl_out(n, i);
    if (o) o->seq_len = src->seq_len;
    if (contents && src->n_known >= 0 && src->type == RL_TYPE_TENSOR)
        rl_set_out_contents(c, n, i, src->n_known, src->ival, src->fval);
    return RL_OK;
}

static int status_of_outputs(const rl_node *n) {
    for (int i = 0; i < n->n_out; i++) {
        const rl_value *o = rl_out(n, i);
        if (o && o->type == RL_TYPE_TENSOR && !rl_shape_known(o)) return RL_UNKNOWN;
    }
    return RL_OK;
}

/* ----------------------------------------------------------------- If -- */

static double flops_of(const rl_cost *k) { return k->matrix_flops + k->vector_flops; }
static double bytes_of(const rl_cost *k) { return k->input_bytes + k->weight_bytes + k->output_bytes; }

static int shape_if(rl_ctx *c, rl_graph *g, rl_node *n) {
    const Onnx__GraphProto *tg = graph_attr(n, "then_branch"), *eg = graph_attr(n, "else_branch");
    if (!tg || !eg) return rl_bad(c, n, "If needs then_branch and else_branch");
    rl_value *cond = rl_in(n, 0);
    bool cond_known = cond && cond->n_known >= 1 && cond->ival;
    rl_graph *then_b = build_body(c, g, n, tg, 0, NULL);
    if (!then_b) return RL_FAIL;
    rl_graph *else_b = build_body(c, g, n, eg, 0, NULL);
    if (!else_b) return RL_FAIL;
    if (then_b->n_outputs != else_b->n_outputs || then_b->n_outputs < n->n_out)
        return rl_bad(c, n, "its branches have %d and %d outputs for %d node outputs", then_b->n_outputs,
                      else_b->n_outputs, n->n_out);
    rl_graph *kept;
    if (cond_known) {
        kept = cond->ival[0] ? then_b : else_b;
    } else {
        rl_cost kt, ke;
        if (c->walkers->cost_graph(c, then_b, &kt) || c->walkers->cost_graph(c, else_b, &ke)) return RL_FAIL;
        bool then_costlier = flops_of(&kt) > flops_of(&ke) ||
                             (flops_of(&kt) == flops_of(&ke) && bytes_of(&kt) >= bytes_of(&ke));
        kept = then_costlier ? then_b : else_b;
        rl_warn(c, "control_flow", n->name,
                "If node '%s': the condition is not known before run time; counting the costlier "
                "(%s) branch only", n->name, then_costlier ? "then" : "else");
    }
    if (!store_bodies(c, n, &kept, 1, 1.0)) return rl_bad(c, n, "out of memory");
    for (int i = 0; i < n->n_out; i++) {
        if (cond_known) {
            if (set_from_body(c, n, i, kept->outputs[i], true) == RL_FAIL) return RL_FAIL;
            continue;
        }
        /* Unknown condition: the output is what both branches agree on. */
        const rl_value *a = then_b->outputs[i], *b = else_b->outputs[i];
        if (!a || !b) {
            if (rl_set_out(c, n, i, 0, -1, NULL) != RL_OK) return RL_FAIL;
            continue;
        }
        if (set_from_body(c, n, i, a, false) == RL_FAIL) return RL_FAIL;
        rl_value *o = rl_out(n, i);
        if (!o) continue;
        if (!o->dtype) o->dtype = b->dtype;
        if (a->rank != b->rank) o->rank = -1;
        else
            for (int k = 0; k < o->rank; k++)
                if (o->dims[k] != b->dims[k]) o->dims[k] = -1;
        if (a->seq_len != b->seq_len) o->seq_len = -1;
    }
    return status_of_outputs(n);
}

/* --------------------------------------------------------------- Loop -- */

static int shape_loop(rl_ctx *c, rl_graph *g, rl_node *n) {
    const Onnx__GraphProto *body = graph_attr(n, "body");
    if (!body) return rl_bad(c, n, "Loop needs a body");
    int carried = n->n_in - 2;
    if (carried < 0) carried = 0;
    int64_t trip = -1;
    rl_value *m = rl_in(n, 0);
    if (m && m->n_known >= 1 && m->ival && m->ival[0] >= 0 && m->ival[0] <= RL_MAX_TRIP) trip = m->ival[0];
    rl_value *cond = rl_in(n, 1);
    /* A loop whose condition starts false runs zero times. */
    if (cond && cond->n_known >= 1 && cond->ival && cond->ival[0] == 0) trip = 0;

    rl_value **preset = rl_arena_alloc(c->arena, (size_t)(carried + 2) * sizeof *preset);
    if (!preset) return rl_bad(c, n, "out of memory");
    preset[0] = temp_value(c, "iteration_num", RL_DT_INT64, 0, NULL);
    preset[1] = temp_value(c, "cond", RL_DT_BOOL, 0, NULL);
    for (int i = 0; i < carried; i++) preset[2 + i] = without_contents(c, rl_in(n, 2 + i));
    rl_graph *b = build_body(c, g, n, body, carried + 2, preset);
    if (!b) return RL_FAIL;
    if (b->n_outputs < 1 + carried) return rl_bad(c, n, "its body has %d outputs for %d loop-carried values", b->n_outputs, carried);
    int scan_outs = b->n_outputs - 1 - carried;
    if (n->n_out > carried + scan_outs) return rl_bad(c, n, "it has %d outputs, its body gives %d", n->n_out, carried + scan_outs);

    double times = trip >= 0 ? (double)trip : 1.0;
    /* the scan outputs' length is the trip count, a runtime value here */
    if (trip < 0) rl_needs_runtime(n, m && m->n_known < 1 ? 0 : 1);
    if (trip < 0)
        rl_warn(c, "control_flow", n->name,
                "Loop node '%s': the trip count is not known before run time; counting one "
                "iteration", n->name);
    if (!store_bodies(c, n, &b, 1, times)) return rl_bad(c, n, "out of memory");

    for (int i = 0; i < carried && i < n->n_out; i++) {
        const rl_value *fin = b->outputs[1 + i], *init = rl_in(n, 2 + i);
        if (set_from_body(c, n, i, fin, false) == RL_FAIL) return RL_FAIL;
        rl_value *o = rl_out(n, i);
        if (!o || !fin) continue;
        /* zero iterations: the initial value comes out unchanged */
        if (trip == 0 && init) {
            if (set_from_body(c, n, i, init, true) == RL_FAIL) return RL_FAIL;
            continue;
        }
        /* A value whose shape grows per iteration has an unknown final size
         * unless the body's shape already is the final one (a single pass). */
        if (init && init->rank >= 0 && o->rank == init->rank && trip != 1)
            for (int k = 0; k < o->rank; k++)
                if (o->dims[k] != init->dims[k]) o->dims[k] = -1;
    }
    for (int j = 0; j < scan_outs && carried + j < n->n_out; j++) {
        const rl_value *el = b->outputs[1 + carried + j];
        int out_i = carried + j;
        if (!el || el->rank < 0 || el->rank + 1 > RL_MAX_RANK_HARD) {
            if (rl_set_out(c, n, out_i, el ? el->dtype : 0, -1, NULL) != RL_OK) return RL_FAIL;
            continue;
        }
        int64_t dims[RL_MAX_RANK_HARD];
        dims[0] = trip;
        memcpy(dims + 1, el->dims, (size_t)el->rank * sizeof *dims);
        if (rl_set_out(c, n, out_i, el->dtype, el->rank + 1, dims) != RL_OK) return RL_FAIL;
    }
    return status_of_outputs(n);
}

/* -------------------------------------------------------- SequenceMap -- */
/* The body runs once per element of input_sequence; sequence inputs give it
 * one element, tensor inputs are passed whole. Each output is the sequence
 * of the body's per-element results. */
static int shape_sequence_map(rl_ctx *c, rl_graph *g, rl_node *n) {
    const Onnx__GraphProto *body = graph_attr(n, "body");
    if (!body) return rl_bad(c, n, "SequenceMap needs a body");
    rl_value *seq = rl_in(n, 0);
    if (!seq) return rl_bad(c, n, "SequenceMap needs an input sequence");
    rl_value **preset = rl_arena_alloc(c->arena, (size_t)(n->n_in + 1) * sizeof *preset);
    if (!preset) return rl_bad(c, n, "out of memory");
    for (int i = 0; i < n->n_in; i++) {
        rl_value *v = rl_in(n, i);
        if (!v) continue;
        /* a sequence value holds its elements' shared shape (rank -1 when they differ) */
        preset[i] = v->type == RL_TYPE_SEQUENCE ? temp_value(c, v->name, v->dtype, v->rank, v->dims) : without_contents(c, v);
        if (!preset[i]) return rl_bad(c, n, "out of memory");
    }
    rl_graph *b = build_body(c, g, n, body, n->n_in, preset);
    if (!b) return RL_FAIL;
    if (b->n_outputs < n->n_out) return rl_bad(c, n, "it has %d outputs, its body gives %d", n->n_out, b->n_outputs);
    int len = seq->seq_len;
    if (len < 0)
        rl_warn(c, "control_flow", n->name,
                "SequenceMap node '%s': the sequence length is not known before run time; counting "
                "one pass of its body", n->name);
    if (!store_bodies(c, n, &b, 1, len >= 0 ? (double)len : 1.0)) return rl_bad(c, n, "out of memory");
    for (int i = 0; i < n->n_out; i++) {
        if (set_from_body(c, n, i, b->outputs[i], false) == RL_FAIL) return RL_FAIL;
        rl_value *o = rl_out(n, i);
        if (!o) continue;
        o->type = RL_TYPE_SEQUENCE;
        o->seq_len = len;
    }
    return RL_OK;
}

/* --------------------------------------------------------------- Scan -- */

/* Scan's outputs from its body's: the final states (with the batch axis in
 * the opset 8 form), then the scan outputs stacked along their axis. */
static int scan_set_outputs(rl_ctx *c, rl_node *n, const rl_graph *b, int n_state, bool batched, int64_t batch,
                            int64_t length, int n_out_axes, const int64_t *out_axes) {
    int scan_outs = b->n_outputs - n_state;
    for (int i = 0; i < n_state && i < n->n_out; i++) {
        const rl_value *fin = b->outputs[i];
        if (!fin || fin->rank < 0 || fin->rank + 1 > RL_MAX_RANK_HARD) {
            if (rl_set_out(c, n, i, fin ? fin->dtype : 0, -1, NULL) != RL_OK) return RL_FAIL;
            continue;
        }
        int64_t dims[RL_MAX_RANK_HARD];
        int r = 0;
        if (batched) dims[r++] = batch;
        memcpy(dims + r, fin->dims, (size_t)fin->rank * sizeof *dims);
        if (rl_set_out(c, n, i, fin->dtype, fin->rank + r, dims) != RL_OK) return RL_FAIL;
    }
    for (int j = 0; j < scan_outs && n_state + j < n->n_out; j++) {
        const rl_value *el = b->outputs[n_state + j];
        int out_i = n_state + j;
        if (!el || el->rank < 0 || el->rank + 2 > RL_MAX_RANK_HARD) {
            if (rl_set_out(c, n, out_i, el ? el->dtype : 0, -1, NULL) != RL_OK) return RL_FAIL;
            continue;
        }
        int r = el->rank + 1 + (batched ? 1 : 0);
        int axis = batched ? 1 : rl_axis(c, n, n_out_axes >= 0 ? out_axes[j] : 0, el->rank + 1);
        if (axis < 0) return RL_FAIL;
        int64_t dims[RL_MAX_RANK_HARD];
        for (int k = 0, s = 0; k < r; k++) {
            if (batched && k == 0) dims[k] = batch;
            else if (k == axis) dims[k] = length;
            else dims[k] = el->dims[s++];
        }
        if (rl_set_out(c, n, out_i, el->dtype, r, dims) != RL_OK) return RL_FAIL;
    }
    return RL_OK;
}

static int shape_scan(rl_ctx *c, rl_graph *g, rl_node *n) {
    const Onnx__GraphProto *body = graph_attr(n, "body");
    if (!body) return rl_bad(c, n, "Scan needs a body");
    int64_t n_scan = rl_attr_i(c, n, "num_scan_inputs", -1);
    /* opset 8 puts an optional sequence_lens first and a batch axis on everything */
    bool batched = n->opset < 9;
    int first = batched ? 1 : 0;
    int total = n->n_in - first;
    if (n_scan < 1 || n_scan > total) return rl_bad(c, n, "num_scan_inputs %lld for %d inputs", (long long)n_scan, total);
    int n_state = total - (int)n_scan;
    const int64_t *in_axes = NULL, *out_axes = NULL;
    int n_in_axes = batched ? -1 : rl_attr_ints(n, "scan_input_axes", &in_axes);
    int n_out_axes = batched ? -1 : rl_attr_ints(n, "scan_output_axes", &out_axes);
    if (n_in_axes >= 0 && n_in_axes != n_scan) return rl_bad(c, n, "scan_input_axes has %d entries", n_in_axes);

    rl_value **preset = rl_arena_alloc(c->arena, (size_t)(total + 1) * sizeof *preset);
    if (!preset) return rl_bad(c, n, "out of memory");
    int64_t batch = -1;
    for (int i = 0; i < n_state; i++) {
        const rl_value *s = rl_in(n, first + i);
        if (batched && s && s->rank >= 1) {
            batch = s->dims[0];
            preset[i] = temp_value(c, s->name, s->dtype, s->rank - 1, s->dims + 1);
        } else {
            preset[i] = without_contents(c, s);
        }
    }
    int64_t length = -2;
    for (int j = 0; j < n_scan; j++) {
        const rl_value *x = rl_in(n, first + n_state + j);
        preset[n_state + j] = NULL;
        if (!x || x->rank < 0) { length = -1; continue; }
        int skip = batched ? 1 : 0;
        int axis = batched ? 1 : rl_axis(c, n, n_in_axes >= 0 ? in_axes[j] : 0, x->rank);
        if (axis < 0) return RL_FAIL;
        if (axis >= x->rank) return rl_bad(c, n, "scan input %d has rank %d", j, x->rank);
        if (batched) batch = x->dims[0];
        int64_t dims[RL_MAX_RANK_HARD];
        int r = 0;
        for (int k = skip; k < x->rank; k++)
            if (k != axis) dims[r++] = x->dims[k];
        int64_t len = x->dims[axis];
        if (length == -2) length = len;
        else if (length >= 0 && len >= 0 && len != length)
            return rl_bad(c, n, "scan inputs have lengths %lld and %lld", (long long)length, (long long)len);
        else if (len < 0) length = -1;
        preset[n_state + j] = temp_value(c, x->name, x->dtype, r, dims);
    }
    if (length < -1) length = -1;
    rl_graph *b = build_body(c, g, n, body, total, preset);
    if (!b) return RL_FAIL;
    if (b->n_outputs < n_state) return rl_bad(c, n, "its body has %d outputs for %d states", b->n_outputs, n_state);
    int scan_outs = b->n_outputs - n_state;
    if (n_out_axes >= 0 && n_out_axes != scan_outs) return rl_bad(c, n, "scan_output_axes has %d entries", n_out_axes);

    if (length < 0)
        rl_warn(c, "control_flow", n->name,
                "Scan node '%s': the sequence length is not known; counting one iteration", n->name);
    /* The batched form runs the body once per batch row as well. */
    double times = length >= 0 ? (double)length : 1.0;
    if (batched && batch > 0) times *= (double)batch;
    if (!store_bodies(c, n, &b, 1, times)) return rl_bad(c, n, "out of memory");

    if (scan_set_outputs(c, n, b, n_state, batched, batch, length, n_out_axes, out_axes) == RL_FAIL) return RL_FAIL;
    return status_of_outputs(n);
}

static const rl_op_def ops[] = {
    {.name = "If", .domain = "", .since = 1, .shape = shape_if, .flags = RL_OP_CONTROL,
     .cost_doc = "the costlier branch's cost (the taken branch when the condition is a constant)"},
    {.name = "Loop", .domain = "", .since = 1, .shape = shape_loop, .flags = RL_OP_CONTROL,
     .cost_doc = "body cost × trip count M when M is a constant (one iteration otherwise, with a warning)"},
    {.name = "SequenceMap", .domain = "", .since = 17, .shape = shape_sequence_map, .flags = RL_OP_CONTROL,
     .cost_doc = "body cost × the input sequence's length (one pass when it is not known)"},
    {.name = "Scan", .domain = "", .since = 8, .shape = shape_scan, .flags = RL_OP_CONTROL,
     .cost_doc = "body cost × sequence length (× batch for the opset-8 form)"},
};
RL_FAMILY(control, ops);
