/* model_dense.c: the dense ops' registration and error model (src/ops/dense.c), by judging
 * simulated device results: correct f32/f64/tf32/fastmath arithmetic must pass, the planted
 * bug and a wrong-precision path must fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

Test(dense_model, registered_with_dims_modes_and_depths)
{
    const gv_op *op = gv_op_find("dense.sigmoid");
    cr_assert_not_null(op);
    cr_expect_str_eq(op->dims, "m,k,n");
    cr_expect_str_eq(op->shapes, "512x784x256,4096x2048x256");
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE));
    cr_expect(gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_TF32));
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_FASTMATH));
    cr_expect_not(gv_mode_ok(op, GV_F64, GV_MODE_TF32));
    cr_expect_not(gv_mode_ok(op, GV_F64, GV_MODE_FASTMATH));
    gv_case c = {op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {3, {512, 784, 256}}, 1};
    cr_expect_float_eq(op->depth(&c), 791.0, 0);
    c.mode = GV_MODE_FASTMATH;
    cr_expect_float_eq(op->depth(&c), 795.0, 0);
    c.mode = GV_MODE_TF32;
    cr_expect_float_eq(op->depth(&c), 4.0 + 785.0 / 8192.0, 1e-15);
    cr_expect_eq(op->default_dist, GV_DIST_UNIFORM11);

    const gv_op *bug = gv_op_find("dense.sigmoid.rowbias");
    cr_assert_not_null(bug);
    cr_expect_not_null(bug->planted_bug);
    /* a column-indexed bias b[j mod m] is right when m == 1: every test shape needs m >= 2 */
    gv_shape s[16];
    char err[256];
    int ns = gv_size_spec_parse(bug->test_shapes, s, 16, err, sizeof err);
    cr_assert_gt(ns, 0, "%s", err);
    for (int i = 0; i < ns; i++)
        cr_expect_geq(s[i].d[0], 2);
}

/* What a device could return, computed on the CPU. `p` holds inputs (ref: the values in the
 * case's dtype) and the oracle; the simulator writes y (m x n doubles, rounded by the
 * caller to the dtype). */
typedef void (*sim_fn)(const gv_problem *p, double *y);

static int64_t dm(const gv_problem *p)
{
    return p->c.shape.d[0];
}
static int64_t dk(const gv_problem *p)
{
    return p->c.shape.d[1];
}
static int64_t dn(const gv_problem *p)
{
    return p->c.shape.d[2];
}

static float tf32_round(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    u += 0xFFFu + ((u >> 13) & 1u); /* round to nearest even at 10 stored mantissa bits */
    u &= ~0x1FFFu;
    memcpy(&v, &u, 4);
    return v;
}

/* f32 product with a sequential FMA chain (optionally on TF32-rounded operands), the bias
 * added in f32, then the f32 sigmoid with expf perturbed by `exp_ulps(z)` ulps and the
 * quotient by `div_ulps` ulps, both in the direction away from the oracle. bias_col: the
 * planted bug's b[j mod m]. */
static void sim_f32(const gv_problem *p, double *y, bool tf32, bool fast, bool bias_col)
{
    int64_t m = dm(p), k = dk(p), n = dn(p);
    const double *w = p->in[0].ref, *x = p->in[1].ref, *b = p->in[2].ref;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int64_t l = 0; l < k; l++) {
                float a = (float)w[i * k + l], c = (float)x[l * n + j];
                if (tf32) a = tf32_round(a), c = tf32_round(c);
                acc = fmaf(a, c, acc);
            }
            float z = acc + (float)b[bias_col ? j % m : i];
            float t = expf(-fabsf(z));
            double ref = p->out[0].ref[i * n + j];
            /* worst documented exp error: expf 2 ulp; __expf 2 + floor(|1.173 x|) ulp */
            /* (beyond |z| = 104 t is 0 or a few subnormal spacings: the count is capped
               there, or huge data's |z| ~ 1e38 would step t for ever) */
            int ulps = fast ? 2 + (int)floorf(1.173f * fminf(fabsf(z), 104.0f)) : 2;
            /* y falls as t grows when z >= 0, and rises when z < 0: push t the way that
               moves y away from the oracle */
            float y0 = (z >= 0.0f ? 1.0f : t) / (1.0f + t);
            bool grow_t = (z >= 0.0f) == (y0 < ref);
            for (int u = 0; u < ulps; u++)
                t = nextafterf(t, grow_t ? INFINITY : 0.0f);
            float q = (z >= 0.0f ? 1.0f : t) / (1.0f + t);
            int dulps = fast ? 2 : 0; /* __fdividef 2 ulp; IEEE division is rounded already */
            for (int u = 0; u < dulps; u++)
                q = nextafterf(q, q < ref ? 0.0f : INFINITY);
            y[i * n + j] = q;
        }
}

