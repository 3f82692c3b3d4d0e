/* oracle_reduce.c: the reduce family's compensated oracles against a double-double sum; IEEE's
 * NaN/Inf outcomes where compensation alone would give NaN; argument checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/gen.h"
#include "go.h"

/* sum of x[0], x[stride], ... as hi + lo: TwoSum (Knuth) per term, the error terms summed in
   lo; its error is O(n u^2) sum |x|, far below the oracle's one rounding. */
static double dd_sum(const double *x, int64_t n, int64_t stride)
{
    double hi = 0, lo = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = x[i * stride], s = hi + v, bp = s - hi;
        lo += (hi - (s - bp)) + (v - bp);
        hi = s;
    }
    return hi + lo;
}

static double *filled(int64_t n, gv_dist d, uint64_t seed)
{
    double *x = malloc(sizeof(double) * (size_t)(n ? n : 1));
    cr_assert_not_null(x);
    gv_gen_fill(x, n, d, GV_F64, seed, 0);
    return x;
}

Test(oracle_reduce, sum_matches_double_double)
{
    const int64_t ns[] = {1, 2, 1000, 4097, 100003, 1000003};
    const gv_dist ds[] = {GV_DIST_UNIFORM01, GV_DIST_UNIFORM11, GV_DIST_OFFGRID};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t d = 0; d < sizeof ds / sizeof ds[0]; d++) {
            double *x = filled(ns[i], ds[d], 11 + i);
            double s, g, ref = dd_sum(x, ns[i], 1);
            cr_assert_eq(go_reduce_sum(ns[i], x, &s), 0);
            cr_assert_eq(go_reduce_sum_gauge(ns[i], x, &g), 0);
            double rel = fabs(s - ref) / fabs(ref);
            cr_expect_leq(rel, 1e-15, "n=%lld dist %s: relative error %.3g", (long long)ns[i],
                          gv_dist_name(ds[d]), rel);
            cr_expect_geq(g, fabs(s), "gauge sum|x| >= |sum x|");
            free(x);
        }
}

Test(oracle_reduce, sum_survives_catastrophic_cancellation)
{
    /* exact sum 2 + 1e-6, through terms of 1e16: recursive summation would return 0 or 4 */
    double x[] = {1e16, 1.0, -1e16, 1.0, 1e16, 1e-6, -1e16};
    double s;
    cr_assert_eq(go_reduce_sum(7, x, &s), 0);
    cr_expect_eq(s, 2.0 + 1e-6, "%.17g", s);
}

Test(oracle_reduce, colsum_matches_double_double)
{
    int64_t m = 1001, n = 37;
    double *x = filled(m * n, GV_DIST_UNIFORM11, 5);
    double s[37], g[37];
    cr_assert_eq(go_reduce_colsum(m, n, x, n, s), 0);
    cr_assert_eq(go_reduce_colsum_gauge(m, n, x, n, g), 0);
    double err2 = 0, ref2 = 0;
    for (int64_t j = 0; j < n; j++) {
        double ref = dd_sum(x + j, m, n);
        err2 += (s[j] - ref) * (s[j] - ref);
        ref2 += ref * ref;
        cr_expect_geq(g[j], fabs(s[j]));
    }
    cr_expect_leq(sqrt(err2 / ref2), 1e-15, "normwise %.3g", sqrt(err2 / ref2));
    free(x);
}

Test(oracle_reduce, nonfinite_sums_follow_ieee)
{
    double s;
    double pinf[] = {1.0, INFINITY, 2.0};
    cr_assert_eq(go_reduce_sum(3, pinf, &s), 0);
    cr_expect(isinf(s) && s > 0, "1 + Inf + 2 = +Inf, got %g", s);
    double ninf[] = {-INFINITY, 1.0};
    cr_assert_eq(go_reduce_sum(2, ninf, &s), 0);
    cr_expect(isinf(s) && s < 0, "-Inf + 1 = -Inf, got %g", s);
    double both[] = {INFINITY, 3.0, -INFINITY};
    cr_assert_eq(go_reduce_sum(3, both, &s), 0);
    cr_expect(isnan(s), "Inf - Inf is NaN, got %g", s);
    double nan[] = {1.0, NAN};
    cr_assert_eq(go_reduce_sum(2, nan, &s), 0);
    cr_expect(isnan(s));
    cr_assert_eq(go_reduce_sum_gauge(3, both, &s), 0);
    cr_expect(isinf(s) && s > 0, "gauge of a sum with infinities is +Inf, got %g", s);
    /* columns: one finite, one with +Inf */
    double m[] = {1.0, 2.0, 3.0, INFINITY, 5.0, 6.0};
    double cs[2];
    cr_assert_eq(go_reduce_colsum(3, 2, m, 2, cs), 0);
    cr_expect_eq(cs[0], 9.0);
    cr_expect(isinf(cs[1]) && cs[1] > 0, "column with +Inf sums to +Inf, got %g", cs[1]);
    double empty;
    cr_assert_eq(go_reduce_sum(0, pinf, &empty), 0);
    cr_expect_eq(empty, 0.0, "the empty sum is 0");
}

Test(oracle_reduce, bad_arguments_give_their_index)
{
    double x[4] = {1, 2, 3, 4}, s[2];
    cr_expect_eq(go_reduce_sum(-1, x, s), -1);
    cr_expect_eq(go_reduce_sum(4, NULL, s), -2);
    cr_expect_eq(go_reduce_sum(4, x, NULL), -3);
    cr_expect_eq(go_reduce_sum_gauge(4, x, NULL), -3);
    cr_expect_eq(go_reduce_colsum(-1, 2, x, 2, s), -1);
    cr_expect_eq(go_reduce_colsum(2, -1, x, 2, s), -2);
    cr_expect_eq(go_reduce_colsum(2, 2, NULL, 2, s), -3);
    cr_expect_eq(go_reduce_colsum(2, 2, x, 1, s), -4);
    cr_expect_eq(go_reduce_colsum(2, 2, x, 2, NULL), -5);
}
