/* The protobuf writer (pb_write.h): varints, length-delimited fields and
 * 32-bit floats, little-endian as the wire format wants. */
#include <stdlib.h>
#include <string.h>

#include "pb_write.h"

static bool grow(pb_buf *b, size_t extra) {
    if (b->oom) return false;
    if (b->n + extra <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

static void put(pb_buf *b, const void *data, size_t len) {
    if (!len || !grow(b, len)) return;
    memcpy(b->p + b->n, data, len);
    b->n += len;
}

static void varint(pb_buf *b, uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) tmp[n] |= 0x80;
        n++;
    } while (v);
    put(b, tmp, n);
}

void pb_varint_field(pb_buf *b, uint32_t field, uint64_t v) {
    varint(b, (uint64_t)field << 3);
    varint(b, v);
}

void pb_bytes_field(pb_buf *b, uint32_t field, const void *data, size_t len) {
    varint(b, (uint64_t)field << 3 | 2);
    varint(b, len);
    put(b, data, len);
}

void pb_str_field(pb_buf *b, uint32_t field, const char *s) { pb_bytes_field(b, field, s, strlen(s)); }

void pb_float_field(pb_buf *b, uint32_t field, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint8_t le[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    varint(b, (uint64_t)field << 3 | 5);
    put(b, le, 4);
}

void pb_msg_field(pb_buf *b, uint32_t field, pb_buf *child) {
    if (child->oom) b->oom = true;
    pb_bytes_field(b, field, child->p, child->n);
    child->n = 0;
}

void pb_free(pb_buf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}
