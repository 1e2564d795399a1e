/* What-if studies over one parsed model: several devices side by side, a
 * batch-size sweep, and a device's power modes with a recommendation. Every
 * figure comes from the timing model (timing.h), the one the single
 * analysis uses, so a study row and a single analysis of the same settings
 * agree exactly. The JSON contract is docs/api.md ("Studies"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forecast.h"
#include "forecast_band.h"
#include "json.h"
#include "roofline.h"
#include "parallel.h"
#include "study.h"
#include "words.h"

#define STUDY_MAX_HARDWARE 64
#define STUDY_MAX_BATCHES 64
#define STUDY_MAX_BATCH 1e9

static cJSON *error_object(const rl_error *e) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "code", e->code[0] ? e->code : "internal");
    cJSON_AddStringToObject(o, "message", e->message);
    return o;
}

/* A context for study work: the request's settings, but a warning state of
 * its own (a compare row's precision fallback is not a warning about the
 * request's own device): its own warnings array AND its own de-duplication
 * table, which indexes that array. With `arena`, its own memory too. */
static bool scratch_ctx(rl_ctx *s, const rl_ctx *c, rl_arena *arena, rl_error *err) {
    *s = *c;
    if (arena) s->arena = arena;
    s->err = err;
    s->n_warnings = 0;
    s->dropped_warnings = 0;
    s->warn_slots = NULL; /* made afresh by the first rl_warn */
    s->total_nodes = 0;
    s->warnings = rl_arena_alloc(s->arena, RL_MAX_WARNINGS * sizeof *s->warnings);
    return s->warnings != NULL;
}

/* The chosen model's figures every study row carries. */
static void put_chosen(cJSON *row, const rl_timing *t, const rl_hw *hw) {
    const rl_sol_result *ch = rl_timing_chosen(t);
    rl_json_add_num(row, "lower_bound_s", ch->lower_bound_s);
    rl_json_add_num(row, "upper_bound_s", ch->upper_bound_s);
    rl_json_add_num(row, "energy_j", t->has_energy ? ch->energy_j : NAN);
    rl_json_add_num(row, "avg_power_w", t->has_energy ? ch->avg_power_w : NAN);
    cJSON_AddStringToObject(row, "bound", rl_bound_id(ch->bound));
    rl_json_add_num(row, "kernels", ch->kernels);
    rl_json_add_num(row, "launch_floor_s", ch->launch_floor_s);
    cJSON_AddBoolToObject(row, "power_capped", ch->power_capped);
    /* the forecast beside the floor, as the analysis gives it (forecast.time_s,
     * forecast.energy_j): a device chosen on its floor alone can lose on
     * what its stack really reaches */
    rl_json_add_num(row, "forecast_s", t->forecast.time_s);
    rl_forecast_band_put(row, "forecast_low_s", "forecast_high_s",
                         rl_forecast_band(hw, t->forecast.time_s, t->forecast.floor_s));
    rl_json_add_num(row, "forecast_energy_j", t->has_energy ? t->forecast.energy_j : NAN);
}

/* ------------------------------------------------------------- compare -- */
/* A compare row over several devices (study.parallel[i], parallel.h): the
 * plan's totals, as --parallel gives them for the same plan, beside the
 * row's one-device figures. */
static void put_parallel(cJSON *row, const rl_parallel *par) {
    rl_parallel_totals_json(par, cJSON_AddObjectToObject(row, "parallel"));
}

/* The row's device timed, and planned over several when `spec` asks:
 * 0, or -1 with err set. */
