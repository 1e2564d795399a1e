/* The streaming skeleton reader.
 *
 * protobuf-c copies every bytes field it decodes, so decoding a 1.3 GB model
 * directly would hold the weights in memory twice. Instead this reader walks
 * the wire format as the bytes stream in and writes a "skeleton": the same
 * messages with tensor payloads left out. Only the skeleton is decoded.
 *
 * Messages that can contain payloads are descended into (model, graph, node,
 * attribute, tensor, sparse tensor, function); everything else is copied as
 * is. Because dropping payloads shortens the enclosing messages, every
 * descended message is written with a fixed 5-byte length varint that is
 * patched when the message ends (a padded varint is valid protobuf).
 * A tensor whose payload was dropped gets a marker field so the graph builder
 * knows its contents are absent rather than empty. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguf.h"
#include "gguf_decoder.h"
#include "hf_config.h"
#include "internal.h"
#include "reader.h"

/* ValueInfoProto and the TypeProto chain hold no payloads, but TypeProto is
 * recursive (a sequence of a sequence of ...): the reader descends into them
 * only so their nesting counts toward limits.max_depth, because the decoder
 * that runs afterwards recurses once per level. */
enum msg_type { MT_OTHER, MT_MODEL, MT_GRAPH, MT_NODE, MT_ATTR, MT_TENSOR, MT_SPARSE, MT_FUNCTION,
                MT_VINFO, MT_TYPE, MT_TYPE_ELEM, MT_TYPE_MAP };
static const char *const msg_names[] = {"message", "ModelProto", "GraphProto", "NodeProto",
                                        "AttributeProto", "TensorProto", "SparseTensorProto",
                                        "FunctionProto", "ValueInfoProto", "TypeProto",
                                        "TypeProto.Sequence/Optional", "TypeProto.Map"};

enum state { S_KEY, S_LEN, S_VARINT, S_COPY, S_SKIP };

typedef struct frame {
    int type;
    int field;            /* field number this message sits in, in its parent */
    uint64_t end;         /* input offset where the message ends */
    size_t len_pos;       /* output offset of its 5-byte length placeholder */
    int dtype;            /* tensors: data_type once seen */
    bool dropped;         /* tensors: a payload was dropped */
    uint64_t kept_scalar_bytes; /* tensors: unpacked payload elements kept so far */
    uint64_t index;       /* which descended child of its parent it is */
    uint64_t children;    /* descended children so far */
} frame;

struct rl_reader {
    rl_limits limits;
    int state;
    uint64_t offset;     /* input bytes consumed (fed or skipped) */
    uint8_t hdr[16];     /* a varint being assembled across chunk borders */
    int hdr_len;
    uint64_t key;        /* current field key */
    uint64_t remaining;  /* S_COPY / S_SKIP bytes left */
    bool varint_capture; /* S_VARINT: record the value (tensor data_type) */
    uint64_t varint_value;
    int varint_shift;
    frame *stack;
    int depth;
    int cap;
    uint8_t *out;
    size_t out_len, out_cap;
    uint64_t skipped;
    uint64_t nodes;
    bool failed;
    rl_error err;
    /* The format, told from the first 4 bytes (held in magic until then):
     * an ONNX protobuf, a GGUF file read by its own reader, or a
     * config.json kept whole (it is small) until the end. */
    int format;
    uint8_t magic[4];
    size_t magic_len;
    gguf_reader *gguf;
    char *config;
    size_t config_len, config_cap;
};

enum { FMT_UNDECIDED, FMT_ONNX, FMT_GGUF, FMT_CONFIG };

#define RL_DEFAULT_MAX_SKELETON (512ull << 20)
#define RL_DEFAULT_MAX_NODES 2000000ull
#define RL_DEFAULT_MAX_DEPTH 64u
#define RL_DEFAULT_MAX_RANK 32u
#define RL_DEFAULT_MAX_STRING (64ull << 10)
#define RL_DEFAULT_KEEP_PAYLOAD (64ull << 10)

/* Fields left 0 take the defaults; max_rank is capped at RL_MAX_RANK_HARD. */
void rl_limits_fill_defaults(rl_limits *l) {
    if (!l->max_skeleton_bytes) l->max_skeleton_bytes = RL_DEFAULT_MAX_SKELETON;
    if (!l->max_nodes) l->max_nodes = RL_DEFAULT_MAX_NODES;
    if (!l->max_depth) l->max_depth = RL_DEFAULT_MAX_DEPTH;
    if (!l->max_rank) l->max_rank = RL_DEFAULT_MAX_RANK;
    if (l->max_rank > RL_MAX_RANK_HARD) l->max_rank = RL_MAX_RANK_HARD;
    if (!l->max_string_bytes) l->max_string_bytes = RL_DEFAULT_MAX_STRING;
    if (!l->keep_payload_bytes) l->keep_payload_bytes = RL_DEFAULT_KEEP_PAYLOAD;
}

