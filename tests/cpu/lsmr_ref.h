/* lsmr_ref.h: a CPU LSMR with the device driver's recurrences (kernels/lsmr.h) and the same
 * vector steps, in f64 or (single != 0) emulating f32 storage and arithmetic: for tests of
 * the recurrences and of the judge, not an oracle (the oracle is go_lsmr_ridge's dense QR).
 * It lives with the tests so that oracle/ includes no kernels/ header. Stops at atol/btol,
 * GK_LSMR_CONLIM_VALUE or maxiter; info gets GK_LSMR_INFO_COUNT values. Returns go.h's
 * codes. lsmr_ref_problem runs it on a gv_problem for the tests. Header-only. */
#pragma once

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/lsmr.h"
#include "../../oracle/go.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

static inline double lref_rnd(double v, bool single)
{
    return single ? (double)(float)v : v;
}

/* y = A x - beta y (beta = 0: y = A x), y of length m */
static inline void lref_spmv(int64_t m, const int32_t *rp, const int32_t *ci, const double *va,
                             const double *x, double beta, double *y, bool single)
{
    float beta_f = (float)beta;
    for (int64_t i = 0; i < m; i++) {
        if (single) {
            float acc = 0.0f;
            for (int32_t k = rp[i]; k < rp[i + 1]; k++)
                acc += (float)va[k] * (float)x[ci[k]];
            y[i] = beta == 0.0 ? acc : lref_rnd((double)acc - (double)beta_f * y[i], true);
        } else {
            double acc = 0.0;
            for (int32_t k = rp[i]; k < rp[i + 1]; k++)
                acc += va[k] * x[ci[k]];
            y[i] = beta == 0.0 ? acc : acc - beta * y[i];
        }
    }
}

static inline double lref_nrm2(int64_t n, const double *x, bool single)
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

static inline void lref_scal(int64_t n, double a, double *x, bool single)
{
    a = lref_rnd(a, single);
    for (int64_t i = 0; i < n; i++)
        x[i] = lref_rnd(a * x[i], single);
}

/* A^T as CSR (the device builds the same with cusparseCsr2cscEx2) */
static inline int lref_transpose_csr(int64_t m, int64_t n, const int32_t *rp, const int32_t *ci,
                                     const double *va, int32_t **trp, int32_t **tci, double **tva)
{
    int64_t nnz = rp[m];
    *trp = calloc((size_t)n + 1, sizeof **trp);
    *tci = malloc((size_t)nnz * sizeof **tci + 1);
    *tva = malloc((size_t)nnz * sizeof **tva + 1);
    int32_t *next = malloc((size_t)n * sizeof *next + 1);
    if (!*trp || !*tci || !*tva || !next) {
        free(next);
        return GO_ENOMEM;
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

static inline int lsmr_ridge_ref(int64_t m, int64_t n, const int32_t *row_ptr,
                                 const int32_t *col_idx, const double *vals, const double *b,
                                 double lambda, double atol, double btol, int64_t maxiter,
                                 int single, double *x, double *info)
{
    /* the CSR arguments (1 to 8) are the oracle's: its residual routine checks them (and
       names itself in go_last_error), on a zero x since x is an output here */
    double norms[GO_LSMR_NNORMS];
    double *x0 = n >= 1 ? calloc((size_t)n, sizeof *x0) : NULL;
    if (n >= 1 && !x0) return GO_ENOMEM;
    int rc = go_lsmr_ridge_residuals(m, n, row_ptr, col_idx, vals, b, lambda, x ? x0 : NULL, norms);
    free(x0);
    if (rc) return rc;
    if (!(atol >= 0)) return go_xerbla(__func__, 8, "atol");
    if (!(btol >= 0)) return go_xerbla(__func__, 9, "btol");
    if (maxiter < 1) return go_xerbla(__func__, 10, "maxiter");
    if (!info) return go_xerbla(__func__, 13, "info");
    bool sp = single != 0;
    int32_t *trp = NULL, *tci = NULL;
    double *tva = NULL;
    double *u = malloc((size_t)m * sizeof *u + 1);
    double *v = malloc((size_t)n * sizeof *v + 1);
    double *h = malloc((size_t)n * sizeof *h + 1);
    double *hbar = calloc((size_t)n, sizeof *hbar);
    double *va = malloc((size_t)row_ptr[m] * sizeof *va + 1);
    rc = (u && v && h && hbar && va)
             ? lref_transpose_csr(m, n, row_ptr, col_idx, vals, &trp, &tci, &tva)
             : GO_ENOMEM;
    if (rc) goto out;
    /* the device holds A, A^T and b in the case's dtype */
    for (int64_t k = 0; k < row_ptr[m]; k++) {
        va[k] = lref_rnd(vals[k], sp);
        tva[k] = lref_rnd(tva[k], sp);
    }
    for (int64_t i = 0; i < m; i++)
        u[i] = lref_rnd(b[i], sp);
    for (int64_t j = 0; j < n; j++)
        x[j] = 0.0;

    /* beta1 u1 = b, alpha1 v1 = A^T u1 */
    double beta = lref_nrm2(m, u, sp);
    if (beta > 0) lref_scal(m, 1.0 / beta, u, sp);
    lref_spmv(n, trp, tci, tva, u, 0.0, v, sp);
    double alpha = lref_nrm2(n, v, sp);
    if (alpha > 0) lref_scal(n, 1.0 / alpha, v, sp);
    memcpy(h, v, (size_t)n * sizeof *h);

    gk_lsmr_scalars s;
    int istop = gk_lsmr_begin(&s, alpha, beta, lambda, atol, btol, GK_LSMR_CONLIM_VALUE, maxiter);
    while (istop == GK_LSMR_RUNNING) {
        /* beta u = A v - alpha u;  alpha v = A^T u - beta v */
        lref_spmv(m, row_ptr, col_idx, va, v, alpha, u, sp);
        beta = lref_nrm2(m, u, sp);
        if (beta > 0) lref_scal(m, 1.0 / beta, u, sp);
        lref_spmv(n, trp, tci, tva, u, beta, v, sp);
        alpha = lref_nrm2(n, v, sp);
        if (alpha > 0) lref_scal(n, 1.0 / alpha, v, sp);

        gk_lsmr_coefs k;
        gk_lsmr_step(&s, alpha, beta, &k);
        double c1 = lref_rnd(k.hbar_coef, sp), c2 = lref_rnd(k.x_coef, sp),
               c3 = lref_rnd(k.h_coef, sp);
        for (int64_t j = 0; j < n; j++) {
            hbar[j] = lref_rnd(h[j] - c1 * hbar[j], sp);
            x[j] = lref_rnd(x[j] + c2 * hbar[j], sp);
            h[j] = lref_rnd(v[j] - c3 * h[j], sp);
        }
        istop = gk_lsmr_test(&s, lref_nrm2(n, x, sp));
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

/* The CPU reference LSMR on a problem's (rounded) inputs, as the device runs it; lambda given,
 * so that the planted bug (lambda = 0) runs through the same code. Fails the test unless 0. */
static inline void lsmr_ref_problem(const gv_problem *p, double lambda, double atol, double *x,
                                    double *info)
{
    const gk_lsmr_aux *ax = p->aux;
    int rc =
        lsmr_ridge_ref(ax->m, ax->n, ax->row_ptr, ax->col_idx, p->in[0].ref, p->in[1].ref, lambda,
                       atol, atol, gk_lsmr_maxiter(ax->m, ax->n), p->c.dtype == GV_F32, x, info);
    cr_assert_eq(rc, 0);
}
