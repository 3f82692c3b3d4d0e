/* softmax.c: op descriptors for the row-wise family over the last dimension of a row-major
 * m x n input: softmax (softmax.rows), log-softmax (softmax.log), layer norm without affine
 * (norm.layer), RMS norm (norm.rms, norm.rms.eps5) and the L2 and mean-L1 row normalisations
 * (norm.l2, norm.l1mean), one block a row on the device, the Frobenius normalisation of the
 * whole tensor (norm.fro, one block), and their planted bugs.
 * Error model: docs/error-models.md, section softmax. */
#include <stdlib.h>

#include "../../abi/softmax.h"
#include "ops/opkit.h"

extern const gk_op gk_softmax_rows, gk_softmax_log, gk_norm_layer, gk_norm_rms, gk_norm_rms_eps5,
    gk_norm_l2, gk_norm_l1mean, gk_softmax_rows_nomax, gk_softmax_rows_partialsum,
    gk_norm_layer_unbiased, gk_norm_rms_noeps, gk_norm_l2_partialsum, gk_norm_l1mean_sum,
    gk_norm_fro;

/* The bound of the shape check (softmax_measure): a correct kernel's per-element errors fit
   the first-order allowance once (second-order terms are of relative size u); 2 leaves room
   for them and fails an exp a few ulps worse than its documented bound. */
#define SHAPE_BOUND 2.0