static void sim_f32_native(const gv_problem *p, double *y)
{
    sim_f32(p, y, false, false, false);
}
static void sim_f32_tf32(const gv_problem *p, double *y)
{
    sim_f32(p, y, true, false, false);
}
static void sim_f32_fast(const gv_problem *p, double *y)
{
    sim_f32(p, y, false, true, false);
}
static void sim_f32_colbias(const gv_problem *p, double *y)
{
    sim_f32(p, y, false, false, true);
}

/* f64 with a sequential FMA chain, then the stable sigmoid; bias_col as above. */
static void sim_f64(const gv_problem *p, double *y, bool bias_col)
{
    int64_t m = dm(p), k = dk(p), n = dn(p);
    const double *w = p->in[0].ref, *x = p->in[1].ref, *b = p->in[2].ref;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (int64_t l = 0; l < k; l++)
                acc = fma(w[i * k + l], x[l * n + j], acc);
            y[i * n + j] = go_sigmoid(acc + b[bias_col ? j % m : i]);
        }
}

static void sim_f64_native(const gv_problem *p, double *y)
{
    sim_f64(p, y, false);
}
static void sim_f64_colbias(const gv_problem *p, double *y)
{
    sim_f64(p, y, true);
}

/* bf16's round to nearest even of an f32 value (8 significant bits, f32's exponent range;
   below bf16's least subnormal 2^-133 the piece is lost as cuBLAS's would be). */
static float bf16_round(float v)
{
    if (!isfinite(v)) return v;
    if (fabsf(v) < 0x1p-133f) return 0.0f * v;
    uint32_t u, t;
    memcpy(&u, &v, 4);
    t = u & 0xFFFF0000u; /* toward zero: where rounding up would overflow, the top piece */
    u += 0x7FFFu + ((u >> 16) & 1u);
    u &= 0xFFFF0000u;
    if ((u & 0x7F800000u) == 0x7F800000u) u = t;
    memcpy(&v, &u, 4);
    return v;
}

/* cuBLAS's BF16x9 f32 emulation: each operand split into three bf16 pieces, the nine
   products of the pieces of each term (exact in f32) summed in f32 by one FMA chain, the
   bias added in f32, then native's f32 sigmoid with expf's 2 ulp pushed away. */
static void sim_f32_bf16x9(const gv_problem *p, double *y)
{
    int64_t m = dm(p), k = dk(p), n = dn(p);
    const double *w = p->in[0].ref, *x = p->in[1].ref, *b = p->in[2].ref;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int64_t l = 0; l < k; l++) {
                float a[3], c[3], ra = (float)w[i * k + l], rc = (float)x[l * n + j];
                if (!isfinite(ra) || !isfinite(rc)) { /* IEEE's own product for inf and NaN */
                    acc = fmaf(ra, rc, acc);
                    continue;
                }
                for (int q = 0; q < 3; q++) {
                    a[q] = bf16_round(ra), c[q] = bf16_round(rc);
                    ra -= a[q];
                    rc -= c[q];
                }
                for (int qa = 0; qa < 3; qa++)
                    for (int qc = 0; qc < 3; qc++)
                        acc = fmaf(a[qa], c[qc], acc);
            }
            float z = acc + (float)b[i];
            float t = expf(-fabsf(z));
            double ref = p->out[0].ref[i * n + j];
            float y0 = (z >= 0.0f ? 1.0f : t) / (1.0f + t);
            bool grow_t = (z >= 0.0f) == (y0 < ref);
            for (int u = 0; u < 2; u++)
                t = nextafterf(t, grow_t ? INFINITY : 0.0f);
            y[i * n + j] = (z >= 0.0f ? 1.0f : t) / (1.0f + t);
        }
}

