/* model_softmax.c: the softmax family's descriptors (src/ops/softmax.c) and error models, by
 * judging device results simulated on the CPU in the kernels' order (kernels/softmax.cu: each
 * thread's strided terms in order, then a tree over the block): correct f32/f64 arithmetic with
 * the worst documented exp error must pass; the planted bugs, an exp a few ulps worse than
 * documented, an exp in f16 and f32 arithmetic inside an f64 case must fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/softmax.h"
#include "go.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "block_sum.h"
#include "testkit.h"

enum kind { K_SOFTMAX, K_LOG, K_LAYER, K_RMS };
enum variant {
    V_OK,       /* the kernel's arithmetic, exp off by its documented bound (2 / 1 ulp) */
    V_NOMAX,    /* softmax.rows.nomax */
    V_PARTIAL,  /* softmax.rows.partialsum */
    V_EXP6,     /* an exp 6 ulps off (3 times expf's documented 2) */
    V_EXP_F16,  /* exp rounded to f16's 11 significant bits */
    V_IN_F32,   /* everything in f32, whatever the case's dtype */
    V_UNBIASED, /* norm.layer.unbiased */
    V_NOEPS,    /* norm.rms.noeps */
};

typedef struct {
    bool f32;
    enum variant v;
    double ref_sign; /* the direction exp is pushed, alternating by element */
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

/* exp(t) as the simulated kernel's exp returns it; dir alternates by element so that the
   errors spread both ways, as the shape check must see them */
static double sim_exp(const sim *s, double t, double dir)
{
    double e = s->f32 ? (double)expf((float)t) : exp(t);
    int ulps = s->f32 ? 2 : 1;
    if (s->v == V_EXP6) ulps = 6;
    if (s->v == V_EXP_F16)
        return e == 0 ? 0 : ldexp(nearbyint(ldexp(e, 10 - ilogb(e))), ilogb(e) - 10);
    return push_ulps(s, e, ulps, dir);
}

/* The block's sum of the row's terms f(j), in the kernel's order. */
static double block_sum(const sim *s, const double *terms, int64_t n, int64_t end)
{
    return block_sum_ordered(terms, n, end, s->f32);
}

static void sim_rows(const gv_problem *p, enum kind kind, sim s, double *y)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    int threads = gk_softmax_threads(n);
    double *terms = gv_test_alloc(n);
    for (int64_t i = 0; i < m; i++) {
        const double *x = p->in[0].ref + i * n;
        double *yr = y + i * n;
        if (kind == K_SOFTMAX || kind == K_LOG) {
            double mx = -INFINITY;
            for (int64_t j = 0; j < n; j++)
                mx = fmax(mx, x[j]);
            if (s.v == V_NOMAX) mx = 0;
            int64_t end = s.v == V_PARTIAL && n > threads ? threads : n;
            for (int64_t j = 0; j < n; j++)
                terms[j] = sim_exp(&s, rnd(&s, x[j] - mx), (j & 1) ? 1 : -1);
            double sum = block_sum(&s, terms, n, end);
            if (kind == K_SOFTMAX) {
                for (int64_t j = 0; j < n; j++)
                    yr[j] = rnd(&s, terms[j] / sum);
            } else {
                double ls = s.f32 ? (double)logf((float)sum) : log(sum);
                for (int64_t j = 0; j < n; j++)
                    yr[j] = rnd(&s, rnd(&s, x[j] - mx) - ls);
            }
        } else if (kind == K_LAYER) {
            double mean = rnd(&s, block_sum(&s, x, n, n) / (double)n);
            for (int64_t j = 0; j < n; j++) {
                double c = rnd(&s, x[j] - mean);
                terms[j] = rnd(&s, c * c);
            }
            double q = block_sum(&s, terms, n, n);
            double var = rnd(&s, q / (double)(s.v == V_UNBIASED ? n - 1 : n));
            double rstd = rnd(&s, 1.0 / rnd(&s, sqrt(rnd(&s, var + rnd(&s, GK_NORM_LAYER_EPS)))));
            for (int64_t j = 0; j < n; j++)
                yr[j] = rnd(&s, rnd(&s, x[j] - mean) * rstd);
        } else {
            for (int64_t j = 0; j < n; j++)
                terms[j] = rnd(&s, x[j] * x[j]);
            double ms = rnd(&s, block_sum(&s, terms, n, n) / (double)n);
            double d = s.v == V_NOEPS ? ms : rnd(&s, ms + rnd(&s, GK_NORM_RMS_EPS));
            double rstd = rnd(&s, 1.0 / rnd(&s, sqrt(d)));
            for (int64_t j = 0; j < n; j++)
                yr[j] = rnd(&s, x[j] * rstd);
        }
    }
    free(terms);
}

