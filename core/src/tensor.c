/* Tensor decoding (tensor.h): a TensorProto (initializer, Constant) or a
 * declared TypeProto becomes an rl_value's type, dims and, for small
 * tensors whose payload the reader kept, known contents. */
#include <string.h>

#include "graph.h"
#include "reader.h"
#include "storage.h"
#include "tensor.h"

static bool tensor_dropped(const Onnx__TensorProto *t) {
    for (size_t i = 0; i < t->base.n_unknown_fields; i++)
        if (t->base.unknown_fields[i].tag == RL_DROP_MARKER_FIELD) return true;
    return false;
}

/* The storage the GGUF reader gave the tensor (RL_STORAGE_FIELD, a
 * varint; reader.h), or RL_ST_DTYPE. */
static int tensor_storage(const Onnx__TensorProto *t) {
    for (size_t i = 0; i < t->base.n_unknown_fields; i++) {
        const ProtobufCMessageUnknownField *u = &t->base.unknown_fields[i];
        if (u->tag != RL_STORAGE_FIELD || u->wire_type != PROTOBUF_C_WIRE_TYPE_VARINT || u->len < 1) continue;
        uint64_t v = 0;
        for (size_t k = 0; k < u->len && k < 9; k++) v |= (uint64_t)(u->data[k] & 0x7f) << (7 * k);
        return v < RL_ST_COUNT ? (int)v : RL_ST_DTYPE;
    }
    return RL_ST_DTYPE;
}

/* A weight's exact bytes in its files (RL_BYTES_FIELD, a varint), or 0. */
static double tensor_stored_bytes(const Onnx__TensorProto *t) {
    for (size_t i = 0; i < t->base.n_unknown_fields; i++) {
        const ProtobufCMessageUnknownField *u = &t->base.unknown_fields[i];
        if (u->tag != RL_BYTES_FIELD || u->wire_type != PROTOBUF_C_WIRE_TYPE_VARINT || u->len < 1) continue;
        uint64_t v = 0;
        for (size_t k = 0; k < u->len && k < 9; k++) v |= (uint64_t)(u->data[k] & 0x7f) << (7 * k);
        return (double)v;
    }
    return 0;
}

static bool tensor_external(const Onnx__TensorProto *t) {
    return t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

static int64_t read_le(const uint8_t *p, int bytes, bool is_signed) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    if (is_signed && bytes < 8 && (v >> (8 * bytes - 1)) & 1) v |= ~0ull << (8 * bytes);
    return (int64_t)v;
}

