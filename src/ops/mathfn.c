/* mathfn.c: op descriptors for y = f(x) element-wise, one op per math function the
 * catalogue's kernels call (sin in sin_iter; exp and the sigmoid in dense), each judged alone
 * against its documented maximum ulp error, and planted variants that run the fast intrinsic
 * under the native label. Dims n (elements).
 * Error model: docs/error-models.md, section mathfn.
 *
 * Bounds (CUDA C++ Programming Guide 13.0, appendix "Mathematical Functions"; the guide states
 * each as the largest distance in ulps between the correctly rounded result and the returned
 * one, found by extensive but not exhaustive tests): single precision sinf 2 ulp and expf 2 ulp,
 * double precision sin 2 ulp and exp 1 ulp, all over the full range; the intrinsics' table:
 * __sinf an absolute error of 2^-21.41 for x in [-pi, pi] ("larger otherwise", no number),
 * __expf 2 + floor(|1.173 x|) ulp, __fdividef 2 ulp for |y| in [2^-126, 2^126]. The intrinsics
 * flush subnormal inputs and results to zero (libdevice's notes on __nv_fast_expf: "most input
 * and output values around denormal range are flushed to sign preserving 0.0"), so __expf's
 * bound is taken for normal results only. The sigmoid has no published bound: derived in the
 * docs from exp's, the add's and the division's.
 *
 * The reference (oracle/mathfn.c) is the function's value rounded once from __float128 (f64
 * results: ref correctly rounded, ref_lo the remainder through exact_reference) or from long
 * double rounded to odd (f32 results, so that rounding ref to f32 is correct). The measure
 * hook counts the ulps between each output and the correctly rounded result as the guide
 * does, and checks the largest against the bound that the case's label claims. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "ops/mathfn.h"
#include "ops/opkit.h"

extern const gk_op gk_math_sin, gk_math_exp, gk_math_sigmoid, gk_math_sin_fast, gk_math_exp_fast,
    gk_math_sigmoid_fast;

#define GUIDE         "CUDA C++ Programming Guide 13.0, Math. Functions"
#define SRC_F32       GUIDE ", single precision"
#define SRC_F64       GUIDE ", double precision"
#define SRC_INTRINSIC GUIDE ", intrinsics"
/* the sigmoid's, derived (a source that starts "from ") */
#define SRC_SIG32            "from expf's 2 ulp, the add and IEEE division: docs/error-models.md"
#define SRC_SIG64            "from exp's 1 ulp, the add and IEEE division: docs/error-models.md"
#define SRC_SIGFAST          "from __expf's and __fdividef's bounds: docs/error-models.md"
#define INTRINSIC_NORMAL_MIN FLT_MIN /* the intrinsics flush below it */
/* exp and sigmoid in native mode: results below the normal range are bounded by the model's
   underflow term only (op.h, subnormals_unpromised: 1 / (1 + exp(-x)) returns 0 once exp(-x)
   overflows, as torch.sigmoid does, and flush-to-zero builds return 0 for every one) */
#define SRC_UNDERFLOW                                                                              \
    "no ulp bound below the normal range: the math libraries do not promise subnormal results "   \
    "of exp-based functions"


int gv_mathfn_of(const gv_op *op)
{
    if (!op || strcmp(op->family, "mathfn") != 0) return -1;
    if (strncmp(op->name, "math.sin", 8) == 0 && (op->name[8] == '\0' || op->name[8] == '.'))
        return GV_MATHFN_SIN;
    if (strncmp(op->name, "math.exp", 8) == 0) return GV_MATHFN_EXP;
    if (strncmp(op->name, "math.sigmoid", 12) == 0) return GV_MATHFN_SIGMOID;
    return -1;
}

/* __expf's documented bound at x: 2 + floor(|1.173 x|) ulp. */
static double expf_fast_ulps(double x)
{
    return 2.0 + floor(fabs(1.173 * x));
}

