/* dense.c: op descriptors for seed 004's dense layer Y = sigmoid(W X + b) (W m x k, X k x n,
 * b of length m added to row i, Y m x n, row-major) and its planted bugs.
 * Error model: docs/error-models.md, section dense. */
#include <stdlib.h>

#include "ops/opkit.h"

extern const gk_op gk_dense_sigmoid, gk_dense_sigmoid_rowbias, gk_dense_sigmoid_tf32native,
    gk_dense_sigmoid_naive;

static int dense_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    *l = (gv_layout){.n_in = 3, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"W", m * k};
    l->in[1] = (gv_tensor_spec){"X", k * n};
    l->in[2] = (gv_tensor_spec){"b", m};
    l->out[0] = (gv_tensor_spec){"Y", m * n};
    l->workspace_bytes = m * n * (int64_t)gv_dtype_size(c->dtype); /* the product Z = W X */
    return GV_OK;
}

static int dense_check_shape(const gv_shape *s, char *why, size_t len)
{
    for (int i = 0; i < 3; i++)
        if (s->d[i] > 2147483647 / 2) {
            snprintf(why, len, "dense dims must be below 2^30 (cuBLAS takes int)");
            return GV_EINVAL;
        }
    double m = (double)s->d[0], k = (double)s->d[1], n = (double)s->d[2];
    if (m * k > 4e9 || k * n > 4e9 || m * n > 4e9) {
        snprintf(why, len, "dense matrices (W, X, Y) must hold fewer than 4e9 elements each");
        return GV_EINVAL;
    }
    return GV_OK;
}

static bool dense_mode_valid(gv_dtype t, gv_mode m)
{
    /* __expf/__fdividef exist only for f32; the mode table says which dtype the others take */
    return m != GV_MODE_FASTMATH || t == GV_F32;
}

/* The product's 2mkn, then per element of Y: the bias add, exp, 1 + t and the division. */
static double dense_flops(const gv_case *c)
{
    double m = (double)c->shape.d[0], k = (double)c->shape.d[1], n = (double)c->shape.d[2];
    return 2.0 * m * k * n + 4.0 * m * n;
}

/* Fewest bytes: read W, X and b once, write Y (the workspace round trip is the method's). */
static double dense_bytes(const gv_case *c)
{
    double m = (double)c->shape.d[0], k = (double)c->shape.d[1], n = (double)c->shape.d[2];
    return (m * k + k * n + m + m * n) * gv_esize(c);
}

static double dense_depth(const gv_case *c)
{
    double k = (double)c->shape.d[1];
    switch (c->mode) {
    case GV_MODE_TF32: return 4.0 + (k + 1.0) * ldexp(1.0, -13);
    case GV_MODE_FASTMATH: return k + 11.0;
    default: return k + 7.0;
    }
}

static int dense_inputs(gv_problem *p)
{
    for (int i = 0; i < 3; i++)
        gv_fill(p, i, p->c.dist); /* W, X, b */
    return GV_OK;
}

static int dense_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *w = p->in[0].ref, *x = p->in[1].ref, *b = p->in[2].ref;
    return gv_oracle_rc(go_dense_sigmoid(m, k, n, w, k, x, n, b, p->out[0].ref, n));
}

static int dense_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *w = p->in[0].ref, *x = p->in[1].ref, *b = p->in[2].ref;
    return gv_oracle_rc(
        go_dense_sigmoid_gauge(m, k, n, w, k, x, n, b, p->out[0].ref, n, p->out[0].gauge, n));
}

/* The probabilistic model's G (docs/error-models.md, section dense): the pre-activation
   z = W X + b is a (k+1)-term dot product with spread S = sqrt((W o W)(X o X) + b o b); its
   error reaches y through sigma'(z) = t / (1 + t)^2, t = exp(-|z|); the sigmoid's own
   evaluation (6u|y|) enters as 6|y| / sqrt(d), so that w G covers it, and y below the
   normal range (z < -87 in f32) loses relative precision: an absolute floor of 4 subnormal
   spacings eta (exp's 2 ulp of a subnormal, the rounding and the division) enters as
   4 eta / (u sqrt(d)):
       G = sigma'(z) (|z| + S) + 6 |y| / sqrt(d) + 4 eta / (u sqrt(d)).
   sigma'(z) is the slope at z, right while z's error is small beside sigma's curvature; but
   the model lets z err by up to D = 8 w (|z| + S) (w the case's mode's unit: tf32's 2^-10 on
   huge data is D ~ 2^90 for |z| ~ 2^100), and where |z| < D the error can carry z across 0
   and y from 0 to 1, which sigma'(z) ~ 0 calls an error of 1e35 R (issue 38: tf32 on huge).
   So the slope is the larger of sigma'(z) and the steepest secant over [z - D, z + D],
   max(sigma(z + D) - sigma(z), sigma(z) - sigma(z - D)) / D: the same slope where D is small
   (every native case), and an output that moves by sigma's whole step only where z's own
   allowed error reaches across it. w depends on the mode: the reference is cached per mode. */
