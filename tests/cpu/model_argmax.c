/* model_argmax.c: reduce.argmax's and reduce.argmin's descriptors (src/ops/argmax.c) and their
 * index rule, by
 * judging device results simulated on the CPU as kernels/argmax.cu combines its candidates
 * (256 threads striding a row, a shuffle tree across each warp's lanes, the warps in order):
 * the correct rule must PASS on every distribution (ties and NaN included); the planted bugs
 * (the last of a tie; NaN never the max), an index one off and an index that is no integer
 * must FAIL, with the argmax check named; the same for argmin (the kernel with Min set), and
 * argmax's answers judged as argmin's FAIL; reduce.max and reduce.min (the value at the index)
 * PASS on every distribution, and NaN skipped, the runner-up and the other extreme FAIL. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "testkit.h"

enum variant { V_OK, V_LASTTIES, V_NONAN, V_ONE_OFF, V_FRACTION };

enum { THREADS = 256 };

/* Whether the simulated kernel searches for the min (the ops named reduce.argmin*) */
static bool sim_min;

/* kernels/argmax.cu's further(): v beyond w in the search's direction */
static bool further(double v, double w)
{
    return sim_min ? v < w : v > w;
}

/* kernels/argmax.cu's beats(): whether (v, i) beats (w, j) */
static bool beats(enum variant var, double v, int64_t i, double w, int64_t j)
{
    bool vn = isnan(v), wn = isnan(w);
    if (var == V_NONAN) {
        if (vn || wn) return !vn && wn ? true : (vn && wn ? i < j : false);
        return further(v, w) || (v == w && i < j);
    }
    if (vn || wn) return vn && (!wn || i < j);
    if (var == V_LASTTIES) return further(v, w) || (v == w && i > j);
    return further(v, w) || (v == w && i < j);
}

static double sim_row(enum variant var, const double *x, int64_t n)
{
    double bv[THREADS];
    int64_t bi[THREADS];
    for (int t = 0; t < THREADS; t++) {
        bv[t] = -INFINITY, bi[t] = n;
        for (int64_t j = t; j < n; j += THREADS)
            if (bi[t] == n || beats(var, x[j], j, bv[t], bi[t])) bv[t] = x[j], bi[t] = j;
    }
    for (int w = 0; w < THREADS / 32; w++) /* __shfl_down_sync: lane l reads lane l + off */
        for (int off = 16; off > 0; off >>= 1)
            for (int l = 0; l + off < 32; l++) {
                int a = 32 * w + l, b = a + off;
                if (bi[b] < n && (bi[a] == n || beats(var, bv[b], bi[b], bv[a], bi[a])))
                    bv[a] = bv[b], bi[a] = bi[b];
            }
    double best = bv[0];
    int64_t idx = bi[0];
    for (int w = 1; w < THREADS / 32; w++)
        if (bi[32 * w] < n && (idx == n || beats(var, bv[32 * w], bi[32 * w], best, idx)))
            best = bv[32 * w], idx = bi[32 * w];
    return (double)idx;
}

static gv_result judge_sim(const char *op, gv_dtype t, gv_dist dist, int64_t m, int64_t n,
                           enum variant v)
{
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, dist, (gv_shape){2, {m, n}}, 7);
    sim_min = strncmp(op, "reduce.argmin", 13) == 0;
    gv_problem p;
    gv_test_problem(&p, &c);
    cr_assert_eq(p.out[0].count, m);
    double *y = gv_test_alloc(m);
    for (int64_t i = 0; i < m; i++)
        y[i] = sim_row(v, p.in[0].ref + i * n, n);
    if (v == V_ONE_OFF) y[m / 2] = y[m / 2] + 1 < (double)n ? y[m / 2] + 1 : y[m / 2] - 1;
    if (v == V_FRACTION) y[m / 2] += 0.5;
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %lldx%lld variant %d: %s %s", op, gv_dtype_name(t), gv_dist_name(dist),
                (long long)m, (long long)n, (int)v, gv_verdict_name(r.verdict), r.reason);
    return r;
}

