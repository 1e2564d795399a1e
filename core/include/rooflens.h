/*
 * rooflens — where the time and the energy of an ONNX model go.
 *
 * OVERVIEW
 *
 *   The library reads an ONNX model (or a GGUF file, a Hugging Face
 *   config.json or a safetensors checkpoint, built into the same decoder
 *   graph: docs/gguf.md, docs/checkpoints.md), infers every tensor shape, counts each
 *   node's work (FLOPs, split into matrix-unit and vector-unit work) and
 *   traffic (bytes read and written), and places every node and the whole
 *   graph on the time and energy rooflines of a hardware profile.
 *
 *   Everything crosses this API as JSON text, so the command-line tool and the
 *   WebAssembly build call exactly the same functions:
 *
 *     request JSON  ──►  rl_model_analyze()  ──►  response JSON
 *
 *   Reading a model is separate from analysing it: a model is read once
 *   (possibly streamed in chunks) into an rl_model, then analysed as often as
 *   the caller likes with different hardware, precision, batch size, ...
 *   A hardware profile may be read once too, into an rl_hw (HARDWARE
 *   PROFILES below), and handed to every analysis instead of its text.
 *
 * READING
 *
 *   The reader walks the protobuf wire format and keeps only the graph's
 *   skeleton: tensor payloads (weights) are dropped as they stream past, so
 *   memory does not grow with the weight size. When the reader meets a
 *   payload it reports how many of the coming bytes it will ignore; a caller
 *   that can seek (a file, a browser File.slice) may jump over them instead
 *   of feeding them.
 *
 * OWNERSHIP
 *
 *   - rl_reader_new() returns a reader the caller frees with rl_reader_free(),
 *     whatever happened to it.
 *   - rl_reader_finish() returns a model the caller frees with rl_model_free().
 *     The reader is spent after it (free it).
 *   - Every `char *` returned by this library is a NUL-terminated JSON string
 *     the caller frees with rl_free().
 *   - No function keeps a pointer to the caller's buffers after it returns.
 *   - Errors come back as values, never through globals: a reader or model
 *     holds its own last error, and JSON responses carry
 *     {"ok": false, "error": {"code", "message", "where"}}.
 *
 * WORKED EXAMPLE
 *
 *   rl_reader *r = rl_reader_new(NULL);
 *   uint8_t buf[65536];
 *   size_t n;
 *   while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
 *       int64_t skip = rl_reader_feed(r, buf, n);
 *       if (skip < 0) break;                       // error; see below
 *       if (skip > 0 && fseeko(f, skip, SEEK_CUR) == 0)
 *           rl_reader_skip(r, (uint64_t)skip);     // weights never read
 *   }
 *   char *err = NULL;
 *   rl_model *m = rl_reader_finish(r, &err);       // NULL on error, err set
 *   rl_reader_free(r);
 *   if (!m) { puts(err); rl_free(err); return; }
 *   char *out = rl_model_analyze(m,
 *       "{\"hardware\": {...profile JSON...}, \"precision\": \"fp16\","
 *       " \"dims\": {\"batch\": 8}}");
 *   puts(out);                                     // {"ok": true, ...}
 *   rl_free(out);
 *   rl_model_free(m);
 *
 *   The request and response formats are documented in docs/api.md.
 */
#ifndef ROOFLENS_H
#define ROOFLENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROOFLENS_VERSION "0.1.0"
#define ROOFLENS_SCHEMA 1

typedef struct rl_reader rl_reader;
typedef struct rl_model rl_model;
typedef struct rl_hw rl_hw;

/* Resource limits. Any field left 0 takes its default (see docs/api.md). */
typedef struct rl_limits {
    uint64_t max_skeleton_bytes; /* bytes of graph structure kept after payloads are dropped */
    uint64_t max_nodes;          /* nodes in all graphs together */
    uint32_t max_depth;          /* nesting of messages and subgraphs */
    uint32_t max_rank;           /* dimensions of one tensor */
    uint64_t max_string_bytes;   /* one name, op type or doc string */
    uint64_t keep_payload_bytes; /* payloads up to this size are kept (shape operands, scalars) */
} rl_limits;

