/* The printers of one analysis: the layer table with the headline
 * figures, the measured profile against the prediction, and the CSV. They
 * lay out the core's answer; every figure is read from it. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "print.h"

const char *opt_eng(const cJSON *o, const char *k, const char *unit, char *buf, size_t cap) {
    if (!cJSON_IsNumber(get(o, k))) return RL_NO_FIGURE;
    return eng(num(o, k), unit, buf, cap);
}


const char *band_text(const cJSON *o, const char *low, const char *high, bool word, char *buf, size_t cap) {
    if (!cJSON_IsNumber(get(o, low)) || !cJSON_IsNumber(get(o, high))) return NULL;
    char a[32], b[32];
    snprintf(buf, cap, "%s%s to %s", word ? "likely " : "", tsec(num(o, low), a, sizeof a), tsec(num(o, high), b, sizeof b));
    return buf;
}

/* The forecast beside the floor: what the model will take on the
 * profile's software stack, how far off it may be, and on what the
 * estimate rests; with --explain, the track record it was checked against
 * and where its runs are listed. */
/* What a time or an energy of the answer is for: "per inference", or at a
 * batch above one "per batch of N" (the core's per_sample block is there
 * then). Written into buf. */
static const char *per_what(const cJSON *ps, char *buf, size_t size) {
    if (cJSON_IsObject(ps)) snprintf(buf, size, "per batch of %s", numf("%g", num(ps, "samples")));
    else snprintf(buf, size, "per inference");
    return buf;
}

/* ", 794 ns a sample" for the per_sample figure `key`, or "" without one. */
static const char *a_sample(const cJSON *ps, const char *key, char *buf, size_t size) {
    char t[32];
    if (!cJSON_IsObject(ps) || !cJSON_IsNumber(get(ps, key))) return "";
    const bool energy = strstr(key, "energy") != NULL;
    snprintf(buf, size, ", %s a sample", energy ? eng(num(ps, key), "J", t, sizeof t) : tsec(num(ps, key), t, sizeof t));
    return buf;
}

static void print_forecast(const cJSON *f, const cJSON *ps, bool explain) {
    if (!cJSON_IsObject(f)) return;
    char a[32], b[32], band[96], per[48], one[64];
    const char *likely = band_text(f, "low_s", "high_s", true, band, sizeof band);
    /* at a batch above one: "27.4 µs per batch of 8, 3.43 µs a sample" */
    char whole[160];
    snprintf(whole, sizeof whole, "%s%s%s%s", tsec(num(f, "time_s"), a, sizeof a), cJSON_IsObject(ps) ? " " : "",
             cJSON_IsObject(ps) ? per_what(ps, per, sizeof per) : "", a_sample(ps, "forecast_s", one, sizeof one));
    tprintf("forecast  %s, %s  (%sx the floor %s; %s: %s)\n", whole,
           likely ? likely : tstr(f, "track_record"), numf("%.3g", num(f, "headroom")), tsec(num(f, "floor_s"), b, sizeof b),
           word("basis", str(f, "basis")), tstr(f, "stack"));
    const cJSON *rec = get(f, "band");
    if (explain && cJSON_IsObject(rec))
        tprintf("          track record: %s (%s)\n"
                "          likely range: measured / forecast %s to %s over those runs (10th to 90th percentile),\n"
                "          never below the floor; the runs: %s\n",
                tstr(f, "track_record"), tstr(rec, "basis"), numf("%.2f", num(rec, "low")), numf("%.2f", num(rec, "high")),
                tstr(rec, "source"));
    else if (explain)
        tprintf("          %s: no held-out run of it is listed, so the forecast has no likely range\n",
                tstr(f, "track_record"));
    if (cJSON_IsNumber(get(f, "energy_j")))
        tprintf("          energy %s %s%s at the forecast's pace\n", eng(num(f, "energy_j"), "J", a, sizeof a),
                per_what(ps, per, sizeof per), a_sample(ps, "forecast_energy_j", one, sizeof one));
}

