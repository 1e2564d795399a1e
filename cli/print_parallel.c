/* The figures over several devices (the response's "parallel" object,
 * docs/parallel.md): the communication roofline, the stages and the
 * layers the tensor-parallel group splits. Computes nothing. */
#include <stdio.h>

#include "cli.h"
#include "print.h"

static void print_parallel_head(const cJSON *P) {
    char a[32], b[32], c[32], d[32];
    const cJSON *ic = get(P, "interconnect");
    tprintf("\nparallel  tp=%s pp=%s dp=%s: %s devices over %s (%s, %s per device for a collective)\n", numf("%g", num(P, "tp")),
           numf("%g", num(P, "pp")), numf("%g", num(P, "dp")), numf("%g", num(P, "devices")), tstr(ic, "name"), tstr(ic, "topology"),
           eng(num(ic, "tp_bandwidth_Bps"), "B/s", a, sizeof a));
    tprintf("          time %s (math %s + communication %s; bounds %s .. %s), %s-bound, speed-up over one device %s\n",
           tsec(num(P, "time_s"), a, sizeof a), tsec(num(P, "t_math_s"), b, sizeof b),
           tsec(num(P, "t_comms_s"), c, sizeof c), tsec(num(P, "lower_bound_s"), d, sizeof d),
           tsec(num(P, "upper_bound_s"), a, sizeof a), word("bound", str(P, "bound")), numf("%.2fx", num(P, "speedup")));
    tprintf("          sent per device %s", eng(num(P, "comm_bytes"), "B", a, sizeof a));
    if (cJSON_IsNumber(get(ic, "critical_intensity")))
        tprintf("; communication binds below %s FLOPs per byte sent", numf("%.0f", num(ic, "critical_intensity")));
    if (num(P, "pp") > 1)
        tprintf("; pipeline bubble %s (%s micro-batches)", numf("%.1f%%", 100 * num(P, "bubble")), numf("%g", num(P, "micro_batches")));
    tprintf("\n");
    if (cJSON_IsNumber(get(P, "energy_j")))
        tprintf("          energy of the %s devices %s at the forecast's pace (floor %s)\n", numf("%g", num(P, "devices")),
               eng(num(P, "forecast_energy_j"), "J", a, sizeof a), eng(num(P, "energy_j"), "J", b, sizeof b));
    const cJSON *fits = get(P, "fits");
    tprintf("          memory per device %s (weights %s)", eng(num(P, "memory_bytes_per_device"), "B", a, sizeof a),
           eng(num(P, "weight_bytes_per_device"), "B", b, sizeof b));
    if (cJSON_IsBool(fits))
        tprintf(" of %s: %s\n", eng(num(P, "memory_capacity_bytes"), "B", c, sizeof c),
               cJSON_IsTrue(fits) ? "fits" : "does NOT fit");
    else
        tprintf(" (device memory unknown)\n");
}

