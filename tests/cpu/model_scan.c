/* model_scan.c: scan.cumsum's and scan.cumprod's descriptors (src/ops/scan.c) and error
 * models, by judging device results simulated on the CPU in the kernel's order
 * (kernels/scan.cu: each thread's running sum or product of 4 elements, Hillis-Steele scans
 * across the lanes and the warps, tiles offset by a carry): correct f32/f64 arithmetic must
 * pass; the planted bugs (exclusive, no carry) and f32 arithmetic inside an f64 case must
 * fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/scan.h"
#include "core/registry.h"
#include "testkit.h"

enum variant { V_OK, V_EXCLUSIVE, V_NOCARRY, V_IN_F32 };

static double rnd(bool f32, double x)
{
    return f32 ? (double)(float)x : x;
}

/* The scan's operation (cumprod: *, else +), rounded as the dtype's arithmetic rounds it: the
   product of two f32 values is exact in f64, so rounding it to f32 is the f32 product. */
static bool prod;

static double op2(bool f32, double a, double b)
{
    return rnd(f32, prod ? a * b : a + b);
}

/* Inclusive Hillis-Steele scan of v[0..lanes) as __shfl_up_sync gives it: every lane reads
   its partner's value of the previous level. */
static void lane_scan(bool f32, double *v, int lanes)
{
    double prev[32];
    for (int off = 1; off < lanes; off <<= 1) {
        memcpy(prev, v, sizeof prev);
        for (int l = off; l < lanes; l++)
            v[l] = op2(f32, prev[l - off], prev[l]);
    }
}

static void sim_row(bool f32, enum variant var, const double *x, int64_t n, double *y)
{
    enum { E = GK_SCAN_PER_THREAD, T = GK_SCAN_THREADS, W = GK_SCAN_THREADS / 32 };
    const double one = prod ? 1.0 : 0.0; /* the identity */
    double carry = one;
    for (int64_t base = 0; base < n; base += GK_SCAN_TILE) {
        static double local[GK_SCAN_THREADS][GK_SCAN_PER_THREAD];
        double lane_incl[T], lane_excl[T], warp_tot[32], warp_excl[W];
        for (int w = 0; w < 32; w++)
            warp_tot[w] = one;
        for (int t = 0; t < T; t++)
            for (int p = 0; p < E; p++) {
                int64_t i = base + (int64_t)t * E + p;
                double v = i < n ? x[i] : one;
                local[t][p] = p == 0 ? v : op2(f32, local[t][p - 1], v);
            }
        for (int w = 0; w < W; w++) {
            double v[32];
            for (int l = 0; l < 32; l++)
                v[l] = local[32 * w + l][E - 1];
            lane_scan(f32, v, 32);
            for (int l = 0; l < 32; l++) {
                lane_incl[32 * w + l] = v[l];
                lane_excl[32 * w + l] = l == 0 ? one : v[l - 1];
            }
            warp_tot[w] = v[31];
        }
        lane_scan(f32, warp_tot, W);
        for (int w = 0; w < W; w++)
            warp_excl[w] = w == 0 ? one : warp_tot[w - 1];
        for (int t = 0; t < T; t++) {
            double offset = op2(f32, warp_excl[t / 32], lane_excl[t]);
            double start = var == V_NOCARRY ? offset : op2(f32, carry, offset);
            for (int p = 0; p < E; p++) {
                int64_t i = base + (int64_t)t * E + p;
                if (i >= n) break;
                if (var == V_EXCLUSIVE)
                    y[i] = p == 0 ? start : op2(f32, start, local[t][p - 1]);
                else
                    y[i] = op2(f32, start, local[t][p]);
            }
        }
        (void)lane_incl;
        carry = op2(f32, carry, warp_tot[W - 1]);
    }
}

static gv_result judge_sim(const char *op, gv_dtype t, gv_dist dist, int64_t m, int64_t n,
                           enum variant v)
{
    prod = strncmp(op, "scan.cumprod", 12) == 0;
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, dist, (gv_shape){2, {m, n}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *y = gv_test_alloc(m * n);
    bool f32 = t == GV_F32 || v == V_IN_F32;
    for (int64_t i = 0; i < m; i++)
        sim_row(f32, v, p.in[0].ref + i * n, n, y + i * n);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %lldx%lld variant %d: %s ratio %.3g %s", op, gv_dtype_name(t),
                gv_dist_name(dist), (long long)m, (long long)n, (int)v, gv_verdict_name(r.verdict),
                r.m.ratio, r.reason);
    return r;
}

