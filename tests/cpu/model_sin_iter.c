/* model_sin_iter.c: the sin_iter error model (src/ops/sin_iter.c), by judging simulated device
 * results (sin at CUDA's documented worst error must pass; float iterations on an f64 case, an
 * intrinsic far worse than documented, and fast-math results claimed as native must fail); the
 * expected tiers, the model's numbers and modes, shape checks and the test shapes. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

typedef void (*sim_fn)(const gv_problem *p, double *y);

static int64_t sim_k(const gv_problem *p)
{
    return p->c.shape.d[1];
}

/* move v up by `ulps` units in the last place of float */
static float up_f(float v, int ulps)
{
    for (int i = 0; i < ulps; i++)
        v = nextafterf(v, INFINITY);
    return v;
}

static double up_d(double v, int ulps)
{
    for (int i = 0; i < ulps; i++)
        v = nextafter(v, INFINITY);
    return v;
}

/* f32 sinf at CUDA's documented worst case: every step 2 ulp from the correctly rounded
   result (f64 sin rounded to float), always the same way */
static void sim_f32_worst(const gv_problem *p, double *y)
{
    for (int64_t i = 0; i < p->in[0].count; i++) {
        float v = (float)p->in[0].ref[i];
        for (int64_t j = 0; j < sim_k(p); j++)
            v = up_f((float)sin((double)v), 2);
        y[i] = v;
    }
}

static void sim_f32_plain(const gv_problem *p, double *y)
{
    for (int64_t i = 0; i < p->in[0].count; i++) {
        float v = (float)p->in[0].ref[i];
        for (int64_t j = 0; j < sim_k(p); j++)
            v = sinf(v);
        y[i] = v;
    }
}

static void sim_f64_worst(const gv_problem *p, double *y)
{
    for (int64_t i = 0; i < p->in[0].count; i++) {
        double v = p->in[0].ref[i];
        for (int64_t j = 0; j < sim_k(p); j++)
            v = up_d(sin(v), 2);
        y[i] = v;
    }
}

/* __sinf near its documented worst: scale * 2^-21.41 absolute a step, always the same way
   (scale 0.8 leaves room for sinf's and the addition's own roundings, ~6e-8 together) */
static void sim_fast_scaled(const gv_problem *p, double *y, double scale)
{
    float e = (float)(scale * pow(2.0, -21.41));
    for (int64_t i = 0; i < p->in[0].count; i++) {
        float v = (float)p->in[0].ref[i];
        for (int64_t j = 0; j < sim_k(p); j++)
            v = sinf(v) + e;
        y[i] = v;
    }
}

static void sim_fast_worst(const gv_problem *p, double *y)
{
    sim_fast_scaled(p, y, 0.8);
}
static void sim_fast_32x(const gv_problem *p, double *y)
{
    sim_fast_scaled(p, y, 32.0);
}

