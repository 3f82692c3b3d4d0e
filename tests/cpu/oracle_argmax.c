/* oracle_argmax.c: reduce.argmax's and reduce.argmin's oracles (oracle/argmax.c) against a
 * plain search, on the rules torch.argmax and torch.argmin document: the first index of the
 * extreme, a NaN winning in both (its first), -0 equal to +0, infinities as values; argmin of x
 * against argmax of -x; reduce.max's and reduce.min's values against fmax and fmin folds (NaN
 * where the row holds one); and their bad arguments. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"
#include "testkit.h"

Test(argmax_oracle, first_index_of_the_max)
{
    double x[6][5] = {
        {1.0, 3.0, 2.0, 3.0, -1.0},     /* a tie: the first */
        {-0.0, 0.0, -1.0, -2.0, -0.0},  /* -0 == +0: index 0 */
        {1.0, NAN, 5.0, NAN, INFINITY}, /* NaN the largest: the first NaN */
        {-INFINITY, -INFINITY, -INFINITY, -5.0, -INFINITY},
        {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY}, /* all equal: 0 */
        {0.5, 0.25, INFINITY, 1e308, INFINITY},
    };
    double idx[6];
    cr_assert_eq(go_argmax_rows(6, 5, &x[0][0], 5, idx), 0);
    const double want[6] = {1, 0, 1, 3, 0, 2};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(idx[i], want[i], "row %d: %g, want %g", i, idx[i], want[i]);
}

Test(argmax_oracle, against_a_plain_search_with_ld)
{
    const int64_t m = 50, n = 777, ld = 780;
    double *x = gv_test_matrix(m, n, ld, 5, 0);
    /* a few rows with their max repeated later, to test the first-index rule at size */
    for (int64_t i = 0; i < m; i += 7) {
        double mx = -INFINITY;
        for (int64_t j = 0; j < n; j++)
            mx = fmax(mx, x[i * ld + j]);
        x[i * ld + n - 1] = mx;
    }
    double *idx = gv_test_alloc(m);
    cr_assert_eq(go_argmax_rows(m, n, x, ld, idx), 0);
    for (int64_t i = 0; i < m; i++) {
        int64_t best = 0;
        for (int64_t j = 0; j < n; j++)
            if (x[i * ld + j] > x[i * ld + best]) best = j;
        cr_expect_eq(idx[i], (double)best, "row %lld", (long long)i);
        cr_expect_lt(idx[i], (double)(n - 1), "row %lld: the later copy of the max", (long long)i);
    }
    free(x);
    free(idx);
}

Test(argmax_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, idx[1];
    cr_expect_eq(go_argmax_rows(-1, 4, x, 4, idx), -1);
    cr_expect_eq(go_argmax_rows(1, 0, x, 4, idx), -2);
    cr_expect_eq(go_argmax_rows(1, 4, NULL, 4, idx), -3);
    cr_expect_eq(go_argmax_rows(1, 4, x, 3, idx), -4);
    cr_expect_eq(go_argmax_rows(1, 4, x, 4, NULL), -5);
}

Test(argmin_oracle, first_index_of_the_min)
{
    double x[6][5] = {
        {1.0, -3.0, 2.0, -3.0, 4.0},      /* a tie: the first */
        {0.0, -0.0, 1.0, 2.0, 0.0},       /* -0 == +0: index 0 */
        {1.0, NAN, -5.0, NAN, -INFINITY}, /* a NaN still wins (torch.argmin): the first NaN */
        {INFINITY, INFINITY, INFINITY, 5.0, INFINITY},
        {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY}, /* all equal: 0 */
        {0.5, 0.25, -INFINITY, -1e308, -INFINITY},
    };
    double idx[6];
    cr_assert_eq(go_argmin_rows(6, 5, &x[0][0], 5, idx), 0);
    const double want[6] = {1, 0, 1, 3, 0, 2};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(idx[i], want[i], "row %d: %g, want %g", i, idx[i], want[i]);
}

/* Without NaN, argmin(x) = argmax(-x) index for index (ties included: negation keeps them),
   and neither is the other's answer on random rows */
