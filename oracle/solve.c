/* solve.c: oracles for dense linear systems A x = b — LU with partial pivoting (LAPACKE
 * dgesv) and Cholesky (LAPACKE dposv) — the builder of test matrices with a chosen 2-norm
 * condition number (A = Q1 diag(s) Q2^T from LAPACKE QR of given random matrices), and
 * HPL's scaled residual, the backward-error measure the solver ops are judged by.
 * Row-major, explicit leading dimensions, go.h's returns (named errors, info > 0 for a
 * singular or indefinite system). */
#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "go.h"

static int64_t max1(int64_t n)
{
    return n > 1 ? n : 1;
}

/* dst = src^T for n x n matrices, in 64 x 64 tiles, tile rows on all cores (each element
   copied on its own: the same bits on any thread count). */
static void transpose(int64_t n, const double *src, double *dst)
{
    enum { T = 64 };
#pragma omp parallel for schedule(static) if ((double)n * (double)n >= GO_PAR_MIN)
    for (int64_t i0 = 0; i0 < n; i0 += T)
        for (int64_t j0 = 0; j0 < n; j0 += T)
            for (int64_t i = i0; i < i0 + T && i < n; i++)
                for (int64_t j = j0; j < j0 + T && j < n; j++)
                    dst[j * n + i] = src[i * n + j];
}

/* Overwrite the n x n row-major matrix g (leading dimension n) by the Q of its QR
   factorisation: dgeqrf then dorgqr. Q is orthogonal to working precision whatever g is,
   as long as g has full rank (a random matrix does, with probability one).
   LAPACK is column-major: the row-major LAPACKE calls would each transpose in and out on one
   core (4 copies of n^2, a quarter of the cold solve inputs at n = 4000 on 16 cores). The
   same two column-major calls on one transposed copy, made here on all cores, give the same
   bits: LAPACKE's row-major path is exactly that transpose, the column-major call, and the
   transpose back. */
static int orthogonalise(const char *fn, int64_t n, double *g)
{
    double *tau = malloc((size_t)n * sizeof *tau + 1);
    double *t = malloc((size_t)(n * n) * sizeof *t + 1);
    if (!tau || !t) {
        free(tau);
        free(t);
        return go_enomem(fn);
    }
    transpose(n, g, t);
    lapack_int info =
        LAPACKE_dgeqrf(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, t, (lapack_int)n, tau);
    if (info == 0)
        info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, (lapack_int)n, (lapack_int)n, (lapack_int)n, t,
                              (lapack_int)n, tau);
    if (info == 0) transpose(n, t, g);
    free(tau);
    free(t);
    /* LAPACK rejects none of these arguments but n past lapack_int's range */
    return info == 0 ? 0 : info == LAPACK_WORK_MEMORY_ERROR ? go_enomem(fn) : go_xerbla(fn, 1, "n");
}

int go_solve_orthogonalise(int64_t n, double *g)
{
    if (n < 1) return go_xerbla(__func__, 1, "n");
    if (!g) return go_xerbla(__func__, 2, "g");
    int rc;
    GO_BLAS(rc = orthogonalise(__func__, n, g));
    return rc;
}

/* Replace the n x n orthogonal q1 by q1 H, H a Householder reflection chosen so that
   (q1 H m)_0 = 0 for the vector m: then A = q1 H diag(s) q2^T has a11 = 0 in exact
   arithmetic and the same singular values. w is the target H m: |w| = |m|, w orthogonal
   to q1's first row, so row 0 of q1 H is orthogonal to m. */
static int zero_leading_entry(const char *fn, int64_t n, double *q1, const double *m)
{
    double *w = malloc((size_t)n * sizeof *w + 1), *u = malloc((size_t)n * sizeof *u + 1);
    double *q1u = malloc((size_t)n * sizeof *q1u + 1);
    if (!w || !u || !q1u) {
        free(w);
        free(u);
        free(q1u);
        return go_enomem(fn);
    }
    const double *q = q1; /* row 0 of q1: a unit vector */
    double qm = cblas_ddot((int)n, q, 1, m, 1);
    for (int64_t i = 0; i < n; i++)
        w[i] = m[i] - qm * q[i];
    double wn = cblas_dnrm2((int)n, w, 1), mn = cblas_dnrm2((int)n, m, 1);
    if (!(wn > 1e-8 * mn)) {
        /* m is (nearly) parallel to q: any unit vector orthogonal to q serves; project
           e_j for the j where q is smallest */
        int64_t j = 0;
        for (int64_t i = 1; i < n; i++)
            if (fabs(q[i]) < fabs(q[j])) j = i;
        for (int64_t i = 0; i < n; i++)
            w[i] = -q[j] * q[i];
        w[j] += 1.0;
        wn = cblas_dnrm2((int)n, w, 1);
    }
    for (int64_t i = 0; i < n; i++) {
        w[i] *= mn / wn;
        u[i] = m[i] - w[i];
    }
    double uu = cblas_ddot((int)n, u, 1, u, 1);
    if (uu > 0) {
        /* q1 <- q1 (I - 2 u u^T / u^T u) = q1 - (2/uu) (q1 u) u^T */
        cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)n, (int)n, 1.0, q1, (int)n, u, 1, 0.0, q1u,
                    1);
        cblas_dger(CblasRowMajor, (int)n, (int)n, -2.0 / uu, q1u, 1, u, 1, q1, (int)n);
    }
    free(w);
    free(u);
    free(q1u);
    return 0;
}

