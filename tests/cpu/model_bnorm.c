/* model_bnorm.c: norm.batch's descriptors (src/ops/bnorm.c) and error model, by judging device
 * results simulated on the CPU as kernels/bnorm.cu computes them (each channel's N H W values
 * as norm.layer's row: strided per-thread sums in order, the xor butterfly across the lanes
 * and the warps, two passes, (x - mean) * (1 / sqrt(var + eps))): correct f32/f64 arithmetic
 * must pass on every distribution the op takes; the planted per-image statistics and f32
 * arithmetic inside an f64 case must fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/softmax.h"
#include "core/registry.h"
#include "block_sum.h"
#include "testkit.h"

enum variant { V_OK, V_PERIMAGE, V_IN_F32 };

static bool f32;

static double rnd(double x)
{
    return f32 ? (double)(float)x : x;
}

/* the block's sum of terms[0..n) in the kernel's order (block_sum.h) */
static double block_sum(const double *terms, int64_t n)
{
    return block_sum_ordered(terms, n, n, f32);
}

/* norm.layer's arithmetic on one gathered row */
static void layer_row(const double *x, int64_t n, double *y)
{
    double *t = gv_test_alloc(n);
    memset(t, 0, sizeof *t * (size_t)n); /* filled below; set so the compiler sees it */
    double mean = rnd(block_sum(x, n) / (double)n);
    for (int64_t j = 0; j < n; j++) {
        double c = rnd(x[j] - mean);
        t[j] = rnd(c * c);
    }
    double var = rnd(block_sum(t, n) / (double)n);
    double rstd = rnd(1.0 / rnd(sqrt(rnd(var + rnd(GK_NORM_LAYER_EPS)))));
    for (int64_t j = 0; j < n; j++)
        y[j] = rnd(rnd(x[j] - mean) * rstd);
    free(t);
}

static gv_result judge_sim(const char *op, gv_dtype dt, gv_dist dist, gv_shape s, enum variant v)
{
    gv_case c = gv_test_case(op, dt, GV_MODE_NATIVE, dist, s, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    const int64_t nb = s.d[0], nc = s.d[1], hw = s.d[2] * s.d[3], len = nb * hw;
    cr_assert_eq(p.out[0].count, nb * nc * hw);
    f32 = dt == GV_F32 || v == V_IN_F32;
    double *y = gv_test_alloc(nb * nc * hw), *row = gv_test_alloc(len), *yr = gv_test_alloc(len);
    memset(row, 0, sizeof *row * (size_t)len); /* filled below; set so the compiler sees it */
    for (int64_t ch = 0; ch < nc; ch++) {
        for (int64_t i = 0; i < nb; i++)
            memcpy(row + i * hw, p.in[0].ref + (i * nc + ch) * hw, sizeof *row * (size_t)hw);
        if (v == V_PERIMAGE)
            for (int64_t i = 0; i < nb; i++)
                layer_row(row + i * hw, hw, yr + i * hw);
        else
            layer_row(row, len, yr);
        for (int64_t i = 0; i < nb; i++)
            memcpy(y + (i * nc + ch) * hw, yr + i * hw, sizeof *yr * (size_t)hw);
    }
    gv_test_store(&p, 0, y);
    free(y);
    free(row);
    free(yr);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s variant %d: %s ratio %.3g %s", op, gv_dtype_name(dt), gv_dist_name(dist),
                (int)v, gv_verdict_name(r.verdict), r.m.ratio, r.reason);
    return r;
}

Test(bnorm_model, registered_with_norm_layers_depth_per_channel)
{
    const gv_op *op = gv_op_find("norm.batch");
    cr_assert_not_null(op);
    cr_expect_str_eq(op->family, "bnorm");
    cr_expect_str_eq(op->dims, "n,c,h,w");
    cr_expect_null(op->planted_bug);
    gv_case c = gv_test_case("norm.batch", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){4, {8, 32, 28, 28}}, 1);
    /* a channel of 8 x 784 = 6272 values is norm.layer's row of 6272 */
    const gv_op *layer = gv_op_find("norm.layer");
    cr_assert_not_null(layer);
    gv_case lc = gv_test_case("norm.layer", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                              (gv_shape){2, {32, 6272}}, 1);
    cr_expect_float_eq(op->depth(&c), layer->depth(&lc), 0);
    cr_expect_float_eq(op->order_free_depth(&c), layer->order_free_depth(&lc), 0);
    gv_layout l;
    cr_assert_eq(op->layout(&c, &l), GV_OK);
    cr_expect_eq(l.in[0].count, 8 * 32 * 28 * 28);
    cr_expect_eq(l.out[0].count, 8 * 32 * 28 * 28);
    cr_expect_gt(op->oracle_scratch_bytes(&c), 0.0);
    const gv_op *b = gv_op_find("norm.batch.perimage");
    cr_assert_not_null(b);
    cr_expect_not_null(b->planted_bug);
}

Test(bnorm_model, correct_arithmetic_passes, .timeout = 240)
{
    const gv_shape shapes[] = {{4, {1, 1, 1, 1}},
                               {4, {2, 3, 4, 5}},
                               {4, {4, 16, 8, 8}},
                               {4, {8, 4, 28, 28}},
                               {4, {2, 4, 65, 33}}};
    const gv_dist dists[] = {GV_DIST_UNIFORM11,      GV_DIST_UNIFORM01, GV_DIST_SMALLINT,
                             GV_DIST_OFFGRID,        GV_DIST_WIDE,      GV_DIST_TINY,
                             GV_DIST_SPARSE_SPECIAL, GV_DIST_SPECIAL};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int t = 0; t < 2; t++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result r = judge_sim("norm.batch", dt, dists[d], shapes[sh], V_OK);
                cr_expect_eq(r.verdict, GV_PASS, "%s %lldx%lldx%lldx%lld %s: %s", gv_dtype_name(dt),
                             (long long)shapes[sh].d[0], (long long)shapes[sh].d[1],
                             (long long)shapes[sh].d[2], (long long)shapes[sh].d[3],
                             gv_dist_name(dists[d]), r.reason);
            }
}

Test(bnorm_model, planted_bug_and_wrong_precision_fail, .timeout = 120)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r = judge_sim("norm.batch.perimage", dt, GV_DIST_UNIFORM11,
                                (gv_shape){4, {4, 16, 8, 8}}, V_PERIMAGE);
        cr_expect_eq(r.verdict, GV_FAIL, "perimage %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_gt(r.m.ratio, 1e3);
    }
    gv_result w =
        judge_sim("norm.batch", GV_F64, GV_DIST_UNIFORM11, (gv_shape){4, {4, 16, 8, 8}}, V_IN_F32);
    cr_expect_eq(w.verdict, GV_FAIL, "f32 in f64: %s", w.reason);
}
