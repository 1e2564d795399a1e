/* The printers of the views of one model: the what-if studies (compare,
 * batch sweep, power modes) and the LLM view. They lay out the core's
 * answer; every figure is read from it. */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "print.h"

/* ------------------------------------------------------------- studies -- */
static void print_study_header(const cJSON *res) {
    const cJSON *model = get(res, "model"), *roof = get(res, "roofline");
    const cJSON *opt = get(res, "options");
    tprintf("model     %s  (%s nodes)\n", tstr(model, "name")[0] ? tstr(model, "name") : "(unnamed)",
           numf("%g", num(model, "nodes")));
    tprintf("options   precision %s, speed-of-light model %s, %s\n\n", tstr(roof, "precision"), tstr(opt, "sol"),
           tstr(opt, "mode"));
}

/* A study row's band (forecast_low_s, forecast_high_s), or "-" where the
 * device's stack has no track record; and the note under such a table. */
static const char *row_band(const cJSON *r, char *buf, size_t cap) {
    const char *b = band_text(r, "forecast_low_s", "forecast_high_s", false, buf, cap);
    return b ? b : RL_NO_FIGURE;
}
#define BAND_NOTE "likely: the forecast's range from its stack's track record (%s where it has none)\n"

static void print_compare(const cJSON *st) {
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32], band[96];
    tprintf("%-34s %-10s %-5s %10s %10s %10s %10s %10s %-22s %10s %-16s %10s\n", "hardware", "mode", "prec", "unfused",
           "fused", "prefetched", "chosen", "forecast", "likely", "energy", "bound", "launches");
    const cJSON *r;
    cJSON_ArrayForEach(r, get(st, "rows")) {
        const cJSON *h = get(r, "hardware"), *sol = get(r, "sol");
        const char *name = txt_cut(str(h, "id"), 34);
        const char *mode = cJSON_IsString(get(h, "power_mode")) ? tstr(h, "power_mode") : "-";
        const cJSON *err = get(r, "error");
        if (cJSON_IsObject(err)) {
            tprintf("%-34s %-10s error: %s [%s]\n", name, mode, tstr(err, "message"), tstr(err, "code"));
            continue;
        }
        tprintf("%-34s %-10s %-5s %10s %10s %10s %10s %10s %-22s %10s %-16s %10s\n", name, mode, tstr(r, "precision"),
               tsec(num(sol, "unfused"), a, sizeof a), tsec(num(sol, "fused"), b, sizeof b),
               tsec(num(sol, "fused_prefetched"), c, sizeof c), tsec(num(r, "chosen_time_s"), d, sizeof d),
               tsec(num(r, "forecast_s"), g, sizeof g), row_band(r, band, sizeof band), opt_eng(r, "energy_j", "J", e, sizeof e), word("bound", str(r, "bound")),
               tsec(num(r, "launch_floor_s"), f, sizeof f));
    }
    tprintf(BAND_NOTE, RL_NO_FIGURE);
}

/* A row's devices as asked ("tp=8", "tp=2 pp=2"), or "-" for one device. */
static const char *split_text(const cJSON *P, char *buf, size_t cap) {
    if (!cJSON_IsObject(P)) return "-";
    snprintf(buf, cap, "tp=%s", numf("%g", num(P, "tp")));
    static const char *const more[] = {"pp", "dp"};
    for (int k = 0; k < 2; k++)
        if (!(num(P, more[k]) == 1))
            snprintf(buf + strlen(buf), cap - strlen(buf), " %s=%s", more[k], numf("%g", num(P, more[k])));
    return buf;
}

/* The compare rows over their devices (study.rows[].parallel): one-device
 * rows beside them with their own time, so the table reads 1x against Nx.
 * Nothing when every row is one device. */
