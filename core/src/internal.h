/* Internal types shared by the reader, the graph builder, shape inference,
 * the operator table and the analysis. Not installed; see rooflens.h for the
 * public API. */
#ifndef ROOFLENS_INTERNAL_H
#define ROOFLENS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "rooflens.h"
#include "rooflens_text.h"

/* ---------------------------------------------------------------- arena -- */
/* Every allocation of a model lives in one arena and dies with it: no
 * per-object frees, no leaks on error paths. */
typedef struct rl_arena_block rl_arena_block;
typedef struct rl_arena {
    rl_arena_block *head;
    size_t used_total;
    rl_arena_block *spare;   /* blocks kept by rl_arena_reset for reuse */
} rl_arena;

void *rl_arena_alloc(rl_arena *a, size_t size);          /* zeroed; NULL on OOM */
/* Not zeroed: for a buffer its caller fills whole before reading it (the
 * constant folds' arrays, where zeroing cost as much as the fold); NULL on OOM. */
void *rl_arena_alloc_uninit(rl_arena *a, size_t size);
char *rl_arena_strdup(rl_arena *a, const char *s);
/* Forget every allocation but keep the blocks for the next ones: an analysis
 * repeated many times (the LLM phases) reuses its memory instead of paying
 * for fresh pages each time. */
void rl_arena_reset(rl_arena *a);
void rl_arena_free(rl_arena *a);

/* ------------------------------------------------------------------ text -- */
/* Text built in fixed buffers (snprintf, "%.200s") may end, or hold, a
 * multi-byte character cut in the middle; a model's bytes may not be UTF-8 at
 * all where they were not checked. rl_utf8_repair drops, in place, every
 * byte that does not start a complete valid UTF-8 sequence (overlong forms,
 * surrogates and code points past U+10FFFF included) and returns the new
 * length. rl_error_set and rl_warn repair what they store; so does every
 * label built from a model's names. rl_utf8_bad_at: index of the first such
 * byte, -1 if none. */
size_t rl_utf8_repair(char *s);
long rl_utf8_bad_at(const char *s);
/* Length of the valid UTF-8 sequence at s (1-4) and its code point in *out,
 * 0 if s does not start one (a NUL stops a sequence). */
int rl_utf8_decode(const unsigned char *s, uint32_t *out);
/* Code points a terminal or a renderer acts on rather than shows: C0, DEL,
 * C1, the direction marks and overrides that reorder what follows, and the
 * line and paragraph separators that can fake a new line. The terminal
 * escape (rl_text_escape) writes them as escapes; the Markdown writer
 * (rl_markdown_text) drops them. */
