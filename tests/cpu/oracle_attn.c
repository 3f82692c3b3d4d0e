/* oracle_attn.c: the attention oracle (oracle/attn.c) against the same attention in __float128
 * (libquadmath's expq) at small sizes, full and causal, on scores of a wide spread; the causal
 * first row is V's first row exactly; its gauge g >= |y|; its bad arguments. */
#include <criterion/criterion.h>
#include <math.h>
#include <quadmath.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"
#include "testkit.h"

static void check_against_float128(int64_t b, int64_t h, int64_t s, int64_t d, int causal,
                                   double spread)
{
    int64_t n = b * h * s * d;
    double *q = gv_test_matrix(b * h * s, d, d, 61, 0), *k = gv_test_matrix(b * h * s, d, d, 62, 0);
    double *v = gv_test_matrix(b * h * s, d, d, 63, 0);
    for (int64_t i = 0; i < n; i++)
        q[i] *= spread;
    double *y = gv_test_alloc(n), *g = gv_test_alloc(n);
    cr_assert_eq(go_attn_sdpa(b, h, s, d, causal, q, k, v, y), 0);
    cr_assert_eq(go_attn_sdpa_gauge(b, h, s, d, causal, q, k, v, y, 0x1p-24, 5.0, 0x1p-149,
                                    (double)(s + d + 20), g),
                 0);
    __float128 *sc = malloc((size_t)s * sizeof *sc);
    for (int64_t row = 0; row < b * h * s; row++) {
        int64_t bh = row / s, i = row % s, keys = causal ? i + 1 : s;
        __float128 mx = -INFINITY, sum = 0;
        double amax = 0; /* the largest sum |q||k| / sqrt(d) of the row */
        for (int64_t j = 0; j < keys; j++) {
            __float128 acc = 0, a = 0;
            for (int64_t l = 0; l < d; l++) {
                acc += (__float128)q[row * d + l] * k[(bh * s + j) * d + l];
                a += fabsq((__float128)q[row * d + l] * k[(bh * s + j) * d + l]);
            }
            amax = fmax(amax, (double)(a / sqrtq((__float128)d)));
            sc[j] = acc / sqrtq((__float128)d);
            if (sc[j] > mx) mx = sc[j];
        }
        for (int64_t j = 0; j < keys; j++) {
            sc[j] = expq(sc[j] - mx);
            sum += sc[j];
        }
        for (int64_t c = 0; c < d; c++) {
            __float128 acc = 0, mag = 0;
            for (int64_t j = 0; j < keys; j++) {
                acc += sc[j] * v[(bh * s + j) * d + c];
                mag += sc[j] * fabsq(v[(bh * s + j) * d + c]);
            }
            double want = (double)(acc / sum), scale = (double)(mag / sum);
            int64_t at = row * d + c;
            /* one f64 rounding of y, and long double's scores (d 2^-64 of sum |q||k|, through
               exp: relative in the weights) and sums: 2^7 below what an f64 kernel is allowed,
               u ((d + 6) a + s) of sum w |v| */
            double tol = 0x1p-53 * fabs(want) + 0x1p-60 * (1.0 + (double)d * amax) * scale;
            cr_expect(fabs(y[at] - want) <= tol,
                      "row %lld col %lld: %.17g, float128 %.17g (spread %g)", (long long)row,
                      (long long)c, y[at], want, spread);
            cr_expect(g[at] >= fabs(y[at]));
        }
    }
    free(sc);
    free(q);
    free(k);
    free(v);
    free(y);
    free(g);
}

Test(attn_oracle, against_float128_full_and_causal)
{
    check_against_float128(2, 2, 7, 5, 0, 1.0);
    check_against_float128(1, 3, 33, 16, 1, 1.0);
    check_against_float128(1, 1, 64, 8, 0, 300.0); /* scores of hundreds: near one-hot rows */
    check_against_float128(1, 1, 64, 8, 1, 300.0);
}

Test(attn_oracle, causal_first_row_is_the_first_value_row)
{
    double q[12], k[12], v[12], y[12];
    for (int i = 0; i < 12; i++) {
        q[i] = 0.1 * i - 0.5;
        k[i] = 0.3 - 0.07 * i;
        v[i] = 1.0 + i;
    }
    cr_assert_eq(go_attn_sdpa(1, 1, 3, 4, 1, q, k, v, y), 0);
    for (int c = 0; c < 4; c++)
        cr_expect_eq(y[c], v[c], "one key, weight 1");
}

Test(attn_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, y[4];
    cr_expect_eq(go_attn_sdpa(-1, 1, 1, 1, 0, x, x, x, y), -1);
    cr_expect_eq(go_attn_sdpa(1, 1, 0, 1, 0, x, x, x, y), -3);
    cr_expect_eq(go_attn_sdpa(1, 1, 1, 0, 0, x, x, x, y), -4);
    cr_expect_eq(go_attn_sdpa(1, 1, 1, 1, 0, x, NULL, x, y), -7);
}

/* Each output as one long double sum over the keys in order, weight exp(s_j - M) times V's
   value, over the sum of the weights: the oracle sums four of a row's outputs at once and
   must give each this sum's bits (d = 6: a group of four and a remainder of two). */
Test(attn_oracle, each_output_is_its_own_sum_bit_for_bit)
{
    const int64_t b = 1, h = 2, s = 9, d = 6, n = b * h * s * d;
    double *q = gv_test_matrix(b * h * s, d, d, 81, 0), *k = gv_test_matrix(b * h * s, d, d, 82, 0);
    double *v = gv_test_matrix(b * h * s, d, d, 83, 0), *y = gv_test_alloc(n);
    long double sc[9];
    for (int causal = 0; causal < 2; causal++) {
        cr_assert_eq(go_attn_sdpa(b, h, s, d, causal, q, k, v, y), 0);
        for (int64_t row = 0; row < b * h * s; row++) {
            const int64_t bh = row / s, i = row % s, keys = causal ? i + 1 : s;
            long double mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < keys; j++) {
                long double acc = 0;
                for (int64_t l = 0; l < d; l++)
                    acc += (long double)q[row * d + l] * k[(bh * s + j) * d + l];
                sc[j] = acc * (1.0L / sqrtl((long double)d));
                if (sc[j] > mx) mx = sc[j];
            }
            for (int64_t j = 0; j < keys; j++) {
                sc[j] = expl(sc[j] - mx);
                sum += sc[j];
            }
            for (int64_t c = 0; c < d; c++) {
                long double acc = 0;
                for (int64_t j = 0; j < keys; j++)
                    acc += sc[j] * v[(bh * s + j) * d + c];
                double want = (double)(acc / sum);
                cr_expect(memcmp(&y[row * d + c], &want, sizeof want) == 0,
                          "causal %d row %lld column %lld: %a against %a", causal, (long long)row,
                          (long long)c, y[row * d + c], want);
            }
        }
    }
    free(q), free(k), free(v), free(y);
}