gv_mathfn_bound gv_mathfn_bound_at(const gv_case *c, double x, double y)
{
    bool f32 = c->dtype == GV_F32, fast = c->mode == GV_MODE_FASTMATH;
    gv_mathfn_bound none = {GV_MATHFN_NONE, INFINITY, "", ""};
    switch (gv_mathfn_of(c->op)) {
    case GV_MATHFN_SIN:
        if (fast) {
            none.function = "__sinf";
            none.source = SRC_INTRINSIC ": none beyond [-pi, pi]";
            return fabs(x) <= M_PI
                       ? (gv_mathfn_bound){GV_MATHFN_ABS, exp2(-21.41), "__sinf", SRC_INTRINSIC}
                       : none;
        }
        return f32 ? (gv_mathfn_bound){GV_MATHFN_ULP, 2.0, "sinf", SRC_F32}
                   : (gv_mathfn_bound){GV_MATHFN_ULP, 2.0, "sin", SRC_F64};
    case GV_MATHFN_EXP:
        if (fast) {
            none.function = "__expf";
            none.source = SRC_INTRINSIC ": results below FLT_MIN flush to 0";
            return fabs(y) >= INTRINSIC_NORMAL_MIN
                       ? (gv_mathfn_bound){GV_MATHFN_ULP, expf_fast_ulps(x), "__expf",
                                           SRC_INTRINSIC}
                       : none;
        }
        if (fabs(y) < (f32 ? FLT_MIN : DBL_MIN)) { /* op.h, subnormals_unpromised */
            none.function = f32 ? "expf" : "exp";
            none.source = SRC_UNDERFLOW;
            return none;
        }
        return f32 ? (gv_mathfn_bound){GV_MATHFN_ULP, 2.0, "expf", SRC_F32}
                   : (gv_mathfn_bound){GV_MATHFN_ULP, 1.0, "exp", SRC_F64};
    case GV_MATHFN_SIGMOID:
        if (fast) {
            /* relative error u(2 B_e + 7) for x < 0, u(B_e + 7) for x >= 0 (B_e: __expf's bound
               at -|x|), within those ulps of the correctly rounded result */
            none.function = "sigmoid (__expf, __fdividef)";
            none.source = SRC_INTRINSIC ": results below FLT_MIN flush to 0";
            double be = expf_fast_ulps(x);
            return fabs(y) >= INTRINSIC_NORMAL_MIN
                       ? (gv_mathfn_bound){GV_MATHFN_ULP, x < 0 ? 2.0 * be + 7.0 : be + 7.0,
                                           "sigmoid (__expf, __fdividef)", SRC_SIGFAST}
                       : none;
        }
        if (fabs(y) < (f32 ? FLT_MIN : DBL_MIN)) { /* op.h, subnormals_unpromised */
            none.function = f32 ? "sigmoid (expf, IEEE division)" : "sigmoid (exp, IEEE division)";
            none.source = SRC_UNDERFLOW;
            return none;
        }
        return f32 ? (gv_mathfn_bound){GV_MATHFN_ULP, 7.0, "sigmoid (expf, IEEE division)",
                                       SRC_SIG32}
                   : (gv_mathfn_bound){GV_MATHFN_ULP, 5.0, "sigmoid (exp, IEEE division)",
                                       SRC_SIG64};
    default: return none;
    }
}

/* v's place among the values of its dtype, in order: consecutive values one apart, +0 and -0
   both 0 (the sign-magnitude encoding folded onto the integers). */
static double ordinal(gv_dtype t, double v)
{
    if (t == GV_F32) {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        double mag = (double)(b & 0x7fffffffu);
        return (b >> 31) ? -mag : mag;
    }
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    double mag = (double)(b & 0x7fffffffffffffffull); /* exact below 2^53 steps apart: enough */
    return (b >> 63) ? -mag : mag;
}