/* The builder below on GO_BLAS_THREADS (go.h): the matrices are inputs, and an input is the
   same bits on every host and thread count. */
static int cond_matrix(int64_t n, double kappa, int kind, double *g1, double *g2, double *a,
                       int64_t lda);

int go_solve_cond_matrix(int64_t n, double kappa, int kind, double *g1, double *g2, double *a,
                         int64_t lda)
{
    int rc;
    GO_BLAS(rc = cond_matrix(n, kappa, kind, g1, g2, a, lda));
    return rc;
}

static int cond_matrix(int64_t n, double kappa, int kind, double *g1, double *g2, double *a,
                       int64_t lda)
{
    const char *fn = "go_solve_cond_matrix";
    if (n < 1) return go_xerbla(fn, 1, "n");
    if (!(kappa >= 1.0) || !isfinite(kappa) || (n == 1 && kappa != 1.0))
        return go_xerbla(fn, 2, "kappa");
    bool q_given = (kind & GO_COND_Q_GIVEN) != 0;
    kind &= ~GO_COND_Q_GIVEN;
    if (kind != GO_COND_GENERAL && kind != GO_COND_GENERAL_PIVOT && kind != GO_COND_SPD)
        return go_xerbla(fn, 3, "kind");
    if (!g1) return go_xerbla(fn, 4, "g1");
    if (!g2 && kind != GO_COND_SPD) return go_xerbla(fn, 5, "g2");
    if (!a) return go_xerbla(fn, 6, "a");
    if (lda < max1(n)) return go_xerbla(fn, 7, "lda");

    double *s = malloc((size_t)n * sizeof *s + 1);
    if (!s) return go_enomem(fn);
    /* geometric spectrum: s_k = kappa^(-k/(n-1)), so s_0 = 1 and s_{n-1} = 1/kappa */
    for (int64_t k = 0; k < n; k++)
        s[k] = n > 1 ? pow(kappa, -(double)k / (double)(n - 1)) : 1.0;
    int rc = q_given ? 0 : orthogonalise(fn, n, g1);
    if (!rc && !q_given && kind != GO_COND_SPD) rc = orthogonalise(fn, n, g2);
    const double *q2 = kind == GO_COND_SPD ? g1 : g2;
    if (!rc && kind == GO_COND_GENERAL_PIVOT && n > 1) {
        /* m = diag(s) q2^T e_1: s_k times row 0 of q2 */
        double *m = malloc((size_t)n * sizeof *m + 1);
        if (!m) rc = go_enomem(fn);
        for (int64_t k = 0; !rc && k < n; k++)
            m[k] = s[k] * q2[k];
        /* q2 is read through m only, so changing g1 is safe even when q2 aliases it (SPD
           never comes here) */
        if (!rc) rc = zero_leading_entry(fn, n, g1, m);
        free(m);
    }
    double *q1s = NULL;
    if (!rc) {
        q1s = malloc((size_t)(n * n) * sizeof *q1s + 1);
        if (!q1s) rc = go_enomem(fn);
    }
    if (!rc) {
        /* A = (Q1 diag(s)) Q2^T; the scaling and the symmetrisation below on all cores (each
           element on its own: the same bits on any thread count; at n = 4000 the column walk
           of the symmetrisation took a tenth of a second on one core) */
#pragma omp parallel for schedule(static) if ((double)n * (double)n >= GO_PAR_MIN)
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < n; k++)
                q1s[i * n + k] = g1[i * n + k] * s[k];
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)n, (int)n, 1.0, q1s,
                    (int)n, q2, (int)n, 0.0, a, (int)lda);
        if (kind == GO_COND_SPD) {
            /* exact symmetry, so that either triangle (and either storage order) holds the
               same matrix; rounding to a storage dtype keeps it */
            /* iteration i alone reads and writes a[i][j] and a[j][i], j < i */
#pragma omp parallel for schedule(dynamic, 16) if ((double)n * (double)n >= GO_PAR_MIN)
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < i; j++) {
                    double v = 0.5 * (a[i * lda + j] + a[j * lda + i]);
                    a[i * lda + j] = a[j * lda + i] = v;
                }
        }
    }
    free(q1s);
    free(s);
    return rc;
}

/* Shared argument checks of go_gesv and go_posv. */
static int check_solve_args(const char *fn, int64_t n, const double *a, int64_t lda,
                            const double *b, const double *x, const int *info)
{
    if (n < 0) return go_xerbla(fn, 1, "n");
    if (!a) return go_xerbla(fn, 2, "a");
    if (lda < max1(n)) return go_xerbla(fn, 3, "lda");
    if (!b) return go_xerbla(fn, 4, "b");
    if (!x) return go_xerbla(fn, 5, "x");
    if (!info) return go_xerbla(fn, 6, "info");
    return 0;
}

