/* Model diff: two analyses of one request compared (rl_models_diff), the
 * headline figures of one analysis (rl_model_summary), the --fail-if gate
 * and the Markdown of a diff. The JSON contract is docs/api.md ("Diff").
 *
 * The diff works on the two analysis responses, not on the internals that
 * produced them: every figure it shows is one the single analysis shows, so
 * a diff never disagrees with the analyses it compares. The response fields
 * it reads are read in rl_summary_read and diff_layer_read only. Defined
 * in summary.c (the summary), diff.c, diff_md.c and gate.c. */
#ifndef ROOFLENS_DIFF_H
#define ROOFLENS_DIFF_H
#include <cjson/cJSON.h>
#include <stdbool.h>

#include "internal.h"

/* The headline figures of one analysis response. Numbers the response does
 * not carry (no energy figures in the profile, no LLM phases) are NAN; the
 * strings and JSON items are borrowed from the response. */
typedef struct rl_summary {
    const char *name, *hw_id, *hw_name, *power_mode, *precision, *sol_model, *granularity, *bound;
    double nodes, params, weight_bytes, flops, bytes, intensity;
    double sol_bytes; /* the chosen speed-of-light model's bytes: those behind its time_s */
    double time_s, lower_bound_s, upper_bound_s, energy_j, launch_floor_s;
    double forecast_s; /* forecast.time_s: the forecast beside the floor (NaN without one) */
    double forecast_low_s, forecast_high_s; /* its band (forecast.low_s, high_s; NaN without one) */
    const char *forecast_track_record;      /* forecast.track_record: the band's sentence, or NULL */
    double kernels, layers, unknown_layers;
    const cJSON *unsupported_ops; /* array of "domain.Op" strings */
    const cJSON *warnings;        /* array of {code, message, node} */
    const cJSON *roofline;        /* the response's roofline object */
    const cJSON *llm;             /* the response's llm object, NULL when absent */
    double ttft_s, tpot_s, tokens_per_s, llm_memory_bytes, kv_cache_bytes;
    int fits;                     /* llm.fits: 1, 0, or -1 when unknown */
} rl_summary;

/* Reads `res` (an ok analysis response). The one place that knows where
 * the headline figures sit in a response. */
void rl_summary_read(const cJSON *res, rl_summary *s);
/* The strings of `from` (an array from an answer) as a new array `key` of o. */
void rl_summary_add_strings(cJSON *o, const char *key, const cJSON *from);
/* The request with `layers` set to the given layout (NULL: false, no
 * layers) and the diff's own member removed, as text (malloc'd); NULL when
 * out of memory: what the summary and each side of a diff analyse with. */
char *rl_diff_inner_request(const cJSON *req, const char *layers);

/* ------------------------------------------------------------------ gate -- */
/* A parsed --fail-if expression (grammar in docs/ci.md). */
typedef struct rl_gate rl_gate;

/* Parses `expr`; returns a gate to free with rl_gate_free, or NULL with
 * `err` set (code bad_fail_if, where "diff.fail_if:N" with N the 1-based
 * character where the problem is, or out_of_memory). */
rl_gate *rl_gate_parse(const char *expr, rl_error *err);
void rl_gate_free(rl_gate *g);

/* Evaluates the gate on a built diff object (the "diff" member of the
 * response) and returns the "gate" object: {expression, passed, judged,
 * clauses, message}. A diff whose "old" is null (a new model) judges only
 * the clauses that need no base; the others are "skipped". NULL when out of
 * memory. */
cJSON *rl_gate_eval(const rl_gate *g, const cJSON *diff);

/* The metrics the grammar knows, as JSON [{"name", "unit", "kind", "what",
 * "needs_base"}] (the table docs/ci.md lists; "needs_base": skipped on a new
 * model). */
cJSON *rl_gate_metrics_json(void);

/* -------------------------------------------------------------- markdown -- */
/* Engineering notation: 1.23e-6, "s" -> "1.23 µs"; `sign` adds + to
 * positive numbers; non-finite -> "n/a". Returns buf. */
const char *rl_fmt_eng(char *buf, size_t cap, double v, const char *unit, bool sign);
/* A ratio of change as a percentage: 0.098 -> "+9.8%"; infinite -> "from 0". */
const char *rl_fmt_ratio(char *buf, size_t cap, double ratio);

/* Markdown of a built diff object, sized for a pull-request comment (one
 * section under about 33 kB; every list capped and counted): headline
 * deltas, the `top` most changed layers, added/removed layers, newly
 * unsupported ops, new warnings, the gate, and a hidden verdict line
 * "<!-- rooflens-gate: passed|failed|not-judged|none -->". Model strings
 * are escaped so they cannot start a heading, a table row, a link, a
 * mention or math. Returns a malloc'd string, NULL when out of memory. */
char *rl_diff_markdown(const cJSON *diff, int top);

#endif