double gv_mathfn_ulp_distance(gv_dtype t, double a, double b)
{
    if (a == b) return 0.0; /* +0 and -0, and equal values */
    if (!isfinite(a) || !isfinite(b)) return INFINITY;
    if (t == GV_F64) {
        /* the f64 ordinals are 63-bit integers, not all exact as doubles: count far values
           from their difference and near ones exactly */
        uint64_t ba, bb;
        memcpy(&ba, &a, sizeof ba);
        memcpy(&bb, &b, sizeof bb);
        if ((ba >> 63) == (bb >> 63)) {
            uint64_t ma = ba & 0x7fffffffffffffffull, mb = bb & 0x7fffffffffffffffull;
            return (double)(ma > mb ? ma - mb : mb - ma);
        }
    }
    return fabs(ordinal(t, a) - ordinal(t, b));
}

/* The spacing of dtype t at |y| (the subnormal spacing below the normal range). */
static double ulp_at(gv_dtype t, double y)
{
    int digits = t == GV_F32 ? FLT_MANT_DIG : DBL_MANT_DIG;
    int emin = t == GV_F32 ? FLT_MIN_EXP : DBL_MIN_EXP; /* 2^(emin-1) is the smallest normal */
    int e;
    frexp(fabs(y), &e); /* |y| in [2^(e-1), 2^e) */
    if (y == 0.0 || e < emin) e = emin;
    return ldexp(1.0, e - digits);
}

/* ---- the hooks ------------------------------------------------------------------------- */

static int mathfn_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = c->shape.d[0];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", n};
    l->out[0] = (gv_tensor_spec){"y", n};
    return GV_OK;
}

/* One function evaluation an element, as the catalogue counts work. */
static double mathfn_flops(const gv_case *c)
{
    return (double)c->shape.d[0];
}

static double mathfn_bytes(const gv_case *c)
{
    return 2.0 * (double)c->shape.d[0] * gv_esize(c);
}

static double mathfn_depth(const gv_case *c)
{
    (void)c;
    return 1.0;
}

/* The dtype's own u, in every mode: the gauge carries the function's bound. */
static double mathfn_unit_roundoff(const gv_case *c)
{
    return gv_unit_roundoff(c->dtype, GV_MODE_NATIVE);
}

static bool mathfn_mode_valid(gv_dtype t, gv_mode m)
{
    /* the intrinsics exist for float only */
    return m == GV_MODE_NATIVE || (m == GV_MODE_FASTMATH && t == GV_F32);
}

static int mathfn_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[0] > 2147483647) {
        snprintf(why, len, "mathfn takes n < 2^31 elements (got %lld)", (long long)s->d[0]);
        return GV_EINVAL;
    }
    return GV_OK;
}

/* Argument classes, element i of class i mod 8 (so that every class shows from 8 elements
   on), values from the generator's (seed, tensor, index) streams: docs/error-models.md,
   section mathfn. Ranges stay where the reference is finite and the label's bound is
   documented (the f64 and f32 library bounds hold over the full range). */
#define MATHFN_NCLASSES 8

static double lin(double a, double b, double t)
{
    return a + (b - a) * t;
}

/* +-2^e, e uniform in [lo, hi), the sign from s */
static double log_uniform(double lo, double hi, double t, double s)
{
    return (s < 0.5 ? -1.0 : 1.0) * exp2(lin(lo, hi, t));
}

static double sin_arg(bool f32, int cls, double t, double s)
{
    switch (cls) {
    case 3: return log_uniform(-30, -1, t, s); /* small: sin x ~ x */
    case 4: {
        /* near a zero k pi, k up to 2^16 (f32) or 2^20 (f64): the nearest value of the dtype
           and up to 3 steps either side, where the reduction's cancellation is deepest */
        double k = 1.0 + floor(t * (f32 ? 0x1p16 : 0x1p20));
        double x = f32 ? (double)(float)(k * M_PI) : k * M_PI;
        int steps = (int)floor(s * 7.0) - 3;
        for (int j = 0; j < abs(steps); j++)
            x = f32 ? (double)nextafterf((float)x, steps < 0 ? 0.0f : INFINITY)
                    : nextafter(x, steps < 0 ? 0.0 : INFINITY);
        return x;
    }
    case 5: return lin(-1e5, 1e5, t);
    case 6: return log_uniform(10, 20, t, s); /* up to 2^20 */
    case 7: /* huge, up to the dtype's largest: Payne-Hanek reduction */
        return log_uniform(20, f32 ? 127.99 : 1023.99, t, s);
    default: return lin(-M_PI, M_PI, t); /* classes 0-2: the main period */
    }
}

