/* Hardware profiles through the core's one validator (rl_hw_parse /
 * rl_check_hardware), and the energy model (docs/power.md):
 *  - every shipped profile (every hw/<id>.json) is accepted in every power mode;
 *  - in every mode, each compute unit at its peak draws no more dynamic
 *    power than the budget minus static power, recomputed here from the
 *    figures the core exposes;
 *  - energy per FLOP is ordered by unit and precision (int8 matrix < fp16
 *    matrix < fp32 vector wherever the peaks are so ordered);
 *  - seed 004's measured Orin coefficients are used exactly at MAXN, and no
 *    Orin mode at another GPU clock reuses MAXN's energy per FLOP;
 *  - the validator rejects denormal, infinite, negative, absurd and unknown
 *    figures with an error whose `where` names the field.
 *  - every shipped profile also keeps the rules of a shipped profile
 *    (rl_check_shipped_hardware: every figure with its source and a known
 *    kind...), and a bad kind, a missing source, an estimate that does not
 *    say how, a bare number or an unknown category is refused by the core.
 * Only the id = the file name is hw/check_profiles.py's part (it needs the
 * file), also under ctest. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdbool.h>

#include "check.h"
#include "hw.h"
#include "rooflens.h"

static double peak_of(const rl_hw *hw, int p, int u) { return u == RL_UNIT_VECTOR ? hw->vector[p] : hw->matrix[p]; }

/* The physics every mode of every profile must satisfy. */
static void check_mode(const char *file, const char *mode, const rl_hw *hw) {
    if (!hw->has_energy) {
        CHECK(hw->energy_model[0] == 0, "%s mode %s: an energy model without energy figures", file, mode);
        return;
    }
    CHECK(hw->energy_model[0] != 0, "%s mode %s: energy figures must say where they come from", file, mode);
    CHECK(hw->power_budget_w > 0, "%s mode %s: energy figures without a power budget", file, mode);
    double room = hw->power_budget_w - hw->static_w;
    CHECK(room > 0, "%s mode %s: static power %g W leaves nothing of the %g W budget", file, mode, hw->static_w,
          hw->power_budget_w);
    for (int p = 0; p < RL_P_COUNT; p++)
        for (int u = 0; u < RL_UNIT_COUNT; u++) {
            double peak = peak_of(hw, p, u), e = hw->e_flop_unit[p][u];
            if (!(peak > 0)) {
                CHECK(e == 0, "%s mode %s: %s %s has energy but no peak", file, mode, rl_precision_name(p),
                      rl_unit_name(u));
                continue;
            }
            CHECK(e > 0, "%s mode %s: %s %s has a peak but no energy per FLOP", file, mode, rl_precision_name(p),
                  rl_unit_name(u));
            CHECK(e * peak <= room * (1 + 1e-9),
                  "%s mode %s: %s %s at its peak draws %.4g W of dynamic power; the budget leaves %.4g W", file,
                  mode, rl_precision_name(p), rl_unit_name(u), e * peak, room);
        }
    /* per operation: a faster unit at the same power spends less per FLOP */
    const double *i8 = hw->e_flop_unit[RL_P_INT8], *f16 = hw->e_flop_unit[RL_P_FP16], *f32 = hw->e_flop_unit[RL_P_FP32];
    if (i8[RL_UNIT_MATRIX] > 0 && f16[RL_UNIT_MATRIX] > 0 && hw->matrix[RL_P_INT8] > hw->matrix[RL_P_FP16])
        CHECK(i8[RL_UNIT_MATRIX] < f16[RL_UNIT_MATRIX], "%s mode %s: an int8 matrix op must cost less than fp16's",
              file, mode);
    if (f16[RL_UNIT_MATRIX] > 0 && f32[RL_UNIT_VECTOR] > 0 && hw->matrix[RL_P_FP16] > hw->vector[RL_P_FP32])
        CHECK(f16[RL_UNIT_MATRIX] < f32[RL_UNIT_VECTOR],
              "%s mode %s: an fp16 matrix op must cost less than an fp32 vector op", file, mode);
    for (int p = 0; p < RL_P_COUNT; p++)
        if (hw->matrix[p] > hw->vector[p])
            CHECK(hw->e_flop_unit[p][RL_UNIT_MATRIX] < hw->e_flop_unit[p][RL_UNIT_VECTOR],
                  "%s mode %s: %s on the matrix unit must cost less per FLOP than on the vector unit", file, mode,
                  rl_precision_name(p));
}

