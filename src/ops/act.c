/* act.c: op descriptors for the element-wise activations kernel authors write, in PyTorch's
 * forms: act.gelu (GELU, erf form: approximate='none'), act.gelu_tanh (approximate='tanh'),
 * act.silu (x sigmoid(x)), f32 and f64; the fast-math SiLU (__expf) as a mode of its own; and
 * planted bugs: the tanh approximation under the erf label, __expf under the native label.
 * Dims n (elements).
 * Error model: docs/error-models.md, section act.
 *
 * The model follows the kernel's operations (kernels/act.cu, PyTorch's formulas): each rounding
 * of an intermediate (x / sqrt 2, the cubic, 1 + f, the last product or quotient) at u, carried
 * through the function that reads it by that function's condition, plus the math library's
 * documented error (CUDA C++ Programming Guide 13.0, appendix "Mathematical Functions": erff,
 * tanhf, expf 2 ulp, erf and tanh 2 ulp, exp 1 ulp, all over the full range; __expf
 * 2 + floor(|1.173 x|) ulp; results below FLT_MIN flushed). The gauge is that bound over u,
 * per element (depth 1), so a correct kernel's ratio is at most 1; the bound is 2 because the
 * guide's ulp figures come from "extensive but not exhaustive" tests and the first-order
 * propagation drops terms of order u^2. Such a bound is the whole model: the result of an
 * activation is no sum whose order a kernel chooses. */
#include <float.h>

#include "core/gen.h"
#include "ops/opkit.h"

extern const gk_op gk_act_gelu, gk_act_gelu_tanh, gk_act_silu, gk_act_gelu_tanhlabel,
    gk_act_silu_fastexp;

/* The documented maximum ulp errors (CUDA C++ Programming Guide 13.0, Math. Functions). */
#define ACT_ERF_ULPS_F32  2.0 /* erff */
#define ACT_ERF_ULPS_F64  2.0 /* erf */
#define ACT_TANH_ULPS_F32 2.0 /* tanhf */
#define ACT_TANH_ULPS_F64 2.0 /* tanh */
#define ACT_EXP_ULPS_F32  2.0 /* expf */
#define ACT_EXP_ULPS_F64  1.0 /* exp */
#define ACT_RATIO_BOUND   2.0

static double act_u(const gv_case *c)
{
    return gv_unit_roundoff(c->dtype, GV_MODE_NATIVE);
}

/* The error of a library result v off by up to B ulps from the correctly rounded one: (B + 1/2)
   ulps of |v|, an ulp at most 2u|v| for a normal v (a little more for v's own rounding) and
   the subnormal spacing below. */
static double lib_err(double v, double ulps, double u, double smin)
{
    return (ulps + 0.5) * (2.0 * u * fabs(v) * (1.0 + 4.0 * u) + smin);
}

/* 1 + erf(t) and 1 + tanh(z) without cancellation (as oracle/act.c) */
static double one_plus_erf(long double t)
{
    return (double)(t < 0 ? erfcl(-t) : 1.0L + erfl(t));
}

static double one_plus_tanh(long double z)
{
    return (double)(2.0L / (1.0L + expl(-2.0L * z)));
}

/* y = (x/2) s with s = 1 + f computed from a library value f off by D in all: s is rounded
   (u), the product rounded (u); x/2 is exact above the subnormals. */
static double half_x_times(double x, double y, double one_plus_f, double D, double u, double smin)
{
    double S = D + u * (one_plus_f + D);
    double hx = 0.5 * fabs(x);
    return hx * S * (1.0 + 2.0 * u) + u * (fabs(y) + hx * S) + 2.0 * smin;
}

/* GELU, erf form: t = x * fl(1/sqrt 2) (2 roundings: the constant's, the product's) moves
   erf by erf'(t) = 2/sqrt(pi) exp(-t^2) times that; erf adds its own B ulps. */
static double bound_gelu(double x, double y, double u, double smin, double ulps)
{
    long double t = (long double)x * 0.707106781186547524400844362104849039L;
    double at = fabs((double)t), tmin = at * (1.0 - 4.0 * u);
    double d1 = M_2_SQRTPI * exp(-tmin * tmin) * (2.01 * u * at + smin);
    double D = d1 + lib_err(fabs((double)erfl(t)) + d1, ulps, u, smin);
    return half_x_times(x, y, one_plus_erf(t), D, u, smin);
}

/* GELU, tanh form: z = fl(beta) (x + fl(kappa) x^3) through x^2, x^3, kappa x^3, the sum and
   beta's product: at most 7 roundings on terms of one sign, |dz| <= 7.02 u |z| (an FMA leaves
   fewer); tanh'(z) = sech^2 z carries it, tanh adds its B ulps. */