static void print_compare_devices(const cJSON *st) {
    const cJSON *r;
    bool several = false;
    cJSON_ArrayForEach(r, get(st, "rows")) several |= cJSON_IsObject(get(r, "parallel"));
    if (!several) return;
    char a[32], b[32], c[32], d[32], e[32], f[32], sp[48];
    tprintf("\nover the devices (docs/parallel.md)\n%-34s %-12s %7s %10s %10s %10s %-16s %8s %10s %10s %-4s %s\n", "hardware",
           "split", "devices", "time", "math", "comms", "bound", "speed-up", "sent", "memory", "fits", "energy");
    cJSON_ArrayForEach(r, get(st, "rows")) {
        if (cJSON_IsObject(get(r, "error"))) continue;
        const cJSON *P = get(r, "parallel"), *fits = get(P, "fits");
        bool one = !cJSON_IsObject(P);
        /* the energy of every device of the group (one device's on its own) */
        tprintf("%-34s %-12s %7s %10s %10s %10s %-16s %8s %10s %10s %-4s %s\n", txt_cut(str(get(r, "hardware"), "id"), 34),
               split_text(P, sp, sizeof sp), one ? "1" : numf("%g", num(P, "devices")),
               tsec(one ? num(r, "chosen_time_s") : num(P, "time_s"), a, sizeof a),
               one ? "-" : tsec(num(P, "t_math_s"), b, sizeof b), one ? "-" : tsec(num(P, "t_comms_s"), c, sizeof c),
               word("bound", str(one ? r : P, "bound")), one ? "-" : numf("%.2fx", num(P, "speedup")),
               one ? "-" : eng(num(P, "comm_bytes"), "B", d, sizeof d),
               one ? "-" : eng(num(P, "memory_bytes_per_device"), "B", e, sizeof e),
               cJSON_IsBool(fits) ? (cJSON_IsTrue(fits) ? "yes" : "no") : "-", opt_eng(one ? r : P, "energy_j", "J", f, sizeof f));
    }
}

static void print_sweep(const cJSON *st) {
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32], h[96];
    tprintf("%8s %10s %10s %9s %12s %10s %10s %-22s %12s %12s %-16s\n", "batch", "FLOPs", "bytes", "AI", "attainable",
           "time", "forecast", "likely", "time/sample", "J/sample", "bound");
    const cJSON *r;
    cJSON_ArrayForEach(r, get(st, "rows")) {
        const cJSON *err = get(r, "error");
        if (cJSON_IsObject(err)) {
            tprintf("%8s error: %s [%s]\n", numf("%g", num(r, "batch")), tstr(err, "message"), tstr(err, "code"));
            continue;
        }
        tprintf("%8s %10s %10s %9s %12s %10s %10s %-22s %12s %12s %-16s\n", numf("%g", num(r, "batch")), eng(num(r, "flops"), "", a, sizeof a),
               eng(num(r, "bytes"), "B", b, sizeof b), numf("%.2f", num(r, "intensity")),
               eng(num(r, "attainable_flops_per_s"), "FLOP/s", c, sizeof c), tsec(num(r, "time_s"), d, sizeof d),
               tsec(num(r, "forecast_s"), g, sizeof g), row_band(r, h, sizeof h), tsec(num(r, "time_per_sample_s"), e, sizeof e), opt_eng(r, "energy_per_sample_j", "J", f, sizeof f),
               word("bound", str(r, "bound")));
    }
    tprintf(BAND_NOTE, RL_NO_FIGURE);
    const cJSON *cb = get(st, "critical_batch");
    if (cJSON_IsNumber(cb)) tprintf("\ncritical batch %g (time balance %s FLOP/B)\n", cb->valuedouble, numf("%.4g", num(st, "time_balance")));
    else tprintf("\nno critical batch in the range (time balance %s FLOP/B)\n", numf("%.4g", num(st, "time_balance")));
    tprintf("%s\n", tstr(st, "note"));
}

/* The modes ranked as the core ranks them, by the forecast (the floor
 * beside it); each row gives the id that --power-mode takes and the label the
 * vendor gives the mode. */
static void print_power_modes(const cJSON *st) {
    char a[32], b[32], c[32], d[32], e[32], h[96];
    tprintf("%-14s %-12s %10s %10s %-22s %10s %10s %10s %-16s %9s %14s %7s\n", "mode", "name", "floor", "forecast",
            "likely", "energy", "energy@fc", "avg power", "limited by", "slowdown", "compute-bound", "pareto");
    const cJSON *r;
    /* the raw ids: compared with each row's, and escaped only where printed
     * (an escaped text lives in txt()'s ring, which the rows' cells reuse) */
    const char *rec = str(st, "recommended"), *fastest = str(st, "fastest");
    const char *rec_name = rec, *fastest_name = fastest;
    cJSON_ArrayForEach(r, get(st, "rows")) {
        if (!strcmp(str(r, "mode"), rec)) rec_name = str(r, "label");
        if (!strcmp(str(r, "mode"), fastest)) fastest_name = str(r, "label");
        tprintf("%-14s %-12s %10s %10s %-22s %10s %10s %10s %-16s %9s %14s %7s%s\n", tstr(r, "mode"), tstr(r, "label"),
                tsec(num(r, "time_s"), a, sizeof a), tsec(num(r, "forecast_s"), d, sizeof d), row_band(r, h, sizeof h),
                opt_eng(r, "energy_j", "J", b, sizeof b), opt_eng(r, "forecast_energy_j", "J", e, sizeof e),
                opt_eng(r, "avg_power_w", "W", c, sizeof c), word("bound", str(r, "bound")),
                numf("%.1f%%", 100 * num(r, "slowdown")), numf("%.0f%%", 100 * num(r, "compute_bound_time_share")),
                is_true(r, "pareto") ? "yes" : "no", !strcmp(str(r, "mode"), rec) ? "   <- recommended" : "");
    }
    tprintf(BAND_NOTE, RL_NO_FIGURE);
    tprintf("\nranked by the forecast: fastest %s (%s); recommended %s (%s; at most %s slower)\n%s\n",
            txt(fastest_name), txt(fastest), txt(rec_name), txt(rec), numf("%.4g%%", 100 * num(st, "max_slowdown")),
            tstr(st, "reason"));
}

