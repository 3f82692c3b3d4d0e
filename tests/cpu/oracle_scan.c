/* oracle_scan.c: scan.cumsum's and scan.cumprod's oracles (oracle/scan.c) against running
 * sums and products in __float128 at small sizes, including rows that cancel (a prefix far
 * smaller than the sum of |x|) and products that underflow, their non-finite outcomes, and
 * the gauges' promises. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "go.h"
#include "testkit.h"

Test(scan_oracle, prefix_sums_against_float128)
{
    const int64_t m = 4, n = 3001;
    const double scales[] = {1.0, 1e6, 1e-300};
    for (int s = 0; s < 3; s++) {
        double *x = gv_test_matrix(m, n, n, 21 + s, 0);
        for (int64_t i = 0; i < m * n; i++)
            x[i] *= scales[s];
        /* row 3 cancels: each element followed by its negation, then a small tail */
        for (int64_t j = 0; j + 1 < n; j += 2)
            x[3 * n + j + 1] = -x[3 * n + j] * (1.0 - 0x1p-30);
        double *y = gv_test_alloc(m * n), *g = gv_test_alloc(m * n);
        cr_assert_eq(go_scan_cumsum(m, n, x, n, y, n), 0);
        cr_assert_eq(go_scan_cumsum_gauge(m, n, x, n, g, n), 0);
        for (int64_t i = 0; i < m; i++) {
            __float128 truth = 0, mag = 0;
            for (int64_t j = 0; j < n; j++) {
                truth += x[i * n + j];
                mag += fabs(x[i * n + j]);
                __float128 diff = (__float128)y[i * n + j] - truth;
                double t = (double)truth, err = (double)(diff < 0 ? -diff : diff);
                /* from the exact prefix: one f64 rounding (of the long double's value: within
                   half an ulp and 2^-64 relative), and the long double's own few 2^-64 */
                cr_expect(err <= 0x1p-53 * fabs(t) + 0x1p-62 * (double)mag + 0x1p-1074,
                          "scale %g y[%lld][%lld] = %.17g, truth %.17g", scales[s], (long long)i,
                          (long long)j, y[i * n + j], t);
                cr_expect(g[i * n + j] >= fabs(y[i * n + j]), "gauge below |y|");
            }
        }
        free(x);
        free(y);
        free(g);
    }
}

Test(scan_oracle, non_finite_prefixes_follow_ieee)
{
    double x[2][5] = {{1.0, INFINITY, 2.0, -INFINITY, 3.0}, {1.0, 2.0, NAN, 4.0, 5.0}}, y[2][5];
    cr_assert_eq(go_scan_cumsum(2, 5, &x[0][0], 5, &y[0][0], 5), 0);
    cr_expect_eq(y[0][0], 1.0);
    cr_expect(isinf(y[0][1]) && y[0][1] > 0 && isinf(y[0][2]));
    cr_expect(isnan(y[0][3]) && isnan(y[0][4]), "Inf and -Inf among the terms: NaN");
    cr_expect_eq(y[1][1], 3.0);
    cr_expect(isnan(y[1][2]) && isnan(y[1][3]) && isnan(y[1][4]));
}

Test(scan_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, y[4];
    cr_expect_eq(go_scan_cumsum(-1, 4, x, 4, y, 4), -1);
    cr_expect_eq(go_scan_cumsum(1, 0, x, 4, y, 4), -2);
    cr_expect_eq(go_scan_cumsum(1, 4, NULL, 4, y, 4), -3);
    cr_expect_eq(go_scan_cumsum(1, 4, x, 3, y, 4), -4);
    cr_expect_eq(go_scan_cumsum(1, 4, x, 4, y, 3), -6);
}

Test(scan_oracle, prefix_products_against_float128)
{
    const int64_t m = 3, n = 2001;
    double *x = gv_test_matrix(m, n, n, 31, 0);
    /* row 0 as drawn; row 1 near 1 (its products stay in range over the whole row); row 2
       with its signs flipped on every third term */
    for (int64_t j = 0; j < n; j++) {
        x[n + j] = 1.0 + x[n + j] * 0x1p-8;
        if (j % 3 == 0) x[2 * n + j] = -x[2 * n + j];
    }
    double *y = gv_test_alloc(m * n), *g = gv_test_alloc(m * n);
    cr_assert_eq(go_scan_cumprod(m, n, x, n, y, n), 0);
    cr_assert_eq(go_scan_cumprod_gauge(m, n, y, n, g, n), 0);
    for (int64_t i = 0; i < m; i++) {
        __float128 truth = 1;
        for (int64_t j = 0; j < n; j++) {
            truth *= x[i * n + j];
            double t = (double)truth;
            __float128 diff = (__float128)y[i * n + j] - truth;
            double err = (double)(diff < 0 ? -diff : diff);
            /* one f64 rounding of a long double product within j 2^-64 relative (a few
               2^-113 of the __float128's own), and the subnormals' spacing */
            cr_expect(err <= (0x1p-53 + (double)(j + 1) * 0x1p-63) * fabs(t) + 0x1p-1074,
                      "y[%lld][%lld] = %.17g, truth %.17g", (long long)i, (long long)j,
                      y[i * n + j], t);
            cr_expect_eq(g[i * n + j], (double)(j + 1) * fabs(y[i * n + j]));
        }
    }
    cr_expect_gt(fabs(y[2 * n - 1]), 0.5, "row 1 stays in range: a test of the long products");
    free(x);
    free(y);
    free(g);
}

Test(scan_oracle, prefix_products_non_finite_and_bad_arguments)
{
    double x[2][4] = {{2.0, INFINITY, 0.5, 0.0}, {1.0, NAN, 4.0, 5.0}}, y[2][4];
    cr_assert_eq(go_scan_cumprod(2, 4, &x[0][0], 4, &y[0][0], 4), 0);
    cr_expect_eq(y[0][0], 2.0);
    cr_expect(isinf(y[0][1]) && isinf(y[0][2]) && y[0][2] > 0);
    cr_expect(isnan(y[0][3]), "Inf times 0: NaN");
    cr_expect_eq(y[1][0], 1.0);
    cr_expect(isnan(y[1][1]) && isnan(y[1][3]));
    cr_expect_eq(go_scan_cumprod(-1, 4, &x[0][0], 4, &y[0][0], 4), -1);
    cr_expect_eq(go_scan_cumprod(1, 4, NULL, 4, &y[0][0], 4), -3);
    cr_expect_eq(go_scan_cumprod_gauge(1, 4, &y[0][0], 3, &y[1][0], 4), -4);
}