/* v rounded to a multiple of 2^(e + 1 - bits), 2^e <= top < 2^(e+1): a fixed-point slice
   aligned to its row's (or column's) largest element. */
static double fixed_round(double v, double top, int bits)
{
    if (top == 0.0 || !isfinite(top) || !isfinite(v)) return v;
    double quantum = ldexp(1.0, ilogb(top) + 1 - bits);
    return nearbyint(v / quantum) * quantum;
}

/* cuBLAS's fixed-point f64 emulation with `bits` bits: W's rows and X's columns each kept
   to bits below their largest element, the product exact (an FMA chain of the kept
   values), the bias added in f64, the f64 sigmoid. */
static void sim_f64_fixed(const gv_problem *p, double *y, int bits)
{
    int64_t m = dm(p), k = dk(p), n = dn(p);
    const double *w = p->in[0].ref, *x = p->in[1].ref, *b = p->in[2].ref;
    double *rw = gv_test_alloc(m), *cx = gv_test_alloc(n);
    memset(rw, 0, sizeof *rw * (size_t)m);
    memset(cx, 0, sizeof *cx * (size_t)n);
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++)
            rw[i] = fmax(rw[i], fabs(w[i * k + l]));
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++)
            cx[j] = fmax(cx[j], fabs(x[l * n + j]));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (int64_t l = 0; l < k; l++)
                acc = fma(fixed_round(w[i * k + l], rw[i], bits),
                          fixed_round(x[l * n + j], cx[j], bits), acc);
            y[i * n + j] = go_sigmoid(acc + b[i]);
        }
    free(rw);
    free(cx);
}

static void sim_f64_fixed32(const gv_problem *p, double *y)
{
    sim_f64_fixed(p, y, 32);
}
static void sim_f64_fixed40(const gv_problem *p, double *y)
{
    sim_f64_fixed(p, y, 40);
}
static void sim_f64_fixed48(const gv_problem *p, double *y)
{
    sim_f64_fixed(p, y, 48);
}
static void sim_f64_fixed56(const gv_problem *p, double *y)
{
    sim_f64_fixed(p, y, 56);
}

/* An f32 layer whose sigmoid went through a narrower range (an exp in f16, say): outputs
   below 2^-24 come back as 0, far inside the gauge's absolute bound. */
static void sim_f32_narrow_range(const gv_problem *p, double *y)
{
    sim_f32(p, y, false, false, false);
    for (int64_t i = 0; i < dm(p) * dn(p); i++)
        if (y[i] < 0x1p-24) y[i] = 0.0;
}

/* An f64 case whose device silently did everything in f32. */
static void sim_f64_in_f32(const gv_problem *p, double *y)
{
    sim_f32(p, y, false, false, false);
}

/* Build the case's problem, run the oracle, judge the simulated output with the op's model
 * (gv_result_init and gv_judge_problem, as a device run does). */
