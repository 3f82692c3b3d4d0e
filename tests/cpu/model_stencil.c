/* model_stencil.c: the error model of src/ops/stencil.c (gauge >= |r|; a CPU emulation of
 * the f32 kernels stays within it; f32 arithmetic in an f64 case and a wrong edge blow it
 * up), the descriptors' depth and layout, and the catalogue's grids. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

enum { LAPLACE = 0, FIXED = 1, PERIODIC = 2 };

/* ---- the error model, through the op descriptors ------------------------------------- */

/* The kernels' arithmetic in T, in their order (no fused multiply-add: a CPU build rounds
 * every operation, which the model counts anyway). bug: the planted edges. */
#define DEFINE_SWEEP(T, NAME)                                                                      \
    static void NAME(int scheme, bool bug, int64_t ny, int64_t nx, const T *x, T *y)               \
    {                                                                                              \
        for (int64_t i = 0; i < ny; i++)                                                           \
            for (int64_t j = 0; j < nx; j++) {                                                     \
                const T *row = x + i * nx;                                                         \
                T f = row[j];                                                                      \
                if (scheme == PERIODIC) {                                                          \
                    T up = x[((i + ny - 1) % ny) * nx + j], down = x[((i + 1) % ny) * nx + j];     \
                    T left = row[(j + nx - 1) % nx];                                               \
                    T right = j < nx - 1 ? row[j + 1] : bug ? row[nx - 1] : row[0];                \
                    T s = up + down;                                                               \
                    s += left;                                                                     \
                    s += right;                                                                    \
                    T lap = s - (T)4 * f;                                                          \
                    y[i * nx + j] = f + (T)0.1 * lap;                                              \
                    continue;                                                                      \
                }                                                                                  \
                T v = (T)4 * f;                                                                    \
                if (i > 0) v -= x[(i - 1) * nx + j];                                               \
                if (j > 0) v -= row[j - 1];                                                        \
                if (i < ny - 1) v -= x[(i + 1) * nx + j];                                          \
                if (j < nx - 1)                                                                    \
                    v -= row[j + 1];                                                               \
                else if (bug)                                                                      \
                    v -= row[0];                                                                   \
                y[i * nx + j] = scheme == LAPLACE ? v : f - (T)0.25 * v;                           \
            }                                                                                      \
    }
DEFINE_SWEEP(float, sweep_f32)
DEFINE_SWEEP(double, sweep_f64)

typedef enum emulation { AS_DTYPE, F32_IN_F64, WRONG_EDGE } emulation;

/* Build the case, run the oracle, emulate the device into out[0].data, and compare as
 * gv_judge_problem does (default tiers; m->ratio is max |c - r| / (u g d)). */
static void emulated_metrics(const char *op_name, gv_dtype t, gv_dist dist, int64_t ny, int64_t nx,
                             int64_t steps, emulation how, gv_metrics *m)
{
    const gv_op *op = gv_op_find(op_name);
    cr_assert_not_null(op, "%s registered", op_name);
    gv_case c = {op, t, GV_MODE_NATIVE, dist, {2, {ny, nx}}, 11};
    if (strcmp(op_name, "stencil.laplace") != 0) {
        c.shape.nd = 3;
        c.shape.d[2] = steps;
    }
    int scheme = strncmp(op_name, "stencil", 7) == 0 ? LAPLACE
                 : strstr(op_name, "periodic")       ? PERIODIC
                                                     : FIXED;
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    int64_t n = ny * nx, nsteps = scheme == LAPLACE ? 1 : steps;
    bool bug = how == WRONG_EDGE;
    if (t == GV_F32 || how == F32_IN_F64) {
        float *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
        cr_assert(a && b);
        for (int64_t i = 0; i < n; i++)
            a[i] = (float)p.in[0].ref[i];
        for (int64_t k = 0; k < nsteps; k++) {
            sweep_f32(scheme, bug, ny, nx, a, b);
            float *tmp = a;
            a = b;
            b = tmp;
        }
        for (int64_t i = 0; i < n; i++) {
            if (t == GV_F32)
                ((float *)p.out[0].data)[i] = a[i];
            else
                ((double *)p.out[0].data)[i] = a[i];
        }
        free(a);
        free(b);
    } else {
        double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
        cr_assert(a && b);
        memcpy(a, p.in[0].ref, (size_t)n * sizeof *a);
        for (int64_t k = 0; k < nsteps; k++) {
            sweep_f64(scheme, bug, ny, nx, a, b);
            double *tmp = a;
            a = b;
            b = tmp;
        }
        memcpy(p.out[0].data, a, (size_t)n * sizeof *a);
        free(a);
        free(b);
    }
    for (int64_t i = 0; i < n; i++)
        cr_assert_geq(p.out[0].gauge[i], fabs(p.out[0].ref[i]), "%s: gauge < |r| at %lld", op_name,
                      (long long)i);
    gv_error_model em = {
        .gauge = p.out[0].gauge, .depth = op->depth(&c), .u = gv_unit_roundoff(t, GV_MODE_NATIVE)};
    gv_compare(p.out[0].data, t, p.out[0].ref, n, &gv_default_tiers, &em,
               gv_mode_precision_bits(t, GV_MODE_NATIVE), m);
    cr_assert_eq(m->poisoned, 0);
    cr_assert_eq(m->nonfinite_mismatches, 0);
    gv_problem_free(&p);
}