Test(scan_model, registered_with_dims_depths_and_planted_bugs)
{
    const gv_op *op = gv_op_find("scan.cumsum");
    cr_assert_not_null(op);
    cr_expect_str_eq(op->family, "scan");
    cr_expect_str_eq(op->dims, "m,n");
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE));
    cr_expect(gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    cr_expect_null(op->planted_bug);
    cr_expect_null(op->pgauge, "a row's errors are correlated: no probabilistic model");
    /* 4 + 9 + tiles (abi/scan.h) */
    cr_expect_eq(gk_scan_depth(1), 14);
    cr_expect_eq(gk_scan_depth(1024), 14);
    cr_expect_eq(gk_scan_depth(1025), 15);
    cr_expect_eq(gk_scan_depth(65536), 77);
    gv_case c = gv_test_case("scan.cumsum", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){2, {3, 4097}}, 1);
    cr_expect_float_eq(op->depth(&c), 18.0, 0);
    cr_expect_float_eq(op->order_free_depth(&c), 4097.0, 0);
    const char *bugs[] = {"scan.cumsum.exclusive", "scan.cumsum.nocarry"};
    for (int i = 0; i < 2; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
        cr_expect_str_eq(b->family, "scan");
    }
    /* the dropped carry shows only past the first tile */
    gv_shape s[8];
    char err[128];
    int ns =
        gv_size_spec_parse(gv_op_find("scan.cumsum.nocarry")->test_shapes, s, 8, err, sizeof err);
    cr_assert_gt(ns, 0, "%s", err);
    for (int i = 0; i < ns; i++)
        cr_expect_gt(s[i].d[1], GK_SCAN_TILE);
}

Test(scan_model, correct_arithmetic_passes_inside_the_bound, .timeout = 240)
{
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {33, 100}, {16, 1000}, {7, 1025}, {2, 65536}};
    const gv_dist dists[] = {GV_DIST_UNIFORM11, GV_DIST_UNIFORM01, GV_DIST_WIDE, GV_DIST_SMALLINT};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int t = 0; t < 2; t++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result r =
                    judge_sim("scan.cumsum", dt, dists[d], shapes[sh][0], shapes[sh][1], V_OK);
                cr_expect_eq(r.verdict, GV_PASS, "%s %lldx%lld %s: %s", gv_dtype_name(dt),
                             (long long)shapes[sh][0], (long long)shapes[sh][1],
                             gv_dist_name(dists[d]), r.reason);
                cr_expect_leq(r.m.ratio, 1.0, "ratio %.3g", r.m.ratio);
            }
}

Test(scan_model, edge_inputs_pass, .timeout = 120)
{
    const gv_dist dists[] = {GV_DIST_TINY, GV_DIST_HUGE, GV_DIST_SPARSE_SPECIAL, GV_DIST_SPECIAL};
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
        for (int t = 0; t < 2; t++) {
            gv_dtype dt = t ? GV_F64 : GV_F32;
            gv_result r = judge_sim("scan.cumsum", dt, dists[d], 16, 1025, V_OK);
            cr_expect_eq(r.verdict, GV_PASS, "%s %s: %s", gv_dtype_name(dt), gv_dist_name(dists[d]),
                         r.reason);
        }
}

Test(scan_model, planted_bugs_and_wrong_precision_fail, .timeout = 120)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        const int64_t ex[][2] = {{3, 7}, {33, 100}};
        for (int i = 0; i < 2; i++) {
            gv_result r = judge_sim("scan.cumsum.exclusive", dt, GV_DIST_UNIFORM11, ex[i][0],
                                    ex[i][1], V_EXCLUSIVE);
            cr_expect_eq(r.verdict, GV_FAIL, "exclusive %s: %s", gv_dtype_name(dt), r.reason);
            cr_expect_gt(r.m.ratio, 1e3);
        }
        const int64_t nc[][2] = {{7, 1025}, {4, 4097}};
        for (int i = 0; i < 2; i++) {
            gv_result r = judge_sim("scan.cumsum.nocarry", dt, GV_DIST_UNIFORM01, nc[i][0],
                                    nc[i][1], V_NOCARRY);
            cr_expect_eq(r.verdict, GV_FAIL, "nocarry %s: %s", gv_dtype_name(dt), r.reason);
            cr_expect_gt(r.m.ratio, 1e3);
        }
    }
    /* f32 arithmetic in an f64 case: 2^29 times the f64 allowance */
    gv_result w = judge_sim("scan.cumsum", GV_F64, GV_DIST_UNIFORM11, 16, 4097, V_IN_F32);
    cr_expect_eq(w.verdict, GV_FAIL, "f32 in f64: %s", w.reason);
    cr_expect_gt(w.m.ratio, 1e6);
}

