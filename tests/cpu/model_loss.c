/* model_loss.c: loss.xent's descriptors (src/ops/loss.c) and error model, by judging device
 * results simulated on the CPU in the kernel's order (kernels/loss.cu: the softmax family's
 * row, each thread's strided terms in order, then a tree over the block): correct f32/f64
 * arithmetic with exp and log off by their documented bounds must pass; the planted bugs (no
 * max subtraction, log of the softmax) and f32 arithmetic inside an f64 case must fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/softmax.h"
#include "core/registry.h"
#include "block_sum.h"
#include "testkit.h"

enum variant { V_OK, V_NOMAX, V_NAIVELOG, V_IN_F32 };

typedef struct {
    bool f32;
    enum variant v;
} sim;

static double rnd(const sim *s, double x)
{
    return s->f32 ? (double)(float)x : x;
}

static double push_ulps(const sim *s, double y, int ulps, double dir)
{
    for (int k = 0; k < ulps; k++)
        y = s->f32 ? (double)nextafterf((float)y, dir > 0 ? INFINITY : 0.0f)
                   : nextafter(y, dir > 0 ? INFINITY : 0.0);
    return y;
}

/* exp and log as the CUDA math library may return them: off by their documented bound (expf
   2 ulp, exp 1, logf and log 1), in the direction dir */
static double sim_exp(const sim *s, double t, double dir)
{
    double e = s->f32 ? (double)expf((float)t) : exp(t);
    return isfinite(e) && e != 0 ? push_ulps(s, e, s->f32 ? 2 : 1, dir) : e;
}
static double sim_log(const sim *s, double v, double dir)
{
    double l = s->f32 ? (double)logf((float)v) : log(v);
    return isfinite(l) && l != 0 ? push_ulps(s, l, 1, dir) : l;
}

/* The block's sum of terms[0..n) in the kernel's order (block_sum.h). */
static double block_sum(const sim *s, const double *terms, int64_t n)
{
    return block_sum_ordered(terms, n, n, s->f32);
}

static double sim_row(const sim *s, const double *x, int64_t n, double target, double *terms,
                      double dir)
{
    double mx = -INFINITY;
    for (int64_t j = 0; j < n; j++)
        mx = fmax(mx, x[j]);
    if (s->v == V_NOMAX) mx = 0;
    for (int64_t j = 0; j < n; j++)
        terms[j] = sim_exp(s, rnd(s, x[j] - mx), (j & 1) ? dir : -dir);
    double sum = block_sum(s, terms, n);
    double xt = x[(int64_t)target];
    if (s->v == V_NAIVELOG)
        return rnd(s, -sim_log(s, rnd(s, sim_exp(s, rnd(s, xt - mx), dir) / sum), dir));
    return rnd(s, rnd(s, mx - xt) + sim_log(s, sum, dir));
}

static gv_result judge_sim(const char *op, gv_dtype t, gv_dist dist, int64_t m, int64_t n,
                           enum variant v)
{
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, dist, (gv_shape){2, {m, n}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *y = gv_test_alloc(m), *terms = gv_test_alloc(n);
    sim s = {.f32 = t == GV_F32 || v == V_IN_F32, .v = v};
    for (int64_t i = 0; i < m; i++)
        y[i] = sim_row(&s, p.in[0].ref + i * n, n, p.in[1].ref[i], terms, (i & 1) ? 1 : -1);
    gv_test_store(&p, 0, y);
    free(y);
    free(terms);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %lldx%lld variant %d: %s ratio %.3g %s", op, gv_dtype_name(t),
                gv_dist_name(dist), (long long)m, (long long)n, (int)v, gv_verdict_name(r.verdict),
                r.m.ratio, r.reason);
    return r;
}

