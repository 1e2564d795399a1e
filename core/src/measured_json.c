/* Writing a matched profile (measured_groups.h): the "measured" section of
 * the answer (totals, unmatched kernels, unmeasured nodes, groups ranked by
 * recoverable time, the median efficiency per op) and each layer's measured
 * columns. Everything written here was computed by measured.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "measured_groups.h"

/* SOL / measured: null when the time is 0 or a node's cost is unknown. */
static double efficiency(const group *G) {
    return G->known && G->measured_s > 0 ? G->sol_s / G->measured_s : NAN;
}

static double recoverable(const group *G) {
    double r = G->measured_s - G->sol_s;
    return G->known && r > 0 ? r : 0;
}

void rl_measured_layer_put(const rl_measured *m, int i, rl_layer_writer *w) {
    int gi = m ? m->group_of_node[i] : -1;
    if (gi < 0) return;
    const group *G = &m->groups[gi];
    /* the group's time shared by the nodes' own speed of light */
    double share = G->sol_s > 0 ? measured_node_sol(m, i) / G->sol_s : 1.0 / G->n_nodes;
    rl_layer_num(w, "measured_s", G->measured_s * share);
    rl_layer_num(w, "efficiency", efficiency(G));
    rl_layer_num(w, "recoverable_s", recoverable(G) * share);
    rl_layer_num(w, "achieved_flops_per_s", G->measured_s > 0 ? G->flops / G->measured_s : NAN);
    rl_layer_num(w, "achieved_Bps", G->measured_s > 0 ? G->bytes / G->measured_s : NAN);
    rl_layer_num(w, "measured_group", gi);
    rl_layer_str(w, "measured_how", m->how_of_node[i]);
}

/* The ONNX op a group is reported under: its node's; for several, the one
 * the kernel's operator is built on (Conv for an NCHWc Conv+Relu), else that
 * of the costliest node. */
static const char *group_op(const rl_measured *m, const group *G) {
    const char *kop = measured_group_kernel_op(m, G);
    int best = G->nodes[0];
    for (int j = 0; j < G->n_nodes; j++) {
        const char *op = m->g->nodes[G->nodes[j]].op_type;
        if (kop && !strcmp(measured_base_op(kop), op)) return op;
        if (measured_node_sol(m, G->nodes[j]) > measured_node_sol(m, best)) best = G->nodes[j];
    }
    return m->g->nodes[best].op_type;
}

static int by_recoverable(const void *a, const void *b) {
    const struct ranked *x = a, *y = b;
    if (x->recoverable != y->recoverable) return x->recoverable < y->recoverable ? 1 : -1;
    if (x->measured_s != y->measured_s) return x->measured_s < y->measured_s ? 1 : -1;
    return x->group - y->group;
}

static cJSON *group_json(const rl_measured *m, int gi) {
    const group *G = &m->groups[gi];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", gi);
    cJSON *ks = cJSON_AddArrayToObject(o, "kernels");
    const rl_kernel *k0 = &m->p.kernels[G->kernels[0]];
    for (int j = 0; j < G->n_kernels; j++) cJSON_AddItemToArray(ks, cJSON_CreateString(m->p.kernels[G->kernels[j]].name));
    if (k0->op) cJSON_AddStringToObject(o, "kernel_op", k0->op);
    else cJSON_AddNullToObject(o, "kernel_op");
    cJSON_AddStringToObject(o, "op", group_op(m, G));
    cJSON *ns = cJSON_AddArrayToObject(o, "nodes");
    for (int j = 0; j < G->n_nodes; j++) cJSON_AddItemToArray(ns, cJSON_CreateNumber(G->nodes[j]));
    cJSON_AddStringToObject(o, "how", G->how);
    rl_json_add_num(o, "measured_s", G->measured_s);
    rl_json_add_num(o, "sol_s", G->sol_s);
    rl_json_add_num(o, "sol_fused_s", G->sol_fused_s);
    rl_json_add_num(o, "flops", G->flops);
    rl_json_add_num(o, "bytes", G->bytes);
    rl_json_add_num(o, "intensity", G->bytes > 0 ? G->flops / G->bytes : 0);
    rl_json_add_num(o, "achieved_flops_per_s", G->measured_s > 0 ? G->flops / G->measured_s : NAN);
    rl_json_add_num(o, "achieved_Bps", G->measured_s > 0 ? G->bytes / G->measured_s : NAN);
    rl_json_add_num(o, "efficiency", efficiency(G));
    rl_json_add_num(o, "recoverable_s", recoverable(G));
    cJSON_AddBoolToObject(o, "known", G->known);
    return o;
}

