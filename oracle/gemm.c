/* gemm.c: oracle for C = A B (OpenBLAS dgemm, row-major) and its gauge |A| |B|. */
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "go.h"

/* CBLAS takes int sizes: anything past INT_MAX is a bad argument, not a silent wrap. */
static int check_gemm_args(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                           const double *b, int64_t ldb, const double *c, int64_t ldc)
{
    if (m < 0 || m > INT_MAX) return -1;
    if (k < 0 || k > INT_MAX) return -2;
    if (n < 0 || n > INT_MAX) return -3;
    if (!a) return -4;
    if (lda < (k > 1 ? k : 1) || lda > INT_MAX) return -5;
    if (!b) return -6;
    if (ldb < (n > 1 ? n : 1) || ldb > INT_MAX) return -7;
    if (!c) return -8;
    if (ldc < (n > 1 ? n : 1) || ldc > INT_MAX) return -9;
    return 0;
}

int go_gemm(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
            int64_t ldb, double *c, int64_t ldc)
{
    int rc = check_gemm_args(m, k, n, a, lda, b, ldb, c, ldc);
    if (rc) return rc;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, a, (int)lda,
                b, (int)ldb, 0.0, c, (int)ldc);
    return 0;
}

/* |M| (square = 0) or M o M (square = 1) of an r x cols matrix with leading dimension ld,
   packed; NULL on no memory. */
static double *abs_copy(int64_t rows, int64_t cols, const double *x, int64_t ld, int square)
{
    double *y = malloc((size_t)(rows * cols) * sizeof *y + 1);
    if (!y) return NULL;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double v = x[i * ld + j];
            y[i * cols + j] = square ? v * v : fabs(v);
        }
    return y;
}

static int gauge_impl(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda,
                      const double *b, int64_t ldb, double *g, int64_t ldg, int square)
{
    int rc = check_gemm_args(m, k, n, a, lda, b, ldb, g, ldg);
    if (rc) return rc;
    double *aa = abs_copy(m, k, a, lda, square), *ab = abs_copy(k, n, b, ldb, square);
    if (!aa || !ab) {
        free(aa);
        free(ab);
        return -100; /* no memory: beyond LAPACKE's argument codes */
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, aa,
                (int)(k > 1 ? k : 1), ab, (int)(n > 1 ? n : 1), 0.0, g, (int)ldg);
    free(aa);
    free(ab);
    if (square)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
                g[i * ldg + j] = sqrt(g[i * ldg + j]);
    return 0;
}

int go_gemm_gauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                  int64_t ldb, double *g, int64_t ldg)
{
    return gauge_impl(m, k, n, a, lda, b, ldb, g, ldg, 0);
}

int go_gemm_sqgauge(int64_t m, int64_t k, int64_t n, const double *a, int64_t lda, const double *b,
                    int64_t ldb, double *g, int64_t ldg)
{
    return gauge_impl(m, k, n, a, lda, b, ldb, g, ldg, 1);
}
