/* sin_iter.c: op descriptors for y = sin applied k times to x (seed 000: the CPU/GPU crossover
 * as the work per element grows) and its planted bug. Dims n (elements), k (applications).
 * Error model: docs/error-models.md, section sin_iter. */
#include <float.h>

#include "ops/opkit.h"

extern const gk_op gk_sin_iter, gk_sin_iter_f32inner;

#define SIN_ITER_MAX_K 1000000
/* The CPU oracle does about 3e7 f64 sin a second on one core: 1e11 is about an hour. */
#define SIN_ITER_MAX_WORK 1e11
/* log2 of __sinf's absolute error bound on [-pi, pi] (CUDA C Programming Guide). */
#define SINF_FAST_ABS_LOG2 (-21.41)

static int sin_iter_check_shape(const gv_shape *s, char *why, size_t len)
{
    int64_t n = s->d[0], k = s->d[1];
    if (k > SIN_ITER_MAX_K) {
        snprintf(why, len,
                 "sin_iter takes k <= %d applications (got %lld): the error model's first-order "
                 "bound 5uk needs uk << 1",
                 SIN_ITER_MAX_K, (long long)k);
        return GV_EINVAL;
    }
    if (n > 2147483647) {
        snprintf(why, len, "sin_iter takes n < 2^31 elements (got %lld)", (long long)n);
        return GV_EINVAL;
    }
    if ((double)n * (double)k > SIN_ITER_MAX_WORK) {
        snprintf(why, len,
                 "sin_iter n*k = %.3g is over %.0e: the single-threaded CPU oracle would run for "
                 "about an hour or more",
                 (double)n * (double)k, SIN_ITER_MAX_WORK);
        return GV_EINVAL;
    }
    return GV_OK;
}

static bool sin_iter_mode_valid(gv_dtype t, gv_mode m)
{
    /* the fast-math intrinsic __sinf exists for float only */
    return m == GV_MODE_NATIVE || (m == GV_MODE_FASTMATH && t == GV_F32);
}

static int sin_iter_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = c->shape.d[0];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", n};
    l->out[0] = (gv_tensor_spec){"y", n};
    return GV_OK;
}

/* One per sin application, as the seed counts work (sin calls, not their polynomial's flops). */
static double sin_iter_flops(const gv_case *c)
{
    return (double)c->shape.d[0] * (double)c->shape.d[1];
}

/* x read once, y written once, whatever k is. */
static double sin_iter_bytes(const gv_case *c)
{
    return 2.0 * (double)c->shape.d[0] * gv_esize(c);
}

static double sin_iter_depth(const gv_case *c)
{
    return (double)c->shape.d[1];
}

static double sin_iter_unit_roundoff(const gv_case *c)
{
    if (c->mode == GV_MODE_FASTMATH) return pow(2.0, SINF_FAST_ABS_LOG2);
    return gv_unit_roundoff(c->dtype, c->mode);
}

/* Worst-case |c - r| the model allows with |x| <= 1 (docs/error-models.md, section sin_iter). */
static double sin_iter_worst_abs_err(const gv_case *c)
{
    double k = (double)c->shape.d[1];
    if (c->mode == GV_MODE_FASTMATH) return k * pow(2.0, SINF_FAST_ABS_LOG2);
    return 5.0 * gv_unit_roundoff(c->dtype, c->mode) * k / sqrt(1.0 + k / 3.0);
}

static double sin_iter_expected_tier(const gv_case *c, char *why, size_t len)
{
    double tier = gv_dtype_tier(c->dtype), worst = sin_iter_worst_abs_err(c);
    double k = (double)c->shape.d[1];
    if (worst <= tier) return tier;
    if (c->mode == GV_MODE_FASTMATH)
        snprintf(why, len,
                 "__sinf errs up to 2^%.2f absolute a step: k 2^%.2f = %.2g at k = %.0f, over "
                 "the tier %.0e",
                 SINF_FAST_ABS_LOG2, SINF_FAST_ABS_LOG2, worst, k, tier);
    else
        snprintf(why, len,
                 "%s errs up to 5u|y| a step: 5uk/sqrt(1+k/3) = %.2g at k = %.0f, over "
                 "the tier %.0e",
                 gv_dtype_name(c->dtype), worst, k, tier);
    return 0.0;
}

