/* model_loss_pair.c: the losses that reduce two tensors to one value (loss.mse, loss.l1,
 * loss.smooth_l1, loss.kl) and reduce.mean (src/ops/loss.c, src/ops/reduce.c), by judging
 * device results simulated on the CPU in their kernels' order (kernels/loss.cu, reduce.cu:
 * the softmax family's block, each thread's strided terms in order, then a tree over the
 * block; log off by its documented ulp): correct f32/f64 arithmetic must pass on every dist
 * the ops take, the planted bugs and f32 arithmetic inside an f64 case must fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/softmax.h"
#include "core/registry.h"
#include "block_sum.h"
#include "testkit.h"

enum kind { K_MSE, K_L1, K_SL1, K_KL, K_MEAN };
enum bug { B_OK, B_ROWMEAN, B_NOABS, B_NOOFFSET, B_KLMEAN, B_NMINUS1, B_IN_F32 };

typedef struct {
    bool f32;
    enum kind k;
    enum bug b;
} sim;

static double rnd(const sim *s, double x)
{
    return s->f32 ? (double)(float)x : x;
}

/* log as the CUDA math library may return it: 1 ulp off (logf, log), in the direction dir */
static double sim_log(const sim *s, double v, double dir)
{
    double l = s->f32 ? (double)logf((float)v) : log(v);
    if (!isfinite(l) || l == 0) return l;
    return s->f32 ? (double)nextafterf((float)l, dir > 0 ? INFINITY : -INFINITY)
                  : nextafter(l, dir > 0 ? INFINITY : -INFINITY);
}

/* The block's sum of terms[0..n) in the kernel's order (block_sum.h). */
static double block_sum(const sim *s, const double *terms, int64_t n)
{
    return block_sum_ordered(terms, n, n, s->f32);
}

/* One term in the kernel's arithmetic (kernels/loss.cu, pair_term). */
static double sim_term(const sim *s, double x, double y, double dir)
{
    if (s->k == K_KL) {
        double xlogy = y == 0 ? 0.0 : rnd(s, y * sim_log(s, y, dir));
        return rnd(s, xlogy - rnd(s, y * x));
    }
    double d = rnd(s, x - y);
    if (s->k == K_MSE) return rnd(s, d * d);
    if (s->k == K_L1) return s->b == B_NOABS ? d : fabs(d);
    double z = fabs(d);
    if (z < 1.0) return rnd(s, rnd(s, 0.5 * z) * z);
    return s->b == B_NOOFFSET ? z : rnd(s, z - 0.5);
}

static gv_result judge_sim(const char *op, enum kind k, gv_dtype t, gv_dist dist, int64_t m,
                           int64_t n, enum bug b)
{
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, dist, (gv_shape){2, {m, n}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    sim s = {.f32 = t == GV_F32 || b == B_IN_F32, .k = k, .b = b};
    double *terms = gv_test_alloc(m * n), *y = gv_test_alloc(m);
    if (k == K_MEAN) {
        for (int64_t i = 0; i < m; i++) {
            double sum = block_sum(&s, p.in[0].ref + i * n, n);
            y[i] = rnd(&s, sum / rnd(&s, (double)(b == B_NMINUS1 ? n - 1 : n)));
        }
    } else {
        for (int64_t j = 0; j < m * n; j++)
            terms[j] = sim_term(&s, p.in[0].ref[j], p.in[1].ref[j], (j & 1) ? 1 : -1);
        double sum = block_sum(&s, terms, m * n);
        int64_t count = b == B_ROWMEAN ? n : b == B_KLMEAN ? m * n : k == K_KL ? m : m * n;
        y[0] = rnd(&s, sum / rnd(&s, (double)count));
    }
    gv_test_store(&p, 0, y);
    free(y);
    free(terms);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %lldx%lld bug %d: %s ratio %.3g %s", op, gv_dtype_name(t),
                gv_dist_name(dist), (long long)m, (long long)n, (int)b, gv_verdict_name(r.verdict),
                r.m.ratio, r.reason);
    return r;
}

static const struct {
    const char *op;
    enum kind k;
} OPS[] = {{"loss.mse", K_MSE},
           {"loss.l1", K_L1},
           {"loss.smooth_l1", K_SL1},
           {"loss.kl", K_KL},
           {"reduce.mean", K_MEAN}};