static gv_result judge_sim_dist(const char *opname, gv_dtype t, gv_mode mode, gv_dist dist,
                                int64_t n, int64_t k, sim_fn sim)
{
    gv_case c = gv_test_case(opname, t, mode, dist, (gv_shape){2, {n, k}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *y = gv_test_alloc(n);
    sim(&p, y);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %s %lldx%lld: %s ratio %.3g max_abs %.3g max_rel %.3g %s", opname,
                gv_dtype_name(t), gv_mode_name(mode), gv_dist_name(dist), (long long)n,
                (long long)k, gv_verdict_name(r.verdict), r.m.ratio, r.m.max_abs, r.m.max_rel,
                r.reason);
    return r;
}

/* uniform [0, 1), as the model tests were written for */
static gv_result judge_sim(const char *opname, gv_dtype t, gv_mode mode, int64_t n, int64_t k,
                           sim_fn sim)
{
    return judge_sim_dist(opname, t, mode, GV_DIST_UNIFORM01, n, k, sim);
}

static const int64_t model_shapes[][2] = {{1, 1}, {1000, 1}, {4097, 10}, {2003, 100}, {1009, 1000}};
#define N_MODEL_SHAPES (sizeof model_shapes / sizeof model_shapes[0])

/* With [0, 1) and with the signed default: PASS includes the expected tier. */
Test(sin_iter_model, documented_worst_errors_pass_inside_the_bound, .timeout = 120)
{
    for (int d = 0; d < 2; d++)
        for (size_t s = 0; s < N_MODEL_SHAPES; s++) {
            gv_dist dist = d ? GV_DIST_UNIFORM11 : GV_DIST_UNIFORM01;
            int64_t n = model_shapes[s][0], k = model_shapes[s][1];
            gv_result r[4] = {
                judge_sim_dist("sin_iter", GV_F32, GV_MODE_NATIVE, dist, n, k, sim_f32_worst),
                judge_sim_dist("sin_iter", GV_F32, GV_MODE_NATIVE, dist, n, k, sim_f32_plain),
                judge_sim_dist("sin_iter", GV_F64, GV_MODE_NATIVE, dist, n, k, sim_f64_worst),
                judge_sim_dist("sin_iter", GV_F32, GV_MODE_FASTMATH, dist, n, k, sim_fast_worst),
            };
            for (int i = 0; i < 4; i++) {
                cr_expect_eq(r[i].verdict, GV_PASS, "sim %d at %lldx%lld %s: %s", i, (long long)n,
                             (long long)k, gv_dist_name(dist), r[i].reason);
                /* native: 5 from 2.5 ulp a step (2 from the correctly rounded value); fastmath 1 */
                cr_expect_leq(r[i].m.ratio, i == 3 ? 1.0 : 5.5,
                              "sim %d at %lldx%lld %s: ratio %.3g", i, (long long)n, (long long)k,
                              gv_dist_name(dist), r[i].m.ratio);
            }
        }
}

Test(sin_iter_model, float_iterations_on_f64_fail, .timeout = 120)
{
    for (size_t s = 0; s < N_MODEL_SHAPES; s++) {
        int64_t n = model_shapes[s][0], k = model_shapes[s][1];
        if (n == 1) continue;         /* one element may happen to be exact in float */
        for (int d = 0; d < 2; d++) { /* [0, 1) and the signed default */
            gv_dist dist = d ? GV_DIST_UNIFORM11 : GV_DIST_UNIFORM01;
            gv_result r = judge_sim_dist("sin_iter.f32inner", GV_F64, GV_MODE_NATIVE, dist, n, k,
                                         sim_f32_plain);
            cr_expect_eq(r.verdict, GV_FAIL, "%lldx%lld %s: %s", (long long)n, (long long)k,
                         gv_dist_name(dist), r.reason);
            cr_expect_gt(r.m.ratio, 1e4, "%lldx%lld %s: ratio %.3g", (long long)n, (long long)k,
                         gv_dist_name(dist), r.m.ratio);
        }
    }
}

Test(sin_iter_model, an_intrinsic_32_times_worse_than_documented_fails, .timeout = 60)
{
    gv_result r = judge_sim("sin_iter", GV_F32, GV_MODE_FASTMATH, 4097, 10, sim_fast_32x);
    cr_expect_eq(r.verdict, GV_FAIL, "%s", r.reason);
    cr_expect_gt(r.m.ratio, 16.0);
}

Test(sin_iter_model, fastmath_results_claimed_as_native_fail, .timeout = 60)
{
    /* __sinf's absolute error where sinf's relative 2 ulp is promised */
    gv_result r = judge_sim("sin_iter", GV_F32, GV_MODE_NATIVE, 2003, 100, sim_fast_worst);
    cr_expect_eq(r.verdict, GV_FAIL, "%s", r.reason);
}

/* ---- expected tiers, shapes, registration ------------------------------------------------ */

static gv_result started(gv_dtype t, gv_mode m, int64_t n, int64_t k)
{
    gv_case c = {gv_op_find("sin_iter"), t, m, GV_DIST_UNIFORM01, {2, {n, k}}, 0};
    cr_assert_not_null(c.op);
    gv_result r;
    gv_result_init(&r, &c);
    return r;
}

Test(sin_iter_ops, expected_tiers_follow_the_documented_bounds)
{
    cr_expect_eq(started(GV_F64, GV_MODE_NATIVE, 1000, 1000000).expected_tier, 1e-8);
    cr_expect_eq(started(GV_F32, GV_MODE_NATIVE, 1000, 1000).expected_tier, 1e-4);
    cr_expect_eq(started(GV_F32, GV_MODE_NATIVE, 1000, 37000).expected_tier, 1e-4);
    gv_result big = started(GV_F32, GV_MODE_NATIVE, 1000, 38000);
    cr_expect_eq(big.expected_tier, 0.0);
    cr_expect(big.expected_tier_why[0] != '\0');
    cr_expect_eq(started(GV_F32, GV_MODE_FASTMATH, 1000, 100).expected_tier, 1e-4);
    cr_expect_eq(started(GV_F32, GV_MODE_FASTMATH, 1000, 278).expected_tier, 1e-4);
    gv_result fast = started(GV_F32, GV_MODE_FASTMATH, 1000, 1000);
    cr_expect_eq(fast.expected_tier, 0.0);
    cr_expect(fast.expected_tier_why[0] != '\0');
    cr_expect_not_null(strstr(fast.expected_tier_why, "2^-21.41"), "%s", fast.expected_tier_why);
}

Test(sin_iter_ops, model_numbers_and_modes)
{
    const gv_op *op = gv_op_find("sin_iter");
    cr_assert_not_null(op);
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_FASTMATH));
    cr_expect_not(gv_mode_ok(op, GV_F64, GV_MODE_FASTMATH), "no f64 fast-math intrinsic");
    cr_expect_not(gv_mode_ok(op, GV_F32, GV_MODE_TF32));
    gv_result r = started(GV_F32, GV_MODE_FASTMATH, 10, 100);
    cr_expect_eq(r.depth, 100.0);
    cr_expect_float_eq(r.u, pow(2.0, -21.41), 1e-20);
    r = started(GV_F64, GV_MODE_NATIVE, 10, 100);
    cr_expect_eq(r.u, 0x1p-53);
    cr_expect_eq(r.flops, 1000.0);
    cr_expect_eq(r.bytes, 160.0);
    const gv_op *bug = gv_op_find("sin_iter.f32inner");
    cr_assert_not_null(bug);
    cr_expect_not_null(bug->planted_bug);
    cr_expect_not(gv_mode_ok(bug, GV_F32, GV_MODE_NATIVE), "the planted bug is f64 only");
    /* signed inputs by default: sin is odd, the bounds hold for either sign */
    cr_expect_eq(op->default_dist, GV_DIST_UNIFORM11);
    cr_expect_eq(bug->default_dist, GV_DIST_UNIFORM11);
}