static int n_modes_checked;

static void check_profile(const char *dir, const char *name) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = check_read_file(path, NULL);
    CHECK(text != NULL, "cannot read %s", path);
    if (!text) return;
    char *res = rl_check_shipped_hardware(text);
    CHECK(strstr(res, "\"ok\":true") != NULL, "%s: the core rejects it as a shipped profile: %s", name, res);
    rl_free(res);
    cJSON *p = cJSON_Parse(text);
    free(text);
    if (!p) return;
    rl_hw hw;
    rl_error err = {0};
    CHECK(rl_hw_parse(p, NULL, &hw, &err) == 0, "%s: %s", name, err.message);
    check_mode(name, "(default)", &hw);
    n_modes_checked++;
    /* the GeForce parts' FP16/BF16/FP8 peaks are the FP32-accumulate rate, and their profiles say so
     * (issue 40): the page names the accumulate where it draws the peak */
    if (!strncmp(name, "rtx-", 4) && strcmp(name, "rtx-pro-6000-blackwell.json") != 0)
        CHECK(hw.matrix_accumulate[RL_P_FP16] && !strcmp(hw.matrix_accumulate[RL_P_FP16], "fp32"),
              "%s: its fp16 matrix peak states its accumulate", name);
    if (!strcmp(name, "h100-sxm.json")) CHECK(hw.matrix_accumulate[RL_P_FP16] == NULL, "h100: one rate, none stated");
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(p, "power_modes")) {
        const char *mid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "id"));
        memset(&err, 0, sizeof err);
        CHECK(mid && rl_hw_parse(p, mid, &hw, &err) == 0, "%s mode %s: %s", name, mid ? mid : "?", err.message);
        if (mid) check_mode(name, mid, &hw);
        n_modes_checked++;
    }
    cJSON_Delete(p);
}

/* Seed 004's measured MAXN coefficients are used exactly where they were
 * measured (fp32 work on the Tensor Cores at MAXN), and DVFS gives every
 * other GPU clock its own energy per FLOP. */
