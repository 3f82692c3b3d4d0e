/* colsum.c: oracles for column sums and the seed-002 pair matmul -> sum and einsum
 * ij,jk->k. Column sums use Neumaier's compensated summation (Higham, Accuracy and
 * Stability of Numerical Algorithms, 2nd ed., sec. 4.3), so the oracle's error stays near
 * one f64 rounding however many rows are summed: the truth must be far tighter than the
 * device's bound, which for a tree or chunked sum is much shorter than m. */
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "go.h"

/* What colsum_impl and einsum_impl sum: the entries, their absolute values (the worst-case
   gauge) or their squares (the probabilistic model's spread, before its square root). */
enum { SUM_PLAIN = 0, SUM_ABS = 1, SUM_SQUARE = 2 };

static double term(double v, int how)
{
    return how == SUM_ABS ? fabs(v) : how == SUM_SQUARE ? v * v : v;
}

/* s(n) = sum_i X(i, :) of term(x, how), compensated. */
static int colsum_impl(const char *fn, int64_t m, int64_t n, const double *x, int64_t ldx,
                       double *s, int take_abs)
{
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (n < 0) return go_xerbla(fn, 2, "n");
    if (!x) return go_xerbla(fn, 3, "x");
    if (ldx < (n > 1 ? n : 1)) return go_xerbla(fn, 4, "ldx");
    if (!s) return go_xerbla(fn, 5, take_abs == SUM_PLAIN ? "s" : "g");
    double *comp = calloc((size_t)n + 1, sizeof *comp);
    if (!comp) return go_enomem(fn);
    /* Columns are independent: blocks of COLSUM_BLOCK columns on all cores, each column summed
       over the rows in order as in one thread, so the bits do not depend on the thread count. */
    enum { COLSUM_BLOCK = 256 };
    int64_t nblocks = (n + COLSUM_BLOCK - 1) / COLSUM_BLOCK;
#pragma omp parallel for schedule(dynamic, 1) if ((double)m * (double)n >= GO_PAR_MIN)
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t j0 = b * COLSUM_BLOCK, j1 = j0 + COLSUM_BLOCK < n ? j0 + COLSUM_BLOCK : n;
        for (int64_t j = j0; j < j1; j++)
            s[j] = 0.0;
        for (int64_t i = 0; i < m; i++) {
            const double *row = x + i * ldx;
            for (int64_t j = j0; j < j1; j++) {
                double v = term(row[j], take_abs);
                double t = s[j] + v;
                comp[j] += fabs(s[j]) >= fabs(v) ? (s[j] - t) + v : (v - t) + s[j];
                s[j] = t;
            }
        }
        for (int64_t j = j0; j < j1; j++)
            s[j] += comp[j];
    }
    free(comp);
    return 0;
}

int go_colsum(int64_t m, int64_t n, const double *x, int64_t ldx, double *s)
{
    return colsum_impl(__func__, m, n, x, ldx, s, SUM_PLAIN);
}

int go_colsum_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g)
{
    return colsum_impl(__func__, m, n, x, ldx, g, SUM_ABS);
}

/* Arguments of the (m, k, n, A, lda, B, ldb, s) oracles; CBLAS takes int sizes. */
static int check_product_args(const char *fn, int64_t m, int64_t k, int64_t n, const double *a,
                              int64_t lda, const double *b, int64_t ldb, const double *s, int how)
{
    if (m < 0 || m > INT_MAX) return go_xerbla(fn, 1, "m");
    if (k < 0 || k > INT_MAX) return go_xerbla(fn, 2, "k");
    if (n < 0 || n > INT_MAX) return go_xerbla(fn, 3, "n");
    if (!a) return go_xerbla(fn, 4, "a");
    if (lda < (k > 1 ? k : 1) || lda > INT_MAX) return go_xerbla(fn, 5, "lda");
    if (!b) return go_xerbla(fn, 6, "b");
    if (ldb < (n > 1 ? n : 1) || ldb > INT_MAX) return go_xerbla(fn, 7, "ldb");
    if (!s) return go_xerbla(fn, 8, how == SUM_PLAIN ? "s" : "g");
    return 0;
}

int go_matmul_colsum(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                     int64_t ldb, double *s)
{
    /* checked here, before the m x n scratch: a bad m or s must name its own argument */
    int bad = check_product_args(__func__, m, k, n, a, lda, b, ldb, s, SUM_PLAIN);
    if (bad) return bad;
    double *c = malloc((size_t)(m * n) * sizeof *c + 1);
    if (!c) return go_enomem(__func__);
    int rc = go_gemm(m, k, n, a, lda, b, ldb, c, n > 1 ? n : 1);
    if (rc == 0) rc = go_colsum(m, n, c, n > 1 ? n : 1, s);
    free(c);
    return rc;
}