static int time_row(rl_ctx *s, const cJSON *spec, const rl_options *o, const rl_prepared *pg, const rl_hw *hw,
                    rl_timing *t, rl_parallel **par, rl_error *err) {
    *par = NULL;
    rl_layer_time *lt = spec ? rl_arena_alloc(s->arena, (size_t)(pg->graph->n_nodes + 1) * sizeof *lt) : NULL;
    if (spec && !lt) {
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    rl_time_and_forecast(s, pg, o, hw, lt, t);
    if (rl_timing_check(t, pg->graph, err)) return -1;
    return spec ? rl_parallel_plan(s, spec, o, hw, pg, lt, t, par, err) : 0;
}

/* A mode's label: the vendor's name of the mode, which a profile's mode name
 * gives first, with its settings in brackets after it ("50W preset (GPU
 * 816 MHz, ...)" -> "50W preset"); the whole name when it has no brackets.
 * Written into buf (size > 0). */
static const char *mode_label(const char *name, char *buf, size_t size) {
    size_t len = strcspn(name, "(");
    while (len > 0 && name[len - 1] == ' ') len--;
    if (len == 0) len = strlen(name);
    snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), name);
    return buf;
}

/* One device of a compare study: its sol.chosen figures, or an error (a
 * profile that does not load, an unknown mode, figures beyond range) with
 * null figures; the other rows still come back. */
static void compare_row(rl_ctx *s, const cJSON *pj, const char *mode, const cJSON *spec, const rl_options *o,
                        const rl_prepared *pg, cJSON *row) {
    cJSON *ho = cJSON_AddObjectToObject(row, "hardware");
    rl_hw hw;
    rl_error rowerr = {0};
    rl_timing t;
    rl_parallel *par = NULL;
    const bool parsed = rl_hw_parse(pj, mode, &hw, &rowerr) == 0;
    if (parsed) {
        cJSON_AddStringToObject(ho, "id", hw.id);
        cJSON_AddStringToObject(ho, "name", hw.name);
        cJSON_AddStringToObject(ho, "category", hw.category);
        mode = hw.mode_id;
    } else {
        static const char *const keys[] = {"id", "name", "category"};
        for (int k = 0; k < 3; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(pj, keys[k]);
            cJSON_AddStringToObject(ho, keys[k], cJSON_IsString(v) ? v->valuestring : "");
        }
    }
    if (mode) cJSON_AddStringToObject(ho, "power_mode", mode);
    else cJSON_AddNullToObject(ho, "power_mode");
    if (parsed && hw.mode_id) { /* the mode as the vendor names it, for the row's label */
        char label[128];
        cJSON_AddStringToObject(ho, "power_mode_label", mode_label(hw.mode_name, label, sizeof label));
    }
    if (!parsed || time_row(s, spec, o, pg, &hw, &t, &par, &rowerr)) {
        static const char *const empty[] = {"precision", "sol", "chosen_time_s", "lower_bound_s", "upper_bound_s",
                                            "energy_j", "avg_power_w", "bound", "kernels", "launch_floor_s",
                                            "power_capped", "forecast_s", "forecast_low_s", "forecast_high_s",
                                            "forecast_energy_j"};
        for (size_t k = 0; k < sizeof empty / sizeof *empty; k++) cJSON_AddNullToObject(row, empty[k]);
        cJSON_AddItemToObject(row, "error", error_object(&rowerr));
        return;
    }
    cJSON_AddStringToObject(row, "precision", rl_precision_name(t.main_prec));
    cJSON *so = cJSON_AddObjectToObject(row, "sol");
    for (int m = 0; m < RL_SOL_COUNT; m++) rl_json_add_num(so, rl_value_id(RL_LIST_SOL, m), t.sol[m].time_s);
    rl_json_add_num(row, "chosen_time_s", rl_timing_chosen(&t)->time_s);
    put_chosen(row, &t, &hw);
    if (par) put_parallel(row, par);
    cJSON_AddNullToObject(row, "error");
}

