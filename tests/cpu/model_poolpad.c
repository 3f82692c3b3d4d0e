/* model_poolpad.c: pooling with a stride, zero padding and dilation (the poolpad family,
 * src/ops/poolpad.c and oracle/poolpad.c): the oracles against windows worked by hand, against
 * an explicitly padded and dilated copy of the input (sums in __float128), and against the
 * unpadded pool oracles where the geometry is theirs (stride = window, no padding or
 * dilation); the output sides against PyTorch's formula at KernelBench's sizes; and the
 * descriptors' models, by judging device results simulated on the CPU as
 * kernels/poolpad.cu's poolpad_kernel computes them: the max exact, the average's sum in
 * f32/f64 passing on every dist, the planted bugs (dilation ignored, padding ignored, the
 * count_include_pad=False divisor) and f32 arithmetic inside an f64 case failing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/registry.h"
#include "go.h"
#include "testkit.h"

enum variant { V_OK, V_NODIL, V_NOPAD, V_DIVISOR, V_IN_F32 };

typedef struct {
    int rank;
    int64_t k, s, p, dil;
} geom;

static double rnd(bool f32, double x)
{
    return f32 ? (double)(float)x : x;
}

/* poolpad_kernel's arithmetic over nc blocks of sides n (rank's, right-aligned into 3), max
   (mode 0) or average (mode 1) in f32 or f64, with a planted bug's variant */
static void sim_pool(const geom *g, int mode, bool f32, enum variant v, const double *x, int64_t nc,
                     const int64_t *sides, double *y)
{
    int64_t n[3] = {1, 1, 1}, o[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1},
            p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
    for (int r = 0; r < g->rank; r++) {
        const int a = 3 - g->rank + r;
        n[a] = sides[r];
        k[a] = g->k;
        s[a] = g->s;
        p[a] = v == V_NOPAD ? 0 : g->p;
        d[a] = v == V_NODIL ? 1 : g->dil;
        o[a] = go_poolpad_out(sides[r], g->k, g->s, g->p, g->dil);
    }
    const int64_t per = o[0] * o[1] * o[2], plane = n[0] * n[1] * n[2];
    for (int64_t q = 0; q < nc * per; q++) {
        const int64_t r = q % per, idx[3] = {r / (o[1] * o[2]), r / o[2] % o[1], r % o[2]};
        double acc = mode == 0 ? -INFINITY : 0.0;
        int64_t count = 0;
        for (int64_t a = 0; a < k[0]; a++)
            for (int64_t b = 0; b < k[1]; b++)
                for (int64_t c = 0; c < k[2]; c++) {
                    const int64_t z = idx[0] * s[0] - p[0] + a * d[0],
                                  row = idx[1] * s[1] - p[1] + b * d[1],
                                  col = idx[2] * s[2] - p[2] + c * d[2];
                    if (z < 0 || z >= n[0] || row < 0 || row >= n[1] || col < 0 || col >= n[2])
                        continue;
                    const double e = x[q / per * plane + (z * n[1] + row) * n[2] + col];
                    if (mode == 0)
                        acc = (e > acc || e != e) && acc == acc ? e : acc;
                    else
                        acc = count == 0 ? e : rnd(f32, acc + e);
                    count++;
                }
        const double div =
            v == V_DIVISOR ? (double)(count ? count : 1) : (double)(k[0] * k[1] * k[2]);
        y[q] = mode == 0 ? acc : rnd(f32, acc / div);
    }
}

/* The same pooling another way: the input copied into an array padded by p on every side
   (-inf for the max, 0 for the average), then every window read dilated from it with no bounds
   to check; the sums in __float128, divided by k^rank */
