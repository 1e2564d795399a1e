/* The conformance rule: how rooflens's answer for one ONNX node-test model
 * (../shared/onnx-node-tests beside the checkout, manifest.json there) is
 * judged against the reference outputs. tests/test_conformance.c (which
 * writes docs/conformance.md) and tools/make-docs/gen_operator_doc.c (the per-operator
 * counts of docs/operators.md) both link this file, so the two documents
 * count by the same rule.
 *
 * Each graph output with a reference shape is compared: element type and every
 * dim. A right output counts as
 *   inferred          when rooflens inferred it from the graph alone;
 *   declared-runtime  when rooflens took the model's declared shape because the
 *                     size depends on a runtime value and the declaration
 *                     agrees with its partial inference (the analysis names the
 *                     tensor in a "declared_consistent" warning).
 * Anything else is a miss; a model takes the worst kind of its outputs.
 * Sequence and optional outputs (no reference shape) are checked for no crash
 * only. */
#ifndef ROOFLENS_CONFORMANCE_RULE_H
#define ROOFLENS_CONFORMANCE_RULE_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Kinds of a model's result, right ones first, then misses worst last. */
enum conf_kind {
    CONF_OK_INFERRED = 0, CONF_OK_DECLARED_RUNTIME, CONF_MISS_RUNTIME_UNKNOWN, CONF_MISS_DECLARED,
    CONF_MISS_WRONG_SHAPE, CONF_MISS_WRONG_DTYPE, CONF_MISS_UNKNOWN_SHAPE, CONF_MISS_UNSUPPORTED,
    CONF_MISS_ANALYSIS_ERROR, CONF_MISS_READ_ERROR, CONF_KIND_COUNT
};

/* What each kind means, for reports. */
extern const char *const conf_kind_names[CONF_KIND_COUNT];

typedef struct conf_verdict {
    int kind;          /* enum conf_kind: the worst over the model's outputs */
    char why[700];     /* what made it that kind ("" when inferred) */
    bool parse_error;  /* the file was read but rooflens refused it */
    int checked_outputs, outputs_inferred, outputs_declared; /* declared: inferred or declared-runtime */
} conf_verdict;

/* The whole file at path, NUL-terminated, malloc'd (caller frees); *len its
 * size when len is given. NULL when it cannot be read. */
char *conf_read_file(const char *path, size_t *len);

/* Reads DIR/manifest.json (a conformance set: the node tests generated from
 * Debian's python3-onnx by tools/make-models/node_tests.py, or the newer set in
 * ../shared/onnx-node-tests). Returns the parsed array (caller cJSON_Delete),
 * or NULL with *present false when the file is missing and true when it is
 * not JSON. */
cJSON *conf_load_manifest(const char *dir, bool *present);

/* Analyses the model of manifest entry `entry` (file under dir), symbolic
 * input dims set from the reference inputs, and judges it into *v. */
void conf_judge(const char *dir, const cJSON *entry, conf_verdict *v);

#endif