static gv_result judge_sim(const char *opname, gv_dtype t, gv_mode mode, gv_dist dist, int64_t m,
                           int64_t k, int64_t n, sim_fn sim)
{
    gv_case c = gv_test_case(opname, t, mode, dist, (gv_shape){3, {m, k, n}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *y = gv_test_alloc(m * n);
    sim(&p, y);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %lldx%lldx%lld: %s ratio %.3g max_abs %.3g %s", opname, gv_dtype_name(t),
                gv_mode_name(mode), (long long)m, (long long)k, (long long)n,
                gv_verdict_name(r.verdict), r.m.ratio, r.m.max_abs, r.reason);
    return r;
}

Test(dense_model, correct_arithmetic_passes_well_inside_the_bound, .timeout = 120)
{
    /* worst documented function errors on top of real f32/f64/tf32 rounding: a true bound
       keeps the ratio below 1 (first order), far from the bound 16 */
    const int64_t shapes[][3] = {{33, 70, 17}, {1, 300, 7}, {512, 784, 256}, {64, 1, 64}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int64_t *d = shapes[s];
        gv_result r[4] = {judge_sim("dense.sigmoid", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                    d[0], d[1], d[2], sim_f32_native),
                          judge_sim("dense.sigmoid", GV_F32, GV_MODE_TF32, GV_DIST_UNIFORM11, d[0],
                                    d[1], d[2], sim_f32_tf32),
                          judge_sim("dense.sigmoid", GV_F32, GV_MODE_FASTMATH, GV_DIST_UNIFORM11,
                                    d[0], d[1], d[2], sim_f32_fast),
                          judge_sim("dense.sigmoid", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                    d[0], d[1], d[2], sim_f64_native)};
        for (int i = 0; i < 4; i++) {
            cr_expect_eq(r[i].verdict, GV_PASS, "case %d of %lldx%lldx%lld: %s", i, (long long)d[0],
                         (long long)d[1], (long long)d[2], r[i].reason);
            cr_expect_leq(r[i].m.ratio, 1.0, "case %d of %lldx%lldx%lld: ratio %.3g", i,
                          (long long)d[0], (long long)d[1], (long long)d[2], r[i].m.ratio);
        }
    }
}

Test(dense_model, exact_products_leave_only_the_sigmoid_and_it_fits, .timeout = 60)
{
    /* small integers: W X + b is exact in f32 (k = 1 and 3 keep |z| <= 8*8*3 + 8), so the
       whole error is the evaluation, with __expf's error growing with |z| */
    const int64_t ks[] = {1, 3};
    for (size_t s = 0; s < 2; s++) {
        gv_result fast = judge_sim("dense.sigmoid", GV_F32, GV_MODE_FASTMATH, GV_DIST_SMALLINT, 40,
                                   ks[s], 50, sim_f32_fast);
        gv_result nat = judge_sim("dense.sigmoid", GV_F32, GV_MODE_NATIVE, GV_DIST_SMALLINT, 40,
                                  ks[s], 50, sim_f32_native);
        cr_expect_eq(fast.verdict, GV_PASS, "fastmath k=%lld: %s", (long long)ks[s], fast.reason);
        cr_expect_leq(fast.m.ratio, 1.0, "fastmath k=%lld ratio %.3g", (long long)ks[s],
                      fast.m.ratio);
        cr_expect_eq(nat.verdict, GV_PASS, "native k=%lld: %s", (long long)ks[s], nat.reason);
        cr_expect_leq(nat.m.ratio, 1.0, "native k=%lld ratio %.3g", (long long)ks[s], nat.m.ratio);
    }
}

Test(dense_model, planted_bug_fails_at_its_test_shapes, .timeout = 60)
{
    const int64_t shapes[][3] = {{33, 70, 17}, {512, 784, 256}};
    for (size_t s = 0; s < 2; s++) {
        const int64_t *d = shapes[s];
        gv_result r32 = judge_sim("dense.sigmoid.rowbias", GV_F32, GV_MODE_NATIVE,
                                  GV_DIST_UNIFORM11, d[0], d[1], d[2], sim_f32_colbias);
        gv_result r64 = judge_sim("dense.sigmoid.rowbias", GV_F64, GV_MODE_NATIVE,
                                  GV_DIST_UNIFORM11, d[0], d[1], d[2], sim_f64_colbias);
        cr_expect_eq(r32.verdict, GV_FAIL, "f32 %lldx%lldx%lld: %s", (long long)d[0],
                     (long long)d[1], (long long)d[2], r32.reason);
        cr_expect_eq(r64.verdict, GV_FAIL, "f64 %lldx%lldx%lld: %s", (long long)d[0],
                     (long long)d[1], (long long)d[2], r64.reason);
        cr_expect_gt(r32.m.ratio, GV_DEFAULT_RATIO_BOUND, "f32 ratio %.3g", r32.m.ratio);
    }
}

Test(dense_model, wrong_precision_paths_fail, .timeout = 60)
{
    /* an f64 case computed in f32: the model's ratio explodes */
    gv_result r = judge_sim("dense.sigmoid", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, 512, 784,
                            256, sim_f64_in_f32);
    cr_expect_eq(r.verdict, GV_FAIL, "%s", r.reason);
    cr_expect_gt(r.m.ratio, 1e3, "ratio %.3g", r.m.ratio);
    gv_result small = judge_sim("dense.sigmoid", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, 33, 70,
                                17, sim_f64_in_f32);
    cr_expect_eq(small.verdict, GV_FAIL, "%s", small.reason);
    /* TF32 arithmetic passed off as native f32: it passes its own model (above) but misses
       native f32's expected 1e-4 tier */
    gv_result t = judge_sim("dense.sigmoid", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, 512, 784,
                            256, sim_f32_tf32);
    cr_expect_eq(t.verdict, GV_FAIL, "tf32 judged as native: %s", t.reason);
}

/* The R 1e35 of issue 38: gpuval's own dense.sigmoid in mode tf32 FAILed `--dist huge` on
   seeds 0 and 81 on an H100. TF32 arithmetic emulated on the CPU (operands rounded to TF32,
   an f32 FMA chain, the f32 sigmoid) at the catalogue's and the tests' huge shapes must PASS
   under tf32. (On huge data nearly every output is 0 or 1 exactly, so no wrong label is told
   apart there: model_dense's other tests fail the wrong-precision paths on ordinary data.) */
Test(dense_model, tf32_on_huge_passes_as_tf32, .timeout = 120)
{
    const struct {
        int64_t m, k, n;
    } shapes[] = {{64, 256, 64}, {256, 512, 128}, {512, 784, 256}};
    const uint64_t seeds[] = {0, 81};
    for (size_t s = 0; s < 3; s++)
        for (size_t q = 0; q < 2; q++) {
            gv_shape sh = {3, {shapes[s].m, shapes[s].k, shapes[s].n}};
            gv_case c =
                gv_test_case("dense.sigmoid", GV_F32, GV_MODE_TF32, GV_DIST_HUGE, sh, seeds[q]);
            gv_problem p;
            gv_test_problem(&p, &c);
            double *y = gv_test_alloc(p.out[0].count);
            sim_f32_tf32(&p, y);
            gv_test_store(&p, 0, y);
            gv_result r = gv_test_judge(&p);
            cr_expect_eq(r.verdict, GV_PASS, "tf32 %lldx%lldx%lld seed %llu: %s (max R %.3g)",
                         (long long)sh.d[0], (long long)sh.d[1], (long long)sh.d[2],
                         (unsigned long long)seeds[q], r.reason, r.m.prob_max);
            cr_log_info("dense tf32 huge %lldx%lldx%lld seed %llu: %s, max R %.3g, ratio %.3g",
                        (long long)sh.d[0], (long long)sh.d[1], (long long)sh.d[2],
                        (unsigned long long)seeds[q], gv_verdict_name(r.verdict), r.m.prob_max,
                        r.m.ratio);
            free(y);
            gv_problem_free(&p);
        }
}

/* The relative rule (src/ops/dense.c, dense_measure; issue 38): an f32 layer judged as f64
   PASSed on smallint 1x300x7, its outputs near 1e-90 returned as 0 far below the gauge's
   bound. The rule must pass gpuval's own kernels' arithmetic (emulated: the FMA chain, the
   stable sigmoid with expf or exp, tf32's operand rounding) on every dist the op takes, at
   the conformance suite's sizes and a catalogue one, and fail the f32 layer claimed as f64
   there, naming the loss of range. */
Test(dense_model, relative_rule_passes_the_kernels_on_every_dist, .timeout = 240)
{
    const int64_t shapes[][3] = {{1, 300, 7}, {33, 70, 17}, {64, 256, 64}};
    const struct {
        gv_dtype t;
        gv_mode mode;
        sim_fn sim;
    } ks[] = {{GV_F32, GV_MODE_NATIVE, sim_f32_native},
              {GV_F32, GV_MODE_TF32, sim_f32_tf32},
              {GV_F64, GV_MODE_NATIVE, sim_f64_native}};
    const gv_op *op = gv_op_find("dense.sigmoid");
    cr_assert_not_null(op);
    int judged = 0;
    for (int d = 0; d < GV_NDISTS; d++) {
        if (!(op->dists & (1u << d))) continue;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
                const int64_t *sh = shapes[s];
                gv_result r = judge_sim("dense.sigmoid", ks[q].t, ks[q].mode, (gv_dist)d, sh[0],
                                        sh[1], sh[2], ks[q].sim);
                cr_expect_eq(r.verdict, GV_PASS, "%s %s %s %lldx%lldx%lld: %s",
                             gv_dtype_name(ks[q].t), gv_mode_name(ks[q].mode),
                             gv_dist_name((gv_dist)d), (long long)sh[0], (long long)sh[1],
                             (long long)sh[2], r.reason);
                for (int i = 0; i < r.n_checks; i++)
                    if (strcmp(r.checks[i].name, "sigmoid relative error") == 0) judged++;
            }
    }
    cr_expect_gt(judged, 0, "the relative rule judged no case");
}

