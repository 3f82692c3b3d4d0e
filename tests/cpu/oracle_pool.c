/* oracle_pool.c: the pooling oracles (oracle/pool.c) against windows summed in __float128 and
 * maxima found by hand, at small sizes, with an uneven plane (h, w not multiples of k), NaN
 * propagation, and the average's gauge g >= |y|. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "go.h"
#include "testkit.h"

Test(pool_oracle, windows_against_float128_and_by_hand)
{
    const int64_t nc = 3, h = 11, w = 7, k = 3, oh = 3, ow = 2;
    double *x = gv_test_matrix(nc * h, w, w, 41, 0);
    double mx[18], av[18], g[18];
    cr_assert_eq(go_pool_max2d(nc, h, w, k, x, mx), 0);
    cr_assert_eq(go_pool_avg2d(nc, h, w, k, x, av), 0);
    cr_assert_eq(go_pool_avg2d_gauge(nc, h, w, k, x, g), 0);
    for (int64_t p = 0; p < nc; p++)
        for (int64_t i = 0; i < oh; i++)
            for (int64_t j = 0; j < ow; j++) {
                __float128 sum = 0;
                double big = -INFINITY;
                for (int64_t a = 0; a < k; a++)
                    for (int64_t b = 0; b < k; b++) {
                        double v = x[(p * h + i * k + a) * w + j * k + b];
                        sum += v;
                        big = v > big ? v : big;
                    }
                int64_t o = (p * oh + i) * ow + j;
                double mean = (double)(sum / 9);
                cr_expect_eq(mx[o], big, "max %lld", (long long)o);
                cr_expect(fabs(av[o] - mean) <= 0x1p-52 * fabs(mean), "mean %lld: %.17g vs %.17g",
                          (long long)o, av[o], mean);
                cr_expect(g[o] >= fabs(av[o]));
            }
    free(x);
}

Test(pool_oracle, nan_propagates_and_bad_arguments_name_themselves)
{
    double x[4] = {1.0, NAN, 3.0, 2.0}, y[1];
    cr_assert_eq(go_pool_max2d(1, 2, 2, 2, x, y), 0);
    cr_expect(isnan(y[0]), "a NaN in the window: NaN, as max_pool2d");
    double z[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    cr_assert_eq(go_pool_max2d(1, 2, 2, 2, z, y), 0);
    cr_expect(isinf(y[0]) && y[0] < 0);
    cr_expect_eq(go_pool_max2d(-1, 2, 2, 2, x, y), -1);
    cr_expect_eq(go_pool_max2d(1, 1, 2, 2, x, y), -2);
    cr_expect_eq(go_pool_max2d(1, 2, 1, 2, x, y), -3);
    cr_expect_eq(go_pool_avg2d(1, 2, 2, 0, x, y), -4);
    cr_expect_eq(go_pool_avg2d(1, 2, 2, 2, NULL, y), -5);
}
