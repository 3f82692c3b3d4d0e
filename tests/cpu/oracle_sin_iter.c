/* oracle_sin_iter.c: the sin_iter family's oracle (seed 000): the f64 oracle against a long
 * double iteration and glibc's per-call sin error, special values, argument checks, and the
 * decay bound the expected tiers rest on. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/gen.h"
#include "go.h"

/* normwise ||y - ref|| / ||ref|| of go_sin_iter against sinl iterated in long double */
static double sin_iter_vs_long_double(int64_t n, int64_t k, gv_dist dist, uint64_t seed)
{
    double *x = malloc(sizeof(double) * (size_t)n);
    double *y = malloc(sizeof(double) * (size_t)n);
    cr_assert(x && y);
    gv_gen_fill(x, n, dist, GV_F64, seed, 0);
    cr_assert_eq(go_sin_iter(n, k, x, y), 0);
    long double err2 = 0, ref2 = 0;
    for (int64_t i = 0; i < n; i++) {
        long double v = x[i];
        for (int64_t j = 0; j < k; j++)
            v = sinl(v);
        long double e = (long double)y[i] - v;
        err2 += e * e;
        ref2 += v * v;
    }
    free(x);
    free(y);
    return (double)sqrtl(err2 / ref2);
}

Test(oracle_sin_iter, matches_long_double_reference)
{
    const int64_t ks[] = {1, 10, 100, 1000};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        double e01 = sin_iter_vs_long_double(257, ks[i], GV_DIST_UNIFORM01, 3);
        double e11 = sin_iter_vs_long_double(300, ks[i], GV_DIST_UNIFORM11, 4);
        cr_log_info("k=%lld: normwise %.3g (uniform01), %.3g (uniform11)", (long long)ks[i], e01,
                    e11);
        cr_expect_leq(e01, 1e-14, "k=%lld uniform01: normwise %.3g", (long long)ks[i], e01);
        cr_expect_leq(e11, 1e-14, "k=%lld uniform11: normwise %.3g", (long long)ks[i], e11);
    }
}

/* The oracle's error claim: glibc's double sin is within 1 ulp on the iterates' range. */
Test(oracle_sin_iter, glibc_sin_is_within_one_ulp_on_the_unit_interval)
{
    double worst = 0;
    for (int64_t i = 0; i < 200000; i++) {
        double x = 2.0 * gv_gen_unit(5, 0, (uint64_t)i) - 1.0;
        long double t = sinl((long double)x);
        double y = sin(x);
        if (y == 0) continue;
        double ulp = ldexp(1.0, ilogb(y) - 52);
        double e = (double)fabsl((long double)y - t) / ulp;
        if (e > worst) worst = e;
    }
    cr_log_info("glibc sin on [-1,1): max error %.3f ulp", worst);
    cr_expect_leq(worst, 1.0, "glibc sin errs %.3f ulp", worst);
}

Test(oracle_sin_iter, special_values_and_k_zero)
{
    double x[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 0x1p-1060, 0.5};
    double y[7];
    cr_assert_eq(go_sin_iter(7, 3, x, y), 0);
    cr_expect_eq(y[0], 0.0);
    cr_expect(signbit(y[1]), "sin keeps -0");
    cr_expect(isnan(y[2]) && isnan(y[3]) && isnan(y[4]), "sin(+-Inf), sin(NaN) are NaN");
    cr_expect_eq(y[5], 0x1p-1060, "a subnormal is its own sine");
    cr_assert_eq(go_sin_iter(7, 0, x, y), 0);
    cr_expect_eq(y[6], 0.5, "k = 0 is the identity");
}

Test(oracle_sin_iter, bad_arguments_give_their_index)
{
    double x[2] = {0.1, 0.2}, y[2];
    cr_expect_eq(go_sin_iter(-1, 1, x, y), -1);
    cr_expect_eq(go_sin_iter(2, -1, x, y), -2);
    cr_expect_eq(go_sin_iter(2, 1, NULL, y), -3);
    cr_expect_eq(go_sin_iter(2, 1, x, NULL), -4);
}

/* The expected tiers use |sin^k x| <= 1/sqrt(1 + k/3) for |x| <= 1. */
Test(oracle_sin_iter, iterated_sine_decays_below_the_bound_the_tiers_use)
{
    for (int q = 0; q <= 40; q++) {
        double x = q / 40.0, v = x;
        for (int k = 1; k <= 20000; k++) {
            v = sin(v);
            cr_assert_leq(fabs(v), 1.0 / sqrt(1.0 + k / 3.0) * (1 + 1e-12), "x=%g k=%d: %.17g", x,
                          k, v);
        }
    }
}
