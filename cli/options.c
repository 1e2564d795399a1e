/* Every option of the rooflens command, once: its name, value, the
 * subcommands it applies to, its help and how its value is stored. The
 * usage text and the parsing (main.c) are read from this table. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum { ALL = CMD_ANALYZE | CMD_DIFF | CMD_BATCH, SEC_MAIN = 0, SEC_STUDY, SEC_LLM, SEC_DIFF, SEC_BATCH, SEC_HELP };

const char *const cli_sections[] = {
    "options",
    "what-if studies (one at a time; a table, or the JSON response with --format json)",
    "LLM inference (a decoder with a KV cache; see docs/llm.md)",
    "diff: what changed from OLD to NEW under the same options (layers matched by name,\n"
    "then by op and position; docs/ci.md); --format table, json, csv or markdown",
    "batch: one row per model (files, or every .onnx under DIR, one at a time); a model\n"
    "that cannot be read, a file that is not a regular file and a folder that cannot be\n"
    "searched are reported in their rows, and the others still come",
    "profiles and help",
};
const size_t cli_n_sections = sizeof cli_sections / sizeof *cli_sections;

void args_free(cli_args *A) {
    cJSON_Delete(A->req);
    cJSON_Delete(A->dims);
    cJSON_Delete(A->llm_req);
    rl_hw_free(A->hw_handle);
    A->hw_handle = NULL;
    free(A->paths);
    A->req = A->dims = A->llm_req = NULL;
    A->paths = NULL;
}

int args_usage_error(cli_args *A, const char *fmt, const char *arg) {
    args_free(A);
    return usage_error(fmt, arg);
}

/* --------------------------------------------------------------- values -- */
/* A whole number from lo to hi, or a usage error naming the option. */
static int whole(cli_args *A, const char *opt, const char *val, long long lo, long long hi, long long *out) {
    char *end;
    long long v = strtoll(val, &end, 10);
    if (end == val || *end || v < lo || v > hi) {
        char msg[128];
        if (hi == LLONG_MAX) snprintf(msg, sizeof msg, "%s needs a whole number of at least %lld, not '%%s'", opt, lo);
        else snprintf(msg, sizeof msg, "%s needs a whole number from %lld to %lld, not '%%s'", opt, lo, hi);
        return args_usage_error(A, msg, val);
    }
    *out = v;
    return ARG_DONE;
}

static int set_top(cli_args *A, const char *val) {
    long long v = 0;
    int rc = whole(A, "--top", val, 0, INT_MAX, &v);
    if (rc == ARG_DONE) A->top = (int)v;
    return rc;
}

static int set_batch(cli_args *A, const char *val) {
    long long v = 0;
    int rc = whole(A, "--batch", val, 1, LLONG_MAX, &v);
    if (rc == ARG_DONE) cJSON_AddNumberToObject(A->req, "batch", (double)v);
    return rc;
}

static int set_dim(cli_args *A, const char *val) {
    const char *eq = strchr(val, '=');
    if (!eq || eq == val) return args_usage_error(A, "--dim needs NAME=VALUE, not '%s'", val);
    long long v = 0;
    int rc = whole(A, "--dim NAME=VALUE", eq + 1, 0, LLONG_MAX, &v);
    if (rc != ARG_DONE) return rc;
    char *name = strndup(val, (size_t)(eq - val)); /* the whole name, however long */
    if (name) cJSON_AddNumberToObject(A->dims, name, (double)v);
    free(name);
    return ARG_DONE;
}

/* --prompt, --generate, --weight-bits, --kv-bits, --weight-group: llm.<key>. */
static int set_llm_count(cli_args *A, const char *opt, const char *key, const char *val) {
    long long v = 0;
    int rc = whole(A, opt, val, 1, LLONG_MAX, &v);
    if (rc != ARG_DONE) return rc;
    cJSON_DeleteItemFromObject(A->llm_req, key);
    cJSON_AddNumberToObject(A->llm_req, key, (double)v);
    return ARG_DONE;
}
static int set_prompt(cli_args *A, const char *v) { return set_llm_count(A, "--prompt", "prompt", v); }
static int set_generate(cli_args *A, const char *v) { return set_llm_count(A, "--generate", "generate", v); }
static int set_weight_bits(cli_args *A, const char *v) { return set_llm_count(A, "--weight-bits", "weight_bits", v); }
static int set_weight_group(cli_args *A, const char *v) { return set_llm_count(A, "--weight-group", "weight_group", v); }
static int set_kv_bits(cli_args *A, const char *v) { return set_llm_count(A, "--kv-bits", "kv_bits", v); }
/* --kv-type: llm.kv_type as given (the core checks the name) */
static int set_kv_type(cli_args *A, const char *v) {
    cJSON_DeleteItemFromObject(A->llm_req, "kv_type");
    cJSON_AddStringToObject(A->llm_req, "kv_type", v);
    return ARG_DONE;
}