static void padded_pool(const geom *g, bool max, const double *x, int64_t nc, const int64_t *sides,
                        double *y)
{
    int64_t n[3] = {1, 1, 1}, pn[3] = {1, 1, 1}, o[3] = {1, 1, 1}, pad[3] = {0, 0, 0};
    for (int r = 0; r < g->rank; r++) {
        const int a = 3 - g->rank + r;
        n[a] = sides[r];
        pad[a] = g->p;
        pn[a] = sides[r] + 2 * g->p;
        o[a] = (pn[a] - g->dil * (g->k - 1) - 1) / g->s + 1;
    }
    double *xp = gv_test_alloc(pn[0] * pn[1] * pn[2]);
    const int64_t kd = g->rank == 3 ? g->k : 1, kh = g->rank >= 2 ? g->k : 1;
    int64_t out = 0;
    for (int64_t q = 0; q < nc; q++) {
        for (int64_t i = 0; i < pn[0] * pn[1] * pn[2]; i++)
            xp[i] = max ? -INFINITY : 0.0;
        for (int64_t a = 0; a < n[0]; a++)
            for (int64_t b = 0; b < n[1]; b++)
                for (int64_t c = 0; c < n[2]; c++)
                    xp[((a + pad[0]) * pn[1] + b + pad[1]) * pn[2] + c + pad[2]] =
                        x[((q * n[0] + a) * n[1] + b) * n[2] + c];
        for (int64_t i = 0; i < o[0]; i++)
            for (int64_t j = 0; j < o[1]; j++)
                for (int64_t l = 0; l < o[2]; l++) {
                    double m = -INFINITY;
                    __float128 sum = 0;
                    for (int64_t a = 0; a < kd; a++)
                        for (int64_t b = 0; b < kh; b++)
                            for (int64_t c = 0; c < g->k; c++) {
                                const int64_t s0 = g->rank == 3 ? g->s : 1,
                                              s1 = g->rank >= 2 ? g->s : 1;
                                const int64_t d0 = g->rank == 3 ? g->dil : 1,
                                              d1 = g->rank >= 2 ? g->dil : 1;
                                const double e =
                                    xp[((i * s0 + a * d0) * pn[1] + j * s1 + b * d1) * pn[2] +
                                       l * g->s + c * g->dil];
                                m = isnan(m) || isnan(e) ? NAN : (e > m ? e : m);
                                sum += e;
                            }
                    y[out++] = max ? m : (double)(sum / (__float128)(kd * kh * g->k));
                }
    }
    free(xp);
}

Test(poolpad_oracle, windows_by_hand)
{
    /* x = 1..5, window 2, stride 1, padding 1: windows {1}, {1,2}, ..., {4,5}, {5}; 6 outputs */
    const double x[5] = {1, 2, 3, 4, 5};
    const int64_t five[1] = {5};
    double y[6];
    cr_assert_eq(go_poolpad_out(5, 2, 1, 1, 1), 6);
    cr_assert_eq(go_poolpad_max(1, 1, five, 2, 1, 1, 1, x, y), 0);
    const double mx[6] = {1, 2, 3, 4, 5, 5}, av[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 2.5};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(y[i], mx[i], "max %d: %g", i, y[i]);
    cr_assert_eq(go_poolpad_avg(1, 1, five, 2, 1, 1, 1, x, y), 0);
    for (int i = 0; i < 6; i++)
        cr_expect_eq(y[i], av[i], "avg %d: %g (the padded zero counted)", i, y[i]);
    /* window 2, stride 2, padding 1, dilation 2: starts -1, 1, 3 read {-1, 1}, {1, 3},
       {3, 5}: the elements 2; 2, 4; 4 (positions 5 and -1 padding) */
    cr_assert_eq(go_poolpad_out(5, 2, 2, 1, 2), 3);
    cr_assert_eq(go_poolpad_max(1, 1, five, 2, 2, 1, 2, x, y), 0);
    cr_expect(y[0] == 2 && y[1] == 4 && y[2] == 4, "max %g %g %g", y[0], y[1], y[2]);
    cr_assert_eq(go_poolpad_avg(1, 1, five, 2, 2, 1, 2, x, y), 0);
    cr_expect(y[0] == 1 && y[1] == 3 && y[2] == 2, "avg %g %g %g", y[0], y[1], y[2]);
    const double nanx[5] = {1, NAN, 3, 4, 5};
    cr_assert_eq(go_poolpad_max(1, 1, five, 2, 2, 1, 2, nanx, y), 0);
    cr_expect(isnan(y[0]) && isnan(y[1]) && y[2] == 4, "a NaN stays in its windows only");
    cr_expect_lt(go_poolpad_max(1, 1, five, 2, 1, 2, 1, x, y), 0, "padding over k / 2");
    cr_expect_lt(go_poolpad_max(1, 1, five, 8, 1, 0, 1, x, y), 0, "no window fits");
    cr_expect_lt(go_poolpad_avg(4, 1, five, 2, 1, 1, 1, x, y), 0, "rank 4");
}

/* KernelBench's geometries (abi/poolpad.h) and a few of their own */
static const geom GEOMS[] = {{1, 8, 1, 4, 3}, {2, 4, 1, 1, 1}, {3, 3, 2, 1, 3}, {1, 8, 1, 4, 1},
                             {3, 3, 2, 1, 1}, {2, 3, 2, 1, 2}, {1, 5, 3, 2, 2}};

