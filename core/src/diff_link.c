/* The page's link to the graph of a diff (diff_match.h): diff.page_link,
 * which the Markdown of a pull-request comment shows when the page's and
 * both models' addresses are given (diff.page_url, old_url, new_url). It
 * is the link web/js/state.js reads: both models, the device and the
 * options of the request, the graph showing the change (dview=change). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff_match.h"
#include "json.h"

bool rl_diff_url_ok(const char *u) {
    bool ok = u && !strncmp(u, "https://", 8) && strlen(u) > 8 && strlen(u) <= RL_DIFF_MAX_URL;
    /* it goes into a Markdown link as it is: nothing that could end or escape it */
    for (const char *c = u; ok && *c; c++) ok = *c > ' ' && *c < 0x7f && !strchr("\"'<>()[]{}`\\^|#", *c);
    return ok;
}

/* `s` percent-encoded (all but A-Z a-z 0-9 - . _ ~), as URLSearchParams reads it back. */
static void put_encoded(rl_json_text *b, const char *s) {
    char hex[4];
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("-._~", c))
            rl_json_text_put(b, s, 1);
        else snprintf(hex, sizeof hex, "%%%02X", c), rl_json_text_put(b, hex, 3);
    }
}

static void put_param(rl_json_text *t, const char *key, const char *value) {
    rl_json_text_put(t, "&", 1);
    rl_json_text_put(t, key, strlen(key));
    rl_json_text_put(t, "=", 1);
    put_encoded(t, value);
}

char *rl_diff_page_link(const cJSON *req, const char *page, const char *old_url, const char *new_url, const char *hw_id) {
    rl_json_text t = {0};
    rl_json_text_put(&t, page, strlen(page));
    rl_json_text_put(&t, "#model=", 7);
    put_encoded(&t, old_url);
    /* a profile the page does not know is named in its notice and left at its default there */
    if (hw_id && hw_id[0]) put_param(&t, "hw", hw_id);
    static const char *const keys[][2] = {{"power_mode", "pm"}, {"precision", "prec"}, {"mode", "mode"}, {"sol", "sol"},
                                          {"granularity", "gran"}};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        const char *v = cJSON_GetStringValue(rl_json_get(req, keys[k][0]));
        if (v) put_param(&t, keys[k][1], v);
    }
    double batch = rl_json_get_num(req, "batch");
    char num[40];
    if (batch >= 1 && batch <= 1e9 && batch == floor(batch)) {
        snprintf(num, sizeof num, "%.0f", batch);
        put_param(&t, "batch", num);
    }
    put_param(&t, "vs", new_url);
    put_param(&t, "dview", "change");
    return rl_json_text_finish(&t);
}
