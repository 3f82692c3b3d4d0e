/* dense.c: op descriptors for seed 004's dense layer Y = sigmoid(W X + b) (W m x k, X k x n,
 * b of length m added to row i, Y m x n, row-major) and its planted bugs.
 * Error model: docs/error-models.md, section dense. */
#include <float.h>
#include <stdlib.h>

#include "../../abi/gemm.h"
#include "core/gen.h"
#include "ops/gemm_fp8.h"
#include "ops/opkit.h"

extern const gk_op gk_dense_sigmoid, gk_dense_sigmoid_rowbias, gk_dense_sigmoid_tf32native,
    gk_dense_sigmoid_naive, gk_dense_sigmoid_halfcount;
extern const gk_op gk_dense_sigmoid_fp8noscale, gk_dense_sigmoid_fp8rowtensor,
    gk_dense_sigmoid_fp8e5m2b, gk_dense_sigmoid_fp8blkrow;

static int dense_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], k = c->shape.d[1], n = c->shape.d[2];
    *l = (gv_layout){.n_in = 3, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"W", m * k};
    l->in[1] = (gv_tensor_spec){"X", k * n};
    l->in[2] = (gv_tensor_spec){"b", m};
    l->out[0] = (gv_tensor_spec){"Y", m * n};
    /* the 16-bit modes' copies of W and X, or the fp8 modes' gemm workspace (abi/gemm.h), then
       the product Z = W X */
    l->workspace_bytes = gk_half_operands_bytes(c->mode, m, k, n, 2) +
                         gk_fp8_product_bytes(c->mode, m, k, n) +
                         m * n * (int64_t)gv_dtype_size(c->dtype);
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
    /* __expf/__fdividef exist only for f32, and the 16-bit and fp8 modes round f32 operands;
       the mode table says which dtype the others take */
    return (m != GV_MODE_FASTMATH && !gk_half_mode(m) && !gk_fp8_mode(m)) || t == GV_F32;
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

/* A scaled fp8 mode's depth is gemm's (gv_fp8_scaled_depth, in units of its accumulator's
   2^-13) and 8 f32 roundings more, 2^-24 = 2^-11 u each: the bias add and the sigmoid's
   evaluation (k + 7's 7 at f32's own u). */
static double dense_depth(const gv_case *c)
{
    double k = (double)c->shape.d[1];
    if (gv_mode_scaled(c->mode)) return gv_fp8_scaled_depth(c) + 8.0 * 0x1p-11;
    switch (c->mode) {
    case GV_MODE_TF32: return 4.0 + (k + 1.0) * ldexp(1.0, -13);
    case GV_MODE_FASTMATH: return k + 11.0;
    default: return k + 7.0;
    }
}

static int dense_wide_inputs(gv_problem *p);

static int dense_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int dense_inputs(gv_problem *p)
{
    /* wide's scaled layout in every mode whose operand format holds its 2^16 steps (up to
       2^39): not f16 and f16acc, whose operands overflow past 65504 (autocast's f16 would
       return NaN), and which get the generic wide; check pairs wide with the scaled modes
       only (gv_probe_applies) */
    bool f16_operands = p->c.mode == GV_MODE_F16 || p->c.mode == GV_MODE_F16ACC;
    if (p->c.dist == GV_DIST_WIDE && !f16_operands) return dense_wide_inputs(p);
    for (int i = 0; i < 3; i++)
        gv_fill(p, i, p->c.dist); /* W, X, b */
    return GV_OK;
}

/* W and X as the case's mode hands them to its product: a scaled fp8 mode's quantised values
   (gemm_fp8.c, the quantisation gemm.cublas's reference applies; *owned to be freed), else
   the inputs themselves (*owned NULL). */
static int dense_operands(const gv_problem *p, const double **w, const double **x, double **owned)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    *w = p->in[0].ref;
    *x = p->in[1].ref;
    *owned = NULL;
    if (!gv_mode_scaled(p->c.mode)) return GV_OK;
    double *dw, *dx;
    int rc = gv_fp8_dequantised(p->c.mode, m, k, n, *w, *x, &dw, &dx);
    if (rc != GV_OK) return rc;
    *w = dw;
    *x = dx;
    *owned = dw; /* dx lies in the same allocation */
    return GV_OK;
}

