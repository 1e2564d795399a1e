/* The checks of a tensor-parallel split against the graph (docs/parallel.md,
 * "Heads" and "Split sizes"): tp divides every attention head count found,
 * and no layer is split over more devices than the dimension it cuts. */
#include <string.h>

#include "ops/op.h"
#include "parallel_heads.h"

/* Attention heads split over T. A head split is a Reshape of a split value
 * whose last dim E (heads x head dim) ends as the output's last dim d, the
 * H = E / d heads moved into the dim before it:
 *   [.., E]    -> [.., H, d]     one dim more: [B, S, H, d], [S, B, H, d]
 *   [.., n, E] -> [.., n·H, d]   the same rank: torch's sequence-first
 *                                nn.MultiheadAttention, [S, B, E] -> [S, B·H, d]
 * or an attention operator's num_heads / kv_num_heads. A packed Q/K/V
 * product cut in three ([S, B, 3E] -> [S, B, 3, E]) has the same form, but
 * its parts are cut into heads again: a split whose d is another split's E
 * is that cut, not a head count. */
typedef struct head_split {
    int node;
    int64_t heads, width, head_dim; /* H, E, d (E and d 0 for an attribute) */
    const char *what;               /* "heads", or the attribute that gave them */
} head_split;

static bool same_leading_dims(const rl_value *x, const rl_value *y, int n) {
    for (int i = 0; i < n; i++)
        if (x->dims[i] != y->dims[i]) return false;
    return true;
}

/* The heads of a Reshape of a split value read as a head split (0: not one). */
static int64_t reshape_heads(const rl_node *n, const int *sh, head_split *hs) {
    if (strcmp(n->op_type, "Reshape") || n->n_in < 1 || n->in[0] < 0 || sh[n->in[0]] < 0 || n->n_out < 1 ||
        !n->outv[0])
        return 0;
    const rl_value *x = n->inv[0], *y = n->outv[0];
    if (!rl_shape_known(x) || !rl_shape_known(y) || x->rank < 1 || y->rank < 2) return 0;
    int r = x->rank;
    int64_t E = x->dims[r - 1], d = y->dims[y->rank - 1];
    if (d <= 0 || E <= d || E % d) return 0;
    int64_t H = E / d, by = y->dims[y->rank - 2];
    bool one_more = y->rank == r + 1 && same_leading_dims(x, y, r - 1) && by == H;
    bool same_rank = y->rank == r && r >= 2 && same_leading_dims(x, y, r - 2) && by % H == 0 && by / H == x->dims[r - 2];
    if (!one_more && !same_rank) return 0;
    *hs = (head_split){.heads = H, .width = E, .head_dim = d, .what = "heads"};
    return H;
}

/* The head splits of the graph into out[] (room for one a node): their count. */
static int find_head_splits(rl_ctx *c, const rl_graph *g, const int *sh, head_split *out) {
    static const char *const attrs[] = {"num_heads", "kv_num_heads", "q_num_heads", NULL};
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *node = &g->nodes[i];
        head_split hs = {0};
        for (int k = 0; attrs[k] && !hs.heads; k++)
            if (rl_attr(node, attrs[k])) {
                int64_t h = rl_attr_i(c, node, attrs[k], 0);
                if (h > 0) hs = (head_split){.heads = h, .what = attrs[k]};
            }
        if (hs.heads || reshape_heads(node, sh, &hs)) {
            hs.node = i;
            out[n++] = hs;
        }
    }
    int kept = 0;
    for (int i = 0; i < n; i++) {
        bool cut_again = false; /* a packed Q/K/V product cut in parts, not heads */
        for (int j = 0; j < n && out[i].head_dim; j++) cut_again |= out[j].width == out[i].head_dim;
        if (!cut_again) out[kept++] = out[i];
    }
    return kept;
}