static int rows_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[1] < 1 || (double)s->d[0] * (double)s->d[1] > 4e9 || s->d[0] > 2147483647) {
        snprintf(why, len,
                 "%s takes rows of at least one element, fewer than 4e9 elements and m below "
                 "2^31 (got %lldx%lld)",
                 "the softmax family", (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int rows_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], n = c->shape.d[1];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", m * n};
    l->out[0] = (gv_tensor_spec){"y", m * n};
    return GV_OK;
}

/* Per element: the max, the subtraction, exp, its add and the division (softmax; log-softmax
   has the same count with a log a row); the norms: the sums and the scaling. */
static double rows_flops(const gv_case *c)
{
    return 5.0 * (double)c->shape.d[0] * (double)c->shape.d[1];
}

static double rows_bytes(const gv_case *c)
{
    return 2.0 * (double)c->shape.d[0] * (double)c->shape.d[1] * gv_esize(c);
}

/* exp's error from the exact value, in units of u: 2 ulp (expf) or 1 ulp (exp) from the
   correctly rounded result, plus its half ulp, an ulp being at most 2u relative. */
static double exp_units(gv_dtype t)
{
    return t == GV_F32 ? 5.0 : 3.0;
}

static double sum_depth_of(const gv_case *c, bool order_free)
{
    int64_t n = c->shape.d[1];
    return order_free ? (double)n : (double)gk_softmax_sum_depth(n);
}

/* softmax: d_s + 2E + 2 (the row's sum, exp of each term and of the element, the division or
   a reciprocal and a product) */
static double rows_depth_of(const gv_case *c, bool of)
{
    return sum_depth_of(c, of) + 2.0 * exp_units(c->dtype) + 2.0;
}
static double rows_depth(const gv_case *c)
{
    return rows_depth_of(c, false);
}
static double rows_of_depth(const gv_case *c)
{
    return rows_depth_of(c, true);
}

/* log-softmax: d_s + E + 4 (the row's sum and its exps; the log's 3L and the element's own
   roundings are in the gauge) */
static double log_depth_of(const gv_case *c, bool of)
{
    return sum_depth_of(c, of) + exp_units(c->dtype) + 4.0;
}
static double log_depth(const gv_case *c)
{
    return log_depth_of(c, false);
}
static double log_of_depth(const gv_case *c)
{
    return log_depth_of(c, true);
}

/* layer norm: d_s + 10 */
static double layer_depth(const gv_case *c)
{
    return sum_depth_of(c, false) + 10.0;
}
static double layer_of_depth(const gv_case *c)
{
    return sum_depth_of(c, true) + 10.0;
}

/* RMS norm: d_s / 2 + 9 (the mean square's relative error halved by the root) */
static double rms_depth(const gv_case *c)
{
    return 0.5 * sum_depth_of(c, false) + 9.0;
}
static double rms_of_depth(const gv_case *c)
{
    return 0.5 * sum_depth_of(c, true) + 9.0;
}

/* L2 row normalisation x / sqrt(sum x^2): the squares and their sum d_s roundings (positive
   terms: relative), halved by the root, the root's and the division's: u (d_s/2 + 2), and one
   for the reference: d_s/2 + 3 */
static double l2_depth(const gv_case *c)
{
    return 0.5 * sum_depth_of(c, false) + 3.0;
}
static double l2_of_depth(const gv_case *c)
{
    return 0.5 * sum_depth_of(c, true) + 3.0;
}

/* norm.fro: norm.l2's model over the whole tensor, one sum of m n terms */
static double fro_depth(const gv_case *c)
{
    return 0.5 * (double)gk_softmax_sum_depth(c->shape.d[0] * c->shape.d[1]) + 3.0;
}
static double fro_of_depth(const gv_case *c)
{
    return 0.5 * (double)c->shape.d[0] * (double)c->shape.d[1] + 3.0;
}

/* x / mean |x|: the sum of |x| (exact terms, d_s roundings at most), the division by n and the
   element's division, and one for the reference: d_s + 3 */
static double l1mean_depth(const gv_case *c)
{
    return sum_depth_of(c, false) + 3.0;
}
static double l1mean_of_depth(const gv_case *c)
{
    return sum_depth_of(c, true) + 3.0;
}

static int rows_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

#define SHAPE_MN int64_t m = p->c.shape.d[0], n = p->c.shape.d[1]

static int rows_oracle(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_softmax_rows(m, n, p->in[0].ref, n, p->out[0].ref, n));
}
static int rows_gauge(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_softmax_rows_gauge(m, n, p->in[0].ref, n, p->out[0].ref, n,
                                              rows_depth(&p->c), p->out[0].gauge, n));
}
static int log_oracle(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_softmax_log(m, n, p->in[0].ref, n, p->out[0].ref, n));
}
static int log_gauge(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_softmax_log_gauge(m, n, p->in[0].ref, n, p->out[0].ref, n,
                                             log_depth(&p->c), p->out[0].gauge, n));
}
static int layer_oracle(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_norm_layer(m, n, p->in[0].ref, n, GK_NORM_LAYER_EPS, p->out[0].ref, n));
}
static int layer_gauge(gv_problem *p)
{
    SHAPE_MN;
    double u = gv_unit_roundoff(p->c.dtype, GV_MODE_NATIVE);
    double spacing = gv_dtype_subnormal_min(p->c.dtype); /* 2 eta */
    return gv_oracle_rc(go_norm_layer_gauge(m, n, p->in[0].ref, n, GK_NORM_LAYER_EPS, p->out[0].ref,
                                            n, u, spacing, layer_depth(&p->c),
                                            sum_depth_of(&p->c, false), p->out[0].gauge, n));
}
static int rms_oracle(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_norm_rms(m, n, p->in[0].ref, n, GK_NORM_RMS_EPS, p->out[0].ref, n));
}
static int rms5_oracle(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_norm_rms(m, n, p->in[0].ref, n, GK_NORM_RMS_EPS5, p->out[0].ref, n));
}
static int l2_oracle(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_norm_l2(m, n, p->in[0].ref, n, p->out[0].ref, n));
}
static int fro_oracle(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_norm_l2(1, m * n, p->in[0].ref, m * n, p->out[0].ref, m * n));
}
static int l1mean_oracle(gv_problem *p)
{
    SHAPE_MN;
    return gv_oracle_rc(go_norm_l1mean(m, n, p->in[0].ref, n, p->out[0].ref, n));
}
/* RMS norm's gauge is |y| itself: every error is relative to the element (d_s / 2 + 9 in the
   depth) */
