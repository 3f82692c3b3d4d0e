/* poolpad.c: op descriptors for max and average pooling with a stride other than the window,
 * zero padding and dilation (abi/poolpad.h's geometries: torch.nn.MaxPool1d(8, 1, 4, 3),
 * MaxPool2d(4, 1, 1), MaxPool3d(3, 2, 1, 3), AvgPool1d(8, 1, 4), AvgPool3d(3, 2, 1): KernelBench's
 * level-1 problems 41, 42, 43, 44 and 46), one thread an output on the device, and their
 * planted bugs (the dilation ignored, the padding ignored, the average divided by the count of
 * elements inside the input). Dims are the input's: nc, l (1-D); nc, h, w (2-D); nc, d, h, w
 * (3-D). Error model: docs/error-models.md, section poolpad. */
#include "../../abi/poolpad.h"
#include "ops/opkit.h"

typedef struct {
    int rank;
    int64_t k, s, p, dil;
} poolpad_geom;

#define POOLPAD_GEOM_(name, rank, k, s, p, d)                                                      \
    static const poolpad_geom geom_##name = {rank, k, s, p, d};
GK_POOLPAD_GEOMETRIES(POOLPAD_GEOM_)

#define POOLPAD_KERNELS_(name, rank, k, s, p, d)                                                   \
    extern const gk_op gk_poolpad_max_##name, gk_poolpad_avg_##name,                               \
        gk_poolpad_max_##name##_nodil, gk_poolpad_max_##name##_nopad,                              \
        gk_poolpad_avg_##name##_divisor;
GK_POOLPAD_GEOMETRIES(POOLPAD_KERNELS_)

/* The input's sides (the case's dims after nc) and the output's; the count of each. */
static int64_t pp_sides(const gv_shape *s, const poolpad_geom *g, int64_t *in, int64_t *out)
{
    int64_t outs = s->d[0];
    for (int r = 0; r < g->rank; r++) {
        in[r] = s->d[1 + r];
        out[r] = gk_poolpad_out(in[r], g->k, g->s, g->p, g->dil);
        outs *= out[r];
    }
    return outs;
}

static int64_t pp_in_count(const gv_shape *s, const poolpad_geom *g)
{
    int64_t n = s->d[0];
    for (int r = 0; r < g->rank; r++)
        n *= s->d[1 + r];
    return n;
}

static int64_t pp_outputs(const gv_case *c, const poolpad_geom *g)
{
    int64_t in[3], out[3];
    return pp_sides(&c->shape, g, in, out);
}

/* k^rank terms a window (the average's divisor, and the sum's length) */
static double pp_terms(const poolpad_geom *g)
{
    return pow((double)g->k, g->rank);
}

static int pp_check_shape(const gv_shape *s, const poolpad_geom *g, char *why, size_t len)
{
    int64_t in[3], out[3];
    bool ok = s->nd == 1 + g->rank && s->d[0] >= 1;
    if (ok) pp_sides(s, g, in, out);
    for (int r = 0; ok && r < g->rank; r++)
        ok = in[r] >= 1 && out[r] >= 1;
    if (!ok || (double)pp_in_count(s, g) > 4e9) {
        snprintf(why, len,
                 "%d-D pooling (window %lld, stride %lld, padding %lld, dilation %lld) takes nc "
                 "and %d sides, each at least %lld (one window), fewer than 4e9 elements",
                 g->rank, (long long)g->k, (long long)g->s, (long long)g->p, (long long)g->dil,
                 g->rank, (long long)(g->dil * (g->k - 1) + 1 - 2 * g->p));
        return GV_EINVAL;
    }
    return GV_OK;
}

static int pp_layout(const gv_case *c, const poolpad_geom *g, gv_layout *l)
{
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", pp_in_count(&c->shape, g)};
    l->out[0] = (gv_tensor_spec){"y", pp_outputs(c, g)};
    return GV_OK;
}

/* (nc, sides) -> (nc, output sides), which out_dims cannot write */
static int pp_tensor_shape(const gv_case *c, const poolpad_geom *g, bool output, int64_t *shape)
{
    int64_t in[3], out[3];
    pp_sides(&c->shape, g, in, out);
    shape[0] = c->shape.d[0];
    for (int r = 0; r < g->rank; r++)
        shape[1 + r] = output ? out[r] : in[r];
    return 1 + g->rank;
}