/* Copy a (n x n, lda) into a packed n x n buffer and b into x: LAPACK overwrites both. */
static double *copy_system(int64_t n, const double *a, int64_t lda, const double *b, double *x)
{
    double *f = malloc((size_t)(n * n) * sizeof *f + 1);
    if (!f) return NULL;
    for (int64_t i = 0; i < n; i++)
        memcpy(f + i * n, a + i * lda, (size_t)n * sizeof *f);
    memcpy(x, b, (size_t)n * sizeof *x);
    return f;
}

int go_gesv(int64_t n, const double *a, int64_t lda, const double *b, double *x, int *info)
{
    int rc = check_solve_args(__func__, n, a, lda, b, x, info);
    if (rc) return rc;
    *info = 0;
    if (n == 0) return 0;
    double *f = copy_system(n, a, lda, b, x);
    lapack_int *ipiv = malloc((size_t)n * sizeof *ipiv + 1);
    if (!f || !ipiv) {
        free(f);
        free(ipiv);
        return go_enomem(__func__);
    }
    lapack_int i;
    GO_BLAS(i = LAPACKE_dgesv(LAPACK_ROW_MAJOR, (lapack_int)n, 1, f, (lapack_int)n, ipiv, x, 1));
    free(f);
    free(ipiv);
    if (i < 0) /* as in orthogonalise: only n past lapack_int's range */
        return i == LAPACK_WORK_MEMORY_ERROR ? go_enomem(__func__) : go_xerbla(__func__, 1, "n");
    *info = (int)i; /* > 0: U(i,i) is exactly zero; x still holds b */
    return 0;
}

int go_posv(int64_t n, const double *a, int64_t lda, const double *b, double *x, int *info)
{
    int rc = check_solve_args(__func__, n, a, lda, b, x, info);
    if (rc) return rc;
    *info = 0;
    if (n == 0) return 0;
    double *f = copy_system(n, a, lda, b, x);
    if (!f) return go_enomem(__func__);
    /* row-major 'L' is the column-major upper triangle; A is symmetric, so either is A */
    lapack_int i;
    GO_BLAS(i = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, 1, f, (lapack_int)n, x, 1));
    free(f);
    if (i < 0) /* as in orthogonalise: only n past lapack_int's range */
        return i == LAPACK_WORK_MEMORY_ERROR ? go_enomem(__func__) : go_xerbla(__func__, 1, "n");
    *info = (int)i; /* > 0: the leading minor of order i is not positive definite */
    return 0;
}

int go_solve_scaled_residual(int64_t n, const double *a, int64_t lda, const double *x,
                             const double *b, double u, double *sr)
{
    const char *fn = __func__;
    if (n < 1) return go_xerbla(fn, 1, "n");
    if (!a) return go_xerbla(fn, 2, "a");
    if (lda < max1(n)) return go_xerbla(fn, 3, "lda");
    if (!x) return go_xerbla(fn, 4, "x");
    if (!b) return go_xerbla(fn, 5, "b");
    if (!(u > 0)) return go_xerbla(fn, 6, "u");
    if (!sr) return go_xerbla(fn, 7, "sr");
    /* long double (64-bit significand on x86-64): the residual's own rounding, about
       n 2^-64 ||A|| ||x||, stays far below the u_f64 n ||A|| ||x|| it is measured against */
    long double r_inf = 0, a_inf = 0, x_inf = 0, b_inf = 0;
    int nonfinite = 0;
    /* rows on all cores: each row's sums as on one thread, and maxima (and the or) are the
       same whatever the order they are merged in, so the same bits on any thread count */
#pragma omp parallel for schedule(static) reduction(max                                            \
                                                    : r_inf, a_inf, x_inf, b_inf)                  \
    reduction(|                                                                                    \
              : nonfinite) if ((double)n * (double)n >= GO_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        const double *row = a + i * lda;
        long double dot = 0, rowsum = 0;
        for (int64_t j = 0; j < n; j++) {
            dot += (long double)row[j] * x[j];
            rowsum += fabsl((long double)row[j]);
        }
        long double ri = fabsl(dot - b[i]);
        if (!isfinite((double)ri)) nonfinite = 1;
        if (ri > r_inf) r_inf = ri;
        if (rowsum > a_inf) a_inf = rowsum;
        if (fabsl((long double)x[i]) > x_inf) x_inf = fabsl((long double)x[i]);
        if (fabsl((long double)b[i]) > b_inf) b_inf = fabsl((long double)b[i]);
    }
    long double denom = (long double)u * (a_inf * x_inf + b_inf) * (long double)n;
    if (nonfinite)
        *sr = NAN;
    else
        *sr = denom > 0 ? (double)(r_inf / denom) : (r_inf > 0 ? INFINITY : 0.0);
    return 0;
}