static int rms_gauge(gv_problem *p)
{
    for (int64_t i = 0; i < p->out[0].count; i++)
        p->out[0].gauge[i] = fabs(p->out[0].ref[i]);
    return GV_OK;
}

/* ---- the shape check (docs/error-models.md, section softmax) ----------------------------
   Each output is r_j (1 + eps_j)(1 + sigma) (softmax) or r_j + eps_j + lambda (log-softmax):
   eps_j the element's own roundings, sigma or lambda the row's common error (its sum, the
   log of it). The smallest K for which some common value fits every element,
   |e_j - sigma| <= K w_j, is K* = max over pairs (e_j - e_k) / (w_j + w_k); a correct kernel
   has K* <= 1 to first order. Found by bisection on K: the intervals meet when
   max(e_j - K w_j) <= min(e_j + K w_j). */
static double fit_factor(const double *e, const double *w, int64_t n)
{
    int64_t tight = 0;
    for (int64_t j = 0; j < n; j++) {
        if (e[j] != e[j]) return INFINITY; /* NaN never fits */
        if (w[j] < w[tight]) tight = j;
    }
    if (n < 2) return 0.0;
    if (!(w[tight] > 0)) return INFINITY;
    /* the common value e[tight] fits every element at hi: a start within a few times K* */
    /* the maxima and minima as comparisons that keep the running value where the new one is
       NaN, as fmax and fmin do, but inline: glibc's fmax and fmin were two calls an element
       and 48 passes a row, most of the judge's time on softmax (64 x 65536: 1.6 s of CPU for
       4M elements); the same values, so the same K */
    double lo = 0.0, hi = 0.0;
    for (int64_t j = 0; j < n; j++) {
        double v = fabs(e[j] - e[tight]) / w[j];
        hi = v > hi ? v : hi;
    }
    if (!isfinite(hi)) return INFINITY;
    if (hi == 0) return 0.0;
    for (int it = 0; it < 48; it++) {
        double k = 0.5 * (lo + hi), top = -INFINITY, bottom = INFINITY;
        for (int64_t j = 0; j < n; j++) {
            double a = e[j] - k * w[j], b = e[j] + k * w[j];
            top = a > top ? a : top;
            bottom = b < bottom ? b : bottom;
        }
        if (top <= bottom)
            hi = k;
        else
            lo = k;
    }
    return hi;
}

/* One row's e and w (see above); returns the elements kept, or -1 where the row is judged by
   NaN/Inf placement alone; *abs_k: the factor of outputs whose reference is 0. */
static int64_t row_terms(const gv_problem *p, int64_t i, bool log_form, double flush, double *e,
                         double *w, double *abs_k)
{
    int64_t n = p->c.shape.d[1];
    const double *x = p->in[0].ref + i * n, *r = p->out[0].ref + i * n;
    double u = gv_unit_roundoff(p->c.dtype, GV_MODE_NATIVE);
    /* the subnormal spacing 2 eta (eta itself, 2^-1075, is no double) */
    double spacing = gv_dtype_subnormal_min(p->c.dtype), big_e = exp_units(p->c.dtype);
    double mx = -INFINITY, ell = 0;
    for (int64_t j = 0; j < n; j++) {
        if (r[j] != r[j]) return -1;
        if (x[j] > mx) mx = x[j];
    }
    if (!isfinite(mx)) return -1;
    for (int64_t j = 0; j < n; j++)
        if (x[j] == mx) ell = -r[j];
    int64_t kept = 0;
    *abs_k = 0;
    for (int64_t j = 0; j < n; j++) {
        double c = gv_dtype_load(p->c.dtype, p->out[0].data, i * n + j), t = x[j] - mx;
        double h = go_softmax_arg_units(t);
        if (!isfinite(r[j])) continue; /* -Inf of log-softmax at a -Inf input: placement */
        if (log_form) {
            e[kept] = c - r[j];
            w[kept] = u * (h + go_softmax_arg_units(fmax(fabs(c), fabs(r[j])))) +
                      0x1p-53 * fabs(r[j]) + 0x1p-62 * (fabs(t) + ell + 4.0);
            kept++;
            continue;
        }
        /* a subnormal exp's (E/2 spacings), the division's rounding and the reference's
           (half of one each) */
        double a = 0.5 * (big_e + 2.0) * spacing;
        /* flush-to-zero declared (CuPy's -ftz): an exp or a quotient below the normal range
           may be returned as 0, an error of up to the smallest normal, as the models allow
           at each underflow; y_j <= exp(t_j) (the sum is at least 1), so only elements whose
           reference is below the normal range get it */
        a = fmax(a, flush);
        if (r[j] == 0) {
            if (c != 0) *abs_k = fmax(*abs_k, c != c ? INFINITY : fabs(c) / a);
            continue;
        }
        e[kept] = (c - r[j]) / r[j];
        w[kept] = u * (h + big_e + 1.0) + 0x1p-53 + 0x1p-62 * (fabs(t) + 4.0) + a / r[j];
        kept++;
    }
    return kept;
}

