/* The GGUF reader (gguf.c): a llama.cpp model file (versions 2 and 3) read
 * as it streams in, its header, metadata and tensor infos kept and every
 * tensor's payload skipped. What is kept is bounded by the header's size:
 * strings and numeric arrays of at most a few KB are kept, longer ones
 * (the tokenizer's vocabulary and merges) are counted and passed over.
 *
 * The layout is checked as an ONNX file's is: counts, string lengths and
 * dims bounded, every tensor's offset aligned and inside the data section,
 * the tensors not overlapping, every size computed without overflow, and
 * at the end the file long enough to hold the data it announces.
 *
 * Contract with the caller (reader.c, behind rl_reader_feed): feed bytes in
 * order; after the tensor infos the reader asks to skip the whole data
 * section (gguf_feed's return value), which a caller that can seek jumps
 * over. gguf_finish then checks the file's length, and gguf_decoder.c turns
 * the result into the model's skeleton. */
#ifndef ROOFLENS_GGUF_H
#define ROOFLENS_GGUF_H
#include "internal.h"

#define GGUF_MAX_DIMS 4
#define GGUF_KEEP_ARRAY 4096    /* numeric arrays kept up to this many elements (per-layer figures) */
#define GGUF_KEEP_STRING 4096   /* string values kept up to this many bytes */

enum gguf_value_type {
    GGUF_U8 = 0, GGUF_I8, GGUF_U16, GGUF_I16, GGUF_U32, GGUF_I32, GGUF_F32, GGUF_BOOL, GGUF_STRING,
    GGUF_ARRAY, GGUF_U64, GGUF_I64, GGUF_F64, GGUF_TYPE_COUNT
};

typedef struct gguf_kv {
    char *key;
    uint32_t type;          /* gguf_value_type */
    double num;             /* a number or bool (a 64-bit integer past 2^53 rounds) */
    char *str;              /* a string value, when kept (NULL when longer than GGUF_KEEP_STRING) */
    uint32_t elem_type;     /* arrays: the elements' type */
    uint64_t count;         /* arrays: the element count */
    double *arr;            /* arrays of numbers, when kept (count <= GGUF_KEEP_ARRAY) */
} gguf_kv;

typedef struct gguf_tensor {
    char *name;
    int n_dims;
    int64_t ne[GGUF_MAX_DIMS]; /* ggml order: ne[0] is the contiguous (innermost) dim */
    uint32_t ggml_type;
    int storage;               /* rl_storage of the type */
    uint64_t offset;           /* from the data section's start */
    uint64_t bytes;            /* its size: whole blocks of its type */
    int64_t elements;
} gguf_tensor;

typedef struct gguf_file {
    uint32_t version;
    uint64_t n_tensors, n_kv;
    gguf_kv *kv;
    gguf_tensor *tensors;
    gguf_tensor **by_name;     /* the tensors sorted by name (gguf_tensor_find) */
    uint64_t alignment;
    uint64_t data_start;       /* file offset of the data section */
    uint64_t data_bytes;       /* the section's bytes the tensors need (the last tensor's end) */
    uint64_t file_bytes;       /* bytes fed or skipped */
    const char *from_config;   /* NULL: a GGUF file; else built from a config.json, sized at this dtype */
    const char *checkpoint;    /* a safetensors checkpoint (checkpoint.c): what was read, "3 shards, 7.2 GB of
                                * BF16 weights, headers only"; each tensor's bytes are then its files' */
} gguf_file;

typedef struct gguf_reader gguf_reader;

/* Does a file starting with these bytes (at least 4) look like GGUF? */
bool gguf_magic(const uint8_t *p, size_t n);
gguf_reader *gguf_reader_new(const rl_limits *limits);
void gguf_reader_free(gguf_reader *g);
/* The next bytes; returns how many of the bytes that follow may be
 * skipped (0 when none), -1 on error (gguf_error says why). */
int64_t gguf_feed(gguf_reader *g, const uint8_t *p, size_t n);
/* The caller skipped n bytes it was told it could. 0, or -1 on error. */
int gguf_skip(gguf_reader *g, uint64_t n);
uint64_t gguf_offset(const gguf_reader *g);
/* End of file: the header read whole and the data present. Returns the
 * file (owned by the reader: valid until gguf_reader_free), or NULL with
 * the error in gguf_error. */
const gguf_file *gguf_finish(gguf_reader *g);
const rl_error *gguf_error(const gguf_reader *g);

/* A file built elsewhere (hf_config.c, from a config.json): its tensors
 * indexed by name for gguf_tensor_find (0, or -1 when out of memory), and
 * everything it owns freed (kv keys and strings, tensor names, the arrays). */
int gguf_file_index(gguf_file *f);
void gguf_file_free(gguf_file *f);

/* Metadata lookups: the value of `key`, or NULL. gguf_num: *out set when
 * the key holds a number or bool (true); gguf_arch_num looks up
 * "<architecture>.<suffix>". */
const gguf_kv *gguf_find(const gguf_file *f, const char *key);
bool gguf_num(const gguf_file *f, const char *key, double *out);
bool gguf_arch_num(const gguf_file *f, const char *arch, const char *suffix, double *out);
const char *gguf_str(const gguf_file *f, const char *key);
const gguf_tensor *gguf_tensor_find(const gguf_file *f, const char *name);
#endif