/* "batch=NAME,seq=NAME,..." into llm.dims. */
static int parse_llm_dims(cJSON *llm, const char *spec) {
    cJSON *d = cJSON_AddObjectToObject(llm, "dims");
    char *copy = strdup(spec);
    int rc = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) { rc = -1; break; }
        *eq = 0;
        cJSON_DeleteItemFromObject(d, item);
        cJSON_AddStringToObject(d, item, eq + 1);
    }
    free(copy);
    return rc;
}


static int set_llm_dims(cli_args *A, const char *val) {
    if (parse_llm_dims(A->llm_req, val))
        return args_usage_error(A, "--llm-dims needs ROLE=NAME,... with roles batch, seq, past, total, not '%s'", val);
    return ARG_DONE;
}

/* The request's own string options: --power-mode, --precision, --mode, --sol. */
static int set_request(cli_args *A, const char *key, const char *val) {
    cJSON_DeleteItemFromObject(A->req, key);
    cJSON_AddStringToObject(A->req, key, val);
    return ARG_DONE;
}
static int set_power_mode(cli_args *A, const char *v) { return set_request(A, "power_mode", v); }
static int set_precision(cli_args *A, const char *v) { return set_request(A, "precision", v); }
static int set_mode(cli_args *A, const char *v) { return set_request(A, "mode", v); }
static int set_sol(cli_args *A, const char *v) { return set_request(A, "sol", v); }

/* The request's "parallel" object, made on first use: --parallel and
 * --micro-batches both write into it, in either order. */
static cJSON *parallel_req(cli_args *A) {
    cJSON *p = cJSON_GetObjectItemCaseSensitive(A->req, "parallel");
    return p ? p : cJSON_AddObjectToObject(A->req, "parallel");
}

/* "tp=T[,pp=P][,dp=D]" into parallel.tp/pp/dp. */
static int set_parallel(cli_args *A, const char *val) {
    cJSON *p = parallel_req(A);
    char *copy = strdup(val);
    int rc = copy && *copy ? ARG_DONE : args_usage_error(A, "--parallel needs tp=T[,pp=P][,dp=D], not '%s'", val);
    unsigned seen = 0; /* a bit per count: tp, pp, dp */
    for (char *save = NULL, *item = copy ? strtok_r(copy, ",", &save) : NULL; rc == ARG_DONE && item;
         item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (eq) *eq = 0;
        if (!eq || (strcmp(item, "tp") && strcmp(item, "pp") && strcmp(item, "dp"))) {
            rc = args_usage_error(A, "--parallel needs tp=T[,pp=P][,dp=D] (each a whole number), not '%s'", val);
            break;
        }
        unsigned bit = item[0] == 't' ? 1u : item[0] == 'p' ? 2u : 4u;
        if (seen & bit) { /* tp=2,tp=4: neither is taken over the other, as the core refuses it */
            rc = args_usage_error(A, "--parallel gives a count twice: give each of tp, pp and dp once, not '%s'", val);
            break;
        }
        seen |= bit;
        char opt[32];
        snprintf(opt, sizeof opt, "--parallel %s", item);
        long long v = 0;
        rc = whole(A, opt, eq + 1, 1, strcmp(item, "dp") ? 1024 : 65536, &v); /* the core's ranges (docs/api.md) */
        if (rc != ARG_DONE) break;
        cJSON_DeleteItemFromObject(p, item);
        cJSON_AddNumberToObject(p, item, (double)v);
    }
    free(copy);
    return rc;
}

static int set_micro_batches(cli_args *A, const char *val) {
    long long v = 0;
    int rc = whole(A, "--micro-batches", val, 1, 65536, &v);
    if (rc != ARG_DONE) return rc;
    cJSON *p = parallel_req(A);
    cJSON_DeleteItemFromObject(p, "micro_batches");
    cJSON_AddNumberToObject(p, "micro_batches", (double)v);
    return ARG_DONE;
}

