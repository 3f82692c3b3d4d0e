/* oracle_bnorm.c: norm.batch's oracle (oracle/bnorm.c) against batch norm computed directly on
 * the NCHW tensor in __float128 (the two-pass mean and biased variance of each channel over
 * N H W), including a channel whose mean is far from zero; its non-finite outcome (a NaN
 * makes its channel NaN, the others stay finite); and its bad arguments. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "go.h"
#include "testkit.h"

Test(bnorm_oracle, against_float128_on_nchw)
{
    const int64_t nb = 3, nc = 4, hw = 35, count = nb * nc * hw;
    double *x = gv_test_matrix(1, count, count, 41, 0);
    for (int64_t i = 0; i < nb; i++) /* channel 2 offset by 1000: its mean dominates */
        for (int64_t p = 0; p < hw; p++)
            x[(i * nc + 2) * hw + p] += 1000.0;
    double *y = gv_test_alloc(count);
    cr_assert_eq(go_norm_batch(nb, nc, hw, x, 1e-5, y), 0);
    for (int64_t c = 0; c < nc; c++) {
        __float128 s = 0, q = 0;
        for (int64_t i = 0; i < nb; i++)
            for (int64_t p = 0; p < hw; p++)
                s += x[(i * nc + c) * hw + p];
        __float128 mean = s / (nb * hw);
        for (int64_t i = 0; i < nb; i++)
            for (int64_t p = 0; p < hw; p++) {
                __float128 d = x[(i * nc + c) * hw + p] - mean;
                q += d * d;
            }
        long double sd = sqrtl((long double)(q / (nb * hw) + (__float128)1e-5));
        for (int64_t i = 0; i < nb; i++)
            for (int64_t p = 0; p < hw; p++) {
                int64_t at = (i * nc + c) * hw + p;
                double t = (double)((long double)(x[at] - mean) / sd);
                cr_expect(fabs(y[at] - t) <= 0x1p-50 * (1.0 + fabs(t)),
                          "channel %lld y[%lld] = %.17g, truth %.17g", (long long)c, (long long)at,
                          y[at], t);
            }
    }
    free(x);
    free(y);
}

Test(bnorm_oracle, a_nan_spoils_its_channel_only)
{
    double x[2 * 2 * 2] = {1, 2, 3, 4, NAN, 6, 7, 8}, y[8]; /* NaN in image 1, channel 0 */
    cr_assert_eq(go_norm_batch(2, 2, 2, x, 1e-5, y), 0);
    cr_expect(isnan(y[0]) && isnan(y[1]) && isnan(y[4]) && isnan(y[5]));
    cr_expect(isfinite(y[2]) && isfinite(y[3]) && isfinite(y[6]) && isfinite(y[7]));
}

Test(bnorm_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, y[4];
    cr_expect_eq(go_norm_batch(0, 1, 4, x, 1e-5, y), -1);
    cr_expect_eq(go_norm_batch(1, -1, 4, x, 1e-5, y), -2);
    cr_expect_eq(go_norm_batch(1, 1, 0, x, 1e-5, y), -3);
    cr_expect_eq(go_norm_batch(1, 1, 4, NULL, 1e-5, y), -4);
    cr_expect_eq(go_norm_batch(1, 1, 4, x, 1e-5, NULL), -6);
}
