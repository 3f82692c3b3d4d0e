/* model_conv.c: the conv family's descriptors (src/ops/conv.c) and error model, by judging
 * device results simulated on the CPU as kernels/conv.cu computes them (an FMA chain over the
 * window in the dtype, then the bias) and in the reverse order: correct f32 and f64 arithmetic
 * passes on every dist at three seeds; each planted bug (the padding wrapped, the window
 * flipped, f16 accumulation, the bias dropped) and f32 arithmetic inside an f64 case fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/conv.h"
#include "go.h"
#include "testkit.h"

enum variant { V_OK, V_REVERSE, V_WRAP, V_FLIPPED, V_F16ACC, V_NOBIAS, V_IN_F32 };

typedef struct {
    const char *op;
    int64_t kh, kw, st, ph, pw;
    bool one_d;
} geom;

static const geom geoms[] = {{"conv.2d", 3, 3, 1, 1, 1, false},
                             {"conv.2d.k1", 1, 1, 1, 0, 0, false},
                             {"conv.2d.k7s2", 7, 7, 2, 3, 3, false},
                             {"conv.1d", 1, 3, 1, 0, 1, true}};

static double f16(double v)
{
    return go_round_format(v, 11, -14, 65504.0, 0);
}

/* one output as kernels/conv.cu computes it (V_REVERSE: the terms in the opposite order) */
static double sim_out(bool f32, enum variant v, const geom *g, const double *x, const double *wt,
                      const double *bias, int64_t c, int64_t h, int64_t w, int64_t q, int64_t oc,
                      int64_t i, int64_t j)
{
    double acc = 0;
    const int64_t terms = c * g->kh * g->kw;
    for (int64_t tt = 0; tt < terms; tt++) {
        int64_t t = v == V_REVERSE ? terms - 1 - tt : tt;
        int64_t ci = t / (g->kh * g->kw), a = (t / g->kw) % g->kh, e = t % g->kw;
        int64_t r = i * g->st - g->ph + a, col = j * g->st - g->pw + e;
        if (r < 0 || r >= h) continue;
        if (col < 0 || col >= w) {
            if (v != V_WRAP) continue;
            col = ((col % w) + w) % w;
        }
        int64_t wa = v == V_FLIPPED ? g->kh - 1 - a : a, we = v == V_FLIPPED ? g->kw - 1 - e : e;
        double xv = x[((q * c + ci) * h + r) * w + col],
               wv = wt[((oc * c + ci) * g->kh + wa) * g->kw + we];
        if (v == V_F16ACC)
            acc = f16(acc + f16(f32 ? (double)(float)(xv * wv) : xv * wv));
        else
            acc = f32 ? (double)fmaf((float)xv, (float)wv, (float)acc) : fma(xv, wv, acc);
    }
    if (v == V_NOBIAS) return acc;
    return f32 ? (double)((float)acc + (float)bias[oc]) : acc + bias[oc];
}

static gv_result judge_sim(const geom *g, gv_dtype t, gv_dist dist, gv_shape s, uint64_t seed,
                           enum variant v, const char *op)
{
    gv_case c = gv_test_case(op ? op : g->op, t, GV_MODE_NATIVE, dist, s, seed);
    gv_problem p;
    gv_test_problem(&p, &c);
    int64_t n = s.d[0], ch = s.d[1], h = g->one_d ? 1 : s.d[2], w = s.d[2], o = s.d[3];
    int64_t oh = gk_conv_out_side(h, g->kh, g->st, g->ph),
            ow = gk_conv_out_side(w, g->kw, g->st, g->pw);
    cr_assert_eq(p.out[0].count, n * o * oh * ow);
    bool f32 = t == GV_F32 || v == V_IN_F32;
    double *y = gv_test_alloc(p.out[0].count);
    for (int64_t q = 0; q < n; q++)
        for (int64_t oc = 0; oc < o; oc++)
            for (int64_t i = 0; i < oh; i++)
                for (int64_t j = 0; j < ow; j++)
                    y[((q * o + oc) * oh + i) * ow + j] = sim_out(
                        f32, v, g, p.in[0].ref, p.in[1].ref, p.in[2].ref, ch, h, w, q, oc, i, j);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s seed %llu variant %d: %s ratio %.3g %s", c.op->name, gv_dtype_name(t),
                gv_dist_name(dist), (unsigned long long)seed, (int)v, gv_verdict_name(r.verdict),
                r.m.ratio, r.reason);
    return r;
}