Test(argmax_model, registered_with_its_index_output_and_planted_bugs)
{
    const gv_op *op = gv_op_find("reduce.argmax");
    cr_assert_not_null(op);
    cr_expect_str_eq(op->family, "argmax");
    cr_expect_str_eq(op->dims, "m,n");
    cr_expect_str_eq(op->out_dims, "m");
    cr_expect_null(op->planted_bug);
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE) && gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    gv_case c = gv_test_case("reduce.argmax", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                             (gv_shape){2, {3, 100}}, 1);
    gv_layout l;
    cr_assert_eq(op->layout(&c, &l), GV_OK);
    cr_expect_eq(l.n_in, 1);
    cr_expect_eq(l.n_out, 1);
    cr_expect_eq(l.in[0].count, 300);
    cr_expect_eq(l.out[0].count, 3, "one index a row");
    cr_expect(op->exact(&c), "an index has no rounding");
    char why[GV_WHY_LEN];
    cr_expect_eq(op->check_shape(&(gv_shape){2, {1, (int64_t)1 << 24}}, why, sizeof why), GV_OK);
    cr_expect_eq(op->check_shape(&(gv_shape){2, {1, ((int64_t)1 << 24) + 1}}, why, sizeof why),
                 GV_EINVAL, "an index past 2^24 is not exact in f32");
    const char *bugs[] = {"reduce.argmax.lastties", "reduce.argmax.nonan"};
    for (int i = 0; i < 2; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
        cr_expect_str_eq(b->family, "argmax");
    }
}

Test(argmax_model, correct_rule_passes_on_every_distribution, .timeout = 120)
{
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {33, 100}, {16, 1000}, {7, 1025}, {2, 65536}};
    const gv_dist dists[] = {GV_DIST_UNIFORM01, GV_DIST_UNIFORM11,      GV_DIST_SMALLINT,
                             GV_DIST_SPECIAL,   GV_DIST_SPARSE_SPECIAL, GV_DIST_WIDE,
                             GV_DIST_TINY,      GV_DIST_HUGE,           GV_DIST_OFFGRID};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int t = 0; t < 2; t++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result r =
                    judge_sim("reduce.argmax", dt, dists[d], shapes[sh][0], shapes[sh][1], V_OK);
                cr_expect_eq(r.verdict, GV_PASS, "%s %lldx%lld %s: %s", gv_dtype_name(dt),
                             (long long)shapes[sh][0], (long long)shapes[sh][1],
                             gv_dist_name(dists[d]), r.reason);
                cr_expect_eq(gv_test_extra(&r, "argmax_wrong_rows"), 0.0);
            }
    /* smallint rows of 100 repeat their max: the first-index rule is what decided them */
    gv_result r = judge_sim("reduce.argmax", GV_F32, GV_DIST_SMALLINT, 33, 100, V_OK);
    cr_expect_gt(gv_test_extra(&r, "argmax_tied_rows"), 10.0);
}

