/* dense.c: oracle for seed 004's dense layer Y = sigmoid(W X + b), the bias b (length m)
 * added to every column of row i, and the gauge of its error model. The product is OpenBLAS
 * dgemm; the bias and the sigmoid are plain f64.
 *
 * The sigmoid is evaluated in the form that is stable for both signs of z:
 *     t = exp(-|z|),   sigmoid(z) = (z >= 0 ? 1 : t) / (1 + t).
 * exp is only ever taken of a non-positive number, so it cannot overflow, and 1 + t lies in
 * [1, 2], so the division neither overflows nor loses relative accuracy: each branch is a
 * product of three correctly (or nearly) rounded operations, a few ulp of y for every z.
 * The textbook 1/(1 + exp(-z)) overflows exp(-z) for z below about -709 (f64; -88 in f32)
 * and e^z / (1 + e^z) gives Inf/Inf = NaN above about 709 (88). kernels/dense.cu uses the same
 * form, so the oracle and the device differ only in rounding. The element-wise epilogues
 * (bias and sigmoid; the gauge's sum) run on all cores (OpenMP), each element's arithmetic as
 * on one thread: the same bits whatever the thread count. */
#include <math.h>
#include <stdlib.h>

#include "go.h"

double go_sigmoid(double z)
{
    double t = exp(-fabs(z));
    return (z >= 0.0 ? 1.0 : t) / (1.0 + t);
}

static int check_dense_args(const char *fn, int64_t m, int64_t k, int64_t n, const double *w,
                            int64_t ldw, const double *x, int64_t ldx, const double *b,
                            const double *y, int64_t ldy)
{
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (k < 0) return go_xerbla(fn, 2, "k");
    if (n < 0) return go_xerbla(fn, 3, "n");
    if (!w) return go_xerbla(fn, 4, "w");
    if (ldw < (k > 1 ? k : 1)) return go_xerbla(fn, 5, "ldw");
    if (!x) return go_xerbla(fn, 6, "x");
    if (ldx < (n > 1 ? n : 1)) return go_xerbla(fn, 7, "ldx");
    if (!b) return go_xerbla(fn, 8, "b");
    if (!y) return go_xerbla(fn, 9, "y");
    if (ldy < (n > 1 ? n : 1)) return go_xerbla(fn, 10, "ldy");
    return 0;
}

int go_dense_sigmoid(int64_t m, int64_t k, int64_t n, const double *w, int64_t ldw, const double *x,
                     int64_t ldx, const double *b, double *y, int64_t ldy)
{
    int rc = check_dense_args(__func__, m, k, n, w, ldw, x, ldx, b, y, ldy);
    if (rc) return rc;
    rc = go_gemm(m, k, n, w, ldw, x, ldx, y, ldy);
    if (rc) return rc;
        /* element-wise epilogue: rows on all cores, each element's arithmetic as on one thread */
#pragma omp parallel for schedule(static) if ((double)m * (double)n >= GO_PAR_MIN / 16)
    for (int64_t i = 0; i < m; i++) {
        double *row = y + i * ldy;
        for (int64_t j = 0; j < n; j++)
            row[j] = go_sigmoid(row[j] + b[i]);
    }
    return 0;
}

int go_dense_sigmoid_gauge(int64_t m, int64_t k, int64_t n, const double *w, int64_t ldw,
                           const double *x, int64_t ldx, const double *b, const double *y,
                           int64_t ldy, double *g, int64_t ldg)
{
    int rc = check_dense_args(__func__, m, k, n, w, ldw, x, ldx, b, y, ldy);
    if (rc) return rc;
    if (!g) return go_xerbla(__func__, 11, "g");
    if (ldg < (n > 1 ? n : 1)) return go_xerbla(__func__, 12, "ldg");
    rc = go_gemm_gauge(m, k, n, w, ldw, x, ldx, g, ldg); /* |W||X| */
    if (rc) return rc;
#pragma omp parallel for schedule(static) if ((double)m * (double)n >= GO_PAR_MIN)
    for (int64_t i = 0; i < m; i++) {
        double *grow = g + i * ldg;
        const double *yrow = y + i * ldy;
        for (int64_t j = 0; j < n; j++)
            grow[j] = 0.25 * (grow[j] + fabs(b[i])) + fabs(yrow[j]);
    }
    return 0;
}