void print_study(const cJSON *res) {
    const cJSON *st = get(res, "study");
    print_study_header(res);
    const char *kind = tstr(st, "kind");
    if (!strcmp(kind, "compare")) print_compare(st), print_compare_devices(st);
    else if (!strcmp(kind, "batch_sweep")) print_sweep(st);
    else print_power_modes(st);
    const cJSON *w = get(res, "warnings"), *l;
    if (cJSON_GetArraySize(w) > 0) {
        tprintf("\nwarnings (the request's own analysis)\n");
        cJSON_ArrayForEach(l, w) tprintf("  [%s] %s\n", tstr(l, "code"), tstr(l, "message"));
    }
}

/* ----------------------------------------------------------------- LLM -- */
static const char *opt_count(const cJSON *o, const char *k, char *buf, size_t cap) {
    if (!cJSON_IsNumber(get(o, k))) return RL_NO_FIGURE;
    snprintf(buf, cap, "%.0f", num(o, k));
    return buf;
}

/* The intensity of a phase: its point on the LLM view's roofline. */
static double phase_intensity(const cJSON *L, const char *phase) {
    const cJSON *p;
    cJSON_ArrayForEach(p, get(L, "points")) if (!strcmp(str(p, "phase"), phase)) return num(p, "intensity");
    return NAN; /* unknown, as a missing member */
}

static void print_llm_phases(const cJSON *L) {
    const cJSON *pre = get(L, "prefill"), *dec = get(L, "decode");
    char a[32], b[32], c[32], d[32];
    tprintf("%-16s %10s %10s %10s %9s  %-16s %s\n", "phase", "time", "FLOPs", "bytes", "AI", "bound", "launch floor");
    tprintf("%-16s %10s %10s %10s %9s  %-16s %s\n", "prefill", tsec(num(pre, "time_s"), a, sizeof a),
           eng(num(pre, "flops"), "", b, sizeof b), eng(num(pre, "bytes"), "B", c, sizeof c),
           numf("%.1f", phase_intensity(L, "prefill")), word("bound", str(pre, "bound")),
           tsec(num(pre, "launch_floor_s"), d, sizeof d));
    if (!cJSON_IsObject(dec)) return;
    tprintf("%-16s %10s %10s %10s %9s  %-16s %s (captured graph: not paid)\n", "decode step",
           tsec(num(dec, "mean_time_per_token_s"), a, sizeof a), eng(num(dec, "flops_per_step"), "", b, sizeof b),
           eng(num(dec, "bytes_per_step"), "B", c, sizeof c),
           numf("%.1f", phase_intensity(L, "decode")),
           word("bound", str(dec, "bound")), tsec(num(dec, "launch_floor_s"), d, sizeof d));
}

