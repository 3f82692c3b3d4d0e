/* pool.c: op descriptors for 2-D max and average pooling of an NCHW tensor (dims nc, h, w, k:
 * nc planes of h x w, window k x k, stride k as torch.nn.MaxPool2d(k) and AvgPool2d(k), no
 * padding), one thread an output on the device, and their planted bugs (a window one row and
 * one column too wide); the same in 1-D (dims nc, l, k: MaxPool1d(k), AvgPool1d(k)) and 3-D
 * (dims nc, d, s, k: volumes d x s x s, MaxPool3d(k), AvgPool3d(k); a case holds four dims).
 * Error model: docs/error-models.md, section pool. */
#include "ops/opkit.h"

extern const gk_op gk_pool_max2d, gk_pool_avg2d, gk_pool_max2d_window, gk_pool_avg2d_window;
extern const gk_op gk_pool_max1d, gk_pool_avg1d, gk_pool_max1d_window, gk_pool_avg1d_window;
extern const gk_op gk_pool_max3d, gk_pool_avg3d, gk_pool_max3d_window, gk_pool_avg3d_window;

/* k*k terms a window: at most 2^24, so that k*k is exact in f32 (the average's divisor) */
#define POOL_MAX_K 4096

static int pool_check_shape(const gv_shape *s, char *why, size_t len)
{
    int64_t nc = s->d[0], h = s->d[1], w = s->d[2], k = s->d[3];
    if (k < 1 || k > POOL_MAX_K || h < k || w < k || (double)nc * (double)h * (double)w > 4e9) {
        snprintf(why, len,
                 "pooling takes 1 <= k <= %d, h >= k, w >= k and fewer than 4e9 elements (got "
                 "nc %lld, h %lld, w %lld, k %lld)",
                 POOL_MAX_K, (long long)nc, (long long)h, (long long)w, (long long)k);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int64_t pool_outputs(const gv_case *c)
{
    const int64_t *d = c->shape.d;
    return d[0] * (d[1] / d[3]) * (d[2] / d[3]);
}

static int pool_layout(const gv_case *c, gv_layout *l)
{
    const int64_t *d = c->shape.d;
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", d[0] * d[1] * d[2]};
    l->out[0] = (gv_tensor_spec){"y", pool_outputs(c)};
    return GV_OK;
}

/* The output's shape (nc, h / k, w / k), which out_dims cannot write (the dims divided). */
static int pool_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i,
                             int64_t *shape)
{
    const int64_t *d = c->shape.d;
    (void)l;
    (void)i;
    shape[0] = d[0];
    shape[1] = output ? d[1] / d[3] : d[1];
    shape[2] = output ? d[2] / d[3] : d[2];
    return 3;
}

/* k*k comparisons or additions an output */
static double pool_flops(const gv_case *c)
{
    return (double)pool_outputs(c) * (double)c->shape.d[3] * (double)c->shape.d[3];
}

static double pool_bytes(const gv_case *c)
{
    const int64_t *d = c->shape.d;
    return ((double)d[0] * (double)d[1] * (double)d[2] + (double)pool_outputs(c)) * gv_esize(c);
}

static int pool_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

#define POOL_ARGS                                                                                  \
    const int64_t *d = p->c.shape.d;                                                               \
    int64_t nc = d[0], h = d[1], w = d[2], k = d[3]

static int max_oracle(gv_problem *p)
{
    POOL_ARGS;
    return gv_oracle_rc(go_pool_max2d(nc, h, w, k, p->in[0].ref, p->out[0].ref));
}

/* The max is one of its inputs: no rounding, gauge 0, so that any difference beyond the
   underflow term fails the worst-case model too (and the exact rule, on generated inputs). */
static int max_gauge(gv_problem *p)
{
    for (int64_t i = 0; i < p->out[0].count; i++)
        p->out[0].gauge[i] = 0.0;
    return GV_OK;
}

static double max_depth(const gv_case *c)
{
    (void)c;
    return 1.0;
}

static bool max_exact(const gv_case *c)
{
    (void)c;
    return true;
}

static int avg_oracle(gv_problem *p)
{
    POOL_ARGS;
    return gv_oracle_rc(go_pool_avg2d(nc, h, w, k, p->in[0].ref, p->out[0].ref));
}

static int avg_gauge(gv_problem *p)
{
    POOL_ARGS;
    return gv_oracle_rc(go_pool_avg2d_gauge(nc, h, w, k, p->in[0].ref, p->out[0].gauge));
}

/* k*k terms added (k*k - 1 roundings on a path in any order), then the division by k*k:
   |y^ - y| <= u ((k*k - 1) g + |y|) <= u k*k g, g the window's mean of |x| (ASNA eq. 4.3). */
static double avg_depth(const gv_case *c)
{
    return (double)c->shape.d[3] * (double)c->shape.d[3];
}

/* Any order, and a product by a reciprocal 1/(k*k) (rounded unless k is a power of two) in
   place of the division: one rounding more. */
static double avg_of_depth(const gv_case *c)
{
    return avg_depth(c) + 1.0;
}

/* The dtype's tier, except on values near the overflow threshold (huge, +-m 2^e over a few
   binades): a window's mean cancels to |y| far below its mean of |x|, where the model's
   u k^2 mean|x| exceeds t (1 + |y|) and real errors do too (the CPU emulation of the kernel in
   f32, tests/cpu/model_pool.c). The model alone judges there. */
static double avg_expected_tier(const gv_case *c, char *why, size_t len)
{
    if (c->dist != GV_DIST_HUGE) return gv_dtype_tier(c->dtype);
    snprintf(why, len,
             "huge inputs: a window's mean cancels to |y| far below mean|x|, where u k^2 "
             "mean|x| exceeds the tier");
    return 0.0;
}

#define POOL_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)

#define POOL_COMMON                                                                                \
    .family = "pool", .dims = "nc,h,w,k", .in_dims = "nc,h,w", .tensor_shape = pool_tensor_shape,  \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = POOL_DISTS,                \
    .check_shape = pool_check_shape, .layout = pool_layout, .flops = pool_flops,                   \
    .bytes = pool_bytes, .make_inputs = pool_inputs, .reference_ignores_mode = true,               \
    .range_degree = 1

#define MAX_COMMON                                                                                 \
    POOL_COMMON, .oracle = max_oracle, .gauge = max_gauge, .depth = max_depth, .exact = max_exact, \
                 .error_model = "y = r exactly: the max is one of the window's inputs (gauge 0, "  \
                                "NaN where the window holds one) (docs/error-models.md)"

#define AVG_COMMON                                                                                 \
    POOL_COMMON,                                                                                   \
        .oracle = avg_oracle, .gauge = avg_gauge, .depth = avg_depth,                              \
        .order_free_depth = avg_of_depth, .expected_tier = avg_expected_tier,                      \
        .error_model = "|y-r| <= gamma_{k*k} mean|x|: the window's k*k-term sum, then "            \
                       "the division by k*k (Higham ASNA sec. 4.2) (docs/error-models.md)"

/* The tiny distribution is left out of the max's canaries: its outputs are exact like any
   other, and the edge canaries' check of a subnormal one spacing off (tests/cpu/model_edges.c:
   what an FMA rounding in the subnormals may do) does not apply to an op with no arithmetic. */
static const gv_op pool_max2d = {
    .name = "pool.max2d",
    .summary = "y = max over each k x k window, stride k, of NCHW planes (MaxPool2d(k))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "256x224x224x2,64x112x112x3,8x1024x1024x4",
    .test_shapes = "1x1x1x1,3x7x5x2,16x33x31x3,64x56x56x2,2x250x250x7",
    .canaries = "huge:64x56x56x2,sparse-special:64x56x56x2",
    .test_canaries = "huge:16x33x31x3,sparse-special:16x33x31x3",
    .device = GV_KERNEL(gk_pool_max2d),
    MAX_COMMON,
};

static const gv_op pool_max2d_window = {
    .name = "pool.max2d.window",
    .summary = "planted bug: the max over a (k+1) x (k+1) window where it fits in the plane",
    .planted_bug = "off-by-one window (<= for <): a row and a column of the next window taken",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "64x112x112x3",
    .test_shapes = "3x7x5x2,16x33x31x3",
    .device = GV_KERNEL(gk_pool_max2d_window),
    MAX_COMMON,
};

static const gv_op pool_avg2d = {
    .name = "pool.avg2d",
    .summary = "y = mean over each k x k window, stride k, of NCHW planes (AvgPool2d(k))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "256x224x224x2,64x112x112x3,8x1024x1024x4,4x512x512x32",
    .test_shapes = "1x1x1x1,3x7x5x2,16x33x31x3,64x56x56x2,2x250x250x7,1x256x256x64",
    .canaries = "tiny:64x56x56x2,huge:64x56x56x2,sparse-special:64x56x56x2",
    .test_canaries = "tiny:16x33x31x3,huge:16x33x31x3,sparse-special:16x33x31x3",
    .device = GV_KERNEL(gk_pool_avg2d),
    AVG_COMMON,
};

static const gv_op pool_avg2d_window = {
    .name = "pool.avg2d.window",
    .summary = "planted bug: the mean of a (k+1) x (k+1) window's sum over k*k",
    .planted_bug = "off-by-one window (<= for <): the sum takes a row and a column too many",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "64x112x112x3",
    .test_shapes = "3x7x5x2,16x33x31x3",
    .device = GV_KERNEL(gk_pool_avg2d_window),
    AVG_COMMON,
};

/* 1-D and 3-D: rank 1 has dims nc, l, k; rank 3 nc, d, s, k (volumes d x s x s). */
static int pool_rank(const gv_case *c)
{
    return c->shape.nd == 3 ? 1 : 3;
}

/* The sides (l; or d, s, s) and the window k of a 1-D or 3-D case. */
static int64_t nd_sides(const gv_case *c, int64_t *sz, int64_t *k)
{
    const int64_t *d = c->shape.d;
    if (pool_rank(c) == 1) {
        sz[0] = d[1];
        *k = d[2];
        return d[1];
    }
    sz[0] = d[1];
    sz[1] = sz[2] = d[2];
    *k = d[3];
    return d[1] * d[2] * d[2];
}

static int64_t nd_outputs(const gv_case *c)
{
    int64_t sz[3], k, out = c->shape.d[0];
    nd_sides(c, sz, &k);
    for (int r = 0; r < pool_rank(c); r++)
        out *= sz[r] / k;
    return out;
}

/* k or k^3 terms a window */
static double nd_terms(const gv_case *c)
{
    int64_t sz[3], k;
    nd_sides(c, sz, &k);
    return pool_rank(c) == 1 ? (double)k : (double)k * (double)k * (double)k;
}

static int nd_check_shape(const gv_shape *s, char *why, size_t len)
{
    const int64_t *d = s->d;
    const bool one = s->nd == 3;
    const int64_t k = one ? d[2] : d[3];
    const double terms = one ? (double)k : (double)k * (double)k * (double)k;
    const double elems = one ? (double)d[0] * (double)d[1]
                             : (double)d[0] * (double)d[1] * (double)d[2] * (double)d[2];
    /* at most 2^24 terms a window, so that their count is exact in f32 (the average's divisor) */
    if (k < 1 || terms > 16777216.0 || d[1] < k || (!one && d[2] < k) || elems > 4e9) {
        snprintf(why, len,
                 "%s pooling takes a window k >= 1 of at most 2^24 terms, sides >= k and fewer "
                 "than 4e9 elements (got nc %lld, sides %lld x %lld, k %lld)",
                 one ? "1-D (nc, l, k)" : "3-D (nc, d, s, k)", (long long)d[0], (long long)d[1],
                 (long long)(one ? 1 : d[2]), (long long)k);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int nd_layout(const gv_case *c, gv_layout *l)
{
    int64_t sz[3], k;
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", c->shape.d[0] * nd_sides(c, sz, &k)};
    l->out[0] = (gv_tensor_spec){"y", nd_outputs(c)};
    return GV_OK;
}

/* (nc, l) -> (nc, l / k); (nc, d, s, s) -> (nc, d / k, s / k, s / k) */
static int nd_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i, int64_t *shape)
{
    int64_t sz[3], k;
    (void)l;
    (void)i;
    nd_sides(c, sz, &k);
    shape[0] = c->shape.d[0];
    for (int r = 0; r < pool_rank(c); r++)
        shape[1 + r] = output ? sz[r] / k : sz[r];
    return 1 + pool_rank(c);
}

static double nd_flops(const gv_case *c)
{
    return (double)nd_outputs(c) * nd_terms(c);
}

static double nd_bytes(const gv_case *c)
{
    int64_t sz[3], k;
    return ((double)c->shape.d[0] * (double)nd_sides(c, sz, &k) + (double)nd_outputs(c)) *
           gv_esize(c);
}

typedef int (*pool_nd_fn)(int64_t, const int64_t *, int64_t, const double *, double *);

static int nd_run(gv_problem *p, pool_nd_fn one, pool_nd_fn three, double *out)
{
    int64_t sz[3], k;
    nd_sides(&p->c, sz, &k);
    return gv_oracle_rc(
        (pool_rank(&p->c) == 1 ? one : three)(p->c.shape.d[0], sz, k, p->in[0].ref, out));
}

static int nd_max_oracle(gv_problem *p)
{
    return nd_run(p, go_pool_max1d, go_pool_max3d, p->out[0].ref);
}

static int nd_avg_oracle(gv_problem *p)
{
    return nd_run(p, go_pool_avg1d, go_pool_avg3d, p->out[0].ref);
}

static int nd_avg_gauge(gv_problem *p)
{
    return nd_run(p, go_pool_avg1d_gauge, go_pool_avg3d_gauge, p->out[0].gauge);
}

/* As avg_depth: T terms a window (k or k^3), T - 1 additions and the division. */
static double nd_avg_depth(const gv_case *c)
{
    return nd_terms(c);
}

static double nd_avg_of_depth(const gv_case *c)
{
    return nd_terms(c) + 1.0;
}

#define POOL_ND_COMMON(dims_)                                                                      \
    .family = "pool", .dims = dims_, .tensor_shape = nd_tensor_shape, .dtypes = GV_BOTH_DTYPES,    \
    .modes = GV_BIT(GV_MODE_NATIVE), .dists = POOL_DISTS, .check_shape = nd_check_shape,           \
    .layout = nd_layout, .flops = nd_flops, .bytes = nd_bytes, .make_inputs = pool_inputs,         \
    .reference_ignores_mode = true, .range_degree = 1

/* in_dims give --inputs its shapes: 1-D (nc, l); 3-D (nc, d, s, s) */
#define MAX_ND(dims_, in_)                                                                         \
    POOL_ND_COMMON(dims_), .in_dims = in_, .oracle = nd_max_oracle, .gauge = max_gauge,            \
                           .depth = max_depth, .exact = max_exact,                                 \
                           .error_model = "y = r exactly: the max is one of the window's inputs "  \
                                          "(gauge 0, NaN where the window holds one) "             \
                                          "(docs/error-models.md)"

#define AVG_ND(dims_, in_)                                                                         \
    POOL_ND_COMMON(dims_), .in_dims = in_, .oracle = nd_avg_oracle, .gauge = nd_avg_gauge,         \
                           .depth = nd_avg_depth, .order_free_depth = nd_avg_of_depth,             \
                           .expected_tier = avg_expected_tier,                                     \
                           .error_model = "|y-r| <= gamma_T mean|x|, T = k (1-D) or k^3 (3-D): "   \
                                          "the window's T-term sum, then the division by T "       \
                                          "(Higham ASNA sec. 4.2) (docs/error-models.md)"

static const gv_op pool_max1d = {
    .name = "pool.max1d",
    .summary = "y = max over each window of k, stride k, of nc rows of l (MaxPool1d(k))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x4096x2,64x1000003x8",
    .test_shapes = "1x1x1,3x7x2,16x1001x3,64x4096x4,2x65537x16",
    .canaries = "huge:1024x4096x4,sparse-special:1024x4096x4",
    .test_canaries = "huge:16x1001x3,sparse-special:16x1001x3",
    .device = GV_KERNEL(gk_pool_max1d),
    MAX_ND("nc,l,k", "nc,l"),
};

static const gv_op pool_max1d_window = {
    .name = "pool.max1d.window",
    .summary = "planted bug: the max over a window of k+1 where it fits in the row",
    .planted_bug = "off-by-one window (<= for <): the next window's first element taken",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "1024x65536x4",
    .test_shapes = "3x7x2,16x1001x3",
    .device = GV_KERNEL(gk_pool_max1d_window),
    MAX_ND("nc,l,k", "nc,l"),
};

static const gv_op pool_avg1d = {
    .name = "pool.avg1d",
    .summary = "y = mean over each window of k, stride k, of nc rows of l (AvgPool1d(k))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x4096x2,64x1000003x8,16x65536x4096",
    .test_shapes = "1x1x1,3x7x2,16x1001x3,64x4096x4,2x65537x16,1x100000x4096",
    .canaries = "tiny:1024x4096x4,huge:1024x4096x4,sparse-special:1024x4096x4",
    .test_canaries = "tiny:16x1001x3,huge:16x1001x3,sparse-special:16x1001x3",
    .device = GV_KERNEL(gk_pool_avg1d),
    AVG_ND("nc,l,k", "nc,l"),
};

static const gv_op pool_avg1d_window = {
    .name = "pool.avg1d.window",
    .summary = "planted bug: the sum of a window of k+1 over k",
    .planted_bug = "off-by-one window (<= for <): the sum takes one element too many",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "1024x65536x4",
    .test_shapes = "3x7x2,16x1001x3",
    .device = GV_KERNEL(gk_pool_avg1d_window),
    AVG_ND("nc,l,k", "nc,l"),
};

static const gv_op pool_max3d = {
    .name = "pool.max3d",
    .summary = "y = max over each k x k x k window, stride k, of nc volumes of d x s x s "
               "(MaxPool3d(k))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "128x32x64x3,16x64x128x4",
    .test_shapes = "1x1x1x1,3x7x5x2,16x9x13x3,64x16x16x2,2x33x40x5",
    .canaries = "huge:64x16x16x2,sparse-special:64x16x16x2",
    .test_canaries = "huge:16x9x13x3,sparse-special:16x9x13x3",
    .device = GV_KERNEL(gk_pool_max3d),
    MAX_ND("nc,d,s,k", "nc,d,s,s"),
};

static const gv_op pool_max3d_window = {
    .name = "pool.max3d.window",
    .summary = "planted bug: the max over a (k+1)^3 window where it fits in the volume",
    .planted_bug = "off-by-one window (<= for <): a slice along each side of the next windows "
                   "taken",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "128x32x64x3",
    .test_shapes = "3x7x5x2,16x9x13x3",
    .device = GV_KERNEL(gk_pool_max3d_window),
    MAX_ND("nc,d,s,k", "nc,d,s,s"),
};

static const gv_op pool_avg3d = {
    .name = "pool.avg3d",
    .summary = "y = mean over each k x k x k window, stride k, of nc volumes of d x s x s "
               "(AvgPool3d(k))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "128x32x64x3,16x64x128x4,4x64x64x16",
    .test_shapes = "1x1x1x1,3x7x5x2,16x9x13x3,64x16x16x2,2x33x40x5,1x32x32x32",
    .canaries = "tiny:64x16x16x2,huge:64x16x16x2,sparse-special:64x16x16x2",
    .test_canaries = "tiny:16x9x13x3,huge:16x9x13x3,sparse-special:16x9x13x3",
    .device = GV_KERNEL(gk_pool_avg3d),
    AVG_ND("nc,d,s,k", "nc,d,s,s"),
};

static const gv_op pool_avg3d_window = {
    .name = "pool.avg3d.window",
    .summary = "planted bug: the sum of a (k+1)^3 window over k^3",
    .planted_bug = "off-by-one window (<= for <): the sum takes a slice along each side too many",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "128x32x64x3",
    .test_shapes = "3x7x5x2,16x9x13x3",
    .device = GV_KERNEL(gk_pool_avg3d_window),
    AVG_ND("nc,d,s,k", "nc,d,s,s"),
};

const gv_op *const gv_family_pool[] = {
    &pool_max2d, &pool_max2d_window, &pool_avg2d, &pool_avg2d_window,
    &pool_max1d, &pool_max1d_window, &pool_avg1d, &pool_avg1d_window,
    &pool_max3d, &pool_max3d_window, &pool_avg3d, &pool_avg3d_window,
    NULL};
