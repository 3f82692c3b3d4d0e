/* model_conv.c: the conv family's descriptors (src/ops/conv.c) and error model, by judging
 * device results simulated on the CPU as kernels/conv.cu computes them (an FMA chain over the
 * window in the dtype, then the bias where there is one) and in the reverse order: correct f32
 * and f64 arithmetic passes on every dist at three seeds, in 1-D, 2-D and 3-D, padded and
 * valid, with and without a bias, transposed; each planted bug (the padding wrapped, the window
 * flipped in 2-D and 3-D, f16 accumulation, the bias dropped, a padding where the layer has
 * none, a transposed window not flipped; a strided layer read at stride 1, a dilated one at
 * dilation 1, a grouped or depthwise one with its channels dealt round-robin to the groups) and
 * f32 arithmetic inside an f64 case fail. Strided, dilated, grouped and depthwise geometries
 * pass like the others. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/conv.h"
#include "go.h"
#include "io/tensor_shape.h"
#include "testkit.h"

enum variant {
    V_OK,
    V_REVERSE,
    V_WRAP,
    V_FLIPPED,
    V_F16ACC,
    V_NOBIAS,
    V_IN_F32,
    V_PADDED,
    V_STRIDE1,
    V_NODIL,
    V_GROUPMAP
};

/* The geometries as the ops' summaries state them (abi/conv.h is what this checks, so the
   numbers are written out here rather than taken from it). */
typedef struct {
    const char *op;
    int64_t kd, kh, kw, st, pd, ph, pw;
    bool bias, one_d, volume, tr;
    int64_t dil, groups; /* groups 0: as many as the input's channels */
} geom;

static const geom geoms[] = {
    {"conv.2d", 1, 3, 3, 1, 0, 1, 1, true, false, false, false, 1, 1},
    {"conv.2d.k1", 1, 1, 1, 1, 0, 0, 0, true, false, false, false, 1, 1},
    {"conv.2d.k7s2", 1, 7, 7, 2, 0, 3, 3, true, false, false, false, 1, 1},
    {"conv.1d", 1, 1, 3, 1, 0, 0, 1, true, true, false, false, 1, 1},
    {"conv.2d.valid", 1, 3, 3, 1, 0, 0, 0, false, false, false, false, 1, 1},
    {"conv.2d.pointwise", 1, 1, 1, 1, 0, 0, 0, false, false, false, false, 1, 1},
    {"conv.1d.valid", 1, 1, 3, 1, 0, 0, 0, false, true, false, false, 1, 1},
    {"conv.3d", 3, 3, 3, 1, 1, 1, 1, true, false, true, false, 1, 1},
    {"conv.3d.valid", 3, 3, 3, 1, 0, 0, 0, false, false, true, false, 1, 1},
    {"conv.2d.transposed", 1, 3, 3, 1, 0, 2, 2, false, false, false, true, 1, 1},
    {"conv.1d.transposed", 1, 1, 3, 1, 0, 0, 2, false, true, false, true, 1, 1},
    {"conv.3d.transposed", 3, 3, 3, 1, 2, 2, 2, false, false, true, true, 1, 1},
    {"conv.2d.strided", 1, 3, 3, 2, 0, 1, 1, false, false, false, false, 1, 1},
    {"conv.2d.k11s4", 1, 11, 11, 4, 0, 2, 2, true, false, false, false, 1, 1},
    {"conv.2d.dilated", 1, 3, 3, 1, 0, 2, 2, false, false, false, false, 2, 1},
    {"conv.2d.grouped", 1, 3, 3, 1, 0, 1, 1, true, false, false, false, 1, 4},
    {"conv.2d.depthwise", 1, 3, 3, 1, 0, 0, 0, false, false, false, false, 1, 0},
    {"conv.1d.dilated", 1, 1, 3, 3, 0, 0, 0, false, true, false, false, 4, 1},
    {"conv.2d.depthwise.k3x1", 1, 3, 1, 1, 0, 0, 0, false, false, false, false, 1, 0}};
enum {
    G_K3 = 0,
    G_V3 = 4,
    G_C1DV = 6,
    G_K3D = 7,
    G_V3D = 8,
    G_T3 = 9,
    G_S3 = 12,
    G_D3 = 14,
    G_G3 = 15,
    G_DW3 = 16
};

