/* Every shipped hardware profile (hw/*.json) must load in the core
 * (rl_check_hardware, and rl_hw_parse for each power mode) and follow the
 * rules of hw/schema.json and hw/README.md: every figure is
 * {value > 0, source, kind}; estimated and derived figures say how; units
 * are sane (on-chip levels faster than main memory, matrix peak >= vector
 * peak); the id is the file name. hw/check_profiles.py checks the same rules
 * from Python; this test runs them under ctest. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdbool.h>

#include "check.h"
#include "hw.h"
#include "rooflens.h"

static const char *const kinds[] = {"datasheet", "measured", "estimated", "derived"};
static const char *const categories[] = {"datacenter-gpu", "consumer-gpu", "edge", "tpu", "cpu", "apple"};

static bool in_list(const char *s, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s && strcmp(s, list[i]) == 0) return true;
    return false;
}

/* A figure: {"value": number > 0, "source": text, "kind": one of kinds}.
 * Returns the value (NAN when malformed). */
static double figure(const char *file, const char *where, const cJSON *f) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(f, "value");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(f, "source");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(f, "kind");
    CHECK(cJSON_IsObject(f), "%s %s: a figure must be {value, source, kind}", file, where);
    CHECK(cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble > 0, "%s %s: value must be a number > 0",
          file, where);
    CHECK(cJSON_IsString(src) && strlen(src->valuestring) >= 4, "%s %s: source missing", file, where);
    CHECK(cJSON_IsString(kind) && in_list(kind->valuestring, kinds, 4),
          "%s %s: kind must be datasheet, measured, estimated or derived", file, where);
    if (cJSON_IsString(kind) && cJSON_IsString(src) &&
        (!strcmp(kind->valuestring, "estimated") || !strcmp(kind->valuestring, "derived")))
        CHECK(strlen(src->valuestring) >= 12, "%s %s: a %s figure must say how in its source", file, where,
              kind->valuestring);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void compute_block(const char *file, const char *where, const cJSON *c, bool partial) {
    const cJSON *prec;
    cJSON_ArrayForEach(prec, c) {
        char w[256];
        CHECK(rl_precision_parse(prec->string) >= 0, "%s %s: unknown precision '%s'", file, where, prec->string);
        double m = NAN, v = NAN;
        const cJSON *mj = cJSON_GetObjectItemCaseSensitive(prec, "matrix");
        const cJSON *vj = cJSON_GetObjectItemCaseSensitive(prec, "vector");
        snprintf(w, sizeof w, "%s.%s.matrix", where, prec->string);
        if (mj) m = figure(file, w, mj);
        else CHECK(partial, "%s %s: missing", file, w);
        snprintf(w, sizeof w, "%s.%s.vector", where, prec->string);
        if (vj) v = figure(file, w, vj);
        else CHECK(partial, "%s %s: missing", file, w);
        if (mj && vj) CHECK(m >= v, "%s %s.%s: matrix peak below vector peak", file, where, prec->string);
    }
}

static void memory_block(const char *file, const char *where, const cJSON *mem, bool partial) {
    int i = 0;
    const cJSON *lvl;
    cJSON_ArrayForEach(lvl, mem) {
        char w[256];
        snprintf(w, sizeof w, "%s[%d]", where, i);
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(lvl, "name");
        CHECK(partial || (cJSON_IsString(nm) && nm->valuestring[0]), "%s %s: a level needs a name", file, w);
        static const char *const keys[] = {"bandwidth_Bps", "capacity_bytes"};
        for (int k = 0; k < 2; k++) {
            char wk[300];
            snprintf(wk, sizeof wk, "%s.%s", w, keys[k]);
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(lvl, keys[k]);
            if (f) figure(file, wk, f);
            else CHECK(partial, "%s %s: missing", file, wk);
        }
        i++;
    }
    CHECK(partial || i >= 1, "%s %s: needs at least main memory", file, where);
}

static void energy_block(const char *file, const char *where, const cJSON *e, bool partial) {
    static const char *const keys[] = {"flop_j", "byte_j", "static_w"};
    for (int k = 0; k < 3; k++) {
        char w[256];
        snprintf(w, sizeof w, "%s.%s", where, keys[k]);
        const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, keys[k]);
        if (f) figure(file, w, f);
        else CHECK(partial, "%s %s: missing", file, w);
    }
}

/* Physical sanity of the figures the core reads for one mode. */
static void effective(const char *file, const char *mode, const rl_hw *hw) {
    for (int i = 1; i < hw->n_mem; i++)
        CHECK(hw->mem_bw[i] > hw->mem_bw[0], "%s mode %s: memory level %d (%s) is not faster than main memory",
              file, mode, i, hw->mem_name[i] ? hw->mem_name[i] : "?");
    for (int i = 1; i < hw->n_mem; i++)
        CHECK(hw->mem_cap[i] < hw->mem_cap[0], "%s mode %s: on-chip level %d holds more than main memory", file, mode, i);
    /* bandwidth 1 GB/s..100 TB/s, peaks 1 GFLOP/s..100 PFLOP/s, launch under 1 ms,
     * energy 0.01..100 pJ/FLOP, 1..2000 pJ/B, static 0..2 kW */
    CHECK(hw->mem_bw[0] > 1e9 && hw->mem_bw[0] < 1e14, "%s mode %s: main bandwidth %g B/s out of range", file, mode, hw->mem_bw[0]);
    for (int p = 0; p < RL_P_COUNT; p++)
        if (hw->matrix[p] > 0)
            CHECK(hw->matrix[p] > 1e9 && hw->matrix[p] < 1e17, "%s mode %s: %s peak %g out of range", file, mode,
                  rl_precision_name(p), hw->matrix[p]);
    CHECK(hw->launch_s < 1e-3, "%s mode %s: launch overhead %g s", file, mode, hw->launch_s);
    if (hw->has_energy) {
        CHECK(hw->e_flop > 1e-14 && hw->e_flop < 1e-10, "%s mode %s: %g J/FLOP out of range", file, mode, hw->e_flop);
        CHECK(hw->e_byte > 1e-12 && hw->e_byte < 2e-9, "%s mode %s: %g J/B out of range", file, mode, hw->e_byte);
        CHECK(hw->static_w >= 0 && hw->static_w < 2000, "%s mode %s: static %g W", file, mode, hw->static_w);
    }
}

