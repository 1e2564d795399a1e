/* The "graph" section (graph_view.h; docs/api.md, "Graph"). Edges come
 * from each layer's inputs and the node that produced them; modules are the
 * prefixes of the node names up to each '/', the way exporters such as
 * PyTorch's name nodes (/layer1/layer1.0/conv1/Conv lies in /layer1,
 * /layer1/layer1.0 and /layer1/layer1.0/conv1). Module figures are sums of
 * the layers' own figures, so a module's time is the time its layers show. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph_view.h"
#include "json.h"

/* The bounds a layer can have (rl_layer_time.bound), in the order a tie in
 * time is broken: a module's bound is the one its layers spend most time in. */
static const char *const bounds[] = {"compute", "memory", "none", "unknown"};
#define N_BOUNDS 4
/* Each bound's colour, the one list every face draws with (the page's graph
 * and module views, the CLI's Graphviz output): dark enough for white text. */
static const char *const bound_colors[N_BOUNDS] = {"#b34700", "#1a5f96", "#6e6e6e", "#6b3fa0"};

typedef struct module_table {
    int n;
    const char **path;
    int *parent, *depth, *layers;
    double *t, *energy, *flops, *bytes;
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
    mt->bound_t = rl_arena_alloc(a, n * N_BOUNDS * sizeof(double));
    mt->bound_n = rl_arena_alloc(a, n * N_BOUNDS * sizeof(int));
    mt->map = rl_map_new(a, n);
    return mt->path && mt->parent && mt->depth && mt->layers && mt->t && mt->energy && mt->flops && mt->bytes &&
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

static int bound_index(const char *bound) {
    for (int b = 0; b < N_BOUNDS; b++)
        if (bound && strcmp(bound, bounds[b]) == 0) return b;
    return N_BOUNDS - 1;
}

/* Adds layer L's figures to module m and every module above it. */
static void add_layer_figures(module_table *mt, int m, const rl_layer_time *L) {
    int b = bound_index(L->bound);
    for (; m >= 0; m = mt->parent[m]) {
        mt->layers[m]++;
        mt->t[m] += L->t;
        mt->energy[m] += L->energy;
        mt->flops[m] += L->flops;
        mt->bytes[m] += L->bytes;
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
    return bounds[best];
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
    for (int b = 0; colors && b < N_BOUNDS; b++) cJSON_AddStringToObject(colors, bounds[b], bound_colors[b]);
    add_modules_json(graph, &mt, has_energy);
    cJSON_AddItemToObject(graph, "layer_module", cJSON_CreateIntArray(layer_module, g->n_nodes));
    return 0;
}