/* a geometry's dilation, and its groups at c input channels (groups 0: depthwise, c) */
static int64_t dil_of(const geom *g)
{
    return g->dil;
}
static int64_t groups_of(const geom *g, int64_t c)
{
    return g->groups ? g->groups : c;
}

static double f16(double v)
{
    return go_round_format(v, 11, -14, 65504.0, 0);
}

/* one output as kernels/conv.cu computes it (V_REVERSE: the terms in the opposite order;
   V_PADDED: the reads padded by 1 on every side, where the geometry has none) */
static double sim_out(bool f32, enum variant v, const geom *g, const double *x, const double *wt,
                      const double *bias, int64_t c, int64_t no, int64_t d, int64_t h, int64_t w,
                      int64_t q, int64_t oc, int64_t k, int64_t i, int64_t j)
{
    double acc = 0;
    const int64_t groups = groups_of(g, c), cg = c / groups, og = no / groups;
    const int64_t win = g->kd * g->kh * g->kw, terms = cg * win;
    const int64_t pd = v == V_PADDED && g->volume ? 1 : g->pd, ph = v == V_PADDED ? 1 : g->ph,
                  pw = v == V_PADDED ? 1 : g->pw;
    const int64_t st = v == V_STRIDE1 ? 1 : g->st, dl = v == V_NODIL ? 1 : dil_of(g);
    const int64_t c0 = (v == V_GROUPMAP ? oc % groups : oc / og) * cg;
    for (int64_t tt = 0; tt < terms; tt++) {
        int64_t t = v == V_REVERSE ? terms - 1 - tt : tt;
        int64_t cl = t / win, z = (t / (g->kh * g->kw)) % g->kd, a = (t / g->kw) % g->kh,
                e = t % g->kw, ci = c0 + cl;
        int64_t dz = k * st - pd + z * dl, r = i * st - ph + a * dl, col = j * st - pw + e * dl;
        if (dz < 0 || dz >= d || r < 0 || r >= h) continue;
        if (col < 0 || col >= w) {
            if (v != V_WRAP) continue;
            col = ((col % w) + w) % w;
        }
        /* transposed: flipped, weights (in, out); V_FLIPPED: the other way round */
        bool flip = g->tr != (v == V_FLIPPED);
        int64_t wz = flip ? g->kd - 1 - z : z, wa = flip ? g->kh - 1 - a : a,
                we = flip ? g->kw - 1 - e : e;
        int64_t wrow = g->tr ? ci * no + oc : oc * cg + cl;
        double xv = x[(((q * c + ci) * d + dz) * h + r) * w + col],
               wv = wt[((wrow * g->kd + wz) * g->kh + wa) * g->kw + we];
        if (v == V_F16ACC)
            acc = f16(acc + f16(f32 ? (double)(float)(xv * wv) : xv * wv));
        else
            acc = f32 ? (double)fmaf((float)xv, (float)wv, (float)acc) : fma(xv, wv, acc);
    }
    if (v == V_NOBIAS || !g->bias) return acc;
    return f32 ? (double)((float)acc + (float)bias[oc]) : acc + bias[oc];
}