/* A scaled fp8 mode's reference is the f64 layer on W and X as its label quantises them:
   the exact result of the quantised problem, so the judge measures the product's sums and
   the epilogue, not the scaling the label claims (as gemm.cublas's, docs/error-models.md). */
static int dense_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *w, *x, *b = p->in[2].ref;
    double *owned;
    int rc = dense_operands(p, &w, &x, &owned);
    if (rc != GV_OK) return rc;
    rc = gv_oracle_rc(go_dense_sigmoid(m, k, n, w, k, x, n, b, p->out[0].ref, n));
    free(owned);
    return rc;
}

/* the gauge of the same operands: |W_q||X_q| in a scaled mode, the sums its tensor cores add */
static int dense_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *w, *x, *b = p->in[2].ref;
    double *owned;
    int rc = dense_operands(p, &w, &x, &owned);
    if (rc != GV_OK) return rc;
    rc = gv_oracle_rc(
        go_dense_sigmoid_gauge(m, k, n, w, k, x, n, b, p->out[0].ref, n, p->out[0].gauge, n));
    free(owned);
    return rc;
}

static double dense_unit_roundoff(const gv_case *c)
{
    if (gv_mode_scaled(c->mode)) return gv_fp8_scaled_unit(c->mode);
    return gv_unit_roundoff(c->dtype, c->mode);
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
       outside its form) nor on the scaled fp8 modes (truncating sums: src/core/judge.c), so G
       is never read there: left NaN (never passes), and the product and sq-gauge it costs are
       not computed */
    if (p->c.mode == GV_MODE_FASTMATH || gv_mode_scaled(p->c.mode)) return GV_OK;
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
       |y - r| / r <= expm1(|dz_dev| + |dz_oracle|) + eval,
   with |dz| bounded by the mode's product error form (dense_z_form) and eval the sigmoid's
   own evaluation (exp's 2 ulp twice over, 1 + t, the division, the stored rounding: 8 u;
   fast math's __expf and __fdividef: 12 u, and __expf's 1.173 |z| ulp in dz). It is judged
   where the truth r is a normal number of the label's dtype (below that, relative accuracy
   is not promised); the gauge holds g = (|W||X| + |b|) / 4 + |r|, so |W||X| + |b| is read
   back from it, with room for g's own three roundings and |W||X|'s f64 sum. An output of 0
   or a subnormal there is "lost range" (1 / (1 + exp(-z)) with exp overflowing, or an f32
   sigmoid judged as f64), unless the truth is so near the normal range's edge that the
   allowed error reaches below it (a flush is then legal); a normal one off by more is
   "precision". */

/* z's error in one mode: |dz_ij| <= unit a_ij + fixed (Rw_i Sx_j + Sw_i Cx_j)
   + split (Sw_i + Sx_j), a = |W||X| + |b|, Rw_i and Sw_i the largest and the sum of |W|'s
   row i, Cx_j and Sx_j those of X's column j. */
typedef struct dense_z_form {
    double unit;  /* per unit of a: roundings relative to each term (Higham 3.5, any order) */
    double fixed; /* per unit of row max x column sum: a fixed-point emulation's truncation */
    double split; /* per unit of row or column sum: operand pieces lost below a format's range */
    double flat;  /* absolute: roundings of b and z in a format's subnormal range */
    double eval;  /* the sigmoid's evaluation, relative to y */
} dense_z_form;

/* The fp8 tensor cores' sums, relative to the sum a of the terms' magnitudes, at their worst:
   a block of 32 products is aligned to the largest exponent among them and the running sum,
   each truncated to 13 fraction bits (< 2^-13 of that largest, which is at most a so far),
   and the block's sum to 14 significant bits (< 2^-13 a): 34 u a block (u = 2^-13), and
   ceil(min(k, 128) / 32) blocks in each 128-term chunk ([KM25]; promotion every 128,
   measured: probe/sm_90.expect); the chunks' f32 sum, the descales and the final scaling,
   gamma_{2 ceil(k / 128) + 4}(2^-24); the bias add and the f32 Z, 2^-23. This is what the
   truncations can do, far above what they do (the worst-case model's depth counts one u a
   block and keeps the ratio bound as headroom): the relative rule judges only beyond it. */