static const char *op_of(enum kind k)
{
    return k == K_SOFTMAX ? "softmax.rows"
           : k == K_LOG   ? "softmax.log"
           : k == K_LAYER ? "norm.layer"
                          : "norm.rms";
}

static gv_result judge_sim(const char *opname, enum kind kind, gv_dtype t, gv_dist dist, int64_t m,
                           int64_t n, enum variant v)
{
    gv_case c = gv_test_case(opname, t, GV_MODE_NATIVE, dist, (gv_shape){2, {m, n}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *y = gv_test_alloc(m * n);
    sim s = {.f32 = t == GV_F32 || v == V_IN_F32, .v = v};
    sim_rows(&p, kind, s, y);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    double shape = NAN;
    for (int i = 0; i < r.n_checks; i++)
        if (strcmp(r.checks[i].name, "row_shape") == 0) shape = r.checks[i].value;
    cr_log_info("%s %s %s %lldx%lld variant %d: %s ratio %.3g shape %.3g %s", opname,
                gv_dtype_name(t), gv_dist_name(dist), (long long)m, (long long)n, (int)v,
                gv_verdict_name(r.verdict), r.m.ratio, shape, r.reason);
    return r;
}

static double check_value(const gv_result *r, const char *name)
{
    for (int i = 0; i < r->n_checks; i++)
        if (strcmp(r->checks[i].name, name) == 0) return r->checks[i].value;
    return NAN;
}

Test(softmax_model, registered_with_dims_depths_and_planted_bugs)
{
    const char *ops[] = {"softmax.rows", "softmax.log", "norm.layer", "norm.rms",
                         "norm.rms.eps5", "norm.l2",      "norm.l1mean"};
    for (int i = 0; i < 7; i++) {
        const gv_op *op = gv_op_find(ops[i]);
        cr_assert_not_null(op, "%s", ops[i]);
        cr_expect_str_eq(op->family, "softmax");
        cr_expect_str_eq(op->dims, "m,n");
        cr_expect_str_eq(op->shapes, "4096x1024,64x65536");
        cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE));
        cr_expect(gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
        cr_expect_not(gv_mode_ok(op, GV_F32, GV_MODE_FASTMATH), "%s: native only", ops[i]);
        cr_expect_null(op->planted_bug);
        cr_expect_not_null(op->order_free_depth);
    }
    /* the sum's depth: 1024 / 256 + 8 and 65536 / 1024 + 10 (abi/softmax.h) */
    cr_expect_eq(gk_softmax_sum_depth(1024), 12);
    cr_expect_eq(gk_softmax_sum_depth(4096), 24);
    cr_expect_eq(gk_softmax_sum_depth(4097), 15);
    cr_expect_eq(gk_softmax_sum_depth(65536), 74);
    cr_expect_eq(gk_softmax_sum_depth(1), 9);
    const struct {
        const char *op;
        gv_dtype t;
        int64_t n;
        double depth, of_depth;
    } want[] = {
        {"softmax.rows", GV_F32, 1024, 24, 1036},   {"softmax.rows", GV_F64, 1024, 20, 1032},
        {"softmax.rows", GV_F32, 65536, 86, 65548}, {"softmax.log", GV_F32, 1024, 21, 1033},
        {"softmax.log", GV_F64, 1024, 19, 1031},    {"norm.layer", GV_F32, 1024, 22, 1034},
        {"norm.rms", GV_F64, 1024, 15, 521},        {"norm.rms.eps5", GV_F32, 1024, 15, 521},
        {"norm.l2", GV_F32, 1024, 9, 515},          {"norm.l2", GV_F64, 65536, 40, 32771},
        {"norm.l1mean", GV_F32, 1024, 15, 1027},    {"norm.l1mean", GV_F32, 65536, 77, 65539},
        /* one sum over 4096 x 1024: 4194304 / 1024 + 10 = 4106 */
        {"norm.fro", GV_F32, 1024, 2056, 2097155},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        gv_case c = gv_test_case(want[i].op, want[i].t, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                 (gv_shape){2, {4096, want[i].n}}, 1);
        cr_expect_float_eq(c.op->depth(&c), want[i].depth, 0, "%s n=%lld", want[i].op,
                           (long long)want[i].n);
        cr_expect_float_eq(c.op->order_free_depth(&c), want[i].of_depth, 0, "%s", want[i].op);
    }
    const char *bugs[] = {"softmax.rows.nomax", "softmax.rows.partialsum", "norm.layer.unbiased",
                          "norm.rms.noeps",     "norm.rms.eps5.eps6",      "norm.l2.partialsum",
                          "norm.l1mean.sum",    "norm.fro.rows"};
    for (int i = 0; i < 8; i++) {
        const gv_op *op = gv_op_find(bugs[i]);
        cr_assert_not_null(op, "%s", bugs[i]);
        cr_expect_not_null(op->planted_bug, "%s", bugs[i]);
        cr_expect_str_eq(op->family, "softmax");
    }
    /* the partial sums differ from the whole only where a row is longer than the block */
    const char *partials[] = {"softmax.rows.partialsum", "norm.l2.partialsum"};
    for (int k = 0; k < 2; k++) {
        const gv_op *partial = gv_op_find(partials[k]);
        gv_shape s[16];
        char err[256];
        int ns = gv_size_spec_parse(partial->test_shapes, s, 16, err, sizeof err);
        cr_assert_gt(ns, 0, "%s", err);
        for (int i = 0; i < ns; i++)
            cr_expect_gt(s[i].d[1], gk_softmax_threads(s[i].d[1]), "%s", partials[k]);
    }
}

Test(softmax_model, correct_arithmetic_passes_inside_the_bound, .timeout = 240)
{
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {33, 100}, {16, 1000}, {7, 4097}, {2, 65536}};
    const gv_dist dists[] = {GV_DIST_UNIFORM11, GV_DIST_WIDE, GV_DIST_UNIFORM01};
    for (int k = K_SOFTMAX; k <= K_RMS; k++)
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
            for (int d = 0; d < 3; d++)
                for (int t = 0; t < 2; t++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    const int64_t *z = shapes[sh];
                    gv_result r = judge_sim(op_of(k), k, dt, dists[d], z[0], z[1], V_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %lldx%lld dist %d: %s", op_of(k),
                                 gv_dtype_name(dt), (long long)z[0], (long long)z[1], d, r.reason);
                    cr_expect_leq(r.m.ratio, 1.0, "%s %s %lldx%lld dist %d: ratio %.3g", op_of(k),
                                  gv_dtype_name(dt), (long long)z[0], (long long)z[1], d,
                                  r.m.ratio);
                    if (k <= K_LOG)
                        cr_expect_leq(check_value(&r, "row_shape"), 1.0,
                                      "%s %s %lldx%lld dist %d: shape %.3g", op_of(k),
                                      gv_dtype_name(dt), (long long)z[0], (long long)z[1], d,
                                      check_value(&r, "row_shape"));
                }
}