/* The totals and the headline: the chosen model's figures, as every other
 * surface shows them, then the three models side by side. */
static void print_headline(const cJSON *res, bool explain) {
    const cJSON *tot = get(res, "totals"), *sol = get(res, "sol");
    const cJSON *ch = get(sol, "chosen");
    const double total_t = num(ch, "time_s");
    char a[32], b[32], c2[32], d[32], e[32], f[32];
    tprintf("\ntotals    %s FLOPs (matrix %s, vector %s), %s moved unfused (%s fused), intensity %s FLOP/B\n",
           eng(num(tot, "flops"), "", a, sizeof a), eng(num(tot, "matrix_flops"), "", b, sizeof b),
           eng(num(tot, "vector_flops"), "", c2, sizeof c2), eng(num(tot, "bytes"), "B", d, sizeof d),
           eng(num(tot, "fused_bytes"), "B", e, sizeof e), numf("%.2f", num(tot, "intensity")));
    const cJSON *ps = get(res, "per_sample");
    char per[48], one[64];
    char whole[160];
    snprintf(whole, sizeof whole, "%s%s%s%s", tsec(total_t, a, sizeof a), cJSON_IsObject(ps) ? " " : "",
             cJSON_IsObject(ps) ? per_what(ps, per, sizeof per) : "", a_sample(ps, "floor_s", one, sizeof one));
    tprintf("\nfloor     %s  (speed of light: %s, %s; limited by the %s)\n", whole,
           word("sol", str(ch, "model")), word("granularity", str(ch, "granularity")), word("bound", str(ch, "bound")));
    tprintf("          %s %s ... %s; %s kernels, launch floor %s\n", word("term", "floor_range"), tsec(num(ch, "lower_bound_s"), a, sizeof a),
           tsec(num(ch, "upper_bound_s"), b, sizeof b), numf("%g", num(ch, "kernels")), tsec(num(ch, "launch_floor_s"), c2, sizeof c2));
    if (cJSON_IsNumber(get(ch, "energy_j")))
        tprintf("          energy %s %s%s, average power %s%s\n", eng(num(ch, "energy_j"), "J", a, sizeof a),
               per_what(ps, per, sizeof per), a_sample(ps, "energy_j", one, sizeof one), eng(num(ch, "avg_power_w"), "W", b, sizeof b),
               is_true(ch, "power_capped") ? " (held to the power budget)" : "");
    print_forecast(get(res, "forecast"), ps, explain);
    tprintf("\nspeed of light         %10s %10s %10s %10s %8s %10s %-16s %10s\n", "time", "lower", "upper", "roofline",
           "kernels", "launches", "limited by", "energy");
    const cJSON *m;
    /* every model the core wrote, in its table's order; "chosen" repeats one, naming it */
    cJSON_ArrayForEach(m, sol) {
        if (!cJSON_IsObject(m) || cJSON_IsString(get(m, "model"))) continue;
        tprintf("  %-20s %10s %10s %10s %10s %8s %10s %-16s %10s%s\n", word("sol", m->string), tsec(num(m, "time_s"), a, sizeof a),
               tsec(num(m, "lower_bound_s"), b, sizeof b), tsec(num(m, "upper_bound_s"), c2, sizeof c2),
               tsec(num(m, "roof_time_s"), d, sizeof d), numf("%g", num(m, "kernels")), tsec(num(m, "launch_floor_s"), e, sizeof e),
               word("bound", str(m, "bound")), opt_eng(m, "energy_j", "J", f, sizeof f),
               !strcmp(m->string, tstr(ch, "model")) ? "  <- chosen" : "");
    }
}

