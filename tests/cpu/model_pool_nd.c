/* model_pool_nd.c: 1-D and 3-D pooling (pool.{max,avg}{1d,3d}, src/ops/pool.c): the oracles
 * (oracle/pool.c) against windows summed in __float128 and maxima found by hand, with sides
 * that are not multiples of k; and the descriptors' models, by judging device results
 * simulated on the CPU as kernels/pool.cu's pool_nd_kernel computes them: the max exact, the
 * average's sum in f32/f64 passing on every dist, the planted wide windows and f32 arithmetic
 * inside an f64 case failing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/registry.h"
#include "go.h"
#include "testkit.h"

enum variant { V_OK, V_WIDE, V_IN_F32 };

static double rnd(bool f32, double x)
{
    return f32 ? (double)(float)x : x;
}

/* pool_nd_kernel's arithmetic over nc volumes d x h x w (rank 1: d = h = 1), window kd x kh x k
   (rank 1: 1 x 1 x k), mode 0 max, 1 mean (in f32 or f64), 2 the mean in __float128 */
static void sim_pool(int rank, int mode, bool f32, enum variant v, const double *x, int64_t nc,
                     int64_t d, int64_t h, int64_t w, int64_t k, double *y)
{
    const int64_t kd = rank == 3 ? k : 1, kh = rank == 3 ? k : 1;
    const int64_t od = d / kd, oh = h / kh, ow = w / k;
    for (int64_t p = 0; p < nc; p++)
        for (int64_t i = 0; i < od; i++)
            for (int64_t j = 0; j < oh; j++)
                for (int64_t l = 0; l < ow; l++) {
                    const int64_t nd = v == V_WIDE && rank == 3 && i * kd + kd < d ? kd + 1 : kd;
                    const int64_t nh = v == V_WIDE && rank == 3 && j * kh + kh < h ? kh + 1 : kh;
                    const int64_t nw = v == V_WIDE && l * k + k < w ? k + 1 : k;
                    double acc = mode == 0 ? -INFINITY : 0.0;
                    __float128 q = 0;
                    bool first = true;
                    for (int64_t a = 0; a < nd; a++)
                        for (int64_t b = 0; b < nh; b++)
                            for (int64_t c = 0; c < nw; c++) {
                                double e = x[p * d * h * w + ((i * kd + a) * h + j * kh + b) * w +
                                             l * k + c];
                                if (mode == 0)
                                    acc = (e > acc || e != e) && acc == acc ? e : acc;
                                else
                                    acc = first ? e : rnd(f32, acc + e);
                                q += e;
                                first = false;
                            }
                    const double terms = (double)(kd * kh * k);
                    y[((p * od + i) * oh + j) * ow + l] = mode == 0   ? acc
                                                          : mode == 1 ? rnd(f32, acc / terms)
                                                                      : (double)(q / terms);
                }
}

Test(pool_nd_oracle, windows_against_float128_and_by_hand)
{
    const int64_t nc = 3, l = 11, k = 3;
    double *x = gv_test_matrix(nc, l, l, 41, 0), mx[9], av[9], g[9], ref[9], big[9];
    int64_t sz1[1] = {l};
    cr_assert_eq(go_pool_max1d(nc, sz1, k, x, mx), 0);
    cr_assert_eq(go_pool_avg1d(nc, sz1, k, x, av), 0);
    cr_assert_eq(go_pool_avg1d_gauge(nc, sz1, k, x, g), 0);
    sim_pool(1, 2, false, V_OK, x, nc, 1, 1, l, k, ref);
    sim_pool(1, 0, false, V_OK, x, nc, 1, 1, l, k, big);
    for (int o = 0; o < 9; o++) {
        cr_expect_eq(mx[o], big[o], "max1d %d", o);
        cr_expect(fabs(av[o] - ref[o]) <= 0x1p-52 * fabs(ref[o]), "avg1d %d", o);
        cr_expect(g[o] >= fabs(av[o]));
    }
    free(x);
    /* 3-D: 2 volumes of 5 x 7 x 7, window 2: 2 x 3 x 3 outputs each */
    const int64_t d = 5, s = 7;
    x = gv_test_matrix(2 * d * s, s, s, 43, 0);
    int64_t sz3[3] = {d, s, s};
    double mx3[36], av3[36], g3[36], ref3[36], big3[36];
    cr_assert_eq(go_pool_max3d(2, sz3, 2, x, mx3), 0);
    cr_assert_eq(go_pool_avg3d(2, sz3, 2, x, av3), 0);
    cr_assert_eq(go_pool_avg3d_gauge(2, sz3, 2, x, g3), 0);
    sim_pool(3, 2, false, V_OK, x, 2, d, s, s, 2, ref3);
    sim_pool(3, 0, false, V_OK, x, 2, d, s, s, 2, big3);
    for (int o = 0; o < 36; o++) {
        cr_expect_eq(mx3[o], big3[o], "max3d %d", o);
        cr_expect(fabs(av3[o] - ref3[o]) <= 0x1p-52 * fabs(ref3[o]), "avg3d %d", o);
        cr_expect(g3[o] >= fabs(av3[o]));
    }
    double nanx[4] = {1.0, NAN, 3.0, 2.0}, y[2];
    int64_t four[1] = {4};
    cr_assert_eq(go_pool_max1d(1, four, 2, nanx, y), 0);
    cr_expect(isnan(y[0]) && y[1] == 3.0, "a NaN stays in its window only");
    cr_expect_lt(go_pool_max1d(1, four, 5, nanx, y), 0, "a window past the side");
    cr_expect_lt(go_pool_avg3d(1, sz3, 0, x, y), 0, "k 0");
    free(x);
}

