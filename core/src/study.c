/* What-if studies over one parsed model: several devices side by side, a
 * batch-size sweep, and a device's power modes with a recommendation. Every
 * figure comes from rl_time_graph, the function the single analysis uses,
 * so a study row and a single analysis of the same settings agree exactly.
 * The JSON contract is docs/api.md ("Studies"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roofline.h"
#include "study.h"

#define STUDY_MAX_HARDWARE 64
#define STUDY_MAX_BATCHES 64
#define STUDY_MAX_BATCH 1e9

static void put_num(cJSON *o, const char *k, double v) {
    if (isfinite(v)) cJSON_AddNumberToObject(o, k, v);
    else cJSON_AddNullToObject(o, k);
}

static cJSON *error_object(const rl_error *e) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "code", e->code[0] ? e->code : "internal");
    cJSON_AddStringToObject(o, "message", e->message);
    return o;
}

/* A context for study work: the request's settings, but its own warnings
 * (a compare row's precision fallback is not a warning about the request's
 * own device) and, when `arena` is given, its own memory. */
static bool scratch_ctx(rl_ctx *s, const rl_ctx *c, rl_arena *arena, rl_error *err) {
    *s = *c;
    if (arena) s->arena = arena;
    s->err = err;
    s->n_warnings = 0;
    s->dropped_warnings = 0;
    s->total_nodes = 0;
    s->warnings = rl_arena_alloc(s->arena, RL_MAX_WARNINGS * sizeof *s->warnings);
    return s->warnings != NULL;
}

const char *rl_model_bound(const rl_timing *t, double bw) {
    if (t->launch_floor > 0 && t->launch_floor > 0.5 * t->chosen_time) return "overhead";
    return t->tc_sum >= t->chosen_bytes / bw ? "compute" : "memory";
}