static double dense_fp8_sums(const gv_case *c)
{
    int64_t k = c->shape.d[1] > 0 ? c->shape.d[1] : 1;
    double blocks = (double)gk_fp8_cdiv(k < GK_FP8_BLOCK_K ? k : GK_FP8_BLOCK_K, 32);
    double chunks = (double)gk_fp8_cdiv(k, GK_FP8_BLOCK_K);
    return 34.0 * blocks * gv_fp8_scaled_unit(GV_MODE_FP8ROW) +
           gamma_n(2.0 * chunks + 4.0, 0x1p-24) + 0x1p-23;
}

/* The form of the case's mode; false where the mode's error has none this rule can state.
   - native: gamma_{k+1}(u) a.
   - tf32 (f32): operands rounded to TF32 (2 u_in + u_in^2, u_in = 2^-11) and an f32
     accumulator with room to truncate (2^-23 a step).
   - fastmath (f32): native's product; __expf errs by (2 + 1.173|z|) ulp and __fdividef by
     2 ulp (CUDA C++ Programming Guide, intrinsic functions): 2.35 u |z| <= 2.4 u a joins dz,
     and eval is 12 u (exp's constant 2 ulp, 1 + t, the division's 2 ulp, the store).
   - bf16x9 (f32): cuBLAS splits each f32 operand into three bf16 pieces (exact while they
     stay in bf16's range) and sums the nine products of pieces of every term on tensor cores
     in f32: 9k + 1 terms of magnitude within (1 + 2^-8)^2 of |w||x|, each sum step with room
     to truncate (2^-23); a piece below bf16's least subnormal 2^-133 is lost, 2^-133 per
     operand element (split).
   - default: cuBLAS's default math, IEEE arithmetic of the dtype in any order with room to
     truncate (2u a step); in f32 also bf16x9's form, which the environment can switch on
     (CUBLAS_EMULATE_SINGLE_PRECISION) under the default math: the larger of the two.
   - fp64emuN (f64): the fixed-point emulation aligns each row of W and column of X to its
     largest element and keeps N bits below it (the probe reads 39, 47 and 53+ for 32, 40,
     48: more, never fewer), so an element errs by up to 2^(2-N) times its row's or column's
     largest (one place for the rounding and one for the alignment), the integer products are
     exact, and the slices' sums, the conversion and the bias add are f64 roundings: k + 65
     f64 steps of room.
   - fp64emu (automatic): cuBLAS chooses the width from the inputs and promises no per-element
     width (a row spanning many binades keeps fewer bits of its small elements): no form.
   - f16, bf16 (f32): W and X rounded to the half type (u_h = 2^-11, 2^-8: 2 u_h + u_h^2 per
     product), the sum in f32 (gamma_{k+1}(2^-23), room to truncate), and what autocast adds
     (F.linear casts b to the half type, and W X + b comes back in it): b's rounding and z's,
     u_h each, 3 u_h + 2 u_h^2 in all. Below the half type's normal range those roundings are
     absolute: half its least subnormal per operand element (split: 2^-25 for f16, 2^-134 for
     bf16, relative room 2 u_h) and for b and z (flat: twice that).
   - fp8e5m2, fp8row, fp8blk (f32): the reference holds the label's quantisation, so a is
     |W_q||X_q| + |b| and what is left is the sums (dense_fp8_sums). fp8 (f32): W and X scaled
     by 448 / amax of each and rounded to e4m3 (u_e = 2^-4 while normal: 2 u_e + u_e^2 per
     product), then the same sums on terms within (1 + u_e)^2 of |w||x|; an element below
     e4m3's normal range errs by half its least subnormal, 2^-10 in the scaled values and
     2^-10 amax / 448 in W's or X's own (split: the larger, from the data: dense_measure). */