/* Median efficiency and times per op type. */
static void add_by_op(const rl_measured *m, cJSON *mo) {
    cJSON *arr = cJSON_AddArrayToObject(mo, "by_op");
    int n = m->n_groups;
    double *eff = m->eff;
    bool *done = m->done;
    memset(done, 0, (size_t)(n + 1) * sizeof *done);
    for (int gi = 0; gi < n; gi++) {
        if (done[gi]) continue;
        const char *op = group_op(m, &m->groups[gi]);
        int ne = 0, count = 0;
        double meas = 0, sol = 0;
        for (int gj = gi; gj < n; gj++) {
            const group *G = &m->groups[gj];
            if (done[gj] || strcmp(group_op(m, G), op)) continue;
            done[gj] = true;
            count++;
            meas += G->measured_s;
            sol += G->sol_s;
            double e = efficiency(G);
            if (isfinite(e)) eff[ne++] = e;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "op", op);
        cJSON_AddNumberToObject(o, "groups", count);
        rl_json_add_num(o, "measured_s", meas);
        rl_json_add_num(o, "sol_s", sol);
        rl_json_add_num(o, "median_efficiency", rl_median(eff, ne));
        cJSON_AddItemToArray(arr, o);
    }
}

/* The measured total against the floor and against the forecast. */
static void add_ratios(cJSON *mo, double total_s, double predicted_s, double forecast_s) {
    rl_json_add_num(mo, "predicted_s", predicted_s);
    rl_json_add_num(mo, "measured_over_predicted", predicted_s > 0 ? total_s / predicted_s : NAN);
    /* how far the run is from what the stack was expected to take */
    rl_json_add_num(mo, "forecast_s", forecast_s > 0 ? forecast_s : NAN);
    rl_json_add_num(mo, "measured_over_forecast", forecast_s > 0 ? total_s / forecast_s : NAN);
}

/* What the match left out: the profile's kernels that name no node (in
 * the run's order, with why) and the nodes with work that no kernel
 * measured (their indices). */
static void add_left_out(const rl_measured *m, cJSON *mo) {
    cJSON *un = cJSON_AddArrayToObject(mo, "unmatched");
    for (int o = 0; o < m->p.n_kernels; o++) {
        int k = m->kernel_at_order[o];
        if (m->group_of_kernel[k] >= 0) continue;
        const rl_kernel *K = &m->p.kernels[k];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", K->name);
        if (K->op) cJSON_AddStringToObject(e, "op", K->op);
        else cJSON_AddNullToObject(e, "op");
        rl_json_add_num(e, "time_s", K->time_s);
        cJSON_AddStringToObject(e, "why", measured_inserted_by_runtime(K) ? "added by the runtime (layout change or copy)"
                                                                   : "names no node of this model");
        cJSON_AddItemToArray(un, e);
    }
    cJSON *unm = cJSON_AddArrayToObject(mo, "unmeasured");
    for (int i = 0; i < m->g->n_nodes; i++) {
        if (m->group_of_node[i] >= 0 || measured_node_sol(m, i) <= 0) continue;
        cJSON_AddItemToArray(unm, cJSON_CreateNumber(i));
    }
}