/* ------------------------------------------------------------- compare -- */
static int study_compare(rl_ctx *c, const cJSON *study, const rl_options *o, const rl_graph *g,
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
    rl_ctx s;
    if (!scratch_ctx(&s, c, NULL, err)) {
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    cJSON *rows = cJSON_AddArrayToObject(out, "rows");
    for (int i = 0; i < n; i++) {
        const cJSON *pj = cJSON_GetArrayItem(list, i);
        const cJSON *mj = modes ? cJSON_GetArrayItem(modes, i) : NULL;
        const char *mode = cJSON_IsString(mj) ? mj->valuestring : NULL;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        cJSON *ho = cJSON_AddObjectToObject(row, "hardware");
        rl_hw hw;
        rl_error rowerr = {0};
        if (rl_hw_parse(pj, mode, &hw, &rowerr)) {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(pj, "id");
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(pj, "name");
            const cJSON *cat = cJSON_GetObjectItemCaseSensitive(pj, "category");
            cJSON_AddStringToObject(ho, "id", cJSON_IsString(id) ? id->valuestring : "");
            cJSON_AddStringToObject(ho, "name", cJSON_IsString(nm) ? nm->valuestring : "");
            cJSON_AddStringToObject(ho, "category", cJSON_IsString(cat) ? cat->valuestring : "");
            if (mode) cJSON_AddStringToObject(ho, "power_mode", mode);
            else cJSON_AddNullToObject(ho, "power_mode");
            static const char *const empty[] = {"precision", "sol", "lower_bound_s", "upper_bound_s",
                                                "chosen_time_s", "energy_j", "bound", "launch_floor_s"};
            for (size_t k = 0; k < sizeof empty / sizeof *empty; k++) cJSON_AddNullToObject(row, empty[k]);
            cJSON_AddItemToObject(row, "error", error_object(&rowerr));
            continue;
        }
        cJSON_AddStringToObject(ho, "id", hw.id);
        cJSON_AddStringToObject(ho, "name", hw.name);
        cJSON_AddStringToObject(ho, "category", hw.category);
        if (hw.mode_id) cJSON_AddStringToObject(ho, "power_mode", hw.mode_id);
        else cJSON_AddNullToObject(ho, "power_mode");
        rl_timing t;
        rl_time_graph(&s, g, o, &hw, NULL, &t);
        const double bw = hw.mem_bw[0];
        cJSON_AddStringToObject(row, "precision", rl_precision_name(t.main_prec));
        cJSON *so = cJSON_AddObjectToObject(row, "sol");
        put_num(so, "unfused", t.sol_unfused);
        put_num(so, "fused", t.sol_fused);
        put_num(so, "fused_prefetched", rl_roof_time(t.tc_sum, t.fused_bytes / bw));
        put_num(row, "lower_bound_s", rl_roof_time(t.tc_sum, t.tm_sum));
        put_num(row, "upper_bound_s", t.tc_sum + t.tm_sum);
        put_num(row, "chosen_time_s", t.chosen_time);
        if (t.has_energy) put_num(row, "energy_j", t.chosen_energy);
        else cJSON_AddNullToObject(row, "energy_j");
        cJSON_AddStringToObject(row, "bound", rl_model_bound(&t, bw));
        put_num(row, "launch_floor_s", t.launch_floor);
        cJSON_AddNullToObject(row, "error");
    }
    return 0;
}

/* --------------------------------------------------------- batch sweep -- */
static int study_batch_sweep(rl_ctx *c, const cJSON *study, const rl_options *o, const rl_hw *hw,
                             const rl_graph *g, cJSON *out, rl_error *err) {
    int64_t batches[STUDY_MAX_BATCHES];
    int nb = 0;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(study, "batches");
    if (!list || cJSON_IsNull(list)) {
        for (int64_t b = 1; b <= 1024; b *= 2) batches[nb++] = b;
    } else {
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
                             "entry %d of \"batches\" is not a whole number from 1 to 10^9", nb);
                return -1;
            }
            batches[nb++] = (int64_t)b->valuedouble;
        }
    }
    /* The roofline the rows are placed on: the request's own precision, as
     * its analysis reports it (roofline.precision). */
    rl_ctx s;
    if (!scratch_ctx(&s, c, NULL, err)) {
        rl_error_set(err, "out_of_memory", "study", "out of memory");
        return -1;
    }
    rl_timing own;
    rl_time_graph(&s, g, o, hw, NULL, &own);
    const double bw = hw->mem_bw[0], peak = hw->matrix[own.main_prec];
    const double balance = rl_time_balance(peak, bw);
    int64_t critical = -1;
    double critical_intensity = 0;
    int applied_max = 0;
    cJSON *rows = cJSON_AddArrayToObject(out, "rows");
    for (int i = 0; i < nb; i++) {
        /* Shapes follow the batch, so each row re-infers the graph from the
         * parsed model, in memory of its own that is released at once. */
        rl_arena arena = {0};
        rl_error rowerr = {0};
        rl_ctx r;
        cJSON *row = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, row);
        cJSON_AddNumberToObject(row, "batch", (double)batches[i]);
        if (!scratch_ctx(&r, c, &arena, &rowerr)) {
            rl_arena_free(&arena);
            rl_error_set(err, "out_of_memory", "study", "out of memory");
            return -1;
        }
        r.batch = batches[i];
        int applied = 0;
        rl_graph *gb = rl_prepare_graph(&r, &applied);
        if (!gb) {
            static const char *const empty[] = {"flops", "bytes", "intensity", "attainable_flops_per_s",
                                                "time_s", "time_per_sample_s", "energy_j",
                                                "energy_per_sample_j", "bound"};
            for (size_t k = 0; k < sizeof empty / sizeof *empty; k++) cJSON_AddNullToObject(row, empty[k]);
            if (!rowerr.code[0]) rl_error_set(&rowerr, "internal", "", "analysis failed");
            cJSON_AddItemToObject(row, "error", error_object(&rowerr));
            rl_arena_free(&arena);
            continue;
        }
        if (applied > applied_max) applied_max = applied;
        rl_timing t;
        rl_time_graph(&r, gb, o, hw, NULL, &t);
        double intensity = t.chosen_bytes > 0 ? t.flops / t.chosen_bytes : 0;
        double attainable = intensity * bw < peak ? intensity * bw : peak;
        const double per = (double)batches[i];
        put_num(row, "flops", t.flops);
        put_num(row, "bytes", t.chosen_bytes);
        put_num(row, "intensity", intensity);
        put_num(row, "attainable_flops_per_s", attainable);
        put_num(row, "time_s", t.chosen_time);
        put_num(row, "time_per_sample_s", t.chosen_time / per);
        if (hw->has_energy) {
            put_num(row, "energy_j", t.chosen_energy);
            put_num(row, "energy_per_sample_j", t.chosen_energy / per);
        } else {
            cJSON_AddNullToObject(row, "energy_j");
            cJSON_AddNullToObject(row, "energy_per_sample_j");
        }
        bool compute = intensity >= balance;
        cJSON_AddStringToObject(row, "bound", compute ? "compute" : "memory");
        cJSON_AddNullToObject(row, "error");
        if (compute && (critical < 0 || batches[i] < critical)) {
            critical = batches[i];
            critical_intensity = intensity;
        }
        rl_arena_free(&arena);
    }
    if (critical > 0) cJSON_AddNumberToObject(out, "critical_batch", (double)critical);
    else cJSON_AddNullToObject(out, "critical_batch");
    put_num(out, "time_balance", balance);
    cJSON_AddStringToObject(out, "precision", rl_precision_name(own.main_prec));
    cJSON_AddStringToObject(out, "sol", o->sol);
    char note[600];
    int len = snprintf(note, sizeof note,
                       "bytes and intensity are those of the %s speed-of-light model%s; a batch is "
                       "compute-bound when the model's intensity reaches the time balance %.4g FLOP/B "
                       "(%s peak / main-memory bandwidth). ",
                       o->sol,
                       strcmp(o->sol, "unfused") == 0 ? " (every layer's inputs, weights and outputs)"
                                                      : " (weights and model inputs/outputs only)",
                       balance, rl_precision_name(own.main_prec));
    if (applied_max == 0)
        snprintf(note + len, sizeof note - (size_t)len,
                 "The model's inputs have no symbolic or unnamed leading dimension, so the batch "
                 "changes nothing: every row is the same.");
    else if (critical > 0)
        snprintf(note + len, sizeof note - (size_t)len,
                 "From batch %lld the intensity (%.4g FLOP/B) reaches it.", (long long)critical,
                 critical_intensity);
    else
        snprintf(note + len, sizeof note - (size_t)len,
                 "No batch in the range reaches it: the model stays memory-bound.");
    cJSON_AddStringToObject(out, "note", note);
    return 0;
}