Test(sin_iter_ops, shape_checks_give_reasons)
{
    const gv_op *op = gv_op_find("sin_iter");
    cr_assert_not_null(op);
    char why[256] = "";
    gv_shape ok = {2, {1000000, 1000}};
    cr_expect(gv_shape_ok(op, &ok, why, sizeof why), "%s", why);
    gv_shape bad_k = {2, {10, 1000001}};
    cr_expect_not(gv_shape_ok(op, &bad_k, why, sizeof why));
    cr_expect_not_null(strstr(why, "k <="), "%s", why);
    gv_shape bad_n = {2, {(int64_t)1 << 31, 1}};
    cr_expect_not(gv_shape_ok(op, &bad_n, why, sizeof why));
    cr_expect_not_null(strstr(why, "2^31"), "%s", why);
    gv_shape too_much = {2, {100000000, 10000}};
    cr_expect_not(gv_shape_ok(op, &too_much, why, sizeof why));
    cr_expect_not_null(strstr(why, "n*k"), "%s", why);
}

/* more than one warp and not a multiple of 32: a partial last warp */
static bool partial_warp(const gv_shape *s)
{
    return s->d[0] > 32 && s->d[0] % 32 != 0;
}

Test(sin_iter_ops, test_shapes_have_a_partial_warp)
{
    cr_expect_gt(gv_test_catalogue_count("sin_iter", true, partial_warp), 0);
    cr_expect_gt(gv_test_catalogue_count("sin_iter.f32inner", true, partial_warp), 0);
}
