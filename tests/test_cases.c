/* Data-driven tests: each JSON file in tests/cases/ is a list of cases
 *   {"name", "model" (under tests/fixtures), "request" (merged over the unit
 *    hardware profile), "expect": {"layers": {NAME: partial layer},
 *    "totals": {...}, "sol": {...}, "roofline": {...}, "model": {...},
 *    "warnings": [codes that must appear], "no_warnings": [codes that must not],
 *    "error": code}, "tol": relative tolerance (default 1e-6)}
 * Expected objects match partially: every key given must be there and equal. */
#include <cjson/cJSON.h>

#include "check.h"
#include "check_model.h"
#include "rooflens.h"

static const char *fixtures_dir;
static char *unit_hw;

static int match(const cJSON *want, const cJSON *got, double tol, const char *path, char *why, size_t cap) {
    if (cJSON_IsNumber(want)) {
        if (!cJSON_IsNumber(got)) { snprintf(why, cap, "%s: want %g, got non-number", path, want->valuedouble); return 0; }
        if (!check_close(got->valuedouble, want->valuedouble, tol)) {
            snprintf(why, cap, "%s: want %.10g, got %.10g", path, want->valuedouble, got->valuedouble);
            return 0;
        }
        return 1;
    }
    if (cJSON_IsString(want)) {
        if (!cJSON_IsString(got) || strcmp(want->valuestring, got->valuestring)) {
            snprintf(why, cap, "%s: want \"%s\", got %s", path, want->valuestring, cJSON_IsString(got) ? got->valuestring : "non-string");
            return 0;
        }
        return 1;
    }
    if (cJSON_IsBool(want) || cJSON_IsNull(want)) {
        if (!got || (got->type & 0xff) != (want->type & 0xff)) { snprintf(why, cap, "%s: boolean/null differs", path); return 0; }
        return 1;
    }
    if (cJSON_IsArray(want)) {
        if (!cJSON_IsArray(got) || cJSON_GetArraySize(got) != cJSON_GetArraySize(want)) {
            snprintf(why, cap, "%s: want an array of %d, got %d", path, cJSON_GetArraySize(want), cJSON_IsArray(got) ? cJSON_GetArraySize(got) : -1);
            return 0;
        }
        for (int i = 0; i < cJSON_GetArraySize(want); i++) {
            char p[512];
            snprintf(p, sizeof p, "%s[%d]", path, i);
            if (!match(cJSON_GetArrayItem(want, i), cJSON_GetArrayItem(got, i), tol, p, why, cap)) return 0;
        }
        return 1;
    }
    if (cJSON_IsObject(want)) {
        if (!cJSON_IsObject(got)) { snprintf(why, cap, "%s: want an object", path); return 0; }
        const cJSON *w;
        cJSON_ArrayForEach(w, want) {
            char p[512];
            snprintf(p, sizeof p, "%s.%s", path, w->string);
            if (!match(w, cJSON_GetObjectItemCaseSensitive(got, w->string), tol, p, why, cap)) return 0;
        }
        return 1;
    }
    return 1;
}

static const cJSON *find_layer(const cJSON *res, const char *name) {
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(res, "layers")) {
        const cJSON *n = cJSON_GetObjectItem(l, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0) return l;
    }
    return NULL;
}

static int has_warning(const cJSON *res, const char *code) {
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItem(res, "warnings")) {
        const cJSON *c = cJSON_GetObjectItem(w, "code");
        if (cJSON_IsString(c) && strcmp(c->valuestring, code) == 0) return 1;
    }
    return 0;
}

static void run_case(const cJSON *tc) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(tc, "name"));
    const char *model = cJSON_GetStringValue(cJSON_GetObjectItem(tc, "model"));
    if (!name) name = model ? model : "(unnamed)";
    const cJSON *tolj = cJSON_GetObjectItem(tc, "tol");
    double tol = cJSON_IsNumber(tolj) ? tolj->valuedouble : 1e-6;
    cJSON *res = check_run_case(tc, fixtures_dir, unit_hw, name);
    if (!res) return;
    const cJSON *expect = cJSON_GetObjectItem(tc, "expect");
    const char *want_err = cJSON_GetStringValue(cJSON_GetObjectItem(expect, "error"));
    int ok = cJSON_IsTrue(cJSON_GetObjectItem(res, "ok"));
    char why[1024] = "";
    if (want_err) {
        const char *code = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "error"), "code"));
        CHECK(!ok && code && strcmp(code, want_err) == 0, "%s: want error %s, got %s", name, want_err,
              ok ? "success" : (code ? code : "?"));
    } else {
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(res, "error"), "message"));
        CHECK(ok, "%s: analysis failed: %s", name, msg ? msg : "?");
        if (ok) {
            const cJSON *item;
            cJSON_ArrayForEach(item, expect) {
                if (!strcmp(item->string, "layers")) {
                    const cJSON *lw;
                    cJSON_ArrayForEach(lw, item) {
                        const cJSON *lg = find_layer(res, lw->string);
                        CHECK(lg != NULL, "%s: no layer named %s", name, lw->string);
                        if (lg) {
                            char p[256];
                            snprintf(p, sizeof p, "layers[%s]", lw->string);
                            CHECK(match(lw, lg, tol, p, why, sizeof why), "%s: %s", name, why);
                        }
                    }
                } else if (!strcmp(item->string, "warnings")) {
                    const cJSON *c;
                    cJSON_ArrayForEach(c, item) CHECK(has_warning(res, c->valuestring), "%s: no warning %s", name, c->valuestring);
                } else if (!strcmp(item->string, "no_warnings")) {
                    const cJSON *c;
                    cJSON_ArrayForEach(c, item) CHECK(!has_warning(res, c->valuestring), "%s: unexpected warning %s", name, c->valuestring);
                } else {
                    CHECK(match(item, cJSON_GetObjectItem(res, item->string), tol, item->string, why, sizeof why), "%s: %s", name, why);
                }
            }
        }
    }
    cJSON_Delete(res);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: test_cases CASES.json FIXTURES_DIR UNIT_HW.json\n");
        return 2;
    }
    fixtures_dir = argv[2];
    unit_hw = check_read_file(argv[3], NULL);
    char *text = check_read_file(argv[1], NULL);
    cJSON *cases = text ? cJSON_Parse(text) : NULL;
    CHECK(cJSON_IsArray(cases), "%s is not a JSON array of cases", argv[1]);
    const cJSON *tc;
    cJSON_ArrayForEach(tc, cases) run_case(tc);
    cJSON_Delete(cases);
    free(text);
    free(unit_hw);
    return check_report(argv[1]);
}