Test(softmax_model, edge_inputs_pass, .timeout = 120)
{
    /* huge: one-hot rows, x - M overflowing to -Inf; sparse-special: NaN rows; tiny: the norms'
       squares underflow under their eps */
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        for (int k = K_SOFTMAX; k <= K_LOG; k++) {
            gv_result h = judge_sim(op_of(k), k, dt, GV_DIST_HUGE, 64, 256, V_OK);
            cr_expect_eq(h.verdict, GV_PASS, "%s huge: %s", op_of(k), h.reason);
        }
        for (int k = K_SOFTMAX; k <= K_RMS; k++) {
            gv_result s = judge_sim(op_of(k), k, dt, GV_DIST_SPARSE_SPECIAL, 64, 256, V_OK);
            cr_expect_eq(s.verdict, GV_PASS, "%s sparse-special: %s", op_of(k), s.reason);
        }
        for (int k = K_LAYER; k <= K_RMS; k++) {
            gv_result s = judge_sim(op_of(k), k, dt, GV_DIST_TINY, 64, 256, V_OK);
            cr_expect_eq(s.verdict, GV_PASS, "%s tiny: %s", op_of(k), s.reason);
            gv_result o = judge_sim(op_of(k), k, dt, GV_DIST_OFFGRID, 64, 1024, V_OK);
            cr_expect_eq(o.verdict, GV_PASS, "%s offgrid: %s", op_of(k), o.reason);
        }
    }
}

