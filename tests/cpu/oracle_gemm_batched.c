/* oracle_gemm_batched.c: go_gemm_batched (oracle/gemm.c) against dot products in long double
 * for each transpose, its gauges (|op(A)||op(B)| >= |C|, the sq-gauge's root of squares) and
 * its argument checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "go.h"
#include "testkit.h"

Test(gemm_batched_oracle, every_transpose_against_long_double)
{
    const int64_t nb = 3, m = 7, k = 33, n = 5;
    double *a = gv_test_matrix(nb * m, k, k, 41, 0), *b = gv_test_matrix(nb * k, n, n, 42, 0);
    double *c = gv_test_alloc(nb * m * n), *g = gv_test_alloc(nb * m * n),
           *s = gv_test_alloc(nb * m * n);
    for (int trans = 0; trans < 4; trans++) {
        cr_assert_eq(go_gemm_batched(GO_GEMM_VALUE, trans, nb, m, k, n, a, b, c), 0);
        cr_assert_eq(go_gemm_batched(GO_GEMM_GAUGE, trans, nb, m, k, n, a, b, g), 0);
        cr_assert_eq(go_gemm_batched(GO_GEMM_SQGAUGE, trans, nb, m, k, n, a, b, s), 0);
        for (int64_t q = 0; q < nb; q++)
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < n; j++) {
                    long double dot = 0, mag = 0, sq = 0;
                    for (int64_t l = 0; l < k; l++) {
                        /* A stored k x m per batch under TRANS_A, B stored n x k under TRANS_B:
                           the same packed values read the other way */
                        double av = trans & GO_GEMM_TRANS_A ? a[q * m * k + l * m + i]
                                                            : a[q * m * k + i * k + l];
                        double bv = trans & GO_GEMM_TRANS_B ? b[q * k * n + j * k + l]
                                                            : b[q * k * n + l * n + j];
                        dot += (long double)av * bv;
                        mag += fabsl((long double)av * bv);
                        sq += (long double)av * av * bv * bv;
                    }
                    int64_t o = (q * m + i) * n + j;
                    cr_expect(fabs(c[o] - (double)dot) <= 0x1p-50 * (double)mag,
                              "trans %d C[%lld] = %.17g, long double %.17g", trans, (long long)o,
                              c[o], (double)dot);
                    cr_expect(fabs(g[o] - (double)mag) <= 0x1p-50 * (double)mag, "gauge");
                    cr_expect(g[o] >= fabs(c[o]) * (1 - 0x1p-50), "gauge below |C|");
                    cr_expect(fabsl(s[o] - sqrtl(sq)) <= 0x1p-48L * sqrtl(sq), "sq-gauge");
                }
    }
    free(a);
    free(b);
    free(c);
    free(g);
    free(s);
}

Test(gemm_batched_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, y[4];
    cr_expect_eq(go_gemm_batched(3, 0, 1, 1, 1, 1, x, x, y), -1);
    cr_expect_eq(go_gemm_batched(GO_GEMM_VALUE, 4, 1, 1, 1, 1, x, x, y), -2);
    cr_expect_eq(go_gemm_batched(GO_GEMM_VALUE, 0, -1, 1, 1, 1, x, x, y), -3);
    cr_expect_eq(go_gemm_batched(GO_GEMM_VALUE, 0, 1, -1, 1, 1, x, x, y), -4);
    cr_expect_eq(go_gemm_batched(GO_GEMM_VALUE, 0, 1, 1, 1, 1, NULL, x, y), -7);
    cr_expect_eq(go_gemm_batched(GO_GEMM_VALUE, 0, 1, 1, 1, 1, x, x, NULL), -9);
}