/* A new reader. `limits` may be NULL for the defaults; it is copied. */
rl_reader *rl_reader_new(const rl_limits *limits);

/* Feed the next `len` bytes of the file. Returns the number of bytes that
 * follow this chunk which the reader will ignore anyway (0 when none): the
 * caller may skip them and call rl_reader_skip(), or simply keep feeding.
 * Returns -1 on error (the reader keeps the error for rl_reader_finish). */
int64_t rl_reader_feed(rl_reader *r, const void *bytes, size_t len);

/* Tell the reader the caller skipped `n` bytes it was told it could skip.
 * Returns 0, or -1 on error: n exceeds what may be skipped, or the skipped
 * bytes end a message the model got wrong (rl_reader_finish reports it). */
int rl_reader_skip(rl_reader *r, uint64_t n);

/* Bytes of the file consumed so far (fed or skipped). */
uint64_t rl_reader_offset(const rl_reader *r);

/* End of file: decode the skeleton into a model. Returns NULL on error and
 * sets *error_json (if error_json is not NULL) to {"ok": false, "error": ...}
 * which the caller frees with rl_free(). */
rl_model *rl_reader_finish(rl_reader *r, char **error_json);

void rl_reader_free(rl_reader *r);

/* Read a whole in-memory file at once (the same as feeding it in one chunk). */
rl_model *rl_model_read(const void *bytes, size_t len, const rl_limits *limits, char **error_json);

/* HUGGING FACE CHECKPOINTS (docs/checkpoints.md)
 *
 *   A checkpoint is several files: config.json, one or more .safetensors
 *   shards and, when sharded, model.safetensors.index.json. It is read into
 *   the decoder a GGUF file becomes, each weight at its stored dtype and
 *   exact bytes (FP8 with its scales, GPTQ/AWQ int4 codes with theirs).
 *   Only the shards' headers are read, never their weights:
 *
 *     rl_checkpoint *c = rl_checkpoint_new(NULL);
 *     for each file (name, size):
 *         n = min(size, 8); read its first n bytes into buf;
 *         need = rl_checkpoint_need(name, size, buf, n);  // 0: not part of the model
 *         if (need == 0) continue;                        // tokenizer.json, README.md ...
 *         read its first min(need, size) bytes into buf;  // a shard: 8 + its header
 *         rl_checkpoint_add(c, name, size, buf, that many);
 *     rl_model *m = rl_checkpoint_finish(c, &err);        // NULL on error, err set
 *     rl_checkpoint_free(c);
 *
 *   A file is told by its name (folders stripped): "*.safetensors" a shard,
 *   "*.safetensors.index.json" the index, "config.json" the config; any
 *   other needs 0 bytes and rl_checkpoint_add passes it over. config.json
 *   alone is the model sized from its config, as rl_model_read reads it.
 *
 *   Ownership: rl_checkpoint_add copies what it keeps (the JSON files'
 *   text, each header's tensor list) and keeps no pointer to the caller's
 *   bytes. It returns 0, or -1 for a refused file: the error is kept and
 *   reported by rl_checkpoint_finish, later files are ignored.
 *   rl_checkpoint_finish returns a model (rl_model_free) or NULL with
 *   *error_json set ({"ok": false, "error": {code, message, where}}); the
 *   checkpoint is spent after it. rl_checkpoint_free frees it whatever
 *   happened. */
typedef struct rl_checkpoint rl_checkpoint;
rl_checkpoint *rl_checkpoint_new(const rl_limits *limits);
/* How many of the file's first bytes rl_checkpoint_add needs, given its
 * first n (n >= 8 when the file has them): a shard's 8 + header length, a
 * JSON file's whole size (1 for an empty one, which rl_checkpoint_add then
 * refuses as empty), 0 for a file the checkpoint does not use. */
uint64_t rl_checkpoint_need(const char *name, uint64_t size, const void *first, size_t n);
int rl_checkpoint_add(rl_checkpoint *c, const char *name, uint64_t size, const void *bytes, size_t len);
rl_model *rl_checkpoint_finish(rl_checkpoint *c, char **error_json);
void rl_checkpoint_free(rl_checkpoint *c);

