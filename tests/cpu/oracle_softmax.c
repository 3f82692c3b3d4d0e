/* oracle_softmax.c: the softmax family's oracle (oracle/softmax.c) against long double
 * computations of another form at small sizes (softmax as 1 / sum_k exp(x_k - x_j), the norms'
 * moments from sums of squares of shifted values), including logits so large that the
 * textbook exp(x) / sum exp(x) overflows, and the gauges' promise g >= |y|. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"
#include "testkit.h"

/* |a - b| within a few f64 roundings of b (the oracle rounds once from long double) */
static void expect_close(double a, long double b, const char *what, int64_t i)
{
    long double err = fabsl((long double)a - b);
    cr_expect(err <= 0x1p-51L * fabsl(b) + 0x1p-1070L, "%s[%lld]: %.17g against %.20Lg", what,
              (long long)i, a, b);
}

static double *rows_of(int64_t m, int64_t n, double scale, uint64_t seed)
{
    double *x = gv_test_matrix(m, n, n, seed, 1);
    for (int64_t i = 0; i < m * n; i++)
        x[i] *= scale;
    return x;
}

Test(softmax_oracle, softmax_and_log_softmax_against_another_form)
{
    const int64_t m = 5, n = 37;
    /* scale 1000: logits up to 1000 in magnitude, where exp(x) is +Inf in f64 */
    const double scales[] = {1.0, 30.0, 1000.0};
    for (int s = 0; s < 3; s++) {
        double *x = rows_of(m, n, scales[s], 11 + s);
        double *y = gv_test_alloc(m * n), *l = gv_test_alloc(m * n);
        cr_assert_eq(go_softmax_rows(m, n, x, n, y, n), 0);
        cr_assert_eq(go_softmax_log(m, n, x, n, l, n), 0);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                long double rest = 0; /* sum over k != j of exp(x_k - x_j) */
                for (int64_t k = 0; k < n; k++)
                    if (k != j) rest += expl((long double)x[i * n + k] - x[i * n + j]);
                expect_close(y[i * n + j], 1.0L / (1.0L + rest), "softmax", i * n + j);
                expect_close(l[i * n + j], -log1pl(rest), "log-softmax", i * n + j);
                cr_expect(isfinite(y[i * n + j]) && isfinite(l[i * n + j]));
            }
        free(x);
        free(y);
        free(l);
    }
}

Test(softmax_oracle, naive_form_overflows_where_the_oracle_does_not)
{
    double x[4] = {1000.0, 999.0, 998.0, -1000.0}, y[4], z[4];
    double shifted[4] = {0.0, -1.0, -2.0, -2000.0};
    volatile double big = x[0];
    cr_expect(isinf(exp(big)), "the textbook form overflows here");
    cr_assert_eq(go_softmax_rows(1, 4, x, 4, y, 4), 0);
    cr_assert_eq(go_softmax_rows(1, 4, shifted, 4, z, 4), 0);
    for (int j = 0; j < 4; j++)
        cr_expect_eq(y[j], z[j], "softmax is shift-invariant: %d", j);
    cr_expect_gt(y[0], 0.66);
    cr_expect_eq(y[3], 0.0); /* e^-2000 is below f64's range */
}

Test(softmax_oracle, non_finite_inputs_follow_ieee)
{
    double x[3][3] = {{1.0, NAN, 2.0}, {1.0, INFINITY, 2.0}, {1.0, -INFINITY, 2.0}}, y[3][3],
           l[3][3];
    cr_assert_eq(go_softmax_rows(3, 3, &x[0][0], 3, &y[0][0], 3), 0);
    cr_assert_eq(go_softmax_log(3, 3, &x[0][0], 3, &l[0][0], 3), 0);
    for (int j = 0; j < 3; j++) {
        cr_expect(isnan(y[0][j]) && isnan(y[1][j]), "NaN or +Inf in a row: all NaN");
        cr_expect(isnan(l[0][j]) && isnan(l[1][j]));
    }
    cr_expect_eq(y[2][1], 0.0);
    cr_expect(isinf(l[2][1]) && l[2][1] < 0);
    cr_expect(fabs(y[2][0] + y[2][2] - 1.0) < 1e-15);
}

Test(softmax_oracle, norms_against_shifted_moments)
{
    const int64_t m = 4, n = 53;
    const double offsets[] = {0.0, 1e4};
    for (int s = 0; s < 2; s++) {
        double *x = rows_of(m, n, 3.0, 21 + s);
        for (int64_t i = 0; i < m * n; i++)
            x[i] += offsets[s];
        double *y = gv_test_alloc(m * n), *r = gv_test_alloc(m * n);
        cr_assert_eq(go_norm_layer(m, n, x, n, 1e-5, y, n), 0);
        cr_assert_eq(go_norm_rms(m, n, x, n, 1e-6, r, n), 0);
        for (int64_t i = 0; i < m; i++) {
            /* moments of x - x_0 (exact in long double), then the shift back */
            long double s1 = 0, s2 = 0, sq = 0, x0 = x[i * n];
            for (int64_t j = 0; j < n; j++) {
                long double d = (long double)x[i * n + j] - x0;
                s1 += d;
                s2 += d * d;
                sq += (long double)x[i * n + j] * x[i * n + j];
            }
            long double mean_d = s1 / n, var = s2 / n - mean_d * mean_d;
            long double sd = sqrtl(var + 1e-5L), rms = sqrtl(sq / n + 1e-6L);
            for (int64_t j = 0; j < n; j++) {
                long double c = ((long double)x[i * n + j] - x0) - mean_d;
                /* var from s2/n - mean^2 loses log2(mean^2/var) bits of 64: a few here */
                cr_expect(fabsl(y[i * n + j] - c / sd) <= 0x1p-49L * (1 + fabsl(c / sd)),
                          "layer[%lld]: %.17g against %.20Lg", (long long)(i * n + j), y[i * n + j],
                          c / sd);
                expect_close(r[i * n + j], x[i * n + j] / rms, "rms", i * n + j);
            }
        }
        free(x);
        free(y);
        free(r);
    }
}