/* exp: x in [lo, hi], results from the subnormal range up to just below overflow */
static double exp_arg(bool f32, int cls, double t, double s)
{
    double hi = f32 ? 88.72 : 709.78;      /* ln of the largest finite: 88.7228, 709.7827 */
    double lnorm = f32 ? -87.33 : -708.39; /* ln of the smallest normal: -87.3365, -708.3964 */
    double lo = f32 ? -103.9 : -745.0;     /* the smallest subnormal: ln 2^-149 = -103.28,
                                              ln 2^-1074 = -744.44; below it, within a step */
    switch (cls) {
    case 2: return lin(lnorm, hi, t); /* every normal result */
    case 3: return log_uniform(-30, -1, t, s);
    case 4: return lin(hi - 1.0, hi, t); /* near overflow */
    case 5: return lin(lo, lnorm, t);    /* subnormal results */
    case 6: return lin(lnorm - 1.0, lnorm + 1.0, t);
    case 7: return lin(-1.0, 1.0, t);
    default: return lin(-10.0, 10.0, t);
    }
}

static double sigmoid_arg(bool f32, int cls, double t, double s)
{
    double big = f32 ? 120.0 : 800.0, lnorm = f32 ? -87.33 : -708.39, lo = f32 ? -103.9 : -745.0;
    switch (cls) {
    case 2: return lin(-20.0, 20.0, t);
    case 3: return log_uniform(-30, -1, t, s);
    case 4: return lin(8.0, big, t);    /* y rounds to 1 or just below */
    case 5: return lin(lnorm, -8.0, t); /* y ~ exp(x), normal */
    case 6: return lin(lo, lnorm, t);   /* y subnormal */
    case 7: return lin(-1.0, 1.0, t);
    default: return lin(-8.0, 8.0, t);
    }
}

static int mathfn_inputs(gv_problem *p, int fn)
{
    gv_tensor *x = &p->in[0];
    bool f32 = p->c.dtype == GV_F32;
    uint64_t seed = p->c.seed;
#pragma omp parallel for schedule(static) if (x->count >= GV_PAR_MIN)
    for (int64_t i = 0; i < x->count; i++) {
        int cls = (int)(i % MATHFN_NCLASSES);
        double t = gv_gen_unit(seed, 0, (uint64_t)i), s = gv_gen_unit(seed, 1, (uint64_t)i);
        x->ref[i] = fn == GV_MATHFN_SIN   ? sin_arg(f32, cls, t, s)
                    : fn == GV_MATHFN_EXP ? exp_arg(f32, cls, t, s)
                                          : sigmoid_arg(f32, cls, t, s);
    }
    gv_store_rounded(p, 0);
    return GV_OK;
}

static int go_fn(int fn)
{
    return fn == GV_MATHFN_SIN ? GO_MATH_SIN : fn == GV_MATHFN_EXP ? GO_MATH_EXP : GO_MATH_SIGMOID;
}

/* f64: rounded to nearest; f32: rounded to odd at 53 bits, so that (float)ref is correct. */
static int mathfn_oracle(gv_problem *p, int fn)
{
    int64_t n = p->in[0].count;
    const double *x = p->in[0].ref;
    double *y = p->out[0].ref;
    int rc = p->c.dtype == GV_F64 ? go_mathfn(go_fn(fn), n, x, y, NULL)
                                  : go_mathfn_odd(go_fn(fn), n, x, y);
    return gv_oracle_rc(rc);
}

