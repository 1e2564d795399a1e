/* The words for rooflens's concepts are one list in the core (words.c):
 * rl_words() publishes it whole (every entry named and explained, no
 * concept twice), every value of an enumeration the analysis writes (a
 * model's and a layer's bound, the SOL models and granularities) has its
 * name there, rl_word_name() answers from it, and the page holds no second
 * spelling of a concept that the list names. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdbool.h>

#include "check.h"
#include "rooflens.h"
#include "hw.h"
#include "words.h"

static cJSON *words;

static bool has_word(const char *kind, const char *id) {
    const cJSON *w;
    cJSON_ArrayForEach(w, words) {
        if (!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(w, "kind")), kind) &&
            !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(w, "id")), id))
            return true;
    }
    return false;
}

/* Every entry has its four fields; a (kind, id) and a (kind, name) appear once. */
static void check_published_list(void) {
    char *text = rl_words();
    words = cJSON_Parse(text);
    rl_free(text);
    CHECK(cJSON_IsArray(words) && cJSON_GetArraySize(words) > 0, "rl_words() is a non-empty array");
    int i = 0;
    const cJSON *w;
    cJSON_ArrayForEach(w, words) {
        const char *f[4];
        static const char *const keys[] = {"kind", "id", "name", "meaning"};
        for (int k = 0; k < 4; k++) {
            f[k] = cJSON_GetStringValue(cJSON_GetObjectItem(w, keys[k]));
            CHECK(f[k] && *f[k], "entry %d has a %s", i, keys[k]);
            if (!f[k]) return;
        }
        int j = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, words) {
            if (j++ <= i || strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(v, "kind")), f[0])) continue;
            CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(v, "id")), f[1]), "%s %s listed twice", f[0], f[1]);
            CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(v, "name")), f[2]), "%s name '%s' used twice", f[0],
                  f[2]);
        }
        i++;
    }
    static const char *const glossary[] = {"speed_of_light", "fused", "prefetched", "granularity", "launch_floor",
                                           "power_floor", "forecast"};
    for (size_t k = 0; k < sizeof glossary / sizeof *glossary; k++)
        CHECK(has_word(RL_WORD_TERM, glossary[k]), "the glossary explains %s", glossary[k]);
    /* every op class of the forecast (the one list in hw.c) has its words */
    for (int c = 0; c < RL_CLASS_COUNT; c++)
        CHECK(has_word(RL_WORD_OP_CLASS, rl_value_id(RL_LIST_OP_CLASS, c)), "op class %s has a name", rl_value_id(RL_LIST_OP_CLASS, c));
    /* and both things a forecast can rest on (forecast.basis) */
    CHECK(has_word(RL_WORD_BASIS, "analytic") && has_word(RL_WORD_BASIS, "calibrated"), "the forecast's bases have names");
    /* the words the page's table and summary use without saying them (issue 38 §2) */
    CHECK(has_word(RL_WORD_TERM, "headroom"), "headroom is in the glossary");
    CHECK(has_word(RL_WORD_GRANULARITY, "per_op") && !strcmp(rl_word_name(RL_WORD_GRANULARITY, "per_op"), "kernel by kernel"),
          "kernel by kernel is the per-op granularity's name");
}

/* A bound names its floor as the glossary does: one name per concept. */
static void check_names(void) {
    CHECK(!strcmp(rl_word_name(RL_WORD_BOUND, "overhead"), rl_word_name(RL_WORD_TERM, "launch_floor")),
          "the launch bound is called the launch floor: %s", rl_word_name(RL_WORD_BOUND, "overhead"));
    CHECK(!strcmp(rl_word_name(RL_WORD_BOUND, "power"), rl_word_name(RL_WORD_TERM, "power_floor")),
          "the power bound is called the power floor: %s", rl_word_name(RL_WORD_BOUND, "power"));
    CHECK(!strcmp(rl_word_name(RL_WORD_BOUND, "memory"), "memory bandwidth"), "memory bound named");
    CHECK(!strcmp(rl_word_name(RL_WORD_SOL, "fused_prefetched"), "fused and prefetched"), "SOL model named");
    CHECK(!strcmp(rl_word_name(RL_WORD_BOUND, "new_kind"), "new_kind"), "an unlisted value is shown as it is");
}

/* The table of bounds: every id round-trips, an unlisted one reads as
 * unknown, and each bound is published with a colour of its own. */