rl_reader *rl_reader_new(const rl_limits *limits) {
    rl_reader *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    if (limits) r->limits = *limits;
    rl_limits_fill_defaults(&r->limits);
    r->cap = 16;
    r->stack = calloc((size_t)r->cap, sizeof *r->stack);
    if (!r->stack) {
        free(r);
        return NULL;
    }
    r->stack[0] = (frame){.type = MT_MODEL, .end = UINT64_MAX};
    r->depth = 1;
    r->state = S_KEY;
    return r;
}

void rl_reader_free(rl_reader *r) {
    if (!r) return;
    gguf_reader_free(r->gguf);
    free(r->config);
    free(r->stack);
    free(r->out);
    free(r);
}

uint64_t rl_reader_offset(const rl_reader *r) {
    if (r && r->format == FMT_GGUF) return gguf_offset(r->gguf);
    if (r && r->format == FMT_CONFIG) return r->config_len;
    return r ? r->offset + r->magic_len : 0;
}

/* "model.graph.node[3].attribute" for error messages. */
static void describe_path(const rl_reader *r, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "byte %llu", (unsigned long long)r->offset);
    for (int i = 0; i < r->depth && n < cap; i++) {
        const frame *f = &r->stack[i];
        if (i == 0)
            n += (size_t)snprintf(buf + n, cap - n, ", in %s", msg_names[f->type]);
        else
            n += (size_t)snprintf(buf + n, cap - n, " > %s #%llu (field %d)", msg_names[f->type],
                                  (unsigned long long)f->index, f->field);
    }
}

static int fail(rl_reader *r, const char *code, const char *fmt, ...) {
    if (r->failed) return -1;
    r->failed = true;
    char where[256];
    describe_path(r, where, sizeof where);
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rl_error_set(&r->err, code, where, "%s", msg);
    return -1;
}

static int out_reserve(rl_reader *r, size_t extra) {
    if (r->out_len + extra > r->limits.max_skeleton_bytes)
        return fail(r, "limit_skeleton",
                    "the model's graph structure (without weights) exceeds %llu bytes; raise "
                    "limits.max_skeleton_bytes if this model is genuine",
                    (unsigned long long)r->limits.max_skeleton_bytes);
    if (r->out_len + extra <= r->out_cap) return 0;
    size_t cap = r->out_cap ? r->out_cap : 4096;
    while (cap < r->out_len + extra) cap *= 2;
    uint8_t *p = realloc(r->out, cap);
    if (!p) return fail(r, "out_of_memory", "out of memory while reading the model structure");
    r->out = p;
    r->out_cap = cap;
    return 0;
}

static int out_bytes(rl_reader *r, const void *p, size_t n) {
    if (out_reserve(r, n)) return -1;
    memcpy(r->out + r->out_len, p, n);
    r->out_len += n;
    return 0;
}

static int out_varint(rl_reader *r, uint64_t v) {
    uint8_t b[10];
    int n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) b[n] |= 0x80;
        n++;
    } while (v);
    return out_bytes(r, b, (size_t)n);
}

/* Which submessage fields to descend into, per message type. */
static int child_type(int parent, uint64_t field) {
    switch (parent) {
    case MT_MODEL: return field == 7 ? MT_GRAPH : field == 25 ? MT_FUNCTION : MT_OTHER;
    case MT_GRAPH:
        if (field == 1) return MT_NODE;
        if (field == 5) return MT_TENSOR;
        if (field == 15) return MT_SPARSE;
        if (field == 11 || field == 12 || field == 13) return MT_VINFO;
        return MT_OTHER;
    case MT_NODE: return field == 5 ? MT_ATTR : MT_OTHER;
    case MT_ATTR:
        if (field == 5 || field == 10) return MT_TENSOR;
        if (field == 6 || field == 11) return MT_GRAPH;
        if (field == 22 || field == 23) return MT_SPARSE;
        if (field == 14 || field == 15) return MT_TYPE;
        return MT_OTHER;
    case MT_VINFO: return field == 2 ? MT_TYPE : MT_OTHER;
    case MT_TYPE: return (field == 4 || field == 9) ? MT_TYPE_ELEM : field == 5 ? MT_TYPE_MAP : MT_OTHER;
    case MT_TYPE_ELEM: return field == 1 ? MT_TYPE : MT_OTHER;
    case MT_TYPE_MAP: return field == 2 ? MT_TYPE : MT_OTHER;
    case MT_SPARSE: return (field == 1 || field == 2) ? MT_TENSOR : MT_OTHER;
    case MT_FUNCTION: return field == 7 ? MT_NODE : MT_OTHER;
    default: return MT_OTHER;
    }
}