Test(softmax_model, planted_bugs_fail_at_their_test_shapes, .timeout = 240)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r =
            judge_sim("softmax.rows.nomax", K_SOFTMAX, dt, GV_DIST_WIDE, 256, 1024, V_NOMAX);
        cr_expect_eq(r.verdict, GV_FAIL, "nomax %s: %s", gv_dtype_name(dt), r.reason);
        const int64_t ps[][2] = {{33, 1000}, {4, 65536}};
        for (int i = 0; i < 2; i++) {
            gv_result q = judge_sim("softmax.rows.partialsum", K_SOFTMAX, dt, GV_DIST_UNIFORM11,
                                    ps[i][0], ps[i][1], V_PARTIAL);
            cr_expect_eq(q.verdict, GV_FAIL, "partialsum %s: %s", gv_dtype_name(dt), q.reason);
            cr_expect_gt(q.m.ratio, 1e3);
        }
        const int64_t us[][2] = {{33, 100}, {64, 1024}};
        for (int i = 0; i < 2; i++) {
            gv_result q = judge_sim("norm.layer.unbiased", K_LAYER, dt, GV_DIST_UNIFORM11, us[i][0],
                                    us[i][1], V_UNBIASED);
            cr_expect_eq(q.verdict, GV_FAIL, "unbiased %s %lld: %s", gv_dtype_name(dt),
                         (long long)us[i][1], q.reason);
        }
        gv_result e = judge_sim("norm.rms.noeps", K_RMS, dt, GV_DIST_TINY, 64, 256, V_NOEPS);
        cr_expect_eq(e.verdict, GV_FAIL, "noeps %s: %s", gv_dtype_name(dt), e.reason);
    }
}


Test(softmax_model, wrong_exp_and_precision_fail, .timeout = 120)
{
    /* exp rounded to f16: each element's error far past the bound (log-softmax's exps only
       reach it through the row's sum, where their errors average out: not caught there, see
       docs/error-models.md) */
    gv_result h =
        judge_sim("softmax.rows", K_SOFTMAX, GV_F32, GV_DIST_UNIFORM11, 64, 1024, V_EXP_F16);
    cr_expect_eq(h.verdict, GV_FAIL, "f16 exp: %s", h.reason);
    cr_expect_gt(check_value(&h, "row_shape"), 100.0);
    for (int k = K_SOFTMAX; k <= K_LOG; k++) {
        /* f32 arithmetic in an f64 case */
        gv_result w = judge_sim(op_of(k), k, GV_F64, GV_DIST_UNIFORM11, 64, 1024, V_IN_F32);
        cr_expect_eq(w.verdict, GV_FAIL, "%s f64 in f32: %s", op_of(k), w.reason);
        cr_expect_gt(w.m.ratio, 1e3);
    }
    /* an exp 6 ulps off, 3 times expf's bound: inside the worst-case ratio (the row's sum has
       room) but not the per-element shape check */
    gv_result e = judge_sim("softmax.rows", K_SOFTMAX, GV_F32, GV_DIST_UNIFORM11, 64, 1024, V_EXP6);
    cr_expect_eq(e.verdict, GV_FAIL, "exp 6 ulp: %s", e.reason);
    cr_expect_gt(check_value(&e, "row_shape"), 2.0);
    for (int k = K_LAYER; k <= K_RMS; k++) {
        gv_result w = judge_sim(op_of(k), k, GV_F64, GV_DIST_UNIFORM11, 64, 1024, V_IN_F32);
        cr_expect_eq(w.verdict, GV_FAIL, "%s f64 in f32: %s", op_of(k), w.reason);
    }
}