static gv_result judge_sim(const geom *g, gv_dtype t, gv_dist dist, gv_shape s, uint64_t seed,
                           enum variant v, const char *op)
{
    gv_case c = gv_test_case(op ? op : g->op, t, GV_MODE_NATIVE, dist, s, seed);
    gv_problem p;
    gv_test_problem(&p, &c);
    int64_t n = s.d[0], ch = s.d[1], d = g->volume ? s.d[2] : 1, h = g->one_d ? 1 : s.d[2],
            w = s.d[2], o = s.d[3];
    int64_t od = gk_conv_out_side_dil(d, g->kd, g->st, g->pd, dil_of(g)),
            oh = gk_conv_out_side_dil(h, g->kh, g->st, g->ph, dil_of(g)),
            ow = gk_conv_out_side_dil(w, g->kw, g->st, g->pw, dil_of(g));
    cr_assert_eq(p.out[0].count, n * o * od * oh * ow);
    cr_assert_eq(p.l.n_in, g->bias ? 3 : 2, "%s: a bias input where the layer has one", g->op);
    bool f32 = t == GV_F32 || v == V_IN_F32;
    double *y = gv_test_alloc(p.out[0].count);
    for (int64_t q = 0; q < n; q++)
        for (int64_t oc = 0; oc < o; oc++)
            for (int64_t k = 0; k < od; k++)
                for (int64_t i = 0; i < oh; i++)
                    for (int64_t j = 0; j < ow; j++)
                        y[(((q * o + oc) * od + k) * oh + i) * ow + j] =
                            sim_out(f32, v, g, p.in[0].ref, p.in[1].ref,
                                    g->bias ? p.in[2].ref : NULL, ch, o, d, h, w, q, oc, k, i, j);
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
        /* the depth K = (c / groups) kd kh kw (+ 1 with a bias) at c = 8 */
        gv_shape sh = {4, {1, 8, 19, 8}};
        gv_case k = gv_test_case(geoms[i].op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, sh, 1);
        cr_expect_float_eq(op->depth(&k),
                           8.0 / (double)groups_of(&geoms[i], 8) *
                                   (double)(geoms[i].kd * geoms[i].kh * geoms[i].kw) +
                               (geoms[i].bias ? 1 : 0),
                           0, "%s", geoms[i].op);
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
    const char *bugs[] = {"conv.2d.wrap",
                          "conv.2d.flipped",
                          "conv.2d.f16acc",
                          "conv.2d.nobias",
                          "conv.2d.valid.padded",
                          "conv.3d.flipped",
                          "conv.2d.transposed.noflip",
                          "conv.2d.strided.stride1",
                          "conv.2d.dilated.nodil",
                          "conv.2d.grouped.groupmap",
                          "conv.2d.depthwise.groupmap"};
    for (int i = 0; i < 11; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
    }
}

/* The bias-free and 3-D ops' tensors: conv.2d.valid has no bias input, x (n, c, s, s) and
   w (o, c, 3, 3) carry every dim (o off w, the window's sides fixed in in_dims), and the
   output shrinks by 2 a side; conv.3d's tensors are 5-D. */
Test(conv_model, valid_and_3d_layouts_and_shapes)
{
    gv_layout l;
    int64_t shape[8];
    gv_case v = gv_test_case("conv.2d.valid", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){4, {2, 3, 7, 5}}, 1);
    cr_assert_eq(v.op->layout(&v, &l), GV_OK);
    cr_expect(l.n_in == 2 && l.in[0].count == 2 * 3 * 49 && l.in[1].count == 5 * 3 * 9 &&
                  l.out[0].count == 2 * 5 * 25,
              "n_in %d, out %lld", l.n_in, (long long)l.out[0].count);
    cr_expect_str_eq(v.op->in_dims, "n,c,s,s;o,c,3,3");
    cr_expect_float_eq(v.op->flops(&v), 2.0 * 5 * 25 * (2.0 * 27), 0, "no bias term");
    cr_expect_eq(gv_tensor_shape(&v, &l, false, 1, shape), 4);
    cr_expect(shape[0] == 5 && shape[1] == 3 && shape[2] == 3 && shape[3] == 3);
    cr_expect_eq(gv_tensor_shape(&v, &l, true, 0, shape), 4);
    cr_expect(shape[0] == 2 && shape[1] == 5 && shape[2] == 5 && shape[3] == 5);
    char why[256];
    cr_expect_eq(v.op->check_shape(&(gv_shape){4, {1, 1, 2, 1}}, why, sizeof why), GV_EINVAL,
                 "a side of 2 under an unpadded 3 x 3 window");
    cr_expect_eq(v.op->check_shape(&(gv_shape){4, {1, 1, 3, 1}}, why, sizeof why), GV_OK);

    gv_case c3 = gv_test_case("conv.3d", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                              (gv_shape){4, {2, 3, 5, 4}}, 1);
    cr_assert_eq(c3.op->layout(&c3, &l), GV_OK);
    cr_expect(l.n_in == 3 && l.in[0].count == 2 * 3 * 125 && l.in[1].count == 4 * 3 * 27 &&
              l.in[2].count == 4 && l.out[0].count == 2 * 4 * 125);
    cr_expect_eq(gv_tensor_shape(&c3, &l, false, 0, shape), 5);
    cr_expect(shape[0] == 2 && shape[1] == 3 && shape[2] == 5 && shape[3] == 5 && shape[4] == 5);
    cr_expect_eq(gv_tensor_shape(&c3, &l, false, 1, shape), 5);
    cr_expect(shape[0] == 4 && shape[1] == 3 && shape[2] == 3 && shape[3] == 3 && shape[4] == 3);
    cr_expect_eq(gv_tensor_shape(&c3, &l, true, 0, shape), 5);
    cr_expect(shape[0] == 2 && shape[1] == 4 && shape[2] == 5 && shape[4] == 5);
    gv_case v3 = gv_test_case("conv.3d.valid", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                              (gv_shape){4, {1, 8, 9, 8}}, 1);
    cr_assert_eq(v3.op->layout(&v3, &l), GV_OK);
    cr_expect(l.n_in == 2 && l.out[0].count == 8 * 7 * 7 * 7);
    cr_expect_float_eq(v3.op->depth(&v3), 8.0 * 27, 0);
    /* ConvTranspose2d: w (c, o, 3, 3), y (n, o, s + 2, s + 2) */
    gv_case t = gv_test_case("conv.2d.transposed", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){4, {2, 3, 7, 5}}, 1);
    cr_assert_eq(t.op->layout(&t, &l), GV_OK);
    cr_expect(l.n_in == 2 && l.in[1].count == 3 * 5 * 9 && l.out[0].count == 2 * 5 * 81);
    cr_expect_str_eq(t.op->in_dims, "n,c,s,s;c,o,3,3");
    cr_expect_eq(gv_tensor_shape(&t, &l, false, 1, shape), 4);
    cr_expect(shape[0] == 3 && shape[1] == 5 && shape[2] == 3 && shape[3] == 3);
    cr_expect_eq(gv_tensor_shape(&t, &l, true, 0, shape), 4);
    cr_expect(shape[0] == 2 && shape[1] == 5 && shape[2] == 9 && shape[3] == 9);
    cr_expect_float_eq(t.op->depth(&t), 27.0, 0);
}