/* Describe the model without hardware: name, opsets, inputs with their
 * symbolic dims. Returns JSON; free with rl_free(). */
char *rl_model_info(rl_model *m);

/* Analyse the model under the options of `request_json` (hardware profile,
 * precision, dims, mode, ...). Returns {"ok": true, ...} or
 * {"ok": false, "error": ...}. If memory runs out at any point, the answer is
 * an out_of_memory error, never a partial "ok" response; NULL only when not
 * even that short error (a few hundred bytes) can be allocated. The model is
 * unchanged and may be analysed again. Free the result with rl_free(). */
char *rl_model_analyze(rl_model *m, const char *request_json);
/* The same answer and, in *size, its length in bytes. That is the text's
 * length, except for "layers": "packed", whose per-layer numbers, codes and
 * list ends follow the text's NUL as doubles (the packed_bytes of the layer
 * table and then of its tensor table, from the first multiple of 8 bytes;
 * docs/api.md): *size then counts them too. A face that copies the answer
 * out (the WebAssembly worker) copies *size bytes. */
char *rl_model_analyze_sized(rl_model *m, const char *request_json, size_t *size);
/* Whether an answer of this API is {"ok": true, ...}: read from its
 * first bytes, where every answer puts "ok" (docs/api.md). */
bool rl_answer_ok(const char *answer);
/* The same answer written to `write` in pieces instead of returned: the
 * bytes rl_model_analyze_sized gives, in the same order, handed over as they
 * are made. With the rows layout (the default "layers"), the layer rows,
 * most of a big answer, go out in pieces of about 64 KB while the analysis
 * holds only the piece being written; other layouts and error answers go
 * out in one piece. `write(ctx, bytes, n)` returns 0 to go on; anything else
 * stops the writing, and the answer is then cut short. Returns 0 when the
 * whole answer was written, -1 when `write` stopped it or memory ran out
 * after the first piece went out (before that, the out_of_memory answer is
 * written instead). *answered_ok (may be NULL) says whether the answer is
 * {"ok": true, ...}. The model is unchanged, as with rl_model_analyze. */
typedef int (*rl_write_fn)(void *ctx, const char *bytes, size_t n);
int rl_model_analyze_write(rl_model *m, const char *request_json, rl_write_fn write, void *ctx, bool *answered_ok);

void rl_model_free(rl_model *m);

/* ---- HARDWARE PROFILES
 *
 * A request names its device with a "hardware" profile (hw/README.md)
 * written into it, or the caller reads the profile once into a handle and
 * hands that to the analyses below: the text is parsed and checked once
 * however many models, requests or power modes use it (the command-line
 * tool reads --hw so). A request analysed with a handle names no
 * "hardware" of its own (that is a bad_request error); its "power_mode"
 * picks a mode of the handle's profile, as it would of its own.
 *
 * OWNERSHIP
 *
 *   - rl_hw_read() returns a handle the caller frees with rl_hw_free(),
 *     once no call that was given it is running. It keeps its own copy of
 *     what it read: the text may be freed as soon as it returns.
 *   - A handle is only read by the calls it is given to, so several
 *     threads may use one handle at once. No answer points into it.
 */

/* Read and check a hardware profile (its JSON text) in its default power
 * mode, as an analysis reads the profile in its request (rl_check_hardware
 * goes on to check every power mode; a mode a request names is checked
 * when it is read). Returns the handle, or NULL
 * with *error_json (if error_json is not NULL) set to {"ok": false,
 * "error": ...}: bad_hardware naming the field (or saying the text is not
 * JSON), or out_of_memory; the caller frees it with rl_free(). */
rl_hw *rl_hw_read(const char *profile_json, char **error_json);
void rl_hw_free(rl_hw *hw);

/* rl_model_analyze_sized, rl_model_analyze_write, rl_models_diff and
 * rl_model_summary on the hardware `hw` (NULL: the request's own
 * "hardware", exactly as those calls); every answer is the one the same
 * request with the profile written into it gets. size may be NULL. */