static void rows_shape_check(const gv_problem *p, gv_result *r, bool log_form)
{
    SHAPE_MN;
    double worst = 0;
    int64_t worst_row = -1;
    bool nomem = false;
    const double flush = r->ftz_allowed ? gv_dtype_normal_min(p->c.dtype) : 0.0;
#pragma omp parallel if ((double)m * (double)n >= GO_PAR_MIN)
    {
        double *e = malloc((size_t)n * sizeof *e), *w = malloc((size_t)n * sizeof *w);
        double my_worst = 0;
        int64_t my_row = -1;
        if (!e || !w) {
#pragma omp atomic write
            nomem = true;
        }
#pragma omp for schedule(static)
        for (int64_t i = 0; i < m; i++) {
            if (!e || !w) continue;
            double abs_k = 0;
            int64_t kept = row_terms(p, i, log_form, flush, e, w, &abs_k);
            if (kept < 0) continue;
            double k = fmax(fit_factor(e, w, kept), abs_k);
            if (!(k <= my_worst)) {
                my_worst = k;
                my_row = i;
            }
        }
#pragma omp critical
        if (my_row >= 0 && (worst_row < 0 || !(my_worst <= worst))) {
            worst = my_worst;
            worst_row = my_row;
        }
        free(e);
        free(w);
    }
    if (nomem) {
        snprintf(r->internal, sizeof r->internal, "%s: no host memory for the shape check",
                 p->c.op->name);
        return;
    }
    gv_result_extra(r, "shape_worst_row", (double)worst_row);
    gv_result_check(r, "row_shape", worst, SHAPE_BOUND,
                    "row %lld: its elements' errors, the row's common factor set aside, are %.3g "
                    "times what the rounded argument, %s and the %s allow (bound %g)",
                    (long long)worst_row, worst,
                    p->c.dtype == GV_F32 ? "expf's 2 ulp" : "exp's 1 ulp",
                    log_form ? "final subtraction" : "division", SHAPE_BOUND);
}

static void rows_measure(const gv_problem *p, gv_result *r)
{
    rows_shape_check(p, r, false);
}
static void log_measure(const gv_problem *p, gv_result *r)
{
    rows_shape_check(p, r, true);
}

#define SOFTMAX_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)
/* The norms square their inputs in the dtype: near the overflow threshold (huge) x^2 is +Inf
   in any kernel that does not rescale, PyTorch's included; that distribution is left out. */
#define NORM_DISTS                                                                                 \
    (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_BIT(GV_DIST_TINY) | GV_BIT(GV_DIST_SPARSE_SPECIAL))

#define ROWS_COMMON                                                                                \
    .family = "softmax", .dims = "m,n", .in_dims = "m,n", .out_dims = "m,n",                       \
    .modes = GV_BIT(GV_MODE_NATIVE), .check_shape = rows_check_shape, .layout = rows_layout,       \
    .flops = rows_flops, .bytes = rows_bytes, .make_inputs = rows_inputs,                          \
    .reference_ignores_mode = true, .range_degree = 1