Test(argmax_model, planted_bugs_and_wrong_indices_fail, .timeout = 60)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r =
            judge_sim("reduce.argmax.lastties", dt, GV_DIST_SMALLINT, 33, 100, V_LASTTIES);
        cr_expect_eq(r.verdict, GV_FAIL, "lastties %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_eq(r.cause, GV_CAUSE_RESIDUAL);
        cr_expect(strstr(r.reason, "argmax:") != NULL, "%s", r.reason);
        cr_expect_gt(gv_test_extra(&r, "argmax_wrong_rows"), 10.0);
        r = judge_sim("reduce.argmax.nonan", dt, GV_DIST_SPECIAL, 33, 100, V_NONAN);
        cr_expect_eq(r.verdict, GV_FAIL, "nonan %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_gt(gv_test_extra(&r, "argmax_wrong_rows"), 10.0);
        r = judge_sim("reduce.argmax", dt, GV_DIST_UNIFORM01, 16, 1000, V_ONE_OFF);
        cr_expect_eq(r.verdict, GV_FAIL, "one off %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_eq(gv_test_extra(&r, "argmax_wrong_rows"), 1.0);
        r = judge_sim("reduce.argmax", dt, GV_DIST_UNIFORM01, 16, 1000, V_FRACTION);
        cr_expect_eq(r.verdict, GV_FAIL, "not an integer %s: %s", gv_dtype_name(dt), r.reason);
    }
}

Test(argmin_model, registered_beside_argmax_with_its_own_reference)
{
    const gv_op *op = gv_op_find("reduce.argmin"), *mx = gv_op_find("reduce.argmax");
    cr_assert_not_null(op);
    cr_assert_not_null(mx);
    cr_expect_str_eq(op->family, "argmax");
    cr_expect_str_eq(op->in_dims, "m,n");
    cr_expect_str_eq(op->out_dims, "m");
    cr_expect_null(op->planted_bug);
    /* the same hooks but the oracle's and the rule's: argmin's cached reference is its own */
    cr_expect(op->oracle != mx->oracle);
    cr_expect(op->measure != mx->measure);
    cr_expect(op->layout == mx->layout && op->check_shape == mx->check_shape);
    cr_expect_str_eq(gv_reference_name(op), "reduce.argmin");
    const char *bugs[] = {"reduce.argmin.lastties", "reduce.argmin.nonan"};
    for (int i = 0; i < 2; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
        cr_expect(b->oracle == op->oracle, "%s judged against argmin's reference", bugs[i]);
    }
}

Test(argmin_model, correct_rule_passes_on_every_distribution, .timeout = 120)
{
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {33, 100}, {16, 1000}, {7, 1025}, {2, 65536}};
    const gv_dist dists[] = {GV_DIST_UNIFORM01, GV_DIST_UNIFORM11,      GV_DIST_SMALLINT,
                             GV_DIST_SPECIAL,   GV_DIST_SPARSE_SPECIAL, GV_DIST_WIDE,
                             GV_DIST_TINY,      GV_DIST_HUGE,           GV_DIST_OFFGRID};
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int t = 0; t < 2; t++) {
                gv_dtype dt = t ? GV_F64 : GV_F32;
                gv_result r =
                    judge_sim("reduce.argmin", dt, dists[d], shapes[sh][0], shapes[sh][1], V_OK);
                cr_expect_eq(r.verdict, GV_PASS, "%s %lldx%lld %s: %s", gv_dtype_name(dt),
                             (long long)shapes[sh][0], (long long)shapes[sh][1],
                             gv_dist_name(dists[d]), r.reason);
                cr_expect_eq(gv_test_extra(&r, "argmin_wrong_rows"), 0.0);
            }
    gv_result r = judge_sim("reduce.argmin", GV_F32, GV_DIST_SMALLINT, 33, 100, V_OK);
    cr_expect_gt(gv_test_extra(&r, "argmin_tied_rows"), 10.0);
}

