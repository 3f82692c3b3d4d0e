/* lsmr.c: CPU side of the lsmr family (seed 002's ridge regression).
 *  - go_lsmr_ridge: the oracle. The exact minimiser of ||A x - b||^2 + lambda^2 ||x||^2 is
 *    the least-squares solution of the stacked system [A; lambda I] x = [b; 0]; it is
 *    computed densely by Householder QR (LAPACKE dgels), backward stable (Higham, ASNA 2nd
 *    ed., sec. 20.2), so its forward error is O(u kappa) with kappa = cond([A; lambda I]),
 *    far below the tolerance LSMR stops at. Dense: affordable at check sizes only.
 *  - go_lsmr_ridge_residuals: ||b - A x||, ||x|| and the normal-equations residual
 *    ||A^T (b - A x) - lambda^2 x|| of any x, in f64 with long double sums (the judge's
 *    measurements of a device result).
 *  - go_lsmr_ridge_ref: a CPU LSMR with the same recurrences (kernels/lsmr.h) and the same
 *    vector steps as the device driver, in f64 or emulating f32 storage and arithmetic; for
 *    tests of the recurrences and of the judge, not an oracle. */
#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../abi/lsmr.h"
#include "go.h"

static int check_csr_args(int64_t m, int64_t n, const int32_t *row_ptr, const int32_t *col_idx,
                          const double *vals, const double *b, double lambda, const double *x)
{
    if (m < 1) return -1;
    if (n < 1) return -2;
    if (!row_ptr) return -3;
    if (!col_idx && row_ptr[m] > 0) return -4;
    if (!vals && row_ptr[m] > 0) return -5;
    if (!b) return -6;
    if (!(lambda >= 0.0) || !isfinite(lambda)) return -7;
    if (!x) return -8;
    for (int64_t i = 0; i < m; i++)
        if (row_ptr[i] > row_ptr[i + 1]) return -3;
    for (int64_t k = 0; k < row_ptr[m]; k++)
        if (col_idx[k] < 0 || col_idx[k] >= n) return -4;
    return 0;
}

int go_lsmr_ridge(int64_t m, int64_t n, const int32_t *row_ptr, const int32_t *col_idx,
                  const double *vals, const double *b, double lambda, double *x)
{
    int rc = check_csr_args(m, n, row_ptr, col_idx, vals, b, lambda, x);
    if (rc) return rc;
    int64_t rows = m + n;
    /* column-major (m + n) x n: LAPACKE's row-major path would transpose a copy */
    double *a = calloc((size_t)(rows * n), sizeof *a);
    double *rhs = calloc((size_t)rows, sizeof *rhs);
    if (!a || !rhs) {
        free(a);
        free(rhs);
        return -100;
    }
    for (int64_t i = 0; i < m; i++)
        for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            a[(int64_t)col_idx[k] * rows + i] += vals[k];
    for (int64_t j = 0; j < n; j++)
        a[j * rows + m + j] = lambda;
    memcpy(rhs, b, (size_t)m * sizeof *rhs);
    lapack_int info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)rows, (lapack_int)n, 1, a,
                                    (lapack_int)rows, rhs, (lapack_int)rows);
    if (info == 0) memcpy(x, rhs, (size_t)n * sizeof *x);
    free(a);
    free(rhs);
    /* info > 0: a zero diagonal of R (rank deficient: lambda = 0 and A without full column
       rank); reported as a bad argument, since no lambda > 0 can cause it */
    return info == 0 ? 0 : info < 0 ? (int)info : -7;
}