static int dense_pgauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *w = p->in[0].ref, *x = p->in[1].ref, *b = p->in[2].ref;
    gv_tensor *Y = &p->out[0];
    /* the judge runs no probabilistic model on fast-math modes (their function errors are
       outside its form: src/core/judge.c), so G is never read there: left NaN (never passes),
       and the product and sq-gauge it costs are not computed */
    if (p->c.mode == GV_MODE_FASTMATH) return GV_OK;
    double *z = malloc((size_t)(m * n) * sizeof *z + 1);
    if (!z) return GV_ENOMEM;
    int rc = go_gemm(m, k, n, w, k, x, n, z, n);
    if (rc == 0) rc = go_gemm_sqgauge(m, k, n, w, k, x, n, Y->pgauge, n);
    gv_case native = p->c;
    native.mode = GV_MODE_NATIVE;
    double sqrt_d = sqrt(dense_depth(&native));
    double eval = 6.0 / sqrt_d;
    double u = gv_unit_roundoff(p->c.dtype, GV_MODE_NATIVE);
    double eta = gv_dtype_subnormal_min(p->c.dtype);
    double floor_g = 4.0 * eta / (u * sqrt_d);
    /* the case's own unit w, as the judge will set it (gv_result_init) */
    gv_result *unit = malloc(sizeof *unit);
    if (!unit) {
        free(z);
        return GV_ENOMEM;
    }
    gv_result_init(unit, &p->c);
    double reach = GV_PROB_MAX_BOUND * (unit->prob.on ? unit->prob.w : 0.0);
    free(unit);
    /* element-wise: rows on all cores, each element as on one thread (the same bits) */
#pragma omp parallel for schedule(static) if (rc == 0 && (double)m * (double)n >= GO_PAR_MIN / 16)
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double zij = z[i * n + j] + b[i];
            double S = hypot(Y->pgauge[i * n + j], b[i]); /* no overflow on huge inputs */
            double t = exp(-fabs(zij));
            double slope = t / ((1.0 + t) * (1.0 + t));
            /* where the sigmoid is flat to the last bit (slope 0, z infinite) z's error does
               not reach y: its term is 0, not 0 times an infinite spread */
            double D = reach * (fabs(zij) + S);
            if (D > 0 && isfinite(D)) {
                double y0 = go_sigmoid(zij);
                double secant = fmax(go_sigmoid(zij + D) - y0, y0 - go_sigmoid(zij - D)) / D;
                /* A step the sigmoid takes within z's allowed error (0 to 1 where z crosses 0
                   on huge data) then has R = D / (w (|z| + S)) = the bound exactly, and the
                   roundings of this quotient and of the judge's put it on either side of it
                   (a correct tf32 product failed at "max R 8 over 8" on an H100 and on the
                   CPU's emulation). 2^-30 of slack is far above those roundings (~1e-15) and
                   far below any error the model tells apart. */
                secant *= 1.0 + 0x1p-30;
                if (secant > slope) slope = secant;
            }
            double through_z = slope > 0 && isfinite(zij) ? slope * (fabs(zij) + S) : 0.0;
            Y->pgauge[i * n + j] = through_z + eval * fabs(Y->ref[i * n + j]) + floor_g;
        }
    free(z);
    return gv_oracle_rc(rc);
}

/* The range of the converted operands (op.h, mode_reference): in tf32 an f32 W or X above
   TF32's largest finite rounds to inf, and one below its least subnormal to zero (0 inf is
   NaN), so Y there is the sigmoid of the converted product plus b (b is added in f32 by the
   epilogue, unconverted). The sigmoid of an infinite z is 0 or 1, as the kernel's stable form
   gives it. */
static int dense_mode_reference(const gv_problem *p, double *ref, int64_t *patched)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[2];
    const double *b = p->in[2].ref;
    unsigned char *mark = malloc((size_t)(m * n) + 1);
    double *z = malloc(sizeof *z * (size_t)(m * n) + 1);
    int64_t marked = 0;
    int rc = mark && z ? GV_OK : GV_ENOMEM;
    *patched = 0;
    /* no gauge: an overflowing z is an infinite one, whose sigmoid (0 or 1) is the finite z's */
    if (rc == GV_OK) rc = gv_converted_product(p, 0, 1, NULL, mark, z, &marked);
    for (int64_t i = 0; rc == GV_OK && marked && i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            if (!mark[i * n + j]) continue;
            double y = go_sigmoid(z[i * n + j] + b[i]), *r = &ref[i * n + j];
            *patched += !(y == *r || (isnan(y) && isnan(*r)));
            *r = y;
        }
    free(mark);
    free(z);
    return rc;
}