void print_table(const cJSON *res, const layer_table *L, int top, bool explain) {
    const cJSON *model = get(res, "model"), *hw = get(res, "hardware");
    const cJSON *sol = get(res, "sol");
    const cJSON *roof = get(res, "roofline"), *opt = get(res, "options");
    char a[32], b[32], c2[32], d[32], e[32];
    tprintf("model     %s  (%s nodes, %s params, %s of weights)\n", tstr(model, "name")[0] ? tstr(model, "name") : "(unnamed)",
           numf("%g", num(model, "nodes")), eng(num(model, "params"), "", a, sizeof a), eng(num(model, "weight_bytes"), "B", b, sizeof b));
    tprintf("hardware  %s%s%s  precision %s%s%s%s, %s\n", tstr(hw, "name"),
           cJSON_IsString(get(hw, "power_mode")) ? ", mode " : "",
           cJSON_IsString(get(hw, "power_mode")) ? tstr(hw, "power_mode_name") : "",
           tstr(roof, "precision"), strcmp(str(roof, "precision"), str(roof, "requested_precision")) ? " (" : "",
           strcmp(str(roof, "precision"), str(roof, "requested_precision")) ? tstr(roof, "requested_precision") : "",
           strcmp(str(roof, "precision"), str(roof, "requested_precision")) ? " requested)" : "", tstr(opt, "mode"));
    if (cJSON_IsNumber(get(opt, "batch"))) {
        tprintf("batch     %g", num(opt, "batch"));
        if (!strcmp(str(opt, "batch_applied"), "scaled"))
            tprintf(" (the model's fixed batch %s, scaled: FLOPs and activations x%s, weights once)",
                   numf("%g", num(opt, "batch_base")), numf("%g", num(opt, "batch") / num(opt, "batch_base")));
        tprintf("\n");
    }
    const cJSON *dims = get(model, "dims");
    if (cJSON_GetArraySize(dims) > 0) {
        tprintf("dims     ");
        const cJSON *dd;
        cJSON_ArrayForEach(dd, dims) tprintf(" %s=%s", txt(dd->string), numf("%g", num(dd, "value")));
        tprintf("\n");
    }
    layer_col name, op, flops, bytes, intensity, t, bound, fc;
    layer_col_open(L, "name", &name), layer_col_open(L, "op", &op), layer_col_open(L, "flops", &flops);
    layer_col_open(L, "bytes", &bytes), layer_col_open(L, "intensity", &intensity), layer_col_open(L, "t", &t);
    layer_col_open(L, "bound", &bound), layer_col_open(L, "forecast_s", &fc);
    /* the rows come slowest first ("top_layers": the core's order) */
    int n = L->count, shown = top > 0 && top < n ? top : n;
    int total = cJSON_IsNumber(get(res, "layers_total")) ? (int)num(res, "layers_total") : n;
    double total_t = num(get(sol, "chosen"), "time_s"); /* the layers' times are their shares of it */
    tprintf("\n%-32s %-18s %10s %10s %8s %10s %10s %-16s %6s\n", "layer (top by time)", "op", "FLOPs", "bytes", "AI",
           "time", "forecast", "limited by", "share");
    for (int i = 0; i < shown; i++) {
        double ti = layer_num(&t, i);
        tprintf("%-32s %-18s %10s %10s %8s %10s %10s %-16s %6s\n", txt_cut(layer_str(&name, i), 32),
               txt_cut(layer_str(&op, i), 18), eng(layer_num(&flops, i), "", a, sizeof a),
               eng(layer_num(&bytes, i), "B", b, sizeof b), numf("%.1f", layer_num(&intensity, i)), tsec(ti, c2, sizeof c2),
               isnan(layer_num(&fc, i)) ? RL_NO_FIGURE : tsec(layer_num(&fc, i), d, sizeof d), word("bound", layer_str(&bound, i)),
               total_t > 0 ? numf("%.1f%%", 100 * ti / total_t) : RL_NO_FIGURE);
    }
    if (shown < total) tprintf("(%d more layers; --top 0 shows all)\n", total - shown);
    layer_col *cols[] = {&name, &op, &flops, &bytes, &intensity, &t, &bound, &fc};
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) layer_col_close(cols[k]);
    print_headline(res, explain);
    tprintf("\nroofline  time balance %s FLOP/B", numf("%.1f", num(roof, "time_balance")));
    if (cJSON_IsNumber(get(roof, "energy_balance")))
        tprintf(", energy balance %s (%s without static power), peak %s (%s without static)",
               numf("%.1f", num(roof, "energy_balance")), numf("%.1f", num(roof, "energy_balance_no_static")),
               eng(num(roof, "peak_flop_per_j"), "FLOP/J", d, sizeof d),
               eng(num(roof, "peak_flop_per_j_no_static"), "FLOP/J", e, sizeof e));
    tprintf("\n");
    const cJSON *w = get(res, "warnings");
    if (cJSON_GetArraySize(w) > 0) {
        tprintf("\nwarnings\n");
        const cJSON *l;
        cJSON_ArrayForEach(l, w) tprintf("  [%s] %s\n", tstr(l, "code"), tstr(l, "message"));
    }
}

