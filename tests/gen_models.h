/* Models too big to commit, written as raw protobuf at run time: a chain or
 * a wide fan of N tiny nodes (scale tests and tools/bench/scale.c), and a
 * node whose name is L bytes long. Header-only so a test and the benchmark
 * share it (both link the core, whose protobuf writer it uses). Every function returns a malloc'd buffer the
 * caller frees, with its length in *len; NULL when out of memory. */
#ifndef ROOFLENS_GEN_MODELS_H
#define ROOFLENS_GEN_MODELS_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/src/pb_write.h"

/* The wire format is the core's protobuf writer's (core/src/pb_write.h,
 * the one a GGUF decoder's skeleton is written with): the names below keep
 * the tests' short spelling of its calls. */
typedef pb_buf gen_buf;

static inline void gen_bytes(gen_buf *b, int field, const void *p, size_t n) { pb_bytes_field(b, (uint32_t)field, p, n); }

static inline void gen_str(gen_buf *b, int field, const char *s) { pb_str_field(b, (uint32_t)field, s); }

/* Appends `sub` as a submessage and empties it for reuse. */
static inline void gen_msg(gen_buf *b, int field, gen_buf *sub) { pb_msg_field(b, (uint32_t)field, sub); }

static inline void gen_int(gen_buf *b, int field, uint64_t v) { pb_varint_field(b, (uint32_t)field, v); }

/* ValueInfoProto {name, float tensor [1, width]} into graph field `field`. */
static void gen_value_info(gen_buf *g, int field, const char *name, int64_t width) {
    gen_buf vi = {0}, tp = {0}, tt = {0}, sh = {0}, d = {0};
    gen_int(&d, 1, 1);
    gen_msg(&sh, 1, &d);
    gen_int(&d, 1, (uint64_t)width);
    gen_msg(&sh, 1, &d);
    gen_int(&tt, 1, 1); /* FLOAT */
    gen_msg(&tt, 2, &sh);
    gen_msg(&tp, 1, &tt);
    gen_str(&vi, 1, name);
    gen_msg(&vi, 2, &tp);
    gen_msg(g, field, &vi);
    free(vi.p), free(tp.p), free(tt.p), free(sh.p), free(d.p);
}

static void gen_node(gen_buf *g, gen_buf *scratch, const char *op, const char *in, const char *out,
                     const char *name, size_t name_len) {
    gen_str(scratch, 1, in);
    gen_str(scratch, 2, out);
    if (name) gen_bytes(scratch, 3, name, name_len);
    gen_str(scratch, 4, op);
    gen_msg(g, 1, scratch);
}

static uint8_t *gen_model(gen_buf *g, size_t *len) {
    gen_buf m = {0}, o = {0};
    gen_int(&m, 1, 8);
    gen_str(&m, 2, "rooflens-gen");
    gen_msg(&m, 7, g);
    gen_int(&o, 2, 13);
    gen_msg(&m, 8, &o);
    free(o.p);
    free(g->p);
    if (m.oom) {
        free(m.p);
        return NULL;
    }
    *len = m.n;
    return m.p;
}

/* x -> op -> t1 -> op -> ... -> y: n nodes in a chain named PREFIX0,
 * PREFIX1...; node i's op type is op_fmt formatted with i % distinct (so
 * "Custom%d" makes unknown ops). */
static uint8_t *gen_chain_named(int n, const char *op_fmt, int distinct, const char *prefix, size_t *len) {
    gen_buf g = {0}, s = {0};
    char in[32], out[32], name[64], op[64];
    for (int i = 0; i < n; i++) {
        snprintf(in, sizeof in, i ? "t%d" : "x", i);
        snprintf(out, sizeof out, i == n - 1 ? "y" : "t%d", i + 1);
        snprintf(name, sizeof name, "%.16s%d", prefix, i);
        snprintf(op, sizeof op, op_fmt, i % (distinct > 0 ? distinct : 1));
        gen_node(&g, &s, op, in, out, name, strlen(name));
    }
    gen_str(&g, 2, "chain");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "y", 16);
    free(s.p);
    return gen_model(&g, len);
}

static uint8_t *gen_chain_of(int n, const char *op_fmt, int distinct, size_t *len) {
    return gen_chain_named(n, op_fmt, distinct, "n", len);
}

static uint8_t *gen_chain(int n, size_t *len) { return gen_chain_of(n, "Relu", 1, len); }

/* x feeds n parallel Relu nodes, each output a graph output. */
static uint8_t *gen_wide(int n, size_t *len) {
    gen_buf g = {0}, s = {0};
    char out[32], name[32];
    for (int i = 0; i < n; i++) {
        snprintf(out, sizeof out, "o%d", i);
        snprintf(name, sizeof name, "relu%d", i);
        gen_node(&g, &s, "Relu", "x", out, name, strlen(name));
    }
    gen_str(&g, 2, "wide");
    gen_value_info(&g, 11, "x", 16);
    for (int i = 0; i < n; i++) {
        snprintf(out, sizeof out, "o%d", i);
        gen_value_info(&g, 12, out, 16);
    }
    free(s.p);
    return gen_model(&g, len);
}

