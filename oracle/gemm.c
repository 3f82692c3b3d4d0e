/* gemm.c: oracle for C = A B (OpenBLAS dgemm, row-major) and its gauge |A| |B|. */
#include <assert.h>
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"

/* CBLAS takes int sizes: anything past INT_MAX is a bad argument, not a silent wrap. */
static int check_gemm_args(const char *fn, int64_t m, int64_t k, int64_t n, const double *a,
                           int64_t lda, const double *b, int64_t ldb, const double *c, int64_t ldc,
                           int gauge)
{
    if (m < 0 || m > INT_MAX) return go_xerbla(fn, 1, "m");
    if (k < 0 || k > INT_MAX) return go_xerbla(fn, 2, "k");
    if (n < 0 || n > INT_MAX) return go_xerbla(fn, 3, "n");
    if (!a) return go_xerbla(fn, 4, "a");
    if (lda < (k > 1 ? k : 1) || lda > INT_MAX) return go_xerbla(fn, 5, "lda");
    if (!b) return go_xerbla(fn, 6, "b");
    if (ldb < (n > 1 ? n : 1) || ldb > INT_MAX) return go_xerbla(fn, 7, "ldb");
    if (!c) return go_xerbla(fn, 8, gauge ? "g" : "c");
    if (ldc < (n > 1 ? n : 1) || ldc > INT_MAX) return go_xerbla(fn, 9, gauge ? "ldg" : "ldc");
    return 0;
}

double go_max_finite_abs(int64_t rows, int64_t cols, const double *x, int64_t ld)
{
    double mx = 0.0;
#pragma omp parallel for schedule(static)                                                          \
    reduction(max                                                                                  \
              : mx) if ((double)rows * (double)cols >= GO_PAR_MIN)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double v = fabs(x[i * ld + j]);
            if (isfinite(v) && v > mx) mx = v;
        }
    return mx;
}

/* Products of operands whose largest magnitudes multiply to below 2^-900 fall in (or near) the
   subnormals, where x86 takes a microcode assist for each one (about 100 times a normal
   multiply-add) and each product underflows on its own, losing up to 2^-1075 apiece. Such
   operands are lifted by exact powers of two (2^ea, 2^eb: scaling up never rounds, and never
   down here) so that their largest lies in [1, 2), the product is computed in the normal range,
   and each result is scaled back once (ldexp: one correct rounding into the subnormals). Not
   bit for bit the plain product there, but at least as accurate. Elsewhere ea = eb = 0 and the
   product is the plain one. */
#define TINY_PRODUCT_LOG2 (-900)

static void tiny_lift(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                      const double *b, int64_t ldb, int *ea, int *eb)
{
    *ea = *eb = 0;
    if (m == 0 || k == 0 || n == 0) return;
    double ma = go_max_finite_abs(m, k, a, lda), mb = go_max_finite_abs(k, n, b, ldb);
    if (ma == 0.0 || mb == 0.0 || ilogb(ma) + ilogb(mb) >= TINY_PRODUCT_LOG2) return;
    *ea = ilogb(ma) < 0 ? -ilogb(ma) : 0;
    *eb = ilogb(mb) < 0 ? -ilogb(mb) : 0;
}

/* x (rows x cols, leading dimension ld) times 2^e (0 <= e <= 1074), or |x| 2^e, packed; as two
   factors, since 2^e may be past the doubles; each product exact (a lift of values whose
   largest ends below 2). NULL on no memory. */
static double *lifted_copy(int64_t rows, int64_t cols, const double *x, int64_t ld, int e,
                           int take_abs)
{
    assert(e >= 0 && e <= 1074 && rows >= 0 && cols >= 0 && ld >= cols);
    double f1 = ldexp(1.0, e / 2), f2 = ldexp(1.0, e - e / 2);
    double *y = malloc((size_t)(rows * cols) * sizeof *y + 1);
    if (!y) return NULL;
#pragma omp parallel for schedule(static) if ((double)rows * (double)cols >= GO_PAR_MIN)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double v = x[i * ld + j] * f1 * f2;
            y[i * cols + j] = take_abs ? fabs(v) : v;
        }
    return y;
}