Test(dense_model, f32_layer_claimed_as_f64_loses_range, .timeout = 60)
{
    const int64_t shapes[][3] = {{1, 300, 7}, {33, 70, 17}};
    for (size_t s = 0; s < 2; s++) {
        const int64_t *sh = shapes[s];
        gv_result r = judge_sim("dense.sigmoid", GV_F64, GV_MODE_NATIVE, GV_DIST_SMALLINT, sh[0],
                                sh[1], sh[2], sim_f64_in_f32);
        cr_expect_eq(r.verdict, GV_FAIL, "%lldx%lldx%lld: %s", (long long)sh[0], (long long)sh[1],
                     (long long)sh[2], r.reason);
        cr_expect_eq(r.cause, GV_CAUSE_LOST_RANGE, "%lldx%lldx%lld: %s (%s)", (long long)sh[0],
                     (long long)sh[1], (long long)sh[2], gv_cause_name(r.cause), r.reason);
    }
    /* the same f64 arithmetic, right: PASS (the rule fails the f32 one, not the data) */
    gv_result ok = judge_sim("dense.sigmoid", GV_F64, GV_MODE_NATIVE, GV_DIST_SMALLINT, 1, 300, 7,
                             sim_f64_native);
    cr_expect_eq(ok.verdict, GV_PASS, "%s", ok.reason);
}