static int set_format(cli_args *A, const char *val) {
    int f = cli_format_of(val);
    if (f < 0 || !(cli_formats[f].commands & A->cmd)) {
        char list[128], msg[192];
        cli_format_list(A->cmd, list, sizeof list);
        snprintf(msg, sizeof msg, "--format must be %s, not '%%s'", list);
        return args_usage_error(A, msg, val);
    }
    A->format = (cli_format)f;
    return ARG_DONE;
}

static int set_compare(cli_args *A, const char *v) { A->compare = v, A->studies++; return ARG_DONE; }
static int set_sweep(cli_args *A, const char *v) { A->sweep = v, A->studies++; return ARG_DONE; }
static int set_power_modes(cli_args *A, const char *v) { (void)v, A->power_modes = true, A->studies++; return ARG_DONE; }
static int set_llm(cli_args *A, const char *v) { (void)v, A->llm = true; return ARG_DONE; }
static int set_strict(cli_args *A, const char *v) { (void)v, A->strict = true; return ARG_DONE; }
static int set_explain(cli_args *A, const char *v) { (void)v, A->explain = true; return ARG_DONE; }
static int set_help(cli_args *A, const char *v) { (void)v, A->help = true; return ARG_DONE; }
static int set_version(cli_args *A, const char *v) { (void)v, A->version = true; return ARG_DONE; }

static int set_max_slowdown(cli_args *A, const char *val) {
    char *end;
    double x = strtod(val, &end);
    if (*end || end == val || !isfinite(x))
        return args_usage_error(A, "--max-slowdown needs a finite number (0.05 = 5%% slower), not '%s'", val);
    A->max_slowdown = x;
    return ARG_DONE;
}

/* -------------------------------------------------------------- actions -- */
static int list_hw_action(cli_args *A, int n, char **rest) {
    (void)n, (void)rest;
    return run_list_hw(hw_dir(A->dir));
}
static int check_hw_action(cli_args *A, int n, char **rest) {
    if (n == 0) return usage_error("%s needs at least one profile id or file", "--check-hw");
    return run_check_hw(n, rest, hw_dir(A->dir));
}