/* C = 2^-(ea + eb) C', each element rounded once. */
static void unlift(int64_t m, int64_t n, double *c, int64_t ldc, int e)
{
#pragma omp parallel for schedule(static) if ((double)m * (double)n >= GO_PAR_MIN)
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            c[i * ldc + j] = ldexp(c[i * ldc + j], -e);
}

/* dgemm of |A| |B| (take_abs) or A B, lifted by tiny_lift's 2^ea and 2^eb, then scaled back. */
static int lifted_dgemm(const char *fn, int64_t m, int64_t k, int64_t n, const double *a,
                        int64_t lda, const double *b, int64_t ldb, double *c, int64_t ldc, int ea,
                        int eb, int take_abs)
{
    double *al = lifted_copy(m, k, a, lda, ea, take_abs),
           *bl = lifted_copy(k, n, b, ldb, eb, take_abs);
    if (!al || !bl) {
        free(al);
        free(bl);
        return go_enomem(fn);
    }
    GO_BLAS(cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, al,
                        (int)(k > 1 ? k : 1), bl, (int)(n > 1 ? n : 1), 0.0, c, (int)ldc));
    free(al);
    free(bl);
    unlift(m, n, c, ldc, ea + eb);
    return 0;
}

int go_gemm(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
            int64_t ldb, double *c, int64_t ldc)
{
    int rc = check_gemm_args(__func__, m, k, n, a, lda, b, ldb, c, ldc, 0);
    if (rc) return rc;
    int ea, eb;
    tiny_lift(m, k, n, a, lda, b, ldb, &ea, &eb);
    if (ea + eb > 0) return lifted_dgemm(__func__, m, k, n, a, lda, b, ldb, c, ldc, ea, eb, 0);
    GO_BLAS(cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, a,
                        (int)lda, b, (int)ldb, 0.0, c, (int)ldc));
    return 0;
}

double go_pow2_scale(int64_t rows, int64_t cols, const double *x, int64_t ld)
{
    double mx = go_max_finite_abs(rows, cols, x, ld);
    if (mx == 0.0 || (mx >= 0x1p-300 && mx <= 0x1p300)) return 1.0;
    /* 2^-ilogb(mx) is past the doubles for mx below 2^-1023 (f64 subnormals: 2^1074 for the
       least): an infinite scale made every square inf and the gauge inf / inf = NaN. 2^1000
       still lifts the least subnormal to 2^-74, whose square is normal. */
    int e = -ilogb(mx);
    return ldexp(1.0, e > 1000 ? 1000 : e);
}

/* |M| (square = 0) or (s M) o (s M) (square = 1, s = go_pow2_scale) of an r x cols matrix with
   leading dimension ld, packed, s in *scale; NULL on no memory. */
static double *abs_copy(int64_t rows, int64_t cols, const double *x, int64_t ld, int square,
                        double *scale)
{
    double s = square ? go_pow2_scale(rows, cols, x, ld) : 1.0;
    *scale = s;
    assert(rows >= 0 && cols >= 0 && ld >= cols); /* check_gemm_args */
    double *y = malloc((size_t)(rows * cols) * sizeof *y + 1);
    if (!y) return NULL;
#pragma omp parallel for schedule(static) if ((double)rows * (double)cols >= GO_PAR_MIN)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double v = x[i * ld + j];
            y[i * cols + j] = square ? (v * s) * (v * s) : fabs(v);
        }
    return y;
}

static int gauge_impl(const char *fn, int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                      const double *b, int64_t ldb, double *g, int64_t ldg, int square)
{
    int rc = check_gemm_args(fn, m, k, n, a, lda, b, ldb, g, ldg, 1);
    if (rc) return rc;
    if (!square) {
        int ea, eb;
        tiny_lift(m, k, n, a, lda, b, ldb, &ea, &eb);
        if (ea + eb > 0) return lifted_dgemm(fn, m, k, n, a, lda, b, ldb, g, ldg, ea, eb, 1);
    }
    double sa = 1.0, sb = 1.0;
    double *aa = abs_copy(m, k, a, lda, square, &sa), *ab = abs_copy(k, n, b, ldb, square, &sb);
    if (!aa || !ab) {
        free(aa);
        free(ab);
        return go_enomem(fn);
    }
    GO_BLAS(cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, aa,
                        (int)(k > 1 ? k : 1), ab, (int)(n > 1 ? n : 1), 0.0, g, (int)ldg));
    free(aa);
    free(ab);
    /* 1 / (sa sb), a power of two, as two exact factors: sa sb itself may be past the doubles
       (2^513 each for operands near 2^-513, whose products are subnormal), which made the
       spread 0 */
    double ua = 1.0 / sa, ub = 1.0 / sb;
    if (square)
