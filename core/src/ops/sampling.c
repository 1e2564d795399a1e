/* Op family: sampling (Resize, Upsample, GridSample, AffineGrid). Each
 * output element interpolates a few input elements: nearest 1 op, linear
 * 2·2^k FLOPs, cubic 2·4^k FLOPs over k resized axes. */
#include <math.h>
#include <string.h>

#include "op.h"
#include "families.h"

/* ------------------------------------------------------------- Resize -- */

/* Scale per axis -> floor(d * scale); sizes -> those, with the aspect policy. */
static int resize_dims(rl_ctx *c, rl_node *n, const rl_value *x, const double *scales, int64_t nscales,
                       const int64_t *sizes, int64_t nsizes, const int64_t *axes, int64_t naxes,
                       int64_t *dims) {
    int r = x->rank;
    int64_t cnt = scales ? nscales : nsizes;
    int64_t nax = naxes >= 0 ? naxes : r;
    if (cnt != nax) return rl_bad(c, n, "%s has %lld entries for %lld axes", scales ? "scales" : "sizes", (long long)cnt, (long long)nax);
    int ax[RL_MAX_RANK_HARD];
    if (rl_resolve_axes(c, n, axes, naxes, nax, r, ax) < 0) return RL_FAIL;
    memcpy(dims, x->dims, (size_t)r * sizeof *dims);
    if (scales) {
        for (int64_t i = 0; i < nax; i++) {
            double s = scales[i];
            if (!(s > 0) || s > 1e9) return rl_bad(c, n, "scale %g is not a positive size factor", s);
            int64_t d = x->dims[ax[i]];
            double out = floor((double)d * s + 1e-9);
            if (out > (double)RL_MAX_ELEMS) return rl_bad(c, n, "scaled size %g is too large", out);
            dims[ax[i]] = d < 0 ? -1 : (int64_t)out;
        }
        return RL_OK;
    }
    const char *policy = rl_attr_s(c, n, "keep_aspect_ratio_policy", "stretch");
    bool larger = strcmp(policy, "not_smaller") == 0;
    if (strcmp(policy, "stretch") == 0) {
        for (int64_t i = 0; i < nax; i++) {
            if (sizes[i] < 0) return rl_bad(c, n, "negative size %lld", (long long)sizes[i]);
            dims[ax[i]] = sizes[i];
        }
        return RL_OK;
    }
    double scale = larger ? 0 : INFINITY;
    for (int64_t i = 0; i < nax; i++) {
        int64_t d = x->dims[ax[i]];
        if (d <= 0) { for (int64_t j = 0; j < nax; j++) dims[ax[j]] = -1; return RL_OK; }
        double s = (double)sizes[i] / (double)d;
        scale = larger ? (s > scale ? s : scale) : (s < scale ? s : scale);
    }
    for (int64_t i = 0; i < nax; i++) {
        double out = floor((double)x->dims[ax[i]] * scale + 0.5);
        if (!(out <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "resized size %g is too large", out);
        dims[ax[i]] = (int64_t)out;
    }
    return RL_OK;
}

static int shape_resize(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x || x->rank < 0) return rl_set_out_unknown(c, n, 0, rl_value_dtype(x), -1);
    int r = x->rank;
    const double *scales = NULL;
    const int64_t *sizes = NULL, *axes = NULL;
    int64_t nscales = -2, nsizes = -2, naxes = -2;
    bool upsample = strcmp(n->op_type, "Upsample") == 0;
    double dscale[RL_MAX_RANK_HARD];
    if (upsample && n->opset < 9) {
        const float *fs = NULL;
        int cnt = rl_attr_floats(n, "scales", &fs);
        if (cnt < 0) return rl_bad(c, n, "Upsample needs scales");
        if (cnt > RL_MAX_RANK_HARD) return rl_bad(c, n, "too many scales");
        for (int i = 0; i < cnt; i++) dscale[i] = fs[i];
        scales = dscale;
        nscales = cnt;
    } else {
        int si = (upsample || n->opset < 11) ? 1 : 2;
        rl_value *sv = rl_in(n, si), *zv = (upsample || n->opset < 11) ? NULL : rl_in(n, 3);
        if (sv && rl_numel(sv) != 0) {
            nscales = rl_in_floats(n, si, &scales);
            if (!rl_contents_known(sv)) {
                nscales = -1;
                rl_needs_runtime(n, si);
            }
        } else if (zv && rl_numel(zv) != 0) {
            nsizes = rl_contents_known(zv) ? zv->n_known : -1;
            sizes = zv->ival;
            if (nsizes < 0) rl_needs_runtime(n, 3);
        }
        if (!upsample && n->opset >= 18) naxes = rl_ints_arg(n, -1, "axes", false, &axes);
    }
    if (nscales == -2 && nsizes == -2) return rl_bad(c, n, "needs scales or sizes");
    /* runtime scales or sizes: the resized axes are unknown (and may grow) */
    if (nscales == -1 || nsizes == -1) return rl_set_out_unknown_along_axes(c, n, x, axes, naxes, false);
    int64_t dims[RL_MAX_RANK_HARD];
    if (resize_dims(c, n, x, nscales >= 0 ? scales : NULL, nscales, sizes, nsizes, axes, naxes, dims) != RL_OK)
        return RL_FAIL;
    return rl_set_out_status(c, n, 0, x->dtype, r, dims);
}