/* The L2 and mean-L1 row normalisations against plain long double sums (the terms of one
   sign: no cancellation), and the rms at eps 1e-5 */
Test(softmax_oracle, l2_l1mean_and_rms_eps5_against_long_double)
{
    const int64_t m = 5, n = 77;
    double *x = rows_of(m, n, 3.0, 31);
    double *a = gv_test_alloc(m * n), *b = gv_test_alloc(m * n), *r = gv_test_alloc(m * n);
    cr_assert_eq(go_norm_l2(m, n, x, n, a, n), 0);
    cr_assert_eq(go_norm_l1mean(m, n, x, n, b, n), 0);
    cr_assert_eq(go_norm_rms(m, n, x, n, 1e-5, r, n), 0);
    for (int64_t i = 0; i < m; i++) {
        long double sq = 0, sa = 0;
        for (int64_t j = 0; j < n; j++) {
            sq += (long double)x[i * n + j] * x[i * n + j];
            sa += fabsl((long double)x[i * n + j]);
        }
        for (int64_t j = 0; j < n; j++) {
            long double v = x[i * n + j];
            expect_close(a[i * n + j], v / sqrtl(sq), "l2", i * n + j);
            expect_close(b[i * n + j], v / (sa / n), "l1mean", i * n + j);
            expect_close(r[i * n + j], v / sqrtl(sq / n + 1e-5L), "rms eps5", i * n + j);
        }
    }
    /* a row of zeros is 0 / 0 (NaN) in both, as IEEE's division gives it */
    double z[3] = {0, 0, 0}, yz[3];
    cr_assert_eq(go_norm_l2(1, 3, z, 3, yz, 3), 0);
    cr_expect(isnan(yz[0]) && isnan(yz[2]));
    cr_assert_eq(go_norm_l1mean(1, 3, z, 3, yz, 3), 0);
    cr_expect(isnan(yz[1]));
    cr_expect_lt(go_norm_l2(1, 3, z, 2, yz, 3), 0, "ldx below n");
    free(x);
    free(a);
    free(b);
    free(r);
}

Test(softmax_oracle, gauges_cover_the_result_and_reject_bad_arguments)
{
    const int64_t m = 6, n = 40;
    double *x = rows_of(m, n, 20.0, 5);
    double *y = gv_test_alloc(m * n), *g = gv_test_alloc(m * n);
    cr_assert_eq(go_softmax_rows(m, n, x, n, y, n), 0);
    cr_assert_eq(go_softmax_rows_gauge(m, n, x, n, y, n, 24.0, g, n), 0);
    for (int64_t i = 0; i < m * n; i++)
        cr_expect_geq(g[i], fabs(y[i]));
    cr_assert_eq(go_softmax_log(m, n, x, n, y, n), 0);
    cr_assert_eq(go_softmax_log_gauge(m, n, x, n, y, n, 21.0, g, n), 0);
    for (int64_t i = 0; i < m * n; i++)
        cr_expect_geq(g[i], fabs(y[i]));
    cr_assert_eq(go_norm_layer(m, n, x, n, 1e-5, y, n), 0);
    cr_assert_eq(go_norm_layer_gauge(m, n, x, n, 1e-5, y, n, 0x1p-24, 0x1p-149, 22.0, 12.0, g, n),
                 0);
    for (int64_t i = 0; i < m * n; i++)
        cr_expect_geq(g[i], fabs(y[i]));
    /* go_softmax_arg_units: the largest power of two not above |t| */
    cr_expect_eq(go_softmax_arg_units(-3.0), 2.0);
    cr_expect_eq(go_softmax_arg_units(-4.0), 4.0);
    cr_expect_eq(go_softmax_arg_units(0.0), 0.0);
    cr_expect_eq(go_softmax_arg_units(-INFINITY), 0.0);
    /* LAPACK-style argument checks */
    cr_expect_eq(go_softmax_rows(-1, n, x, n, y, n), -1);
    cr_expect_eq(go_softmax_rows(m, 0, x, n, y, n), -2);
    cr_expect_eq(go_softmax_log(m, n, x, n - 1, y, n), -4);
    cr_expect_eq(go_norm_layer(m, n, x, n, -1.0, y, n), -5);
    cr_expect_eq(go_softmax_rows_gauge(m, n, x, n, y, n, 0.5, g, n), -7);
    free(x);
    free(y);
    free(g);
}

/* The arguments' unit h(t), the largest power of two <= |t| read off t's bits, against frexp's
   2^(e-1) built by ldexp: every binade, subnormals of every size, zeros, inf and NaN. */
Test(softmax_oracle, arg_units_are_frexps_power_of_two)
{
    uint64_t st = 0x2545f4914f6cdd1dULL;
    for (int i = 0; i < 200000; i++) {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        uint64_t b = i % 2 ? st : (st >> (i % 64)) & 0x800fffffffffffffULL; /* odd: any double */
        double t;
        memcpy(&t, &b, sizeof t);
        double want = 0.0;
        if (t != 0 && isfinite(t)) {
            int e;
            frexp(t, &e);
            want = ldexp(1.0, e - 1);
        }
        double h = go_softmax_arg_units(t);
        cr_assert(memcmp(&h, &want, sizeof h) == 0, "%a: %a, frexp's %a", t, h, want);
    }
}