static bool dense_z_form_of(const gv_case *c, dense_z_form *f)
{
    double k1 = (double)c->shape.d[1] + 1.0;
    double u = gv_unit_roundoff(c->dtype, GV_MODE_NATIVE);
    double oracle = gamma_n(k1, 0x1p-53);
    double bf16x9 = gamma_n(9.0 * (k1 - 1.0) + 1.0, 0x1p-23) * (1.0 + 0x1p-7);
    *f = (dense_z_form){.eval = 8.0 * u + 8.0 * 0x1p-53};
    switch (c->mode) {
    case GV_MODE_NATIVE: f->unit = gamma_n(k1, u); break;
    case GV_MODE_TF32: f->unit = gamma_n(k1, 0x1p-23) + 2.0 * 0x1p-11 + 0x1p-22; break;
    case GV_MODE_FASTMATH:
        f->unit = gamma_n(k1, u) + 2.4 * u;
        f->eval = 12.0 * u + 8.0 * 0x1p-53;
        break;
    case GV_MODE_BF16X9:
        f->unit = bf16x9;
        f->split = 0x1p-133;
        break;
    case GV_MODE_DEFAULT:
        f->unit = gamma_n(k1, 2.0 * u);
        if (c->dtype == GV_F32) {
            f->unit = fmax(f->unit, bf16x9);
            f->split = 0x1p-133;
        }
        break;
    case GV_MODE_FP64EMU_32:
    case GV_MODE_FP64EMU_40:
    case GV_MODE_FP64EMU_48:
    case GV_MODE_FP64EMU_56:
        f->unit = gamma_n(k1 + 64.0, 0x1p-53);
        f->fixed = ldexp(1.0, 2 - gv_mode_get(c->mode)->input_bits);
        break;
    case GV_MODE_F16:
    case GV_MODE_BF16: {
        const gv_format_info *h = gv_format_get(gv_mode_get(c->mode)->probe_in);
        double uh = ldexp(1.0, -h->p), half_sub = ldexp(1.0, h->emin - h->p);
        f->unit = gamma_n(k1, 0x1p-23) + 3.0 * uh + 2.0 * uh * uh + 0x1p-22;
        f->split = half_sub * (1.0 + 2.0 * uh);
        f->flat = 2.0 * half_sub;
        break;
    }
    case GV_MODE_FP8:
        f->unit = 2.0 * 0x1p-4 + 0x1p-8 + dense_fp8_sums(c) * (1.0 + 0x1p-3 + 0x1p-8);
        break;
    case GV_MODE_FP8E5M2:
    case GV_MODE_FP8ROW:
    case GV_MODE_FP8BLK: f->unit = dense_fp8_sums(c); break;
    default: return false; /* fp64emu (automatic): no per-element width promised */
    }
    f->unit += oracle;
    return true;
}

/* Rw, Sw (m each) and Cx, Sx (n each): the largest and the sum of |W|'s rows and |X|'s
   columns, for the fixed-point and split terms. */
static bool dense_row_col_stats(const gv_problem *p, double *rw, double *sw, double *cx, double *sx)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const double *w = p->in[0].ref, *x = p->in[1].ref;
    if (!w || !x) return false;
    for (int64_t i = 0; i < m; i++) {
        rw[i] = sw[i] = 0.0;
        for (int64_t l = 0; l < k; l++) {
            double v = fabs(w[i * k + l]);
            rw[i] = fmax(rw[i], v);
            sw[i] += v;
        }
    }
    for (int64_t j = 0; j < n; j++)
        cx[j] = sx[j] = 0.0;
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            double v = fabs(x[l * n + j]);
            cx[j] = fmax(cx[j], v);
            sx[j] += v;
        }
    /* room for the f64 sums' own roundings */
    double room = 1.0 + 2.0 * ((double)k + 1.0) * 0x1p-53;
    for (int64_t i = 0; i < m; i++)
        sw[i] *= room;
    for (int64_t j = 0; j < n; j++)
        sx[j] *= room;
    return true;
}

/* fp8's split (dense_z_form_of): half e4m3's least subnormal in W's and X's own units,
   2^-10 amax / 448 with room for the f32 scale's rounding, the larger of the two; false where
   an amax is not finite (no bound to state: the rule is left out). */
static bool dense_fp8_split(const gv_problem *p, dense_z_form *f)
{
    double amax = 0.0;
    for (int t = 0; t < 2; t++)
        for (int64_t i = 0; i < p->in[t].count; i++) {
            double a = fabs(p->in[t].ref[i]);
            if (!(a <= DBL_MAX)) return false; /* the kernel's amax is then NaN or Inf */
            amax = fmax(amax, a);
        }
    f->split = 0x1p-10 * amax / 448.0 * (1.0 + 0x1p-20);
    return true;
}