/* The LLM view over the devices (llm.parallel). */
static void print_llm_parallel(const cJSON *P) {
    char a[32], b[32], c[32], d[32];
    tprintf("\nover %s devices (tp=%s pp=%s dp=%s): forecast TTFT %s", numf("%g", num(P, "devices")), numf("%g", num(P, "tp")),
           numf("%g", num(P, "pp")), numf("%g", num(P, "dp")), tsec(num(P, "forecast_ttft_s"), a, sizeof a));
    if (cJSON_IsNumber(get(P, "forecast_tpot_s")))
        tprintf(", TPOT %s (collectives %s)", tsec(num(P, "forecast_tpot_s"), a, sizeof a),
               tsec(num(P, "forecast_decode_t_comms_s"), b, sizeof b));
    tprintf("\n          floor TTFT %s", tsec(num(P, "ttft_s"), a, sizeof a));
    if (cJSON_IsNumber(get(P, "tpot_s")))
        tprintf(", TPOT %s (collectives %s, %s-bound), %s tokens/s, %s sent per token", tsec(num(P, "tpot_s"), a, sizeof a),
               tsec(num(P, "decode_t_comms_s"), b, sizeof b), word("bound", str(P, "decode_bound")),
               eng(num(P, "tokens_per_s"), "", c, sizeof c), eng(num(P, "comm_bytes_per_token"), "B", d, sizeof d));
    if (cJSON_IsNumber(get(P, "prefill_energy_j"))) {
        tprintf("\nenergy of the %s devices: prefill %s", numf("%g", num(P, "devices")),
               eng(num(P, "forecast_prefill_energy_j"), "J", a, sizeof a));
        if (cJSON_IsNumber(get(P, "decode_step_energy_j")))
            tprintf(", a decode step %s", eng(num(P, "forecast_decode_step_energy_j"), "J", b, sizeof b));
        tprintf(" at the forecast's pace (floor %s", eng(num(P, "prefill_energy_j"), "J", c, sizeof c));
        if (cJSON_IsNumber(get(P, "decode_step_energy_j"))) tprintf(", %s", eng(num(P, "decode_step_energy_j"), "J", d, sizeof d));
        tprintf(")");
    }
    tprintf("\nmemory per device: weights %s + KV cache %s + activations %s = %s",
           eng(num(P, "weight_bytes_per_device"), "B", a, sizeof a),
           eng(num(P, "kv_cache_bytes_per_device"), "B", b, sizeof b),
           eng(num(P, "activation_bytes_per_device"), "B", c, sizeof c),
           eng(num(P, "memory_required_bytes_per_device"), "B", d, sizeof d));
    const cJSON *fits = get(P, "fits");
    if (cJSON_IsBool(fits)) tprintf(": %s", cJSON_IsTrue(fits) ? "fits" : "does NOT fit");
    if (cJSON_IsNumber(get(P, "max_batch"))) tprintf("; largest batch that fits: %s", numf("%g", num(P, "max_batch")));
    tprintf("\n");
}

void print_parallel(const cJSON *res) {
    const cJSON *P = get(res, "parallel"), *r;
    if (!cJSON_IsObject(P)) return;
    if (cJSON_IsObject(get(get(res, "llm"), "parallel"))) {
        print_llm_parallel(get(get(res, "llm"), "parallel"));
        return;
    }
    print_parallel_head(P);
    char a[32], b[32], c[32];
    if (num(P, "pp") > 1) {
        tprintf("\n%6s %12s %8s %10s %10s %10s\n", "stage", "layers", "count", "math", "comms", "sends");
        cJSON_ArrayForEach(r, get(P, "stages")) {
            char span[32];
            snprintf(span, sizeof span, "%s..%s", numf("%g", num(r, "first_layer")), numf("%g", num(r, "last_layer")));
            tprintf("%6s %12s %8s %10s %10s %10s\n", numf("%g", num(r, "stage")), span, numf("%g", num(r, "layers")),
                   tsec(num(r, "t_math_s"), a, sizeof a), tsec(num(r, "t_comms_s"), b, sizeof b),
                   eng(num(r, "send_bytes"), "B", c, sizeof c));
        }
    }
    const cJSON *n = get(P, "sharded_layers");
    if (num(P, "tp") <= 1) return;
    tprintf("\nsplit over tp=%s: %s column, %s row, %s vocabulary, %s on split values\n", numf("%g", num(P, "tp")),
           numf("%g", num(n, "column")), numf("%g", num(n, "row")), numf("%g", num(n, "vocab")), numf("%g", num(n, "slice")));
    tprintf("%-40s %-8s %-11s %10s %10s %10s\n", "layer", "split", "collective", "sent", "comms", "math");
    int shown = 0;
    cJSON_ArrayForEach(r, get(P, "sharding")) {
        if (shown++ == 12) {
            tprintf("(%d more in --format json: parallel.sharding)\n", cJSON_GetArraySize(get(P, "sharding")) - 12);
            break;
        }
        tprintf("%-40s %-8s %-11s %10s %10s %10s\n", txt_cut(str(r, "name"), 40), tstr(r, "split"),
               tstr(r, "collective"), eng(num(r, "comm_bytes"), "B", a, sizeof a),
               tsec(num(r, "t_comms_s"), b, sizeof b), tsec(num(r, "t_math_s"), c, sizeof c));
    }
}