/* One Relu whose node name (name_field 3) or doc_string (6) is `n` bytes. */
static uint8_t *gen_long_string(size_t n, int field, size_t *len) {
    gen_buf g = {0}, s = {0};
    char *str = malloc(n);
    if (!str) return NULL;
    memset(str, 'n', n);
    gen_str(&s, 1, "x");
    gen_str(&s, 2, "y");
    gen_bytes(&s, field, str, n);
    gen_str(&s, 4, "Relu");
    gen_msg(&g, 1, &s);
    free(str);
    gen_str(&g, 2, "long_string");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "y", 16);
    free(s.p);
    return gen_model(&g, len);
}
/* The amplifier: model-local function "Big" (input a, output b) holds a
 * Constant condition and an If whose then branch is a chain of `body_nodes`
 * Relu nodes over a (the else branch an Identity); the main graph calls Big
 * `calls` times in a chain. The file is small (about 20 bytes a body node);
 * expanded, it is calls x body_nodes nodes. */
static uint8_t *gen_function_amplifier(int calls, int body_nodes, size_t *len) {
    gen_buf g = {0}, s = {0}, branch = {0}, attr = {0}, t = {0}, fn = {0}, m = {0}, o = {0};
    char in[32], out[32];
    /* then branch: a -> Relu -> r1 -> ... -> rN (a graph output) */
    for (int i = 0; i < body_nodes; i++) {
        snprintf(in, sizeof in, i ? "r%d" : "a", i);
        snprintf(out, sizeof out, "r%d", i + 1);
        gen_node(&branch, &s, "Relu", in, out, NULL, 0);
    }
    gen_str(&branch, 2, "then");
    snprintf(out, sizeof out, "r%d", body_nodes);
    gen_value_info(&branch, 12, out, 16);
    gen_str(&attr, 1, "then_branch");
    gen_msg(&attr, 6, &branch);
    gen_int(&attr, 20, 5); /* GRAPH */
    gen_msg(&s, 5, &attr);
    gen_node(&branch, &t, "Identity", "a", "e", NULL, 0);
    gen_str(&branch, 2, "else");
    gen_value_info(&branch, 12, "e", 16);
    gen_str(&attr, 1, "else_branch");
    gen_msg(&attr, 6, &branch);
    gen_int(&attr, 20, 5);
    gen_msg(&s, 5, &attr);
    gen_str(&s, 1, "c");
    gen_str(&s, 2, "b");
    gen_str(&s, 4, "If");
    /* the function: Constant c = true, then the If */
    gen_int(&t, 1, 0);          /* dims: none (a scalar) */
    gen_int(&t, 2, 9);          /* BOOL */
    gen_bytes(&t, 9, "\1", 1); /* raw_data */
    gen_str(&attr, 1, "value");
    gen_msg(&attr, 5, &t);
    gen_int(&attr, 20, 4);      /* TENSOR */
    gen_buf cnode = {0};
    gen_str(&cnode, 2, "c");
    gen_str(&cnode, 4, "Constant");
    gen_msg(&cnode, 5, &attr);
    gen_str(&fn, 1, "Big");
    gen_str(&fn, 4, "a");
    gen_str(&fn, 5, "b");
    gen_msg(&fn, 7, &cnode);
    gen_msg(&fn, 7, &s);
    gen_int(&o, 2, 13);
    gen_msg(&fn, 9, &o);
    gen_str(&fn, 10, "local");
    /* the main graph: x -> Big -> t1 -> ... -> y */
    for (int i = 0; i < calls; i++) {
        snprintf(in, sizeof in, i ? "t%d" : "x", i);
        snprintf(out, sizeof out, i == calls - 1 ? "y" : "t%d", i + 1);
        gen_str(&s, 1, in);
        gen_str(&s, 2, out);
        gen_str(&s, 4, "Big");
        gen_str(&s, 7, "local");
        gen_msg(&g, 1, &s);
    }
    gen_str(&g, 2, "amplifier");
    gen_value_info(&g, 11, "x", 16);
    gen_value_info(&g, 12, "y", 16);
    gen_int(&m, 1, 8);
    gen_str(&m, 2, "rooflens-gen");
    gen_msg(&m, 7, &g);
    gen_int(&o, 2, 13);
    gen_msg(&m, 8, &o);
    gen_str(&o, 1, "local");
    gen_int(&o, 2, 1);
    gen_msg(&m, 8, &o);
    gen_msg(&m, 25, &fn);
    int oom = g.oom || s.oom || branch.oom || attr.oom || t.oom || fn.oom || cnode.oom || o.oom || m.oom;
    free(g.p), free(s.p), free(branch.p), free(attr.p), free(t.p), free(fn.p), free(cnode.p), free(o.p);
    if (oom) {
        free(m.p);
        return NULL;
    }
    *len = m.n;
    return m.p;
}
#endif