char *rl_model_analyze_hw(rl_model *m, const rl_hw *hw, const char *request_json, size_t *size);
int rl_model_analyze_hw_write(rl_model *m, const rl_hw *hw, const char *request_json, rl_write_fn write, void *ctx,
                              bool *answered_ok);
char *rl_models_diff_hw(rl_model *old_model, rl_model *new_model, const rl_hw *hw, const char *request_json);
char *rl_model_summary_hw(rl_model *m, const rl_hw *hw, const char *request_json);

/* Read and analyse in one call. Free the result with rl_free(). */
char *rl_analyze(const char *request_json, const void *bytes, size_t len);

/* Compare two models under one request (docs/api.md, "Diff"). Both models
 * are analysed with `request_json` (the fields of rl_model_analyze, less
 * "study") and the two responses are compared: layers matched by name, then
 * by op and position (docs/ci.md), with per-layer and total deltas, added
 * and removed layers, newly unsupported ops and new warnings. An optional
 * "diff" object in the request adds {"fail_if": "time>+5%,unsupported>0"}
 * (the gate, judged in the answer; a bad expression is a bad_fail_if error
 * naming the character), {"markdown": true} (a pull-request comment in
 * diff.markdown), "top" (layers in the Markdown, default 10) and
 * "old_label"/"new_label". `old_model` may be NULL: a new model, judged
 * without a base ("old": null). Returns {"ok": true, "diff": {...}} or an error
 * whose "where" starts with "old" or "new" when one model's analysis failed.
 * Both models are unchanged and may be analysed again. Free with rl_free(). */
char *rl_models_diff(rl_model *old_model, rl_model *new_model, const char *request_json);

/* The headline figures of one analysis as one flat object, the row of
 * `rooflens batch`: {"ok": true, "summary": {"name", "time_s", "bound",
 * ...}}; every field is present (null when the analysis has no such
 * figure). The request is rl_model_analyze's ("layers" is ignored). Free
 * with rl_free(). */
char *rl_model_summary(rl_model *m, const char *request_json);

/* The summary's field names in order, as a JSON array (the columns of a
 * batch table). Free with rl_free(). */
char *rl_summary_fields(void);

/* The operator table as JSON: [{"op", "domain", "since", "until", "cost",
 * "view", "shape"}]: "cost" is the formula in words, "view" true for ops
 * that move no data, "shape" true when the entry infers output shapes.
 * docs/operators.md is generated from it (tools/make-docs/gen_operator_doc.c). */
char *rl_operator_table(void);

/* The precisions rooflens models, from the one table in the core:
 * [{"name", "dtype", "computes", "fallback", "colour"}] in a fixed order.
 * "name" is what a request's "precision" and a profile's "compute" keys
 * take ("model" is the request's extra option: each tensor's own type);
 * "dtype" the element type floating tensors are stored in when the user
 * picks it; "computes" the element types whose work runs at it; "fallback"
 * the precisions tried in order when a device has no peak for it; "colour"
 * the page's chart colour. Free with rl_free(). */
char *rl_precisions(void);
/* The words for rooflens's concepts, from the one list in the core:
 * [{"kind", "id", "name", "meaning"}] in a fixed order. "kind" is "term"
 * (a concept of the glossary: speed_of_light, fused, prefetched,
 * granularity, launch_floor, power_floor, forecast) or the response field whose value
 * "id" is ("bound", "sol", "granularity", "op_class", "basis",
 * "measured_format"); a bound's entry has its "color" too; "name" is what every surface
 * shows for it ("overhead" -> "launch floor"), "meaning" one or two
 * sentences for a glossary or a tooltip. Free with rl_free(). */
char *rl_words(void);
/* The name of one entry of that list: rl_word_name("bound", "overhead") is
 * "launch floor"; an id the list lacks comes back as it is. The string is
 * static (or `id` itself): never freed. */
const char *rl_word_name(const char *kind, const char *id);
/* A Netron attachment ("netron:attachment" JSON) of an analysis: rooflens's
 * figures for every named node (FLOPs, bytes, intensity, predicted time,
 * bound, energy, and measured time and efficiency when the request carried a
 * profile) and the model's totals (target ""). `analysis_json` is an ok
 * response of rl_model_analyze made with "layers": true. Returns the
 * attachment, or {"ok": false, "error": ...}; free with rl_free(). */
