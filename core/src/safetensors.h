/* One .safetensors file's header (safetensors.c): the format of
 * huggingface/safetensors is an 8-byte little-endian length N, N bytes of
 * JSON ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, ...,
 * "__metadata__": {...}}), then the data, each tensor at its offsets from
 * the data's start. Only the 8 + N bytes of the header are ever read.
 *
 * The header is checked as a GGUF file's layout is: N at most
 * ST_MAX_HEADER_BYTES and inside the file, every entry an object with a
 * dtype the storage table knows, a shape of whole non-negative dims whose
 * product stays under 2^53, offsets begin <= end inside the file's data,
 * end - begin exactly the dtype's bytes for the shape, no two tensors
 * overlapping, no name twice. Each failure is an error naming the file and
 * the tensor, never a header read in part. */
#ifndef ROOFLENS_SAFETENSORS_H
#define ROOFLENS_SAFETENSORS_H
#include "internal.h"

#define ST_MAX_HEADER_BYTES (100u << 20) /* the largest real headers are a few MB */
#define ST_MAX_TENSORS 1000000u
#define ST_MAX_RANK 16

typedef struct st_tensor {
    char *name;
    int storage;                 /* rl_storage of its dtype (storage.h) */
    int rank;
    int64_t shape[ST_MAX_RANK];  /* outermost first, as the header lists it */
    int64_t elements;
    uint64_t begin, end;         /* from the data's start */
    int file;                    /* the caller's number for its file */
    bool used;                   /* claimed by a tensor of the decoder (checkpoint.c) */
} st_tensor;

typedef struct st_header {
    uint64_t header_bytes;       /* N */
    uint64_t data_bytes;         /* the file's bytes after the header */
    st_tensor *tensors;          /* malloc'd, with their names; st_header_free frees them */
    size_t n;
} st_header;

/* How many bytes from a file's start st_header_read needs, given its first
 * n bytes: 8 while fewer than 8 are known, then 8 + N (when N is over the
 * cap: 8, enough for st_header_read to refuse it). */
uint64_t st_header_need(const uint8_t *p, size_t n);

/* The header of the file `file_name` (file_size bytes in all; `file`: the
 * caller's number for it, kept in each tensor) from its first n bytes
 * (st_header_need's count, or all the file has). 0, or -1 with err set;
 * h is filled on success only and then freed with st_header_free. */
int st_header_read(const uint8_t *p, size_t n, uint64_t file_size, const char *file_name, int file, st_header *h,
                   rl_error *err);
void st_header_free(st_header *h);
#endif