static void dense_measure(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    dense_z_form form;
    if (!dense_z_form_of(c, &form)) return;
    if (c->mode == GV_MODE_FP8 && !dense_fp8_split(p, &form)) return;
    const gv_tensor *Y = &p->out[0];
    if (!Y->gauge || !Y->ref) return;
    int64_t m = c->shape.d[0], n = c->shape.d[2];
    double k1 = (double)c->shape.d[1] + 1.0;
    double *stats = NULL; /* Rw, Sw (m each), Cx, Sx (n each) */
    if (form.fixed > 0.0 || form.split > 0.0) {
        stats = malloc(sizeof *stats * (size_t)(2 * m + 2 * n) + 1);
        if (!stats || !dense_row_col_stats(p, stats, stats + m, stats + 2 * m, stats + 2 * m + n)) {
            free(stats);
            return; /* no room to state the bound: the rule is left out, never guessed */
        }
    }
    double normal = gv_dtype_normal_min(c->dtype);
    double worst = 0.0, worst_rel = 0.0, worst_bound = 0.0, worst_y = 0.0, worst_r = 0.0;
    int64_t worst_at = -1, lost = 0, first_lost = -1, judged = 0;
    for (int64_t i = 0; i < Y->count; i++) {
        double ref = Y->ref[i], y = gv_dtype_load(c->dtype, Y->data, i);
        if (!isfinite(ref) || !(fabs(ref) >= normal) || !isfinite(y)) continue;
        double g = Y->gauge[i];
        double wxb = fmax(4.0 * (g - fabs(ref)), 0.0) * (1.0 + 2.0 * k1 * 0x1p-53) + 0x1p-48 * g;
        double dz = form.unit * wxb + form.flat;
        if (stats) {
            const double *rw = stats, *sw = stats + m, *cx = stats + 2 * m, *sx = cx + n;
            int64_t row = i / n, col = i % n;
            dz += form.fixed * (rw[row] * sx[col] + sw[row] * cx[col]) +
                  form.split * (sw[row] + sx[col]);
        }
        if (!isfinite(dz)) continue;
        double rel = fabs(y - ref) / fabs(ref);
        bool range = y == 0.0 || fabs(y) < normal;
        if (!range && !(rel > form.eval)) { /* within the evaluation's own error */
            judged++;
            continue;
        }
        /* 2^-20: room for this bound's own roundings, far below any error it tells apart */
        double bound = (expm1(dz) + form.eval) * (1.0 + 0x1p-20);
        /* a truth whose allowed error reaches below the normal range may come back flushed
           or subnormal: no relative accuracy is promised for it */
        if (range && fabs(ref) * (1.0 - fmin(bound, 1.0)) < normal) continue;
        judged++;
        double q = rel / bound;
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
    free(stats);
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

/* wide (the mode probe of dense.sigmoid's scaled fp8 modes and its fp8 plants' default; the
   same layout in every mode whose operands hold it, all but f16 and f16acc, so that no mode
   meets a range its model was not written for):
   magnitudes that differ by row of W and by 128-block of K, as gemm's wide
   (gemm.c, scaled_wide_inputs), with a bias that brings the pre-activation to where the
   sigmoid tells errors apart. Positive values mu 2^e, mu in {1.125, 1.625} (e4m3 keeps both,
   e5m2 neither), the first element of every row-block of W and of every (K-block, column) of X
   1.75 2^e0 (so every group's amax, for any grouping, is 1.75 times a power of two and every
   scale a power of two), the others 1 to 3 binades below it. W's e0 = s + 16 (i mod 2) +
   16 beta, X's -16 beta, beta = (l / 128) mod 2: the products of both K-blocks are of one
   size, an odd row's 2^16 times an even row's; s = 7 - floor(log2 k) keeps an even row's
   |W||X| near 32 at any k, where z's plausible errors are small against 1 and a plant's are
   not (with |W||X| growing as k, a plant's error in y, at most 1, fell under the worst-case
   model's bound at k = 1536, ratio 14 of 16 on an H200, and the relative rule's worst-case
   sums excused it). A per-tensor scale flushes the even rows that a row scale
   keeps; a row scale the blocks 16 binades down that a block scale keeps; scales of 1
   saturate W and flush X's second block; e5m2 rounds every mu down by 1/9 or 1/13: each moves
   z of an even row by a large share of |W||X|, far beyond the sums' worst case. The terms
   are positive (no cancellation hides that), so z is about |W||X|: b_i is minus the median
   over j of z_ij (of W and X as a scaled label quantises them), which puts half of a row's outputs
   below 1/2, where y ~ e^z keeps z's error as its relative error (the relative rule). */
static int dense_wide_inputs(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    double *w = p->in[0].ref, *x = p->in[1].ref, *b = p->in[2].ref;
    int shift = 7; /* 2^(7 - floor(log2 k)): |W||X| of an even row near 32 at any k */
    for (int64_t q = k; q > 1; q >>= 1)
        shift--;
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            uint64_t h = gv_gen_bits(p->c.seed, 0, (uint64_t)(i * k + l));
            int e0 = shift + 16 * (int)(i % 2) + 16 * (int)((l / GK_FP8_BLOCK_K) % 2);
            bool first = l % GK_FP8_BLOCK_K == 0;
            w[i * k + l] = first ? ldexp(1.75, e0)
                                 : ldexp((h & 1) ? 1.625 : 1.125, e0 - 1 - (int)((h >> 1) % 3));
        }
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            uint64_t h = gv_gen_bits(p->c.seed, 1, (uint64_t)(l * n + j));
            int e0 = -16 * (int)((l / GK_FP8_BLOCK_K) % 2);
            bool first = l % GK_FP8_BLOCK_K == 0;
            x[l * n + j] = first ? ldexp(1.75, e0)
                                 : ldexp((h & 1) ? 1.625 : 1.125, e0 - 1 - (int)((h >> 1) % 3));
        }
    gv_store_rounded(p, 0);
    gv_store_rounded(p, 1);
    const double *wq, *xq;
    double *owned, *z = malloc(sizeof *z * (size_t)(m * n) + 1);
    int rc = z ? dense_operands(p, &wq, &xq, &owned) : GV_ENOMEM;
    if (rc == GV_OK) {
        rc = gv_oracle_rc(go_gemm(m, k, n, wq, k, xq, n, z, n));
        free(owned);
    }
    for (int64_t i = 0; rc == GV_OK && i < m; i++) {
        double *row = z + i * n;
        qsort(row, (size_t)n, sizeof *row, dense_cmp_double);
        b[i] = -row[n / 2];
    }
    free(z);
    if (rc == GV_OK) gv_store_rounded(p, 2);
    return rc;
}