#pragma omp parallel for schedule(static) if ((double)m * (double)n >= GO_PAR_MIN)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
                g[i * ldg + j] = sqrt(g[i * ldg + j]) * ua * ub;
    return 0;
}

int go_gemm_gauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                  int64_t ldb, double *g, int64_t ldg)
{
    return gauge_impl(__func__, m, k, n, a, lda, b, ldb, g, ldg, 0);
}

/* All of x's rows x cols entries (leading dimension ld) are >= 0 (+0 or -0 included, NaN not). */
static int all_nonnegative(int64_t rows, int64_t cols, const double *x, int64_t ld)
{
    assert(rows >= 0 && cols >= 0 && ld >= cols); /* check_gemm_args */
    int bad = 0;
#pragma omp parallel for schedule(static)                                                          \
    reduction(|                                                                                    \
              : bad) if ((double)rows * (double)cols >= GO_PAR_MIN)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            bad |= !(x[i * ld + j] >= 0.0);
    return !bad;
}

int go_gemm_gauge_given(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                        const double *b, int64_t ldb, const double *c, int64_t ldc, double *g,
                        int64_t ldg)
{
    int rc = check_gemm_args(__func__, m, k, n, a, lda, b, ldb, c, ldc, 0);
    if (rc) return rc;
    if (!g) return go_xerbla(__func__, 10, "g");
    if (ldg < (n > 1 ? n : 1) || ldg > INT_MAX) return go_xerbla(__func__, 11, "ldg");
    if (!all_nonnegative(m, k, a, lda) || !all_nonnegative(k, n, b, ldb))
        return gauge_impl(__func__, m, k, n, a, lda, b, ldb, g, ldg, 0);
        /* |A| = A and |B| = B up to the sign of zeros: dgemm gives |A||B| the bits it gave C */
#pragma omp parallel for schedule(static) if ((double)m * (double)n >= GO_PAR_MIN)
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            g[i * ldg + j] = fabs(c[i * ldc + j]);
    return 0;
}

int go_gemm_sqgauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                    int64_t ldb, double *g, int64_t ldg)
{
    return gauge_impl(__func__, m, k, n, a, lda, b, ldb, g, ldg, 1);
}

double go_round_format(double x, int p, int emin, double max_finite, int saturate)
{
    assert(p >= 2 && p <= 53 && emin > -1000 && max_finite > 0);
    if (isnan(x)) return x;
    if (isinf(x)) return saturate ? copysign(max_finite, x) : x;
    if (x == 0.0) return x;
    /* the quantum of x's binade, or of the subnormals below 2^emin: a power of two well inside
       f64's normal range for every format gpuval converts to, so x / q and r q are exact */
    int e = ilogb(x);
    if (e < emin) e = emin;
    double q = ldexp(1.0, e - (p - 1));
    double r = nearbyint(x / q) * q; /* the default rounding mode: to nearest, ties to even */
    if (fabs(r) > max_finite) r = saturate ? copysign(max_finite, x) : copysign(INFINITY, x);
    return r;
}

