/* model_pool.c: the pooling family's descriptors (src/ops/pool.c) and error models, by judging
 * device results simulated on the CPU as kernels/pool.cu computes them: the max must be exact
 * (one ulp off FAILs), the average's k*k-term sum in f32/f64 must pass, the planted wide
 * windows and f32 arithmetic inside an f64 case must fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/registry.h"
#include "testkit.h"

enum variant { V_OK, V_WIDE, V_IN_F32, V_ONE_ULP };

static double rnd(bool f32, double x)
{
    return f32 ? (double)(float)x : x;
}

/* kernels/pool.cu's arithmetic for output (plane, i, j) */
static double sim_out(bool f32, bool max, enum variant v, const double *x, int64_t h, int64_t w,
                      int64_t k, int64_t plane, int64_t i, int64_t j)
{
    const double *xp = x + plane * h * w;
    int64_t rows = v == V_WIDE && i * k + k < h ? k + 1 : k;
    int64_t cols = v == V_WIDE && j * k + k < w ? k + 1 : k;
    double acc = max ? -INFINITY : 0.0;
    for (int64_t a = 0; a < rows; a++)
        for (int64_t b = 0; b < cols; b++) {
            double e = xp[(i * k + a) * w + j * k + b];
            if (max)
                acc = (e > acc || e != e) && acc == acc ? e : acc;
            else
                acc = a == 0 && b == 0 ? e : rnd(f32, acc + e);
        }
    return max ? acc : rnd(f32, acc / (double)(k * k));
}

static gv_result judge_sim(const char *op, gv_dtype t, gv_dist dist, gv_shape s, enum variant v)
{
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, dist, s, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    int64_t nc = s.d[0], h = s.d[1], w = s.d[2], k = s.d[3], oh = h / k, ow = w / k;
    bool max = c.op->exact != NULL, f32 = t == GV_F32 || v == V_IN_F32;
    double *y = gv_test_alloc(p.out[0].count);
    cr_assert_eq(p.out[0].count, nc * oh * ow);
    for (int64_t q = 0; q < nc; q++)
        for (int64_t i = 0; i < oh; i++)
            for (int64_t j = 0; j < ow; j++)
                y[(q * oh + i) * ow + j] = sim_out(f32, max, v, p.in[0].ref, h, w, k, q, i, j);
    if (v == V_ONE_ULP) /* one output one ulp up */
        y[p.out[0].count / 2] = t == GV_F32
                                    ? (double)nextafterf((float)y[p.out[0].count / 2], INFINITY)
                                    : nextafter(y[p.out[0].count / 2], INFINITY);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %lldx%lldx%lldx%lld variant %d: %s ratio %.3g %s", op, gv_dtype_name(t),
                gv_dist_name(dist), (long long)nc, (long long)h, (long long)w, (long long)k, (int)v,
                gv_verdict_name(r.verdict), r.m.ratio, r.reason);
    return r;
}

static const gv_shape shapes[] = {{4, {1, 1, 1, 1}},     {4, {3, 7, 5, 2}},
                                  {4, {16, 33, 31, 3}},  {4, {64, 56, 56, 2}},
                                  {4, {2, 250, 250, 7}}, {4, {1, 256, 256, 64}}};

Test(pool_model, registered_with_dims_depths_shapes_and_planted_bugs)
{
    const char *ops[] = {"pool.max2d", "pool.avg2d"};
    for (int i = 0; i < 2; i++) {
        const gv_op *op = gv_op_find(ops[i]);
        cr_assert_not_null(op, "%s", ops[i]);
        cr_expect_str_eq(op->family, "pool");
        cr_expect_str_eq(op->dims, "nc,h,w,k");
        cr_expect_null(op->planted_bug);
        cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE) && gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    }
    gv_case c = gv_test_case("pool.avg2d", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){4, {16, 33, 31, 3}}, 1);
    cr_expect_float_eq(c.op->depth(&c), 9.0, 0);
    cr_expect_float_eq(c.op->order_free_depth(&c), 10.0, 0);
    gv_case mx = gv_test_case("pool.max2d", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                              (gv_shape){4, {16, 33, 31, 3}}, 1);
    cr_expect(mx.op->exact && mx.op->exact(&mx), "the max is exact");
    /* the output's shape: (nc, h / k, w / k), rounded down */
    gv_layout l;
    cr_assert_eq(c.op->layout(&c, &l), GV_OK);
    cr_expect_eq(l.out[0].count, 16 * 11 * 10);
    int64_t shape[4];
    cr_assert_eq(c.op->tensor_shape(&c, &l, true, 0, shape), 3);
    cr_expect(shape[0] == 16 && shape[1] == 11 && shape[2] == 10);
    char why[256];
    cr_expect_eq(c.op->check_shape(&(gv_shape){4, {1, 2, 8, 3}}, why, sizeof why), GV_EINVAL);
    const char *bugs[] = {"pool.max2d.window", "pool.avg2d.window"};
    for (int i = 0; i < 2; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
    }
}

Test(pool_model, correct_arithmetic_passes, .timeout = 240)
{
    const gv_dist dists[] = {GV_DIST_UNIFORM11,     GV_DIST_UNIFORM01, GV_DIST_WIDE,
                             GV_DIST_SPECIAL,       GV_DIST_TINY,      GV_DIST_HUGE,
                             GV_DIST_SPARSE_SPECIAL};
    const char *ops[] = {"pool.max2d", "pool.avg2d"};
    for (int o = 0; o < 2; o++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
                for (int t = 0; t < 2; t++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    gv_result r = judge_sim(ops[o], dt, dists[d], shapes[s], V_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %s shape %zu: %s", ops[o],
                                 gv_dtype_name(dt), gv_dist_name(dists[d]), s, r.reason);
                    cr_expect_leq(r.m.ratio, 1.0, "%s ratio %.3g", ops[o], r.m.ratio);
                }
}

Test(pool_model, planted_windows_and_wrong_arithmetic_fail, .timeout = 120)
{
    const gv_shape bug_shapes[] = {{4, {3, 7, 5, 2}}, {4, {16, 33, 31, 3}}};
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        for (int s = 0; s < 2; s++) {
            gv_result a =
                judge_sim("pool.max2d.window", dt, GV_DIST_UNIFORM11, bug_shapes[s], V_WIDE);
            cr_expect_eq(a.verdict, GV_FAIL, "max window %s: %s", gv_dtype_name(dt), a.reason);
            gv_result b =
                judge_sim("pool.avg2d.window", dt, GV_DIST_UNIFORM01, bug_shapes[s], V_WIDE);
            cr_expect_eq(b.verdict, GV_FAIL, "avg window %s: %s", gv_dtype_name(dt), b.reason);
            cr_expect_gt(b.m.ratio, 1e3);
        }
        /* the max allows no rounding at all: one output one ulp off fails */
        gv_result u = judge_sim("pool.max2d", dt, GV_DIST_UNIFORM11, shapes[2], V_ONE_ULP);
        cr_expect_eq(u.verdict, GV_FAIL, "max one ulp off %s: %s", gv_dtype_name(dt), u.reason);
    }
    gv_result w = judge_sim("pool.avg2d", GV_F64, GV_DIST_UNIFORM11, shapes[4], V_IN_F32);
    cr_expect_eq(w.verdict, GV_FAIL, "avg f32 in f64: %s", w.reason);
    cr_expect_gt(w.m.ratio, 1e3);
}
