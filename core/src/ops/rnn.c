/* Op family: rnn (LSTM, GRU, RNN). Every time step multiplies the input and
 * the previous hidden state by the gate weights, so the work scales with the
 * sequence length T:
 *   matrix_flops = D · T · 2·batch·(input·G·H + H·G·H)
 * with D directions and G gates (LSTM 4, GRU 3, RNN 1). Per step and hidden
 * unit the vector work is (factors in the op table):
 *   LSTM 28: 4 gate sums (Wx + Rh), 3 sigmoids + 2 tanh at 4 each, cell
 *            update f·c + i·g (3), h = o·tanh(c) (1);  +8 with B (Wb and Rb
 *            per gate), +6 with peepholes P;
 *   GRU  19: 3 gate sums, 2 sigmoids + 1 tanh (12), reset product (1),
 *            h = (1-z)·ĥ + z·h (3);  +6 with B;
 *   RNN   5: 1 sum, 1 tanh (4);  +2 with B.
 * W, R, B are weights read once (the default bytes). */
#include <string.h>

#include "op.h"
#include "families.h"

static int rnn_gates(const rl_node *n) {
    if (rl_op_is(n, "LSTM")) return 4;
    if (rl_op_is(n, "GRU")) return 3;
    return 1;
}

static int64_t rnn_directions(rl_ctx *c, const rl_node *n) {
    return strcmp(rl_attr_s(c, n, "direction", "forward"), "bidirectional") == 0 ? 2 : 1;
}

/* T, batch, input size, hidden size, directions (-1 where unknown). */
typedef struct rnn_dims {
    int64_t T, B, I, H, D;
    bool batch_first;
} rnn_dims;

static int read_dims(rl_ctx *c, const rl_node *n, rnn_dims *d) {
    rl_value *x = rl_in(n, 0);
    if (!x || !rl_in(n, 1) || !rl_in(n, 2)) return rl_bad(c, n, "needs X, W and R");
    d->batch_first = n->opset >= 14 && rl_attr_i(c, n, "layout", 0) == 1;
    d->D = rnn_directions(c, n);
    d->H = rl_attr_i_in(c, n, "hidden_size", -1, 1, RL_MAX_ELEMS);
    if (d->H < 0) d->H = rl_in_dim(n, 2, 2); /* R is [D, G·H, H] */
    if (x->rank >= 0 && x->rank != 3) return rl_bad(c, n, "X must be 3-D (got rank %d)", x->rank);
    d->T = rl_in_dim(n, 0, d->batch_first ? 1 : 0);
    d->B = rl_in_dim(n, 0, d->batch_first ? 0 : 1);
    d->I = rl_in_dim(n, 0, 2);
    int64_t wd = rl_in_dim(n, 1, 0);
    if (wd >= 0 && wd != d->D) return rl_bad(c, n, "W has %lld directions, the direction attribute says %lld", (long long)wd, (long long)d->D);
    int64_t gh = rl_in_dim(n, 1, 1);
    if (gh >= 0 && d->H >= 0 && gh != rnn_gates(n) * d->H)
        return rl_bad(c, n, "W has %lld gate rows, expected %d x hidden_size %lld", (long long)gh, rnn_gates(n), (long long)d->H);
    return RL_OK;
}

static int shape_rnn(rl_ctx *c, rl_graph *g, rl_node *n) {
    rnn_dims d;
    if (read_dims(c, n, &d) != RL_OK) return RL_FAIL;
    int dt = rl_in_dtype(n, 0);
    /* Y: [T, D, B, H] (layout 0) or [B, T, D, H]; Y_h, Y_c: [D, B, H] or [B, D, H]. */
    int64_t y[4], h[3];
    if (d.batch_first) {
        y[0] = d.B; y[1] = d.T; y[2] = d.D; y[3] = d.H;
        h[0] = d.B; h[1] = d.D; h[2] = d.H;
    } else {
        y[0] = d.T; y[1] = d.D; y[2] = d.B; y[3] = d.H;
        h[0] = d.D; h[1] = d.B; h[2] = d.H;
    }
    if (rl_set_out(c, n, 0, dt, 4, y) != RL_OK) return RL_FAIL;
    for (int i = 1; i < n->n_out && i < 3; i++)
        if (rl_set_out(c, n, i, dt, 3, h) != RL_OK) return RL_FAIL;
    return d.T >= 0 && d.B >= 0 && d.H >= 0 ? RL_OK : RL_UNKNOWN;
}

static void cost_rnn(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    rnn_dims d;
    rl_quiet quiet; /* shapes were validated already */
    if (read_dims(rl_quiet_ctx(&quiet, c), n, &d) != RL_OK || d.T < 0 || d.B < 0 || d.I < 0 || d.H < 0) return;
    double G = rnn_gates(n), T = (double)d.T, B = (double)d.B, I = (double)d.I, H = (double)d.H, D = (double)d.D;
    k->macs = D * T * B * (I * G * H + H * G * H);
    k->matrix_flops = 2 * k->macs;
    double per = n->op->per_elem;
    if (rl_in(n, 3)) per += 2 * G;                  /* Wb and Rb per gate */
    if (rl_op_is(n, "LSTM") && rl_in(n, 7)) per += 6;  /* peepholes: 3 multiplies, 3 adds */
    k->vector_flops = D * T * B * H * per;
}

static const rl_op_def ops[] = {
    {.name = "LSTM", .domain = "", .since = 1, .shape = shape_rnn, .cost = cost_rnn, .per_elem = 28,
     .cost_doc = "D·T·2·batch·(input·4H + H·4H) matrix FLOPs; D·T·batch·H·(28, +8 with B, +6 with P) vector"},
    {.name = "GRU", .domain = "", .since = 1, .shape = shape_rnn, .cost = cost_rnn, .per_elem = 19,
     .cost_doc = "D·T·2·batch·(input·3H + H·3H) matrix FLOPs; D·T·batch·H·(19, +6 with B) vector"},
    {.name = "RNN", .domain = "", .since = 1, .shape = shape_rnn, .cost = cost_rnn, .per_elem = 5,
     .cost_doc = "D·T·2·batch·(input·H + H·H) matrix FLOPs; D·T·batch·H·(5, +2 with B) vector"},
};
RL_FAMILY(rnn, ops);