/* f64 cases: the remainder too, where the reference is wide enough to be exact to 2^-106. */
static int mathfn_exact_reference(gv_problem *p, int fn, bool *done)
{
    *done = false;
    if (p->c.dtype != GV_F64 || go_mathfn_ref_bits() < 106) return GV_OK;
    int rc = go_mathfn(go_fn(fn), p->in[0].count, p->in[0].ref, p->out[0].ref, p->out[0].ref_lo);
    if (rc) return gv_oracle_rc(rc);
    *done = true;
    return GV_OK;
}

/* Gauge: the label's bound at each element, so that u g (depth 1) is the error it allows:
   (B + 1/2) ulp(r) / u for a bound of B ulps from the correctly rounded result (+1/2: that
   result's own distance from r), B / u for an absolute bound, +inf where none is documented
   (nothing to judge there: the measure hook reports those elements). */
static int mathfn_gauge(gv_problem *p)
{
    const gv_case *c = &p->c;
    double u = mathfn_unit_roundoff(c);
    const double *x = p->in[0].ref, *r = p->out[0].ref;
    double *g = p->out[0].gauge;
#pragma omp parallel for schedule(static) if (p->out[0].count >= GV_PAR_MIN)
    for (int64_t i = 0; i < p->out[0].count; i++) {
        gv_mathfn_bound b = gv_mathfn_bound_at(c, x[i], r[i]);
        g[i] = b.kind == GV_MATHFN_ULP   ? (b.value + 0.5) * ulp_at(c->dtype, r[i]) / u
               : b.kind == GV_MATHFN_ABS ? b.value / u
                                         : INFINITY;
        if (g[i] < fabs(r[i])) g[i] = fabs(r[i]); /* never below |r| (op.h) */
    }
    return GV_OK;
}

/* The worst element of one kind of bound: the largest excess over its bound. */
typedef struct worst {
    int64_t i, n;
    double value, bound, max; /* at the worst element; max: the largest value of the kind */
} worst;

static void worst_add(worst *w, int64_t i, double value, double bound)
{
    w->n++;
    if (!(value <= w->max)) w->max = value; /* NaN-proof: a NaN value is never within */
    if (w->i < 0 || !(value - bound <= w->value - w->bound)) {
        w->i = i;
        w->value = value;
        w->bound = bound;
    }
}

/* Element i's measure: the kind of its bound (gv_mathfn_kind), the measured distance (ulps
   from the correctly rounded result, or the absolute error: never negative, never NaN) and the
   bound it is held to. */
static inline void mathfn_elem(const gv_case *c, const gv_tensor *x, const gv_tensor *y, int64_t i,
                               double slack, int *kind, double *value, double *bound)
{
    double got = gv_dtype_load(c->dtype, y->data, i), ref = y->ref[i];
    double rn = c->dtype == GV_F32 ? (double)(float)ref : ref; /* correctly rounded */
    gv_mathfn_bound b = gv_mathfn_bound_at(c, x->ref[i], ref);
    double steps = isnan(got) ? INFINITY : gv_mathfn_ulp_distance(c->dtype, got, rn);
    *kind = b.kind;
    if (b.kind == GV_MATHFN_ULP) {
        *value = steps, *bound = b.value + slack;
    } else if (b.kind == GV_MATHFN_ABS) {
        *value = isnan(got) ? INFINITY : fabs(got - ref), *bound = b.value;
    } else {
        *value = steps, *bound = INFINITY;
    }
}

/* One chunk's worst of one kind, scanned from an empty worst as worst_add does, with what
   continuing a scan from an earlier state needs: whether any element would displace that
   state's maximum (a value over it) or its worst (an excess value - bound over it, or a NaN
   excess: inf - inf). */
typedef struct worst_part {
    worst w;
    double top_value, top_excess; /* the largest value, the largest non-NaN excess */
    bool have_excess, nan_excess; /* a non-NaN excess seen; a NaN one */
} worst_part;

