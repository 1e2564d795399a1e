/* The "graph" section (graph_view.h; docs/api.md, "Graph"). Edges come
 * from each layer's inputs and the node that produced them; modules are the
 * prefixes of the node names up to each '/', the way exporters such as
 * PyTorch's name nodes (/layer1/layer1.0/conv1/Conv lies in /layer1,
 * /layer1/layer1.0 and /layer1/layer1.0/conv1). Module figures are sums of
 * the layers' own figures, so a module's time is the time its layers show. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_view.h"
#include "json.h"
#include "words.h"

/* A module's bound is the one its layers spend most time in; a tie in time
 * goes to the bound first in the core's table of bounds (words.h). */
#define N_BOUNDS RL_BOUND_COUNT

typedef struct module_table {
    int n;
    const char **path;
    int *parent, *depth, *layers;
    double *t, *energy, *flops, *bytes, *forecast;
    double *bound_t; /* n * N_BOUNDS: time per bound */
    int *bound_n;    /* n * N_BOUNDS: layers per bound */
    rl_name_map *map;
} module_table;

/* How many module levels a name opens: its '/' after a non-empty part. */
static int name_levels(const char *name) {
    int levels = 0;
    for (size_t k = 1; name[k] && levels < RL_MODULE_MAX_DEPTH; k++)
        if (name[k] == '/' && name[k - 1] != '/') levels++;
    return levels;
}

static bool table_alloc(module_table *mt, rl_arena *a, int cap) {
    size_t n = (size_t)cap + 1;
    mt->path = rl_arena_alloc(a, n * sizeof *mt->path);
    mt->parent = rl_arena_alloc(a, n * sizeof(int));
    mt->depth = rl_arena_alloc(a, n * sizeof(int));
    mt->layers = rl_arena_alloc(a, n * sizeof(int));
    mt->t = rl_arena_alloc(a, n * sizeof(double));
    mt->energy = rl_arena_alloc(a, n * sizeof(double));
    mt->flops = rl_arena_alloc(a, n * sizeof(double));
    mt->bytes = rl_arena_alloc(a, n * sizeof(double));
    mt->forecast = rl_arena_alloc(a, n * sizeof(double));
    mt->bound_t = rl_arena_alloc(a, n * N_BOUNDS * sizeof(double));
    mt->bound_n = rl_arena_alloc(a, n * N_BOUNDS * sizeof(int));
    mt->map = rl_map_new(a, n);
    return mt->path && mt->parent && mt->depth && mt->layers && mt->t && mt->energy && mt->flops && mt->bytes && mt->forecast &&
           mt->bound_t && mt->bound_n && mt->map;
}

/* The deepest module of `name` (-1: none), adding the modules it opens;
 * `buf` holds at least strlen(name) + 1 bytes. -2 when memory runs out. */
static int module_of(module_table *mt, rl_arena *a, const char *name, char *buf) {
    int parent = -1, depth = 0;
    for (size_t k = 1; name[k] && depth < RL_MODULE_MAX_DEPTH; k++) {
        if (name[k] != '/' || name[k - 1] == '/') continue;
        memcpy(buf, name, k);
        buf[k] = '\0';
        int m = rl_map_get(mt->map, buf);
        if (m < 0) {
            char *path = rl_arena_strdup(a, buf);
            if (!path) return -2;
            m = mt->n++;
            mt->path[m] = path;
            mt->parent[m] = parent;
            mt->depth[m] = depth;
            rl_map_put(mt->map, path, m);
        }
        parent = m;
        depth++;
    }
    return parent;
}

/* Adds layer L's figures to module m and every module above it. */
static void add_layer_figures(module_table *mt, int m, const rl_layer_time *L) {
    int b = (int)L->bound;
    for (; m >= 0; m = mt->parent[m]) {
        mt->layers[m]++;
        mt->t[m] += L->t;
        mt->energy[m] += L->energy;
        mt->flops[m] += L->flops;
        mt->bytes[m] += L->bytes;
        mt->forecast[m] += L->forecast_s;
        mt->bound_t[m * N_BOUNDS + b] += L->t;
        mt->bound_n[m * N_BOUNDS + b]++;
    }
}