static void orin_measured_and_dvfs(const char *dir) {
    char path[2048];
    snprintf(path, sizeof path, "%s/jetson-agx-orin.json", dir);
    char *text = check_read_file(path, NULL);
    cJSON *p = cJSON_Parse(text ? text : "");
    free(text);
    rl_hw maxn, hw;
    rl_error err = {0};
    CHECK(rl_hw_parse(p, "maxn", &maxn, &err) == 0, "orin maxn: %s", err.message);
    CHECK(maxn.e_flop_unit[RL_P_FP32][RL_UNIT_MATRIX] == 3.86e-12, "MAXN fp32 matrix: 3.86 pJ/FLOP exactly, got %g",
          maxn.e_flop_unit[RL_P_FP32][RL_UNIT_MATRIX]);
    CHECK(maxn.e_byte == 141.38e-12 && maxn.static_w == 17.9, "MAXN 141.38 pJ/B and 17.9 W exactly");
    CHECK(strcmp(maxn.energy_model, "measured") == 0, "MAXN energy model: %s", maxn.energy_model);
    CHECK(maxn.power_budget_w >= 67, "MAXN budget %g W below the seed's measured 67 W peak", maxn.power_budget_w);
    int other_clock = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(p, "power_modes")) {
        const char *mid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "id"));
        if (!mid || rl_hw_parse(p, mid, &hw, &err)) continue;
        if (hw.clock_hz == maxn.clock_hz) continue;
        other_clock++;
        CHECK(hw.e_flop < maxn.e_flop, "orin %s (GPU %g Hz) reuses or exceeds MAXN's energy per FLOP", mid,
              hw.clock_hz);
        CHECK(strstr(hw.energy_model, "dvfs") != NULL, "orin %s: energy model '%s'", mid, hw.energy_model);
        /* DVFS scales the energy per operation of every unit alike (V²),
         * whatever each unit's peak does in the mode */
        double v2 = hw.e_flop_unit[RL_P_FP32][RL_UNIT_MATRIX] / maxn.e_flop_unit[RL_P_FP32][RL_UNIT_MATRIX];
        for (int q = 0; q < RL_P_COUNT; q++)
            for (int u = 0; u < RL_UNIT_COUNT; u++)
                if (maxn.e_flop_unit[q][u] > 0)
                    CHECK_NEAR(hw.e_flop_unit[q][u] / maxn.e_flop_unit[q][u], v2, 1e-12, "orin DVFS ratio per unit");
    }
    CHECK(other_clock >= 6, "orin: %d modes at another GPU clock", other_clock);
    static const struct { const char *mode; double byte_j, budget; } emc[] = {
        {"emc-2100mhz", 174.7e-12, 0}, {"emc-700mhz", 444.9e-12, 0}, {"15w", 174.7e-12, 15}, {"30w", 141.4e-12, 30},
        {"50w", 141.4e-12, 50}};
    for (size_t i = 0; i < sizeof emc / sizeof *emc; i++) {
        CHECK(rl_hw_parse(p, emc[i].mode, &hw, &err) == 0, "orin %s: %s", emc[i].mode, err.message);
        CHECK_NEAR(hw.e_byte, emc[i].byte_j, 1e-3, emc[i].mode);
        if (emc[i].budget > 0) CHECK_NEAR(hw.power_budget_w, emc[i].budget, 1e-12, emc[i].mode);
    }
    cJSON_Delete(p);
}

/* ------------------------------------------------------- the validator -- */
/* A valid profile with every kind of field; each case below replaces one
 * piece of it. */
static const char base_profile[] =
    "{\"id\": \"t\", \"clock_hz\": 1e9, \"launch_overhead_s\": 4e-6, \"power_budget_w\": 300,"
    " \"compute\": {\"fp32\": {\"matrix\": 2e13, \"vector\": 1e13}, \"fp16\": {\"matrix\": 1e14, \"vector\": 2e13}},"
    " \"memory\": [{\"name\": \"HBM\", \"bandwidth_Bps\": 1e12, \"capacity_bytes\": 1e10},"
    "              {\"name\": \"L1\", \"bandwidth_Bps\": 1e13, \"capacity_bytes\": 1e7}],"
    " \"interconnect\": {\"name\": \"Link\", \"topology\": \"ring\", \"links\": 4,"
    "                    \"link_bandwidth_Bps\": 5e10, \"latency_s\": 1e-6},"
    " \"energy\": {\"flop_j\": 1e-12, \"byte_j\": 1e-10, \"static_w\": 50},"
    " \"power_modes\": [{\"id\": \"max\", \"default\": true, \"overrides\": {}},"
    "                   {\"id\": \"low\", \"overrides\": {\"clock_hz\": 5e8, \"power_budget_w\": 150,"
    "                    \"compute\": {\"fp32\": {\"matrix\": 1e13}}, \"energy\": {\"flop_j\": 8e-13}}}]}";

/* Returns the profile with the first `from` replaced by `to`. */
static char *patched(const char *from, const char *to) {
    const char *at = strstr(base_profile, from);
    CHECK(at != NULL, "test setup: '%s' not in the base profile", from);
    if (!at) return strdup(base_profile);
    size_t n = strlen(base_profile) - strlen(from) + strlen(to) + 1;
    char *s = malloc(n);
    snprintf(s, n, "%.*s%s%s", (int)(at - base_profile), base_profile, to, at + strlen(from));
    return s;
}

