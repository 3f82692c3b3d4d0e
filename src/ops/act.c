/* act.c: op descriptors for the element-wise activations kernel authors write, in PyTorch's
 * forms: act.gelu (GELU, erf form: approximate='none'), act.gelu_tanh (approximate='tanh'),
 * act.silu (x sigmoid(x)), act.tanh, act.relu, act.leaky_relu, act.hardtanh, act.softsign,
 * act.elu, act.selu, act.hardsigmoid, act.softplus (torch.nn's defaults: abi/act.h), f32 and
 * f64; the fast-math SiLU (__expf) as a mode of its own; and planted bugs: the tanh
 * approximation under the erf label, __expf under the native label, ELU's exp(x) - 1 and
 * Softplus's log(1 + exp(x)) (the cancelling forms).
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
#include <assert.h>
#include <float.h>

#include "../../abi/act.h"
#include "core/gen.h"
#include "ops/opkit.h"

extern const gk_op gk_act_gelu, gk_act_gelu_tanh, gk_act_silu, gk_act_gelu_tanhlabel,
    gk_act_silu_fastexp, gk_act_tanh, gk_act_relu, gk_act_leaky_relu, gk_act_hardtanh,
    gk_act_softsign, gk_act_elu, gk_act_selu, gk_act_hardsigmoid, gk_act_softplus, gk_act_elu_naive,
    gk_act_softplus_naive;

/* The documented maximum ulp errors (CUDA C++ Programming Guide 13.0, Math. Functions). */
#define ACT_ERF_ULPS_F32  2.0 /* erff */
#define ACT_ERF_ULPS_F64  2.0 /* erf */
#define ACT_TANH_ULPS_F32 2.0 /* tanhf */
#define ACT_TANH_ULPS_F64 2.0 /* tanh */
#define ACT_EXP_ULPS_F32  2.0 /* expf */
#define ACT_EXP_ULPS_F64  1.0 /* exp */
#define ACT_EXPM1_ULPS    1.0 /* expm1f, expm1 */
#define ACT_LOG1P_ULPS    1.0 /* log1pf, log1p */
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

/* Softplus below its threshold: E = exp(x) off by its library error e moves log1p(E) by at
   most e / (1 + E - e) (log1p' = 1 / (1 + E)); log1p adds its own ulps; above the threshold
   the result is x, exact. */
static double bound_softplus(double x, double y, double u, double smin, double exp_ulps)
{
    if (x > GK_ACT_SOFTPLUS_THRESHOLD) return 0.0;
    double E = (double)expl((long double)x);
    double e = lib_err(E, exp_ulps, u, smin);
    double d1 = e / (1.0 + E - e);
    return d1 + lib_err(fabs(y) + d1, ACT_LOG1P_ULPS, u, smin) + smin;
}

/* ELU and SELU below 0: expm1 within its ulps, times negcoef (1 for ELU; SELU's alpha scale,
   two constants and their product each rounded: 3 u) and the product rounded (u). Above 0:
   x times poscoef (1 for ELU: exact; SELU's scale rounded, and the product: 2 u). */
static double bound_elu(bool selu, double x, double y, double u, double smin)
{
    const double ns = GK_ACT_SELU_ALPHA * GK_ACT_SELU_SCALE;
    if (x > 0) return selu ? 2.01 * u * fabs(y) + smin : 0.0;
    if (!selu) return lib_err(y, ACT_EXPM1_ULPS, u, smin);
    return ns * lib_err(y / ns, ACT_EXPM1_ULPS, u, smin) * (1.0 + u) + 4.01 * u * fabs(y) + smin;
}

enum {
    ACT_GELU = GO_ACT_GELU,
    ACT_GELU_TANH = GO_ACT_GELU_TANH,
    ACT_SILU = GO_ACT_SILU,
    ACT_TANH = GO_ACT_TANH,
    ACT_RELU = GO_ACT_RELU,
    ACT_LEAKY_RELU = GO_ACT_LEAKY_RELU,
    ACT_HARDTANH = GO_ACT_HARDTANH,
    ACT_SOFTSIGN = GO_ACT_SOFTSIGN,
    ACT_ELU = GO_ACT_ELU,
    ACT_SELU = GO_ACT_SELU,
    ACT_HARDSIGMOID = GO_ACT_HARDSIGMOID,
    ACT_SOFTPLUS = GO_ACT_SOFTPLUS
};