Test(poolpad_oracle, against_an_explicitly_padded_copy)
{
    const int64_t sides[3][3] = {{1001, 0, 0}, {13, 17, 0}, {11, 9, 14}};
    for (size_t gi = 0; gi < sizeof GEOMS / sizeof GEOMS[0]; gi++) {
        const geom *g = &GEOMS[gi];
        const int64_t *sz = sides[g->rank - 1], nc = 3;
        int64_t in = nc, out = nc;
        for (int r = 0; r < g->rank; r++) {
            in *= sz[r];
            out *= go_poolpad_out(sz[r], g->k, g->s, g->p, g->dil);
        }
        double *x = gv_test_matrix(1, in, in, 70 + gi, 0), *y = gv_test_alloc(out),
               *r = gv_test_alloc(out), *gg = gv_test_alloc(out);
        x[5] = NAN;
        for (int max = 0; max < 2; max++) {
            cr_assert_eq((max ? go_poolpad_max : go_poolpad_avg)(g->rank, nc, sz, g->k, g->s, g->p,
                                                                 g->dil, x, y),
                         0);
            padded_pool(g, max, x, nc, sz, r);
            for (int64_t i = 0; i < out; i++)
                cr_expect(max || isnan(r[i]) ? (isnan(y[i]) && isnan(r[i])) || y[i] == r[i]
                                             : fabs(y[i] - r[i]) <= 0x1p-52 * fabs(r[i]),
                          "geometry %zu %s output %lld: %.17g against %.17g", gi,
                          max ? "max" : "avg", (long long)i, y[i], r[i]);
        }
        x[5] = 0.25;
        cr_assert_eq(go_poolpad_avg(g->rank, nc, sz, g->k, g->s, g->p, g->dil, x, y), 0);
        cr_assert_eq(go_poolpad_avg_gauge(g->rank, nc, sz, g->k, g->s, g->p, g->dil, x, gg), 0);
        for (int64_t i = 0; i < out; i++)
            cr_expect(gg[i] >= fabs(y[i]), "gauge >= |y| at %lld", (long long)i);
        free(x);
        free(y);
        free(r);
        free(gg);
    }
}

Test(poolpad_oracle, stride_window_no_padding_is_pool)
{
    const int64_t l[1] = {1001}, v[3] = {7, 9, 9};
    double *x = gv_test_matrix(1, 3 * 1001, 3 * 1001, 77, 0), y[3 * 1001], r[3 * 1001];
    cr_assert_eq(go_poolpad_max(1, 3, l, 3, 3, 0, 1, x, y), 0);
    cr_assert_eq(go_pool_max1d(3, l, 3, x, r), 0);
    for (int i = 0; i < 3 * 333; i++)
        cr_expect_eq(y[i], r[i], "max1d %d", i);
    cr_assert_eq(go_poolpad_avg(1, 3, l, 3, 3, 0, 1, x, y), 0);
    cr_assert_eq(go_pool_avg1d(3, l, 3, x, r), 0);
    for (int i = 0; i < 3 * 333; i++)
        cr_expect_eq(y[i], r[i], "avg1d %d", i);
    cr_assert_eq(go_poolpad_avg(3, 3, v, 2, 2, 0, 1, x, y), 0);
    cr_assert_eq(go_pool_avg3d(3, v, 2, x, r), 0);
    for (int i = 0; i < 3 * 3 * 4 * 4; i++)
        cr_expect_eq(y[i], r[i], "avg3d %d", i);
    free(x);
}

/* The output's shape at KernelBench's sizes, by PyTorch's formula worked out: 41: 65536 + 8 -
   3 * 7 - 1 = 65522, + 1; 42: 512 + 2 - 3 - 1 = 510, + 1; 43: (128 + 2 - 6 - 1) / 2 = 61, + 1;
   44: 65536 + 8 - 7 - 1 = 65536, + 1; 46: (128 + 2 - 2 - 1) / 2 = 63, + 1, (256 - 1) / 2 + 1. */
Test(poolpad_model, output_shapes_at_kernelbench_sizes)
{
    struct {
        const char *op;
        gv_shape s;
        int64_t out[4];
    } t[] = {
        {"pool.max1d.k8s1p4d3", {2, {12288, 65536}}, {12288, 65523}},
        {"pool.max2d.k4s1p1", {3, {2048, 512, 512}}, {2048, 511, 511}},
        {"pool.max3d.k3s2p1d3", {4, {512, 128, 128, 128}}, {512, 62, 62, 62}},
        {"pool.avg1d.k8s1p4", {2, {8192, 65536}}, {8192, 65537}},
        {"pool.avg3d.k3s2p1", {4, {512, 128, 128, 256}}, {512, 64, 64, 128}},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        gv_case c = gv_test_case(t[i].op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, t[i].s, 1);
        char why[256] = "";
        cr_expect_eq(c.op->check_shape(&t[i].s, why, sizeof why), GV_OK, "%s: %s", t[i].op, why);
        cr_expect_str_eq(c.op->family, "poolpad");
        int64_t shape[8];
        cr_assert_eq(c.op->tensor_shape(&c, NULL, true, 0, shape), t[i].s.nd);
        for (int d = 0; d < t[i].s.nd; d++)
            cr_expect_eq(shape[d], t[i].out[d], "%s dim %d: %lld", t[i].op, d, (long long)shape[d]);
    }
    /* one window must fit: 41's dilated window spans 22, so a row of 13 gives nothing */
    const gv_shape small = {2, {4, 13}};
    char why[256] = "";
    cr_expect_eq(gv_op_find("pool.max1d.k8s1p4d3")->check_shape(&small, why, sizeof why),
                 GV_EINVAL);
    cr_expect(strstr(why, "at least 14") != NULL, "%s", why);
}