static double pp_flops(const gv_case *c, const poolpad_geom *g)
{
    return (double)pp_outputs(c, g) * pp_terms(g);
}

static double pp_bytes(const gv_case *c, const poolpad_geom *g)
{
    return ((double)pp_in_count(&c->shape, g) + (double)pp_outputs(c, g)) * gv_esize(c);
}

typedef int (*poolpad_fn)(int, int64_t, const int64_t *, int64_t, int64_t, int64_t, int64_t,
                          const double *, double *);

static int pp_run(gv_problem *p, const poolpad_geom *g, poolpad_fn fn, double *out)
{
    int64_t in[3], o[3];
    pp_sides(&p->c.shape, g, in, o);
    return gv_oracle_rc(
        fn(g->rank, p->c.shape.d[0], in, g->k, g->s, g->p, g->dil, p->in[0].ref, out));
}

static int pp_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

/* The max is one of its inputs: no rounding, gauge 0 (any difference beyond the underflow
   term fails the worst-case model, and the exact rule on generated inputs). */
static int pp_max_gauge(gv_problem *p)
{
    for (int64_t i = 0; i < p->out[0].count; i++)
        p->out[0].gauge[i] = 0.0;
    return GV_OK;
}

static double pp_one(const gv_case *c)
{
    (void)c;
    return 1.0;
}

static bool pp_exact(const gv_case *c)
{
    (void)c;
    return true;
}

/* The dtype's tier but on huge inputs, where a window's mean cancels to |y| far below the
   gauge (the mean of |x|) and the model alone judges (as pool's average: section pool). */
static double pp_avg_tier(const gv_case *c, char *why, size_t len)
{
    if (c->dist != GV_DIST_HUGE) return gv_dtype_tier(c->dtype);
    snprintf(why, len,
             "huge inputs: a padded window's mean cancels to |y| far below its "
             "sum of |x| over k^rank, where the model's bound exceeds the tier");
    return 0.0;
}