/* Builds the module table and each layer's deepest module (*layer_module). */
static int build_modules(module_table *mt, rl_arena *a, const rl_graph *g, const rl_layer_time *lt,
                         int **layer_module) {
    int cap = 0;
    size_t longest = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const char *name = g->nodes[i].name ? g->nodes[i].name : "";
        cap += name_levels(name);
        size_t len = strlen(name);
        if (len > longest) longest = len;
    }
    memset(mt, 0, sizeof *mt);
    char *buf = rl_arena_alloc(a, longest + 1);
    *layer_module = rl_arena_alloc(a, ((size_t)g->n_nodes + 1) * sizeof(int));
    if (!buf || !*layer_module || !table_alloc(mt, a, cap)) return -1;
    for (int i = 0; i < g->n_nodes; i++) {
        int m = module_of(mt, a, g->nodes[i].name ? g->nodes[i].name : "", buf);
        if (m == -2) return -1;
        (*layer_module)[i] = m;
        add_layer_figures(mt, m, &lt[i]);
    }
    return 0;
}

static const char *module_bound(const module_table *mt, int m) {
    int best = 0;
    for (int b = 1; b < N_BOUNDS; b++) {
        double tb = mt->bound_t[m * N_BOUNDS + b], tbest = mt->bound_t[m * N_BOUNDS + best];
        if (tb > tbest || (tb == tbest && mt->bound_n[m * N_BOUNDS + b] > mt->bound_n[m * N_BOUNDS + best]))
            best = b;
    }
    return rl_bound_id((rl_bound)best);
}

static void add_num_column(cJSON *to, const char *key, const double *v, int n) {
    cJSON *a = cJSON_AddArrayToObject(to, key);
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, isfinite(v[i]) ? cJSON_CreateNumber(v[i]) : cJSON_CreateNull());
}

static void add_modules_json(cJSON *graph, const module_table *mt, bool has_energy) {
    cJSON *mo = cJSON_AddObjectToObject(graph, "modules");
    if (!mo) return;
    cJSON_AddNumberToObject(mo, "count", mt->n);
    cJSON_AddItemToObject(mo, "path", cJSON_CreateStringArray(mt->path, mt->n));
    cJSON_AddItemToObject(mo, "parent", cJSON_CreateIntArray(mt->parent, mt->n));
    cJSON_AddItemToObject(mo, "depth", cJSON_CreateIntArray(mt->depth, mt->n));
    cJSON_AddItemToObject(mo, "layers", cJSON_CreateIntArray(mt->layers, mt->n));
    add_num_column(mo, "t", mt->t, mt->n);
    if (has_energy) add_num_column(mo, "energy_j", mt->energy, mt->n);
    add_num_column(mo, "flops", mt->flops, mt->n);
    add_num_column(mo, "bytes", mt->bytes, mt->n);
    /* the forecast of its layers, what a diff of two models compares first */
    add_num_column(mo, "forecast_s", mt->forecast, mt->n);
    cJSON *b = cJSON_AddArrayToObject(mo, "bound");
    for (int m = 0; b && m < mt->n; m++) cJSON_AddItemToArray(b, cJSON_CreateString(module_bound(mt, m)));
}

/* Input j of node n when another layer of g produced it and no earlier
 * input of n is the same tensor (x * x is one edge). */
static const rl_value *edge_input(const rl_graph *g, const rl_node *n, int j) {
    const rl_value *v = n->inv[j];
    if (!v || n->in[j] < 0 || v->producer < 0 || v->producer >= g->n_nodes) return NULL;
    for (int k = 0; k < j; k++)
        if (n->inv[k] == v) return NULL;
    return v;
}