static bool is_payload_field(uint64_t field) {
    return field == 4 || field == 5 || field == 6 || field == 7 || field == 9 || field == 10 ||
           field == 11;
}

static bool dtype_is_small_int(int dt) {
    return dt == RL_DT_INT64 || dt == RL_DT_INT32 || dt == RL_DT_INT8 || dt == RL_DT_UINT8 ||
           dt == RL_DT_INT16 || dt == RL_DT_UINT16 || dt == RL_DT_BOOL || dt == RL_DT_UINT32 ||
           dt == RL_DT_UINT64;
}

/* Keep a payload when shape inference may need it: any tiny payload (float
 * scalars and Resize scales), and integer tensors up to the keep limit. */
static bool keep_payload(const rl_reader *r, const frame *t, uint64_t len) {
    if (len <= 1024) return true;
    return dtype_is_small_int(t->dtype) && len <= r->limits.keep_payload_bytes;
}

static bool is_doc_string(int type, uint64_t field) {
    return (type == MT_MODEL && field == 6) || (type == MT_GRAPH && field == 10) ||
           (type == MT_NODE && field == 6) || (type == MT_TENSOR && field == 12) ||
           (type == MT_ATTR && field == 13) || (type == MT_FUNCTION && field == 8) ||
           (type == MT_VINFO && field == 3);
}

static int push(rl_reader *r, int type, uint64_t field, uint64_t len) {
    if ((uint32_t)r->depth >= r->limits.max_depth)
        return fail(r, "limit_depth",
                    "messages and subgraphs are nested more than %u deep; raise limits.max_depth "
                    "if this model is genuine",
                    r->limits.max_depth);
    if (r->depth == r->cap) {
        int cap = r->cap * 2;
        frame *s = realloc(r->stack, (size_t)cap * sizeof *s);
        if (!s) return fail(r, "out_of_memory", "out of memory");
        r->stack = s;
        r->cap = cap;
    }
    frame *parent = &r->stack[r->depth - 1];
    if (type == MT_NODE && ++r->nodes > r->limits.max_nodes)
        return fail(r, "limit_nodes",
                    "the model has more than %llu nodes; raise limits.max_nodes if it is genuine",
                    (unsigned long long)r->limits.max_nodes);
    if (out_varint(r, r->key)) return -1;
    size_t len_pos = r->out_len;
    static const uint8_t placeholder[5] = {0x80, 0x80, 0x80, 0x80, 0x00};
    if (out_bytes(r, placeholder, 5)) return -1;
    uint64_t idx = parent->children++;
    r->stack[r->depth++] = (frame){.type = type, .field = (int)field, .end = r->offset + len,
                                   .len_pos = len_pos, .index = idx};
    return 0;
}

/* Close every message that ends at the current offset. */
static int pop_finished(rl_reader *r) {
    while (r->depth > 1 && r->offset >= r->stack[r->depth - 1].end) {
        frame *f = &r->stack[r->depth - 1];
        if (r->offset > f->end)
            return fail(r, "bad_protobuf", "a field runs past the end of its %s",
                        msg_names[f->type]);
        if (f->type == MT_TENSOR && f->dropped) {
            if (out_varint(r, (uint64_t)RL_DROP_MARKER_FIELD << 3) || out_varint(r, 1)) return -1;
        }
        size_t body = r->out_len - (f->len_pos + 5);
        if (body > 0x0fffffffu)
            return fail(r, "limit_skeleton", "one message of the model structure exceeds 256 MB");
        uint8_t *p = r->out + f->len_pos;
        p[0] = (uint8_t)((body & 0x7f) | 0x80);
        p[1] = (uint8_t)(((body >> 7) & 0x7f) | 0x80);
        p[2] = (uint8_t)(((body >> 14) & 0x7f) | 0x80);
        p[3] = (uint8_t)(((body >> 21) & 0x7f) | 0x80);
        p[4] = (uint8_t)((body >> 28) & 0x7f);
        r->depth--;
    }
    return 0;
}