int go_gemm_marked(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                   int64_t ldb, const unsigned char *mark, double *c, int64_t ldc)
{
    int rc = check_gemm_args(__func__, m, k, n, a, lda, b, ldb, c, ldc, 0);
    if (rc) return rc;
    if (!mark) return go_xerbla(__func__, 10, "mark");
    /* plain IEEE f64 in index order: an infinite product, inf - inf and 0 inf give what they
       give in any order, and those are what this reference is for. A row with a marked element
       is computed whole in i-l-j order (each element still sums its k terms in index order, so
       the same bits as a dot product per element) with b and the row read contiguously: on a
       range-heavy dist nearly every element is marked, and a dot product per element walking
       b's columns took about a minute for one 4096^3 product. */
    int rc_mem = 0;
#pragma omp parallel if ((double)m * (double)n >= GO_PAR_MIN / 16)
    {
        double *row = malloc((size_t)n * sizeof *row);
        if (!row) {
#pragma omp atomic write
            rc_mem = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (int64_t i = 0; i < m; i++) {
            if (!row) continue;
            bool any = false;
            for (int64_t j = 0; j < n && !any; j++)
                any = mark[i * n + j] != 0;
            if (!any) continue;
            for (int64_t j = 0; j < n; j++)
                row[j] = 0.0;
            for (int64_t l = 0; l < k; l++) {
                const double x = a[i * lda + l], *bl = b + l * ldb;
                for (int64_t j = 0; j < n; j++)
                    row[j] += x * bl[j];
            }
            for (int64_t j = 0; j < n; j++)
                if (mark[i * n + j]) c[i * ldc + j] = row[j];
        }
        free(row);
    }
    return rc_mem ? go_enomem(__func__) : 0;
}

/* ---- batched and transposed products (gemm.batched*) ------------------------------------ */

/* x (rows x cols, packed row-major) into y packed, transposed when trans (y cols x rows). */
static void pack_op(int64_t rows, int64_t cols, const double *x, int trans, double *y)
{
    if (!trans) {
        memcpy(y, x, (size_t)(rows * cols) * sizeof *y);
        return;
    }
#pragma omp parallel for schedule(static) if ((double)rows * (double)cols >= GO_PAR_MIN)
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            y[j * rows + i] = x[i * cols + j];
}

int go_gemm_batched(int what, int trans, int64_t batch, int64_t m, int64_t k, int64_t n,
                    const double *a, const double *b, double *c)
{
    if (what < GO_GEMM_VALUE || what > GO_GEMM_SQGAUGE) return go_xerbla(__func__, 1, "what");
    if (trans < 0 || trans > (GO_GEMM_TRANS_A | GO_GEMM_TRANS_B))
        return go_xerbla(__func__, 2, "trans");
    if (batch < 0) return go_xerbla(__func__, 3, "batch");
    if (m < 0 || m > INT_MAX) return go_xerbla(__func__, 4, "m");
    if (k < 0 || k > INT_MAX) return go_xerbla(__func__, 5, "k");
    if (n < 0 || n > INT_MAX) return go_xerbla(__func__, 6, "n");
    if (!a) return go_xerbla(__func__, 7, "a");
    if (!b) return go_xerbla(__func__, 8, "b");
    if (!c) return go_xerbla(__func__, 9, "c");
    /* one batch's op(A) (m x k) and op(B) (k x n), packed, then the gemm family's own oracle
       and gauges on them: what holds for one product holds per batch */
    double *opa = malloc((size_t)(m * k + k * n) * sizeof *opa + 1);
    if (!opa) return go_enomem(__func__);
    double *opb = opa + m * k;
    int rc = 0;
    for (int64_t q = 0; q < batch && rc == 0; q++) {
        pack_op(trans & GO_GEMM_TRANS_A ? k : m, trans & GO_GEMM_TRANS_A ? m : k, a + q * m * k,
                trans & GO_GEMM_TRANS_A, opa);
        pack_op(trans & GO_GEMM_TRANS_B ? n : k, trans & GO_GEMM_TRANS_B ? k : n, b + q * k * n,
                trans & GO_GEMM_TRANS_B, opb);
        int64_t lda = k > 1 ? k : 1, ldb = n > 1 ? n : 1, ldc = n > 1 ? n : 1;
        double *cq = c + q * m * n;
        rc = what == GO_GEMM_VALUE   ? go_gemm(m, k, n, opa, lda, opb, ldb, cq, ldc)
             : what == GO_GEMM_GAUGE ? go_gemm_gauge(m, k, n, opa, lda, opb, ldb, cq, ldc)
                                     : go_gemm_sqgauge(m, k, n, opa, lda, opb, ldb, cq, ldc);
    }
    free(opa);
    return rc;
}