static int study_compare(rl_ctx *c, const cJSON *study, const rl_options *o, const rl_prepared *pg,
                         cJSON *out, rl_error *err) {
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(study, "hardware");
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(study, "power_modes");
    int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;
    if (n < 1 || n > STUDY_MAX_HARDWARE) {
        rl_error_set(err, "bad_request", "study.hardware",
                     "a compare study needs \"hardware\": an array of 1 to %d hardware profiles "
                     "(the objects of hw/*.json)", STUDY_MAX_HARDWARE);
        return -1;
    }
    if (modes && !cJSON_IsNull(modes)) {
        if (!cJSON_IsArray(modes) || cJSON_GetArraySize(modes) != n) {
            rl_error_set(err, "bad_request", "study.power_modes",
                         "\"power_modes\" must be an array parallel to \"hardware\" (%d entries, each "
                         "null or a mode id)", n);
            return -1;
        }
        const cJSON *m;
        cJSON_ArrayForEach(m, modes) if (!cJSON_IsNull(m) && !cJSON_IsString(m)) {
            rl_error_set(err, "bad_request", "study.power_modes",
                         "each entry of \"power_modes\" must be null (the default mode) or a mode id string");
            return -1;
        }
    } else {
        modes = NULL;
    }
    const cJSON *pars = cJSON_GetObjectItemCaseSensitive(study, "parallel");
    if (pars && !cJSON_IsNull(pars) && (!cJSON_IsArray(pars) || cJSON_GetArraySize(pars) != n)) {
        rl_error_set(err, "bad_request", "study.parallel",
                     "\"parallel\" must be an array parallel to \"hardware\" (%d entries, each null for one "
                     "device or {\"tp\", \"pp\", \"dp\", \"micro_batches\"})", n);
        return -1;
    }
    rl_ctx s;
    if (!scratch_ctx(&s, c, NULL, err)) {
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    cJSON *rows = cJSON_AddArrayToObject(out, "rows");
    for (int i = 0; i < n; i++) {
        const cJSON *mj = modes ? cJSON_GetArrayItem(modes, i) : NULL;
        const cJSON *pj = cJSON_IsArray(pars) ? cJSON_GetArrayItem(pars, i) : NULL;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        compare_row(&s, cJSON_GetArrayItem(list, i), cJSON_IsString(mj) ? mj->valuestring : NULL,
                    cJSON_IsNull(pj) ? NULL : pj, o, pg, row);
    }
    return 0;
}

/* --------------------------------------------------------- batch sweep -- */
static int parse_batches(const cJSON *study, int64_t *batches, int *nb, rl_error *err) {
    *nb = 0;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(study, "batches");
    if (!list || cJSON_IsNull(list)) {
        for (int64_t b = 1; b <= 1024; b *= 2) batches[(*nb)++] = b;
        return 0;
    }
    int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    if (n < 1 || n > STUDY_MAX_BATCHES) {
        rl_error_set(err, "bad_request", "study.batches",
                     "\"batches\" must be an array of 1 to %d batch sizes (default: 1, 2, 4, ..., 1024)",
                     STUDY_MAX_BATCHES);
        return -1;
    }
    const cJSON *b;
    cJSON_ArrayForEach(b, list) {
        if (!cJSON_IsNumber(b) || b->valuedouble < 1 || b->valuedouble > STUDY_MAX_BATCH ||
            b->valuedouble != floor(b->valuedouble)) {
            rl_error_set(err, "bad_request", "study.batches",
                         "entry %d of \"batches\" is not a whole number from 1 to 10^9", *nb);
            return -1;
        }
        batches[(*nb)++] = (int64_t)b->valuedouble;
    }
    return 0;
}

static void sweep_row_error(cJSON *row, const rl_error *e) {
    static const char *const empty[] = {"batch_applied", "flops", "bytes", "intensity", "attainable_flops_per_s",
                                        "predicted_flops_per_s",
                                        "time_s", "time_per_sample_s", "lower_bound_s", "upper_bound_s",
                                        "energy_j", "energy_per_sample_j", "avg_power_w", "bound", "kernels",
                                        "launch_floor_s", "power_capped", "forecast_s", "forecast_low_s",
                                        "forecast_high_s", "forecast_energy_j"};
    for (size_t k = 0; k < sizeof empty / sizeof *empty; k++) cJSON_AddNullToObject(row, empty[k]);
    cJSON_AddItemToObject(row, "error", error_object(e));
}

/* The batch_not_applied warning of a row's own analysis, as its error. */
static void batch_not_applied(const rl_ctx *r, int64_t batch, rl_error *e) {
    for (int w = 0; w < r->n_warnings; w++)
        if (strcmp(r->warnings[w].code, "batch_not_applied") == 0) {
            rl_error_set(e, "batch_not_applied", "study.batches", "%s", r->warnings[w].message);
            return;
        }
    rl_error_set(e, "batch_not_applied", "study.batches", "batch %lld could not be applied", (long long)batch);
}

/* One row: exactly the direct analysis of the request at this batch (its
 * own context, memory and graph), reduced to the sweep's figures. */
static int sweep_row(const rl_ctx *c, const rl_options *o, const rl_hw *hw, int64_t batch, double peak,
                     cJSON *row, double *intensity_out, bool *compute_out, rl_error *err) {
    rl_arena arena = {0};
    rl_error rowerr = {0};
    rl_ctx r;
    *intensity_out = -1;
    *compute_out = false;
    cJSON_AddNumberToObject(row, "batch", (double)batch);
    if (!scratch_ctx(&r, c, &arena, &rowerr)) {
        rl_arena_free(&arena);
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    r.batch = batch;
    rl_prepared pg;
    rl_timing t;
    if (rl_prepare_and_time(&r, o, hw, &pg, NULL, &t) || rl_timing_check(&t, pg.graph, &rowerr)) {
        if (!rowerr.code[0]) rl_error_set(&rowerr, "internal", "", "analysis failed");
        sweep_row_error(row, &rowerr);
    } else if (!pg.batch_applied) {
        batch_not_applied(&r, batch, &rowerr);
        sweep_row_error(row, &rowerr);
    } else {
        const rl_sol_result *ch = rl_timing_chosen(&t);
        const double intensity = ch->bytes > 0 ? ch->flops / ch->bytes : 0, per = (double)batch;
        cJSON_AddStringToObject(row, "batch_applied", pg.batch_applied);
        rl_json_add_num(row, "flops", ch->flops);
        rl_json_add_num(row, "bytes", ch->bytes);
        rl_json_add_num(row, "intensity", intensity);
        rl_json_add_num(row, "attainable_flops_per_s", intensity * hw->mem_bw[0] < peak ? intensity * hw->mem_bw[0] : peak);
        /* what the model is predicted to reach: below the roofline when
         * launches or the power budget set the time */
        rl_json_add_num(row, "predicted_flops_per_s", ch->time_s > 0 ? ch->flops / ch->time_s : NAN);
        rl_json_add_num(row, "time_s", ch->time_s);
        rl_json_add_num(row, "time_per_sample_s", ch->time_s / per);
        rl_json_add_num(row, "energy_per_sample_j", t.has_energy ? ch->energy_j / per : NAN);
        put_chosen(row, &t, hw);
        cJSON_AddNullToObject(row, "error");
        *intensity_out = intensity;
        *compute_out = ch->bound == RL_BOUND_COMPUTE;
    }
    rl_arena_free(&arena);
    return 0;
}

static int study_batch_sweep(rl_ctx *c, const cJSON *study, const rl_options *o, const rl_hw *hw,
                             const rl_prepared *own_pg, cJSON *out, rl_error *err) {
    int64_t batches[STUDY_MAX_BATCHES];
    int nb;
    if (parse_batches(study, batches, &nb, err)) return -1;
    /* The roofline the rows are placed on: the request's own precision, as
     * its analysis reports it (roofline.precision). */
    rl_ctx s;
    if (!scratch_ctx(&s, c, NULL, err)) {
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    rl_timing own;
    rl_time_and_forecast(&s, own_pg, o, hw, NULL, &own);
    const double peak = hw->matrix[own.main_prec], balance = rl_time_balance(peak, hw->mem_bw[0]);
    int64_t critical = -1;
    double critical_intensity = 0;
    int applied = 0;
    cJSON *rows = cJSON_AddArrayToObject(out, "rows");
    for (int i = 0; i < nb; i++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        double intensity;
        bool compute;
        if (sweep_row(c, o, hw, batches[i], peak, row, &intensity, &compute, err)) return -1;
        if (intensity < 0) continue;
        applied++;
        if (compute && (critical < 0 || batches[i] < critical)) {
            critical = batches[i];
            critical_intensity = intensity;
        }
    }
    if (critical > 0) cJSON_AddNumberToObject(out, "critical_batch", (double)critical);
    else cJSON_AddNullToObject(out, "critical_batch");
    rl_json_add_num(out, "time_balance", balance);
    cJSON_AddStringToObject(out, "precision", rl_precision_name(own.main_prec));
    cJSON_AddStringToObject(out, "sol", rl_value_id(RL_LIST_SOL, o->sol));
    char note[600];
    int len = snprintf(note, sizeof note,
                       "Each row is the analysis at that batch. Bytes and intensity are those of the %s "
                       "speed-of-light model%s; the critical batch is the first at which the model is "
                       "compute-bound (its compute time reaches its memory time and outlasts its launches); "
                       "for matrix work alone that is where the intensity reaches the time balance %.4g "
                       "FLOP/B (%s peak / main-memory bandwidth). ",
                       rl_value_name(RL_LIST_SOL, o->sol),
                       o->sol == RL_SOL_UNFUSED ? " (every layer's inputs, weights and outputs)"
                                                      : " (weights and model inputs/outputs only)",
                       balance, rl_precision_name(own.main_prec));
    if (applied == 0)
        snprintf(note + len, sizeof note - (size_t)len, "No batch could be applied to this model (see each row's error).");
    else if (critical > 0)
        snprintf(note + len, sizeof note - (size_t)len, "From batch %lld (intensity %.4g FLOP/B) the model is "
                 "compute-bound.", (long long)critical, critical_intensity);
    else
        snprintf(note + len, sizeof note - (size_t)len, "At no batch in the range is the model compute-bound.");
    cJSON_AddStringToObject(out, "note", note);
    return 0;
}

/* --------------------------------------------------------- power modes -- */
/* A mode is ranked by its forecast (time and energy at the pace the
 * profile's stack is forecast to keep), not by its floor: two modes whose
 * floors differ by a clock can swap places once launches and the stack's
 * efficiencies are counted, and the advisor answers what a user will see. */
typedef struct mode_row {
    const char *id, *name;
    rl_bound bound;
    double time, energy;             /* the forecast's time and energy: what ranks the modes */
    double floor_s, floor_energy_j;  /* the speed of light in this mode (time_s, energy_j in the JSON) */
    double power, share;
    bool capped, pareto;
    rl_band band;                    /* the forecast's band in this mode */
} mode_row;

static int by_time_then_energy(const void *pa, const void *pb) {
    const mode_row *a = *(const mode_row *const *)pa, *b = *(const mode_row *const *)pb;
    if (a->time != b->time) return a->time < b->time ? -1 : 1;
    bool fa = isfinite(a->energy), fb = isfinite(b->energy);
    if (fa != fb) return fa ? -1 : 1;
    if (fa && a->energy != b->energy) return a->energy < b->energy ? -1 : 1;
    return 0;
}

/* The Pareto front in O(n log n): sorted by time, a mode is dominated when
 * a strictly faster mode uses no more energy, or a mode as fast uses less
 * (a mode without energy figures is dominated by any faster mode). */
static int mark_pareto(mode_row *rows, int n, rl_arena *arena) {
    mode_row **order = rl_arena_alloc(arena, (size_t)n * sizeof *order);
    if (!order) return -1;
    for (int i = 0; i < n; i++) order[i] = &rows[i];
    qsort(order, (size_t)n, sizeof *order, by_time_then_energy);
    double best_faster = INFINITY; /* least energy among strictly faster modes */
    bool any_faster = false, unknown_faster = false;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && order[j]->time == order[i]->time) j++;
        double group_min = order[i]->energy; /* the group is sorted by energy, unknown last */
        for (int k = i; k < j; k++) {
            mode_row *r = order[k];
            if (!isfinite(r->energy)) r->pareto = !any_faster;
            else r->pareto = !unknown_faster && !(best_faster <= r->energy) && !(group_min < r->energy);
        }
        for (int k = i; k < j; k++) {
            if (!isfinite(order[k]->energy)) unknown_faster = true;
            else if (order[k]->energy < best_faster) best_faster = order[k]->energy;
        }
        any_faster = true;
        i = j;
    }
    return 0;
}

/* Time every mode of the request's device. Returns the number of rows, or
 * -1 with err set. */
static int time_modes(rl_ctx *c, const cJSON *hwj, const cJSON *modes, const rl_options *o,
                      const rl_prepared *pg, mode_row *rows, rl_error *err) {
    rl_ctx s;
    if (!scratch_ctx(&s, c, NULL, err)) {
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    int k = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, modes) {
        const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");
        if (!cJSON_IsString(mid)) continue;
        rl_hw hw;
        if (rl_hw_parse(hwj, mid->valuestring, &hw, err)) return -1;
        rl_timing t;
        rl_time_and_forecast(&s, pg, o, &hw, NULL, &t);
        if (rl_timing_check(&t, pg->graph, err)) return -1;
        const rl_sol_result *ch = rl_timing_chosen(&t);
        rows[k++] = (mode_row){hw.mode_id, hw.mode_name, ch->bound, t.forecast.time_s,
                               t.has_energy ? t.forecast.energy_j : NAN, ch->time_s,
                               t.has_energy ? ch->energy_j : NAN, t.has_energy ? ch->avg_power_w : NAN,
                               t.compute_bound_share, ch->power_capped, false,
                               rl_forecast_band(&hw, t.forecast.time_s, t.forecast.floor_s)};
    }
    return k;
}

/* The study's max_slowdown (default 5%), or -1 with err set. */
static double read_max_slowdown(const cJSON *study, rl_error *err) {
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(study, "max_slowdown");
    if (!ms || cJSON_IsNull(ms)) return 0.05;
    if (!cJSON_IsNumber(ms) || !(ms->valuedouble >= 0) || ms->valuedouble > 100) {
        rl_error_set(err, "bad_request", "study.max_slowdown",
                     "\"max_slowdown\" must be a number from 0 to 100 (a fraction: 0.05 = 5%% slower "
                     "than the fastest mode)");
        return -1;
    }
    return ms->valuedouble;
}

/* Every power mode of the request's device timed and marked on the Pareto
 * front, in *rows (arena). Returns the number of rows, or -1 with err set. */
static int power_mode_rows(rl_ctx *c, const cJSON *req, const rl_options *o, const rl_hw *own,
                           const rl_prepared *pg, mode_row **rows, rl_error *err) {
    const cJSON *hwj = own->profile; /* the request's profile, or the caller's handle's */
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(hwj, "power_modes");
    int n = cJSON_IsArray(modes) ? cJSON_GetArraySize(modes) : 0;
    if (n == 0) {
        rl_error_set(err, "no_power_modes", "study",
                     "hardware '%s' has no power modes; the power-mode study needs a profile with "
                     "\"power_modes\" (for example jetson-agx-orin)", own->id);
        return -1;
    }
    if (n > RL_STUDY_MAX_POWER_MODES) {
        rl_error_set(err, "too_many_power_modes", "hardware.power_modes",
                     "hardware '%s' has %d power modes; the power-mode study compares at most %d: keep the "
                     "modes you want compared", own->id, n, RL_STUDY_MAX_POWER_MODES);
        return -1;
    }
    *rows = rl_arena_alloc(c->arena, (size_t)n * sizeof **rows);
    if (!*rows) {
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    if ((n = time_modes(c, hwj, modes, o, pg, *rows, err)) < 0) return -1;
    if (n == 0) {
        rl_error_set(err, "no_power_modes", "study", "hardware '%s' has no power mode with an id", own->id);
        return -1;
    }
    if (mark_pareto(*rows, n, c->arena)) {
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    return n;
}

/* The recommendation: the least-energy mode within max_slowdown of the
 * fastest; the fastest itself when no mode has energy figures
 * (*energy_known false). */
static int recommend_mode(const mode_row *rows, int n, int fastest, double max_slowdown, bool *energy_known) {
    const double limit = (1 + max_slowdown) * rows[fastest].time;
    int rec = -1;
    for (int i = 0; i < n; i++) {
        if (rows[i].time > limit || !isfinite(rows[i].energy)) continue;
        if (rec < 0 || rows[i].energy < rows[rec].energy ||
            (rows[i].energy == rows[rec].energy && rows[i].time < rows[rec].time))
            rec = i;
    }
    *energy_known = rec >= 0;
    return rec < 0 ? fastest : rec; /* no energy coefficients: time alone decides */
}

static void add_mode_rows(cJSON *out, const mode_row *rows, int n, int fastest) {
    cJSON *arr = cJSON_AddArrayToObject(out, "rows");
    for (int i = 0; i < n; i++) {
        const mode_row *r = &rows[i];
        cJSON *o2 = cJSON_CreateObject();
        cJSON_AddStringToObject(o2, "mode", r->id);
        cJSON_AddStringToObject(o2, "name", r->name);
        char label[128];
        cJSON_AddStringToObject(o2, "label", mode_label(r->name, label, sizeof label));
        rl_json_add_num(o2, "time_s", r->floor_s);
        rl_json_add_num(o2, "energy_j", r->floor_energy_j);
        rl_json_add_num(o2, "avg_power_w", r->power);
        cJSON_AddStringToObject(o2, "bound", rl_bound_id(r->bound));
        cJSON_AddBoolToObject(o2, "power_capped", r->capped);
        cJSON_AddBoolToObject(o2, "pareto", r->pareto);
        rl_json_add_num(o2, "compute_bound_time_share", r->share);
        rl_json_add_num(o2, "slowdown", r->time / rows[fastest].time - 1);
        rl_json_add_num(o2, "forecast_s", r->time);
        rl_forecast_band_put(o2, "forecast_low_s", "forecast_high_s", r->band);
        rl_json_add_num(o2, "forecast_energy_j", r->energy);
        cJSON_AddItemToArray(arr, o2);
    }
}

/* The layer-level reason for the recommendation: a mode that lowers clocks
 * costs little time when little of the time is spent in compute-bound
 * layers. Modes are named as the vendor names them (r->name: "30 W",
 * "MAXN"), never by id, and the text says the ranking is the forecast's. */
static void mode_reason(char *reason, size_t size, const mode_row *rows, int n, int fastest, int rec,
                        bool energy_known, double max_slowdown, const char *device) {
    const mode_row *f = &rows[fastest], *r = &rows[rec];
    double cshare = 100 * f->share;
    char fl[128], rl[128], tl[128];
    const char *fname = mode_label(f->name, fl, sizeof fl), *rname = mode_label(r->name, rl, sizeof rl);
    if (!energy_known) {
        snprintf(reason, size,
                 "%s has no energy coefficients, so only time can be compared: by the forecast, %s is the "
                 "fastest. %.0f%% of its time at the speed of light is in compute-bound layers.",
                 device, fname, cshare);
    } else if (rec == fastest) {
        int thrift = fastest; /* the least-energy mode of all, for the comparison */
        for (int i = 0; i < n; i++)
            if (isfinite(rows[i].energy) && rows[i].energy < rows[thrift].energy) thrift = i;
        int len = snprintf(reason, size,
                           "By the forecast, %s is the fastest mode and no other mode within %.4g%% of its time "
                           "uses less energy: %.0f%% of its time at the speed of light is in compute-bound "
                           "layers, %.0f%% in memory-bound ones. ",
                           fname, 100 * max_slowdown, cshare, 100 - cshare);
        if (thrift != fastest)
            snprintf(reason + len, size - (size_t)len,
                     "The least-energy mode, %s, saves %.1f%% of the energy but is %.1f%% slower.",
                     mode_label(rows[thrift].name, tl, sizeof tl), 100 * (1 - rows[thrift].energy / f->energy),
                     100 * (rows[thrift].time / f->time - 1));
        else
            snprintf(reason + len, size - (size_t)len, "It also uses the least energy of all modes.");
    } else {
        snprintf(reason, size,
                 "By the forecast, %s uses %.1f%% less energy than the fastest mode, %s, and is %.1f%% slower "
                 "(limit %.4g%%): only %.0f%% of the time at %s is in compute-bound layers (%.0f%% at %s); "
                 "the rest waits on memory or launches, which the slower mode hardly stretches while "
                 "it saves power.",
                 rname, 100 * (1 - r->energy / f->energy), fname, 100 * (r->time / f->time - 1),
                 100 * max_slowdown, cshare, fname, 100 * r->share, rname);
    }
}

static int study_power_modes(rl_ctx *c, const cJSON *study, const cJSON *req, const rl_options *o,
                             const rl_hw *own, const rl_prepared *pg, cJSON *out, rl_error *err) {
    double max_slowdown = read_max_slowdown(study, err);
    if (max_slowdown < 0) return -1;
    mode_row *rows;
    int n = power_mode_rows(c, req, o, own, pg, &rows, err);
    if (n < 0) return -1;
    int fastest = 0;
    for (int i = 1; i < n; i++)
        if (rows[i].time < rows[fastest].time) fastest = i;
    bool energy_known;
    int rec = recommend_mode(rows, n, fastest, max_slowdown, &energy_known);
    add_mode_rows(out, rows, n, fastest);
    cJSON_AddStringToObject(out, "fastest", rows[fastest].id);
    cJSON_AddStringToObject(out, "recommended", rows[rec].id);
    cJSON_AddStringToObject(out, "ranked_by", "forecast");
    rl_json_add_num(out, "max_slowdown", max_slowdown);
    char reason[1200];
    mode_reason(reason, sizeof reason, rows, n, fastest, rec, energy_known, max_slowdown, own->name);
    cJSON_AddStringToObject(out, "reason", reason);
    return 0;
}

int rl_study_run(rl_ctx *c, const cJSON *study, const cJSON *req, const rl_options *o,
                 const rl_hw *hw, const rl_prepared *pg, cJSON *root, rl_error *err) {
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(study, "kind");
    if (!cJSON_IsObject(study) || !cJSON_IsString(kind)) {
        rl_error_set(err, "bad_request", "study",
                     "\"study\" must be an object with \"kind\": \"compare\", \"batch_sweep\" or "
                     "\"power_modes\" (see docs/api.md)");
        return -1;
    }
    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "kind", kind->valuestring);
    int rc;
    if (strcmp(kind->valuestring, "compare") == 0) rc = study_compare(c, study, o, pg, out, err);
    else if (strcmp(kind->valuestring, "batch_sweep") == 0) rc = study_batch_sweep(c, study, o, hw, pg, out, err);
    else if (strcmp(kind->valuestring, "power_modes") == 0) rc = study_power_modes(c, study, req, o, hw, pg, out, err);
    else {
        rl_error_set(err, "bad_request", "study.kind",
                     "unknown study kind '%s': use \"compare\", \"batch_sweep\" or \"power_modes\"",
                     kind->valuestring);
        rc = -1;
    }
    if (rc) {
        cJSON_Delete(out);
        return -1;
    }
    cJSON_AddItemToObject(root, "study", out);
    return 0;
}