/* ---------------------------------------------------------------- table -- */
#define SLOT(field) offsetof(cli_args, field)
const cli_option cli_options[] = {
    {SEC_MAIN, "--hw", "ID|FILE", ALL, "hardware profile id (see --list-hw) or a profile JSON file\n(default h100-sxm)", SLOT(hw), NULL, NULL},
    {SEC_MAIN, "--power-mode", "NAME", ALL, "a power mode of the device (e.g. for jetson-agx-orin)", 0, set_power_mode, NULL},
    {SEC_MAIN, "--batch", "N", ALL, "set every leading symbolic batch dimension to N", 0, set_batch, NULL},
    {SEC_MAIN, "--dim", "NAME=V", ALL, "set the symbolic dimension NAME to V (repeatable)", 0, set_dim, NULL},
    {SEC_MAIN, "--precision", "P", ALL, "model (default: the model's own dtypes) or one of\n{precisions}:\napplies to every floating tensor", 0, set_precision, NULL},
    {SEC_MAIN, "--mode", "M", ALL, "one of {modes} (default inference; training adds\nthe backward pass)", 0, set_mode, NULL},
    {SEC_MAIN, "--sol", "S", ALL, "speed-of-light model for the headline time, one of\n{sols} (default fused)", 0, set_sol, NULL},
    {SEC_MAIN, "--format", "F", ALL, "how the answer is printed:\n{formats}", 0, set_format, NULL},
    {SEC_MAIN, "--measured", "FILE", CMD_ANALYZE, "a profile of the model's real per-kernel times: ONNX Runtime\nprofiling JSON, trtexec --exportProfile JSON or a name,time_s\nCSV (detected); adds measured time, efficiency and the time\nlost to each layer", SLOT(measured), NULL, NULL},
    {SEC_MAIN, "--measured-format", "F", CMD_ANALYZE, "auto (default: told by its content) or one of\n{measured_formats}", SLOT(measured_format), NULL, NULL},
    {SEC_MAIN, "--top", "K", CMD_ANALYZE, "layers shown in the table (default 15; 0 = all)", 0, set_top, NULL},
    {SEC_MAIN, "--explain", NULL, CMD_ANALYZE, "say what the forecast rests on: its track record (the held-out\nruns of the profile's stack, their median and worst error)\nand where they are listed", 0, set_explain, NULL},
    {SEC_MAIN, "--strict", NULL, CMD_ANALYZE, "exit 4 when any operator is unsupported or any shape unknown", 0, set_strict, NULL},
    {SEC_MAIN, "--hw-dir", "DIR", ALL, "where profile ids are looked up (default: $ROOFLENS_HW_DIR,\nelse the hw/ folder rooflens was built with)", SLOT(dir), NULL, NULL},
    {SEC_MAIN, "--parallel", "tp=T[,pp=P][,dp=D]", CMD_ANALYZE, "the model over T x P x D devices linked by the profile's\ninterconnect: tensor (Megatron), pipeline and data parallel;\ncommunication time, bound and memory per device\n(docs/parallel.md)", 0, set_parallel, NULL},
    {SEC_MAIN, "--micro-batches", "M", CMD_ANALYZE, "micro-batches through the pipeline (default 1); the bubble\nis (P-1)/(M+P-1)", 0, set_micro_batches, NULL},
    {SEC_STUDY, "--compare", "LIST", CMD_ANALYZE, "the model on several devices: comma-separated ids or profile\nfiles, each optionally ID:MODE (e.g. h100-sxm,a100-sxm-80gb,\njetson-agx-orin:15w) and @tp=T[+pp=P][+dp=D] for a group of\nT x P x D of that device (h100-sxm,h100-sxm@tp=8: one H100\nagainst eight; docs/parallel.md)", 0, set_compare, NULL},
    {SEC_STUDY, "--sweep-batch", "SPEC", CMD_ANALYZE, "the batch from A to B in powers of two (1..1024) or a comma\nlist (1,8,64): intensity, time and energy per sample, and the\ncritical batch where the model turns compute-bound", 0, set_sweep, NULL},
    {SEC_STUDY, "--power-modes", NULL, CMD_ANALYZE, "every power mode of the --hw device: time, energy, Pareto\nfront and the least-energy mode within --max-slowdown", 0, set_power_modes, NULL},
    {SEC_STUDY, "--max-slowdown", "X", CMD_ANALYZE, "slowdown allowed for the recommendation, as a fraction of\nthe fastest mode's time (default 0.05 = 5%)", 0, set_max_slowdown, NULL},
    {SEC_LLM, "--llm", NULL, CMD_ANALYZE, "prefill and decode phases: time to first token, time per\noutput token, tokens/s, KV cache, memory fit, batch and\ncontext sweeps (--batch sets the batch)", 0, set_llm, NULL},
    {SEC_LLM, "--prompt", "P", CMD_ANALYZE, "prompt tokens (default 512)", 0, set_prompt, NULL},
    {SEC_LLM, "--generate", "G", CMD_ANALYZE, "generated tokens (default 128)", 0, set_generate, NULL},
    {SEC_LLM, "--weight-bits", "B", CMD_ANALYZE, "store matrix weights at 16, 8 or 4 bits (default: the\nmodel's own; MatMulNBits weights keep theirs)", 0, set_weight_bits, NULL},
    {SEC_LLM, "--weight-group", "N", CMD_ANALYZE, "weights per scale for 8 and 4 bits (default 128)", 0, set_weight_group, NULL},
    {SEC_LLM, "--kv-bits", "B", CMD_ANALYZE, "KV cache at 16, 8 or 4 bits (default: the activations')", 0, set_kv_bits, NULL},
    {SEC_LLM, "--kv-type", "T", CMD_ANALYZE, "KV cache as llama.cpp stores it (with its scales), one of\n{kv_types}", 0, set_kv_type, NULL},
    {SEC_LLM, "--llm-dims", "LIST", CMD_ANALYZE, "name the dims by role: batch=NAME,seq=NAME,past=NAME,total=NAME", 0, set_llm_dims, NULL},
    {SEC_DIFF, "--fail-if", "EXPR", CMD_DIFF, "exit 5 when a threshold is crossed, e.g.\n\"time>+5%,flops>+10%,unsupported>0\" (grammar in docs/ci.md)", SLOT(fail_if), NULL, NULL},
    {SEC_DIFF, "--label-old", "S", CMD_DIFF, "the name shown for the old model (default: its path)", SLOT(label_old), NULL, NULL},
    {SEC_DIFF, "--label-new", "S", CMD_DIFF, "the name shown for the new model (default: its path)", SLOT(label_new), NULL, NULL},
    {SEC_DIFF, "--page-url", "URL", CMD_DIFF, "the rooflens page (https://...): with --old-url and --new-url\nthe Markdown links to its graph of the change", SLOT(page_url), NULL, NULL},
    {SEC_DIFF, "--old-url", "URL", CMD_DIFF, "where the page can fetch the old model (https://, CORS)", SLOT(old_url), NULL, NULL},
    {SEC_DIFF, "--new-url", "URL", CMD_DIFF, "where the page can fetch the new model (https://, CORS)", SLOT(new_url), NULL, NULL},
    {SEC_DIFF, "--top", "K", CMD_DIFF, "changed layers shown in table and markdown (default 10;\n0 = as many as the core lists)", 0, set_top, NULL},
    {SEC_DIFF, "--strict", NULL, CMD_DIFF, "exit 4 when the NEW model is incompletely analysed", 0, set_strict, NULL},
    {SEC_HELP, "--list-hw", NULL, ALL, "the hardware profiles of --hw-dir (give --hw-dir first)", 0, NULL, list_hw_action},
    {SEC_HELP, "--check-hw", "ID|FILE...", ALL, "check hardware profiles with the core's validator (every\npower mode; exit 3 when one is refused); --shipped first\nadds the rules of a profile shipped in hw/ (every figure\nwith its source and kind)", 0, NULL, check_hw_action},
    {SEC_HELP, "--version", NULL, ALL, "the version", 0, set_version, NULL},
    {SEC_HELP, "--help", NULL, ALL, "this help (also -h)", 0, set_help, NULL},
    {SEC_HELP, "-h", NULL, ALL, NULL, 0, set_help, NULL},
};
const size_t cli_n_options = sizeof cli_options / sizeof *cli_options;