#define DENSE_COMMON DENSE_BASE, .default_dist = GV_DIST_UNIFORM11

/* The 16-bit modes (f32 cases): W and X rounded to f16 or bf16, the product in f32
   (kernels/half_ops.cuh), the epilogue in f32, as torch.autocast runs a linear layer; the
   worst case keeps depth k + 7 at the mode's unit, the relative rule its form above. */
#define DENSE_HALF_MODES (GV_BIT(GV_MODE_F16) | GV_BIT(GV_MODE_BF16))

/* The fp8 modes (f32 cases): gemm.cublas's fp8 product (its quantisation, scales and
   cuBLASLt call; f32 Z), then the epilogue in f32. */
#define DENSE_SCALED_MODES                                                                         \
    (GV_BIT(GV_MODE_FP8E5M2) | GV_BIT(GV_MODE_FP8ROW) | GV_BIT(GV_MODE_FP8BLK))
#define DENSE_FP8_MODES (GV_BIT(GV_MODE_FP8) | DENSE_SCALED_MODES)

/* The probabilistic gauge reads the mode (dense_pgauge: the reach of z's allowed error is
   the mode's w), so each mode has its own cache entry. */
#define DENSE_BASE                                                                                 \
    .family = "dense", .dims = "m,k,n", .in_dims = "m,k;k,n;m", .out_dims = "m,n",                 \
    .dists = GV_FINITE_DISTS | GV_EDGE_DISTS | GV_BIT(GV_DIST_WIDE),                               \
    .check_shape = dense_check_shape, .range_degree = 2, .unit_roundoff = dense_unit_roundoff,     \
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
    .modes = GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_TF32) | GV_BIT(GV_MODE_FASTMATH) |
             GV_CUBLAS_MODES | DENSE_HALF_MODES | DENSE_FP8_MODES,
    .shapes = "512x784x256,4096x2048x256",
    .test_shapes = "33x70x17,1x300x7,100x257x129,512x784x256",
    /* the scaled fp8 modes' probe (gv_probe_applies): the only cases of theirs `check` runs
       unless they are named; sizes cuBLASLt's fp8 kernels take (k a multiple of 16) */
    .mode_probes = "wide:640x1536x640",
    .test_mode_probes = "wide:80x768x80",
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