static gv_result judge_sim(const char *op, gv_dtype t, gv_dist dist, gv_shape s, enum variant v)
{
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, dist, s, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    const int rank = s.nd == 3 ? 1 : 3;
    const int64_t d = rank == 3 ? s.d[1] : 1, hw = rank == 3 ? s.d[2] : 1;
    const int64_t w = rank == 3 ? s.d[2] : s.d[1], k = rank == 3 ? s.d[3] : s.d[2];
    const bool max = c.op->exact != NULL, f32 = t == GV_F32 || v == V_IN_F32;
    double *y = gv_test_alloc(p.out[0].count);
    sim_pool(rank, max ? 0 : 1, f32, v, p.in[0].ref, s.d[0], d, hw, w, k, y);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s variant %d: %s ratio %.3g %s", op, gv_dtype_name(t), gv_dist_name(dist),
                (int)v, gv_verdict_name(r.verdict), r.m.ratio, r.reason);
    return r;
}

static const gv_shape S1[] = {{3, {1, 1, 1}}, {3, {3, 7, 2}}, {3, {16, 1001, 3}}};
static const gv_shape S3[] = {{4, {1, 1, 1, 1}}, {4, {3, 7, 5, 2}}, {4, {16, 9, 13, 3}}};

Test(pool_nd_model, correct_arithmetic_passes_on_every_dist, .timeout = 240)
{
    const char *ops[] = {"pool.max1d", "pool.avg1d", "pool.max3d", "pool.avg3d"};
    const gv_dist dists[] = {GV_DIST_UNIFORM11,      GV_DIST_UNIFORM01, GV_DIST_WIDE,
                             GV_DIST_OFFGRID,        GV_DIST_TINY,      GV_DIST_HUGE,
                             GV_DIST_SPARSE_SPECIAL, GV_DIST_SMALLINT,  GV_DIST_SPECIAL};
    for (int o = 0; o < 4; o++)
        for (int sh = 0; sh < 3; sh++)
            for (size_t di = 0; di < sizeof dists / sizeof dists[0]; di++)
                for (int t = 0; t < 2; t++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    gv_result r = judge_sim(ops[o], dt, dists[di], o < 2 ? S1[sh] : S3[sh], V_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %s shape %d: %s", ops[o],
                                 gv_dtype_name(dt), gv_dist_name(dists[di]), sh, r.reason);
                }
}

Test(pool_nd_model, wide_windows_and_wrong_precision_fail, .timeout = 120)
{
    const char *bugs[] = {"pool.max1d.window", "pool.avg1d.window", "pool.max3d.window",
                          "pool.avg3d.window"};
    for (int o = 0; o < 4; o++)
        for (int t = 0; t < 2; t++) {
            gv_dtype dt = t ? GV_F64 : GV_F32;
            const gv_op *op = gv_op_find(bugs[o]);
            cr_assert_not_null(op, "%s", bugs[o]);
            cr_expect_not_null(op->planted_bug);
            gv_result r = judge_sim(bugs[o], dt, op->default_dist, o < 2 ? S1[2] : S3[2], V_WIDE);
            cr_expect_eq(r.verdict, GV_FAIL, "%s %s: %s", bugs[o], gv_dtype_name(dt), r.reason);
        }
    gv_result a = judge_sim("pool.avg1d", GV_F64, GV_DIST_UNIFORM11, S1[2], V_IN_F32);
    cr_expect_eq(a.verdict, GV_FAIL, "avg1d f32 in f64: %s", a.reason);
    gv_result b = judge_sim("pool.avg3d", GV_F64, GV_DIST_UNIFORM11, S3[2], V_IN_F32);
    cr_expect_eq(b.verdict, GV_FAIL, "avg3d f32 in f64: %s", b.reason);
}