/* gamma_n = n u / (1 - n u) (Higham, ASNA 3.1); infinite where n u >= 1 (no bound). */
static double gamma_n(double n, double u)
{
    return n * u < 1.0 ? n * u / (1.0 - n * u) : INFINITY;
}

/* The relative rule (docs/error-models.md, section dense, "Relative rule"): the normwise and
   gauge models bound |y - r| by a multiple of |W||X| + |b|, which says nothing of an output
   near 1e-90 (z ~ -200): an f32 layer returns 0 there and passed as f64 (issue 38). Yet the
   sigmoid's relative sensitivity to z is d(ln s)/dz = 1 - s <= 1, so an error dz of z moves
   s by a factor within exp(+-|dz|), for any data:
       |y - r| / r <= expm1(|dz_dev| + |dz_oracle|) + 8 u + 8 2^-53,
       |dz| <= (gamma_{k+1}(u_acc) + 2 u_in + u_in^2) (|W||X| + |b|)   (Higham 3.5, any order),
   8 u for the sigmoid's own evaluation (exp's 2 ulp twice over, 1 + t, the division, the
   stored rounding; __expf's (2 + 1.16|z|) ulp stays inside |dz|'s (k+1) u |z| as well). It is
   judged where the truth r is a normal number of the label's dtype (below that, relative
   accuracy is not promised), in the modes whose product error has that form (native; tf32
   with its 2^-11 operand rounding and a truncating 2^-23 accumulator); the gauge holds
   g = (|W||X| + |b|) / 4 + |r|, so |W||X| + |b| is read back from it, with room for g's own
   three roundings and |W||X|'s f64 sum. An output of 0 or a subnormal there is "lost range"
   (1 / (1 + exp(-z)) with exp overflowing, or an f32 sigmoid judged as f64); a normal one
   off by more is "precision". */
static void dense_measure(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    double u_in = 0.0, u_acc = gv_unit_roundoff(c->dtype, GV_MODE_NATIVE);
    if (c->mode == GV_MODE_TF32) {
        u_in = 0x1p-11;
        u_acc = 0x1p-23;
    } else if (c->mode != GV_MODE_NATIVE) {
        return; /* fast math, emulations: other function and product error forms */
    }
    const gv_tensor *Y = &p->out[0];
    if (!Y->gauge || !Y->ref) return;
    double k1 = (double)c->shape.d[1] + 1.0;
    double unit_z = gamma_n(k1, u_acc) + 2.0 * u_in + u_in * u_in + gamma_n(k1, 0x1p-53);
    double eval = 8.0 * gv_unit_roundoff(c->dtype, GV_MODE_NATIVE) + 8.0 * 0x1p-53;
    double normal = gv_dtype_normal_min(c->dtype);
    double worst = 0.0, worst_rel = 0.0, worst_bound = 0.0, worst_y = 0.0, worst_r = 0.0;
    int64_t worst_at = -1, lost = 0, first_lost = -1, judged = 0;
    for (int64_t i = 0; i < Y->count; i++) {
        double ref = Y->ref[i], y = gv_dtype_load(c->dtype, Y->data, i);
        if (!isfinite(ref) || !(fabs(ref) >= normal) || !isfinite(y)) continue;
        double g = Y->gauge[i];
        double wxb = fmax(4.0 * (g - fabs(ref)), 0.0) * (1.0 + 2.0 * k1 * 0x1p-53) + 0x1p-48 * g;
        double dz = unit_z * wxb;
        if (!isfinite(dz)) continue;
        judged++;
        double rel = fabs(y - ref) / fabs(ref);
        if (!(rel > eval)) continue; /* within the evaluation's own error: no expm1 needed */
        /* 2^-20: room for this bound's own roundings, far below any error it tells apart */
        double bound = (expm1(dz) + eval) * (1.0 + 0x1p-20);
        double q = rel / bound;
        bool range = y == 0.0 || fabs(y) < normal;
        if (range && q > 1.0) {
            if (first_lost < 0) first_lost = i;
            lost++;
        }
        if (q > worst) {
            worst = q;
            worst_at = i;
            worst_rel = rel;
            worst_bound = bound;
            worst_y = y;
            worst_r = ref;
        }
    }
    gv_result_extra(r, "sigmoid_rel_judged", (double)judged);
    if (judged == 0) return;
    if (lost) {
        int64_t i = first_lost;
        double y = gv_dtype_load(c->dtype, Y->data, i), ref = Y->ref[i];
        gv_result_check_cause(
            r, GV_CAUSE_LOST_RANGE, "sigmoid relative error", worst, 1.0,
            "lost range: %lld outputs are 0 or subnormal where the sigmoid is a normal %s "
            "(first at %lld: %.3g for %.3g): exp overflowed or the range is narrower than %s",
            (long long)lost, gv_dtype_name(c->dtype), (long long)i, y, ref,
            gv_dtype_name(c->dtype));
        return;
    }
    gv_result_check_cause(r, GV_CAUSE_PRECISION, "sigmoid relative error", worst, 1.0,
                          "sigmoid relative error %.3g at %lld (%.6g for %.6g) is %.3g times what "
                          "z's error and the sigmoid's evaluation allow (%.3g)",
                          worst_rel, (long long)worst_at, worst_y, worst_r, worst, worst_bound);
}