static const gv_shape shapes_2d[] = {
    {4, {1, 1, 3, 1}}, {4, {2, 3, 7, 5}}, {4, {1, 16, 17, 8}}, {4, {1, 64, 9, 4}}};
static const gv_shape shapes_1d[] = {{4, {1, 1, 3, 1}}, {4, {2, 4, 100, 8}}, {4, {1, 32, 57, 4}}};
/* groups 4: c and o multiples of 4; depthwise: o a multiple of c; the 11 x 11 window at
   padding 2 needs a side of 7; window 3 at dilation 4 a length of 9 */
static const gv_shape shapes_g4[] = {
    {4, {1, 4, 1, 4}}, {4, {2, 8, 7, 12}}, {4, {1, 16, 17, 8}}, {4, {1, 64, 9, 4}}};
static const gv_shape shapes_dw[] = {
    {4, {1, 1, 3, 1}}, {4, {2, 3, 7, 6}}, {4, {1, 16, 17, 16}}, {4, {1, 8, 9, 24}}};
static const gv_shape shapes_k11[] = {
    {4, {1, 1, 7, 1}}, {4, {1, 3, 31, 4}}, {4, {2, 3, 20, 3}}, {4, {1, 3, 64, 2}}};
static const gv_shape shapes_1dd[] = {{4, {1, 1, 9, 1}}, {4, {2, 4, 100, 8}}, {4, {1, 32, 57, 4}}};
static const gv_shape shapes_3d[] = {{4, {1, 1, 3, 1}}, {4, {2, 3, 5, 4}}, {4, {1, 8, 9, 8}}};
/* ConvTranspose grows the output by 2 a side: smaller cubes */
static const gv_shape shapes_3dt[] = {{4, {1, 1, 1, 1}}, {4, {2, 3, 5, 4}}, {4, {1, 8, 7, 8}}};