/* The relative rule in the other modes (issue 38; dense_z_form_of): default (IEEE arithmetic
   of the dtype, and in f32 BF16x9's form too), fastmath (__expf's |z|-proportional error),
   bf16x9 (nine products of bf16 pieces a term) and the fixed-width f64 emulations (each row
   of W and column of X kept to N bits below its largest element). Each mode's arithmetic,
   emulated, PASSes on every dist the op takes (at the conformance suite's 33x70x17) with the
   rule judging something; an f32 layer claimed as f64 under each f64 mode FAILs as lost
   range (below). */
static void passes_every_dist(gv_dtype t, gv_mode mode, sim_fn sim)
{
    const gv_op *op = gv_op_find("dense.sigmoid");
    cr_assert_not_null(op);
    cr_assert(gv_mode_ok(op, t, mode), "%s %s", gv_dtype_name(t), gv_mode_name(mode));
    double judged = 0;
    for (int d = 0; d < GV_NDISTS; d++) {
        if (!(op->dists & (1u << d))) continue;
        gv_result r = judge_sim("dense.sigmoid", t, mode, (gv_dist)d, 33, 70, 17, sim);
        cr_expect_eq(r.verdict, GV_PASS, "%s %s %s: %s", gv_dtype_name(t), gv_mode_name(mode),
                     gv_dist_name((gv_dist)d), r.reason);
        for (int i = 0; i < r.n_extra; i++)
            if (strcmp(r.extra[i].name, "sigmoid_rel_judged") == 0) judged += r.extra[i].value;
    }
    cr_expect_gt(judged, 0, "%s %s: the relative rule judged no element", gv_dtype_name(t),
                 gv_mode_name(mode));
}

Test(dense_model, relative_rule_default_f32_passes_ieee_and_bf16x9, .timeout = 240)
{
    passes_every_dist(GV_F32, GV_MODE_DEFAULT, sim_f32_native);
    passes_every_dist(GV_F32, GV_MODE_DEFAULT, sim_f32_bf16x9);
}
Test(dense_model, relative_rule_default_f64_passes, .timeout = 120)
{
    passes_every_dist(GV_F64, GV_MODE_DEFAULT, sim_f64_native);
}
Test(dense_model, relative_rule_fastmath_passes, .timeout = 120)
{
    passes_every_dist(GV_F32, GV_MODE_FASTMATH, sim_f32_fast);
}
Test(dense_model, relative_rule_bf16x9_passes, .timeout = 120)
{
    passes_every_dist(GV_F32, GV_MODE_BF16X9, sim_f32_bf16x9);
}
Test(dense_model, relative_rule_fp64emu_fixed_widths_pass, .timeout = 300)
{
    passes_every_dist(GV_F64, GV_MODE_FP64EMU_32, sim_f64_fixed32);
    passes_every_dist(GV_F64, GV_MODE_FP64EMU_40, sim_f64_fixed40);
    passes_every_dist(GV_F64, GV_MODE_FP64EMU_48, sim_f64_fixed48);
    passes_every_dist(GV_F64, GV_MODE_FP64EMU_56, sim_f64_fixed56);
}