static double emulated_ratio(const char *op_name, gv_dtype t, gv_dist dist, int64_t ny, int64_t nx,
                             int64_t steps, emulation how)
{
    gv_metrics m;
    emulated_metrics(op_name, t, dist, ny, nx, steps, how, &m);
    return m.ratio;
}

static const char *const stencil_ops[] = {"stencil.laplace", "diffusion.fixed",
                                          "diffusion.periodic"};

Test(stencil, emulated_f32_kernels_stay_within_the_model)
{
    const int64_t shapes[][3] = {{1, 1, 1},   {1, 97, 5},   {97, 1, 5},
                                 {37, 53, 1}, {37, 53, 50}, {64, 64, 300}};
    for (int o = 0; o < 3; o++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int d = 0; d < 2; d++) {
                gv_dist dist = d ? GV_DIST_UNIFORM11 : GV_DIST_UNIFORM01;
                double r = emulated_ratio(stencil_ops[o], GV_F32, dist, shapes[s][0], shapes[s][1],
                                          shapes[s][2], AS_DTYPE);
                /* first-order rigorous bound: the ratio of a correct f32 run is at most 1 */
                cr_expect_leq(r, 1.0, "%s %lldx%lldx%lld %s: ratio %.3g", stencil_ops[o],
                              (long long)shapes[s][0], (long long)shapes[s][1],
                              (long long)shapes[s][2], gv_dist_name(dist), r);
            }
}

/* The f32 expected tier 1e-4 (allclose |c - r| <= t (1 + |r|)) holds for the kernels'
 * arithmetic with signed inputs, the ops' default, as with uniform [0, 1): signed fields
 * decay as they diffuse, and their rounding errors with them (measured: worst 1.7e-7 either
 * way). Shapes from the test catalogue, the longest run included. f64 is not emulated here:
 * in the kernels' order it reproduces the oracle bit for bit. */
Test(stencil, emulated_kernels_meet_the_expected_tier_with_signed_inputs, .timeout = 120)
{
    const int64_t shapes[][3] = {{37, 53, 50}, {256, 256, 1000}, {511, 1025, 10}, {1999, 2003, 3}};
    for (int o = 0; o < 3; o++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int d = 0; d < 2; d++) {
                gv_dist dist = d ? GV_DIST_UNIFORM11 : GV_DIST_UNIFORM01;
                gv_metrics m;
                emulated_metrics(stencil_ops[o], GV_F32, dist, shapes[s][0], shapes[s][1],
                                 shapes[s][2], AS_DTYPE, &m);
                const int k = 1; /* gv_default_tiers = {1e-8, 1e-4}: f32's expected tier */
                double worst = m.worst_index < 0
                                   ? 0
                                   : fabs(m.worst_value - m.worst_ref) / (1 + fabs(m.worst_ref));
                cr_log_info("%s f32 %lldx%lldx%lld %s: worst allclose %.3g", stencil_ops[o],
                            (long long)shapes[s][0], (long long)shapes[s][1],
                            (long long)shapes[s][2], gv_dist_name(dist), worst);
                cr_expect(gv_tier_met(&m, k),
                          "%s f32 %lldx%lldx%lld %s: %lld elements miss %.0e (worst %.3g)",
                          stencil_ops[o], (long long)shapes[s][0], (long long)shapes[s][1],
                          (long long)shapes[s][2], gv_dist_name(dist), (long long)m.mismatches[k],
                          gv_default_tiers.t[k], worst);
            }
}

Test(stencil, f64_case_computed_in_f32_fails_the_model)
{
    for (int o = 0; o < 3; o++) {
        double r =
            emulated_ratio(stencil_ops[o], GV_F64, GV_DIST_UNIFORM01, 37, 53, 100, F32_IN_F64);
        cr_expect_gt(r, 1e3, "%s: f32 arithmetic in an f64 case gives ratio %.3g", stencil_ops[o],
                     r);
    }
    /* and the f64 arithmetic itself, in the kernels' order, is within it */
    for (int o = 0; o < 3; o++) {
        double r = emulated_ratio(stencil_ops[o], GV_F64, GV_DIST_UNIFORM11, 37, 53, 100, AS_DTYPE);
        cr_expect_leq(r, 1.0, "%s f64: ratio %.3g", stencil_ops[o], r);
    }
}

