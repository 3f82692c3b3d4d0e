/* oracle_gemm.c: the gemm oracle (oracle/gemm.c) against a long double product on small
 * sizes, its gauge |A||B|, its LAPACKE-style argument checks, and the oracle's error convention
 * reaching a case's reason. long double is x87 extended here (64-bit significand, u = 2^-64),
 * 2^11 times tighter than f64: the truth the oracle is held to. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "go.h"
#include "ops/opkit.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

/* ||got - want||_F / ||want||_F over an m x n result with leading dimension ld. */
static long double normwise(int64_t m, int64_t n, const double *got, int64_t ld,
                            const long double *want)
{
    long double e = 0, r = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double d = (long double)got[i * ld + j] - want[i * n + j];
            e += d * d;
            r += want[i * n + j] * want[i * n + j];
        }
    return sqrtl(e) / sqrtl(r);
}

static void check_product(int64_t m, int64_t k, int64_t n, int64_t pad)
{
    int64_t lda = k + pad, ldb = n + pad, ldc = n + pad;
    double *a = gv_test_matrix(m, k, lda, 17, 0), *b = gv_test_matrix(k, n, ldb, 17, 1);
    double *c = malloc((size_t)(m * ldc) * sizeof *c), *g = malloc((size_t)(m * ldc) * sizeof *g);
    long double *c_ld = malloc((size_t)(m * n) * sizeof *c_ld);
    long double *g_ld = malloc((size_t)(m * n) * sizeof *g_ld);
    cr_assert(c && g && c_ld && g_ld);
    for (int64_t i = 0; i < m * ldc; i++)
        c[i] = g[i] = -7.0; /* padding must stay as is */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0, sa = 0;
            for (int64_t l = 0; l < k; l++) {
                s += (long double)a[i * lda + l] * b[l * ldb + j];
                sa += fabsl((long double)a[i * lda + l]) * fabsl((long double)b[l * ldb + j]);
            }
            c_ld[i * n + j] = s;
            g_ld[i * n + j] = sa;
        }
    cr_assert_eq(go_gemm(m, k, n, a, lda, b, ldb, c, ldc), 0);
    cr_assert_eq(go_gemm_gauge(m, k, n, a, lda, b, ldb, g, ldc), 0);
    long double err = normwise(m, n, c, ldc, c_ld);
    cr_expect(err <= 1e-14L, "%ldx%ldx%ld pad %ld: normwise error %Lg", (long)m, (long)k, (long)n,
              (long)pad, err);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double gi = g[i * ldc + j], ci = c[i * ldc + j];
            long double want = g_ld[i * n + j];
            cr_expect(gi >= fabs(ci), "gauge %g below |C| %g at (%ld, %ld)", gi, ci, (long)i,
                      (long)j);
            cr_expect(fabsl(gi - want) <= 1e-14L * want, "gauge %g vs |A||B| %Lg at (%ld,%ld)", gi,
                      want, (long)i, (long)j);
        }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = n; j < ldc; j++)
            cr_expect(c[i * ldc + j] == -7.0 && g[i * ldc + j] == -7.0,
                      "padding of C written at (%ld, %ld)", (long)i, (long)j);
    free(a);
    free(b);
    free(c);
    free(g);
    free(c_ld);
    free(g_ld);
}

/* Operands near 2^-530 and 2^-520 (the `tiny` dist's window for a product): every product lies
   in the f64 subnormals. The oracle lifts the operands by powers of two, multiplies in the normal
   range and rounds each result once into the subnormals, so each entry of C and of |A||B| is
   within one subnormal spacing (2^-1074) of the long double truth (x87: no underflow there);
   underflowing each of the k products on its own, as a plain dgemm does, errs by up to
   k 2^-1075. The spread sqrt((A o A)(B o B)) likewise, to 1e-14 relative: it once came out 0,
   its two scales multiplied past the doubles. */
Test(oracle_gemm, products_in_the_subnormals_round_once)
{
    const int64_t m = 17, k = 64, n = 19;
    double *a = gv_test_matrix(m, k, k, 29, 0), *b = gv_test_matrix(k, n, n, 29, 1);
    for (int64_t i = 0; i < m * k; i++)
        a[i] = ldexp(a[i], -530);
    for (int64_t i = 0; i < k * n; i++)
        b[i] = ldexp(b[i], -520);
    double *c = malloc(sizeof *c * (size_t)(m * n)), *g = malloc(sizeof *g * (size_t)(m * n));
    double *sq = malloc(sizeof *sq * (size_t)(m * n));
    cr_assert(c && g && sq);
    cr_assert_eq(go_gemm(m, k, n, a, k, b, n, c, n), 0);
    cr_assert_eq(go_gemm_gauge(m, k, n, a, k, b, n, g, n), 0);
    cr_assert_eq(go_gemm_sqgauge(m, k, n, a, k, b, n, sq, n), 0);
    int nonzero = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0, sa = 0, ss = 0;
            for (int64_t l = 0; l < k; l++) {
                long double p = (long double)a[i * k + l] * b[l * n + j];
                s += p;
                sa += fabsl(p);
                ss += p * p; /* near 2^-2100: long double goes down to 2^-16382 */
            }
            double ci = c[i * n + j], gi = g[i * n + j], qi = sq[i * n + j];
            nonzero += ci != 0.0;
            cr_expect(fabsl(ci - s) <= 0x1p-1074L, "C(%ld,%ld) %a vs %La", (long)i, (long)j, ci, s);
            cr_expect(fabsl(gi - sa) <= 0x1p-1074L, "|A||B|(%ld,%ld) %a vs %La", (long)i, (long)j,
                      gi, sa);
            long double want = sqrtl(ss);
            cr_expect(fabsl(qi - want) <= 1e-14L * want + 0x1p-1074L, "spread(%ld,%ld) %a vs %La",
                      (long)i, (long)j, qi, want);
        }
    cr_expect(nonzero > m * n / 2, "the products must not all underflow to 0: %d", nonzero);
    free(a);
    free(b);
    free(c);
    free(g);
    free(sq);
}