static void print_llm_memory(const cJSON *L) {
    char a[32], b[32], c[32], d[32], e[32];
    bool kv = cJSON_IsNumber(get(L, "kv_cache_bytes"));
    tprintf("\nmemory    weights %s", eng(num(L, "weight_bytes"), "B", a, sizeof a));
    if (kv)
        tprintf(" + KV cache %s (%s per token x %s tokens x batch %s)", eng(num(L, "kv_cache_bytes"), "B", b, sizeof b),
               eng(num(L, "kv_cache_bytes_per_token"), "B", c, sizeof c),
               numf("%g", num(L, "prompt_tokens") + num(L, "generated_tokens")), numf("%g", num(L, "batch")));
    const cJSON *w;
    cJSON_ArrayForEach(w, get(L, "kv_cache_windows")) /* sliding windows: those caches stop growing */
        tprintf("\n          (%s of the caches keep only their window of %s tokens)", numf("%g", num(w, "caches")),
                numf("%g", num(w, "tokens")));
    tprintf(" + activations %s\n          = %s", eng(num(L, "activation_bytes"), "B", d, sizeof d),
           eng(num(L, "memory_required_bytes"), "B", e, sizeof e));
    const cJSON *fits = get(L, "fits");
    if (cJSON_IsBool(fits))
        tprintf(" of %s: %s\n", eng(num(L, "device_memory_bytes"), "B", a, sizeof a),
               cJSON_IsTrue(fits) ? "fits" : "does NOT fit");
    else
        tprintf(" (device memory unknown)\n");
    tprintf("          largest batch that fits: %s", opt_count(L, "max_batch", a, sizeof a));
    if (kv) tprintf("; longest context at batch %s: %s tokens%s", numf("%g", num(L, "batch")), opt_count(L, "max_context", b, sizeof b),
                    !strcmp(tstr(L, "max_context_limit"), "positions") ? " (the model's positions)" : "");
    tprintf("\n");
}

static void print_llm_sweeps(const cJSON *L) {
    const cJSON *bs = get(L, "batch_sweep"), *cs = get(L, "context_sweep"), *r;
    char a[32], b[32], c[32];
    if (cJSON_IsObject(bs)) {
        tprintf("\ndecode batch sweep (prompt %s, generate %s)\n%8s %10s %12s %-8s %10s %s\n",
               numf("%g", num(L, "prompt_tokens")), numf("%g", num(L, "generated_tokens")), "batch", "TPOT", "tokens/s", "bound", "memory", "fits");
        cJSON_ArrayForEach(r, get(bs, "rows")) {
            const cJSON *f = get(r, "fits");
            tprintf("%8s %10s %12s %-8s %10s %s\n", numf("%g", num(r, "batch")), tsec(num(r, "tpot_s"), a, sizeof a),
                   eng(num(r, "tokens_per_s"), "", b, sizeof b), word("bound", str(r, "bound")),
                   eng(num(r, "memory_required_bytes"), "B", c, sizeof c),
                   cJSON_IsBool(f) ? (cJSON_IsTrue(f) ? "yes" : "no (memory)") : "-");
        }
        const cJSON *cb = get(bs, "compute_bound_batch");
        if (cJSON_IsNumber(cb)) tprintf("decode turns compute-bound at batch %g", cb->valuedouble);
        else tprintf("decode stays memory-bound over the batches swept");
        tprintf("; largest batch that fits: %s\n", opt_count(bs, "max_batch", a, sizeof a));
    }
    if (cJSON_IsObject(cs)) {
        tprintf("\ndecode context sweep (batch %s)\n%10s %10s %12s %-8s %s\n", numf("%g", num(L, "batch")), "context", "TPOT",
               "tokens/s", "bound", "fits");
        cJSON_ArrayForEach(r, get(cs, "rows")) {
            const cJSON *f = get(r, "fits");
            tprintf("%10s %10s %12s %-8s %s\n", numf("%g", num(r, "context")), tsec(num(r, "tpot_s"), a, sizeof a),
                   eng(num(r, "tokens_per_s"), "", b, sizeof b), word("bound", str(r, "bound")),
                   cJSON_IsBool(f) ? (cJSON_IsTrue(f) ? "yes" : "no (memory)") : "-");
        }
    }
}

/* The answer: the forecast's TTFT, TPOT, tokens/s and end to end (over the
 * devices of a plan), and the floor's beside them, named as the floor. */