/* ------------------------------------------------------------ measured -- */
static const char *pct_of(double part, double whole, char *buf, size_t cap) {
    snprintf(buf, cap, "%s", whole > 0 ? numf("%.1f%%", 100 * part / whole) : RL_NO_FIGURE);
    return buf;
}

/* The measured profile's totals against the floor and the forecast, and
 * how much of it was matched to the model's nodes. */
static void print_measured_totals(const cJSON *res, const cJSON *ms) {
    const cJSON *ch = get(get(res, "sol"), "chosen");
    const char *fname = word("measured_format", tstr(ms, "format")); /* "ONNX Runtime profile" */
    char a[32], b[32], c[32];
    double total = num(ms, "total_s");
    tprintf("\nmeasured  %s, each kernel's %s over %s run%s%s: %s in %s kernels", fname, tstr(ms, "statistic"),
           numf("%g", num(ms, "runs")), num(ms, "runs") == 1 ? "" : "s",
           is_true(ms, "warmup_excluded") ? " (warm-up run left out)" : "", tsec(total, a, sizeof a),
           numf("%g", num(ms, "kernels")));
    if (cJSON_IsNumber(get(ms, "run_wall_s")))
        tprintf(" (%s a run, wall clock, %s)", tsec(num(ms, "run_wall_s"), b, sizeof b), tstr(ms, "statistic"));
    tprintf("\n          floor %s (speed of light: %s, %s): measured is %sx the floor\n", tsec(num(ms, "predicted_s"), a, sizeof a),
           word("sol", str(ch, "model")), word("granularity", str(ch, "granularity")), numf("%.3g", num(ms, "measured_over_predicted")));
    const cJSON *fc = get(res, "forecast");
    if (cJSON_IsNumber(get(ms, "measured_over_forecast")))
        tprintf("          forecast %s (%s): measured is %sx the forecast\n", tsec(num(ms, "forecast_s"), a, sizeof a),
               word("basis", str(fc, "basis")), numf("%.3g", num(ms, "measured_over_forecast")));
    tprintf("          %s of %s kernels matched to nodes (%s of the measured time); %s nodes measured, %s of them "
           "placed in a fused kernel by inference\n", numf("%g", num(ms, "matched")), numf("%g", num(ms, "kernels")),
           pct_of(num(ms, "matched_s"), total, b, sizeof b), numf("%g", num(ms, "nodes_measured")),
           numf("%g", num(ms, "nodes_inferred")));
    tprintf("          speed of light of the matched kernels %s: efficiency %s; SOL <= measured for %s of their time\n",
           tsec(num(ms, "sol_s"), a, sizeof a), pct_of(num(ms, "sol_s"), num(ms, "matched_s"), b, sizeof b),
           pct_of(num(ms, "sol_bound_share"), 1, c, sizeof c));
}

/* The kernel groups that lose the most time against their speed of light,
 * `top` of them (0: all). */
