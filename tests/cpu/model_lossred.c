/* model_lossred.c: the losses reduced over a batch (loss.xent.mean, loss.hinge, loss.triplet:
 * src/ops/lossred.c, oracle/lossred.c): the oracles against values worked by hand and against
 * loss.xent's rows; and the descriptors' models, by judging device results simulated on the
 * CPU as kernels/lossred.cu computes them (the softmax family's block: a strided sum a thread,
 * then a tree over the threads), in f32 or f64: correct arithmetic passes on every dist, the
 * planted bugs (reduction 'sum', targets indexed by the row, squared distances) and f32
 * arithmetic inside an f64 case fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "../../abi/lossred.h"
#include "../../abi/softmax.h"
#include "core/registry.h"
#include "go.h"
#include "testkit.h"

enum variant { V_OK, V_SUM, V_ROWTARGET, V_NOSQRT, V_IN_F32 };

static double rnd(bool f32, double x)
{
    return f32 ? (double)(float)x : x;
}

/* block_reduce's sum of v[0 .. len) as the kernels add it: thread t's strided sum, then a
   binary tree over the gk_softmax_threads(len) partials */
static double block_sum(bool f32, const double *v, int64_t len)
{
    const int64_t threads = gk_softmax_threads(len);
    double part[1024] = {0};
    for (int64_t t = 0; t < threads; t++) {
        part[t] = 0.0;
        for (int64_t j = t; j < len; j += threads)
            part[t] = rnd(f32, part[t] + v[j]);
    }
    for (int64_t w = threads / 2; w >= 1; w /= 2)
        for (int64_t t = 0; t < w; t++)
            part[t] = rnd(f32, part[t] + part[t + w]);
    return part[0];
}

static double sim_xent_mean(bool f32, enum variant v, const double *x, const double *t,
                            int64_t m, int64_t n)
{
    double *rows = gv_test_alloc(m), *e = gv_test_alloc(n);
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * n;
        double mx = -INFINITY;
        for (int64_t j = 0; j < n; j++)
            mx = fmax(mx, xr[j]);
        for (int64_t j = 0; j < n; j++)
            e[j] = rnd(f32, f32 ? (double)expf((float)(xr[j] - mx)) : exp(xr[j] - mx));
        const double s = block_sum(f32, e, n);
        const double lg = f32 ? (double)logf((float)s) : log(s);
        rows[i] = rnd(f32, rnd(f32, mx - xr[(int64_t)t[i]]) + lg);
    }
    double s = block_sum(f32, rows, m);
    free(rows);
    free(e);
    return v == V_SUM ? s : rnd(f32, s / (double)m);
}

static double sim_hinge(bool f32, enum variant v, const double *p, const double *t, int64_t m,
                        int64_t n)
{
    double *h = gv_test_alloc(m * n);
    for (int64_t j = 0; j < m * n; j++) {
        const double tj = v == V_ROWTARGET ? t[(j / n) % n] : t[j % n];
        const double d = rnd(f32, 1.0 - p[j] * tj);
        h[j] = d > 0 || isnan(d) ? d : 0.0;
    }
    double s = block_sum(f32, h, m * n);
    free(h);
    return rnd(f32, s / rnd(f32, (double)(m * n)));
}

static double sim_triplet(bool f32, enum variant v, const double *a, const double *p,
                          const double *q, int64_t m, int64_t n)
{
    double *rows = calloc((size_t)m, sizeof *rows), *zp = gv_test_alloc(n), *zq = gv_test_alloc(n);
    cr_assert_not_null(rows);
    const double eps = rnd(f32, GK_TRIPLET_EPS);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t j = 0; j < n; j++) {
            const double dp = rnd(f32, rnd(f32, a[i * n + j] - p[i * n + j]) + eps);
            const double dq = rnd(f32, rnd(f32, a[i * n + j] - q[i * n + j]) + eps);
            zp[j] = rnd(f32, dp * dp);
            zq[j] = rnd(f32, dq * dq);
        }
        double sp = block_sum(f32, zp, n), sq = block_sum(f32, zq, n);
        if (v != V_NOSQRT) {
            sp = rnd(f32, sqrt(sp));
            sq = rnd(f32, sqrt(sq));
        }
        const double l = rnd(f32, rnd(f32, sp - sq) + GK_TRIPLET_MARGIN);
        rows[i] = l > 0 || isnan(l) ? l : 0.0;
    }
    double s = block_sum(f32, rows, m);
    free(rows);
    free(zp);
    free(zq);
    return rnd(f32, s / (double)m);
}