#define POOLPAD_HOOKS(name)                                                                        \
    static int name##_check(const gv_shape *s, char *why, size_t len)                              \
    {                                                                                              \
        return pp_check_shape(s, &geom_##name, why, len);                                          \
    }                                                                                              \
    static int name##_layout(const gv_case *c, gv_layout *l)                                       \
    {                                                                                              \
        return pp_layout(c, &geom_##name, l);                                                      \
    }                                                                                              \
    static int name##_shape(const gv_case *c, const gv_layout *l, bool output, int i,              \
                            int64_t *shape)                                                        \
    {                                                                                              \
        (void)l;                                                                                   \
        (void)i;                                                                                   \
        return pp_tensor_shape(c, &geom_##name, output, shape);                                    \
    }                                                                                              \
    static double name##_flops(const gv_case *c)                                                   \
    {                                                                                              \
        return pp_flops(c, &geom_##name);                                                          \
    }                                                                                              \
    static double name##_bytes(const gv_case *c)                                                   \
    {                                                                                              \
        return pp_bytes(c, &geom_##name);                                                          \
    }

#define POOLPAD_MAX_HOOKS(name)                                                                    \
    static int name##_max(gv_problem *p)                                                           \
    {                                                                                              \
        return pp_run(p, &geom_##name, go_poolpad_max, p->out[0].ref);                             \
    }

#define POOLPAD_AVG_HOOKS(name)                                                                    \
    static int name##_avg(gv_problem *p)                                                           \
    {                                                                                              \
        return pp_run(p, &geom_##name, go_poolpad_avg, p->out[0].ref);                             \
    }                                                                                              \
    static int name##_gauge(gv_problem *p)                                                         \
    {                                                                                              \
        return pp_run(p, &geom_##name, go_poolpad_avg_gauge, p->out[0].gauge);                     \
    }                                                                                              \
    /* k^rank terms (the padded zeros add exactly), then the division: as pool's average */        \
    static double name##_depth(const gv_case *c)                                                   \
    {                                                                                              \
        (void)c;                                                                                   \
        return pp_terms(&geom_##name);                                                             \
    }                                                                                              \
    static double name##_of_depth(const gv_case *c)                                                \
    {                                                                                              \
        (void)c;                                                                                   \
        return pp_terms(&geom_##name) + 1.0;                                                       \
    }
POOLPAD_HOOKS(k8s1p4d3)
POOLPAD_HOOKS(k4s1p1)
POOLPAD_HOOKS(k3s2p1d3)
POOLPAD_HOOKS(k8s1p4)
POOLPAD_HOOKS(k3s2p1)
POOLPAD_MAX_HOOKS(k8s1p4d3)
POOLPAD_MAX_HOOKS(k4s1p1)
POOLPAD_MAX_HOOKS(k3s2p1d3)
POOLPAD_AVG_HOOKS(k8s1p4)
POOLPAD_AVG_HOOKS(k3s2p1)

#define POOLPAD_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)

#define POOLPAD_COMMON(g, dims_)                                                                   \
    .family = "poolpad", .dims = dims_, .in_dims = dims_, .tensor_shape = g##_shape,               \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = POOLPAD_DISTS,             \
    .check_shape = g##_check, .layout = g##_layout, .flops = g##_flops, .bytes = g##_bytes,        \
    .make_inputs = pp_inputs, .reference_ignores_mode = true, .range_degree = 1

#define POOLPAD_MAX(g, dims_)                                                                      \
    POOLPAD_COMMON(g, dims_), .oracle = g##_max, .gauge = pp_max_gauge, .depth = pp_one,           \
                              .exact = pp_exact,                                                   \
                              .error_model = "y = r exactly: the max is one of the window's "      \
                                             "inputs, the padding skipped (gauge 0, NaN where "    \
                                             "the window holds one) (docs/error-models.md)"

#define POOLPAD_AVG(g, dims_)                                                                      \
    POOLPAD_COMMON(g, dims_), .oracle = g##_avg, .gauge = g##_gauge, .depth = g##_depth,           \
                              .order_free_depth = g##_of_depth, .expected_tier = pp_avg_tier,      \
                              .error_model = "|y-r| <= gamma_T sum|x|/T, T = k^rank: the "         \
                                             "window's sum inside the input, then the division "   \
                                             "by T, padded zeros counted (Higham ASNA sec. 4.2) "  \
                                             "(docs/error-models.md)"

static const gv_op max1d_k8s1p4d3 = {
    .name = "pool.max1d.k8s1p4d3",
    .summary = "y = max over windows of 8, stride 1, padding 4, dilation 3, of nc rows of l "
               "(MaxPool1d(8, 1, 4, 3))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "256x65536",
    .test_shapes = "1x14,3x30,16x1001,64x4096,2x65537",
    .canaries = "huge:64x4096,sparse-special:64x4096",
    .test_canaries = "huge:16x1001,sparse-special:16x1001",
    .device = GV_KERNEL(gk_poolpad_max_k8s1p4d3),
    POOLPAD_MAX(k8s1p4d3, "nc,l"),
};

static const gv_op max1d_k8s1p4d3_nodil = {
    .name = "pool.max1d.k8s1p4d3.nodil",
    .summary = "planted bug: the max over 8 consecutive elements (the dilation ignored)",
    .planted_bug = "dilation ignored: the window reads 8 neighbours, not every third",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "64x65536",
    .test_shapes = "3x30,16x1001",
    .device = GV_KERNEL(gk_poolpad_max_k8s1p4d3_nodil),
    POOLPAD_MAX(k8s1p4d3, "nc,l"),
};

static const gv_op max2d_k4s1p1 = {
    .name = "pool.max2d.k4s1p1",
    .summary = "y = max over 4 x 4 windows, stride 1, padding 1, of nc planes of h x w "
               "(MaxPool2d(4, 1, 1))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "64x512x512",
    .test_shapes = "1x2x2,3x7x5,16x33x31,64x56x56,2x250x250",
    .canaries = "huge:64x56x56,sparse-special:64x56x56",
    .test_canaries = "huge:16x33x31,sparse-special:16x33x31",
    .device = GV_KERNEL(gk_poolpad_max_k4s1p1),
    POOLPAD_MAX(k4s1p1, "nc,h,w"),
};

static const gv_op max2d_k4s1p1_nopad = {
    .name = "pool.max2d.k4s1p1.nopad",
    .summary = "planted bug: the max over windows started at (i, j), as though unpadded",
    .planted_bug = "padding ignored: each window one row and one column late",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "64x512x512",
    .test_shapes = "3x7x5,16x33x31",
    .device = GV_KERNEL(gk_poolpad_max_k4s1p1_nopad),
    POOLPAD_MAX(k4s1p1, "nc,h,w"),
};

static const gv_op max3d_k3s2p1d3 = {
    .name = "pool.max3d.k3s2p1d3",
    .summary = "y = max over 3 x 3 x 3 windows, stride 2, padding 1, dilation 3, of nc volumes "
               "of d x h x w (MaxPool3d(3, 2, 1, 3))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "32x64x64x64",
    .test_shapes = "1x5x5x5,3x7x9x6,16x9x13x11,8x32x32x32,2x40x33x50",
    .canaries = "huge:8x32x32x32,sparse-special:8x32x32x32",
    .test_canaries = "huge:16x9x13x11,sparse-special:16x9x13x11",
    .device = GV_KERNEL(gk_poolpad_max_k3s2p1d3),
    POOLPAD_MAX(k3s2p1d3, "nc,d,h,w"),
};

static const gv_op max3d_k3s2p1d3_nodil = {
    .name = "pool.max3d.k3s2p1d3.nodil",
    .summary = "planted bug: the max over 3 x 3 x 3 neighbours (the dilation ignored)",
    .planted_bug = "dilation ignored: the window reads neighbours, not every third",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "32x64x64x64",
    .test_shapes = "3x7x9x6,16x9x13x11",
    .device = GV_KERNEL(gk_poolpad_max_k3s2p1d3_nodil),
    POOLPAD_MAX(k3s2p1d3, "nc,d,h,w"),
};

static const gv_op avg1d_k8s1p4 = {
    .name = "pool.avg1d.k8s1p4",
    .summary = "y = mean over windows of 8, stride 1, padding 4 (zeros counted), of nc rows "
               "of l (AvgPool1d(8, 1, 4))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "256x65536",
    .test_shapes = "1x1,3x7,16x1001,64x4096,2x65537",
    .canaries = "tiny:64x4096,huge:64x4096,sparse-special:64x4096",
    .test_canaries = "tiny:16x1001,huge:16x1001,sparse-special:16x1001",
    .device = GV_KERNEL(gk_poolpad_avg_k8s1p4),
    POOLPAD_AVG(k8s1p4, "nc,l"),
};

static const gv_op avg1d_k8s1p4_divisor = {
    .name = "pool.avg1d.k8s1p4.divisor",
    .summary = "planted bug: the sum over the count inside the row (count_include_pad=False)",
    .planted_bug = "wrong divisor: a window over the padding divided by fewer than 8",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "256x65536",
    .test_shapes = "3x7,16x1001",
    .device = GV_KERNEL(gk_poolpad_avg_k8s1p4_divisor),
    POOLPAD_AVG(k8s1p4, "nc,l"),
};

static const gv_op avg3d_k3s2p1 = {
    .name = "pool.avg3d.k3s2p1",
    .summary = "y = mean over 3 x 3 x 3 windows, stride 2, padding 1 (zeros counted), of nc "
               "volumes of d x h x w (AvgPool3d(3, 2, 1))",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "32x64x64x128",
    /* every side >= the window: torch's avg_pool3d refuses smaller inputs, padded or not, and
       a correct torch candidate must not be FAILed for raising */
    .test_shapes = "1x3x3x3,3x7x5x4,16x9x13x11,8x32x32x32,2x33x40x50",
    .canaries = "tiny:8x32x32x32,huge:8x32x32x32,sparse-special:8x32x32x32",
    .test_canaries = "tiny:16x9x13x11,huge:16x9x13x11,sparse-special:16x9x13x11",
    .device = GV_KERNEL(gk_poolpad_avg_k3s2p1),
    POOLPAD_AVG(k3s2p1, "nc,d,h,w"),
};

static const gv_op avg3d_k3s2p1_divisor = {
    .name = "pool.avg3d.k3s2p1.divisor",
    .summary = "planted bug: the sum over the count inside the volume (count_include_pad=False)",
    .planted_bug = "wrong divisor: a window over the padding divided by fewer than 27",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "32x64x64x128",
    .test_shapes = "3x7x5x4,16x9x13x11",
    .device = GV_KERNEL(gk_poolpad_avg_k3s2p1_divisor),
    POOLPAD_AVG(k3s2p1, "nc,d,h,w"),
};

const gv_op *const gv_family_poolpad[] = {
    &max1d_k8s1p4d3, &max1d_k8s1p4d3_nodil, &max2d_k4s1p1, &max2d_k4s1p1_nopad,
    &max3d_k3s2p1d3, &max3d_k3s2p1d3_nodil, &avg1d_k8s1p4, &avg1d_k8s1p4_divisor,
    &avg3d_k3s2p1,   &avg3d_k3s2p1_divisor, NULL};