char *rl_netron_attachment(const char *analysis_json);

/* Validate a hardware profile; returns {"ok": true, "id", "name"} or an error. */
char *rl_check_hardware(const char *profile_json);
/* rl_check_hardware's rules plus those of a profile that ships with rooflens
 * (hw/README.md): every figure is {value, source, kind} with a known kind and
 * a source (an estimated or derived one says how), schema 1, an id and mode
 * ids of lowercase letters, digits and '-', a name, a vendor and a known
 * category. Same answer as rl_check_hardware; free with rl_free(). */
char *rl_check_shipped_hardware(const char *profile_json);

/* The text helpers every face writes its tables, CSV and Markdown with
 * (the one number format, the CSV cells, reading an answer back, text made
 * safe for a terminal or Markdown) are in rooflens_text.h: this header is
 * the analysis contract only. */

/* ---- fitting the forecast to measured kernels (docs/api.md, "Fitting the
 * forecast"; the model: docs/model.md §12).
 *
 * One model and the profile of its measured kernels. Every pointer is the
 * caller's and is only read during the call; the model is left unchanged
 * and may be analysed again. */
typedef struct rl_fit_input {
    rl_model *model;          /* from rl_model_read or rl_reader_finish */
    const char *name;         /* label in the fit's provenance (e.g. the file name); NULL: "model N" */
    const char *measured;     /* NUL-terminated profile text: ONNX Runtime profiling JSON, trtexec
                                 --exportProfile JSON, or name,time_s CSV (docs/measured.md) */
    const char *format;       /* "auto" (or NULL), "ort", "trtexec" or "csv" */
    const char *request_json; /* the options the run was measured with, as rl_model_analyze takes
                                 them (precision, batch, dims, power_mode, ...; "hardware" is
                                 ignored; every input names the same power_mode, whose ceilings
                                 the fitted fractions are shares of); NULL: {} */
    bool probe;               /* a probe model (dense products measured beside the models:
                                 rl_probe_model writes one): its kernels set only the compute
                                 fraction of a product class (matrix, convolution) no model
                                 informs, never anything the models set, and it is no model of
                                 the cross-validation (docs/model.md §12.5). A fit needs one input
                                 that is not a probe. */
} rl_fit_input;

/* Fit the forecast's parameters of `profile_json` (a hardware profile, as
 * rl_check_hardware takes it) to the measured kernels of n_inputs runs: the
 * achievable compute and memory fractions of every op class that the
 * kernels inform, and the fixed cost per kernel. `stack` names the software
 * stack that ran them (NULL: named after the measured profiles' format,
 * e.g. "ONNX Runtime (the measured runs)").
 * Deterministic; a few seconds at most for thousands of kernels.
 *
 * Returns {"ok": true, "profile": {...}, "fit": {...}}: "profile" is the
 * given profile with its "forecast" block replaced (basis "calibrated",
 * fitted figures of kind "measured", the fit's provenance in forecast.fit);
 * "fit" is that provenance (models, kernels, median and maximum relative
 * error per kernel and per model). Or {"ok": false, "error": ...}: a bad
 * profile, request or measured text (where names the input), or no measured
 * kernel matched to a node of known cost. Free the result with rl_free(). */
char *rl_fit_forecast(const char *profile_json, const rl_fit_input *inputs, size_t n_inputs, const char *stack);

/* The probe model (docs/model.md §12.5) as ONNX bytes (*size of them):
 * dense products as a CNN and a transformer run them (3x3, 1x1 and
 * strided convolutions, a transformer's GEMM and attention scores, a
 * classifier's GEMV), side by side in one graph, each reading its own
 * input. Profile it with the runtime beside the models and give it to
 * rl_fit_forecast as an input with `probe` set. The same bytes every
 * call. Free with rl_free(); NULL out of memory. */
unsigned char *rl_probe_model(size_t *size);

void rl_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