Test(lossred_oracle, by_hand_and_against_loss_xent)
{
    /* hinge: p = [0.5, 2; -1, 0.25], t = [1, -1]: terms 0.5, 3, 2, 1.25: mean 1.6875 */
    const double p[4] = {0.5, 2, -1, 0.25}, t[2] = {1, -1};
    double out;
    cr_assert_eq(go_loss_hinge(2, 2, p, t, &out), 0);
    cr_expect_eq(out, 1.6875, "hinge %.17g", out);
    const double p2[2] = {3, -3}, t2[2] = {1, -1};
    cr_assert_eq(go_loss_hinge(1, 2, p2, t2, &out), 0);
    cr_expect_eq(out, 0.0, "both clamped: %.17g", out);
    /* triplet, eps 0: a = (0, 0), p = (3, 4), n = (0, 1): |5 - 1 + 1| = 5; a second row with
       p = n: margin 1; mean 3 */
    const double a[4] = {0, 0, 0, 0}, pp[4] = {3, 4, 1, 1}, nn[4] = {0, 1, 1, 1};
    cr_assert_eq(go_loss_triplet(2, 2, a, pp, nn, 0.0, 1.0, &out), 0);
    cr_expect_eq(out, 3.0, "triplet %.17g", out);
    /* swapped: 1 - 5 + 1 < 0 clamps to 0; the second row's 1: mean 0.5 */
    cr_assert_eq(go_loss_triplet(2, 2, a, nn, pp, 0.0, 1.0, &out), 0);
    cr_expect_eq(out, 0.5, "clamped %.17g", out);
    /* xent.mean: the mean of loss.xent's rows */
    const int64_t m = 5, n = 37;
    double *x = gv_test_matrix(m, n, n, 95, 0), tt[5] = {0, 36, 3, 17, 17}, l[5];
    cr_assert_eq(go_loss_xent(m, n, x, n, tt, l), 0);
    cr_assert_eq(go_loss_xent_mean(m, n, x, tt, &out), 0);
    const double want = (l[0] + l[1] + l[2] + l[3] + l[4]) / 5;
    cr_expect(fabs(out - want) <= 0x1p-50 * want, "%.17g against %.17g", out, want);
    free(x);
}

static gv_result judge_sim(const char *op, gv_dtype dt, gv_dist dist, gv_shape s, enum variant v)
{
    gv_case c = gv_test_case(op, dt, GV_MODE_NATIVE, dist, s, 7);
    gv_problem p = {0};
    gv_test_problem(&p, &c);
    const bool f32 = dt == GV_F32 || v == V_IN_F32;
    const int64_t m = s.d[0], n = s.d[1];
    double y;
    if (!strncmp(op, "loss.xent.mean", 14))
        y = sim_xent_mean(f32, v, p.in[0].ref, p.in[1].ref, m, n);
    else if (!strncmp(op, "loss.hinge", 10))
        y = sim_hinge(f32, v, p.in[0].ref, p.in[1].ref, m, n);
    else
        y = sim_triplet(f32, v, p.in[0].ref, p.in[1].ref, p.in[2].ref, m, n);
    gv_test_store(&p, 0, &y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s variant %d: %s ratio %.3g %s", op, gv_dtype_name(dt),
                gv_dist_name(dist), (int)v, gv_verdict_name(r.verdict), r.m.ratio, r.reason);
    return r;
}

static const gv_shape SHAPES[] = {{2, {1, 1}}, {2, {3, 7}}, {2, {16, 1000}}, {2, {7, 4097}}};

Test(lossred_model, correct_arithmetic_passes_on_every_dist, .timeout = 240)
{
    const char *ops[] = {"loss.xent.mean", "loss.hinge", "loss.triplet"};
    const gv_dist dists[] = {GV_DIST_UNIFORM11,      GV_DIST_UNIFORM01, GV_DIST_WIDE,
                             GV_DIST_OFFGRID,        GV_DIST_TINY,      GV_DIST_HUGE,
                             GV_DIST_SPARSE_SPECIAL, GV_DIST_SMALLINT,  GV_DIST_SPECIAL};
    for (int o = 0; o < 3; o++)
        for (int sh = 0; sh < 4; sh++)
            for (size_t di = 0; di < sizeof dists / sizeof dists[0]; di++)
                for (int t = 0; t < 2; t++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    gv_result r = judge_sim(ops[o], dt, dists[di], SHAPES[sh], V_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %s shape %d: %s", ops[o],
                                 gv_dtype_name(dt), gv_dist_name(dists[di]), sh, r.reason);
                }
}

Test(lossred_model, planted_bugs_and_wrong_precision_fail, .timeout = 120)
{
    const struct {
        const char *bug, *op;
        enum variant v;
    } bugs[] = {{"loss.xent.mean.sum", "loss.xent.mean", V_SUM},
                {"loss.hinge.rowtarget", "loss.hinge", V_ROWTARGET},
                {"loss.triplet.nosqrt", "loss.triplet", V_NOSQRT}};
    const gv_shape sizes[] = {{2, {16, 1000}}, {2, {64, 512}}};
    for (int b = 0; b < 3; b++) {
        const gv_op *op = gv_op_find(bugs[b].bug);
        cr_assert_not_null(op, "%s", bugs[b].bug);
        cr_expect_not_null(op->planted_bug);
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 2; s++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result r = judge_sim(bugs[b].bug, dt, op->default_dist, sizes[s], bugs[b].v);
                cr_expect_eq(r.verdict, GV_FAIL, "%s %s: %s", bugs[b].bug, gv_dtype_name(dt),
                             r.reason);
            }
        gv_result r = judge_sim(bugs[b].op, GV_F64, GV_DIST_UNIFORM11, sizes[0], V_IN_F32);
        cr_expect_eq(r.verdict, GV_FAIL, "%s f32 in f64: %s", bugs[b].op, r.reason);
    }
}