static void print_llm_answer(const cJSON *res, const cJSON *L) {
    const cJSON *fc = get(L, "forecast"), *fl = get(L, "floor"), *sf = get(res, "forecast"), *dec = get(L, "decode");
    char a[32], b[32], c[32], d[32];
    const double devices = num(fc, "devices");
    tprintf("\nforecast  (%s: %s%s%s)\n", word("basis", str(sf, "basis")), tstr(sf, "stack"), devices > 1 ? ", over " : "",
           devices > 1 ? numf("%g devices", devices) : "");
    tprintf("TTFT      %s   (floor %s)\n", tsec(num(fc, "ttft_s"), a, sizeof a), tsec(num(fl, "ttft_s"), b, sizeof b));
    char band[96], band2[96];
    const char *ttft = band_text(fc, "ttft_low_s", "ttft_high_s", true, band, sizeof band);
    const char *tpot = ttft ? band_text(fc, "tpot_low_s", "tpot_high_s", true, band2, sizeof band2) : NULL;
    if (ttft) tprintf("          TTFT %s%s%s; %s\n", ttft, tpot ? ", TPOT " : "", tpot ? tpot : "", tstr(fc, "track_record"));
    else tprintf("          %s\n", tstr(fc, "track_record"));
    if (!cJSON_IsObject(dec)) return;
    tprintf("TPOT      %s   (floor %s", tsec(num(fc, "tpot_s"), a, sizeof a), tsec(num(fl, "tpot_s"), b, sizeof b));
    if (devices > 1) /* the plan's: the mean of its first and last steps (docs/parallel.md) */
        tprintf(", the mean of the first and last steps over the devices)\n");
    else
        tprintf(": first %s, last %s; %s over %s steps analysed)\n", tsec(num(dec, "first_time_per_token_s"), c, sizeof c),
               tsec(num(dec, "last_time_per_token_s"), d, sizeof d), tstr(dec, "method"), numf("%g", num(dec, "steps_evaluated")));
    tprintf("tokens/s  %s   (floor %s)\n", eng(num(fc, "tokens_per_s"), "", a, sizeof a), eng(num(fl, "tokens_per_s"), "", b, sizeof b));
    tprintf("e2e       %s   (floor %s);  energy %s per token (floor %s)\n", tsec(num(fc, "e2e_s"), a, sizeof a),
           tsec(num(fl, "e2e_s"), b, sizeof b), opt_eng(fc, "energy_per_token_j", "J", c, sizeof c),
           opt_eng(fl, "energy_per_token_j", "J", d, sizeof d));
}

void print_llm(const cJSON *res) {
    const cJSON *L = get(res, "llm"), *model = get(res, "model");
    const cJSON *hw = get(res, "hardware"), *roles = get(L, "roles");
    const cJSON *q = get(L, "quantization"), *dec = get(L, "decode"), *it;
    char a[32], b[32];
    tprintf("model     %s  (%s nodes)\n", tstr(model, "name")[0] ? tstr(model, "name") : "(unnamed)",
           numf("%g", num(model, "nodes")));
    tprintf("hardware  %s%s%s\n", tstr(hw, "name"), cJSON_IsString(get(hw, "power_mode")) ? ", mode " : "",
           cJSON_IsString(get(hw, "power_mode")) ? tstr(hw, "power_mode_name") : "");
    tprintf("roles    ");
    static const char *const role_keys[] = {"batch", "seq", "past", "total"};
    for (int i = 0; i < 4; i++)
        if (cJSON_IsString(get(roles, role_keys[i])))
            tprintf(" %s='%s'", role_keys[i], tstr(roles, role_keys[i]));
    tprintf("  (%s KV cache inputs)\n", numf("%g", num(roles, "kv_inputs")));
    tprintf("run       batch %s, prompt %s tokens", numf("%g", num(L, "batch")), numf("%g", num(L, "prompt_tokens")));
    if (cJSON_IsObject(dec)) tprintf(", %s generated", numf("%g", num(L, "generated_tokens")));
    const cJSON *wb = get(q, "weight_bits"), *kb = get(q, "kv_bits");
    snprintf(a, sizeof a, cJSON_IsNumber(wb) ? "%.0f-bit" : "as stored", num(q, "weight_bits"));
    snprintf(b, sizeof b, cJSON_IsNumber(kb) ? "%.0f-bit" : "as the activations", num(q, "kv_bits"));
    if (cJSON_IsString(get(q, "kv_type"))) snprintf(b, sizeof b, "%s", tstr(q, "kv_type"));
    tprintf("; precision %s, weights %s, KV cache %s; speed-of-light model %s\n\n",
           tstr(get(res, "roofline"), "precision"), a, b, tstr(L, "sol"));
    print_llm_phases(L);
    print_llm_answer(res, L);
    print_llm_memory(L);
    print_llm_sweeps(L);
    tprintf("\nassumptions\n");
    cJSON_ArrayForEach(it, get(L, "assumptions")) tprintf("  - %s\n", txt(it->valuestring));
    if (cJSON_GetArraySize(get(L, "notes")) > 0) {
        tprintf("notes\n");
        cJSON_ArrayForEach(it, get(L, "notes")) tprintf("  - %s\n", txt(it->valuestring));
    }
}