/* A conversion launch copied from W's and left with W's count: X's half copy is converted over
   m k elements only (n > m shows it), the rest is whatever the workspace held. */
static const gv_op dense_sigmoid_halfcount = {
    .name = "dense.sigmoid.halfcount",
    .dtypes = GV_BIT(GV_F32),
    .summary = "planted bug: the 16-bit modes convert X over W's element count (m k, not k n)",
    .planted_bug = "X's half-type copy converted over W's element count: its tail is stale",
    .modes = DENSE_HALF_MODES,
    .shapes = "256x512x1024",
    .test_shapes = "33x70x129,64x256x512",
    .device = GV_KERNEL(gk_dense_sigmoid_halfcount),
    DENSE_COMMON,
};

/* Scaled fp8 done wrong under the scaled labels (abi/gemm.h's plants, through gemm.cu's
   fp8 product): on their default inputs, wide's layout (dense_wide_inputs), each moves the
   even rows' z by a share of |W||X| far outside the sums' worst case. Their modes are not in
   the default catalogue, so they are planted_in_probes: every mode they take is selected
   without --mode, and wide is those modes' probe. */
#define DENSE_FP8_PLANT                                                                            \
    .dtypes = GV_BIT(GV_F32), .shapes = "640x1536x640", .test_shapes = "80x768x80,160x384x96",     \
    .planted_in_probes = true, DENSE_BASE, .default_dist = GV_DIST_WIDE

static const gv_op dense_sigmoid_fp8noscale = {
    .name = "dense.sigmoid.fp8noscale",
    .summary = "planted bug: the scaled fp8 modes quantise W and X with every scale 1",
    .planted_bug = "scales ignored (s = 1): small values flush to zero and large ones saturate",
    .modes = DENSE_SCALED_MODES,
    .device = GV_KERNEL(gk_dense_sigmoid_fp8noscale),
    DENSE_FP8_PLANT,
};

static const gv_op dense_sigmoid_fp8rowtensor = {
    .name = "dense.sigmoid.fp8rowtensor",
    .summary = "planted bug: fp8row's row and column scales all taken from the tensor's amax",
    .planted_bug = "one per-tensor scale in every row's slot: rows far below the largest lose "
                   "their bits",
    .modes = GV_BIT(GV_MODE_FP8ROW),
    .device = GV_KERNEL(gk_dense_sigmoid_fp8rowtensor),
    DENSE_FP8_PLANT,
};

static const gv_op dense_sigmoid_fp8e5m2b = {
    .name = "dense.sigmoid.fp8e5m2b",
    .summary = "planted bug: X rounded to e5m2 under the e4m3 label of fp8row and fp8blk",
    .planted_bug = "e5m2's 3 significand bits where the label says e4m3's 4 (X rounded to e5m2, "
                   "stored in e4m3)",
    .modes = GV_BIT(GV_MODE_FP8ROW) | GV_BIT(GV_MODE_FP8BLK),
    .device = GV_KERNEL(gk_dense_sigmoid_fp8e5m2b),
    DENSE_FP8_PLANT,
};

static const gv_op dense_sigmoid_fp8blkrow = {
    .name = "dense.sigmoid.fp8blkrow",
    .summary = "planted bug: fp8blk scales each row of W and column of X once, after the whole K",
    .planted_bug = "one scale per row (outer vector) under the blockwise label: blocks far below "
                   "the row's largest lose their bits",
    .modes = GV_BIT(GV_MODE_FP8BLK),
    .device = GV_KERNEL(gk_dense_sigmoid_fp8blkrow),
    DENSE_FP8_PLANT,
};

const gv_op *const gv_family_dense[] = {&dense_sigmoid,
                                        &dense_sigmoid_rowbias,
                                        &dense_sigmoid_tf32native,
                                        &dense_sigmoid_naive,
                                        &dense_sigmoid_halfcount,
                                        &dense_sigmoid_fp8noscale,
                                        &dense_sigmoid_fp8rowtensor,
                                        &dense_sigmoid_fp8e5m2b,
                                        &dense_sigmoid_fp8blkrow,
                                        NULL};
