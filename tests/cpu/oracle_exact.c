/* oracle_exact.c: the exact dot products and sums (oracle/exact.c) against an independent exact
 * computation: a Kulisch accumulator (a fixed-point number of base-2^32 digits wide enough for
 * every double), into which each product goes as its two floating-point parts (fma's error-free
 * product, p + e = a b exactly). hi must be the correctly rounded sum and lo the correctly
 * rounded remainder: the accumulator less hi and lo leaves at most half an ulp of lo, and lo is
 * at most half an ulp of hi. Hand-made cases pin the ties (to even) and the cancellations; inputs
 * off the grid must be refused without a write. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../oracle/go.h"
#include "core/gen.h"

/* ---- the independent accumulator ---------------------------------------------------------- */

enum { K_OFF = 2300, K_DIGITS = 4700 / 32 + 4 };
typedef struct kul {
    int64_t d[K_DIGITS]; /* digit i weighs 2^(32 i - K_OFF); digits may leave [0, 2^32) */
} kul;

static void kul_add(kul *k, double x)
{
    if (x == 0.0) return;
    int e;
    double f = frexp(fabs(x), &e); /* |x| = f 2^e, f in [0.5, 1) */
    int64_t mant = (int64_t)ldexp(f, 53);
    int pos = e - 53 + K_OFF; /* the weight of mant's last bit, as a bit index */
    cr_assert(pos >= 0 && pos + 53 < 32 * K_DIGITS, "%a is within the accumulator", x);
    int64_t sign = x < 0 ? -1 : 1;
    for (int b = 0; b < 53; b++)
        if ((mant >> b) & 1) k->d[(pos + b) / 32] += sign * ((int64_t)1 << ((pos + b) % 32));
}

static void kul_add_product(kul *k, double a, double b)
{
    double p = a * b, e = fma(a, b, -p);
    kul_add(k, p);
    kul_add(k, e);
}

/* Carries propagated: every digit in [0, 2^32) but the last, which keeps the sign. */
static void kul_norm(kul *k)
{
    for (int i = 0; i + 1 < K_DIGITS; i++) {
        int64_t c = k->d[i] >> 32; /* floor division by 2^32 */
        k->d[i] -= c * ((int64_t)1 << 32);
        k->d[i + 1] += c;
    }
}

/* The value, approximately (enough to compare magnitudes): normalised, made non-negative,
   then its top three digits. */
static double kul_value(kul *k)
{
    kul_norm(k);
    double sign = 1.0;
    if (k->d[K_DIGITS - 1] < 0) {
        for (int i = 0; i < K_DIGITS; i++)
            k->d[i] = -k->d[i];
        kul_norm(k);
        sign = -1.0;
    }
    int top = K_DIGITS - 1;
    while (top > 0 && k->d[top] == 0)
        top--;
    double v = 0.0;
    for (int i = top; i >= 0 && i > top - 3; i--)
        v += ldexp((double)k->d[i], 32 * i - K_OFF);
    return sign * v;
}

static double ulp_of(double x)
{
    if (x == 0.0) return 0x1p-1074;
    int e;
    frexp(x, &e);
    return ldexp(1.0, e - 53);
}

/* hi + lo against the exact sum held in k (consumed). */
static void expect_rounded(kul *k, double hi, double lo, const char *what, int64_t at)
{
    cr_assert(fabs(lo) <= 0.5 * ulp_of(hi), "%s[%lld]: lo %a is more than half an ulp of hi %a",
              what, (long long)at, lo, hi);
    kul_add(k, -hi);
    kul_add(k, -lo);
    double r = kul_value(k);
    if (lo == 0.0)
        cr_assert(r == 0.0, "%s[%lld]: lo is 0 but hi %a is %a from the exact sum", what,
                  (long long)at, hi, r);
    else
        cr_assert(fabs(r) <= 0.5 * ulp_of(lo), "%s[%lld]: hi %a + lo %a is %a from the exact sum",
                  what, (long long)at, hi, lo, r);
}

static double *fill(int64_t n, gv_dist d, uint64_t seed, uint64_t tensor)
{
    double *x = malloc(sizeof *x * (size_t)n);
    cr_assert_not_null(x);
    gv_gen_fill(x, n, d, GV_F64, seed, tensor);
    return x;
}

/* ---- gemm ---------------------------------------------------------------------------------- */

static void check_gemm(int64_t m, int64_t k, int64_t n, gv_dist d, uint64_t seed)
{
    double *a = fill(m * k, d, seed, 0), *b = fill(k * n, d, seed, 1);
    double *hi = malloc(sizeof *hi * (size_t)(m * n)), *lo = malloc(sizeof *lo * (size_t)(m * n));
    int done = -1;
    cr_assert_eq(go_gemm_exact(m, k, n, a, k, b, n, hi, lo, n, &done), 0);
    cr_assert_eq(done, 1, "%s inputs are on a grid", gv_dist_name(d));
    static kul acc;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            memset(&acc, 0, sizeof acc);
            for (int64_t t = 0; t < k; t++)
                kul_add_product(&acc, a[i * k + t], b[t * n + j]);
            expect_rounded(&acc, hi[i * n + j], lo[i * n + j], "gemm", i * n + j);
        }
    free(a);
    free(b);
    free(hi);
    free(lo);
}

Test(oracle_exact, gemm_matches_the_exact_sum_on_every_grid)
{
    check_gemm(5, 4096, 3, GV_DIST_UNIFORM11, 1); /* 53-bit grid, deep, cancelling */
    check_gemm(4, 1000, 4, GV_DIST_UNIFORM01, 2);
    check_gemm(7, 33, 5, GV_DIST_SMALLINT, 3);
    check_gemm(3, 64, 6, GV_DIST_OFFGRID, 4);
    check_gemm(1, 1, 1, GV_DIST_UNIFORM11, 5);
}