static double half_to_double(uint16_t h, bool bf16) {
    if (bf16) {
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    int s = h >> 15, e = (h >> 10) & 31, f = h & 1023;
    double v;
    if (e == 0) v = f / 1024.0 / 16384.0;
    else if (e == 31) v = f ? 0.0 / 0.0 : 1.0 / 0.0;
    else {
        v = (1.0 + f / 1024.0);
        int ex = e - 15;
        while (ex > 0) { v *= 2; ex--; }
        while (ex < 0) { v /= 2; ex++; }
    }
    return s ? -v : v;
}

/* Float contents become integers for shape arithmetic; out-of-range or NaN
 * values (legal in a float tensor) must not be converted directly (undefined
 * behaviour), so they saturate. */
static int64_t sat_i64(double d) {
    if (d != d) return 0;
    if (d >= 9.2233720368547748e18) return INT64_MAX;
    if (d <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)d;
}

/* Fill v's known contents from a tensor's kept payload, when complete. */
static void load_contents(rl_arena *a, rl_value *v, const Onnx__TensorProto *t, int64_t numel) {
    v->n_known = -1;
    if (numel < 0 || numel > RL_FOLD_MAX_ELEMS || v->payload_dropped || v->external) return;
    int dt = v->dtype;
    int64_t n = numel;
    int64_t *iv = rl_arena_alloc(a, (size_t)(n ? n : 1) * sizeof *iv);
    double *fv = rl_arena_alloc(a, (size_t)(n ? n : 1) * sizeof *fv);
    if (!iv || !fv) return;
    if (t->has_raw_data) {
        int bits = rl_dtype_bits(dt);
        if (bits < 8 || dt == RL_DT_STRING) return;
        int bytes = bits / 8;
        if ((int64_t)t->raw_data.len != n * bytes) return;
        const uint8_t *p = t->raw_data.data;
        for (int64_t i = 0; i < n; i++, p += bytes) {
            switch (dt) {
            case RL_DT_FLOAT: { float f; memcpy(&f, p, 4); fv[i] = f; iv[i] = sat_i64(f); break; }
            case RL_DT_DOUBLE: { double d; memcpy(&d, p, 8); fv[i] = d; iv[i] = sat_i64(d); break; }
            case RL_DT_FLOAT16: case RL_DT_BFLOAT16:
                fv[i] = half_to_double((uint16_t)read_le(p, 2, false), dt == RL_DT_BFLOAT16);
                iv[i] = sat_i64(fv[i]);
                break;
            case RL_DT_UINT8: case RL_DT_UINT16: case RL_DT_UINT32: case RL_DT_UINT64: case RL_DT_BOOL:
                iv[i] = read_le(p, bytes, false); fv[i] = (double)iv[i]; break;
            case RL_DT_INT8: case RL_DT_INT16: case RL_DT_INT32: case RL_DT_INT64:
                iv[i] = read_le(p, bytes, true); fv[i] = (double)iv[i]; break;
            default: return;
            }
        }
    } else if (t->n_int64_data == (size_t)n && (dt == RL_DT_INT64)) {
        for (int64_t i = 0; i < n; i++) { iv[i] = t->int64_data[i]; fv[i] = (double)iv[i]; }
    } else if (t->n_int32_data == (size_t)n &&
               (dt == RL_DT_INT32 || dt == RL_DT_INT8 || dt == RL_DT_UINT8 || dt == RL_DT_INT16 ||
                dt == RL_DT_UINT16 || dt == RL_DT_BOOL)) {
        for (int64_t i = 0; i < n; i++) { iv[i] = t->int32_data[i]; fv[i] = (double)iv[i]; }
    } else if (t->n_int32_data == (size_t)n && (dt == RL_DT_FLOAT16 || dt == RL_DT_BFLOAT16)) {
        for (int64_t i = 0; i < n; i++) {
            fv[i] = half_to_double((uint16_t)t->int32_data[i], dt == RL_DT_BFLOAT16);
            iv[i] = sat_i64(fv[i]);
        }
    } else if (t->n_float_data == (size_t)n && dt == RL_DT_FLOAT) {
        for (int64_t i = 0; i < n; i++) { fv[i] = t->float_data[i]; iv[i] = sat_i64(fv[i]); }
    } else if (t->n_double_data == (size_t)n && dt == RL_DT_DOUBLE) {
        for (int64_t i = 0; i < n; i++) { fv[i] = t->double_data[i]; iv[i] = sat_i64(fv[i]); }
    } else if (t->n_uint64_data == (size_t)n && (dt == RL_DT_UINT64 || dt == RL_DT_UINT32)) {
        for (int64_t i = 0; i < n; i++) { iv[i] = (int64_t)t->uint64_data[i]; fv[i] = (double)t->uint64_data[i]; }
    } else {
        return;
    }
    v->ival = iv;
    v->fval = fv;
    v->n_known = n;
}

/* An element type this build does not know (ONNX defines 1 to 26; a newer
 * or broken exporter may write others) has no size: the value's bytes count
 * as 0, which the user must be told. */
void rl_value_check_dtype(rl_ctx *c, const rl_value *v, int dtype) {
    if (dtype >= 0 && dtype < RL_DT_COUNT) return;
    rl_warn(c, "unknown_dtype", NULL,
            "'%s' has element type %d, which rooflens does not know (ONNX defines 1 to %d): its bytes "
            "count as 0", v->name ? v->name : "", dtype, RL_DT_COUNT - 1);
}

/* Set a value from a TensorProto (initializer or Constant attribute). */
int rl_value_from_tensor(rl_ctx *c, rl_value *v, const Onnx__TensorProto *t, const char *where) {
    v->type = RL_TYPE_TENSOR;
    v->dtype = t->has_data_type ? t->data_type : 0;
    v->storage = tensor_storage(t);
    v->stored_bytes = v->storage != RL_ST_DTYPE ? tensor_stored_bytes(t) : 0;
    rl_value_check_dtype(c, v, v->dtype);
    if (t->n_dims > c->model->limits.max_rank) {
        rl_error_set(c->err, "limit_rank", where,
                     "tensor '%.200s' has %zu dimensions, more than the limit of %u; raise "
                     "limits.max_rank if the model is genuine", v->name, t->n_dims,
                     c->model->limits.max_rank);
        return -1;
    }
    v->rank = (int)t->n_dims;
    v->dims = rl_arena_alloc(c->arena, (t->n_dims + 1) * sizeof *v->dims);
    if (!v->dims) {
        rl_error_set(c->err, "out_of_memory", where, "out of memory while reading tensor '%.200s'", v->name);
        return -1;
    }
    int64_t numel = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0) {
            rl_error_set(c->err, "bad_dim", where, "tensor '%s' has a negative dimension %lld",
                         v->name, (long long)t->dims[i]);
            return -1;
        }
        v->dims[i] = t->dims[i];
        if (t->dims[i] > RL_MAX_ELEMS || !rl_mul_ok(numel, t->dims[i], &numel) || numel > RL_MAX_ELEMS) {
            rl_error_set(c->err, "dim_overflow", where,
                         "tensor '%s' has more elements than can be counted (the product of its "
                         "dimensions overflows)", v->name);
            return -1;
        }
    }
    v->payload_dropped = tensor_dropped(t);
    v->external = tensor_external(t); /* its references were checked when the model was read */
    load_contents(c->arena, v, t, numel);
    return 0;
}