static void check_bounds(void) {
    for (int b = 0; b < RL_BOUND_COUNT; b++) {
        const char *id = rl_bound_id((rl_bound)b);
        CHECK(rl_bound_from_id(id) == (rl_bound)b, "bound %s round-trips", id);
        CHECK(has_word(RL_WORD_BOUND, id), "bound %s is in rl_words()", id);
        const char *c = rl_bound_color((rl_bound)b);
        CHECK(c && strlen(c) == 7 && c[0] == '#' && strspn(c + 1, "0123456789abcdef") == 6, "bound %s's colour %s", id, c);
        for (int o = 0; o < b; o++) CHECK(strcmp(c, rl_bound_color((rl_bound)o)), "bounds %s and %s share a colour", id,
                                          rl_bound_id((rl_bound)o));
    }
    CHECK(rl_bound_from_id("new_kind") == RL_BOUND_UNKNOWN && rl_bound_from_id(NULL) == RL_BOUND_UNKNOWN,
          "an id of no bound reads as unknown");
    const cJSON *w;
    int coloured = 0;
    cJSON_ArrayForEach(w, words) {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(w, "kind"));
        const char *color = cJSON_GetStringValue(cJSON_GetObjectItem(w, "color"));
        if (strcmp(kind, RL_WORD_BOUND)) continue;
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(w, "id"));
        CHECK(color && !strcmp(color, rl_bound_color(rl_bound_from_id(id))), "rl_words() gives bound %s its colour", id);
        coloured++;
    }
    CHECK(coloured == RL_BOUND_COUNT, "rl_words() lists %d bounds of %d", coloured, RL_BOUND_COUNT);
}

/* Every list's table: each value's id reads back as that value, no two
 * values share an id or a name, every value is published by rl_words()
 * under its list's kind with its name, an unlisted id reads as none, and
 * a value out of range has no id. */
static void check_lists(void) {
    static const char *const kinds[RL_LIST_COUNT] = {
        [RL_LIST_BOUND] = RL_WORD_BOUND,       [RL_LIST_SOL] = RL_WORD_SOL,
        [RL_LIST_GRANULARITY] = RL_WORD_GRANULARITY, [RL_LIST_OP_CLASS] = RL_WORD_OP_CLASS,
        [RL_LIST_BASIS] = RL_WORD_BASIS,       [RL_LIST_BAND_BASIS] = RL_WORD_BAND_BASIS,
        [RL_LIST_MEASURED_FORMAT] = RL_WORD_MEASURED_FORMAT,
        [RL_LIST_KV_TYPE] = RL_WORD_KV_TYPE, [RL_LIST_MODE] = RL_WORD_MODE};
    static const int counts[RL_LIST_COUNT] = {
        [RL_LIST_BOUND] = RL_BOUND_COUNT,     [RL_LIST_SOL] = RL_SOL_COUNT,
        [RL_LIST_GRANULARITY] = RL_GRAN_COUNT, [RL_LIST_OP_CLASS] = RL_CLASS_COUNT,
        [RL_LIST_BASIS] = RL_BASIS_COUNT,     [RL_LIST_BAND_BASIS] = RL_BAND_BASIS_COUNT,
        [RL_LIST_MEASURED_FORMAT] = RL_PROFILE_COUNT, [RL_LIST_KV_TYPE] = RL_KV_COUNT, [RL_LIST_MODE] = RL_MODE_COUNT};
    for (int l = 0; l < RL_LIST_COUNT; l++)   /* a list added to the core and not here fails, not crashes */
        CHECK(kinds[l] && counts[l] > 0, "test_words knows list %d", l);
    for (int l = 0; l < RL_LIST_COUNT; l++) {
        if (!kinds[l]) continue;
        int published = 0;
        const cJSON *w;
        cJSON_ArrayForEach(w, words) published += !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(w, "kind")), kinds[l]);
        CHECK(published == counts[l], "rl_words() lists %d %s values of %d", published, kinds[l], counts[l]);
        for (int v = 0; v < counts[l]; v++) {
            const char *id = rl_value_id((rl_list)l, v), *name = rl_value_name((rl_list)l, v);
            CHECK(id && name && *id && *name, "%s value %d has an id and a name", kinds[l], v);
            if (!id || !name) continue;
            CHECK(rl_value_of((rl_list)l, id) == v, "%s %s round-trips (%d)", kinds[l], id, rl_value_of((rl_list)l, id));
            CHECK(has_word(kinds[l], id) && !strcmp(rl_word_name(kinds[l], id), name), "%s %s is published as %s",
                  kinds[l], id, name);
            for (int o = 0; o < v; o++)
                CHECK(strcmp(id, rl_value_id((rl_list)l, o)) && strcmp(name, rl_value_name((rl_list)l, o)),
                      "%s values %d and %d share an id or a name", kinds[l], v, o);
        }
        CHECK(rl_value_id((rl_list)l, counts[l]) == NULL && rl_value_id((rl_list)l, -1) == NULL,
              "%s: a value out of range has no id", kinds[l]);
        CHECK(rl_value_of((rl_list)l, "new_kind") == -1 && rl_value_of((rl_list)l, NULL) == -1,
              "%s: an unlisted id is no value", kinds[l]);
        char text[512];
        rl_value_list_text((rl_list)l, text, sizeof text);
        CHECK(strstr(text, rl_value_id((rl_list)l, counts[l] - 1)) != NULL, "%s's list text names its last id: %s",
              kinds[l], text);
    }
}