void rl_measured_json(const rl_measured *m, cJSON *root, double predicted_s, double forecast_s) {
    if (!m) return;
    cJSON *mo = cJSON_AddObjectToObject(root, "measured");
    cJSON_AddStringToObject(mo, "format", rl_value_id(RL_LIST_MEASURED_FORMAT, m->p.format));
    cJSON_AddNumberToObject(mo, "runs", m->p.runs);
    cJSON_AddBoolToObject(mo, "warmup_excluded", m->p.warmup_excluded);
    cJSON_AddStringToObject(mo, "statistic", m->p.median ? "median" : "mean");
    rl_json_add_num(mo, "total_s", m->total_s);
    rl_json_add_num(mo, "matched_s", m->matched_s);
    rl_json_add_num(mo, "unmatched_s", m->total_s - m->matched_s);
    if (m->p.run_wall_s > 0) rl_json_add_num(mo, "run_wall_s", m->p.run_wall_s);
    else cJSON_AddNullToObject(mo, "run_wall_s");
    if (m->p.between_kernels_s >= 0) rl_json_add_num(mo, "between_kernels_s", m->p.between_kernels_s);
    else cJSON_AddNullToObject(mo, "between_kernels_s");
    if (isfinite(m->p.between_growth)) rl_json_add_num(mo, "between_kernels_growth", m->p.between_growth);
    else cJSON_AddNullToObject(mo, "between_kernels_growth");
    add_ratios(mo, m->total_s, predicted_s, forecast_s);
    double sol = 0, rec = 0, within = 0, within_unfused = 0, known_s = 0;
    int nodes_measured = 0, nodes_inferred = 0;
    for (int gi = 0; gi < m->n_groups; gi++) {
        const group *G = &m->groups[gi];
        if (!G->known) continue;
        sol += G->sol_s;
        rec += recoverable(G);
        known_s += G->measured_s;
        /* a kernel is held to its group's own floor: fused, its intermediates
         * need not reach main memory (sol_fused_s, = sol_s for one node) */
        if (G->sol_fused_s <= G->measured_s) within += G->measured_s;
        if (G->sol_s <= G->measured_s) within_unfused += G->measured_s;
    }
    rl_json_add_num(mo, "sol_s", sol);
    rl_json_add_num(mo, "efficiency", known_s > 0 ? sol / known_s : NAN);
    rl_json_add_num(mo, "recoverable_s", rec);
    /* the speed of light is meant as a lower bound: the share of the
     * measured time (of groups with known costs) where it held, each group
     * against its own floor; and, as a detail, against the node-by-node sum */
    rl_json_add_num(mo, "sol_bound_share", known_s > 0 ? within / known_s : NAN);
    rl_json_add_num(mo, "sol_bound_share_unfused", known_s > 0 ? within_unfused / known_s : NAN);
    cJSON_AddNumberToObject(mo, "kernels", m->p.n_kernels);
    int matched = 0;
    for (int k = 0; k < m->p.n_kernels; k++) matched += m->group_of_kernel[k] >= 0;
    cJSON_AddNumberToObject(mo, "matched", matched);
    for (int i = 0; i < m->g->n_nodes; i++) {
        if (m->group_of_node[i] < 0) continue;
        nodes_measured++;
        nodes_inferred += !strcmp(m->how_of_node[i], "inferred");
    }
    cJSON_AddNumberToObject(mo, "nodes_measured", nodes_measured);
    cJSON_AddNumberToObject(mo, "nodes_inferred", nodes_inferred);
    cJSON_AddNumberToObject(mo, "shape_mismatches", m->shape_mismatches);
    cJSON_AddNumberToObject(mo, "ignored_events", m->p.ignored_events);
    cJSON_AddNumberToObject(mo, "warmup_only_kernels", m->p.warmup_only);
    add_left_out(m, mo);
    /* ranked by recoverable time: where optimisation pays */
    cJSON *gs = cJSON_AddArrayToObject(mo, "groups");
    for (int gi = 0; gi < m->n_groups; gi++)
        m->ranked[gi] = (struct ranked){recoverable(&m->groups[gi]), m->groups[gi].measured_s, gi};
    qsort(m->ranked, (size_t)m->n_groups, sizeof *m->ranked, by_recoverable);
    for (int j = 0; j < m->n_groups; j++) cJSON_AddItemToArray(gs, group_json(m, m->ranked[j].group));
    add_by_op(m, mo);
}