/* n bytes of the current field's payload are read (copied or skipped); at
 * its end the reader waits for the next key and closes the messages that end
 * there. Returns -1 on an error (set on r). */
static int consume(rl_reader *r, uint64_t n) {
    r->offset += n;
    r->remaining -= n;
    if (r->remaining == 0) {
        r->state = S_KEY;
        r->hdr_len = 0;
        if (pop_finished(r)) return -1;
    }
    return 0;
}

/* Decode a complete varint in r->hdr. Returns false if it is overlong. */
static bool hdr_varint(const rl_reader *r, uint64_t *v) {
    uint64_t x = 0;
    for (int i = 0; i < r->hdr_len; i++) {
        uint64_t b = r->hdr[i] & 0x7f;
        if (i == 9 && b > 1) return false;
        x |= b << (7 * i);
    }
    *v = x;
    return true;
}

static int on_key(rl_reader *r) {
    uint64_t key;
    if (!hdr_varint(r, &key)) return fail(r, "bad_protobuf", "a field key is an overlong varint");
    uint64_t field = key >> 3;
    unsigned wt = (unsigned)(key & 7);
    if (field == 0 || field > 536870911u)
        return fail(r, "bad_protobuf", "invalid field number %llu: this is not an ONNX model or it "
                    "is corrupted", (unsigned long long)field);
    r->key = key;
    frame *f = &r->stack[r->depth - 1];
    if (f->type == MT_TENSOR && (field == RL_STORAGE_FIELD || field == RL_BYTES_FIELD))
        return fail(r, "bad_protobuf", "a TensorProto carries field %u, which no ONNX version defines: the file "
                    "is corrupted", (unsigned)field);
    switch (wt) {
    case 0:
        r->state = S_VARINT;
        r->varint_capture = (f->type == MT_TENSOR && field == 2);
        r->varint_value = 0;
        r->varint_shift = 0;
        r->hdr_len = 0;
        if (f->type == MT_TENSOR && is_payload_field(field)) {
            /* unpacked payload element: count toward the keep limit */
            f->kept_scalar_bytes += 8;
        }
        return out_varint(r, key);
    case 1:
    case 5: {
        uint64_t n = wt == 1 ? 8 : 4;
        /* checked now, not when the message closes: a payload the reader
         * offers to skip must lie inside its message */
        if (n > f->end - r->offset)
            return fail(r, "bad_protobuf", "a %llu-byte field runs past the end of its %s",
                        (unsigned long long)n, msg_names[f->type]);
        if (f->type == MT_TENSOR && is_payload_field(field)) {
            f->kept_scalar_bytes += n;
            if (f->kept_scalar_bytes > 1024 && !(dtype_is_small_int(f->dtype) &&
                                                 f->kept_scalar_bytes <= r->limits.keep_payload_bytes)) {
                f->dropped = true;
                r->state = S_SKIP;
                r->remaining = n;
                return 0;
            }
        }
        r->state = S_COPY;
        r->remaining = n;
        return out_varint(r, key);
    }
    case 2:
        r->state = S_LEN;
        r->hdr_len = 0;
        return 0;
    default:
        return fail(r, "bad_protobuf", "wire type %u (field %llu) is not used by ONNX: this is not an "
                    "ONNX model or it is corrupted", wt, (unsigned long long)field);
    }
}

static int on_length(rl_reader *r) {
    uint64_t len;
    if (!hdr_varint(r, &len)) return fail(r, "bad_protobuf", "a length is an overlong varint");
    frame *f = &r->stack[r->depth - 1];
    uint64_t field = r->key >> 3;
    uint64_t room = f->end - r->offset;
    if (len > room)
        return fail(r, "bad_protobuf", "field %llu claims %llu bytes but its %s has only %llu left",
                    (unsigned long long)field, (unsigned long long)len, msg_names[f->type],
                    (unsigned long long)room);
    int ct = child_type(f->type, field);
    if (ct != MT_OTHER) {
        if (push(r, ct, field, len)) return -1;
        r->state = S_KEY;
        r->hdr_len = 0;
        return pop_finished(r); /* empty message */
    }
    bool drop = false;
    if (f->type == MT_MODEL && field == 20) drop = true; /* training_info: not analysed */
    if (f->type == MT_TENSOR && is_payload_field(field) && !keep_payload(r, f, len)) {
        drop = true;
        f->dropped = true;
    }
    if (!drop && len > r->limits.max_string_bytes) {
        if (is_doc_string(f->type, field)) {
            drop = true;
        } else if (f->type != MT_TENSOR && f->type != MT_OTHER) {
            return fail(r, "limit_string",
                        "a name or string of %llu bytes exceeds the limit of %llu; raise "
                        "limits.max_string_bytes if this model is genuine",
                        (unsigned long long)len, (unsigned long long)r->limits.max_string_bytes);
        }
    }
    if (drop) {
        r->skipped += len;
        r->state = S_SKIP;
        r->remaining = len;
    } else {
        if (out_varint(r, r->key) || out_varint(r, len)) return -1;
        r->state = S_COPY;
        r->remaining = len;
    }
    r->hdr_len = 0;
    if (len == 0) {
        r->state = S_KEY;
        return pop_finished(r);
    }
    return 0;
}