Test(conv_model, registered_with_dims_depths_shapes_and_planted_bugs)
{
    for (size_t i = 0; i < sizeof geoms / sizeof geoms[0]; i++) {
        const gv_op *op = gv_op_find(geoms[i].op);
        cr_assert_not_null(op, "%s", geoms[i].op);
        cr_expect_str_eq(op->family, "conv");
        cr_expect_str_eq(op->dims, geoms[i].one_d ? "n,c,l,o" : "n,c,s,o");
        cr_expect_null(op->planted_bug);
        cr_expect_not_null(op->in_dims, "takes --inputs");
        cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE) && gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    }
    /* K = c kh kw + 1 terms: the bias is the last */
    gv_case c = gv_test_case("conv.2d", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){4, {2, 3, 7, 5}}, 1);
    cr_expect_float_eq(c.op->depth(&c), 28.0, 0);
    cr_expect_float_eq(c.op->flops(&c), 2.0 * 5 * 49 * (2.0 * 27 + 1), 0);
    gv_layout l;
    cr_assert_eq(c.op->layout(&c, &l), GV_OK);
    cr_expect(l.n_in == 3 && l.in[0].count == 2 * 3 * 49 && l.in[1].count == 5 * 3 * 9 &&
              l.in[2].count == 5 && l.out[0].count == 2 * 5 * 49);
    int64_t shape[4];
    cr_assert_eq(c.op->tensor_shape(&c, &l, false, 1, shape), 4);
    cr_expect(shape[0] == 5 && shape[1] == 3 && shape[2] == 3 && shape[3] == 3);
    /* the stem: 224 -> 112 */
    gv_case stem = gv_test_case("conv.2d.k7s2", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                (gv_shape){4, {1, 3, 224, 64}}, 1);
    cr_assert_eq(stem.op->layout(&stem, &l), GV_OK);
    cr_expect_eq(l.out[0].count, 64 * 112 * 112);
    cr_expect_float_eq(stem.op->depth(&stem), 148.0, 0);
    /* conv.1d's tensors are 3-d: x (n, c, l), w (o, c, 3), y (n, o, l) */
    gv_case one = gv_test_case("conv.1d", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                               (gv_shape){4, {2, 4, 100, 8}}, 1);
    cr_assert_eq(one.op->layout(&one, &l), GV_OK);
    cr_expect_eq(one.op->tensor_shape(&one, &l, true, 0, shape), 3);
    cr_expect(shape[0] == 2 && shape[1] == 8 && shape[2] == 100);
    cr_expect_eq(one.op->tensor_shape(&one, &l, false, 1, shape), 3);
    cr_expect(shape[0] == 8 && shape[1] == 4 && shape[2] == 3);
    char why[256];
    cr_expect_eq(c.op->check_shape(&(gv_shape){4, {1, 0, 7, 5}}, why, sizeof why), GV_EINVAL);
    const char *bugs[] = {"conv.2d.wrap", "conv.2d.flipped", "conv.2d.f16acc", "conv.2d.nobias"};
    for (int i = 0; i < 4; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
    }
}

static const gv_shape shapes_2d[] = {
    {4, {1, 1, 1, 1}}, {4, {2, 3, 7, 5}}, {4, {1, 16, 17, 8}}, {4, {1, 64, 9, 4}}};
static const gv_shape shapes_1d[] = {{4, {1, 1, 1, 1}}, {4, {2, 4, 100, 8}}, {4, {1, 32, 57, 4}}};

Test(conv_model, correct_arithmetic_passes_on_every_dist_and_seed, .timeout = 300)
{
    const gv_dist dists[] = {GV_DIST_UNIFORM11, GV_DIST_UNIFORM01, GV_DIST_SMALLINT,
                             GV_DIST_OFFGRID, GV_DIST_WIDE};
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++) {
        const geom *g = &geoms[gi];
        const gv_shape *sh = g->one_d ? shapes_1d : shapes_2d;
        size_t ns = g->one_d ? 3 : 4;
        for (size_t s = 0; s < ns; s++)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
                for (int t = 0; t < 2; t++)
                    for (uint64_t seed = 1; seed <= 3; seed++)
                        for (int v = V_OK; v <= V_REVERSE; v++) {
                            gv_dtype dt = t ? GV_F64 : GV_F32;
                            gv_result r = judge_sim(g, dt, dists[d], sh[s], seed, v, NULL);
                            cr_expect_eq(r.verdict, GV_PASS, "%s %s %s shape %zu seed %llu: %s",
                                         g->op, gv_dtype_name(dt), gv_dist_name(dists[d]), s,
                                         (unsigned long long)seed, r.reason);
                            cr_expect_leq(r.m.ratio, 1.0, "%s ratio %.3g", g->op, r.m.ratio);
                        }
    }
}

/* At the catalogue's size, 200704 outputs: the bias rule (errors leaning one way) judges the
   uniform [-1, 1) cases there, and round-to-nearest FMA chains must not trip it. */
Test(conv_model, catalogue_size_passes_with_the_bias_rule, .timeout = 300)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r = judge_sim(&geoms[0], dt, GV_DIST_UNIFORM11, (gv_shape){4, {1, 64, 56, 64}}, 1,
                                V_OK, NULL);
        cr_expect_eq(r.verdict, GV_PASS, "%s: %s", gv_dtype_name(dt), r.reason);
        cr_expect(r.bias.judged, "the bias rule judged: %s", r.bias.why_not);
    }
}

Test(conv_model, planted_bugs_and_f32_inside_f64_fail, .timeout = 120)
{
    const struct {
        const char *op;
        enum variant v;
    } bugs[] = {{"conv.2d.wrap", V_WRAP},
                {"conv.2d.flipped", V_FLIPPED},
                {"conv.2d.f16acc", V_F16ACC},
                {"conv.2d.nobias", V_NOBIAS}};
    const gv_shape planted[] = {{4, {2, 3, 7, 5}}, {4, {1, 16, 17, 8}}, {4, {1, 64, 56, 8}}};
    for (int b = 0; b < 4; b++)
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 3; s++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result r = judge_sim(&geoms[0], dt, gv_op_find(bugs[b].op)->default_dist,
                                        planted[s], 1, bugs[b].v, bugs[b].op);
                cr_expect_eq(r.verdict, GV_FAIL, "%s %s shape %d: %s", bugs[b].op,
                             gv_dtype_name(dt), s, r.reason);
                cr_expect_gt(r.m.ratio, 16.0, "%s %s shape %d: ratio %.3g", bugs[b].op,
                             gv_dtype_name(dt), s, r.m.ratio);
            }
    gv_result w = judge_sim(&geoms[0], GV_F64, GV_DIST_UNIFORM11, (gv_shape){4, {1, 64, 14, 8}}, 1,
                            V_IN_F32, NULL);
    cr_expect_eq(w.verdict, GV_FAIL, "f32 in f64: %s", w.reason);
    cr_expect_gt(w.m.ratio, 1e3);
}