Test(argmin_oracle, is_argmax_of_the_negation)
{
    const int64_t m = 40, n = 513, ld = 520;
    double *x = gv_test_matrix(m, n, ld, 9, 0), *neg = gv_test_alloc(m * ld);
    for (int64_t i = 0; i < m; i += 5) /* a repeated min, later in the row */
        x[i * ld + n - 1] = x[i * ld + 3] = -2.0;
    for (int64_t k = 0; k < m * ld; k++)
        neg[k] = -x[k];
    double *imin = gv_test_alloc(m), *imax = gv_test_alloc(m), *imaxx = gv_test_alloc(m);
    cr_assert_eq(go_argmin_rows(m, n, x, ld, imin), 0);
    cr_assert_eq(go_argmax_rows(m, n, neg, ld, imax), 0);
    cr_assert_eq(go_argmax_rows(m, n, x, ld, imaxx), 0);
    int differ = 0;
    for (int64_t i = 0; i < m; i++) {
        cr_expect_eq(imin[i], imax[i], "row %lld", (long long)i);
        int64_t best = 0;
        for (int64_t j = 0; j < n; j++)
            if (x[i * ld + j] < x[i * ld + best]) best = j;
        cr_expect_eq(imin[i], (double)best, "row %lld: a plain search", (long long)i);
        if (i % 5 == 0) cr_expect_eq(imin[i], 3.0, "row %lld: the first of a tie", (long long)i);
        differ += imin[i] != imaxx[i];
    }
    cr_expect_eq(differ, m, "argmin and argmax differ on every random row");
    free(x);
    free(neg);
    free(imin);
    free(imax);
    free(imaxx);
}

Test(argmin_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, idx[1];
    cr_expect_eq(go_argmin_rows(-1, 4, x, 4, idx), -1);
    cr_expect_eq(go_argmin_rows(1, 0, x, 4, idx), -2);
    cr_expect_eq(go_argmin_rows(1, 4, NULL, 4, idx), -3);
    cr_expect_eq(go_argmin_rows(1, 4, x, 3, idx), -4);
    cr_expect_eq(go_argmin_rows(1, 4, x, 4, NULL), -5);
}

/* The values: a fold of fmax (fmin) over a NaN-free row, NaN where the row holds one, and the
   value at the argmax (argmin) index in every row. */
Test(max_oracle, values_are_the_extremes_and_nan_propagates)
{
    const int64_t m = 30, n = 301, ld = 305;
    double *x = gv_test_matrix(m, n, ld, 13, 0);
    x[4 * ld + 100] = NAN;
    x[9 * ld + 0] = NAN;
    x[11 * ld + 7] = INFINITY;
    x[12 * ld + 8] = -INFINITY;
    double *mx = gv_test_alloc(m), *mn = gv_test_alloc(m), *imx = gv_test_alloc(m),
           *imn = gv_test_alloc(m);
    cr_assert_eq(go_max_rows(m, n, x, ld, mx), 0);
    cr_assert_eq(go_min_rows(m, n, x, ld, mn), 0);
    cr_assert_eq(go_argmax_rows(m, n, x, ld, imx), 0);
    cr_assert_eq(go_argmin_rows(m, n, x, ld, imn), 0);
    for (int64_t i = 0; i < m; i++) {
        const double *r = x + i * ld;
        bool nan = false;
        double fx = -INFINITY, fn = INFINITY;
        for (int64_t j = 0; j < n; j++) {
            nan |= isnan(r[j]);
            fx = fmax(fx, r[j]);
            fn = fmin(fn, r[j]);
        }
        if (nan) {
            cr_expect(isnan(mx[i]) && isnan(mn[i]), "row %lld holds a NaN", (long long)i);
        } else {
            cr_expect_eq(mx[i], fx, "row %lld max", (long long)i);
            cr_expect_eq(mn[i], fn, "row %lld min", (long long)i);
        }
        cr_expect(memcmp(&mx[i], &r[(int64_t)imx[i]], sizeof(double)) == 0, "row %lld",
                  (long long)i);
        cr_expect(memcmp(&mn[i], &r[(int64_t)imn[i]], sizeof(double)) == 0, "row %lld",
                  (long long)i);
    }
    cr_expect_eq(mx[11], INFINITY);
    cr_expect_eq(mn[12], -INFINITY);
    double bad[1];
    cr_expect_eq(go_max_rows(1, 0, x, ld, bad), -2);
    cr_expect_eq(go_min_rows(1, 4, x, 4, NULL), -5);
    free(x);
    free(mx);
    free(mn);
    free(imx);
    free(imn);
}
