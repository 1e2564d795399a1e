/* Op family: misc — signal processing (DFT, STFT, window functions,
 * MelWeightMatrix), text (StringSplit, StringNormalizer, StringConcat,
 * RegexFullMatch, TfIdfVectorizer), ImageDecoder, NonMaxSuppression and the
 * ai.onnx.preview.training optimisers (Adagrad, Momentum, Adam).
 * Several outputs here have sizes that depend on runtime values (a window
 * length, the decoded image, the boxes kept); those shape functions infer
 * the rank and the fixed dims and call rl_needs_runtime. String ops count 0
 * FLOPs (their work depends on the text, which the file does not hold). */
#include <math.h>
#include <string.h>

#include "op.h"
#include "families.h"

/* Known scalar contents of input i (first element), marking a runtime
 * dependency when the input is there but its value is not in the file. */
static bool scalar_value(rl_node *n, int i, double *out) {
    const rl_value *v = rl_in(n, i);
    if (!v) return false;
    if (v->n_known < 1 || !v->fval) {
        rl_needs_runtime(n, i);
        return false;
    }
    *out = v->fval[0];
    return true;
}

static int out_dtype_attr(rl_ctx *c, const rl_node *n, const char *name, int def) {
    int64_t dt = rl_attr_i(c, n, name, def);
    return dt > 0 && dt < RL_DT_COUNT ? (int)dt : def;
}

static int set_out(rl_ctx *c, rl_node *n, int i, int dt, int rank, const int64_t *dims) {
    if (rl_set_out(c, n, i, dt, rank, dims) != RL_OK) return RL_FAIL;
    return rl_shape_known(rl_out(n, i)) ? RL_OK : RL_UNKNOWN;
}

/* 5·N·log2(N) FLOPs for one complex FFT of length N (N ≥ 2). */
static double fft_flops(double len) {
    return len >= 2 ? 5.0 * len * log2(len) : 0;
}

/* ------------------------------------------------------------------- DFT -- */
/* input [..., signal_dim] (1 real, 2 complex); the transform runs along
 * axis (attribute before opset 20, input 2 from 20, default 1 / -2).
 * Output [..., 2], or [..., 1] for an inverse one-sided (real) result; the
 * axis becomes dft_length (input 1, else its own length), or n/2 + 1 for a
 * forward one-sided transform, or 2·(n-1) for the inverse one-sided one. */
static int dft_axis(rl_ctx *c, const rl_node *n, int rank, int *axis) {
    int64_t a;
    if (n->opset >= 20) {
        const rl_value *av = rl_in(n, 2);
        if (av) {
            if (av->n_known < 1 || !av->ival) return RL_UNKNOWN;
            a = av->ival[0];
        } else {
            a = -2;
        }
    } else {
        a = rl_attr_i(c, n, "axis", 1);
    }
    if (a < 0) a += rank;
    if (a < 0 || a >= rank - 1) return rl_bad(c, n, "axis %lld is out of range for rank %d", (long long)a, rank);
    *axis = (int)a;
    return RL_OK;
}

static int shape_dft(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, x->dtype, -1);
    if (x->rank < 2) return rl_bad(c, n, "input needs rank 2 or more ([..., signal_dim]), got %d", x->rank);
    int64_t sd = x->dims[x->rank - 1];
    if (sd >= 0 && sd != 1 && sd != 2) return rl_bad(c, n, "last dim must be 1 (real) or 2 (complex), got %lld", (long long)sd);
    bool inverse = rl_attr_i(c, n, "inverse", 0) != 0, onesided = rl_attr_i(c, n, "onesided", 0) != 0;
    double lenv;
    int64_t len = -1;
    bool has_len = rl_in(n, 1) != NULL;
    if (has_len && scalar_value(n, 1, &lenv)) {
        if (!(lenv >= 1 && lenv <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "dft_length %g", lenv);
        len = (int64_t)lenv;
    }
    int64_t dims[RL_MAX_RANK_HARD];
    memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    dims[x->rank - 1] = inverse && onesided ? 1 : 2;
    int axis;
    int r = dft_axis(c, n, x->rank, &axis);
    if (r == RL_FAIL) return RL_FAIL;
    if (r == RL_UNKNOWN) {
        rl_needs_runtime(n, 2);
        /* a full transform of its own length leaves every axis as it was */
        if (onesided || has_len)
            for (int k = 1; k < x->rank - 1; k++) dims[k] = -1;
        return set_out(c, n, 0, x->dtype, x->rank, dims);
    }
    int64_t nlen = has_len ? len : x->dims[axis];
    if (nlen < 0) dims[axis] = -1;
    else if (onesided && !inverse) dims[axis] = nlen / 2 + 1;
    else if (onesided && inverse) dims[axis] = has_len ? len : 2 * (nlen - 1);
    else dims[axis] = nlen;
    return set_out(c, n, 0, x->dtype, x->rank, dims);
}