/* a scanned on, in index order, over the elements whose part is b: worst_add's result over
   both, bit for bit. A scan from a meets its first displacing element j (one above a's
   state, or NaN) in the state a had, and b's own scan meets it in a state no higher (every
   element before j was within a's): both take j, and from j on they are the same scan. With
   no displacing element a's state stands. */
static void worst_continue(worst *a, const worst_part *b)
{
    if (b->w.n == 0) return;
    a->n += b->w.n;
    /* values are never NaN; a's max is 0 or a value: b's own scan starts at 0 <= it */
    if (b->top_value > a->max) a->max = b->w.max;
    double a_excess = a->value - a->bound;
    if (a->i < 0 || isnan(a_excess) || b->nan_excess ||
        (b->have_excess && b->top_excess > a_excess)) {
        a->i = b->w.i;
        a->value = b->w.value;
        a->bound = b->w.bound;
    }
}

static void mathfn_measure(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    const gv_tensor *x = &p->in[0], *y = &p->out[0];
    worst ulp = {-1, 0, 0, 0, 0}, abs_err = {-1, 0, 0, 0, 0}, none = {-1, 0, 0, 0, 0};
    /* a reference without 2^-106 (long double where libquadmath is missing) rounds f64
       results wrongly in about 2^-10 of cases, by one step: allowed for, and said */
    double slack = c->dtype == GV_F64 && go_mathfn_ref_bits() < 106 ? 1.0 : 0.0;
    /* Fixed chunks on all cores, each scanned on its own, then continued one after another
       in index order (worst_continue): the worst elements, values and ties of one scan over
       all, whatever the thread count. */
    enum { CHUNK = 1 << 16 };
    int64_t n = y->count, nchunks = (n + CHUNK - 1) / CHUNK;
    worst_part(*parts)[3] = nchunks > 1 ? calloc((size_t)nchunks, sizeof *parts) : NULL;
    if (parts) {
#pragma omp parallel for schedule(static) if (n >= GV_PAR_MIN)
        for (int64_t k = 0; k < nchunks; k++) {
            worst_part *part = parts[k];
            for (int w = 0; w < 3; w++)
                part[w].w = (worst){-1, 0, 0, 0, 0};
            int64_t end = (k + 1) * CHUNK < n ? (k + 1) * CHUNK : n;
            for (int64_t i = k * CHUNK; i < end; i++) {
                int kind;
                double value, bound;
                mathfn_elem(c, x, y, i, slack, &kind, &value, &bound);
                worst_part *wp = &part[kind == GV_MATHFN_ULP ? 0 : kind == GV_MATHFN_ABS ? 1 : 2];
                worst_add(&wp->w, i, value, bound);
                double excess = value - bound;
                if (wp->w.n == 1 || value > wp->top_value) wp->top_value = value;
                if (isnan(excess)) {
                    wp->nan_excess = true;
                } else if (!wp->have_excess || excess > wp->top_excess) {
                    wp->top_excess = excess;
                    wp->have_excess = true;
                }
            }
        }
        for (int64_t k = 0; k < nchunks; k++) {
            worst_continue(&ulp, &parts[k][0]);
            worst_continue(&abs_err, &parts[k][1]);
            worst_continue(&none, &parts[k][2]);
        }
        free(parts);
    } else {
        for (int64_t i = 0; i < n; i++) {
            int kind;
            double value, bound;
            mathfn_elem(c, x, y, i, slack, &kind, &value, &bound);
            worst_add(kind == GV_MATHFN_ULP   ? &ulp
                      : kind == GV_MATHFN_ABS ? &abs_err
                                              : &none,
                      i, value, bound);
        }
    }
    /* the bound shown is the one at the worst element: a function of that element alone */
    gv_mathfn_bound shown_ulp = {0}, shown_abs = {0};
    if (ulp.n > 0) shown_ulp = gv_mathfn_bound_at(c, x->ref[ulp.i], y->ref[ulp.i]);
    if (abs_err.n > 0) shown_abs = gv_mathfn_bound_at(c, x->ref[abs_err.i], y->ref[abs_err.i]);
    if (ulp.n > 0) {
        gv_result_extra(r, "ulp_max", ulp.max);
        gv_result_extra(r, "ulp_worst_x", x->ref[ulp.i]);
        gv_result_check(r, "ulp", ulp.value, ulp.bound,
                        "%s: %.3g ulp at x = %a, over the %s %g ulp%s (%s)", shown_ulp.function,
                        ulp.value, x->ref[ulp.i],
                        strncmp(shown_ulp.source, "from ", 5) == 0 ? "derived" : "documented",
                        ulp.bound - slack, slack > 0 ? " + 1 for the long double reference" : "",
                        shown_ulp.source);
    }
    if (abs_err.n > 0) {
        gv_result_extra(r, "abs_err_max", abs_err.max);
        gv_result_check(r, "abs_err", abs_err.value, abs_err.bound,
                        "%s: absolute error 2^%.2f at x = %a, over the documented 2^-21.41 on "
                        "[-pi, pi] (%s)",
                        shown_abs.function, log2(abs_err.value), x->ref[abs_err.i],
                        shown_abs.source);
    }
    /* where the documentation states no bound (the fast intrinsics outside their ranges):
       measured and reported, never judged */
    if (none.n > 0) {
        gv_result_extra(r, "undocumented_n", (double)none.n);
        gv_result_extra(r, "undocumented_ulp_max", none.max);
        gv_result_extra(r, "undocumented_worst_x", x->ref[none.i]);
    }
}