int go_lsmr_ridge_residuals(int64_t m, int64_t n, const int32_t *row_ptr, const int32_t *col_idx,
                            const double *vals, const double *b, double lambda, const double *x,
                            double *norms)
{
    int rc = check_csr_args(m, n, row_ptr, col_idx, vals, b, lambda, x);
    if (rc) return rc;
    if (!norms) return -9;
    long double *g = calloc((size_t)n, sizeof *g);
    if (!g) return -100;
    long double rr = 0, xx = 0, gg = 0;
    for (int64_t i = 0; i < m; i++) {
        long double ri = b[i];
        for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            ri -= (long double)vals[k] * x[col_idx[k]];
        rr += ri * ri;
        for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            g[col_idx[k]] += (long double)vals[k] * ri;
    }
    long double l2 = (long double)lambda * lambda;
    for (int64_t j = 0; j < n; j++) {
        long double gj = g[j] - l2 * x[j];
        gg += gj * gj;
        xx += (long double)x[j] * x[j];
    }
    free(g);
    norms[GO_LSMR_NORM_R] = (double)sqrtl(rr);
    norms[GO_LSMR_NORM_X] = (double)sqrtl(xx);
    norms[GO_LSMR_NORM_G] = (double)sqrtl(gg);
    norms[GO_LSMR_NORM_RBAR] = (double)sqrtl(rr + l2 * xx);
    return 0;
}

/* ---- the CPU reference LSMR: the device driver's steps, in f64 or emulated f32 ---- */

static double rnd(double v, bool single)
{
    return single ? (double)(float)v : v;
}

/* y = A x - beta y (beta = 0: y = A x), y of length m */
static void ref_spmv(int64_t m, const int32_t *rp, const int32_t *ci, const double *va,
                     const double *x, double beta, double *y, bool single)
{
    float beta_f = (float)beta;
    for (int64_t i = 0; i < m; i++) {
        if (single) {
            float acc = 0.0f;
            for (int32_t k = rp[i]; k < rp[i + 1]; k++)
                acc += (float)va[k] * (float)x[ci[k]];
            y[i] = beta == 0.0 ? acc : rnd((double)acc - (double)beta_f * y[i], true);
        } else {
            double acc = 0.0;
            for (int32_t k = rp[i]; k < rp[i + 1]; k++)
                acc += va[k] * x[ci[k]];
            y[i] = beta == 0.0 ? acc : acc - beta * y[i];
        }
    }
}

static double ref_nrm2(int64_t n, const double *x, bool single)
{
    double s = 0.0;
    float sf = 0.0f;
    for (int64_t i = 0; i < n; i++) {
        if (single)
            sf += (float)x[i] * (float)x[i];
        else
            s += x[i] * x[i];
    }
    return single ? (double)sqrtf(sf) : sqrt(s);
}

static void ref_scal(int64_t n, double a, double *x, bool single)
{
    a = rnd(a, single);
    for (int64_t i = 0; i < n; i++)
        x[i] = rnd(a * x[i], single);
}

/* A^T as CSR (the device builds the same with cusparseCsr2cscEx2) */
static int transpose_csr(int64_t m, int64_t n, const int32_t *rp, const int32_t *ci,
                         const double *va, int32_t **trp, int32_t **tci, double **tva)
{
    int64_t nnz = rp[m];
    *trp = calloc((size_t)n + 1, sizeof **trp);
    *tci = malloc((size_t)nnz * sizeof **tci + 1);
    *tva = malloc((size_t)nnz * sizeof **tva + 1);
    int32_t *next = malloc((size_t)n * sizeof *next + 1);
    if (!*trp || !*tci || !*tva || !next) {
        free(next);
        return -100;
    }
    for (int64_t k = 0; k < nnz; k++)
        (*trp)[ci[k] + 1]++;
    for (int64_t j = 0; j < n; j++)
        (*trp)[j + 1] += (*trp)[j];
    memcpy(next, *trp, (size_t)n * sizeof *next);
    for (int64_t i = 0; i < m; i++)
        for (int32_t k = rp[i]; k < rp[i + 1]; k++) {
            int32_t pos = next[ci[k]]++;
            (*tci)[pos] = (int32_t)i;
            (*tva)[pos] = va[k];
        }
    free(next);
    return 0;
}