Test(stencil, wrong_edges_fail_the_model)
{
    /* the planted variants' test shapes, with both the signed default and [0, 1) */
    const int64_t shapes[][3] = {{1, 1, 1}, {37, 53, 1}, {37, 53, 50}, {300, 257, 20}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 2; t++)
            for (int d = 0; d < 2; d++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_dist dist = d ? GV_DIST_UNIFORM11 : GV_DIST_UNIFORM01;
                double r = emulated_ratio("diffusion.fixed", dt, dist, shapes[s][0], shapes[s][1],
                                          shapes[s][2], WRONG_EDGE);
                cr_expect_gt(r, 16.0, "fixed edge wrapped, %lldx%lldx%lld %s: ratio %.3g",
                             (long long)shapes[s][0], (long long)shapes[s][1],
                             (long long)shapes[s][2], gv_dist_name(dist), r);
                if (shapes[s][1] == 1) continue; /* one column: clamping and wrapping agree */
                r = emulated_ratio("diffusion.periodic", dt, dist, shapes[s][0], shapes[s][1],
                                   shapes[s][2], WRONG_EDGE);
                cr_expect_gt(r, 16.0, "periodic edge clamped, %lldx%lldx%lld %s: ratio %.3g",
                             (long long)shapes[s][0], (long long)shapes[s][1],
                             (long long)shapes[s][2], gv_dist_name(dist), r);
            }
}

Test(stencil, depth_layout_and_planted_variants)
{
    const gv_op *fixed = gv_op_find("diffusion.fixed"), *per = gv_op_find("diffusion.periodic");
    const gv_op *lap = gv_op_find("stencil.laplace");
    cr_assert(fixed && per && lap);
    gv_case c = {fixed, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {3, {640, 640, 1000}}, 1};
    cr_expect_eq(fixed->depth(&c), 4000.0);
    c.op = per;
    cr_expect_eq(per->depth(&c), 3000.0);
    gv_layout l;
    cr_assert_eq(per->layout(&c, &l), GV_OK);
    cr_expect_eq(l.workspace_bytes, 640 * 640 * 4, "N > 1 ping-pongs through one grid");
    c.shape.d[2] = 1;
    cr_assert_eq(per->layout(&c, &l), GV_OK);
    cr_expect_eq(l.workspace_bytes, 0);
    gv_case cl = {lap, GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {2, {9, 9}}, 1};
    cr_expect_eq(lap->depth(&cl), 4.0);
    const gv_op *b1 = gv_op_find("diffusion.fixed.edge"),
                *b2 = gv_op_find("diffusion.periodic.clamp");
    cr_assert(b1 && b2);
    cr_expect_not_null(b1->planted_bug);
    cr_expect_not_null(b2->planted_bug);
    /* signed inputs by default, planted variants included (wrong_edges_fail_the_model shows
     * the wrong edges still fail with them) */
    const gv_op *all[] = {lap, fixed, per, b1, b2};
    for (int i = 0; i < 5; i++)
        cr_expect_eq(all[i]->default_dist, GV_DIST_UNIFORM11, "%s", all[i]->name);
    char why[256] = "";
    gv_shape big = {3, {70000, 70000, 1}}, many = {3, {10, 10, 200000}}, ok = {3, {37, 53, 50}};
    cr_expect_not(gv_shape_ok(fixed, &big, why, sizeof why));
    cr_expect_neq(why[0], '\0');
    cr_expect_not(gv_shape_ok(per, &many, why, sizeof why));
    cr_expect(gv_shape_ok(fixed, &ok, why, sizeof why), "%s", why);
}

/* ---- the catalogue ----------------------------------------------------------------------- */

static bool non_square(const gv_shape *s)
{
    return s->d[0] != s->d[1];
}

/* a grid whose sides are both past a warp and off every power-of-two tile */
static bool non_square_tails(const gv_shape *s)
{
    return s->d[0] != s->d[1] && s->d[0] > 32 && s->d[1] > 32 && s->d[0] % 2 && s->d[1] % 2;
}

Test(stencil, catalogues_have_non_square_grids_with_tails)
{
    const char *const ops[] = {"stencil.laplace", "diffusion.fixed", "diffusion.periodic"};
    for (int o = 0; o < 3; o++)
        for (int t = 0; t < 2; t++) {
            cr_expect_gt(gv_test_catalogue_count(ops[o], t, non_square_tails), 0,
                         "%s %s: no odd non-square grid", ops[o], t ? "test_shapes" : "shapes");
        }
    const char *const planted[] = {"diffusion.fixed.edge", "diffusion.periodic.clamp"};
    for (int o = 0; o < 2; o++)
        for (int t = 0; t < 2; t++)
            cr_expect_gt(gv_test_catalogue_count(planted[o], t, non_square), 0, "%s", planted[o]);
}