static void validator_rejects(void) {
    char *ok = rl_check_hardware(base_profile);
    CHECK(strstr(ok, "\"ok\":true"), "the base profile must be valid: %s", ok);
    rl_free(ok);
    static const struct { const char *from, *to, *field; } cases[] = {
        {"\"matrix\": 2e13", "\"matrix\": 5e-324", "compute.fp32.matrix"},          /* denormal */
        {"\"matrix\": 2e13", "\"matrix\": 2.2e-308", "compute.fp32.matrix"},        /* normal but absurd */
        {"\"matrix\": 2e13", "\"matrix\": -2e13", "compute.fp32.matrix"},           /* negative */
        {"\"matrix\": 2e13", "\"matrix\": 0", "compute.fp32.matrix"},               /* zero */
        {"\"matrix\": 2e13", "\"matrix\": 1e999", "compute.fp32.matrix"},           /* inf as JSON gives it */
        {"\"matrix\": 2e13", "\"matrix\": \"fast\"", "compute.fp32.matrix"},       /* not a number */
        {"\"bandwidth_Bps\": 1e12", "\"bandwidth_Bps\": 5e-324", "memory[0].bandwidth_Bps"},
        {"\"bandwidth_Bps\": 1e12", "\"bandwidth_Bps\": 1e300", "memory[0].bandwidth_Bps"},
        {"\"bandwidth_Bps\": 1e12", "\"bandwith_Bps\": 1e12", "memory[0].bandwith_Bps"}, /* a typo */
        {"\"bandwidth_Bps\": 1e13", "\"bandwidth_Bps\": 1e11", "memory[1].bandwidth_Bps"}, /* L1 slower */
        {"\"capacity_bytes\": 1e10", "\"capacity_bytes\": 1e-3", "memory[0].capacity_bytes"},
        {"\"clock_hz\": 1e9", "\"clock_hz\": -1e9", "clock_hz"},
        {"\"launch_overhead_s\": 4e-6", "\"launch_overhead_s\": 3600", "launch_overhead_s"},
        {"\"launch_overhead_s\": 4e-6", "\"launch_overhead_s\": 1e-320", "launch_overhead_s"},
        {"\"power_budget_w\": 300", "\"power_budget_w\": 0", "power_budget_w"},
        {"\"flop_j\": 1e-12", "\"flop_j\": 1", "energy.flop_j"},                    /* a joule per FLOP */
        {"\"flop_j\": 1e-12", "\"flop_j\": 1e-11", "energy.flop_j"},                /* 1 kW at the fp16 peak */
        {"\"byte_j\": 1e-10", "\"byte_j\": 5e-324", "energy.byte_j"},
        {"\"static_w\": 50", "\"static_w\": 400", "energy.static_w"},               /* above the budget */
        {"\"static_w\": 50", "\"static_w\": -5", "energy.static_w"},
        {"\"fp16\": {", "\"fp13\": {", "compute.fp13"},
        {"\"fp16\": {", "\"fp16\": {\"accumulate\": \"fp33\", ", "compute.fp16.accumulate"},   /* no such precision */
        {"\"fp16\": {", "\"fp16\": {\"accumulate\": 32, ", "compute.fp16.accumulate"},
        {"\"matrix\": 1e14, \"vector\": 2e13", "\"matrix\": 1e13, \"vector\": 2e13", "compute.fp16.matrix"},
        {"\"id\": \"t\",", "\"id\": \"t\", \"colour\": 3,", "colour"},
        {"\"energy\": {\"flop_j\": 8e-13}", "\"energy\": {}", "power_modes[low].overrides.energy.flop_j"},
        {"\"id\": \"low\"", "\"id\": \"max\"", "power_modes[1]"},
        {"\"id\": \"low\",", "\"id\": \"low\", \"default\": true,", "power_modes"},
        {"\"power_budget_w\": 150", "\"power_budget_w\": 1e-30", "power_modes[low].overrides.power_budget_w"},
        {"\"fp32\": {\"matrix\": 1e13}", "\"int8\": {\"matrix\": 1e13}", "power_modes[low].overrides.compute.int8"},
        {"\"energy\": {\"flop_j\": 1e-12,", "\"energy\": {\"model\": \"guess\", \"flop_j\": 1e-12,", "energy.model"},
        {"\"topology\": \"ring\"", "\"topology\": \"mesh\"", "interconnect.topology"},
        {"\"topology\": \"ring\"", "\"topology\": \"none\"", "interconnect.links"},   /* none has no links */
        {"\"links\": 4,", "\"links\": 2.5,", "interconnect.links"},
        {"\"links\": 4,", "", "interconnect.links"},                                       /* needed */
        {"\"link_bandwidth_Bps\": 5e10", "\"link_bandwidth_Bps\": 5e-324", "interconnect.link_bandwidth_Bps"},
        {"\"link_bandwidth_Bps\": 5e10", "\"link_bandwidth_Bps\": 1e99", "interconnect.link_bandwidth_Bps"},
        {"\"latency_s\": 1e-6", "\"latency_s\": 60", "interconnect.latency_s"},
        {"\"latency_s\": 1e-6", "\"latency_s\": 1e-6, \"lanes\": 16", "interconnect.lanes"},
        /* counts are whole (issue 43): a tile of 127.5 elements, 132.5 units */
        {"\"energy\": {\"flop_j\"", "\"forecast\": {\"tile_m\": 127.5}, \"energy\": {\"flop_j\"", "forecast.tile_m"},
        {"\"energy\": {\"flop_j\"", "\"forecast\": {\"tile_k\": {\"value\": 31.9}}, \"energy\": {\"flop_j\"",
         "forecast.tile_k"},
        {"\"energy\": {\"flop_j\"", "\"forecast\": {\"matrix_units\": 132.5}, \"energy\": {\"flop_j\"",
         "forecast.matrix_units"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *prof = patched(cases[i].from, cases[i].to);
        char *res = rl_check_hardware(prof);
        cJSON *r = cJSON_Parse(res);
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
        const char *code = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "code"));
        const char *where = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "where"));
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
        CHECK(code && strcmp(code, "bad_hardware") == 0, "'%s' -> '%s' must be refused: %s", cases[i].from,
              cases[i].to, res);
        CHECK(where && strstr(where, cases[i].field) && msg && strstr(msg, cases[i].field),
              "'%s' -> '%s': the error must name %s: %s", cases[i].from, cases[i].to, cases[i].field, res);
        cJSON_Delete(r);
        rl_free(res);
        free(prof);
    }
    /* tdp-split: every coefficient from the budget; each unit at its peak draws half of it */
    char *tdp = patched("\"energy\": {\"flop_j\": 1e-12, \"byte_j\": 1e-10, \"static_w\": 50}",
                        "\"energy\": {\"model\": \"tdp-split\"}");
    char *tdp2 = NULL;
    {
        /* the low mode's own flop_j does not belong in a tdp-split profile's mode */
        const char *at = strstr(tdp, ", \"energy\": {\"flop_j\": 8e-13}");
        if (at) {
            size_t cut = strlen(", \"energy\": {\"flop_j\": 8e-13}");
            tdp2 = malloc(strlen(tdp) + 1);
            snprintf(tdp2, strlen(tdp) + 1, "%.*s%s", (int)(at - tdp), tdp, at + cut);
        }
    }
    cJSON *p = cJSON_Parse(tdp2 ? tdp2 : tdp);
    rl_hw hw;
    rl_error err = {0};
    CHECK(rl_hw_parse(p, NULL, &hw, &err) == 0, "tdp-split profile: %s", err.message);
    CHECK_NEAR(hw.e_flop_unit[RL_P_FP16][RL_UNIT_MATRIX] * 1e14, 150, 1e-12, "tdp-split fp16 matrix: 0.5 x 300 W");
    CHECK_NEAR(hw.e_flop_unit[RL_P_FP32][RL_UNIT_VECTOR] * 1e13, 150, 1e-12, "tdp-split fp32 vector: 0.5 x 300 W");
    CHECK_NEAR(hw.e_byte * 1e12, 90, 1e-12, "tdp-split memory: 0.3 x 300 W");
    CHECK_NEAR(hw.static_w, 60, 1e-12, "tdp-split static: 0.2 x 300 W");
    CHECK(strcmp(hw.energy_model, "tdp-split") == 0, "tdp-split label: %s", hw.energy_model);
    CHECK(rl_hw_parse(p, "low", &hw, &err) == 0, "tdp-split low mode: %s", err.message);
    CHECK_NEAR(hw.static_w, 30, 1e-12, "tdp-split low mode static: 0.2 x its 150 W budget");
    cJSON_Delete(p);
    free(tdp);
    free(tdp2);
    /* a DVFS curve lets a mode at another clock scale the base energy per FLOP by V² */
    char *dv = patched("\"static_w\": 50}", "\"static_w\": 50, \"voltage_floor_ratio\": 0.8, \"voltage_floor_clock_hz\": 4e8}");
    char *dv2 = dv;
    const char *at = strstr(dv, ", \"energy\": {\"flop_j\": 8e-13}");
    if (at) {
        size_t cut = strlen(", \"energy\": {\"flop_j\": 8e-13}");
        dv2 = malloc(strlen(dv) + 1);
        snprintf(dv2, strlen(dv) + 1, "%.*s%s", (int)(at - dv), dv, at + cut);
    }
    p = cJSON_Parse(dv2);
    CHECK(rl_hw_parse(p, "low", &hw, &err) == 0, "dvfs profile: %s", err.message);
    double v = 0.8 + 0.2 * (5e8 - 4e8) / (1e9 - 4e8); /* linear from the floor to the base clock */
    CHECK_NEAR(hw.e_flop_unit[RL_P_FP16][RL_UNIT_MATRIX], 1e-12 * v * v, 1e-12, "dvfs: 1 pJ x V² at 0.5 GHz");
    CHECK(strcmp(hw.energy_model, "dvfs-scaled from max (given)") == 0, "dvfs label: %s", hw.energy_model);
    cJSON_Delete(p);
    if (dv2 != dv) free(dv2);
    free(dv);
}