int go_lsmr_ridge_ref(int64_t m, int64_t n, const int32_t *row_ptr, const int32_t *col_idx,
                      const double *vals, const double *b, double lambda, double atol, double btol,
                      int64_t maxiter, int single, double *x, double *info)
{
    int rc = check_csr_args(m, n, row_ptr, col_idx, vals, b, lambda, x);
    if (rc) return rc;
    if (!(atol >= 0) || !(btol >= 0)) return -8;
    if (maxiter < 1) return -10;
    if (!info) return -13;
    bool sp = single != 0;
    int32_t *trp = NULL, *tci = NULL;
    double *tva = NULL;
    double *u = malloc((size_t)m * sizeof *u + 1);
    double *v = malloc((size_t)n * sizeof *v + 1);
    double *h = malloc((size_t)n * sizeof *h + 1);
    double *hbar = calloc((size_t)n, sizeof *hbar);
    double *va = malloc((size_t)row_ptr[m] * sizeof *va + 1);
    rc = (u && v && h && hbar && va) ? transpose_csr(m, n, row_ptr, col_idx, vals, &trp, &tci, &tva)
                                     : -100;
    if (rc) goto out;
    /* the device holds A, A^T and b in the case's dtype */
    for (int64_t k = 0; k < row_ptr[m]; k++) {
        va[k] = rnd(vals[k], sp);
        tva[k] = rnd(tva[k], sp);
    }
    for (int64_t i = 0; i < m; i++)
        u[i] = rnd(b[i], sp);
    for (int64_t j = 0; j < n; j++)
        x[j] = 0.0;

    /* beta1 u1 = b, alpha1 v1 = A^T u1 */
    double beta = ref_nrm2(m, u, sp);
    if (beta > 0) ref_scal(m, 1.0 / beta, u, sp);
    ref_spmv(n, trp, tci, tva, u, 0.0, v, sp);
    double alpha = ref_nrm2(n, v, sp);
    if (alpha > 0) ref_scal(n, 1.0 / alpha, v, sp);
    memcpy(h, v, (size_t)n * sizeof *h);

    gk_lsmr_scalars s;
    int istop = gk_lsmr_begin(&s, alpha, beta, lambda, atol, btol, GK_LSMR_CONLIM_VALUE, maxiter);
    while (istop == GK_LSMR_RUNNING) {
        /* beta u = A v - alpha u;  alpha v = A^T u - beta v */
        ref_spmv(m, row_ptr, col_idx, va, v, alpha, u, sp);
        beta = ref_nrm2(m, u, sp);
        if (beta > 0) ref_scal(m, 1.0 / beta, u, sp);
        ref_spmv(n, trp, tci, tva, u, beta, v, sp);
        alpha = ref_nrm2(n, v, sp);
        if (alpha > 0) ref_scal(n, 1.0 / alpha, v, sp);

        gk_lsmr_coefs k;
        gk_lsmr_step(&s, alpha, beta, &k);
        double c1 = rnd(k.hbar_coef, sp), c2 = rnd(k.x_coef, sp), c3 = rnd(k.h_coef, sp);
        for (int64_t j = 0; j < n; j++) {
            hbar[j] = rnd(h[j] - c1 * hbar[j], sp);
            x[j] = rnd(x[j] + c2 * hbar[j], sp);
            h[j] = rnd(v[j] - c3 * h[j], sp);
        }
        istop = gk_lsmr_test(&s, ref_nrm2(n, x, sp));
    }
    info[GK_LSMR_INFO_ITERATIONS] = (double)s.itn;
    info[GK_LSMR_INFO_ISTOP] = (double)istop;
    info[GK_LSMR_INFO_NORMR] = s.normr;
    info[GK_LSMR_INFO_NORMAR] = s.normar;
    info[GK_LSMR_INFO_NORMA] = s.normA;
    info[GK_LSMR_INFO_CONDA] = s.condA;
out:
    free(u);
    free(v);
    free(h);
    free(hbar);
    free(va);
    free(trp);
    free(tci);
    free(tva);
    return rc;
}