/* One set of hooks a function: ops of one family that share make_inputs, oracle and gauge
   share cached references (gv_reference_name), so each function has its own. */
#define MATHFN_HOOKS(f, FN)                                                                        \
    static int f##_inputs(gv_problem *p)                                                           \
    {                                                                                              \
        return mathfn_inputs(p, FN);                                                               \
    }                                                                                              \
    static int f##_oracle(gv_problem *p)                                                           \
    {                                                                                              \
        return mathfn_oracle(p, FN);                                                               \
    }                                                                                              \
    static int f##_exact_reference(gv_problem *p, bool *done)                                      \
    {                                                                                              \
        return mathfn_exact_reference(p, FN, done);                                                \
    }                                                                                              \
    static int f##_gauge(gv_problem *p)                                                            \
    {                                                                                              \
        return mathfn_gauge(p);                                                                    \
    }
MATHFN_HOOKS(sin, GV_MATHFN_SIN)
MATHFN_HOOKS(exp, GV_MATHFN_EXP)
MATHFN_HOOKS(sigmoid, GV_MATHFN_SIGMOID)

/* The inputs are the op's own argument classes whatever the case's dist: WIDE is the label
   (a wide dynamic range), the only one the op takes. */
#define MATHFN_COMMON(f)                                                                           \
    .family = "mathfn", .dims = "n", .in_dims = "n", .out_dims = "n",                              \
    .dists = GV_BIT(GV_DIST_WIDE), .default_dist = GV_DIST_WIDE,                                   \
    .check_shape = mathfn_check_shape, .mode_valid = mathfn_mode_valid, .layout = mathfn_layout,   \
    .flops = mathfn_flops, .bytes = mathfn_bytes, .make_inputs = f##_inputs, .oracle = f##_oracle, \
    .exact_reference = f##_exact_reference, .gauge = f##_gauge, .depth = mathfn_depth,             \
    .unit_roundoff = mathfn_unit_roundoff, .measure = mathfn_measure

#define MATHFN_CATALOGUE                                                                           \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_FASTMATH),          \
    .shapes = "1e5,1e6", .test_shapes = "1,8,1000,100003,1e6"

/* Planted: f32 only (the intrinsics are float's), native label; sizes with every argument
   class many times over. */
#define MATHFN_PLANTED                                                                             \
    .dtypes = GV_BIT(GV_F32), .modes = GV_BIT(GV_MODE_NATIVE), .shapes = "1e5,1e6",                \
    .test_shapes = "1000,100003"