/* Which output of its producer v is, counted as the layer rows list them
 * (omitted optional outputs are not listed). */
static int output_slot(const rl_graph *g, const rl_value *v) {
    const rl_node *p = &g->nodes[v->producer];
    for (int k = 0, listed = 0; k < p->n_out; k++) {
        if (p->outv[k] == v) return listed;
        listed += p->outv[k] != NULL;
    }
    return -1;
}

/* Every producer -> consumer pair as columns of layer rows, and which of
 * the producer's outputs it is: the tensor's name and shape are that
 * output's in the layer rows, so the answer holds them once. */
static int add_edges_json(cJSON *graph, const rl_graph *g, rl_arena *a) {
    int count = 0;
    for (int i = 0; i < g->n_nodes; i++)
        for (int j = 0; j < g->nodes[i].n_in + g->nodes[i].n_implicit; j++) count += edge_input(g, &g->nodes[i], j) != NULL;
    int *col = rl_arena_alloc(a, 3 * ((size_t)count + 1) * sizeof(int));
    if (!col) return -1;
    int *from = col, *to = col + count + 1, *slot = col + 2 * ((size_t)count + 1), e = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in + n->n_implicit; j++) {
            const rl_value *v = edge_input(g, n, j);
            if (!v) continue;
            from[e] = v->producer, to[e] = i, slot[e] = output_slot(g, v);
            e++;
        }
    }
    cJSON *edges = cJSON_AddObjectToObject(graph, "edges");
    cJSON_AddNumberToObject(edges, "count", count);
    cJSON_AddItemToObject(edges, "from", cJSON_CreateIntArray(from, count));
    cJSON_AddItemToObject(edges, "to", cJSON_CreateIntArray(to, count));
    cJSON_AddItemToObject(edges, "output", cJSON_CreateIntArray(slot, count));
    return 0;
}

/* Where each layer is drawn (fold_into): -1 in a box of its own, j >= 0
 * inside layer j's box, FOLD_CONSTANTS in the one "constants" box. A layer
 * of no work (bound "none": a Constant, a view, a shape computation) is no
 * place to start reading a graph, so it folds: into its one consumer; when
 * several layers read it, a constant (its inputs all come from constants)
 * into the constants box, whose outputs are drawn as the weights are, with
 * no edge, and a view into the one box its inputs come from. Anything else
 * keeps its box. */
#define FOLD_CONSTANTS (-2)

/* Each layer's number of distinct consumer layers and one of them (the last). */
static void count_consumers(const rl_graph *g, int *n_consumers, int *consumer) {
    for (int i = 0; i < g->n_nodes; i++) n_consumers[i] = 0, consumer[i] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const rl_node *n = &g->nodes[i];
        for (int j = 0; j < n->n_in + n->n_implicit; j++) {
            const rl_value *v = edge_input(g, n, j);
            if (!v || consumer[v->producer] == i) continue;
            consumer[v->producer] = i;
            n_consumers[v->producer]++;
        }
    }
}

/* Whether layer i's inputs all come from constants (is_const, set for the
 * layers before it in topological order). */
static bool fed_by_constants(const rl_graph *g, int i, const bool *is_const) {
    const rl_node *n = &g->nodes[i];
    for (int j = 0; j < n->n_in + n->n_implicit; j++) {
        const rl_value *v = edge_input(g, n, j);
        if (v && !is_const[v->producer]) return false;
    }
    return true;
}

/* The one box that layer i's inputs come from (a layer drawn, or the box it
 * folds into; inputs from constants, or from layers that fold into i, do not
 * count), or -1 when they come from none or from several. Its producers
 * come before i in topological order, so their folds are known. */