Test(loss_pair_model, registered_with_dims_depths_and_planted_bugs)
{
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++) {
        const gv_op *op = gv_op_find(OPS[i].op);
        cr_assert_not_null(op, "%s", OPS[i].op);
        cr_expect_str_eq(op->dims, "m,n");
        cr_expect_null(op->planted_bug);
        cr_expect_not_null(op->in_dims, "%s takes --inputs", OPS[i].op);
        cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE));
        cr_expect(gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    }
    /* 128 x 4096 terms, one block of 1024: d_s = 512 + 10 */
    gv_case c = gv_test_case("loss.mse", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){2, {128, 4096}}, 3);
    cr_expect_float_eq(c.op->depth(&c), 522.0 + 3 + 2, 0);
    cr_expect_float_eq(c.op->order_free_depth(&c), 524288.0 + 3 + 2, 0);
    c = gv_test_case("loss.kl", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                     (gv_shape){2, {128, 4096}}, 3);
    cr_expect_float_eq(c.op->depth(&c), 522.0 + 3 + 4, 0);
    c = gv_test_case("reduce.mean", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                     (gv_shape){2, {3, 1000}}, 3);
    cr_expect_float_eq(c.op->depth(&c), 4.0 + 8 + 2, 0); /* 256 threads: 4 terms + 8 levels */
    const char *bugs[] = {"loss.mse.rowmean", "loss.l1.noabs", "loss.smooth_l1.nooffset",
                          "loss.kl.mean", "reduce.mean.nminus1"};
    for (int i = 0; i < 5; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
    }
}

Test(loss_pair_model, correct_arithmetic_passes_on_every_dist, .timeout = 600)
{
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {16, 1000}, {7, 4097}};
    const gv_dist dists[] = {GV_DIST_UNIFORM11,      GV_DIST_UNIFORM01, GV_DIST_WIDE,
                             GV_DIST_OFFGRID,        GV_DIST_TINY,      GV_DIST_HUGE,
                             GV_DIST_SPARSE_SPECIAL, GV_DIST_SMALLINT,  GV_DIST_SPECIAL};
    for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; o++)
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
                for (int t = 0; t < 2; t++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    gv_result r = judge_sim(OPS[o].op, OPS[o].k, dt, dists[d], shapes[sh][0],
                                            shapes[sh][1], B_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %lldx%lld %s: %s", OPS[o].op,
                                 gv_dtype_name(dt), (long long)shapes[sh][0],
                                 (long long)shapes[sh][1], gv_dist_name(dists[d]), r.reason);
                }
}

Test(loss_pair_model, planted_bugs_and_wrong_precision_fail, .timeout = 120)
{
    static const struct {
        const char *op;
        enum kind k;
        enum bug b;
        gv_dist d;
    } plants[] = {{"loss.mse.rowmean", K_MSE, B_ROWMEAN, GV_DIST_UNIFORM11},
                  {"loss.l1.noabs", K_L1, B_NOABS, GV_DIST_UNIFORM11},
                  {"loss.smooth_l1.nooffset", K_SL1, B_NOOFFSET, GV_DIST_UNIFORM11},
                  {"loss.kl.mean", K_KL, B_KLMEAN, GV_DIST_UNIFORM01},
                  {"reduce.mean.nminus1", K_MEAN, B_NMINUS1, GV_DIST_UNIFORM01}};
    for (size_t i = 0; i < sizeof plants / sizeof plants[0]; i++)
        for (int t = 0; t < 2; t++) {
            gv_dtype dt = t ? GV_F64 : GV_F32;
            gv_result r =
                judge_sim(plants[i].op, plants[i].k, dt, plants[i].d, 16, 1000, plants[i].b);
            cr_expect_eq(r.verdict, GV_FAIL, "%s %s: %s", plants[i].op, gv_dtype_name(dt),
                         r.reason);
        }
    for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; o++) {
        gv_result w =
            judge_sim(OPS[o].op, OPS[o].k, GV_F64,
                      OPS[o].k == K_KL ? GV_DIST_UNIFORM01 : GV_DIST_UNIFORM11, 16, 1000, B_IN_F32);
        cr_expect_eq(w.verdict, GV_FAIL, "%s f32 in f64: %s", OPS[o].op, w.reason);
    }
}