/* The rules of a shipped profile, in the core: a profile every user may
 * give (plain numbers, any kind) is refused as a shipped one when a figure
 * lacks its provenance. */
static const char shipped_profile[] =
    "{\"schema\": 1, \"id\": \"s\", \"name\": \"Shipped test\", \"vendor\": \"rooflens tests\","
    " \"category\": \"edge\","
    " \"clock_hz\": {\"value\": 1e9, \"source\": \"datasheet p. 3\", \"kind\": \"datasheet\"},"
    " \"compute\": {\"fp32\": {\"matrix\": {\"value\": 2e13, \"source\": \"SMs x 256 FLOP/clk x clock\","
    " \"kind\": \"derived\"}}},"
    " \"memory\": [{\"name\": \"DRAM\", \"bandwidth_Bps\": {\"value\": 1e11, \"source\": \"datasheet p. 4\","
    " \"kind\": \"datasheet\"}}],"
    " \"interconnect\": {\"topology\": \"none\", \"notes\": \"one device\"},"
    " \"power_modes\": [{\"id\": \"max\", \"default\": true, \"overrides\": {}}]}";

static void shipped_rules(void) {
    char *ok = rl_check_shipped_hardware(shipped_profile);
    CHECK(strstr(ok, "\"ok\":true"), "the shipped test profile must be valid: %s", ok);
    rl_free(ok);
    char *user = rl_check_hardware(base_profile);
    char *user_shipped = rl_check_shipped_hardware(base_profile);
    CHECK(strstr(user, "\"ok\":true") && strstr(user_shipped, "\"bad_hardware\""),
          "plain numbers: fine in a user's profile, refused in a shipped one: %s / %s", user, user_shipped);
    rl_free(user);
    rl_free(user_shipped);
    static const struct { const char *from, *to, *field, *says; bool plain_ok; } cases[] = {
        {"\"kind\": \"datasheet\"}", "\"kind\": \"guess\"}", "clock_hz", "kind", false},
        {", \"kind\": \"datasheet\"}", "}", "clock_hz", "kind", true},
        {"\"source\": \"datasheet p. 3\", ", "", "clock_hz", "source", true},
        {"\"source\": \"datasheet p. 3\"", "\"source\": \"x\"", "clock_hz", "source", true},
        {"\"source\": \"datasheet p. 3\"", "\"source\": 3", "clock_hz", "source", false},
        {"\"source\": \"SMs x 256 FLOP/clk x clock\"", "\"source\": \"calc\"", "compute.fp32.matrix", "say how",
         true},
        {"{\"value\": 1e11, \"source\": \"datasheet p. 4\", \"kind\": \"datasheet\"}", "1e11",
         "memory[0].bandwidth_Bps", "bare number", true},
        {"\"category\": \"edge\"", "\"category\": \"phone\"", "category", "category", true},
        {"\"vendor\": \"rooflens tests\"", "\"vendor\": \" \"", "vendor", "vendor", true},
        {"\"schema\": 1", "\"schema\": 2", "schema", "schema", true},
        {"\"id\": \"s\"", "\"id\": \"S_1\"", "id", "id", true},
        {"\"id\": \"max\"", "\"id\": \"Max Q\"", "power_modes[Max Q].id", "power_modes", true},
        {" \"interconnect\": {\"topology\": \"none\", \"notes\": \"one device\"},", "", "interconnect",
         "interconnect", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *at = strstr(shipped_profile, cases[i].from);
        CHECK(at != NULL, "test setup: '%s' not in the shipped profile", cases[i].from);
        if (!at) continue;
        size_t n = strlen(shipped_profile) + strlen(cases[i].to) + 1;
        char *prof = malloc(n);
        snprintf(prof, n, "%.*s%s%s", (int)(at - shipped_profile), shipped_profile, cases[i].to,
                 at + strlen(cases[i].from));
        char *plain = rl_check_hardware(prof);
        CHECK((strstr(plain, "\"ok\":true") != NULL) == cases[i].plain_ok,
              "'%s' -> '%s': a user's profile must be %s: %s", cases[i].from, cases[i].to,
              cases[i].plain_ok ? "accepted" : "refused", plain);
        char *res = rl_check_shipped_hardware(prof);
        cJSON *r = cJSON_Parse(res);
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
        const char *where = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "where"));
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
        CHECK(where && strstr(where, cases[i].field) && msg && strstr(msg, cases[i].says),
              "'%s' -> '%s': a shipped profile must be refused at %s, saying '%s': %s", cases[i].from, cases[i].to,
              cases[i].field, cases[i].says, res);
        cJSON_Delete(r);
        rl_free(res);
        rl_free(plain);
        free(prof);
    }
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    const char *root = argc > 2 ? argv[2] : "..";
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/hw", root);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    char *names[256];
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) names[n++] = strdup(e->d_name);
    }
    if (d) closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    CHECK(n >= 24, "the library ships %d profiles; the product promises at least 24", n);
    for (int i = 0; i < n; i++) {
        check_profile(dir, names[i]);
        free(names[i]);
    }
    orin_measured_and_dvfs(dir);
    validator_rejects();
    shipped_rules();
    printf("%d profiles, %d modes checked\n", n, n_modes_checked);
    return check_report("profiles");
}