/* A product of two split activations: attention's scores or its context. */
static int split_attention(const rl_graph *g, const int *sh) {
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        if (strcmp(n->op_type, "MatMul") || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0) continue;
        if (sh[n->in[0]] >= 0 && sh[n->in[1]] >= 0) return i;
    }
    return -1;
}

/* tp divides every head count found; when attention is split but no head
 * count was found, the plan says that it rests on tp dividing the heads. */
int rl_parallel_check_heads(rl_ctx *c, const rl_graph *g, int tp, const int *sh, rl_error *err) {
    if (tp <= 1) return 0;
    head_split *hs = rl_arena_alloc(c->arena, (size_t)(g->n_nodes + 1) * sizeof *hs);
    if (!hs) {
        rl_error_set(err, "out_of_memory", "parallel", "out of memory");
        return -1;
    }
    int n = find_head_splits(c, g, sh, hs);
    for (int k = 0; k < n; k++) {
        if (hs[k].heads % tp == 0) continue;
        const rl_node *node = &g->nodes[hs[k].node];
        rl_error_set(err, "bad_request", "parallel.tp",
                     "tp=%d does not divide the %lld attention %s of layer '%s' (%s): Megatron tensor "
                     "parallelism splits the heads over the devices; choose a tp that divides %lld",
                     tp, (long long)hs[k].heads, hs[k].what, node->name, node->op_type, (long long)hs[k].heads);
        return -1;
    }
    int at = n ? -1 : split_attention(g, sh);
    if (at >= 0)
        rl_warn(c, "heads_unknown", g->nodes[at].name,
                "tp=%d splits the attention of layer '%s' over the devices, but its head count was not found (no "
                "Reshape into heads and no num_heads attribute rooflens knows): the plan assumes that tp divides "
                "the heads; check that it does", tp, g->nodes[at].name);
    return 0;
}

/* The size of the dimension a layer's split cuts over T: a column layer's
 * output features, a row layer's contraction (its input's last dim), a
 * vocabulary layer's rows (the embedding table's first dim, lm_head's
 * output features). 0 when not known. */
static int64_t split_size(rl_ctx *c, const rl_node *n, rl_shard_kind k, const char **what) {
    const rl_value *v = NULL;
    int axis = -1;
    if (k == RL_SHARD_ROW) {
        v = n->n_in > 0 ? n->inv[0] : NULL;
        *what = "input features";
        if (!strcmp(n->op_type, "Gemm") && rl_attr_i(c, n, "transA", 0)) axis = 0;
    } else if (k == RL_SHARD_VOCAB && strncmp(n->op_type, "Gather", 6) == 0) {
        v = n->n_in > 0 ? n->inv[0] : NULL;
        *what = "vocabulary rows";
        axis = 0;
    } else if (k == RL_SHARD_COLUMN || k == RL_SHARD_VOCAB) {
        v = n->n_out > 0 ? n->outv[0] : NULL;
        *what = k == RL_SHARD_VOCAB ? "vocabulary entries" : "output features";
    }
    if (!v || v->rank < 1) return 0;
    int64_t d = v->dims[axis < 0 ? v->rank - 1 : axis];
    return d > 0 ? d : 0;
}

/* No layer split over more devices than its split dimension has rows. */
int rl_parallel_check_split_sizes(rl_ctx *c, const rl_graph *g, const rl_layer_comm *layer, int tp, rl_error *err) {
    for (int i = 0; tp > 1 && i < g->n_nodes; i++) {
        const char *what = "";
        int64_t size = split_size(c, &g->nodes[i], layer[i].shard, &what);
        if (size > 0 && size < tp) {
            rl_error_set(err, "bad_request", "parallel.tp",
                         "tp=%d is more devices than layer '%s' (%s) has %s to split over (%lld): choose a tp of "
                         "at most %lld", tp, g->nodes[i].name, g->nodes[i].op_type, what, (long long)size,
                         (long long)size);
            return -1;
        }
    }
    return 0;
}