static int one_producer_box(const rl_graph *g, int i, const int *fold) {
    const rl_node *n = &g->nodes[i];
    int box = -1;
    for (int j = 0; j < n->n_in + n->n_implicit; j++) {
        const rl_value *v = edge_input(g, n, j);
        if (!v) continue;
        int p = v->producer;
        for (int steps = 0; fold[p] >= 0 && fold[p] != i && steps < g->n_nodes; steps++) p = fold[p];
        if (fold[p] != -1) continue; /* a constant, or a layer that folds into i */
        if (box >= 0 && box != p) return -1;
        box = p;
    }
    return box;
}

static int *fold_layers(const rl_graph *g, const rl_layer_time *lt, rl_arena *a) {
    int n = g->n_nodes;
    int *fold = rl_arena_alloc(a, 3 * ((size_t)n + 1) * sizeof(int));
    bool *is_const = rl_arena_alloc(a, ((size_t)n + 1) * sizeof(bool));
    if (!fold || !is_const) return NULL;
    int *n_consumers = fold + n + 1, *consumer = fold + 2 * ((size_t)n + 1);
    count_consumers(g, n_consumers, consumer);
    for (int i = 0; i < n; i++) fold[i] = -1, is_const[i] = false;
    for (int k = 0; k < n; k++) {
        int i = g->order ? g->order[k] : k;
        bool none = lt[i].bound == RL_BOUND_NONE;
        is_const[i] = none && fed_by_constants(g, i, is_const);
        /* of no work: into its one consumer; a constant read by several into
         * the constants box; a view read by several into the box it reads */
        if (!none || n_consumers[i] == 0) fold[i] = -1;
        else if (n_consumers[i] == 1) fold[i] = consumer[i];
        else fold[i] = is_const[i] ? FOLD_CONSTANTS : one_producer_box(g, i, fold);
    }
    /* a chain that folds (Constant -> Unsqueeze -> Concat) lands where its last link does */
    for (int i = 0; i < n; i++)
        for (int steps = 0; fold[i] >= 0 && fold[fold[i]] != -1 && steps < n; steps++) fold[i] = fold[fold[i]];
    return fold;
}

/* An attribute's value as a line of text for the side panel: numbers,
 * lists of up to ATTR_LIST values, a string cut at 120 bytes, a tensor's
 * type and dims, a graph's node count. Never the payload of a tensor. */
#define ATTR_LIST 16
#define ATTR_TEXT 256

static void attr_list(char *buf, const char *fmt_int, const int64_t *ints, const float *floats, size_t n) {
    size_t at = (size_t)snprintf(buf, ATTR_TEXT, "[");
    for (size_t k = 0; k < n && k < ATTR_LIST && at < ATTR_TEXT; k++) {
        const char *sep = k ? ", " : "";
        at += ints ? (size_t)snprintf(buf + at, ATTR_TEXT - at, fmt_int, sep, (long long)ints[k])
                   : (size_t)snprintf(buf + at, ATTR_TEXT - at, "%s%g", sep, (double)floats[k]);
    }
    if (at < ATTR_TEXT) snprintf(buf + at, ATTR_TEXT - at, n > ATTR_LIST ? ", … (%zu values)]" : "]", n);
}

static void attr_text(char *buf, const Onnx__AttributeProto *a) {
    const Onnx__TensorProto *t = a->t;
    switch (a->type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: snprintf(buf, ATTR_TEXT, "%g", (double)a->f); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: snprintf(buf, ATTR_TEXT, "%lld", (long long)a->i); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        snprintf(buf, ATTR_TEXT, "%.*s%s", (int)(a->s.len < 120 ? a->s.len : 120), a->s.data ? (const char *)a->s.data : "",
                 a->s.len > 120 ? "…" : "");
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: attr_list(buf, "%s%lld", a->ints, NULL, a->n_ints); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: attr_list(buf, NULL, NULL, a->floats, a->n_floats); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: {
        char dims[ATTR_TEXT];
        attr_list(dims, "%s%lld", t ? t->dims : NULL, NULL, t ? t->n_dims : 0);
        snprintf(buf, ATTR_TEXT, "tensor %s %.200s", t ? rl_dtype_name(t->data_type) : "?", dims);
        break;
    }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
        snprintf(buf, ATTR_TEXT, "a graph of %zu nodes", a->g ? a->g->n_node : 0);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: snprintf(buf, ATTR_TEXT, "%zu strings", a->n_strings); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS: snprintf(buf, ATTR_TEXT, "%zu graphs", a->n_graphs); break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS: snprintf(buf, ATTR_TEXT, "%zu tensors", a->n_tensors); break;
    default: snprintf(buf, ATTR_TEXT, "(an attribute of type %d)", (int)a->type); break;
    }
    rl_utf8_repair(buf);
}