/* ---------------------------------------------------------- combinations -- */
/* `what` prints a table or JSON only: the usage error names them from the
 * format table, and the format asked for. */
static int table_or_json_only(cli_args *A, const char *what) {
    char msg[160];
    snprintf(msg, sizeof msg, "%s prints a table or JSON (--format %s|%s), not %%s", what,
             cli_format_id(CLI_FORMAT_TABLE), cli_format_id(CLI_FORMAT_JSON));
    return args_usage_error(A, msg, cli_format_id(A->format));
}

/* Whether an option applies to the subcommand is the table's; these are
 * the rules between options. */
int check_combinations(cli_args *A) {
    bool analyze = A->cmd == CMD_ANALYZE;
    if (analyze && A->n_paths > 1 && !is_checkpoint(A->paths, A->n_paths))
        return args_usage_error(A, "one model at a time (got a second: '%s'); 'rooflens diff OLD NEW' compares two; a "
                                   "checkpoint's files go together: config.json *.safetensors [*.index.json]", A->paths[1]);
    if (A->cmd == CMD_DIFF && A->n_paths != 2)
        return args_usage_error(A, "%s", "rooflens diff needs two models: OLD.onnx NEW.onnx");
    if (!A->llm && cJSON_GetArraySize(A->llm_req) > 0)
        return args_usage_error(A, "%s", "--prompt, --generate, --weight-bits, --weight-group, --kv-bits, --kv-type and --llm-dims go with --llm");
    if (A->llm && A->studies)
        return args_usage_error(A, "%s", "--llm is a view of its own: not with --compare, --sweep-batch or --power-modes");
    bool table_or_json = A->format == CLI_FORMAT_TABLE || A->format == CLI_FORMAT_JSON;
    if (A->llm && !table_or_json && A->format != CLI_FORMAT_NETRON) return table_or_json_only(A, "--llm");
    if (A->studies > 1) return args_usage_error(A, "%s", "--compare, --sweep-batch and --power-modes: one study at a time");
    if (!isnan(A->max_slowdown) && !A->power_modes) return args_usage_error(A, "%s", "--max-slowdown goes with --power-modes");
    if (A->studies && !table_or_json) return table_or_json_only(A, "a study");
    if (A->measured_format && !A->measured) return args_usage_error(A, "%s", "--measured-format goes with --measured");
    const cJSON *par = cJSON_GetObjectItemCaseSensitive(A->req, "parallel");
    if (par && !cJSON_GetObjectItemCaseSensitive(par, "tp") && !cJSON_GetObjectItemCaseSensitive(par, "pp") &&
        !cJSON_GetObjectItemCaseSensitive(par, "dp"))
        return args_usage_error(A, "%s", "--micro-batches goes with --parallel (e.g. --parallel tp=2,pp=4)");
    if (A->compare && par && cJSON_GetArraySize(par) > 0)
        return args_usage_error(A, "%s", "--parallel and --micro-batches are for one device's analysis; with --compare give "
                                         "each device its count: ID@tp=T[+pp=P][+dp=D] (e.g. h100-sxm,h100-sxm@tp=8)");
    if (A->measured && A->studies) return args_usage_error(A, "%s", "--measured goes with one analysis, not with a study");
    return ARG_DONE;
}