/* --------------------------------------------------------- power modes -- */
typedef struct mode_row {
    const char *id, *name;
    double time, energy, share;
} mode_row;

static int study_power_modes(rl_ctx *c, const cJSON *study, const cJSON *req, const rl_options *o,
                             const rl_hw *own, const rl_graph *g, cJSON *out, rl_error *err) {
    double max_slowdown = 0.05;
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(study, "max_slowdown");
    if (ms && !cJSON_IsNull(ms)) {
        if (!cJSON_IsNumber(ms) || !(ms->valuedouble >= 0) || ms->valuedouble > 100) {
            rl_error_set(err, "bad_request", "study.max_slowdown",
                         "\"max_slowdown\" must be a number from 0 to 100 (a fraction: 0.05 = 5%% slower "
                         "than the fastest mode)");
            return -1;
        }
        max_slowdown = ms->valuedouble;
    }
    const cJSON *hwj = cJSON_GetObjectItemCaseSensitive(req, "hardware");
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(hwj, "power_modes");
    int n = cJSON_IsArray(modes) ? cJSON_GetArraySize(modes) : 0;
    if (n == 0) {
        rl_error_set(err, "no_power_modes", "study",
                     "hardware '%s' has no power modes; the power-mode study needs a profile with "
                     "\"power_modes\" (for example jetson-agx-orin)", own->id);
        return -1;
    }
    mode_row *rows = rl_arena_alloc(c->arena, (size_t)n * sizeof *rows);
    rl_ctx s;
    if (!rows || !scratch_ctx(&s, c, NULL, err)) {
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
        rl_time_graph(&s, g, o, &hw, NULL, &t);
        rows[k] = (mode_row){hw.mode_id, hw.mode_name, t.chosen_time,
                             hw.has_energy ? t.chosen_energy : NAN,
                             t.roof_t > 0 ? t.compute_bound_t / t.roof_t : 0};
        k++;
    }
    n = k;
    if (n == 0) {
        rl_error_set(err, "no_power_modes", "study", "hardware '%s' has no power mode with an id", own->id);
        return -1;
    }
    int fastest = 0;
    for (int i = 1; i < n; i++)
        if (rows[i].time < rows[fastest].time) fastest = i;
    const double limit = (1 + max_slowdown) * rows[fastest].time;
    int rec = -1;
    for (int i = 0; i < n; i++) {
        if (rows[i].time > limit || !isfinite(rows[i].energy)) continue;
        if (rec < 0 || rows[i].energy < rows[rec].energy ||
            (rows[i].energy == rows[rec].energy && rows[i].time < rows[rec].time))
            rec = i;
    }
    bool energy_known = rec >= 0;
    if (rec < 0) rec = fastest; /* no energy coefficients: time alone decides */
    cJSON *arr = cJSON_AddArrayToObject(out, "rows");
    for (int i = 0; i < n; i++) {
        const mode_row *r = &rows[i];
        bool dominated = false;
        for (int j = 0; j < n && !dominated; j++) {
            if (j == i) continue;
            if (!isfinite(r->energy) || !isfinite(rows[j].energy)) {
                dominated = rows[j].time < r->time;
                continue;
            }
            dominated = rows[j].time <= r->time && rows[j].energy <= r->energy &&
                        (rows[j].time < r->time || rows[j].energy < r->energy);
        }
        cJSON *o2 = cJSON_CreateObject();
        cJSON_AddStringToObject(o2, "mode", r->id);
        cJSON_AddStringToObject(o2, "name", r->name);
        put_num(o2, "time_s", r->time);
        put_num(o2, "energy_j", r->energy);
        put_num(o2, "avg_power_w", isfinite(r->energy) && r->time > 0 ? r->energy / r->time : NAN);
        cJSON_AddBoolToObject(o2, "pareto", !dominated);
        put_num(o2, "compute_bound_time_share", r->share);
        put_num(o2, "slowdown", r->time / rows[fastest].time - 1);
        cJSON_AddItemToArray(arr, o2);
    }
    cJSON_AddStringToObject(out, "fastest", rows[fastest].id);
    cJSON_AddStringToObject(out, "recommended", rows[rec].id);
    put_num(out, "max_slowdown", max_slowdown);
    /* The layer-level reason: a mode that lowers clocks costs little time
     * when little of the time is spent in compute-bound layers. */
    const mode_row *f = &rows[fastest], *r = &rows[rec];
    char reason[700];
    double cshare = 100 * f->share;
    if (!energy_known) {
        snprintf(reason, sizeof reason,
                 "%s has no energy coefficients, so only time can be compared: %s is the fastest. "
                 "%.0f%% of its time is in compute-bound layers.",
                 own->id, f->id, cshare);
    } else if (rec == fastest) {
        int thrift = fastest; /* the least-energy mode of all, for the comparison */
        for (int i = 0; i < n; i++)
            if (isfinite(rows[i].energy) && rows[i].energy < rows[thrift].energy) thrift = i;
        int len = snprintf(reason, sizeof reason,
                           "%s is the fastest mode and no other mode within %.4g%% of its time uses less "
                           "energy: %.0f%% of its time is in compute-bound layers, %.0f%% in memory-bound "
                           "ones. ",
                           f->id, 100 * max_slowdown, cshare, 100 - cshare);
        if (thrift != fastest)
            snprintf(reason + len, sizeof reason - (size_t)len,
                     "The least-energy mode, %s, saves %.1f%% of the energy but is %.1f%% slower.",
                     rows[thrift].id, 100 * (1 - rows[thrift].energy / f->energy),
                     100 * (rows[thrift].time / f->time - 1));
        else
            snprintf(reason + len, sizeof reason - (size_t)len, "It also uses the least energy of all modes.");
    } else {
        snprintf(reason, sizeof reason,
                 "%s uses %.1f%% less energy than the fastest mode %s and is %.1f%% slower (limit "
                 "%.4g%%): only %.0f%% of the time at %s is in compute-bound layers (%.0f%% at %s); "
                 "the rest waits on memory or launches, which the slower mode hardly stretches while "
                 "it saves power.",
                 r->id, 100 * (1 - r->energy / f->energy), f->id, 100 * (r->time / f->time - 1),
                 100 * max_slowdown, cshare, f->id, 100 * r->share, r->id);
    }
    cJSON_AddStringToObject(out, "reason", reason);
    return 0;
}

int rl_study_run(rl_ctx *c, const cJSON *study, const cJSON *req, const rl_options *o,
                 const rl_hw *hw, const rl_graph *g, cJSON *root, rl_error *err) {
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
    if (strcmp(kind->valuestring, "compare") == 0) rc = study_compare(c, study, o, g, out, err);
    else if (strcmp(kind->valuestring, "batch_sweep") == 0) rc = study_batch_sweep(c, study, o, hw, g, out, err);
    else if (strcmp(kind->valuestring, "power_modes") == 0) rc = study_power_modes(c, study, req, o, hw, g, out, err);
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