#define SOFTMAX_COMMON                                                                             \
    ROWS_COMMON, .dists = SOFTMAX_DISTS, .oracle = rows_oracle, .gauge = rows_gauge,               \
                 .subnormals_unpromised = true,                                                    \
                 .depth = rows_depth, .order_free_depth = rows_of_depth, .measure = rows_measure,  \
                 .error_model =                                                                    \
                     "|y-r| <= u y (h + A + D): h half an ulp of x-M in u, A = sum y h, depth "    \
                     "D = d_s + 2E + 2 (sum depth d_s, exp E = 5 f32, 3 f64); per-element shape "  \
                     "check u (h + E + 1) (docs/error-models.md)"

#define SOFTMAX_SHAPES      .shapes = "4096x1024,64x65536"
#define SOFTMAX_TEST_SHAPES .test_shapes = "1x1,3x7,33x100,16x1000,7x4097,4x65536"
#define SOFTMAX_CANARIES                                                                           \
    .canaries = "wide:1024x1024,huge:256x1024,sparse-special:256x1024",                            \
    .test_canaries = "wide:256x1024,huge:64x256,sparse-special:64x256"

static const gv_op softmax_rows = {
    .name = "softmax.rows",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "y = exp(x - max) / sum exp(x - max) along each row: one block a row",
    .default_dist = GV_DIST_UNIFORM11,
    SOFTMAX_SHAPES,
    SOFTMAX_TEST_SHAPES,
    SOFTMAX_CANARIES,
    .device = GV_KERNEL(gk_softmax_rows),
    SOFTMAX_COMMON,
};

/* exp(x) of logits above about 88.7 (f32) or 709.8 (f64) is +Inf, and Inf / Inf is NaN: the
   wide distribution's rows reach them (tests/cpu/model_softmax.c counts them). */
static const gv_op softmax_rows_nomax = {
    .name = "softmax.rows.nomax",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: exp(x) / sum exp(x) without subtracting the row's largest value",
    .planted_bug = "no max subtraction: exp overflows on large logits, Inf / Inf = NaN",
    .default_dist = GV_DIST_WIDE,
    .shapes = "1024x1024",
    .test_shapes = "256x1024",
    .device = GV_KERNEL(gk_softmax_rows_nomax),
    SOFTMAX_COMMON,
};

static const gv_op softmax_rows_partialsum = {
    .name = "softmax.rows.partialsum",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the row's sum stops after the block's first pass over the row",
    .planted_bug = "normalised by a partial sum (the first blockDim elements of the row)",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x1024",
    .test_shapes = "33x1000,4x65536",
    .device = GV_KERNEL(gk_softmax_rows_partialsum),
    SOFTMAX_COMMON,
};

/* The limits of log-softmax on a row that holds +Inf and no NaN (op.h, limit_reference). The
   stable form the oracle follows (x - M with M = +Inf) makes the whole row NaN, as PyTorch and
   gpuval's kernel return it; SciPy's form (cupyx.scipy.special.log_softmax: the max reset to
   0 where it is not finite, then x - log sum exp x) returns -Inf at every entry below +Inf
   and NaN at the +Inf ones. -Inf there is the value's limit whichever way the infinite
   entries grow (y_j = x_j - log sum exp x -> -Inf for every finite or -Inf x_j), so it is
   accepted beside NaN; NaN stays the only value at the +Inf entries (their limit depends on
   how the infinities compare), and NaN rows stay NaN. */
static int log_limits(const gv_problem *p, double *ref, int64_t *patched)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    *patched = 0;
    for (int64_t i = 0; i < m; i++) {
        const double *x = p->in[0].ref + i * n;
        bool pinf = false, nan = false;
        for (int64_t j = 0; j < n; j++) {
            pinf |= x[j] == INFINITY;
            nan |= x[j] != x[j];
        }
        if (!pinf || nan) continue;
        for (int64_t j = 0; j < n; j++) {
            double c = gv_dtype_load(p->c.dtype, p->out[0].data, i * n + j);
            if (x[j] < INFINITY && c == -INFINITY && ref[i * n + j] != ref[i * n + j]) {
                ref[i * n + j] = -INFINITY;
                (*patched)++;
            }
        }
    }
    return GV_OK;
}