static int64_t onnx_feed(rl_reader *r, const void *bytes, size_t len) {
    if (!r || r->failed) return -1;
    const uint8_t *p = bytes;
    size_t i = 0;
    while (i < len) {
        switch (r->state) {
        case S_KEY:
        case S_LEN: {
            uint8_t b = p[i++];
            r->offset++;
            if (r->hdr_len >= 10)
                return fail(r, "bad_protobuf", "a varint is longer than 10 bytes");
            r->hdr[r->hdr_len++] = b;
            if (r->offset > r->stack[r->depth - 1].end)
                return fail(r, "bad_protobuf", "a field key runs past the end of its %s",
                            msg_names[r->stack[r->depth - 1].type]);
            if (b & 0x80) break;
            if ((r->state == S_KEY ? on_key(r) : on_length(r)) < 0) return -1;
            break;
        }
        case S_VARINT: {
            uint8_t b = p[i++];
            r->offset++;
            if (++r->hdr_len > 10) return fail(r, "bad_protobuf", "a varint is longer than 10 bytes");
            /* the 10th byte holds bit 63 only; more would wrap silently in the decoder */
            if (r->hdr_len == 10 && (b & 0x7f) > 1)
                return fail(r, "bad_protobuf", "a varint overflows 64 bits");
            if (r->varint_capture && r->varint_shift < 63)
                r->varint_value |= (uint64_t)(b & 0x7f) << r->varint_shift;
            r->varint_shift += 7;
            if (out_bytes(r, &b, 1)) return -1;
            if (!(b & 0x80)) {
                if (r->varint_capture) r->stack[r->depth - 1].dtype = (int)(r->varint_value & 0x7fffffff);
                r->state = S_KEY;
                r->hdr_len = 0;
                if (pop_finished(r)) return -1;
            } else if (r->offset >= r->stack[r->depth - 1].end) {
                return fail(r, "bad_protobuf", "a varint runs past the end of its message");
            }
            break;
        }
        case S_COPY:
        case S_SKIP: {
            size_t n = len - i;
            if (n > r->remaining) n = (size_t)r->remaining;
            if (r->state == S_COPY && out_bytes(r, p + i, n)) return -1;
            i += n;
            if (consume(r, n)) return -1;
            break;
        }
        }
    }
    /* a hostile length can exceed INT64_MAX; it must not read as an error */
    if (r->state != S_SKIP) return 0;
    return r->remaining > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)r->remaining;
}

/* A config.json's bytes, kept (at most HF_CONFIG_MAX_BYTES). */
static int64_t config_feed(rl_reader *r, const uint8_t *p, size_t n) {
    if (n > HF_CONFIG_MAX_BYTES - r->config_len)
        return fail(r, "bad_config", "a file that starts like JSON is over %u bytes: not a config.json",
                    HF_CONFIG_MAX_BYTES);
    if (r->config_len + n + 1 > r->config_cap) {
        size_t cap = r->config_cap ? r->config_cap : 4096;
        while (cap < r->config_len + n + 1) cap *= 2;
        char *c = realloc(r->config, cap);
        if (!c) return fail(r, "out_of_memory", "out of memory reading config.json");
        r->config = c;
        r->config_cap = cap;
    }
    memcpy(r->config + r->config_len, p, n);
    r->config_len += n;
    return 0;
}

/* The first bytes tell the format: "GGUF", '{' for a config.json, or
 * anything else for ONNX (a protobuf cannot start with 'G', field 8 of wire
 * type 7, nor with '{', field 15 of wire type 3: neither exists). */