/* A sequence, optional, map or other non-tensor type (see rl_value_from_type). */
static int value_from_non_tensor(rl_ctx *c, rl_value *v, const Onnx__TypeProto *tp, const char *where,
                                 bool declared_only) {
    int type = tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ? RL_TYPE_SEQUENCE
               : tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE ? RL_TYPE_OPTIONAL
               : tp->value_case == ONNX__TYPE_PROTO__VALUE_MAP_TYPE ? RL_TYPE_MAP
                                                                     : RL_TYPE_OTHER;
    /* A sequence or optional value carries its element's type and shape
     * (what SequenceAt or OptionalGetElement will produce); an optional
     * sequence is treated as the sequence. */
    const Onnx__TypeProto *elem =
        type == RL_TYPE_SEQUENCE && tp->sequence_type   ? tp->sequence_type->elem_type
        : type == RL_TYPE_OPTIONAL && tp->optional_type ? tp->optional_type->elem_type
                                                        : NULL;
    int rc = 0;
    if (elem && (elem->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
                 (type == RL_TYPE_OPTIONAL && elem->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)))
        rc = rl_value_from_type(c, v, elem, where, declared_only);
    if (!declared_only && !(elem && elem->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)) v->type = type;
    return rc;
}

/* One dimension of a declared type into *dim (-1: unknown) and, when
 * param is not NULL, its symbolic name into *param. A negative or
 * impossibly large size is an error, except in a declaration only
 * (declared_only), where it is left unknown. 0, or -1 with c->err set. */
static int read_dim(rl_ctx *c, const rl_value *v, const Onnx__TensorShapeProto__Dimension *d, const char *where,
                    bool declared_only, int64_t *dim, const char **param) {
    *dim = -1;
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
        if (d->dim_value < 0) {
            if (declared_only) return 0;
            rl_error_set(c->err, "bad_dim", where, "'%s' declares a negative dimension %lld",
                         v->name, (long long)d->dim_value);
            return -1;
        }
        if (d->dim_value > RL_MAX_ELEMS) {
            if (declared_only) return 0;
            rl_error_set(c->err, "dim_overflow", where,
                         "'%s' declares dimension %lld, too large to be real", v->name,
                         (long long)d->dim_value);
            return -1;
        }
        *dim = d->dim_value;
    } else if (param && d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM) {
        *param = d->dim_param;
    }
    return 0;
}

/* Shape from a ValueInfoProto's type. Fills dims (-1 unknown) and dim_params. */
int rl_value_from_type(rl_ctx *c, rl_value *v, const Onnx__TypeProto *tp, const char *where,
                       bool declared_only) {
    if (!tp) return 0;
    const Onnx__TypeProto__Tensor *tt = NULL;
    if (tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) tt = tp->tensor_type;
    else if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE)
        tt = (const Onnx__TypeProto__Tensor *)tp->sparse_tensor_type;
    else
        return value_from_non_tensor(c, v, tp, where, declared_only);
    if (!tt) return 0;
    int dtype = tt->has_elem_type ? tt->elem_type : 0;
    rl_value_check_dtype(c, v, dtype);
    if (declared_only) v->declared_dtype = dtype;
    else v->dtype = dtype;
    if (!tt->shape) {
        if (declared_only) v->declared_rank = -1;
        return 0;
    }
    size_t rank = tt->shape->n_dim;
    if (rank > c->model->limits.max_rank) {
        rl_error_set(c->err, "limit_rank", where, "'%.200s' has %zu dimensions, more than the limit of %u; raise "
                     "limits.max_rank if the model is genuine", v->name, rank, c->model->limits.max_rank);
        return -1;
    }
    int64_t *dims = rl_arena_alloc(c->arena, (rank + 1) * sizeof *dims);
    const char **params = declared_only ? NULL : rl_arena_alloc(c->arena, (rank + 1) * sizeof *params);
    if (!dims || (!declared_only && !params)) {
        rl_error_set(c->err, "out_of_memory", where, "out of memory while reading the type of '%.200s'", v->name);
        return -1;
    }
    for (size_t i = 0; i < rank; i++)
        if (read_dim(c, v, tt->shape->dim[i], where, declared_only, &dims[i], params ? &params[i] : NULL)) return -1;
    if (!rl_dims_countable((int)rank, dims)) {
        /* each dim fits, their product does not: [2^40, 2^40] */
        if (declared_only) {
            v->declared_rank = -1; /* a declaration no tensor can have is no help */
            return 0;
        }
        rl_dims_overflow(c, v, (int)rank, dims, where, "value");
        return -1;
    }
    if (declared_only) {
        v->declared_rank = (int)rank;
        v->declared_dims = dims;
    } else {
        v->rank = (int)rank;
        v->dims = dims;
        v->dim_params = params;
    }
    return 0;
}