static const gv_op softmax_log = {
    .name = "softmax.log",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "y = (x - max) - log sum exp(x - max) along each row: one block a row",
    .default_dist = GV_DIST_UNIFORM11,
    SOFTMAX_SHAPES,
    SOFTMAX_TEST_SHAPES,
    SOFTMAX_CANARIES,
    .device = GV_KERNEL(gk_softmax_log),
    ROWS_COMMON,
    .dists = SOFTMAX_DISTS,
    .oracle = log_oracle,
    .limit_reference = log_limits,
    .gauge = log_gauge,
    .depth = log_depth,
    .order_free_depth = log_of_depth,
    .measure = log_measure,
    .error_model = "|y-r| <= u (D + h + A + 3L + |y|): L = log sum, depth D = d_s + E + 4; "
                   "per-element shape check u (h + half ulp of y) (docs/error-models.md)",
};

#define LAYER_COMMON                                                                               \
    ROWS_COMMON,                                                                                   \
        .dists = NORM_DISTS, .oracle = layer_oracle, .gauge = layer_gauge, .depth = layer_depth,   \
        .order_free_depth = layer_of_depth,                                                        \
        .error_model = "|y-r| <= u (((d_s+2) mean|x| + |x-mean|) / sd + |y| (d_s/2 + "             \
                       "10)): depth d_s + 10, sd = sqrt(var + 1e-5) (docs/error-models.md)"

static const gv_op norm_layer = {
    .name = "norm.layer",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "y = (x - mean) / sqrt(var + 1e-5) along each row (biased var, no affine)",
    .default_dist = GV_DIST_UNIFORM11,
    SOFTMAX_SHAPES,
    SOFTMAX_TEST_SHAPES,
    .canaries = "offgrid:1024x1024,tiny:256x1024,sparse-special:256x1024",
    .test_canaries = "offgrid:256x1024,tiny:64x256,sparse-special:64x256",
    .device = GV_KERNEL(gk_norm_layer),
    LAYER_COMMON,
};

/* var * n / (n - 1): a relative error of 1/(2n) in y, 2^13 u at n = 1024 in f32 */
static const gv_op norm_layer_unbiased = {
    .name = "norm.layer.unbiased",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the variance divided by n - 1 (unbiased) instead of n",
    .planted_bug = "unbiased variance (n - 1), where layer norm takes the biased one (n)",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x1024",
    .test_shapes = "33x100,64x1024",
    .device = GV_KERNEL(gk_norm_layer_unbiased),
    LAYER_COMMON,
};

/* A row that holds +-Inf or NaN: the IEEE evaluation of x / sqrt(mean(x^2) + eps) gives 0 for
   its finite elements (x / Inf), PyTorch's rms_norm NaN (on an H100, torch 2.11: every such
   row), and neither is a convention to hold kernels to; rows of finite values only. */
#define RMS_DISTS (GV_FINITE_DISTS | GV_BIT(GV_DIST_WIDE) | GV_BIT(GV_DIST_TINY))

#define RMS_COMMON_AT(oracle_fn, eps_text)                                                         \
    ROWS_COMMON, .dists = RMS_DISTS, .oracle = oracle_fn, .gauge = rms_gauge,                     \
                 .depth = rms_depth, .order_free_depth = rms_of_depth,                             \
                 .error_model = "|y-r| <= u |y| (d_s/2 + 9): gauge |y|, depth d_s/2 + 9, eps "     \
                                eps_text " (docs/error-models.md)"
#define RMS_COMMON RMS_COMMON_AT(rms_oracle, "1e-6")

static const gv_op norm_rms = {
    .name = "norm.rms",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "y = x / sqrt(mean(x^2) + 1e-6) along each row (no affine)",
    .default_dist = GV_DIST_UNIFORM11,
    SOFTMAX_SHAPES,
    SOFTMAX_TEST_SHAPES,
    .canaries = "wide:1024x1024,tiny:256x1024",
    .test_canaries = "wide:256x1024,tiny:64x256",
    .device = GV_KERNEL(gk_norm_rms),
    RMS_COMMON,
};