static gv_result judge_sim(const char *op, const geom *g, gv_dtype t, gv_dist dist, gv_shape s,
                           enum variant v)
{
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, dist, s, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    const bool max = c.op->exact != NULL, f32 = t == GV_F32 || v == V_IN_F32;
    double *y = gv_test_alloc(p.out[0].count);
    sim_pool(g, max ? 0 : 1, f32, v, p.in[0].ref, s.d[0], s.d + 1, y);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s variant %d: %s ratio %.3g %s", op, gv_dtype_name(t), gv_dist_name(dist),
                (int)v, gv_verdict_name(r.verdict), r.m.ratio, r.reason);
    return r;
}

static const struct {
    const char *op, *bug;
    enum variant v;
    gv_shape shapes[3];
} OPS[] = {
    {"pool.max1d.k8s1p4d3",
     "pool.max1d.k8s1p4d3.nodil",
     V_NODIL,
     {{2, {1, 14}}, {2, {3, 30}}, {2, {16, 1001}}}},
    {"pool.max2d.k4s1p1",
     "pool.max2d.k4s1p1.nopad",
     V_NOPAD,
     {{3, {1, 2, 2}}, {3, {3, 7, 5}}, {3, {16, 33, 31}}}},
    {"pool.max3d.k3s2p1d3",
     "pool.max3d.k3s2p1d3.nodil",
     V_NODIL,
     {{4, {1, 5, 5, 5}}, {4, {3, 7, 9, 6}}, {4, {16, 9, 13, 11}}}},
    {"pool.avg1d.k8s1p4",
     "pool.avg1d.k8s1p4.divisor",
     V_DIVISOR,
     {{2, {1, 1}}, {2, {3, 7}}, {2, {16, 1001}}}},
    {"pool.avg3d.k3s2p1",
     "pool.avg3d.k3s2p1.divisor",
     V_DIVISOR,
     {{4, {1, 3, 3, 3}}, {4, {3, 7, 5, 4}}, {4, {16, 9, 13, 11}}}},
};

Test(poolpad_model, correct_arithmetic_passes_on_every_dist, .timeout = 240)
{
    const gv_dist dists[] = {GV_DIST_UNIFORM11,      GV_DIST_UNIFORM01, GV_DIST_WIDE,
                             GV_DIST_OFFGRID,        GV_DIST_TINY,      GV_DIST_HUGE,
                             GV_DIST_SPARSE_SPECIAL, GV_DIST_SMALLINT,  GV_DIST_SPECIAL};
    for (int o = 0; o < 5; o++)
        for (int sh = 0; sh < 3; sh++)
            for (size_t di = 0; di < sizeof dists / sizeof dists[0]; di++)
                for (int t = 0; t < 2; t++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    gv_result r =
                        judge_sim(OPS[o].op, &GEOMS[o], dt, dists[di], OPS[o].shapes[sh], V_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %s shape %d: %s", OPS[o].op,
                                 gv_dtype_name(dt), gv_dist_name(dists[di]), sh, r.reason);
                }
}

Test(poolpad_model, planted_bugs_and_wrong_precision_fail, .timeout = 120)
{
    for (int o = 0; o < 5; o++)
        for (int t = 0; t < 2; t++) {
            gv_dtype dt = t ? GV_F64 : GV_F32;
            const gv_op *op = gv_op_find(OPS[o].bug);
            cr_assert_not_null(op, "%s", OPS[o].bug);
            cr_expect_not_null(op->planted_bug);
            for (int sh = 1; sh < 3; sh++) {
                gv_result r = judge_sim(OPS[o].bug, &GEOMS[o], dt, op->default_dist,
                                        OPS[o].shapes[sh], OPS[o].v);
                cr_expect_eq(r.verdict, GV_FAIL, "%s %s shape %d: %s", OPS[o].bug,
                             gv_dtype_name(dt), sh, r.reason);
            }
        }
    for (int o = 3; o < 5; o++) {
        gv_result r =
            judge_sim(OPS[o].op, &GEOMS[o], GV_F64, GV_DIST_UNIFORM11, OPS[o].shapes[2], V_IN_F32);
        cr_expect_eq(r.verdict, GV_FAIL, "%s f32 in f64: %s", OPS[o].op, r.reason);
    }
}