static int sin_iter_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

/* The reference reads no mode: f32's native and fast-math cases share it (the oracle cache's
   entry, oracle_ignores_mode); the gauge, which does read it, is sin_iter_gauge. */
static int sin_iter_oracle(gv_problem *p)
{
    int64_t n = p->c.shape.d[0], k = p->c.shape.d[1];
    return gv_oracle_rc(go_sin_iter(n, k, p->in[0].ref, p->out[0].ref));
}

/* fastmath: 1, the absolute model; native: max(|r|, the dtype's smallest normal). */
static int sin_iter_gauge(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    double *g = p->out[0].gauge;
    if (p->c.mode == GV_MODE_FASTMATH) {
        for (int64_t i = 0; i < n; i++)
            g[i] = 1.0;
    } else {
        double tiny = gv_dtype_normal_min(p->c.dtype);
        for (int64_t i = 0; i < n; i++) {
            double r = fabs(p->out[0].ref[i]);
            g[i] = r > tiny ? r : tiny;
        }
    }
    return GV_OK;
}

/* Inputs stay in [-1, 1] (NaN and +-Inf give NaN at once): the range both bounds hold on.
 * The default is uniform [-1, 1): sin is odd, so both bounds and the expected tiers hold for
 * either sign, and negative arguments are exercised too. */
#define SIN_ITER_DISTS                                                                             \
    (GV_BIT(GV_DIST_UNIFORM01) | GV_BIT(GV_DIST_UNIFORM11) | GV_BIT(GV_DIST_SPECIAL))

#define SIN_ITER_COMMON                                                                            \
    .family = "sin_iter", .dims = "n,k", .in_dims = "n", .out_dims = "n", .dists = SIN_ITER_DISTS, \
    .default_dist = GV_DIST_UNIFORM11, .check_shape = sin_iter_check_shape,                        \
    .mode_valid = sin_iter_mode_valid, .layout = sin_iter_layout, .flops = sin_iter_flops,         \
    .bytes = sin_iter_bytes, .make_inputs = sin_iter_inputs, .oracle = sin_iter_oracle,            \
    .gauge = sin_iter_gauge, .oracle_ignores_mode = true,                                          \
    .depth = sin_iter_depth, .unit_roundoff = sin_iter_unit_roundoff,                              \
    .expected_tier = sin_iter_expected_tier,                                                       \
    .error_model = "native: |c-r| <= 5uk|r| (2.5 ulp a step, not amplified), gauge "               \
                   "max(|r|, min normal), depth k; fastmath: |c-r| <= k 2^-21.41, gauge 1, "       \
                   "u = 2^-21.41 (CUDA C Programming Guide) (docs/error-models.md)"

static const gv_op sin_iter = {
    .name = "sin_iter",
    .summary = "y = sin applied k times to x, element-wise (seed 000's crossover)",
    .dtypes = GV_BOTH_DTYPES,
    .modes = GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_FASTMATH),
    .shapes = "1e6x1,1e6x10,1e6x100,1e6x1000",
    .test_shapes = "1x1,1000x1,4097x10,100003x100,10007x1000",
    .device = GV_KERNEL(gk_sin_iter),
    SIN_ITER_COMMON,
};

static const gv_op sin_iter_f32inner = {
    .name = "sin_iter.f32inner",
    .summary = "planted bug: the f64 iterations run in float",
    .planted_bug = "f64 path iterates in f32",
    .dtypes = GV_BIT(GV_F64),
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "1e5x100",
    .test_shapes = "1000x1,4097x100,10007x1000",
    .device = GV_KERNEL(gk_sin_iter_f32inner),
    SIN_ITER_COMMON,
};

const gv_op *const gv_family_sin_iter[] = {&sin_iter, &sin_iter_f32inner, NULL};