static double bound_gelu_tanh(double x, double y, double u, double smin, double ulps)
{
    const long double beta = 0.797884560802865355879892119868763737L;
    long double z = beta * ((long double)x + 0.044715L * (long double)x * x * x);
    double az = fabs((double)z), dz = 7.02 * u * az + 2.0 * smin;
    double zmin = az > dz ? az - dz : 0.0;
    /* sech^2 z = 4 / (e^z + e^-z)^2, without overflow past z ~ 350 */
    double sech2 = zmin > 40.0 ? 4.0 * exp(-2.0 * zmin) : 1.0 / (cosh(zmin) * cosh(zmin));
    double d1 = sech2 * dz;
    double D = d1 + lib_err(fabs((double)tanhl(z)) + d1, ulps, u, smin);
    return half_x_times(x, y, one_plus_tanh(z), D, u, smin);
}

/* SiLU: E = exp(-x) off by its library error e, 1 + E rounded (u), the quotient rounded (u):
   rho = (e + u (1 + E + e)) / (1 + E) relative in the denominator, |y| (rho / (1 - rho)) (1 + u)
   + u |y| in all. Where E plus its error reaches the dtype's overflow, exp may return +inf and
   x / inf = 0: the whole |y| is allowed there (the formula's own limit, as PyTorch's). */
static double bound_silu(double x, double y, double u, double smin, double ulps, double flush,
                         double max_finite)
{
    double E = (double)expl(-(long double)x);
    double e = lib_err(E, ulps, u, smin) + flush;
    double ay = fabs(y);
    double rho = (e + u * (1.0 + E + e)) / (1.0 + E);
    double b = rho < 1.0 ? ay * (rho / (1.0 - rho) * (1.0 + u) + u) + 2.0 * smin : INFINITY;
    if (!(E + e < max_finite)) {
        double whole = ay * (1.0 + 2.0 * u) + 2.0 * smin;
        if (!(b >= whole)) b = whole;
    }
    return b;
}

enum { ACT_GELU = GO_ACT_GELU, ACT_GELU_TANH = GO_ACT_GELU_TANH, ACT_SILU = GO_ACT_SILU };

/* The bound on |y' - y| that case c's label allows at x with exact result y. */
static double act_bound(const gv_case *c, int fn, double x, double y)
{
    bool f32 = c->dtype == GV_F32;
    double u = act_u(c), smin = gv_dtype_subnormal_min(c->dtype);
    switch (fn) {
    case ACT_GELU: return bound_gelu(x, y, u, smin, f32 ? ACT_ERF_ULPS_F32 : ACT_ERF_ULPS_F64);
    case ACT_GELU_TANH:
        return bound_gelu_tanh(x, y, u, smin, f32 ? ACT_TANH_ULPS_F32 : ACT_TANH_ULPS_F64);
    default: {
        bool fast = c->mode == GV_MODE_FASTMATH;
        /* __expf at -x: 2 + floor(|1.173 x|) ulp, results below FLT_MIN flushed to 0 */
        double ulps = fast  ? 2.0 + floor(fabs(1.173 * x))
                      : f32 ? ACT_EXP_ULPS_F32
                            : ACT_EXP_ULPS_F64;
        double max_finite = f32 ? FLT_MAX : DBL_MAX;
        return bound_silu(x, y, u, smin, ulps, fast ? FLT_MIN : 0.0, max_finite);
    }
    }
}

/* ---- the hooks ------------------------------------------------------------------------- */

static int act_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = c->shape.d[0];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", n};
    l->out[0] = (gv_tensor_spec){"y", n};
    return GV_OK;
}

/* one activation an element, as the catalogue counts a math function */
static double act_flops(const gv_case *c)
{
    return (double)c->shape.d[0];
}

static double act_bytes(const gv_case *c)
{
    return 2.0 * (double)c->shape.d[0] * gv_esize(c);
}

static double act_depth(const gv_case *c)
{
    (void)c;
    return 1.0;
}

