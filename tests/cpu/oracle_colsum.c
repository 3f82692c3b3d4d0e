/* oracle_colsum.c: the column-sum oracles (oracle/colsum.c) — plain column sums, matmul then
 * column sum, and einsum ij,jk->k — against long double on small sizes; their gauges
 * (sum |X| and colsum(|A|)|B|); and the LAPACKE-style argument checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/gen.h"
#include "go.h"
#include "testkit.h"

static long double normwise(int64_t n, const double *got, const long double *want)
{
    long double e = 0, r = 0;
    for (int64_t j = 0; j < n; j++) {
        long double d = (long double)got[j] - want[j];
        e += d * d;
        r += want[j] * want[j];
    }
    return sqrtl(e) / sqrtl(r);
}

/* Gauge checks: g >= |s| and g equal to the long double value to 1e-14 relative. */
static void check_gauge(int64_t n, const double *g, const double *s, const long double *want,
                        const char *what)
{
    for (int64_t j = 0; j < n; j++) {
        cr_expect(g[j] >= fabs(s[j]), "%s: gauge %g below |s| %g at %ld", what, g[j], s[j],
                  (long)j);
        cr_expect(fabsl(g[j] - want[j]) <= 1e-14L * want[j], "%s: gauge %g vs %Lg at %ld", what,
                  g[j], want[j], (long)j);
    }
}

static void check_colsum(int64_t m, int64_t n, int64_t pad)
{
    int64_t ld = n + pad;
    double *x = gv_test_matrix(m, n, ld, 23, 0);
    double *s = malloc((size_t)n * sizeof *s), *g = malloc((size_t)n * sizeof *g);
    long double *s_ld = calloc((size_t)n, sizeof *s_ld), *g_ld = calloc((size_t)n, sizeof *g_ld);
    cr_assert(s && g && s_ld && g_ld);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            s_ld[j] += x[i * ld + j];
            g_ld[j] += fabsl((long double)x[i * ld + j]);
        }
    cr_assert_eq(go_colsum(m, n, x, ld, s), 0);
    cr_assert_eq(go_colsum_gauge(m, n, x, ld, g), 0);
    long double err = normwise(n, s, s_ld);
    cr_expect(err <= 1e-14L, "colsum %ldx%ld: normwise %Lg", (long)m, (long)n, err);
    check_gauge(n, g, s, g_ld, "colsum");
    free(x);
    free(s);
    free(g);
    free(s_ld);
    free(g_ld);
}

Test(oracle_colsum, colsum_matches_long_double)
{
    check_colsum(17, 23, 0);
    check_colsum(64, 64, 0);
    check_colsum(1, 1, 0);
    check_colsum(1000, 7, 3);
}

Test(oracle_colsum, colsum_is_compensated)
{
    /* one column 1e16, 1, -1e16: the exact sum is 1. A plain running sum loses the 1
       (ulp(1e16) = 2), Neumaier's correction keeps it */
    double x[3] = {1e16, 1.0, -1e16}, s;
    cr_assert_eq(go_colsum(3, 1, x, 1, &s), 0);
    cr_expect_eq(s, 1.0);
}

/* s = colsum(A B) in long double, and the gauge colsum(|A|) |B| */
static void product_ld(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                       const double *b, int64_t ldb, long double *s, long double *g)
{
    for (int64_t j = 0; j < n; j++)
        s[j] = g[j] = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++)
            for (int64_t j = 0; j < n; j++) {
                long double ail = a[i * lda + l], blj = b[l * ldb + j];
                s[j] += ail * blj;
                g[j] += fabsl(ail) * fabsl(blj);
            }
}

static void check_products(int64_t m, int64_t k, int64_t n, int64_t pad)
{
    int64_t lda = k + pad, ldb = n + pad;
    double *a = gv_test_matrix(m, k, lda, 23, 0), *b = gv_test_matrix(k, n, ldb, 23, 1);
    double *s1 = malloc((size_t)n * sizeof *s1), *s2 = malloc((size_t)n * sizeof *s2);
    double *g = malloc((size_t)n * sizeof *g);
    long double *s_ld = malloc((size_t)n * sizeof *s_ld), *g_ld = malloc((size_t)n * sizeof *g_ld);
    cr_assert(s1 && s2 && g && s_ld && g_ld);
    product_ld(m, k, n, a, lda, b, ldb, s_ld, g_ld);
    cr_assert_eq(go_matmul_colsum(m, k, n, a, lda, b, ldb, s1), 0);
    cr_assert_eq(go_einsum_colsum(m, k, n, a, lda, b, ldb, s2), 0);
    cr_assert_eq(go_colsum_product_gauge(m, k, n, a, lda, b, ldb, g), 0);
    long double e1 = normwise(n, s1, s_ld), e2 = normwise(n, s2, s_ld);
    cr_expect(e1 <= 1e-14L, "matmul_colsum %ldx%ldx%ld: normwise %Lg", (long)m, (long)k, (long)n,
              e1);
    cr_expect(e2 <= 1e-14L, "einsum_colsum %ldx%ldx%ld: normwise %Lg", (long)m, (long)k, (long)n,
              e2);
    check_gauge(n, g, s1, g_ld, "product gauge vs matmul_colsum");
    check_gauge(n, g, s2, g_ld, "product gauge vs einsum_colsum");
    free(a);
    free(b);
    free(s1);
    free(s2);
    free(g);
    free(s_ld);
    free(g_ld);
}