static void check_profile(const char *dir, const char *name) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = check_read_file(path, NULL);
    CHECK(text != NULL, "cannot read %s", path);
    if (!text) return;
    char *res = rl_check_hardware(text);
    CHECK(strstr(res, "\"ok\":true") != NULL, "%s: the core rejects it: %s", name, res);
    rl_free(res);
    cJSON *p = cJSON_Parse(text);
    free(text);
    if (!p) return;

    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(name) - 5), name);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(p, "schema");
    CHECK(cJSON_IsNumber(schema) && schema->valuedouble == 1, "%s: schema must be 1", name);
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
    CHECK(cJSON_IsString(id) && strcmp(id->valuestring, stem) == 0, "%s: id must be the file name '%s'", name, stem);
    static const char *const texts[] = {"name", "vendor"};
    for (int k = 0; k < 2; k++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, texts[k]);
        CHECK(cJSON_IsString(t) && t->valuestring[0], "%s: '%s' must be a non-empty string", name, texts[k]);
    }
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(p, "category");
    CHECK(cJSON_IsString(cat) && in_list(cat->valuestring, categories, 6), "%s: unknown category", name);
    figure(name, "clock_hz", cJSON_GetObjectItemCaseSensitive(p, "clock_hz"));
    figure(name, "launch_overhead_s", cJSON_GetObjectItemCaseSensitive(p, "launch_overhead_s"));
    compute_block(name, "compute", cJSON_GetObjectItemCaseSensitive(p, "compute"), false);
    memory_block(name, "memory", cJSON_GetObjectItemCaseSensitive(p, "memory"), false);
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(p, "energy");
    if (en) energy_block(name, "energy", en, false);

    rl_hw hw;
    rl_error err = {0};
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(p, "power_modes");
    if (!modes) {
        CHECK(rl_hw_parse(p, NULL, &hw, &err) == 0, "%s: %s", name, err.message);
        effective(name, "(none)", &hw);
    }
    int defaults = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, modes) {
        const cJSON *mid = cJSON_GetObjectItemCaseSensitive(m, "id");
        const cJSON *mname = cJSON_GetObjectItemCaseSensitive(m, "name");
        CHECK(cJSON_IsString(mid) && cJSON_IsString(mname), "%s: a power mode needs id and name", name);
        if (!cJSON_IsString(mid)) continue;
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "default"))) defaults++;
        const cJSON *ov = cJSON_GetObjectItemCaseSensitive(m, "overrides");
        CHECK(cJSON_IsObject(ov), "%s mode %s: needs an overrides object", name, mid->valuestring);
        char w[256];
        snprintf(w, sizeof w, "power_modes[%s].overrides", mid->valuestring);
        if (cJSON_GetObjectItemCaseSensitive(ov, "clock_hz")) figure(name, w, cJSON_GetObjectItem(ov, "clock_hz"));
        if (cJSON_GetObjectItemCaseSensitive(ov, "launch_overhead_s"))
            figure(name, w, cJSON_GetObjectItem(ov, "launch_overhead_s"));
        if (cJSON_GetObjectItemCaseSensitive(ov, "compute")) compute_block(name, w, cJSON_GetObjectItem(ov, "compute"), true);
        if (cJSON_GetObjectItemCaseSensitive(ov, "memory")) memory_block(name, w, cJSON_GetObjectItem(ov, "memory"), true);
        if (cJSON_GetObjectItemCaseSensitive(ov, "energy")) energy_block(name, w, cJSON_GetObjectItem(ov, "energy"), true);
        memset(&err, 0, sizeof err);
        CHECK(rl_hw_parse(p, mid->valuestring, &hw, &err) == 0, "%s mode %s: %s", name, mid->valuestring, err.message);
        effective(name, mid->valuestring, &hw);
    }
    if (modes) CHECK(defaults == 1, "%s: exactly one power mode must be the default (found %d)", name, defaults);
    cJSON_Delete(p);
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
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 && strcmp(e->d_name, "schema.json") != 0)
            names[n++] = strdup(e->d_name);
    }
    if (d) closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    CHECK(n >= 24, "the library ships %d profiles; the product promises at least 24", n);
    for (int i = 0; i < n; i++) {
        check_profile(dir, names[i]);
        free(names[i]);
    }
    /* the checker must catch what it claims to: a broken profile fails */
    int before = check_failed;
    char *res = rl_check_hardware("{\"id\": \"x\", \"compute\": {\"fp32\": {\"matrix\": -1}}, \"memory\": []}");
    bool rejected = strstr(res, "\"ok\":false") != NULL;
    rl_free(res);
    check_failed = before;
    CHECK(rejected, "rl_check_hardware must reject a negative peak and no memory");
    printf("%d profiles checked\n", n);
    return check_report("profiles");
}
