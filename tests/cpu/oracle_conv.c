/* oracle_conv.c: the convolution oracle (oracle/conv.c) against sums in __float128 written out
 * by hand at small sizes (padding, stride 2, a plane of one row), its gauge g >= |y|, a window
 * that is not flipped (a correlation, as conv2d), and its bad arguments. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "../../abi/conv.h"
#include "go.h"
#include "testkit.h"

static void check_against_float128(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o,
                                   int64_t kh, int64_t kw, int64_t st, int64_t ph, int64_t pw)
{
    const int64_t oh = gk_conv_out_side(h, kh, st, ph), ow = gk_conv_out_side(w, kw, st, pw);
    double *x = gv_test_matrix(n * c * h, w, w, 51, 0);
    double *wt = gv_test_matrix(o * c * kh, kw, kw, 52, 0);
    double *b = gv_test_matrix(1, o, o, 53, 0);
    double *y = gv_test_alloc(n * o * oh * ow), *g = gv_test_alloc(n * o * oh * ow);
    cr_assert_eq(go_conv(n, c, h, w, o, kh, kw, st, ph, pw, x, wt, b, y), 0);
    cr_assert_eq(go_conv_gauge(n, c, h, w, o, kh, kw, st, ph, pw, x, wt, b, g), 0);
    for (int64_t q = 0; q < n; q++)
        for (int64_t oc = 0; oc < o; oc++)
            for (int64_t i = 0; i < oh; i++)
                for (int64_t j = 0; j < ow; j++) {
                    __float128 sum = b[oc];
                    for (int64_t ci = 0; ci < c; ci++)
                        for (int64_t a = 0; a < kh; a++)
                            for (int64_t e = 0; e < kw; e++) {
                                int64_t r = i * st - ph + a, col = j * st - pw + e;
                                if (r < 0 || r >= h || col < 0 || col >= w) continue;
                                sum += (__float128)x[((q * c + ci) * h + r) * w + col] *
                                       wt[((oc * c + ci) * kh + a) * kw + e];
                            }
                    int64_t at = ((q * o + oc) * oh + i) * ow + j;
                    double want = (double)sum;
                    /* one f64 rounding, and K 2^-64 of the gauge for the long double sum (K <= 2^7)
                     */
                    cr_expect(fabs(y[at] - want) <= 0x1p-53 * fabs(want) + 0x1p-56 * g[at],
                              "%lldx%lld stride %lld: y[%lld] %.17g, float128 %.17g", (long long)kh,
                              (long long)kw, (long long)st, (long long)at, y[at], want);
                    cr_expect(g[at] >= fabs(y[at]), "gauge below |y| at %lld", (long long)at);
                }
    free(x);
    free(wt);
    free(b);
    free(y);
    free(g);
}

Test(conv_oracle, against_float128_with_padding_stride_and_one_row)
{
    check_against_float128(2, 3, 7, 5, 4, 3, 3, 1, 1, 1);   /* conv.2d */
    check_against_float128(1, 2, 11, 11, 3, 7, 7, 2, 3, 3); /* conv.2d.k7s2 */
    check_against_float128(2, 5, 4, 4, 2, 1, 1, 1, 0, 0);   /* conv.2d.k1 */
    check_against_float128(3, 4, 1, 19, 5, 1, 3, 1, 0, 1);  /* conv.1d */
}

/* A window with a single 1 at its top-left picks the input up and to the left of the output
   (a correlation); a convolution (the window flipped) would pick it down and to the right. */
Test(conv_oracle, correlation_not_convolution)
{
    double x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, wt[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0}, b = 0.5, y[9];
    cr_assert_eq(go_conv(1, 1, 3, 3, 1, 3, 3, 1, 1, 1, x, wt, &b, y), 0);
    cr_expect_eq(y[4], 1.5, "centre: x(0, 0) + bias");
    cr_expect_eq(y[8], 5.5, "bottom right: x(1, 1) + bias");
    cr_expect_eq(y[0], 0.5, "top left: the padding's zero + bias");
}

Test(conv_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, w[4] = {0}, b[1] = {0}, y[4];
    cr_expect_eq(go_conv(-1, 1, 2, 2, 1, 1, 1, 1, 0, 0, x, w, b, y), -1);
    cr_expect_eq(go_conv(1, 0, 2, 2, 1, 1, 1, 1, 0, 0, x, w, b, y), -2);
    cr_expect_eq(go_conv(1, 1, 2, 2, 1, 1, 1, 0, 0, 0, x, w, b, y), -8);
    cr_expect_eq(go_conv(1, 1, 2, 2, 1, 3, 3, 1, 3, 1, x, w, b, y), -9);
    cr_expect_eq(go_conv(1, 1, 2, 2, 1, 1, 1, 1, 0, 0, x, w, NULL, y), -13);
}