Test(oracle_colsum, products_match_long_double)
{
    check_products(17, 23, 19, 0);
    check_products(64, 64, 64, 0);
    check_products(1, 1, 1, 0);
    check_products(64, 48, 32, 3);
}

/* The spread sqrt(sum x^2) of columns whose largest entry lies deep in the f64 subnormals
   (below 2^-1023, where 2^-ilogb of it is no double): finite and exact, |x| for one entry, for
   the least subnormal too. An infinite scale once made it inf / inf = NaN, and the exact sum of
   the `tiny` inputs at n = 1, 2 a FAIL (max R inf). Above 2^-1023 and at the other end, near
   the overflow threshold, the same. */
Test(oracle_colsum, sqgauge_of_deep_subnormals_is_finite)
{
    const double vals[] = {0x1p-1074, 0x1.23p-1066, -2.88e-321, 0x1p-1023, 0x1.8p-1022, 0x1.fp1020};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        double x = vals[i], g = NAN;
        cr_assert_eq(go_colsum_sqgauge(1, 1, &x, 1, &g), 0);
        cr_expect_eq(g, fabs(x), "one entry %a: spread %a, not |x|", x, g);
        /* two of them in a column: sqrt(2) |x|, to the rounding of the root */
        double two[2] = {x, -x}, g2 = NAN;
        cr_assert_eq(go_colsum_sqgauge(2, 1, two, 1, &g2), 0);
        cr_expect(isfinite(g2) && g2 >= fabs(x), "two entries %a: spread %a", x, g2);
        if (fabs(x) >= 0x1p-1000 && fabs(x) <= 0x1p1000)
            cr_expect(fabs(g2 - sqrt(2.0) * fabs(x)) <= 0x1p-52 * g2, "%a: %a", x, g2);
    }
    /* a product's spread with both operands in the subnormals is an underflow to 0, not NaN */
    double a = 0x1p-1070, b = 0x1p-1060, gp = NAN;
    cr_assert_eq(go_colsum_product_sqgauge(1, 1, 1, &a, 1, &b, 1, &gp), 0);
    cr_expect(gp == 0.0, "product spread %a", gp);
}

/* Column sums of f64 subnormals (the `tiny` dist of a sum) are computed lifted out of the
   subnormals, where x86 is about 100 times slower; the lift must change no bit: the same
   columns lifted by 2^600 by the caller (then summed plainly: their largest is normal) and
   scaled back give the same bits, sums and gauges, and both match the long double sum. */
Test(oracle_colsum, sums_of_subnormals_are_the_plain_sums)
{
    const int64_t m = 3001, n = 5;
    double *x = gv_test_matrix(m, n, n, 31, 0), *up = malloc(sizeof *up * (size_t)(m * n));
    cr_assert_not_null(up);
    for (int64_t i = 0; i < m * n; i++) {
        x[i] = ldexp(x[i], -1030 - (int)(i % 40)); /* many binades below 2^-1022 */
        up[i] = ldexp(x[i], 600);
    }
    double s[5], g[5], su[5], gu[5];
    cr_assert_eq(go_colsum(m, n, x, n, s), 0);
    cr_assert_eq(go_colsum_gauge(m, n, x, n, g), 0);
    cr_assert_eq(go_colsum(m, n, up, n, su), 0);
    cr_assert_eq(go_colsum_gauge(m, n, up, n, gu), 0);
    for (int64_t j = 0; j < n; j++) {
        long double want = 0, want_g = 0;
        for (int64_t i = 0; i < m; i++) {
            want += x[i * n + j];
            want_g += fabsl((long double)x[i * n + j]);
        }
        cr_expect_eq(s[j], ldexp(su[j], -600), "column %ld: %a, lifted %a", (long)j, s[j], su[j]);
        cr_expect_eq(g[j], ldexp(gu[j], -600), "gauge %ld: %a, lifted %a", (long)j, g[j], gu[j]);
        cr_expect(fabsl(s[j] - want) <= 0x1p-1074L + 0x1p-52L * fabsl(want), "%a vs %La", s[j],
                  want);
        cr_expect(fabsl(g[j] - want_g) <= 0x1p-1074L + 0x1p-52L * want_g, "%a vs %La", g[j],
                  want_g);
    }
    free(x);
    free(up);
}