Test(oracle_exact, small_integers_are_the_plain_sum)
{
    enum { M = 6, K = 50, N = 4 };
    double *a = fill(M * K, GV_DIST_SMALLINT, 9, 0), *b = fill(K * N, GV_DIST_SMALLINT, 9, 1);
    double hi[M * N], lo[M * N];
    int done = 0;
    cr_assert_eq(go_gemm_exact(M, K, N, a, K, b, N, hi, lo, N, &done), 0);
    cr_assert_eq(done, 1);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0; /* integers below 2^53: every partial sum exact */
            for (int t = 0; t < K; t++)
                s += a[i * K + t] * b[t * N + j];
            cr_expect_eq(hi[i * N + j], s);
            cr_expect_eq(lo[i * N + j], 0.0);
        }
    free(a);
    free(b);
}

Test(oracle_exact, ties_go_to_even_and_the_remainder_is_kept)
{
    /* 1 + 2^-53: halfway between 1 and 1 + 2^-52; the even one is 1 */
    double a1[2] = {1.0, 0x1p-53}, b1[2] = {1.0, 1.0}, hi, lo;
    int done = 0;
    cr_assert_eq(go_gemm_exact(1, 2, 1, a1, 2, b1, 1, &hi, &lo, 1, &done), 0);
    cr_assert_eq(done, 1);
    cr_expect_eq(hi, 1.0, "%a", hi);
    cr_expect_eq(lo, 0x1p-53, "%a", lo);
    /* 1 + 3 2^-53: halfway between 1 + 2^-52 (odd) and 1 + 2^-51 (even) */
    double a2[2] = {1.0, 3 * 0x1p-53};
    cr_assert_eq(go_gemm_exact(1, 2, 1, a2, 2, b1, 1, &hi, &lo, 1, &done), 0);
    cr_expect_eq(hi, 1.0 + 0x1p-51, "%a", hi);
    cr_expect_eq(lo, -0x1p-53, "%a", lo);
    /* catastrophic cancellation: (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104 exactly */
    double a3[2] = {1.0 + 0x1p-52, -1.0}, b3[2] = {1.0 - 0x1p-52, 1.0};
    cr_assert_eq(go_gemm_exact(1, 2, 1, a3, 2, b3, 1, &hi, &lo, 1, &done), 0);
    cr_assert_eq(done, 1);
    cr_expect_eq(hi, -0x1p-104, "%a", hi);
    cr_expect_eq(lo, 0.0, "%a", lo);
    /* zeros */
    double z[2] = {0.0, -0.0};
    cr_assert_eq(go_gemm_exact(1, 2, 1, z, 2, b1, 1, &hi, &lo, 1, &done), 0);
    cr_expect_eq(done, 1);
    cr_expect_eq(hi, 0.0);
    cr_expect_eq(lo, 0.0);
}

Test(oracle_exact, off_the_grid_is_refused_and_nothing_written)
{
    double b[2] = {1.0, 1.0}, hi = 42.0, lo = 42.0;
    int done = 1;
    double wide[2] = {1.0, 0x1p-80}; /* an 81-bit span in one row */
    cr_assert_eq(go_gemm_exact(1, 2, 1, wide, 2, b, 1, &hi, &lo, 1, &done), 0);
    cr_expect_eq(done, 0);
    cr_expect(hi == 42.0 && lo == 42.0, "nothing written");
    double nan[2] = {1.0, NAN};
    done = 1;
    cr_assert_eq(go_gemm_exact(1, 2, 1, nan, 2, b, 1, &hi, &lo, 1, &done), 0);
    cr_expect_eq(done, 0);
    double inf[2] = {1.0, INFINITY};
    done = 1;
    cr_assert_eq(go_gemm_exact(1, 2, 1, b, 2, inf, 1, &hi, &lo, 1, &done), 0);
    cr_expect_eq(done, 0);
    /* bad arguments name themselves, as the other oracles do */
    cr_expect_eq(go_gemm_exact(1, 2, 1, b, 1, b, 1, &hi, &lo, 1, &done), -5); /* lda < k */
    cr_expect_eq(go_gemm_exact(1, 2, 1, b, 2, b, 1, &hi, &lo, 1, NULL), -11);
}

/* ---- column sums --------------------------------------------------------------------------- */

Test(oracle_exact, column_sums_and_column_sums_of_a_product)
{
    enum { M = 300, K = 70, N = 9 };
    double *a = fill(M * K, GV_DIST_UNIFORM11, 11, 0), *b = fill(K * N, GV_DIST_UNIFORM11, 11, 1);
    double hi[K], lo[K];
    int done = 0;
    cr_assert_eq(go_colsum_exact(M, K, a, K, hi, lo, &done), 0);
    cr_assert_eq(done, 1);
    static kul acc;
    for (int j = 0; j < K; j++) {
        memset(&acc, 0, sizeof acc);
        for (int i = 0; i < M; i++)
            kul_add(&acc, a[i * K + j]);
        expect_rounded(&acc, hi[j], lo[j], "colsum", j);
    }
    double phi[N], plo[N];
    cr_assert_eq(go_colsum_product_exact(M, K, N, a, K, b, N, phi, plo, &done), 0);
    cr_assert_eq(done, 1);
    for (int j = 0; j < N; j++) {
        memset(&acc, 0, sizeof acc);
        for (int i = 0; i < M; i++)
            for (int t = 0; t < K; t++)
                kul_add_product(&acc, a[i * K + t], b[t * N + j]);
        expect_rounded(&acc, phi[j], plo[j], "colsum_product", j);
    }
    free(a);
    free(b);
}