/* The f64 reference's own rounding (at most 2^-53 |y|): u |y| more in an f64 case, nothing
   that matters in f32. The torch.nn functions below count it; their own bounds are a few u. */
static double ref_err(double y)
{
    return 0x1p-53 * fabs(y);
}

static double torch_nn_bound(const gv_case *c, int fn, double x, double y);

/* The bound on |y' - y| that case c's label allows at x with exact result y. */
static double act_bound(const gv_case *c, int fn, double x, double y)
{
    if (fn >= ACT_TANH) return torch_nn_bound(c, fn, x, y);
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

/* The torch.nn activations: each formula's roundings and library calls (docs/error-models.md,
   act), plus the reference's own rounding where there is arithmetic. */
static double torch_nn_bound(const gv_case *c, int fn, double x, double y)
{
    bool f32 = c->dtype == GV_F32;
    double u = act_u(c), smin = gv_dtype_subnormal_min(c->dtype);
    double b;
    switch (fn) {
    /* tanh: the library's ulps alone (the argument is the input itself) */
    case ACT_TANH: b = lib_err(y, f32 ? ACT_TANH_ULPS_F32 : ACT_TANH_ULPS_F64, u, smin); break;
    /* comparisons and a selection: exact (the exact rule judges them: act_exact) */
    case ACT_RELU:
    case ACT_HARDTANH: return 0.0;
    /* x times the slope rounded to the dtype (u) and the product rounded (u) */
    case ACT_LEAKY_RELU: b = x > 0 ? 0.0 : 2.01 * u * fabs(y) + smin; break;
    /* 1 + |x| rounded and the quotient rounded: 2 u relative (to first order; 2.01 covers the
       second) */
    case ACT_SOFTSIGN: b = 2.01 * u * fabs(y) + smin; break;
    case ACT_ELU: b = bound_elu(false, x, y, u, smin); break;
    case ACT_SELU: b = bound_elu(true, x, y, u, smin); break;
    /* x + 3 rounded (relative to x + 3: the clamp keeps its sign), 1/6 rounded, the product
       rounded: 3 u relative; a kernel dividing by 6 has one rounding fewer */
    case ACT_HARDSIGMOID: b = 3.01 * u * fabs(y) + smin; break;
    case ACT_SOFTPLUS:
        b = bound_softplus(x, y, u, smin, f32 ? ACT_EXP_ULPS_F32 : ACT_EXP_ULPS_F64);
        break;
    default: assert(0 && "an act function"); return 0.0;
    }
    return b + ref_err(y);
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
ACT_HOOKS(tanh, ACT_TANH)
ACT_HOOKS(relu, ACT_RELU)
ACT_HOOKS(leaky_relu, ACT_LEAKY_RELU)
ACT_HOOKS(hardtanh, ACT_HARDTANH)
ACT_HOOKS(softsign, ACT_SOFTSIGN)
ACT_HOOKS(elu, ACT_ELU)
ACT_HOOKS(selu, ACT_SELU)
ACT_HOOKS(hardsigmoid, ACT_HARDSIGMOID)
ACT_HOOKS(softplus, ACT_SOFTPLUS)

/* ReLU and HardTanh compare and select: the result is an input or a constant, exact */
static bool act_exact(const gv_case *c)
{
    (void)c;
    return true;
}

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

/* The activations torch.nn has beside the GELUs and SiLU, each at torch's defaults (abi/act.h):
   one kernel line and one oracle line each, the bound derived in docs/error-models.md, act. */
#define ACT_SIMPLE(f, nm, sum, model)                                                              \
    static const gv_op act_##f = {                                                                 \
        .name = nm,                                                                                \
        .summary = sum,                                                                            \
        .error_model = model ACT_MODEL_TAIL,                                                       \
        .modes = GV_BIT(GV_MODE_NATIVE),                                                           \
        .mode_valid = act_native_only,                                                             \
        .device = GV_KERNEL(gk_act_##f),                                                           \
        ACT_CATALOGUE,                                                                             \
        ACT_COMMON(f),                                                                             \
    };
ACT_SIMPLE(tanh, "act.tanh", "y = tanh(x), element-wise (torch.tanh)", "tanhf / tanh 2 ulp")
ACT_SIMPLE(leaky_relu, "act.leaky_relu",
           "y = x > 0 ? x : 0.01 x, element-wise (torch.nn.LeakyReLU())",
           "the slope and the product rounded: 2 u |y| below 0, exact above")
ACT_SIMPLE(softsign, "act.softsign", "y = x / (1 + |x|), element-wise (torch.nn.Softsign)",
           "1 + |x| and the quotient rounded: 2 u |y|")
ACT_SIMPLE(elu, "act.elu", "y = x > 0 ? x : expm1(x), element-wise (torch.nn.ELU(), alpha 1)",
           "expm1f / expm1 1 ulp below 0, exact above")
ACT_SIMPLE(selu, "act.selu", "y = scale (x > 0 ? x : alpha expm1(x)), element-wise (torch.nn.SELU)",
           "expm1 1 ulp, alpha scale rounded (3 u) and the product (u) below 0; scale and the "
           "product (2 u) above")
ACT_SIMPLE(hardsigmoid, "act.hardsigmoid",
           "y = clamp(x + 3, 0, 6) / 6, element-wise (torch.nn.Hardsigmoid)",
           "x + 3, 1/6 and the product rounded: 3 u |y|")
ACT_SIMPLE(softplus, "act.softplus",
           "y = x > 20 ? x : log1p(exp(x)), element-wise (torch.nn.Softplus(), beta 1)",
           "expf 2 ulp / exp 1 ulp through log1p' = 1/(1 + E), plus log1pf / log1p 1 ulp; x "
           "above 20, exact")
#undef ACT_SIMPLE

#define ACT_EXACT(f, nm, sum)                                                                      \
    static const gv_op act_##f = {                                                                 \
        .name = nm,                                                                                \
        .summary = sum,                                                                            \
        .error_model = "y = r exactly: a comparison and a selection (docs/error-models.md, act)",  \
        .modes = GV_BIT(GV_MODE_NATIVE),                                                           \
        .mode_valid = act_native_only,                                                             \
        .device = GV_KERNEL(gk_act_##f),                                                           \
        .exact = act_exact,                                                                        \
        ACT_CATALOGUE,                                                                             \
        ACT_COMMON(f),                                                                             \
    };
ACT_EXACT(relu, "act.relu", "y = max(x, 0), element-wise (torch.relu): exact")
ACT_EXACT(hardtanh, "act.hardtanh",
          "y = clamp(x, -1, 1), element-wise (torch.nn.Hardtanh()): exact")
#undef ACT_EXACT

/* ELU through exp(x) - 1: near 0 (the wide classes' tiny arguments, 2^-30 to 2^-1) the
   subtraction cancels, leaving u / |x| relative where expm1 keeps 1 ulp. */
static const gv_op act_elu_naive = {
    .name = "act.elu.naive",
    .summary = "planted bug: ELU as exp(x) - 1, which cancels near 0, where torch uses expm1",
    .planted_bug = "exp(x) - 1 for expm1(x): the small negative arguments lose their digits",
    .error_model = "as act.elu",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .mode_valid = act_native_only,
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1e5",
    .test_shapes = "1000,100003",
    .device = GV_KERNEL(gk_act_elu_naive),
    ACT_COMMON(elu),
};

/* Softplus through log(1 + exp(x)): where exp(x) < u (x below -17 in f32, -37 in f64: the
   wide classes' negative tail) 1 + exp(x) is 1 and the result 0, where y = exp(x). */
static const gv_op act_softplus_naive = {
    .name = "act.softplus.naive",
    .summary = "planted bug: Softplus as log(1 + exp(x)), which returns 0 where exp(x) < u",
    .planted_bug = "log(1 + exp(x)) for log1p(exp(x)): the negative tail is lost",
    .error_model = "as act.softplus",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .mode_valid = act_native_only,
    .dtypes = GV_BOTH_DTYPES,
    .shapes = "1e5",
    .test_shapes = "1000,100003",
    .device = GV_KERNEL(gk_act_softplus_naive),
    ACT_COMMON(softplus),
};

const gv_op *const gv_family_act[] = {&act_gelu,
                                      &act_gelu_tanh,
                                      &act_silu,
                                      &act_tanh,
                                      &act_relu,
                                      &act_leaky_relu,
                                      &act_hardtanh,
                                      &act_softsign,
                                      &act_elu,
                                      &act_selu,
                                      &act_hardsigmoid,
                                      &act_softplus,
                                      &act_gelu_tanhlabel,
                                      &act_silu_fastexp,
                                      &act_elu_naive,
                                      &act_softplus_naive,
                                      NULL};