Test(conv_model, correct_arithmetic_passes_on_every_dist_and_seed, .timeout = 300)
{
    const gv_dist dists[] = {GV_DIST_UNIFORM11, GV_DIST_UNIFORM01, GV_DIST_SMALLINT,
                             GV_DIST_OFFGRID, GV_DIST_WIDE};
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++) {
        const geom *g = &geoms[gi];
        const gv_shape *sh = g->volume        ? (g->tr ? shapes_3dt : shapes_3d)
                             : g->one_d       ? (dil_of(g) > 1 ? shapes_1dd : shapes_1d)
                             : g->groups == 4 ? shapes_g4
                             : g->groups == 0 ? shapes_dw
                             : g->kh == 11    ? shapes_k11
                                              : shapes_2d;
        size_t ns = g->one_d || g->volume ? 3 : 4;
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
                gv_result r = judge_sim(&geoms[G_K3], dt, gv_op_find(bugs[b].op)->default_dist,
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

/* conv.2d.valid.padded and conv.3d.flipped at their test shapes and the catalogue's, each
   dtype: O(1) of the terms moved where the model allows O(K u) */
Test(conv_model, planted_valid_and_3d_bugs_fail, .timeout = 120)
{
    const struct {
        const char *op;
        int g;
        enum variant v;
        gv_shape shapes[2];
    } bugs[] = {
        {"conv.2d.valid.padded", G_V3, V_PADDED, {{4, {2, 3, 7, 5}}, {4, {1, 16, 17, 8}}}},
        {"conv.3d.flipped", G_K3D, V_FLIPPED, {{4, {2, 3, 5, 4}}, {4, {1, 8, 9, 8}}}},
        {"conv.2d.transposed.noflip", G_T3, V_FLIPPED, {{4, {2, 3, 7, 5}}, {4, {1, 16, 17, 8}}}},
    };
    for (int b = 0; b < 3; b++)
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 2; s++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                const gv_op *op = gv_op_find(bugs[b].op);
                cr_assert_not_null(op, "%s", bugs[b].op);
                gv_result r = judge_sim(&geoms[bugs[b].g], dt, op->default_dist, bugs[b].shapes[s],
                                        1, bugs[b].v, bugs[b].op);
                cr_expect_eq(r.verdict, GV_FAIL, "%s %s shape %d: %s", bugs[b].op,
                             gv_dtype_name(dt), s, r.reason);
                cr_expect_gt(r.m.ratio, 16.0, "%s %s shape %d: ratio %.3g", bugs[b].op,
                             gv_dtype_name(dt), s, r.m.ratio);
            }
    /* f32 arithmetic inside an f64 case of conv.2d.valid, conv.1d.valid and conv.3d.valid:
       the model catches the downgrade without a bias term too */
    const int vg[] = {G_V3, G_C1DV, G_V3D};
    const gv_shape vs[] = {{4, {1, 64, 14, 8}}, {4, {2, 64, 100, 8}}, {4, {1, 32, 9, 4}}};
    for (int i = 0; i < 3; i++) {
        gv_result w = judge_sim(&geoms[vg[i]], GV_F64, GV_DIST_UNIFORM11, vs[i], 1, V_IN_F32, NULL);
        cr_expect_eq(w.verdict, GV_FAIL, "%s f32 in f64: %s", geoms[vg[i]].op, w.reason);
        cr_expect_gt(w.m.ratio, 1e3, "%s", geoms[vg[i]].op);
    }
}

/* Stride, dilation and groups: the tensors' shapes (grouped weights o x c / groups x 3 x 3) and
   sizes, and each planted bug at its test shapes and the catalogue's, each dtype, FAILs by far:
   a stride or dilation dropped moves every output's taps, a round-robin group mapping every
   output channel oc with oc / (o / groups) != oc mod groups. */
Test(conv_model, strided_dilated_grouped_layouts_and_planted_bugs_fail, .timeout = 120)
{
    gv_layout l;
    int64_t shape[8];
    gv_case g = gv_test_case("conv.2d.grouped", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){4, {2, 8, 7, 12}}, 1);
    cr_assert_eq(g.op->layout(&g, &l), GV_OK);
    cr_expect(l.n_in == 3 && l.in[1].count == 12 * 2 * 9 && l.out[0].count == 2 * 12 * 49);
    cr_expect_eq(gv_tensor_shape(&g, &l, false, 1, shape), 4);
    cr_expect(shape[0] == 12 && shape[1] == 2 && shape[2] == 3 && shape[3] == 3);
    cr_expect_float_eq(g.op->depth(&g), 19.0, 0);
    char why[256];
    cr_expect_eq(g.op->check_shape(&(gv_shape){4, {1, 6, 7, 8}}, why, sizeof why), GV_EINVAL,
                 "c = 6 is no multiple of 4 groups");
    cr_expect(strstr(why, "groups") != NULL, "%s", why);
    gv_case dw = gv_test_case("conv.2d.depthwise", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                              (gv_shape){4, {2, 3, 7, 6}}, 1);
    cr_assert_eq(dw.op->layout(&dw, &l), GV_OK);
    cr_expect(l.n_in == 2 && l.in[1].count == 6 * 9 && l.out[0].count == 2 * 6 * 25);
    cr_expect_eq(gv_tensor_shape(&dw, &l, false, 1, shape), 4);
    cr_expect(shape[0] == 6 && shape[1] == 1 && shape[2] == 3 && shape[3] == 3);
    cr_expect_float_eq(dw.op->depth(&dw), 9.0, 0);
    cr_expect_eq(dw.op->check_shape(&(gv_shape){4, {1, 4, 7, 6}}, why, sizeof why), GV_EINVAL,
                 "o = 6 is no multiple of c = 4");
    /* stride 2, padding 1: 18 -> 9; dilation 2, padding 2: 17 -> 17; AlexNet: 224 -> 55;
       window 3, stride 3, dilation 4: 100 -> 31 */
    const struct {
        const char *op;
        gv_shape s;
        int64_t out;
    } sizes[] = {{"conv.2d.strided", {4, {1, 16, 18, 8}}, 8 * 9 * 9},
                 {"conv.2d.dilated", {4, {1, 16, 17, 8}}, 8 * 17 * 17},
                 {"conv.2d.k11s4", {4, {1, 3, 224, 64}}, 64 * 55 * 55},
                 {"conv.1d.dilated", {4, {2, 4, 100, 8}}, 2 * 8 * 31}};
    for (int i = 0; i < 4; i++) {
        gv_case c =
            gv_test_case(sizes[i].op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, sizes[i].s, 1);
        cr_assert_eq(c.op->layout(&c, &l), GV_OK);
        cr_expect_eq(l.out[0].count, sizes[i].out, "%s", sizes[i].op);
    }

    const struct {
        const char *op;
        int g;
        enum variant v;
        gv_shape shapes[2];
    } bugs[] = {
        {"conv.2d.strided.stride1", G_S3, V_STRIDE1, {{4, {2, 3, 7, 5}}, {4, {1, 16, 18, 8}}}},
        {"conv.2d.dilated.nodil", G_D3, V_NODIL, {{4, {2, 3, 7, 5}}, {4, {1, 16, 17, 8}}}},
        {"conv.2d.grouped.groupmap", G_G3, V_GROUPMAP, {{4, {2, 8, 7, 12}}, {4, {1, 16, 17, 8}}}},
        {"conv.2d.depthwise.groupmap",
         G_DW3,
         V_GROUPMAP,
         {{4, {2, 3, 7, 6}}, {4, {1, 16, 17, 32}}}},
    };
    for (int b = 0; b < 4; b++)
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 2; s++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                const gv_op *op = gv_op_find(bugs[b].op);
                cr_assert_not_null(op, "%s", bugs[b].op);
                cr_expect_not_null(op->planted_bug);
                gv_result r = judge_sim(&geoms[bugs[b].g], dt, op->default_dist, bugs[b].shapes[s],
                                        1, bugs[b].v, bugs[b].op);
                cr_expect_eq(r.verdict, GV_FAIL, "%s %s shape %d: %s", bugs[b].op,
                             gv_dtype_name(dt), s, r.reason);
                cr_expect_gt(r.m.ratio, 16.0, "%s %s shape %d: ratio %.3g", bugs[b].op,
                             gv_dtype_name(dt), s, r.m.ratio);
            }
    /* f32 arithmetic inside an f64 case of the grouped and depthwise ops: K is c / groups
       there, and the model still catches the downgrade */
    gv_result w = judge_sim(&geoms[G_G3], GV_F64, GV_DIST_UNIFORM11, (gv_shape){4, {1, 64, 14, 8}},
                            1, V_IN_F32, NULL);
    cr_expect_eq(w.verdict, GV_FAIL, "grouped f32 in f64: %s", w.reason);
    gv_result wd = judge_sim(&geoms[G_DW3], GV_F64, GV_DIST_UNIFORM11,
                             (gv_shape){4, {1, 16, 30, 16}}, 1, V_IN_F32, NULL);
    cr_expect_eq(wd.verdict, GV_FAIL, "depthwise f32 in f64: %s", wd.reason);
}