/* argmax's own answers (the kernel without Min) handed in as argmin's */
static gv_result judge_argmax_as_argmin(gv_dtype t, int64_t m, int64_t n)
{
    gv_case c = gv_test_case("reduce.argmin", t, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             (gv_shape){2, {m, n}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    sim_min = false;
    double *y = gv_test_alloc(m);
    for (int64_t i = 0; i < m; i++)
        y[i] = sim_row(V_OK, p.in[0].ref + i * n, n);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    return r;
}

Test(argmin_model, planted_bugs_and_wrong_indices_fail, .timeout = 60)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r =
            judge_sim("reduce.argmin.lastties", dt, GV_DIST_SMALLINT, 33, 100, V_LASTTIES);
        cr_expect_eq(r.verdict, GV_FAIL, "lastties %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_eq(r.cause, GV_CAUSE_RESIDUAL);
        cr_expect(strstr(r.reason, "argmin:") != NULL, "%s", r.reason);
        cr_expect(strstr(r.reason, "the first min") != NULL, "%s", r.reason);
        cr_expect_gt(gv_test_extra(&r, "argmin_wrong_rows"), 10.0);
        r = judge_sim("reduce.argmin.nonan", dt, GV_DIST_SPECIAL, 33, 100, V_NONAN);
        cr_expect_eq(r.verdict, GV_FAIL, "nonan %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_gt(gv_test_extra(&r, "argmin_wrong_rows"), 10.0);
        r = judge_sim("reduce.argmin", dt, GV_DIST_UNIFORM01, 16, 1000, V_ONE_OFF);
        cr_expect_eq(r.verdict, GV_FAIL, "one off %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_eq(gv_test_extra(&r, "argmin_wrong_rows"), 1.0);
        r = judge_sim("reduce.argmin", dt, GV_DIST_UNIFORM01, 16, 1000, V_FRACTION);
        cr_expect_eq(r.verdict, GV_FAIL, "not an integer %s: %s", gv_dtype_name(dt), r.reason);
        r = judge_argmax_as_argmin(dt, 16, 1000);
        cr_expect_eq(r.verdict, GV_FAIL, "argmax as argmin %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_eq(gv_test_extra(&r, "argmin_wrong_rows"), 16.0);
    }
}

enum value_variant { VAL_OK, VAL_NONAN, VAL_RUNNER_UP, VAL_OTHER };

/* reduce.max / reduce.min as the kernel stores them: the value at its index (VAL_NONAN: the
   planted rule; VAL_RUNNER_UP: row m/2 gets the row's second value in sorted order; VAL_OTHER:
   the other direction's extreme in every row) */
static gv_result judge_value(const char *op, gv_dtype t, gv_dist dist, int64_t m, int64_t n,
                             enum value_variant v)
{
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, dist, (gv_shape){2, {m, n}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    bool is_min = strcmp(op, "reduce.min") == 0 || strncmp(op, "reduce.min.", 11) == 0;
    sim_min = v == VAL_OTHER ? !is_min : is_min;
    double *y = gv_test_alloc(m);
    for (int64_t i = 0; i < m; i++) {
        const double *xr = p.in[0].ref + i * n;
        y[i] = xr[(int64_t)sim_row(v == VAL_NONAN ? V_NONAN : V_OK, xr, n)];
    }
    if (v == VAL_RUNNER_UP) {
        const double *xr = p.in[0].ref + (m / 2) * n;
        double next = is_min ? INFINITY : -INFINITY;
        for (int64_t j = 0; j < n; j++)
            if (is_min ? xr[j] > y[m / 2] && xr[j] < next : xr[j] < y[m / 2] && xr[j] > next)
                next = xr[j];
        y[m / 2] = next;
    }
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %lldx%lld variant %d: %s %s", op, gv_dtype_name(t), gv_dist_name(dist),
                (long long)m, (long long)n, (int)v, gv_verdict_name(r.verdict), r.reason);
    return r;
}

Test(max_model, values_pass_on_every_distribution_and_wrong_ones_fail, .timeout = 120)
{
    const char *ops[] = {"reduce.max", "reduce.min"};
    const int64_t shapes[][2] = {{1, 1}, {3, 7}, {33, 100}, {16, 1000}, {7, 1025}, {2, 65536}};
    const gv_dist dists[] = {GV_DIST_UNIFORM01, GV_DIST_UNIFORM11,      GV_DIST_SMALLINT,
                             GV_DIST_SPECIAL,   GV_DIST_SPARSE_SPECIAL, GV_DIST_WIDE,
                             GV_DIST_TINY,      GV_DIST_HUGE,           GV_DIST_OFFGRID};
    for (int o = 0; o < 2; o++) {
        const gv_op *op = gv_op_find(ops[o]);
        cr_assert_not_null(op, "%s", ops[o]);
        cr_expect_str_eq(op->family, "argmax");
        cr_expect_null(op->planted_bug);
        cr_expect_not_null(op->in_dims);
        for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
                for (int t = 0; t < 2; t++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    gv_result r =
                        judge_value(ops[o], dt, dists[d], shapes[sh][0], shapes[sh][1], VAL_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %lldx%lld %s: %s", ops[o],
                                 gv_dtype_name(dt), (long long)shapes[sh][0],
                                 (long long)shapes[sh][1], gv_dist_name(dists[d]), r.reason);
                }
        for (int t = 0; t < 2; t++) {
            gv_dtype dt = t ? GV_F64 : GV_F32;
            char planted[32];
            snprintf(planted, sizeof planted, "%s.nonan", ops[o]);
            cr_assert_not_null(gv_op_find(planted), "%s", planted);
            cr_expect_not_null(gv_op_find(planted)->planted_bug);
            gv_result r = judge_value(planted, dt, GV_DIST_SPECIAL, 33, 100, VAL_NONAN);
            cr_expect_eq(r.verdict, GV_FAIL, "%s %s: %s", planted, gv_dtype_name(dt), r.reason);
            cr_expect(r.cause == GV_CAUSE_LOST_NONFINITE || r.cause == GV_CAUSE_NONFINITE_PLACEMENT,
                      "%s: %s", planted, gv_cause_name(r.cause));
            r = judge_value(ops[o], dt, GV_DIST_UNIFORM01, 16, 1000, VAL_RUNNER_UP);
            cr_expect_eq(r.verdict, GV_FAIL, "%s runner-up %s: %s", ops[o], gv_dtype_name(dt),
                         r.reason);
            r = judge_value(ops[o], dt, GV_DIST_UNIFORM11, 16, 1000, VAL_OTHER);
            cr_expect_eq(r.verdict, GV_FAIL, "%s other extreme %s: %s", ops[o], gv_dtype_name(dt),
                         r.reason);
        }
    }
}