static int act_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[0] > 2147483647) {
        snprintf(why, len, "act takes n < 2^31 elements (got %lld)", (long long)s->d[0]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static bool act_native_only(gv_dtype t, gv_mode m)
{
    (void)t;
    return m == GV_MODE_NATIVE;
}

/* SiLU's fastmath mode: __expf, which exists for float only */
static bool act_silu_mode_valid(gv_dtype t, gv_mode m)
{
    return m == GV_MODE_NATIVE || (m == GV_MODE_FASTMATH && t == GV_F32);
}

/* Argument classes on the wide dist (the op's default), element i of class i mod 8 from the
   generator's (seed, tensor, index) streams: where activations are used, where the two GELUs
   differ most (|x| ~ 2.7), tiny arguments, both tails, and (class 6) arguments whose exp(-x)
   overflows the dtype (SiLU: the formula's zero) and whose erf is -1 (the GELU's cancellation):
   docs/error-models.md, section act. */
#define ACT_NCLASSES 8

static double lin(double a, double b, double t)
{
    return a + (b - a) * t;
}

static double act_arg(bool f32, int cls, double t, double s)
{
    double sign = s < 0.5 ? -1.0 : 1.0;
    switch (cls) {
    case 1: return lin(-6.0, 6.0, t);
    case 2: return lin(-10.0, 10.0, t);
    case 3: return sign * exp2(lin(-30.0, -1.0, t));     /* small: y ~ x/2 */
    case 4: return lin(-30.0, -6.0, t);                  /* the negative tail */
    case 5: return lin(6.0, 60.0, t);                    /* y ~ x */
    case 6: return lin(f32 ? -100.0 : -800.0, -30.0, t); /* past exp's overflow at the far end */
    case 7: return sign * lin(2.0, 3.5, t); /* the GELUs' largest difference, 4.7e-4 at 2.70 */
    default: return lin(-3.0, 3.0, t);
    }
}

static int act_inputs(gv_problem *p)
{
    if (p->c.dist != GV_DIST_WIDE) {
        gv_fill(p, 0, p->c.dist);
        return GV_OK;
    }
    gv_tensor *x = &p->in[0];
    bool f32 = p->c.dtype == GV_F32;
    uint64_t seed = p->c.seed;
#pragma omp parallel for schedule(static) if (x->count >= GV_PAR_MIN)
    for (int64_t i = 0; i < x->count; i++) {
        double t = gv_gen_unit(seed, 0, (uint64_t)i), s = gv_gen_unit(seed, 1, (uint64_t)i);
        x->ref[i] = act_arg(f32, (int)(i % ACT_NCLASSES), t, s);
    }
    gv_store_rounded(p, 0);
    return GV_OK;
}

static int act_oracle(gv_problem *p, int fn)
{
    return gv_oracle_rc(go_act(fn, p->in[0].count, p->in[0].ref, p->out[0].ref));
}

/* g = bound / u (depth 1), never below |r| (op.h) */
static int act_gauge(gv_problem *p, int fn)
{
    const gv_case *c = &p->c;
    double u = act_u(c);
    const double *x = p->in[0].ref, *r = p->out[0].ref;
    double *g = p->out[0].gauge;
#pragma omp parallel for schedule(static) if (p->out[0].count >= GV_PAR_MIN / 16)
    for (int64_t i = 0; i < p->out[0].count; i++) {
        double b = act_bound(c, fn, x[i], r[i]) / u;
        g[i] = b > fabs(r[i]) ? b : fabs(r[i]);
    }
    return GV_OK;
}

/* One set of hooks a function: ops of one family that share make_inputs, oracle and gauge share
   cached references (gv_reference_name), so each function has its own. */
#define ACT_HOOKS(f, FN)                                                                           \
    static int f##_inputs(gv_problem *p)                                                           \
    {                                                                                              \
        return act_inputs(p);                                                                      \
    }                                                                                              \
    static int f##_oracle(gv_problem *p)                                                           \
    {                                                                                              \
        return act_oracle(p, FN);                                                                  \
    }                                                                                              \
    static int f##_gauge(gv_problem *p)                                                            \
    {                                                                                              \
        return act_gauge(p, FN);                                                                   \
    }
ACT_HOOKS(gelu, ACT_GELU)
ACT_HOOKS(gelu_tanh, ACT_GELU_TANH)
ACT_HOOKS(silu, ACT_SILU)

/* Finite inputs only: the formulas PyTorch runs give NaN at x = -inf (-inf 0, -inf / inf),
   where the functions' limit is 0; the edge dists' values near the overflow threshold overflow
   the GELU's cubic. Offgrid (1024.5 ... 2047.5) and smallint (-8 ... 8) are plain arguments. */
#define ACT_DISTS (GV_FINITE_DISTS | GV_BIT(GV_DIST_WIDE))

#define ACT_COMMON(f)                                                                              \
    .family = "act", .dims = "n", .in_dims = "n", .out_dims = "n", .dists = ACT_DISTS,             \
    .default_dist = GV_DIST_WIDE, .check_shape = act_check_shape, .layout = act_layout,            \
    .flops = act_flops, .bytes = act_bytes, .make_inputs = f##_inputs, .oracle = f##_oracle,       \
    .gauge = f##_gauge, .depth = act_depth, .unit_roundoff = act_u,                                \
    .ratio_bound = ACT_RATIO_BOUND, .range_degree = 1

#define ACT_CATALOGUE                                                                              \
    .dtypes = GV_BOTH_DTYPES, .shapes = "1e5,1e6", .test_shapes = "1,8,1000,100003"

#define ACT_MODEL_TAIL                                                                             \
    " ("                                                                                           \
    "CUDA C++ Programming Guide 13.0, Math. Functions"                                             \
    "); gauge: that bound / u, depth 1, "                                                          \
    "bound 2 (docs/error-models.md, act)"

static const gv_op act_gelu = {
    .name = "act.gelu",
    .summary = "y = x/2 (1 + erf(x / sqrt 2)), element-wise: GELU as torch's approximate='none'",
    .error_model = "erf's argument rounded twice, times erf' = 2/sqrt(pi) exp(-t^2), plus erff / "
                   "erf 2 ulp, 1 + erf and the product rounded" ACT_MODEL_TAIL,
    .modes = GV_BIT(GV_MODE_NATIVE),
    .mode_valid = act_native_only,
    .device = GV_KERNEL(gk_act_gelu),
    ACT_CATALOGUE,
    ACT_COMMON(gelu),
};

static const gv_op act_gelu_tanh = {
    .name = "act.gelu_tanh",
    .summary = "y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): torch's approximate='tanh'",
    .error_model = "tanh's argument within 7 roundings, times sech^2, plus tanhf / tanh 2 ulp, "
                   "1 + tanh and the product rounded" ACT_MODEL_TAIL,
    .modes = GV_BIT(GV_MODE_NATIVE),
    .mode_valid = act_native_only,
    .device = GV_KERNEL(gk_act_gelu_tanh),
    ACT_CATALOGUE,
    ACT_COMMON(gelu_tanh),
};

static const gv_op act_silu = {
    .name = "act.silu",
    .summary = "y = x / (1 + exp(-x)), element-wise: SiLU (swish); fastmath: __expf",
    .error_model = "expf 2 ulp / exp 1 ulp (fastmath: __expf 2 + floor(|1.173 x|) ulp, flushed "
                   "below FLT_MIN) through 1 + E and the division, each rounded; |y| where exp "
                   "overflows (x / inf = 0)" ACT_MODEL_TAIL,
    .modes = GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_FASTMATH),
    .mode_valid = act_silu_mode_valid,
    .device = GV_KERNEL(gk_act_silu),
    ACT_CATALOGUE,
    ACT_COMMON(silu),
};

/* The tanh approximation differs from the GELU by up to 4.7e-4 (at |x| = 2.70; 4.1e-4 at
   x = -3, where |y| = 0.004): past the f32 tier (1e-4 (1 + |r|)) and some 10^3 times the
   model's bound at every class that reaches |x| ~ 1 (docs/error-models.md, act). */
static const gv_op act_gelu_tanhlabel = {
    .name = "act.gelu.tanhlabel",
    .summary = "planted bug: the tanh approximation under the exact (erf) GELU's label",
    .planted_bug = "GELU approximate='tanh' returned where approximate='none' is claimed",
    .error_model = "as act.gelu",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .mode_valid = act_native_only,
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1e5",
    .test_shapes = "1000,100003",
    .device = GV_KERNEL(gk_act_gelu_tanhlabel),
    ACT_COMMON(gelu),
};

/* __expf under the native label: its error grows as 1.173 |x| ulp, the native model allows
   expf's 2. The wide classes reach |x| = 100 (x = -100: up to 119 ulp of exp(100)). Under the
   fastmath label the same arithmetic is within its model (tests/cpu/model_act.c). */
static const gv_op act_silu_fastexp = {
    .name = "act.silu.fastexp",
    .summary = "planted bug: SiLU on the __expf intrinsic under the native label",
    .planted_bug = "native SiLU runs __expf (what --use_fast_math substitutes for expf)",
    .error_model = "as act.silu native: expf 2 ulp",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .mode_valid = act_native_only,
    .dtypes = GV_BIT(GV_F32),
    .shapes = "1e5",
    .test_shapes = "1000,100003",
    .device = GV_KERNEL(gk_act_silu_fastexp),
    ACT_COMMON(silu),
};

const gv_op *const gv_family_act[] = {&act_gelu,           &act_gelu_tanh,    &act_silu,
                                      &act_gelu_tanhlabel, &act_silu_fastexp, NULL};