/* s = (1^T A) B, or with |A| and |B| for the gauge. */
static int einsum_impl(const char *fn, int64_t m, int64_t k, int64_t n, const double *a,
                       int64_t lda, const double *b, int64_t ldb, double *s, int take_abs)
{
    int bad = check_product_args(fn, m, k, n, a, lda, b, ldb, s, take_abs);
    if (bad) return bad;
    double *w = malloc((size_t)k * sizeof *w + 1);
    if (!w) return go_enomem(fn);
    int rc = colsum_impl(fn, m, k, a, lda, w, take_abs);
    if (rc == 0 && take_abs == SUM_PLAIN) {
        cblas_dgemv(CblasRowMajor, CblasTrans, (int)k, (int)n, 1.0, b, (int)ldb, w, 1, 0.0, s, 1);
    } else if (rc == 0) {
        /* by blocks of columns, each summed over i in order: the bits of one thread */
        enum { BLOCK = 256 };
        int64_t nblocks = (n + BLOCK - 1) / BLOCK;
#pragma omp parallel for schedule(dynamic, 1) if ((double)k * (double)n >= GO_PAR_MIN)
        for (int64_t bl = 0; bl < nblocks; bl++) {
            int64_t j0 = bl * BLOCK, j1 = j0 + BLOCK < n ? j0 + BLOCK : n;
            for (int64_t j = j0; j < j1; j++)
                s[j] = 0.0;
            for (int64_t i = 0; i < k; i++)
                for (int64_t j = j0; j < j1; j++)
                    s[j] += w[i] * term(b[i * ldb + j], take_abs);
        }
    }
    free(w);
    return rc;
}

int go_einsum_colsum(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                     int64_t ldb, double *s)
{
    return einsum_impl(__func__, m, k, n, a, lda, b, ldb, s, SUM_PLAIN);
}

int go_colsum_product_gauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                            const double *b, int64_t ldb, double *g)
{
    return einsum_impl(__func__, m, k, n, a, lda, b, ldb, g, SUM_ABS);
}

/* x scaled by s (go_pow2_scale, a power of two: exact), packed; NULL on no memory */
static double *scaled_copy(int64_t rows, int64_t cols, const double *x, int64_t ld, double s)
{
    double *y = malloc((size_t)(rows * cols) * sizeof *y + 1);
    if (!y) return NULL;
#pragma omp parallel for schedule(static) if ((double)rows * (double)cols >= GO_PAR_MIN)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            y[i * cols + j] = x[i * ld + j] * s;
    return y;
}

int go_colsum_sqgauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g)
{
    /* near the overflow threshold or deep in the subnormals, the squares of x scaled by a power
       of two */
    double s = m > 0 && n > 0 && x && ldx >= n ? go_pow2_scale(m, n, x, ldx) : 1.0;
    double *xs = s != 1.0 ? scaled_copy(m, n, x, ldx, s) : NULL;
    if (s != 1.0 && !xs) return go_enomem(__func__);
    int rc = xs ? colsum_impl(__func__, m, n, xs, n, g, SUM_SQUARE)
                : colsum_impl(__func__, m, n, x, ldx, g, SUM_SQUARE);
    free(xs);
    for (int64_t j = 0; rc == 0 && j < n; j++)
        g[j] = sqrt(g[j]) / s;
    return rc;
}

int go_colsum_product_sqgauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                              const double *b, int64_t ldb, double *g)
{
    int ok = m > 0 && k > 0 && n > 0 && a && b && lda >= k && ldb >= n;
    double sa = ok ? go_pow2_scale(m, k, a, lda) : 1.0, sb = ok ? go_pow2_scale(k, n, b, ldb) : 1.0;
    double *as = sa != 1.0 ? scaled_copy(m, k, a, lda, sa) : NULL;
    double *bs = sb != 1.0 ? scaled_copy(k, n, b, ldb, sb) : NULL;
    if ((sa != 1.0 && !as) || (sb != 1.0 && !bs)) {
        free(as);
        free(bs);
        return go_enomem(__func__);
    }
    int rc = einsum_impl(__func__, m, k, n, as ? as : a, as ? k : lda, bs ? bs : b, bs ? n : ldb, g,
                         SUM_SQUARE);
    free(as);
    free(bs);
    for (int64_t j = 0; rc == 0 && j < n; j++)
        g[j] = sqrt(g[j]) / (sa * sb);
    return rc;
}