#define DENSE_COMMON DENSE_BASE, .default_dist = GV_DIST_UNIFORM11

/* The probabilistic gauge reads the mode (dense_pgauge: the reach of z's allowed error is
   the mode's w), so each mode has its own cache entry. */
#define DENSE_BASE                                                                                 \
    .family = "dense", .dims = "m,k,n", .in_dims = "m,k;k,n;m", .out_dims = "m,n",                 \
    .dists = GV_FINITE_DISTS | GV_EDGE_DISTS, .check_shape = dense_check_shape, .range_degree = 2, \
    .mode_valid = dense_mode_valid, .layout = dense_layout, .flops = dense_flops,                  \
    .bytes = dense_bytes, .make_inputs = dense_inputs, .oracle = dense_oracle,                     \
    .gauge = dense_gauge, .pgauge = dense_pgauge, .depth = dense_depth,                            \
    .subnormals_unpromised = true, .mode_reference = dense_mode_reference,                         \
    .measure = dense_measure,                                                                      \
    .error_model = "|Y-r| <= 0.25 gamma_{k+1}(|W||X|+|b|) + sigmoid eval (Higham ASNA eq. 3.13): " \
                   "gauge 0.25(|W||X|+|b|)+|Y|, depth k+7, fastmath k+11, tf32 4+(k+1)/2^13 at "   \
                   "u = 2^-11 (docs/error-models.md)"

static const gv_op dense_sigmoid = {
    .name = "dense.sigmoid",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "Y = sigmoid(W X + b), b per row: cuBLAS product + one fused epilogue (seed 004)",
    .modes =
        GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_TF32) | GV_BIT(GV_MODE_FASTMATH) | GV_CUBLAS_MODES,
    .shapes = "512x784x256,4096x2048x256",
    .test_shapes = "33x70x17,1x300x7,100x257x129,512x784x256",
    .canaries = "uniform11:1024x4096x256,tiny:256x512x128,huge:256x512x128,"
                "sparse-special:256x512x128",
    .test_canaries = "uniform11:64x1024x64,tiny:64x256x64,huge:64x256x64,sparse-special:64x256x64",
    .device = GV_KERNEL(gk_dense_sigmoid),
    DENSE_COMMON,
};

static const gv_op dense_sigmoid_rowbias = {
    .name = "dense.sigmoid.rowbias",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the epilogue takes the bias by column, b[j mod m], not by row",
    .planted_bug = "bias indexed by column (b[j mod m]) instead of by row",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "512x784x256",
    .test_shapes = "33x70x17,512x784x256",
    .device = GV_KERNEL(gk_dense_sigmoid_rowbias),
    DENSE_COMMON,
};

static const gv_op dense_sigmoid_tf32native = {
    .name = "dense.sigmoid.tf32native",
    .dtypes = GV_BIT(GV_F32),
    .summary = "planted bug: the native f32 product secretly runs TF32 tensor-op math",
    .planted_bug = "TF32 tensor-op math behind a pedantic label",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "512x784x256,4096x2048x256",
    .test_shapes = "100x257x129,512x784x256",
    .canaries = "uniform11:1024x4096x256",
    .test_canaries = "uniform11:64x1024x64",
    .device = GV_KERNEL(gk_dense_sigmoid_tf32native),
    DENSE_COMMON,
};

/* An intermediate that overflows: exp(z) of the textbook form, on huge inputs (|z| near 2^60
   in f32), is +Inf wherever z is large and positive, and Inf / Inf is NaN where the sigmoid
   is 1. */
static const gv_op dense_sigmoid_naive = {
    .name = "dense.sigmoid.naive",
    .dtypes = GV_BOTH_DTYPES,
    .summary = "planted bug: the epilogue computes exp(z) / (1 + exp(z)), which overflows",
    .planted_bug = "exp(z) overflows for large z: NaN where the sigmoid is 1",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .shapes = "256x512x128",
    .test_shapes = "64x256x64",
    .device = GV_KERNEL(gk_dense_sigmoid_naive),
    DENSE_BASE,
    .default_dist = GV_DIST_HUGE,
};

const gv_op *const gv_family_dense[] = {&dense_sigmoid, &dense_sigmoid_rowbias,
                                        &dense_sigmoid_tf32native, &dense_sigmoid_naive, NULL};