Test(loss_model, registered_with_dims_depths_targets_and_planted_bugs)
{
    const gv_op *op = gv_op_find("loss.xent");
    cr_assert_not_null(op);
    cr_expect_str_eq(op->family, "loss");
    cr_expect_str_eq(op->dims, "m,n");
    cr_expect_str_eq(op->in_dims, "m,n;m");
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE));
    cr_expect(gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    cr_expect_null(op->planted_bug);
    /* D = d_s + E + 4: d_s = 1024 / 256 + 8 = 12, E = 5 (f32) or 3 (f64) */
    gv_case c = gv_test_case("loss.xent", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){2, {5, 1024}}, 3);
    cr_expect_float_eq(op->depth(&c), 21.0, 0);
    cr_expect_float_eq(op->order_free_depth(&c), 1033.0, 0);
    c.dtype = GV_F64;
    cr_expect_float_eq(op->depth(&c), 19.0, 0);
    /* the targets: integers in [0, n), the same for every dist and dtype of a seed */
    gv_problem p, q;
    gv_test_problem(&p, &c);
    gv_case c2 = gv_test_case("loss.xent", GV_F32, GV_MODE_NATIVE, GV_DIST_WIDE,
                              (gv_shape){2, {5, 1024}}, 3);
    gv_test_problem(&q, &c2);
    cr_assert_eq(p.l.n_in, 2);
    bool spread = false;
    for (int64_t i = 0; i < 5; i++) {
        double t = p.in[1].ref[i];
        cr_expect(t >= 0 && t < 1024 && t == floor(t), "target %g", t);
        cr_expect_eq(t, q.in[1].ref[i]);
        cr_expect_eq(t, (double)((const float *)q.in[1].data)[i]);
        spread |= t != p.in[1].ref[0];
    }
    cr_expect(spread, "the targets differ from row to row");
    gv_problem_free(&p);
    gv_problem_free(&q);
    const char *bugs[] = {"loss.xent.nomax", "loss.xent.naivelog"};
    for (int i = 0; i < 2; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
        cr_expect_str_eq(b->family, "loss");
    }
}

Test(loss_model, correct_arithmetic_passes_inside_the_bound, .timeout = 240)
{
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {33, 100}, {16, 1000}, {7, 4097}, {2, 65536}};
    const gv_dist dists[] = {GV_DIST_UNIFORM11, GV_DIST_UNIFORM01, GV_DIST_WIDE, GV_DIST_OFFGRID};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int t = 0; t < 2; t++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result r =
                    judge_sim("loss.xent", dt, dists[d], shapes[sh][0], shapes[sh][1], V_OK);
                cr_expect_eq(r.verdict, GV_PASS, "%s %lldx%lld %s: %s", gv_dtype_name(dt),
                             (long long)shapes[sh][0], (long long)shapes[sh][1],
                             gv_dist_name(dists[d]), r.reason);
                cr_expect_leq(r.m.ratio, 1.0, "%s %lldx%lld %s: ratio %.3g", gv_dtype_name(dt),
                              (long long)shapes[sh][0], (long long)shapes[sh][1],
                              gv_dist_name(dists[d]), r.m.ratio);
            }
}

Test(loss_model, edge_inputs_pass, .timeout = 120)
{
    const gv_dist dists[] = {GV_DIST_TINY, GV_DIST_HUGE, GV_DIST_SPARSE_SPECIAL, GV_DIST_SPECIAL};
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
        for (int t = 0; t < 2; t++) {
            gv_dtype dt = t ? GV_F64 : GV_F32;
            gv_result r = judge_sim("loss.xent", dt, dists[d], 64, 256, V_OK);
            cr_expect_eq(r.verdict, GV_PASS, "%s %s: %s", gv_dtype_name(dt), gv_dist_name(dists[d]),
                         r.reason);
        }
}

Test(loss_model, planted_bugs_and_wrong_precision_fail, .timeout = 120)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result a = judge_sim("loss.xent.nomax", dt, GV_DIST_WIDE, 256, 1024, V_NOMAX);
        cr_expect_eq(a.verdict, GV_FAIL, "nomax %s: %s", gv_dtype_name(dt), a.reason);
        gv_result b = judge_sim("loss.xent.naivelog", dt, GV_DIST_HUGE, 64, 256, V_NAIVELOG);
        cr_expect_eq(b.verdict, GV_FAIL, "naivelog %s: %s", gv_dtype_name(dt), b.reason);
    }
    gv_result w = judge_sim("loss.xent", GV_F64, GV_DIST_UNIFORM11, 64, 1024, V_IN_F32);
    cr_expect_eq(w.verdict, GV_FAIL, "f32 in f64: %s", w.reason);
    cr_expect_gt(w.m.ratio, 1e3);
}