/* One FFT of the transform length per vector along the axis. */
static void cost_dft(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *x = rl_in(n, 0), *o = rl_out(n, 0);
    if (!o || o->rank != x->rank || x->rank < 2) return;
    int axis = -1;
    for (int a = 0; a < x->rank - 1; a++)
        if (x->dims[a] != o->dims[a]) axis = a;
    if (axis < 0) {
        /* a full transform keeps every dim: the axis is the attribute or
         * input; unknown, the lengths of all axes are alike for the bound */
        rl_quiet quiet;
        if (dft_axis(rl_quiet_ctx(&quiet, c), n, x->rank, &axis) != RL_OK) axis = x->rank - 2;
    }
    double len = (double)(x->dims[axis] > o->dims[axis] ? x->dims[axis] : o->dims[axis]);
    double vectors = (double)rl_dims_prod(x->dims, 0, x->rank - 1) / (x->dims[axis] > 0 ? (double)x->dims[axis] : 1);
    k->vector_flops = vectors * fft_flops(len);
}

/* ------------------------------------------------------------------ STFT -- */
/* signal [B, L, 1|2], frame_step, window [W], frame_length ->
 * [B, frames, bins, 2], frames = (L - frame_length) / frame_step + 1,
 * bins = frame_length / 2 + 1 when onesided (the default), else frame_length. */