/* The same for a vector long enough to be summed in row chunks on all cores, with signed zeros
   and the two binades above 2^-1022 among the subnormals: each term's lift (computed apart for
   subnormals) must be the product's bits. */
Test(oracle_colsum, chunked_sums_of_subnormals_are_the_plain_sums)
{
    const int64_t m = 300007;
    double *x = gv_test_matrix(m, 1, 1, 37, 0), *up = malloc(sizeof *up * (size_t)m);
    cr_assert_not_null(up);
    for (int64_t i = 0; i < m; i++) {
        x[i] = i % 97 == 0 ? (i % 2 ? -0.0 : 0.0) : ldexp(x[i], -1020 - (int)(i % 60));
        up[i] = ldexp(x[i], 600);
    }
    double s, g, su, gu;
    cr_assert_eq(go_colsum(m, 1, x, 1, &s), 0);
    cr_assert_eq(go_colsum_gauge(m, 1, x, 1, &g), 0);
    cr_assert_eq(go_colsum(m, 1, up, 1, &su), 0);
    cr_assert_eq(go_colsum_gauge(m, 1, up, 1, &gu), 0);
    cr_expect_eq(s, ldexp(su, -600), "sum %a, lifted %a", s, su);
    cr_expect_eq(g, ldexp(gu, -600), "gauge %a, lifted %a", g, gu);
    free(x);
    free(up);
}

Test(oracle_colsum, bad_arguments_name_their_index)
{
    double x[16] = {0}, y[16] = {0}, s[16];
    /* go_colsum(m, n, x, ldx, s) */
    cr_expect_eq(go_colsum(-1, 2, x, 2, s), -1);
    cr_expect_eq(go_colsum(2, -1, x, 2, s), -2);
    cr_expect_eq(go_colsum(2, 2, NULL, 2, s), -3);
    cr_expect_eq(go_colsum(2, 3, x, 2, s), -4);
    cr_expect_eq(go_colsum(2, 2, x, 2, NULL), -5);
    cr_expect_eq(go_colsum_gauge(2, 3, x, 2, s), -4);
    cr_expect_eq(go_colsum_gauge(2, 2, x, 2, NULL), -5);
    /* the (m, k, n, a, lda, b, ldb, s) oracles: arguments 1..8, each the same way */
    int (*const fns[])(int64_t, int64_t, int64_t, const double *, int64_t, const double *, int64_t,
                       double *) = {go_matmul_colsum, go_einsum_colsum, go_colsum_product_gauge};
    const char *names[] = {"go_matmul_colsum", "go_einsum_colsum", "go_colsum_product_gauge"};
    int64_t big = (int64_t)INT32_MAX + 2;
    for (int f = 0; f < 3; f++) {
        const char *nm = names[f];
        cr_expect_eq(fns[f](-1, 2, 2, x, 2, y, 2, s), -1, "%s: m < 0", nm);
        cr_expect_eq(fns[f](2, -1, 2, x, 2, y, 2, s), -2, "%s: k < 0", nm);
        cr_expect_eq(fns[f](2, 2, -1, x, 2, y, 2, s), -3, "%s: n < 0", nm);
        cr_expect_eq(fns[f](2, 2, 2, NULL, 2, y, 2, s), -4, "%s: a NULL", nm);
        cr_expect_eq(fns[f](2, 3, 2, x, 2, y, 2, s), -5, "%s: lda < k", nm);
        cr_expect_eq(fns[f](2, 2, 2, x, 2, NULL, 2, s), -6, "%s: b NULL", nm);
        cr_expect_eq(fns[f](2, 2, 3, x, 2, y, 2, s), -7, "%s: ldb < n", nm);
        cr_expect_eq(fns[f](2, 2, 2, x, 2, y, 2, NULL), -8, "%s: s NULL", nm);
        cr_expect_eq(fns[f](big, 1, 1, x, 1, y, 1, s), -1, "%s: m past INT_MAX", nm);
        cr_expect_eq(fns[f](1, 1, 1, x, 1, y, big, s), -7, "%s: ldb past INT_MAX", nm);
        cr_expect_eq(fns[f](2, 2, 2, x, 2, y, 2, s), 0, "%s: good call", nm);
    }
}