/* "attributes": per layer, its attributes as [name, text] pairs (a pair,
 * not a key: a hostile node may name two attributes alike). */
static void add_attributes_json(cJSON *graph, const rl_graph *g) {
    cJSON *all = cJSON_AddArrayToObject(graph, "attributes");
    char text[ATTR_TEXT], name[ATTR_TEXT];
    for (int i = 0; all && i < g->n_nodes; i++) {
        cJSON *pairs = cJSON_CreateArray();
        const Onnx__NodeProto *p = g->nodes[i].proto;
        for (size_t k = 0; pairs && p && k < p->n_attribute; k++) {
            const Onnx__AttributeProto *a = p->attribute[k];
            if (!a) continue;
            rl_snprintf_utf8(name, sizeof name, "%.120s", a->name ? a->name : "");
            attr_text(text, a);
            cJSON *pair = cJSON_CreateArray();
            cJSON_AddItemToArray(pair, cJSON_CreateString(name));
            cJSON_AddItemToArray(pair, cJSON_CreateString(text));
            cJSON_AddItemToArray(pairs, pair);
        }
        cJSON_AddItemToArray(all, pairs);
    }
}

int rl_graph_view_add(const cJSON *req, cJSON *root, rl_ctx *c, const rl_graph *g, const rl_layer_time *lt,
                      bool has_energy, rl_error *err) {
    const cJSON *ask = cJSON_GetObjectItemCaseSensitive(req, "graph");
    if (!ask || cJSON_IsNull(ask) || cJSON_IsFalse(ask)) return 0;
    if (!cJSON_IsTrue(ask)) {
        rl_error_set(err, "bad_request", "graph", "graph must be true or false (true adds the edges and modules "
                                                   "the graph and module views draw)");
        return -1;
    }
    module_table mt;
    int *layer_module = NULL;
    cJSON *graph = cJSON_CreateObject();
    if (!graph) return 0; /* counted by rl_json_begin: the answer becomes out_of_memory */
    cJSON_AddItemToObject(root, "graph", graph);
    if (build_modules(&mt, c->arena, g, lt, &layer_module) || add_edges_json(graph, g, c->arena)) {
        rl_error_set(err, "out_of_memory", "graph", "out of memory while building the graph; leave out "
                                                     "\"graph\" or raise the memory available");
        return -1;
    }
    cJSON_AddNumberToObject(graph, "layers", g->n_nodes);
    cJSON *colors = cJSON_AddObjectToObject(graph, "colors");
    for (int b = 0; colors && b < N_BOUNDS; b++) cJSON_AddStringToObject(colors, rl_bound_id(b), rl_bound_color(b));
    add_modules_json(graph, &mt, has_energy);
    cJSON_AddItemToObject(graph, "layer_module", cJSON_CreateIntArray(layer_module, g->n_nodes));
    int *fold = fold_layers(g, lt, c->arena);
    if (!fold) {
        rl_error_set(err, "out_of_memory", "graph", "out of memory while folding the graph's constants; leave out "
                                                     "\"graph\" or raise the memory available");
        return -1;
    }
    cJSON_AddItemToObject(graph, "fold_into", cJSON_CreateIntArray(fold, g->n_nodes));
    add_attributes_json(graph, g);
    return 0;
}