/* nearest: 1 op per output element (index arithmetic and copy);
 * linear: 2^k taps, a multiply-add each (2·2^k FLOPs) over k resized axes;
 * cubic: 4^k taps, 2·4^k FLOPs. */
static void cost_resize(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (!x || !o || x->rank != o->rank) return;
    int resized = 0;
    for (int i = 0; i < x->rank; i++)
        if (x->dims[i] != o->dims[i]) resized++;
    if (resized == 0) resized = 1;
    const char *mode = rl_attr_s(c, n, "mode", "nearest");
    double per = 1;
    if (strstr(mode, "linear")) per = 2.0 * pow(2.0, resized);
    else if (strcmp(mode, "cubic") == 0) per = 2.0 * pow(4.0, resized);
    k->vector_flops = rl_numel_d(o) * per;
}

/* --------------------------------------------------------- GridSample -- */

/* X [N, C, D1..Dr], grid [N, H1..Hr, r] -> Y [N, C, H1..Hr]. */
static int shape_grid_sample(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *grid = rl_in(n, 1);
    if (!x || !grid) return rl_bad(c, n, "needs X and grid");
    int r = grid->rank >= 0 ? grid->rank : x->rank;
    if (r < 0) return rl_set_out_unknown(c, n, 0, x->dtype, -1);
    if (r < 3) return rl_bad(c, n, "grid must have rank 3 or more, got %d", r);
    if (x->rank >= 0 && x->rank != r) return rl_bad(c, n, "X has rank %d, grid rank %d", x->rank, r);
    if (grid->rank >= 0 && grid->dims[r - 1] >= 0 && grid->dims[r - 1] != r - 2)
        return rl_bad(c, n, "grid's last dim is %lld, want %d coordinates", (long long)grid->dims[r - 1], r - 2);
    int64_t dims[RL_MAX_RANK_HARD];
    dims[0] = x->rank >= 0 ? x->dims[0] : grid->dims[0];
    dims[1] = x->rank >= 0 ? x->dims[1] : -1;
    for (int k = 2; k < r; k++) dims[k] = grid->rank >= 0 ? grid->dims[k - 1] : -1;
    return rl_set_out_status(c, n, 0, x->dtype, r, dims);
}

/* Per output element: unnormalise r coordinates (2 FLOPs each), then
 * nearest 1 op, linear 2·2^r FLOPs (2^r taps), cubic 2·4^r. */