bool rl_char_is_control(uint32_t cp);
/* snprintf, then rl_utf8_repair: a name or label cut at a buffer's end. */
void rl_snprintf_utf8(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* --------------------------------------------------------------- numbers -- */
/* The median of v[0..n) (sorted ascending in place; the mean of the middle
 * two when n is even); NAN when n is 0. */
double rl_median(double *v, int n);

/* ---------------------------------------------------------------- errors -- */
typedef struct rl_error {
    char code[48];
    char message[512];
    char where[256];
} rl_error;

void rl_error_set(rl_error *e, const char *code, const char *where, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
struct cJSON;
char *rl_error_json(const rl_error *e); /* {"ok":false,"error":{...}}, malloc'd */
/* A cJSON call that fails to allocate leaves a field out and says nothing:
 * a response built under memory pressure could be incomplete yet "ok".
 * rl_json_begin() (at the start of each public entry that answers JSON)
 * routes cJSON's allocations through a counter and marks the count;
 * rl_json_finish() prints `root` and frees it, and answers an out_of_memory
 * error instead when any allocation failed since the mark. */
void rl_json_begin(void);
bool rl_json_alloc_failed(void); /* since the mark */
char *rl_json_finish(struct cJSON *root);
/* The same, with room for `extra` more bytes after the text, made before the
 * tree is freed (a big allocation after thousands of small frees makes the
 * allocator sweep them); *cap: the buffer's size (the text's length + 1
 * when the answer is the out_of_memory one). */
char *rl_json_finish_room(struct cJSON *root, size_t extra, size_t *cap);
/* cJSON_PrintUnformatted's text, several times faster on large responses;
 * malloc'd, NULL when out of memory. */
struct cJSON;
char *rl_json_print(const struct cJSON *item);
/* JSON text built piece by piece, without a cJSON tree (layer_writer.c
 * writes a 100,000-layer answer this way). rl_json_text_finish
 * NUL-terminates and returns t->p (the caller frees it), or NULL after an
 * allocation failed. */
typedef struct rl_json_text {
    char *p;
    size_t n, cap;
    bool oom;
} rl_json_text;
void rl_json_text_put(rl_json_text *t, const char *s, size_t n);
void rl_json_text_number(rl_json_text *t, double v);      /* as cJSON prints it; NaN, inf: null */
double rl_json_number_value(double v); /* what that text reads back as (15 digits when they do); null: NaN */
/* The text rl_json_text_number writes for d, in tmp (32 bytes) or a memo
 * valid until the next call: its length, and the text in *text. */
size_t rl_json_number_text(double d, char tmp[32], const char **text);
void rl_json_text_reserve(rl_json_text *t, size_t extra); /* room for `extra` more bytes at once */
void rl_json_text_string(rl_json_text *t, const char *s); /* quoted and escaped as cJSON; NULL: "" */
char *rl_json_text_finish(rl_json_text *t);
/* The size of the pieces a streamed answer goes out in (rl_model_analyze_write). */
#define RL_STREAM_PIECE 65536
/* Where a streamed text goes: the caller's write and its context; stopped
 * once write refused a piece or the text ran out of memory. */
typedef struct rl_text_stream {
    rl_write_fn write;
    void *ctx;
    bool stopped;
} rl_text_stream;
/* t's bytes so far handed to s (unless it stopped) and forgotten. */
void rl_text_stream_piece(rl_text_stream *s, rl_json_text *t);

/* ---------------------------------------------------------- checked math -- */
/* Dims from a file are untrusted: every product goes through these. */
static inline bool rl_mul_ok(int64_t a, int64_t b, int64_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool rl_add_ok(int64_t a, int64_t b, int64_t *out) {
    return !__builtin_add_overflow(a, b, out);
}

/* ------------------------------------------------------------ data types -- */
enum {
    RL_DT_UNDEFINED = 0, RL_DT_FLOAT = 1, RL_DT_UINT8 = 2, RL_DT_INT8 = 3, RL_DT_UINT16 = 4,
    RL_DT_INT16 = 5, RL_DT_INT32 = 6, RL_DT_INT64 = 7, RL_DT_STRING = 8, RL_DT_BOOL = 9,
    RL_DT_FLOAT16 = 10, RL_DT_DOUBLE = 11, RL_DT_UINT32 = 12, RL_DT_UINT64 = 13,
    RL_DT_COMPLEX64 = 14, RL_DT_COMPLEX128 = 15, RL_DT_BFLOAT16 = 16,
    RL_DT_FLOAT8E4M3FN = 17, RL_DT_FLOAT8E4M3FNUZ = 18, RL_DT_FLOAT8E5M2 = 19,
    RL_DT_FLOAT8E5M2FNUZ = 20, RL_DT_UINT4 = 21, RL_DT_INT4 = 22, RL_DT_FLOAT4E2M1 = 23,
    RL_DT_FLOAT8E8M0 = 24, RL_DT_UINT2 = 25, RL_DT_INT2 = 26,
    RL_DT_COUNT
};
/* Size of one element in bits (4-bit types pack two per byte). 0 = unknown. */
int rl_dtype_bits(int dtype);
const char *rl_dtype_name(int dtype);
bool rl_dtype_is_float(int dtype);
bool rl_dtype_is_int(int dtype);

/* --------------------------------------------------------------- values -- */
#define RL_MAX_RANK_HARD 64 /* storage bound; the configurable limit is lower */

enum rl_value_kind {
    RL_VALUE_ACTIVATION = 0, /* produced by a node, or a graph input */
    RL_VALUE_INPUT,          /* graph input (not an initializer) */
    RL_VALUE_WEIGHT,         /* initializer */
    RL_VALUE_CONSTANT,       /* output of a Constant node */
};

enum rl_value_type { RL_TYPE_TENSOR = 0, RL_TYPE_SEQUENCE, RL_TYPE_OPTIONAL, RL_TYPE_MAP, RL_TYPE_OTHER };

typedef struct rl_value {
    const char *name;
    int kind;
    int type;        /* rl_value_type: tensors are what we cost */
    int dtype;       /* ONNX element type, 0 = unknown */
    int storage;     /* how a weight is stored when not as dtype (a GGUF file's Q4_K...): storage.h */
    double stored_bytes; /* a checkpoint's weight: its exact bytes with its scales (RL_BYTES_FIELD); 0: storage's */
    int rank;        /* -1 = unknown */
    int64_t *dims;   /* rank entries, -1 = unknown dim */
    const char **dim_params; /* graph inputs: symbolic names per dim (or NULL) */
    int producer;    /* node index in its graph, -1 for inputs/initializers */
    int consumers;   /* number of node inputs reading it (subgraph reads included) */
    bool is_graph_output;
    /* Known contents, for constant folding of shape arithmetic. */
    int64_t n_known;         /* -1 = contents unknown */
    int64_t *ival;           /* n_known integers (integer and bool types) */
    double *fval;            /* n_known numbers (all types, for float ops) */
    bool payload_dropped;    /* an initializer whose data the reader skipped */
    bool external;           /* data_location = EXTERNAL */
    /* For sequences: element type and shape of the elements when known. */
    int seq_len;             /* -1 unknown */
    /* value_info the model itself declared, for the consistency check */
    int declared_rank;
    int64_t *declared_dims;
    int declared_dtype;
    bool from_declared;      /* shape taken from the model's declaration, not inferred */
    /* Where the shape came from (rl_shape_source), and what partial
     * inference knows about dims it could not tell: an upper bound per dim
     * (dim_max, -1 none) and whether each such dim is either 1 or that bound
     * (a Reduce with runtime axes and keepdims). Set by shape functions via
     * rl_set_out_bounds; the declared shape is adopted only when it agrees. */
    int shape_source;
    bool source_inherited;   /* shape_source comes from an input, not from this value's own declaration */
    bool runtime_open;       /* some dim is open because it depends on a runtime value (here or upstream) */
    bool runtime_contents;   /* contents unknown because they come from a graph input (not a folding gap) */
    int64_t *dim_max;
    bool dims_one_or_max;
} rl_value;

/* How a value's shape was obtained. */
enum rl_shape_source {
    RL_SRC_INFERRED = 0,        /* from the graph alone */
    RL_SRC_DECLARED_RUNTIME,    /* the model's declaration, consistent with the partial
                                   inference; the rest depends on a runtime value */
    RL_SRC_DECLARED,            /* the model's declaration, for any other reason */
};

/* ---------------------------------------------------------------- nodes -- */
typedef struct rl_graph rl_graph;
typedef struct rl_op_def rl_op_def;

typedef struct rl_cost {
    double matrix_flops, vector_flops, macs;
    double input_bytes, weight_bytes, output_bytes;
    /* Training (backward) estimates, filled by the analysis. */
    double bwd_flops, bwd_bytes;
    bool known;        /* false: a shape was missing, numbers are not trustworthy */
    const char *note;  /* optional remark shown to the user (static string) */
} rl_cost;

typedef struct rl_node {
    const char *name;
    const char *op_type;
    const char *domain;  /* "" for ai.onnx */
    int index;
    int n_in, n_out;     /* explicit inputs and outputs */
    int n_implicit;      /* names its subgraph bodies read from this scope, after the inputs */
    int *in;             /* same-graph value index, -1 for omitted or outer-scope ones */
    int *out;            /* value index, -1 for an omitted optional output */
    rl_value **inv;      /* every input (explicit then implicit); NULL when omitted */
    rl_value **outv;     /* every output; NULL when omitted */
    const Onnx__NodeProto *proto;
    const rl_op_def *op; /* NULL: unsupported */
    int opset;           /* opset version of the node's domain */
    rl_graph **subgraphs; /* If/Loop/Scan bodies, built on demand */
    int n_subgraphs;
    double sub_multiplier; /* how many times a body's cost counts */
    bool shape_known;
    /* The shape function needed the contents of this input and the file does
     * not hold them (a runtime value): -1 none. Set via rl_needs_runtime. */
    int runtime_input;
    bool runtime_dep;
    rl_cost cost;        /* of this node alone, or of its bodies */
} rl_node;

/* --------------------------------------------------------------- graphs -- */
typedef struct rl_name_map rl_name_map;

struct rl_graph {
    const Onnx__GraphProto *proto;
    rl_graph *parent;        /* outer scope for subgraphs */
    rl_model *model;
    rl_value *values;
    int n_values, cap_values;
    rl_node *nodes;
    int n_nodes;
    int *order;              /* topological order of node indices */
    int *inputs;             /* value indices of graph inputs (non-initializer) */
    int n_inputs;
    rl_value **outputs;
    int n_outputs;
    rl_name_map *names;
    int depth;
};

typedef struct rl_opset {
    const char *domain;
    int64_t version;
} rl_opset;

typedef struct rl_function {
    const Onnx__FunctionProto *proto;
    const char *name;
    const char *domain;
} rl_function;

struct rl_model {
    rl_arena arena;
    Onnx__ModelProto *proto;     /* the decoded skeleton */
    uint8_t *skeleton;           /* wire bytes it was decoded from */
    size_t skeleton_len;
    rl_limits limits;
    rl_opset *opsets;
    int n_opsets;
    rl_function *functions;
    int n_functions;
    int *function_index;         /* open-addressing table of function slots (-1 empty), */
    int function_index_cap;      /* a power of two >= 2 n_functions: lookups per node stay O(1) */
    int64_t *function_sizes;     /* nodes each function expands to (rl_functions_measure) */
    rl_graph *graph;             /* the main graph, built for the latest analysis */
    uint64_t file_bytes;
    uint64_t skipped_bytes;
    int64_t total_nodes;
    rl_error error;
};

/* ------------------------------------------------------ analysis context -- */
#define RL_MAX_WARNINGS 2000

typedef struct rl_warning {
    const char *code;
    char *message;
    const char *node;
} rl_warning;

typedef struct rl_dim_setting {
    const char *name;
    int64_t value;
} rl_dim_setting;

typedef struct rl_ctx {
    rl_model *model;
    rl_arena *arena;     /* per-analysis arena (graph, shapes, warnings) */
    rl_error *err;
    rl_warning *warnings;
    int n_warnings;
    int dropped_warnings;
    int *warn_slots;      /* rl_warn's de-duplication table (index + 1, 0 empty), lazily made */
    /* options */
    int precision_dtype;  /* 0 = the model's own dtypes */
    const rl_dim_setting *dims;
    int n_dims;
    int64_t batch;        /* 0 = not set */
    int64_t total_nodes;  /* guard against node explosions in expansion */
    /* The infer layer's graph walkers, lent to the control-flow operators
     * (ops/control.c) that infer and cost their bodies: ops sit below infer
     * and never call it by name. Set by rl_infer_graph and rl_cost_graph,
     * which are the only callers of the operators' shape and cost functions. */
    const struct rl_graph_walkers *walkers;
} rl_ctx;

typedef struct rl_graph_walkers {
    struct rl_graph *(*body_infer)(rl_ctx *c, struct rl_graph *outer, struct rl_node *n, const Onnx__GraphProto *body,
                                   int n_preset, struct rl_value *const *preset);
    int (*cost_graph)(rl_ctx *c, struct rl_graph *g, struct rl_cost *sum);
} rl_graph_walkers;

void rl_warn(rl_ctx *c, const char *code, const char *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---------------------------------------------------------- op table ------ */
enum rl_shape_result { RL_OK = 0, RL_UNKNOWN = 1, RL_FAIL = 2 };

/* A shape function sets the node's output values (dtype, rank, dims and,
 * when cheap, known contents). RL_UNKNOWN leaves what it cannot tell unset;
 * RL_FAIL means the model is invalid (ctx->err says why). */
typedef int (*rl_shape_fn)(rl_ctx *c, rl_graph *g, rl_node *n);
/* A cost function fills matrix_flops, vector_flops and macs. The bytes are
 * already filled from the node's tensors; it may correct them (a Gather reads
 * only the rows it picks). */
typedef void (*rl_cost_fn)(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k);

enum rl_op_flags {
    RL_OP_VIEW = 1u << 0,     /* moves nothing: metadata change only */
    RL_OP_CONTROL = 1u << 1,  /* has subgraphs */
    RL_OP_BROADCAST = 1u << 2, /* repeats its input along new or unit axes: an engine can read the input in
                                  place through stride-0 axes instead of a copy (the forecast's "broadcast") */
    RL_OP_ACTIVATION = 1u << 3, /* elementwise work kept in a family of another kind (the fused GELUs and bias
                                   adds beside the normalisations they are fused with): the forecast classes it
                                   elementwise, not by its family */
};

struct rl_op_def {
    const char *name;
    const char *domain;   /* "" = ai.onnx */
    int since;            /* first opset version this entry covers */
    int until;            /* last one (0 = open) */
    rl_shape_fn shape;
    rl_cost_fn cost;
    double per_elem;      /* vector FLOPs per output element for generic costs */
    unsigned flags;
    const char *cost_doc; /* the cost formula in words, for the docs */
};

/* The table, assembled from the op families in core/src/ops/. */
const rl_op_def *rl_op_find(const char *domain, const char *name, int opset);
typedef struct rl_op_family {
    const rl_op_def *ops;
    size_t count;
} rl_op_family;
extern const rl_op_family *const rl_op_families[];
extern const size_t rl_op_family_count;

#endif