Test(oracle_gemm, matches_long_double_17x23x19)
{
    check_product(17, 23, 19, 0);
}
Test(oracle_gemm, matches_long_double_64x64x64)
{
    check_product(64, 64, 64, 0);
}
Test(oracle_gemm, matches_long_double_1x1x1)
{
    check_product(1, 1, 1, 0);
}
Test(oracle_gemm, honours_leading_dimensions)
{
    check_product(17, 23, 19, 5);
}
Test(oracle_gemm, matches_long_double_tall_thin)
{
    check_product(129, 3, 2, 1);
}

Test(oracle_gemm, empty_inner_dimension_gives_zeros)
{
    /* k = 0: every C(i, j) is an empty sum, 0, whatever C held before */
    double a[1] = {1}, b[3] = {1, 2, 3}, c[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
    cr_assert_eq(go_gemm(2, 0, 3, a, 1, b, 3, c, 3), 0);
    for (int i = 0; i < 6; i++)
        cr_expect_eq(c[i], 0.0, "c[%d] = %g", i, c[i]);
}

Test(oracle_gemm, bad_arguments_name_their_index)
{
    double a[16] = {0}, b[16] = {0}, c[16];
    /* go_gemm(m, k, n, a, lda, b, ldb, c, ldc): arguments 1..9 */
    cr_expect_eq(go_gemm(-1, 2, 2, a, 2, b, 2, c, 2), -1);
    cr_expect_eq(go_gemm(2, -1, 2, a, 2, b, 2, c, 2), -2);
    cr_expect_eq(go_gemm(2, 2, -1, a, 2, b, 2, c, 2), -3);
    cr_expect_eq(go_gemm(2, 2, 2, NULL, 2, b, 2, c, 2), -4);
    cr_expect_eq(go_gemm(2, 3, 2, a, 2, b, 2, c, 2), -5, "lda < k");
    cr_expect_str_eq(go_last_error(), "go_gemm: argument 5 (lda) is invalid");
    cr_expect_eq(go_gemm(2, 2, 2, a, 2, NULL, 2, c, 2), -6);
    cr_expect_eq(go_gemm(2, 2, 3, a, 2, b, 2, c, 3), -7, "ldb < n");
    cr_expect_eq(go_gemm(2, 2, 2, a, 2, b, 2, NULL, 2), -8);
    cr_expect_eq(go_gemm(2, 2, 3, a, 2, b, 3, c, 2), -9, "ldc < n");
    cr_expect_eq(go_gemm(2, 0, 2, a, 0, b, 2, c, 2), -5, "lda >= 1 even for k = 0");
    /* CBLAS takes int: sizes past INT_MAX must be refused, not wrapped (checked before any
       element is touched, so the small buffers are safe) */
    int64_t big = (int64_t)INT32_MAX + 2;
    cr_expect_eq(go_gemm(big, 1, 1, a, 1, b, 1, c, 1), -1);
    cr_expect_eq(go_gemm(1, big, 1, a, big, b, 1, c, 1), -2);
    cr_expect_eq(go_gemm(1, 1, big, a, 1, b, big, c, big), -3);
    cr_expect_eq(go_gemm(1, 1, 1, a, big, b, 1, c, 1), -5);
    cr_expect_eq(go_gemm(1, 1, 1, a, 1, b, big, c, 1), -7);
    cr_expect_eq(go_gemm(1, 1, 1, a, 1, b, 1, c, big), -9);
    /* the gauge has the same signature and the same checks */
    cr_expect_eq(go_gemm_gauge(-1, 2, 2, a, 2, b, 2, c, 2), -1);
    cr_expect_eq(go_gemm_gauge(2, 2, 2, NULL, 2, b, 2, c, 2), -4);
    cr_expect_eq(go_gemm_gauge(2, 3, 2, a, 2, b, 2, c, 2), -5);
    cr_expect_eq(go_gemm_gauge(2, 2, 2, a, 2, b, 2, NULL, 2), -8);
    cr_expect_eq(go_gemm_gauge(2, 2, 3, a, 2, b, 3, c, 2), -9);
    cr_expect_str_eq(go_last_error(), "go_gemm_gauge: argument 9 (ldg) is invalid");
    /* and the good call is 0 */
    cr_expect_eq(go_gemm(2, 2, 2, a, 2, b, 2, c, 2), 0);
    cr_expect_eq(go_gemm(0, 2, 2, a, 2, b, 2, c, 2), 0, "an empty product is fine");
}

/* The error convention of oracle/go.h: a named memory code far below any argument index,
   and the bad argument's index and name in go_last_error(), which gv_oracle_reason puts in
   the case's ERROR reason (with gv_strerror's text when the oracle recorded nothing). */
Test(oracle_gemm, errors_reach_the_reason_with_index_and_name)
{
    cr_expect_lt(GO_ENOMEM, -100);
    cr_expect_eq(gv_oracle_rc(0), GV_OK);
    cr_expect_eq(gv_oracle_rc(-5), GV_EINVAL);
    cr_expect_eq(gv_oracle_rc(GO_ENOMEM), GV_ENOMEM);
    double a[4] = {0}, b[4] = {0}, c[4];
    char why[160];
    go_clear_error();
    cr_expect_str_eq(go_last_error(), "");
    gv_oracle_reason(GV_ENOMEM, "oracle", why, sizeof why);
    char want[160];
    snprintf(want, sizeof want, "oracle: %s (ENOMEM)", gv_strerror(GV_ENOMEM));
    cr_expect_str_eq(why, want, "no message recorded: gv_strerror's, with the code's name");
    int rc = go_gemm(2, 2, 2, a, 1, b, 2, c, 2);
    cr_expect_eq(rc, -5);
    gv_oracle_reason(gv_oracle_rc(rc), "oracle", why, sizeof why);
    cr_expect_str_eq(why, "oracle: go_gemm: argument 5 (lda) is invalid");
    cr_expect_eq(go_enomem("go_test"), GO_ENOMEM);
    cr_expect_str_eq(go_last_error(), "go_test: out of memory");
    cr_expect_eq(go_xerbla("go_test", 12, "ldg"), -12);
    cr_expect_str_eq(go_last_error(), "go_test: argument 12 (ldg) is invalid");
}

/* go_gemm_gauge_given: bit for bit go_gemm_gauge, by the copy on non-negative inputs (a -0 and
   zeros among them) and by its own product on signed ones or a NaN. */
static void check_given(int64_t m, int64_t k, int64_t n, int sign, double nan_at)
{
    int64_t lda = k + 1, ldb = n, ldc = n + 2;
    double *a = gv_test_matrix(m, k, lda, 29, 0), *b = gv_test_matrix(k, n, ldb, 29, 1);
    double *c = malloc((size_t)(m * ldc) * sizeof *c), *g1 = malloc((size_t)(m * n) * sizeof *g1);
    double *g2 = malloc((size_t)(m * n) * sizeof *g2);
    cr_assert(a && b && c && g1 && g2);
    for (int64_t i = 0; i < m * lda; i++)
        a[i] = sign ? a[i] : fabs(a[i]);
    for (int64_t i = 0; i < k * ldb; i++)
        b[i] = sign ? b[i] : fabs(b[i]);
    a[0] = -0.0, a[1] = 0.0, b[ldb + 1] = -0.0;
    if (nan_at >= 0) b[(int64_t)nan_at] = NAN;
    cr_assert_eq(go_gemm(m, k, n, a, lda, b, ldb, c, ldc), 0);
    cr_assert_eq(go_gemm_gauge(m, k, n, a, lda, b, ldb, g1, n), 0);
    cr_assert_eq(go_gemm_gauge_given(m, k, n, a, lda, b, ldb, c, ldc, g2, n), 0);
    cr_expect_eq(memcmp(g1, g2, (size_t)(m * n) * sizeof *g1), 0,
                 "%ldx%ldx%ld sign %d nan %g: gauges differ", (long)m, (long)k, (long)n, sign,
                 nan_at);
    free(a);
    free(b);
    free(c);
    free(g1);
    free(g2);
}

Test(oracle_gemm, gauge_given_the_product_is_the_gauge)
{
    check_given(37, 129, 65, 0, -1);
    check_given(300, 257, 129, 0, -1); /* past GO_PAR_MIN: the parallel scan and copy */
    check_given(37, 129, 65, 1, -1);
    check_given(37, 129, 65, 0, 5);
    double a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4}, c[4] = {0}, g[4];
    cr_expect_eq(go_gemm_gauge_given(2, 2, 2, a, 2, b, 2, NULL, 2, g, 2), -8);
    cr_expect_eq(go_gemm_gauge_given(2, 2, 2, a, 2, b, 2, c, 1, g, 2), -9);
    cr_expect_eq(go_gemm_gauge_given(2, 2, 2, a, 2, b, 2, c, 2, NULL, 2), -10);
    cr_expect_eq(go_gemm_gauge_given(2, 2, 2, a, 2, b, 2, c, 2, g, 1), -11);
}
