/* The layout of a matched profile (struct rl_measured and its kernel
 * groups), shared by the two files of the match step: measured.c builds it
 * (rl_measured_attach: kernels matched to nodes, each group's figures) and
 * measured_json.c writes it (rl_measured_json, rl_measured_layer_put). No
 * other file sees inside an rl_measured: measured.h keeps it opaque.
 *
 * Contracts: every pointer lives in the analysis arena the match was made
 * in; once rl_measured_attach has returned, the structure is read only,
 * except the scratch arrays (ranked, eff, done) that the JSON writer fills
 * so that writing allocates nothing but the JSON. */
#ifndef ROOFLENS_MEASURED_GROUPS_H
#define ROOFLENS_MEASURED_GROUPS_H
#include "measured.h"
#include "timing.h"

/* A kernel group: one kernel, or several that ran the same nodes. */
typedef struct group {
    int *nodes, n_nodes, cap_nodes;
    int *kernels, n_kernels, cap_kernels;
    int last_order;      /* execution position of its last kernel */
    double measured_s;   /* Σ kernel times */
    double sol_s;        /* Σ node roofline times */
    double sol_fused_s;  /* the group's floor as one kernel: max(Σ t_compute, its traffic in and out at
                            rl_traffic_floor_s: what it exchanges with other kernels from a cache
                            level that holds it) */
    double t_compute;    /* Σ node compute times */
    double flops, bytes;
    bool known;          /* every node's cost known */
    bool placed_by_name_only; /* every node so far matched by its plain name (kept as nodes join) */
    const char *how;     /* "name", "fused" or "inferred" (the weakest evidence among its nodes) */
} group;

struct rl_measured {
    rl_profile p;
    const rl_graph *g;
    const rl_measured_cost *cost;
    int *group_of_node;       /* -1: not measured */
    const char **how_of_node; /* "name" | "fused" | "inferred" */
    int *group_of_kernel;     /* -1: the kernel names no node */
    group *groups;
    int n_groups;
    int *kernel_at_order;     /* kernel index by execution position */
    const rl_hw *hw;          /* the device: its memory levels give each group's floor */
    bool infer_fusion;        /* the runtime fuses: nodes without a kernel join a neighbour */
    double total_s, matched_s;
    int shape_mismatches;
    /* allocated with the rest so that writing the JSON allocates nothing
     * but the JSON itself (one slot per possible group) */
    struct ranked { double recoverable, measured_s; int group; } *ranked;
    double *eff;
    bool *done;
};

/* A node's own speed of light: max(t_compute, t_memory). */
static inline double measured_node_sol(const rl_measured *m, int i) {
    return m->cost[i].t_compute > m->cost[i].t_memory ? m->cost[i].t_compute : m->cost[i].t_memory;
}

/* The operator type of a group's first kernel, or NULL when the profile
 * gives none (or the group has no kernel). */
static inline const char *measured_group_kernel_op(const rl_measured *m, const group *G) {
    return G->n_kernels ? m->p.kernels[G->kernels[0]].op : NULL;
}

/* Fused operator types and the ONNX op they are built on; any other op
 * is its own (measured.c). */
const char *measured_base_op(const char *op);

/* Kernels the runtime adds that compute nothing of the model (layout
 * changes, copies): never given nodes of the model (measured.c). */
bool measured_inserted_by_runtime(const rl_kernel *k);
#endif