static int shape_stft(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0), *win = rl_in(n, 2);
    if (!x) return rl_bad(c, n, "needs a signal");
    if (x->rank >= 0 && x->rank != 3) return rl_bad(c, n, "signal must be [batch, length, 1|2], got rank %d", x->rank);
    double v;
    int64_t fl = -1, step = -1;
    if (rl_in(n, 3) && scalar_value(n, 3, &v)) {
        if (!(v >= 0 && v <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "frame_length %g", v);
        fl = (int64_t)v;
    }
    if (fl < 0 && win && win->rank == 1) fl = win->dims[0];
    if (scalar_value(n, 1, &v)) {
        if (!(v >= 1 && v <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "frame_step %g", v);
        step = (int64_t)v;
    }
    bool onesided = rl_attr_i(c, n, "onesided", 1) != 0;
    int64_t dims[4] = {x->rank == 3 ? x->dims[0] : -1, -1, -1, 2};
    int64_t len = x->rank == 3 ? x->dims[1] : -1;
    if (fl >= 0 && step > 0 && len >= 0) {
        if (fl > len) return rl_bad(c, n, "frame_length %lld is longer than the signal %lld", (long long)fl, (long long)len);
        dims[1] = (len - fl) / step + 1;
    }
    if (fl >= 0) dims[2] = onesided ? fl / 2 + 1 : fl;
    return set_out(c, n, 0, x->dtype, 4, dims);
}

/* Per frame: the window multiply (frame_length) and one FFT. */
static void cost_stft(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *o = rl_out(n, 0), *win = rl_in(n, 2);
    if (!o || o->rank != 4) return;
    double frames = (double)o->dims[0] * (double)o->dims[1];
    double fl = win && win->rank == 1 && win->dims[0] > 0 ? (double)win->dims[0]
                : rl_attr_i(c, n, "onesided", 1) ? 2.0 * (double)(o->dims[2] - 1) : (double)o->dims[2];
    k->vector_flops = frames * ((win ? fl : 0) + fft_flops(fl));
}

/* ------------------------------------------------------ window functions -- */
/* size (a scalar input) -> [size] of output_datatype (float by default). */
static int shape_window(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    double v;
    int64_t len = -1;
    if (scalar_value(n, 0, &v)) {
        if (!(v >= 0 && v <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "window size %g", v);
        len = (int64_t)v;
    }
    return set_out(c, n, 0, out_dtype_attr(c, n, "output_datatype", RL_DT_FLOAT), 1, &len);
}

static void cost_per_out(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    k->vector_flops = rl_numel_d(rl_out(n, 0)) * n->op->per_elem;
}

/* MelWeightMatrix(num_mel_bins, dft_length, ...) -> [dft_length/2 + 1, num_mel_bins]. */
static int shape_mel(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    double bins, dft;
    int64_t dims[2] = {-1, -1};
    if (scalar_value(n, 0, &bins)) {
        if (!(bins >= 1 && bins <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "num_mel_bins %g", bins);
        dims[1] = (int64_t)bins;
    }
    if (scalar_value(n, 1, &dft)) {
        if (!(dft >= 1 && dft <= (double)RL_MAX_ELEMS)) return rl_bad(c, n, "dft_length %g", dft);
        dims[0] = (int64_t)dft / 2 + 1;
    }
    return set_out(c, n, 0, out_dtype_attr(c, n, "output_datatype", RL_DT_FLOAT), 2, dims);
}

/* --------------------------------------------------------- ImageDecoder -- */
/* Encoded bytes -> [height, width, channels] uint8: the size is in the
 * image itself (a runtime value); the channels follow pixel_format. */
static int shape_image_decoder(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    const char *fmt = rl_attr_s(c, n, "pixel_format", "RGB");
    int64_t ch = strcmp(fmt, "Grayscale") == 0 ? 1 : 3;
    int64_t dims[3] = {-1, -1, ch};
    rl_needs_runtime(n, 0);
    return set_out(c, n, 0, RL_DT_UINT8, 3, dims);
}

/* ------------------------------------------------------------ strings -- */
/* StringSplit: substrings [*x, max pieces] (the count depends on the text),
 * lengths x's shape (int64). */
static int shape_string_split(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (x->rank < 0 || x->rank + 1 > RL_MAX_RANK_HARD) {
        if (rl_set_out(c, n, 1, RL_DT_INT64, -1, NULL) != RL_OK) return RL_FAIL;
        return rl_set_out_unknown(c, n, 0, RL_DT_STRING, -1);
    }
    int64_t dims[RL_MAX_RANK_HARD], bound[RL_MAX_RANK_HARD];
    if (x->rank) memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
    memset(bound, 0xff, sizeof bound);
    /* no strings, no pieces */
    dims[x->rank] = rl_numel(x) == 0 ? 0 : -1;
    /* negative: no limit; a limit past any tensor size bounds nothing */
    int64_t maxsplit = rl_attr_i(c, n, "maxsplit", -1);
    if (maxsplit >= 0 && maxsplit < RL_MAX_ELEMS) bound[x->rank] = maxsplit + 1;
    rl_needs_runtime(n, 0);
    if (rl_set_out(c, n, 1, RL_DT_INT64, x->rank, x->dims) != RL_OK) return RL_FAIL;
    int r = set_out(c, n, 0, RL_DT_STRING, x->rank + 1, dims);
    rl_set_out_bounds(c, n, 0, bound, false);
    return r;
}

/* StringNormalizer: [C] or [1, C]; removing stopwords shortens the last
 * axis by a data-dependent amount (never below 1). */
static int shape_string_normalizer(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, RL_DT_STRING, -1);
    if (x->rank != 1 && !(x->rank == 2 && (x->dims[0] == 1 || x->dims[0] < 0)))
        return rl_bad(c, n, "input must be [C] or [1, C], got rank %d", x->rank);
    const Onnx__AttributeProto *stop = rl_attr(n, "stopwords");
    if (!stop || stop->n_strings == 0) return set_out(c, n, 0, RL_DT_STRING, x->rank, x->dims);
    int64_t dims[2] = {x->rank == 2 ? 1 : -1, -1};
    rl_needs_runtime(n, 0);
    int r = set_out(c, n, 0, RL_DT_STRING, x->rank, dims);
    int64_t bound[2] = {-1, x->dims[x->rank - 1] > 1 ? x->dims[x->rank - 1] : 1};
    if (x->rank == 1) bound[0] = bound[1];
    rl_set_out_bounds(c, n, 0, bound, false);
    return r;
}

/* StringConcat: the two inputs broadcast. */
static int shape_string_concat(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *a = rl_in(n, 0), *b = rl_in(n, 1);
    if (!a || !b) return rl_bad(c, n, "needs two inputs");
    if (a->rank < 0 || b->rank < 0) return rl_set_out_unknown(c, n, 0, RL_DT_STRING, -1);
    int64_t dims[RL_MAX_RANK_HARD];
    int r = rl_broadcast(c, n, a->rank, a->dims, b->rank, b->dims, dims);
    if (r < 0) return RL_FAIL;
    return set_out(c, n, 0, RL_DT_STRING, r, dims);
}

/* RegexFullMatch: a bool per string. */
static int shape_regex(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    return set_out(c, n, 0, RL_DT_BOOL, x->rank, x->dims);
}

/* TfIdfVectorizer's n-gram geometry: lengths 1 <= min <= max and a
 * non-negative skip count, each bounded by a tensor size so the cost's
 * product stays finite. */
typedef struct tfidf_attrs {
    int64_t min_len, max_len, max_skip;
} tfidf_attrs;

static int read_tfidf(rl_ctx *c, const rl_node *n, tfidf_attrs *a) {
    a->min_len = rl_attr_i_in(c, n, "min_gram_length", 1, 1, RL_MAX_ELEMS);
    a->max_len = rl_attr_i_in(c, n, "max_gram_length", 1, 1, RL_MAX_ELEMS);
    a->max_skip = rl_attr_i_in(c, n, "max_skip_count", 0, 0, RL_MAX_ELEMS);
    if (c->err->code[0]) return RL_FAIL;
    if (a->max_len < a->min_len)
        return rl_bad(c, n, "max_gram_length %lld is below min_gram_length %lld", (long long)a->max_len,
                      (long long)a->min_len);
    return RL_OK;
}

/* TfIdfVectorizer: [C] or [N, C] float, C = max(ngram_indexes) + 1. */
static int shape_tfidf(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *x = rl_in(n, 0);
    if (!x) return rl_bad(c, n, "needs an input");
    const int64_t *idx = NULL;
    int cnt = rl_attr_ints(n, "ngram_indexes", &idx);
    int64_t width = -1;
    tfidf_attrs at;
    if (read_tfidf(c, n, &at) != RL_OK) return RL_FAIL;
    for (int i = 0; i < cnt; i++) {
        if (idx[i] < 0) return rl_bad(c, n, "negative ngram index %lld", (long long)idx[i]);
        if (idx[i] >= RL_MAX_ELEMS) return rl_bad(c, n, "ngram index %lld is past any tensor size", (long long)idx[i]);
        if (idx[i] + 1 > width) width = idx[i] + 1;
    }
    if (cnt <= 0) return rl_bad(c, n, "needs ngram_indexes");
    if (x->rank < 0) return rl_set_out_unknown(c, n, 0, RL_DT_FLOAT, -1);
    if (x->rank != 1 && x->rank != 2) return rl_bad(c, n, "input must be [C] or [N, C], got rank %d", x->rank);
    int64_t dims[2] = {x->rank == 2 ? x->dims[0] : width, width};
    return set_out(c, n, 0, RL_DT_FLOAT, x->rank, dims);
}

/* Each input token starts up to (max_skip_count + 1) n-grams per length,
 * each a lookup and, for TF-IDF, a weight: 2 ops per candidate n-gram. */
static void cost_tfidf(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    tfidf_attrs at;
    if (read_tfidf(c, n, &at) != RL_OK) return; /* the shape function reported it */
    double lens = (double)(at.max_len - at.min_len + 1), skips = (double)at.max_skip + 1;
    k->vector_flops = rl_numel_d(rl_in(n, 0)) * lens * skips * 2;
}

/* ---------------------------------------------------- NonMaxSuppression -- */
/* boxes [B, N, 4], scores [B, C, N] -> selected_indices [kept, 3] int64;
 * kept depends on the scores (runtime), at most B·C·N. */
static int shape_nms(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    rl_value *boxes = rl_in(n, 0), *scores = rl_in(n, 1);
    if (!boxes || !scores) return rl_bad(c, n, "needs boxes and scores");
    if (boxes->rank >= 0 && boxes->rank != 3) return rl_bad(c, n, "boxes must be [batch, boxes, 4], got rank %d", boxes->rank);
    if (scores->rank >= 0 && scores->rank != 3) return rl_bad(c, n, "scores must be [batch, classes, boxes], got rank %d", scores->rank);
    int64_t dims[2] = {-1, 3};
    rl_needs_runtime(n, 1);
    int r = set_out(c, n, 0, RL_DT_INT64, 2, dims);
    if (scores->rank == 3) {
        int64_t bound[2] = {rl_dims_prod(scores->dims, 0, 3), 3};
        double maxv;
        const rl_value *m = rl_in(n, 2);
        /* a known max_output_boxes_per_class caps it further */
        if (m && m->n_known >= 1 && m->fval && (maxv = m->fval[0]) >= 0 && scores->dims[2] >= 0 &&
            maxv < (double)scores->dims[2] && bound[0] >= 0)
            bound[0] = scores->dims[0] * scores->dims[1] * (int64_t)maxv;
        rl_set_out_bounds(c, n, 0, bound, false);
    }
    return r;
}

/* Per (batch, class): sort the N scores (N·log2 N compares) and test each
 * kept box against the others (N²/2 IoUs of ~10 FLOPs each): an upper bound. */
static void cost_nms(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    const rl_value *s = rl_in(n, 1);
    if (!s || s->rank != 3 || !rl_shape_known(s)) return;
    double lists = (double)s->dims[0] * (double)s->dims[1], nb = (double)s->dims[2];
    k->vector_flops = lists * (nb * (nb > 2 ? log2(nb) : 1) + 5.0 * nb * nb);
}

/* ------------------------------------------------------------ training -- */
/* Adagrad (R, T, X..., G..., H...), Momentum (R, T, X..., G..., V...):
 * 2 + 3n inputs, 2n outputs; Adam (R, T, X..., G..., V..., H...): 2 + 4n
 * inputs, 3n outputs. Each output is shaped like its X. */
static int optimizer_tensors(const rl_node *n, int *per) {
    *per = rl_op_is(n, "Adam") ? 4 : 3;
    int t = n->n_in - 2;
    return t > 0 && t % *per == 0 ? t / *per : -1;
}

static int shape_optimizer(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    int per;
    int count = optimizer_tensors(n, &per);
    if (count < 1) return rl_bad(c, n, "%d inputs do not make R, T and %d tensors per parameter", n->n_in, per);
    if (n->n_out > (per - 1) * count) return rl_bad(c, n, "%d outputs for %d parameters", n->n_out, count);
    int res = RL_OK;
    for (int i = 0; i < n->n_out; i++) {
        const rl_value *x = rl_in(n, 2 + i % count);
        if (!x) return rl_bad(c, n, "parameter %d is missing", i % count);
        if (rl_set_out_like(c, n, i, x) != RL_OK) return RL_FAIL;
        if (!rl_shape_known(x)) res = RL_UNKNOWN;
    }
    return res;
}

/* Per parameter element: Adagrad 8 (regularise, accumulate the square,
 * sqrt, divide, step), Momentum 5, Adam 14 (two moments, bias corrections,
 * sqrt, divide, step). */
static void cost_optimizer(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g;
    int per;
    int count = optimizer_tensors(n, &per);
    double elems = 0;
    for (int i = 0; i < count; i++) elems += rl_numel_d(rl_in(n, 2 + i));
    k->vector_flops = elems * n->op->per_elem;
}

/* Gradient(xs..., zs...; y): output i is dy/dxs[i], shaped like input i. */
static int shape_gradient(rl_ctx *c, rl_graph *g, rl_node *n) {
    (void)g;
    const Onnx__AttributeProto *xs = rl_attr(n, "xs");
    if (!xs || xs->n_strings == 0) return rl_bad(c, n, "needs the xs attribute");
    if ((size_t)n->n_out > xs->n_strings || n->n_in < (int)xs->n_strings)
        return rl_bad(c, n, "%d outputs and %d inputs for %zu xs", n->n_out, n->n_in, xs->n_strings);
    int res = RL_OK;
    for (int i = 0; i < n->n_out; i++) {
        const rl_value *x = rl_in(n, i);
        if (rl_set_out_like(c, n, i, x) != RL_OK) return RL_FAIL;
        if (!rl_shape_known(x)) res = RL_UNKNOWN;
    }
    return res;
}

/* The work is the backward pass of the nodes between xs and y, which this
 * node does not hold: its cost is marked unknown rather than counted as 0. */
static void cost_gradient(rl_ctx *c, rl_graph *g, const rl_node *n, rl_cost *k) {
    (void)c; (void)g; (void)n;
    k->known = false;
    k->note = "Gradient: the backward pass it stands for is not estimated (use training mode on the forward graph)";
}

#define TRAINING "ai.onnx.preview.training"

static const rl_op_def ops[] = {
    {.name = "DFT", .domain = "", .since = 17, .shape = shape_dft, .cost = cost_dft,
     .cost_doc = "5·N·log2(N) vector FLOPs per transformed vector (N the transform length)"},
    {.name = "STFT", .domain = "", .since = 17, .shape = shape_stft, .cost = cost_stft,
     .cost_doc = "per frame: frame_length multiplies with a window + 5·N·log2(N) for its FFT"},
    {.name = "HannWindow", .domain = "", .since = 17,
     .shape = shape_window, .cost = cost_per_out, .per_elem = 6,
     .cost_doc = "6 vector FLOPs per element (a cosine, scale, shift)"},
    {.name = "HammingWindow", .domain = "", .since = 17,
     .shape = shape_window, .cost = cost_per_out, .per_elem = 6,
     .cost_doc = "6 vector FLOPs per element (a cosine, scale, shift)"},
    {.name = "BlackmanWindow", .domain = "", .since = 17,
     .shape = shape_window, .cost = cost_per_out, .per_elem = 11,
     .cost_doc = "11 vector FLOPs per element (two cosines, scales, sum)"},
    {.name = "MelWeightMatrix", .domain = "", .since = 17,
     .shape = shape_mel, .cost = cost_per_out, .per_elem = 4,
     .cost_doc = "4 vector FLOPs per element (triangular filter weight)"},
    {.name = "ImageDecoder", .domain = "", .since = 20,
     .shape = shape_image_decoder, .cost = cost_per_out, .per_elem = 10,
     .cost_doc = "about 10 ops per output element (entropy decoding, inverse transform, colour conversion); the size is the image's own"},
    {.name = "StringSplit", .domain = "", .since = 20, .shape = shape_string_split,
     .cost_doc = "0 FLOPs counted (the work depends on the text)"},
    {.name = "StringNormalizer", .domain = "", .since = 10, .shape = shape_string_normalizer,
     .cost_doc = "0 FLOPs counted (the work depends on the text)"},
    {.name = "StringConcat", .domain = "", .since = 20, .shape = shape_string_concat,
     .cost_doc = "0 FLOPs counted (the work depends on the text)"},
    {.name = "RegexFullMatch", .domain = "", .since = 20, .shape = shape_regex,
     .cost_doc = "0 FLOPs counted (the work depends on the text)"},
    {.name = "TfIdfVectorizer", .domain = "", .since = 9, .shape = shape_tfidf, .cost = cost_tfidf,
     .cost_doc = "2 ops per candidate n-gram: input tokens × gram lengths × (max_skip_count + 1)"},
    {.name = "NonMaxSuppression", .domain = "", .since = 10, .shape = shape_nms, .cost = cost_nms,
     .cost_doc = "per (batch, class) list of N boxes: N·log2(N) compares + 5·N² FLOPs of IoU tests (upper bound)"},
    {.name = "Adagrad", .domain = TRAINING, .since = 1,
     .shape = shape_optimizer, .cost = cost_optimizer, .per_elem = 8,
     .cost_doc = "8 vector FLOPs per parameter element"},
    {.name = "Momentum", .domain = TRAINING, .since = 1,
     .shape = shape_optimizer, .cost = cost_optimizer, .per_elem = 5,
     .cost_doc = "5 vector FLOPs per parameter element"},
    {.name = "Adam", .domain = TRAINING, .since = 1,
     .shape = shape_optimizer, .cost = cost_optimizer, .per_elem = 14,
     .cost_doc = "14 vector FLOPs per parameter element"},
    {.name = "Gradient", .domain = TRAINING, .since = 1, .shape = shape_gradient, .cost = cost_gradient,
     .cost_doc = "shapes only: outputs shaped like xs; the cost is marked unknown (the backward pass is not on this node)"},
};
RL_FAMILY(misc, ops);