static void cost_grid_sample(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *o = rl_out(n, 0);
    if (!o || o->rank < 3) return; /* a declared shape of another rank: no formula */
    int r = o->rank - 2;
    const char *mode = rl_attr_s(c, n, "mode", n->opset >= 20 ? "linear" : "bilinear");
    double per = 1;
    if (strstr(mode, "linear")) per = 2.0 * pow(2.0, r);
    else if (strstr(mode, "cubic")) per = 2.0 * pow(4.0, r);
    k->vector_flops = rl_numel_d(o) * (per + 2.0 * r);
}

/* --------------------------------------------------------- AffineGrid -- */

/* theta [N, r, r+1], size = [N, C, D1..Dr] -> grid [N, D1..Dr, r]. */
static int shape_affine_grid(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *theta = rl_in(n, 0), *size = rl_in(n, 1);
    if (!theta || !size) return rl_bad(c, n, "needs theta and size");
    int64_t len = size->rank == 1 ? size->dims[0] : -1;
    if (rl_contents_known(size)) len = size->n_known;
    if (len >= 0 && len != 4 && len != 5) return rl_bad(c, n, "size has %lld entries (4 for 2-D, 5 for 3-D)", (long long)len);
    int nd = len >= 0 ? (int)len - 2 : theta->rank == 3 && theta->dims[1] >= 2 && theta->dims[1] <= 3 ? (int)theta->dims[1] : -1;
    if (nd < 0) return rl_set_out_unknown(c, n, 0, theta->dtype, -1);
    if (theta->rank >= 0 && (theta->rank != 3 || (theta->dims[1] >= 0 && theta->dims[1] != nd) ||
                             (theta->dims[2] >= 0 && theta->dims[2] != nd + 1)))
        return rl_bad(c, n, "theta must be [N, %d, %d]", nd, nd + 1);
    int64_t dims[6];
    dims[0] = theta->rank == 3 ? theta->dims[0] : -1;
    for (int k = 1; k <= nd; k++) dims[k] = -1;
    dims[nd + 1] = nd;
    if (rl_contents_known(size)) {
        for (int k = 0; k < nd; k++) {
            if (size->ival[k + 2] < 0) return rl_bad(c, n, "negative size %lld", (long long)size->ival[k + 2]);
            dims[k + 1] = size->ival[k + 2];
        }
        if (dims[0] < 0) dims[0] = size->ival[0];
    } else {
        rl_needs_runtime(n, 1);
    }
    return rl_set_out_status(c, n, 0, theta->dtype, nd + 2, dims);
}

/* Each grid point is theta (r × (r+1)) times its homogeneous base
 * coordinate: 2·(r+1) FLOPs per output element. */
static void cost_affine_grid(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *o = rl_out(n, 0);
    if (!o || o->rank < 1) return;
    k->vector_flops = rl_numel_d(o) * 2.0 * (double)(o->dims[o->rank - 1] + 1);
}

/* ---------------------------------------------------------- the table -- */

static const rl_op_def ops[] = {
    {.name = "Resize", .domain = "", .since = 10, .shape = shape_resize, .cost = cost_resize,
     .cost_doc = "per output element: nearest 1 op; linear 2·2^k FLOPs; cubic 2·4^k FLOPs (k = resized axes)"},
    {.name = "Upsample", .domain = "", .since = 7, .shape = shape_resize, .cost = cost_resize,
     .cost_doc = "per output element: nearest 1 op; linear 2·2^k FLOPs (k = resized axes)"},
    {.name = "GridSample", .domain = "", .since = 16, .shape = shape_grid_sample, .cost = cost_grid_sample,
     .cost_doc = "per output element: 2 FLOPs per coordinate to unnormalise, + nearest 1 op, linear 2·2^r "
                "FLOPs, cubic 2·4^r FLOPs (r spatial axes)"},
    {.name = "AffineGrid", .domain = "", .since = 20, .shape = shape_affine_grid, .cost = cost_affine_grid,
     .cost_doc = "2·(r+1) vector FLOPs per output element (theta times the base coordinate)"},
};
RL_FAMILY(sampling, ops);