Test(dense_model, f32_layer_claimed_as_f64_loses_range_in_every_f64_mode, .timeout = 120)
{
    const gv_mode modes[] = {GV_MODE_DEFAULT, GV_MODE_FP64EMU_32, GV_MODE_FP64EMU_40,
                             GV_MODE_FP64EMU_48, GV_MODE_FP64EMU_56};
    const int64_t shapes[][3] = {{1, 300, 7}, {33, 70, 17}};
    for (size_t q = 0; q < sizeof modes / sizeof modes[0]; q++)
        for (size_t s = 0; s < 2; s++) {
            const int64_t *sh = shapes[s];
            gv_result r = judge_sim("dense.sigmoid", GV_F64, modes[q], GV_DIST_SMALLINT, sh[0],
                                    sh[1], sh[2], sim_f64_in_f32);
            cr_expect_eq(r.verdict, GV_FAIL, "%s %lldx%lldx%lld: %s", gv_mode_name(modes[q]),
                         (long long)sh[0], (long long)sh[1], (long long)sh[2], r.reason);
            cr_expect_eq(r.cause, GV_CAUSE_LOST_RANGE, "%s %lldx%lldx%lld: %s (%s)",
                         gv_mode_name(modes[q]), (long long)sh[0], (long long)sh[1],
                         (long long)sh[2], gv_cause_name(r.cause), r.reason);
        }
}

/* The f32 modes: a sigmoid that loses the range below 2^-24 FAILs as lost range in each, on
   smallint data (z down to -100s), where gpuval's absolute bounds let it through. */
Test(dense_model, narrow_range_sigmoid_loses_range_in_every_f32_mode, .timeout = 120)
{
    const gv_mode modes[] = {GV_MODE_NATIVE, GV_MODE_DEFAULT, GV_MODE_FASTMATH, GV_MODE_BF16X9};
    for (size_t q = 0; q < sizeof modes / sizeof modes[0]; q++) {
        gv_result r = judge_sim("dense.sigmoid", GV_F32, modes[q], GV_DIST_SMALLINT, 33, 70, 17,
                                sim_f32_narrow_range);
        cr_expect_eq(r.verdict, GV_FAIL, "%s: %s", gv_mode_name(modes[q]), r.reason);
        cr_expect_eq(r.cause, GV_CAUSE_LOST_RANGE, "%s: %s (%s)", gv_mode_name(modes[q]),
                     gv_cause_name(r.cause), r.reason);
    }
}

/* fp64emu (automatic width) has no per-element width to state: the rule stays out of it
   and says nothing, where it would judge fp64emu48's same arithmetic. */
Test(dense_model, relative_rule_stays_out_of_the_automatic_emulation, .timeout = 60)
{
    gv_result a = judge_sim("dense.sigmoid", GV_F64, GV_MODE_FP64EMU, GV_DIST_SMALLINT, 33, 70, 17,
                            sim_f64_fixed48);
    gv_result f = judge_sim("dense.sigmoid", GV_F64, GV_MODE_FP64EMU_48, GV_DIST_SMALLINT, 33, 70,
                            17, sim_f64_fixed48);
    bool in_a = false, in_f = false;
    for (int i = 0; i < a.n_extra; i++)
        in_a |= strcmp(a.extra[i].name, "sigmoid_rel_judged") == 0;
    for (int i = 0; i < f.n_extra; i++)
        in_f |= strcmp(f.extra[i].name, "sigmoid_rel_judged") == 0;
    cr_expect_not(in_a, "the rule judged fp64emu (automatic)");
    cr_expect(in_f, "the rule did not judge fp64emu48");
}