static void check_value(const cJSON *o, const char *field, const char *kind, const char *where) {
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(o, field));
    if (v) CHECK(has_word(kind, v), "%s: %s \"%s\" has no entry in the list of words", where, field, v);
}

/* Every enumeration value the analysis of a fixture writes has its name. */
static void check_response_values(const char *tests, const char *model, const char *request) {
    char path[2048];
    snprintf(path, sizeof path, "%s/fixtures/models/%s", tests, model);
    size_t len = 0;
    char *bytes = check_read_file(path, &len), *err = NULL;
    CHECK(bytes != NULL, "cannot read %s", path);
    if (!bytes) return;
    rl_model *m = rl_model_read(bytes, len, NULL, &err);
    free(bytes);
    rl_free(err);
    CHECK(m != NULL, "%s reads", model);
    if (!m) return;
    char *out = rl_model_analyze(m, request);
    CHECK(out != NULL, "%s answers", model);
    rl_model_free(m);
    cJSON *res = cJSON_Parse(out);
    rl_free(out);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(res, "ok")), "%s analyses", model);
    const cJSON *sol = cJSON_GetObjectItem(res, "sol"), *s, *layer;
    cJSON_ArrayForEach(s, sol) {
        check_value(s, "model", RL_WORD_SOL, model);
        check_value(s, "bound", RL_WORD_BOUND, model);
        check_value(s, "granularity", RL_WORD_GRANULARITY, model);
    }
    cJSON_ArrayForEach(layer, cJSON_GetObjectItem(res, "layers")) check_value(layer, "bound", RL_WORD_BOUND, model);
    check_value(cJSON_GetObjectItem(res, "forecast"), "basis", RL_WORD_BASIS, model);
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "forecast"), "basis") != NULL, "%s: forecast.basis", model);
    cJSON_Delete(res);
}

/* The page spells no concept of the list in a second way. */
static void check_page_spellings(const char *root) {
    static const char *const others[] = {"kernel launches", "overhead-bound", "launch-bound", "fused + prefetched",
                                         "'power budget'", "estimate for", "measured runs of"};
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/web/js", root);
    DIR *d = opendir(dir);
    CHECK(d != NULL, "cannot open %s", dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 3, ".js")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *text = check_read_file(path, NULL);
        for (size_t k = 0; text && k < sizeof others / sizeof *others; k++)
            CHECK(!strstr(text, others[k]), "web/js/%s spells a concept its own way: \"%s\"", e->d_name, others[k]);
        free(text);
    }
    if (d) closedir(d);
}

int main(int argc, char **argv) {
    const char *tests = argc > 1 ? argv[1] : "../tests", *root = argc > 2 ? argv[2] : "..";
    check_published_list();
    check_names();
    check_bounds();
    check_lists();
    static const char *const models[] = {"mlp.onnx", "conv_net.onnx", "control_flow.onnx"};
    /* A device with a launch cost and a power budget, so every bound can occur. */
    static const char *const options[] = {"", "\"granularity\": \"per_op\", \"sol\": \"unfused\", ",
                                          "\"sol\": \"fused_prefetched\", \"granularity\": \"whole_graph\", "};
    static const char profile[] = "{\"id\": \"t\", \"launch_overhead_s\": 2e-6, \"compute\": {\"fp32\": "
                                  "{\"matrix\": 1e12}}, \"memory\": [{\"bandwidth_Bps\": 1e11}]}";
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            char req[1024];
            snprintf(req, sizeof req, "{%s\"hardware\": %s}", options[j], profile);
            check_response_values(tests, models[i], req);
        }
    check_page_spellings(root);
    cJSON_Delete(words);
    return check_report("words");
}