/* RMS norm at eps 1e-5 (nn.RMSNorm as KernelBench's problem 36 builds it): the model is
   norm.rms's, which holds for any eps the dtype rounds once (docs/error-models.md) */
#define RMS5_COMMON RMS_COMMON_AT(rms5_oracle, "1e-5")

static const gv_op norm_rms_eps5 = {
    .name = "norm.rms.eps5",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "y = x / sqrt(mean(x^2) + 1e-5) along each row (no affine)",
    .default_dist = GV_DIST_UNIFORM11,
    SOFTMAX_SHAPES,
    SOFTMAX_TEST_SHAPES,
    .canaries = "wide:1024x1024,tiny:256x1024",
    .test_canaries = "wide:256x1024,tiny:64x256",
    .device = GV_KERNEL(gk_norm_rms_eps5),
    RMS5_COMMON,
};

/* A kernel with the other eps constant (norm.rms's 1e-6) where 1e-5 is asked: on tiny inputs
   (squares that vanish beside eps) y = x / sqrt(eps), off by sqrt(10) */
static const gv_op norm_rms_eps5_eps6 = {
    .name = "norm.rms.eps5.eps6",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: eps 1e-6 where the op's is 1e-5",
    .planted_bug = "the wrong eps constant (1e-6 for 1e-5): rows of small values off by up to "
                   "sqrt(10)",
    .default_dist = GV_DIST_TINY,
    .shapes = "256x1024",
    .test_shapes = "64x256",
    .device = GV_KERNEL(gk_norm_rms),
    RMS5_COMMON,
};

/* The L2 and mean-L1 row normalisations (KernelBench's problems 39 and 38: x / torch.norm(x,
   dim=1) and x / mean(|x|, dim=1)) have no eps: a row whose squares (or whose mean) fall into
   the subnormals loses its relative accuracy in any kernel that does not rescale, and a row of
   non-finite values gives what IEEE's division gives, which torch's norm need not: finite
   rows of normal values only (tiny, huge and the specials left out). Gauge |y|, as RMS norm's
   (docs/error-models.md, section softmax). */
#define LP_DISTS (GV_FINITE_DISTS | GV_BIT(GV_DIST_WIDE))
#define L2_COMMON                                                                                  \
    ROWS_COMMON, .dists = LP_DISTS, .oracle = l2_oracle, .gauge = rms_gauge, .depth = l2_depth,   \
                 .order_free_depth = l2_of_depth,                                                  \
                 .error_model = "|y-r| <= u |y| (d_s/2 + 3): gauge |y|, depth d_s/2 + 3 "          \
                                "(docs/error-models.md)"
#define L1MEAN_COMMON                                                                              \
    ROWS_COMMON, .dists = LP_DISTS, .oracle = l1mean_oracle, .gauge = rms_gauge,                  \
                 .depth = l1mean_depth, .order_free_depth = l1mean_of_depth,                       \
                 .error_model = "|y-r| <= u |y| (d_s + 3): gauge |y|, depth d_s + 3 "              \
                                "(docs/error-models.md)"

static const gv_op norm_l2 = {
    .name = "norm.l2",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "y = x / sqrt(sum x^2) along each row (L2 normalisation, no eps)",
    .default_dist = GV_DIST_UNIFORM11,
    SOFTMAX_SHAPES,
    SOFTMAX_TEST_SHAPES,
    .canaries = "wide:1024x1024,offgrid:256x1024",
    .test_canaries = "wide:256x1024,offgrid:64x256",
    .device = GV_KERNEL(gk_norm_l2),
    L2_COMMON,
};

/* The sum stops after the block's first pass (256 of 1000 terms): the norm of a quarter */
static const gv_op norm_l2_partialsum = {
    .name = "norm.l2.partialsum",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the row's sum of squares stops after the block's first pass",
    .planted_bug = "normalised by a partial sum of squares (the first blockDim elements)",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x1024",
    .test_shapes = "33x1000,4x65536",
    .device = GV_KERNEL(gk_norm_l2_partialsum),
    L2_COMMON,
};