static int decide_format(rl_reader *r) {
    if (hf_config_magic(r->magic, r->magic_len)) {
        r->format = FMT_CONFIG;
        size_t n = r->magic_len;
        r->magic_len = 0;
        return config_feed(r, r->magic, n) < 0 ? -1 : 0;
    }
    if (gguf_magic(r->magic, r->magic_len)) {
        r->format = FMT_GGUF;
        r->gguf = gguf_reader_new(&r->limits);
        if (!r->gguf) return fail(r, "out_of_memory", "out of memory starting the GGUF reader");
        return gguf_feed(r->gguf, r->magic, r->magic_len) < 0 ? -1 : 0;
    }
    r->format = FMT_ONNX;
    size_t n = r->magic_len;
    r->magic_len = 0;
    return onnx_feed(r, r->magic, n) < 0 ? -1 : 0;
}

int64_t rl_reader_feed(rl_reader *r, const void *bytes, size_t len) {
    if (!r || r->failed) return -1;
    const uint8_t *p = bytes;
    if (r->format == FMT_UNDECIDED) {
        while (len > 0 && r->magic_len < sizeof r->magic) {
            r->magic[r->magic_len++] = *p++;
            len--;
        }
        if (r->magic_len < sizeof r->magic) return 0;
        if (decide_format(r)) return -1;
    }
    if (r->format == FMT_GGUF) return gguf_feed(r->gguf, p, len);
    if (r->format == FMT_CONFIG) return config_feed(r, p, len);
    return onnx_feed(r, p, len);
}

int rl_reader_skip(rl_reader *r, uint64_t n) {
    if (!r || r->failed) return -1;
    if (r->format == FMT_GGUF) return gguf_skip(r->gguf, n);
    if (n == 0) return 0;
    if (r->state != S_SKIP || n > r->remaining)
        return fail(r, "internal", "the caller skipped %llu bytes the reader needed",
                    (unsigned long long)n);
    return consume(r, n);
}

/* A GGUF file's hand-over: its decoder's skeleton (gguf_decoder.h). */
static int gguf_take(rl_reader *r, rl_reader_result *res) {
    const gguf_file *f = gguf_finish(r->gguf);
    if (!f) {
        res->error = *gguf_error(r->gguf);
        return -1;
    }
    size_t len = 0;
    uint64_t nodes = 0;
    uint8_t *skeleton = gguf_decoder_skeleton(f, &len, &nodes, &res->error);
    if (!skeleton) return -1;
    res->skeleton = skeleton;
    res->skeleton_len = len;
    res->file_bytes = f->file_bytes;
    res->skipped_bytes = f->data_bytes; /* every payload: none is kept */
    res->nodes = nodes;
    res->limits = r->limits;
    return 0;
}

int rl_reader_take(rl_reader *r, rl_reader_result *res) {
    memset(res, 0, sizeof *res);
    /* a file of fewer than 4 bytes never told its format: ONNX's errors say what is wrong */
    if (!r->failed && r->format == FMT_UNDECIDED && r->magic_len > 0) decide_format(r);
    if (!r->failed && r->format == FMT_GGUF) return gguf_take(r, res);
    if (!r->failed && r->format == FMT_CONFIG) {
        size_t len = 0;
        uint64_t nodes = 0;
        res->skeleton = hf_config_skeleton(r->config, r->config_len, &len, &nodes, &res->error);
        if (!res->skeleton) return -1;
        res->skeleton_len = len;
        res->file_bytes = r->config_len;
        res->nodes = nodes;
        res->limits = r->limits;
        return 0;
    }
    if (!r->failed) {
        if (r->offset == 0) {
            fail(r, "empty_file", "the file is empty: expected an ONNX model");
        } else if (r->state != S_KEY || r->hdr_len != 0 || r->depth != 1) {
            char what[64];
            snprintf(what, sizeof what, "%s", msg_names[r->stack[r->depth - 1].type]);
            fail(r, "truncated",
                 "the file ends in the middle of a %s after %llu bytes: it is truncated (an "
                 "interrupted download?); get the complete file",
                 what, (unsigned long long)r->offset);
        }
    }
    if (r->failed) {
        res->error = r->err;
        return -1;
    }
    res->skeleton = r->out;
    res->skeleton_len = r->out_len;
    r->out = NULL;
    r->out_len = r->out_cap = 0;
    res->file_bytes = r->offset;
    res->skipped_bytes = r->skipped;
    res->nodes = r->nodes;
    res->limits = r->limits;
    return 0;
}