#define REF_MODEL "reference __float128 (f64) or long double rounded to odd (f32)"

static const gv_op math_sin = {
    .name = "math.sin",
    .summary = "y = sin(x), element-wise: sinf / sin / __sinf as sin_iter calls them",
    .error_model = "ulp check: sinf 2 ulp, sin 2 ulp over the full range; __sinf |c-r| <= "
                   "2^-21.41 on [-pi, pi], none beyond (reported) (" GUIDE "); gauge: that "
                   "bound, depth 1; " REF_MODEL " (docs/error-models.md, mathfn)",
    .device = GV_KERNEL(gk_math_sin),
    MATHFN_CATALOGUE,
    MATHFN_COMMON(sin),
};

static const gv_op math_exp = {
    .name = "math.exp",
    .summary = "y = exp(x), element-wise: expf / exp / __expf as dense's sigmoid calls them",
    .error_model = "ulp check: expf 2 ulp, exp 1 ulp over the full range; __expf 2 + "
                   "floor(|1.173 x|) ulp for normal results, none below (reported) (" GUIDE
                   "); gauge: that bound, depth 1; " REF_MODEL " (docs/error-models.md, mathfn)",
    .device = GV_KERNEL(gk_math_exp),
    MATHFN_CATALOGUE,
    MATHFN_COMMON(exp),
    .subnormals_unpromised = true,
};

static const gv_op math_sigmoid = {
    .name = "math.sigmoid",
    .summary = "y = 1 / (1 + exp(-x)), element-wise: dense's epilogue sigmoid alone",
    .error_model = "ulp check, derived from " GUIDE ": 7 ulp (f32: expf 2 ulp, add, IEEE "
                   "division), 5 ulp (f64: exp 1 ulp); fastmath 2 B + 7 (x < 0), B + 7 (x >= 0) "
                   "with B = __expf's 2 + floor(|1.173 x|) and __fdividef 2 ulp, normal results; "
                   "gauge: that bound, depth 1; " REF_MODEL " (docs/error-models.md, mathfn)",
    .device = GV_KERNEL(gk_math_sigmoid),
    MATHFN_CATALOGUE,
    MATHFN_COMMON(sigmoid),
    .subnormals_unpromised = true,
};

static const gv_op math_sin_fast = {
    .name = "math.sin.fast",
    .summary = "planted bug: __sinf under the native label",
    .planted_bug = "native sin runs the __sinf intrinsic",
    .error_model = "as math.sin native: sinf 2 ulp (" SRC_F32 ")",
    .device = GV_KERNEL(gk_math_sin_fast),
    MATHFN_PLANTED,
    MATHFN_COMMON(sin),
};

static const gv_op math_exp_fast = {
    .name = "math.exp.fast",
    .summary = "planted bug: __expf under the native label",
    .planted_bug = "native exp runs the __expf intrinsic",
    .error_model = "as math.exp native: expf 2 ulp (" SRC_F32 ")",
    .device = GV_KERNEL(gk_math_exp_fast),
    MATHFN_PLANTED,
    MATHFN_COMMON(exp),
    .subnormals_unpromised = true,
};

static const gv_op math_sigmoid_fast = {
    .name = "math.sigmoid.fast",
    .summary = "planted bug: the sigmoid on __expf and __fdividef under the native label",
    .planted_bug = "native sigmoid runs on the __expf and __fdividef intrinsics",
    .error_model = "as math.sigmoid native: 7 ulp (derived from expf's 2 ulp, " SRC_F32 ")",
    .device = GV_KERNEL(gk_math_sigmoid_fast),
    MATHFN_PLANTED,
    MATHFN_COMMON(sigmoid),
    .subnormals_unpromised = true,
};

const gv_op *const gv_family_mathfn[] = {
    &math_sin, &math_exp, &math_sigmoid, &math_sin_fast, &math_exp_fast, &math_sigmoid_fast, NULL};