Test(scan_model, cumprod_registered_with_its_model_and_planted_bugs)
{
    const gv_op *op = gv_op_find("scan.cumprod");
    cr_assert_not_null(op);
    cr_expect_str_eq(op->family, "scan");
    cr_expect_null(op->planted_bug);
    cr_expect_null(op->pgauge);
    cr_expect_null(op->order_free_depth, "the gauge's j + 1 holds for any order");
    gv_case c = gv_test_case("scan.cumprod", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                             (gv_shape){2, {3, 4097}}, 1);
    cr_expect_float_eq(op->depth(&c), 1.0, 0);
    cr_expect_float_eq(op->underflow_terms(&c), 4097.0, 0);
    /* the tier is expected only where u n <= t: f32 rows of 1677, not 1678 */
    char why[GV_WHY_LEN] = "";
    c.shape.d[1] = 1677;
    cr_expect_float_eq(op->expected_tier(&c, why, sizeof why), 1e-4, 0);
    c.shape.d[1] = 1678;
    cr_expect_float_eq(op->expected_tier(&c, why, sizeof why), 0.0, 0);
    cr_expect_neq(why[0], 0, "no tier without saying why");
    /* inputs past 1 and the specials are refused (src/ops/scan.c, CUMPROD_DISTS) */
    cr_expect(op->dists & (1u << GV_DIST_UNIFORM01));
    cr_expect(op->dists & (1u << GV_DIST_UNIFORM11));
    cr_expect_not(op->dists & (1u << GV_DIST_SMALLINT));
    cr_expect_not(op->dists & (1u << GV_DIST_SPECIAL));
    cr_expect_not(op->dists & (1u << GV_DIST_WIDE));
    const char *bugs[] = {"scan.cumprod.exclusive", "scan.cumprod.nocarry"};
    for (int i = 0; i < 2; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
    }
}

Test(scan_model, cumprod_correct_arithmetic_passes, .timeout = 240)
{
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {33, 100}, {16, 1000}, {7, 1025}, {2, 65536}};
    const gv_dist dists[] = {GV_DIST_UNIFORM01, GV_DIST_UNIFORM11};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (size_t d = 0; d < 2; d++)
            for (int t = 0; t < 2; t++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result r =
                    judge_sim("scan.cumprod", dt, dists[d], shapes[sh][0], shapes[sh][1], V_OK);
                cr_expect_eq(r.verdict, GV_PASS, "%s %lldx%lld %s: %s", gv_dtype_name(dt),
                             (long long)shapes[sh][0], (long long)shapes[sh][1],
                             gv_dist_name(dists[d]), r.reason);
                cr_expect_leq(r.m.ratio, 1.0, "ratio %.3g", r.m.ratio);
            }
}

Test(scan_model, cumprod_planted_bugs_and_wrong_precision_fail, .timeout = 120)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r =
            judge_sim("scan.cumprod.exclusive", dt, GV_DIST_UNIFORM01, 33, 100, V_EXCLUSIVE);
        cr_expect_eq(r.verdict, GV_FAIL, "exclusive %s: %s", gv_dtype_name(dt), r.reason);
        r = judge_sim("scan.cumprod.nocarry", dt, GV_DIST_UNIFORM01, 7, 1025, V_NOCARRY);
        cr_expect_eq(r.verdict, GV_FAIL, "nocarry %s: %s", gv_dtype_name(dt), r.reason);
    }
    /* f32 arithmetic in an f64 case: about 2^29 times the f64 allowance where the prefixes
       are still far from underflow (uniform11's first hundreds of terms) */
    gv_result w = judge_sim("scan.cumprod", GV_F64, GV_DIST_UNIFORM11, 16, 1000, V_IN_F32);
    cr_expect_eq(w.verdict, GV_FAIL, "f32 in f64: %s", w.reason);
    cr_expect_gt(w.m.ratio, 1e6);
}