static const gv_op norm_l1mean = {
    .name = "norm.l1mean",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "y = x / mean|x| along each row (KernelBench's L1 norm: the mean, not the sum)",
    .default_dist = GV_DIST_UNIFORM11,
    SOFTMAX_SHAPES,
    SOFTMAX_TEST_SHAPES,
    .canaries = "wide:1024x1024,offgrid:256x1024",
    .test_canaries = "wide:256x1024,offgrid:64x256",
    .device = GV_KERNEL(gk_norm_l1mean),
    L1MEAN_COMMON,
};

/* The textbook L1 normalisation (x / sum |x|) where the problem asks for the mean: off by n */
static const gv_op norm_l1mean_sum = {
    .name = "norm.l1mean.sum",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: divided by sum |x| instead of its mean",
    .planted_bug = "the sum of |x| where the mean is asked: every output n times too small",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x1024",
    .test_shapes = "33x100,64x1024",
    .device = GV_KERNEL(gk_norm_l1mean_sum),
    L1MEAN_COMMON,
};

/* The Frobenius normalisation x / ||x||_F of the whole tensor (KernelBench's problem 37): norm.l2
   of one row of m n elements, its dists and model */
#define FRO_COMMON                                                                                 \
    ROWS_COMMON, .dists = LP_DISTS, .oracle = fro_oracle, .gauge = rms_gauge,                     \
                 .depth = fro_depth, .order_free_depth = fro_of_depth,                             \
                 .error_model = "|y-r| <= u |y| (d_s/2 + 3): gauge |y|, d_s the depth of one sum "  \
                                "over the tensor (docs/error-models.md)"

static const gv_op norm_fro = {
    .name = "norm.fro",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "y = x / sqrt(sum of every x^2) (Frobenius normalisation of the whole tensor)",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "1024x1024,64x65536",
    SOFTMAX_TEST_SHAPES,
    .canaries = "wide:1024x1024,offgrid:256x1024",
    .test_canaries = "wide:256x1024,offgrid:64x256",
    .device = GV_KERNEL(gk_norm_fro),
    FRO_COMMON,
};

/* Each row by its own norm (dim=1) where the whole tensor's is asked: off by the share of the
   row in the whole, about sqrt(m) */
static const gv_op norm_fro_rows = {
    .name = "norm.fro.rows",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: each row normalised by its own L2 norm, not the tensor's",
    .planted_bug = "row norms where the Frobenius norm of the whole tensor is asked",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "1024x1024",
    .test_shapes = "33x100,64x1024",
    .device = GV_KERNEL(gk_norm_l2),
    FRO_COMMON,
};

/* Without eps a row of tiny values has mean(x^2) = 0 in the dtype (the squares underflow),
   and x / 0 is +-Inf where the result is about x / sqrt(1e-6). */
static const gv_op norm_rms_noeps = {
    .name = "norm.rms.noeps",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the mean square's eps left out",
    .planted_bug = "no eps: rows whose squares underflow divide by zero",
    .default_dist = GV_DIST_TINY,
    .shapes = "256x1024",
    .test_shapes = "64x256",
    .device = GV_KERNEL(gk_norm_rms_noeps),
    RMS_COMMON,
};

const gv_op *const gv_family_softmax[] = {&softmax_rows,
                                          &softmax_rows_nomax,
                                          &softmax_rows_partialsum,
                                          &softmax_log,
                                          &norm_layer,
                                          &norm_layer_unbiased,
                                          &norm_rms,
                                          &norm_rms_noeps,
                                          &norm_rms_eps5,
                                          &norm_rms_eps5_eps6,
                                          &norm_l2,
                                          &norm_l2_partialsum,
                                          &norm_l1mean,
                                          &norm_l1mean_sum,
                                          &norm_fro,
                                          &norm_fro_rows,
                                          NULL};