static void print_measured_groups(const cJSON *ms, int top) {
    char a[32], b[32], c[32], d[32];
    const double total = num(ms, "total_s");
    const cJSON *groups = get(ms, "groups");
    int n = cJSON_GetArraySize(groups), shown = top > 0 && top < n ? top : n;
    tprintf("\nwhere the time is lost (kernels by recoverable time = measured - speed of light)\n");
    tprintf("%-40s %-14s %5s %10s %10s %7s %10s %6s\n", "kernel", "op", "nodes", "measured", "SOL", "effic.", "lost", "share");
    const cJSON *g;
    int row = 0;
    cJSON_ArrayForEach(g, groups) {
        if (row++ >= shown) break;
        const cJSON *ks = get(g, "kernels");
        char name[64];
        const char *kn = txt(cJSON_GetStringValue(cJSON_GetArrayItem(ks, 0)));
        /* long names differ at their end: keep that */
        snprintf(name, sizeof name, "%s%s%s", strlen(kn) > 36 ? "..." : "", txt_tail(kn, 33),
                 cJSON_GetArraySize(ks) > 1 ? " (+)" : "");
        const char *opn = txt_cut(str(g, "op"), 14);
        const cJSON *eff = get(g, "efficiency");
        char effs[16];
        if (cJSON_IsNumber(eff)) snprintf(effs, sizeof effs, "%.1f%%", 100 * eff->valuedouble);
        else snprintf(effs, sizeof effs, "?");
        tprintf("%-40s %-14s %5d %10s %10s %7s %10s %6s\n", name, opn, cJSON_GetArraySize(get(g, "nodes")),
               tsec(num(g, "measured_s"), a, sizeof a), tsec(num(g, "sol_s"), b, sizeof b), effs,
               tsec(num(g, "recoverable_s"), c, sizeof c), pct_of(num(g, "measured_s"), total, d, sizeof d));
    }
    if (shown < n) tprintf("(%d more kernels; --top 0 shows all)\n", n - shown);
}

/* What the match left over: kernels that name no node, and nodes with
 * work that no kernel measured (named from the layer table). */
static void print_measured_leftovers(const cJSON *ms, const layer_table *L) {
    char a[32], b[32];
    const cJSON *un = get(ms, "unmatched"), *g;
    if (cJSON_GetArraySize(un) > 0) {
        tprintf("\nkernels that name no node of the model (%d, %s of the measured time)\n", cJSON_GetArraySize(un),
               pct_of(num(ms, "unmatched_s"), num(ms, "total_s"), a, sizeof a));
        cJSON_ArrayForEach(g, un)
            tprintf("  %-40s %-14s %10s  %s\n", tstr(g, "name"), tstr(g, "op"), tsec(num(g, "time_s"), b, sizeof b), tstr(g, "why"));
    }
    const cJSON *unm = get(ms, "unmeasured");
    if (cJSON_GetArraySize(unm) > 0) {
        tprintf("\nnodes with work but no measured kernel (%d):", cJSON_GetArraySize(unm));
        layer_col name, index;
        layer_col_open(L, "name", &name), layer_col_open(L, "index", &index);
        int k = 0;
        cJSON_ArrayForEach(g, unm) {
            if (k++ == 8) { tprintf(" ..."); break; }
            /* the rows are in time order: the node's row by its index */
            int at = -1;
            for (int r = 0; r < L->count && at < 0 && cJSON_IsNumber(g); r++)
                if (layer_num(&index, r) == g->valuedouble) at = r;
            tprintf(" %s", txt(layer_str(&name, at)));
        }
        layer_col_close(&name), layer_col_close(&index);
        tprintf("\n");
    }
}

/* The measured profile against the prediction, and the kernel groups that
 * lose the most time against their speed of light. */
void print_measured(const cJSON *res, const layer_table *L, int top) {
    const cJSON *ms = get(res, "measured");
    if (!ms) return;
    print_measured_totals(res, ms);
    print_measured_groups(ms, top);
    print_measured_leftovers(ms, L);
}
