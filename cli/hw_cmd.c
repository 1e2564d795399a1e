/* rooflens --list-hw and --check-hw: the hardware profiles a user can name,
 * and the core's validator run over them. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* --check-hw: each profile through the core's validator (rl_check_hardware,
 * every power mode; rl_check_shipped_hardware after --shipped); one line each. */
int run_check_hw(int n, char **items, const char *dir) {
    bool shipped = n > 0 && !strcmp(items[0], "--shipped");
    if (shipped) n--, items++;
    if (n == 0) return usage_error("%s needs at least one profile id or file", "--check-hw");
    int bad = 0;
    for (int i = 0; i < n; i++) {
        cJSON *j = load_profile(items[i], dir);
        char *text = j ? cJSON_PrintUnformatted(j) : NULL;
        cJSON_Delete(j);
        char *res = !text ? NULL : shipped ? rl_check_shipped_hardware(text) : rl_check_hardware(text);
        free(text);
        cJSON *r = res ? cJSON_Parse(res) : NULL;
        rl_free(res);
        const cJSON *err = get(r, "error");
        if (!r || err) {
            bad++;
            tprintf("FAIL %s: %s [%s]\n", txt(items[i]), err ? tstr(err, "message") : "not readable",
                   err ? tstr(err, "where") : "");
        } else {
            char b[32] = "unknown";
            if (cJSON_IsNumber(get(r, "power_budget_w"))) eng(num(r, "power_budget_w"), "W", b, sizeof b);
            tprintf("ok   %-20s %d power modes; power budget %s; energy %s\n", tstr(r, "id"),
                   cJSON_GetArraySize(get(r, "modes")), b, str(r, "energy_model")[0] ? tstr(r, "energy_model") : "none");
        }
        cJSON_Delete(r);
    }
    return bad ? EXIT_BAD_MODEL : EXIT_OK;
}

/* --list-hw: every profile of the folder, sorted by file name, with its
 * power modes; a file that is not a readable profile is said on stderr. */
int run_list_hw(const char *dir) {
    name_list names;
    const char *why = NULL;
    if (list_folder(dir, &names, &why)) {
        fprintf(stderr, "rooflens: cannot list the hardware folder %s: %s\n", txt(dir), why);
        return EXIT_USAGE;
    }
    for (int i = 0; i < names.n; i++) {
        size_t len = strlen(names.names[i]);
        if (len <= 5 || strcmp(names.names[i] + len - 5, ".json")) continue;
        size_t plen = strlen(dir) + len + 2;
        char *path = malloc(plen);
        if (!path) break;
        snprintf(path, plen, "%s/%s", dir, names.names[i]);
        char problem[256];
        char *text = read_text(path, problem, sizeof problem);
        if (!text) {
            fprintf(stderr, "rooflens: %s: %s: left out\n", txt(path), problem);
            free(path);
            continue;
        }
        cJSON *j = cJSON_Parse(text);
        const cJSON *modes = get(j, "power_modes"), *m;
        if (cJSON_IsString(get(j, "id"))) {
            tprintf("%-22s %s", tstr(j, "id"), tstr(j, "name"));
            if (cJSON_GetArraySize(modes) > 0) {
                tprintf("  [power modes:");
                cJSON_ArrayForEach(m, modes) if (cJSON_IsString(get(m, "id"))) tprintf(" %s", tstr(m, "id"));
                tprintf("]");
            }
            tprintf("\n");
        } else {
            fprintf(stderr, "rooflens: %s is not a hardware profile (no \"id\"): left out\n", txt(path));
        }
        cJSON_Delete(j);
        free(text);
        free(path);
    }
    name_list_free(&names);
    return EXIT_OK;
}
