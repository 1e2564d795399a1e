/* A small protobuf writer (pb_write.c): the wire format of the ONNX
 * messages that gguf_decoder.c builds a decoder's skeleton with, so that a
 * GGUF model enters the same model builder, analysis and answers as an
 * ONNX file does. Messages are written bottom-up: a child into its own
 * buffer, then appended to its parent as a length-delimited field. */
#ifndef ROOFLENS_PB_WRITE_H
#define ROOFLENS_PB_WRITE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pb_buf {
    uint8_t *p;
    size_t n, cap;
    bool oom; /* an allocation failed: the buffer is unusable */
} pb_buf;

void pb_varint_field(pb_buf *b, uint32_t field, uint64_t v);
void pb_bytes_field(pb_buf *b, uint32_t field, const void *data, size_t len);
void pb_str_field(pb_buf *b, uint32_t field, const char *s);
void pb_float_field(pb_buf *b, uint32_t field, float f);
/* child appended as field `field` of b; child is emptied (kept for reuse) */
void pb_msg_field(pb_buf *b, uint32_t field, pb_buf *child);
void pb_free(pb_buf *b);
#endif
