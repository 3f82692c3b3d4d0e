/* lsmr.h: what the lsmr family's three sides must agree on, in plain C (no CUDA types):
 * the problem's constants (density, the lambda grid, the stopping tolerances, the iteration
 * cap), the sparse structure handed to the device as host_aux, the layout of the small info
 * output, and LSMR's scalar recurrences. The recurrences run on the host for the GPU driver
 * (kernels/lsmr.cu) and for the CPU reference (oracle/lsmr.c): one copy, so the CPU tests
 * exercise the very arithmetic the device run uses.
 *
 * LSMR: D. C.-L. Fong and M. A. Saunders, "LSMR: An iterative algorithm for sparse
 * least-squares problems", SIAM J. Sci. Comput. 33(5), 2950-2971, 2011: Golub-Kahan
 * bidiagonalization of A, MINRES applied to the normal equations through two QR
 * factorizations (sec. 2), damping by one extra plane rotation per step, and the norm
 * estimates behind the stopping rules (sec. 3). Written here from the paper's derivation;
 * the variable names follow its symbols (alpha, beta, rho, rhobar, zeta, zetabar, ...). */
#ifndef GV_ABI_LSMR_H
#define GV_ABI_LSMR_H

#include <math.h>
#include <stdint.h>

#include "gv_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seed 002: density 0.1, ten damping values geometrically from 1e-1 to 5e3. */
#define GK_LSMR_DENSITY      0.1
#define GK_LSMR_NLAMBDA      10
#define GK_LSMR_LAMBDA_FIRST 1e-1
#define GK_LSMR_LAMBDA_LAST  5e3

/* lambda_k, k = 1..GK_LSMR_NLAMBDA: numpy.geomspace(1e-1, 5e3, 10)[k - 1] (to an ulp). */
static inline double gk_lsmr_lambda(int64_t k)
{
    if (k <= 1) return GK_LSMR_LAMBDA_FIRST;
    if (k >= GK_LSMR_NLAMBDA) return GK_LSMR_LAMBDA_LAST;
    double t = (double)(k - 1) / (double)(GK_LSMR_NLAMBDA - 1);
    return GK_LSMR_LAMBDA_FIRST * pow(GK_LSMR_LAMBDA_LAST / GK_LSMR_LAMBDA_FIRST, t);
}

/* Stopping tolerances atol = btol by storage dtype . f32: scipy's
 * default 1e-6, a few units of u_f32 = 6e-8 above the level rounding lets the true
 * ||A^T r|| reach. f64: 1e-12, well under the 1e-8 tier and still above f64's floor. */
static inline double gk_lsmr_atol(int dtype)
{
    switch (dtype) {
    case GV_F64: return 1e-12;
    default: return 1e-6;
    }
}
#define GK_LSMR_CONLIM_VALUE 1e8 /* scipy's default: stop once cond(A) is estimated above it */

/* Iteration cap. In exact arithmetic LSMR ends within min(m, n) steps; in floating point
 * the lost orthogonality of the Golub-Kahan vectors delays it, so allow a multiple. The
 * cap only bounds the run's time: a result stopped by it is judged like any other. */
static inline int64_t gk_lsmr_maxiter(int64_t m, int64_t n)
{
    int64_t k = m < n ? m : n;
    return 4 * k + 100;
}

/* The sparse matrix A (m x n, CSR, 0-based int32 indices) and lambda, owned by the host
 * problem and handed to the device as host_aux; the values are the op's input tensor 0. */
typedef struct gk_lsmr_aux {
    int64_t m, n, nnz;
    double lambda;
    int32_t *row_ptr; /* m + 1 */
    int32_t *col_idx; /* nnz, increasing within each row */
} gk_lsmr_aux;

/* The device workspace, carved in this order by kernels/lsmr.cu, each piece rounded up to
 * 256 bytes: A's CSR row pointers and column indices, A^T's CSR (pointers, indices, values),
 * then the vectors u (m), v, h and hbar (n). es: the dtype's element size. */
enum {
    GK_LSMR_WS_A_PTR,
    GK_LSMR_WS_A_IDX,
    GK_LSMR_WS_AT_PTR,
    GK_LSMR_WS_AT_IDX,
    GK_LSMR_WS_AT_VAL,
    GK_LSMR_WS_U,
    GK_LSMR_WS_V,
    GK_LSMR_WS_H,
    GK_LSMR_WS_HBAR,
    GK_LSMR_WS_PIECES
};
static inline int64_t gk_lsmr_ws_piece(int piece, int64_t m, int64_t n, int64_t nnz, int64_t es)
{
    switch (piece) {
    case GK_LSMR_WS_A_PTR: return (m + 1) * 4;
    case GK_LSMR_WS_A_IDX: return nnz * 4;
    case GK_LSMR_WS_AT_PTR: return (n + 1) * 4;
    case GK_LSMR_WS_AT_IDX: return nnz * 4;
    case GK_LSMR_WS_AT_VAL: return nnz * es;
    case GK_LSMR_WS_U: return m * es;
    default: return n * es; /* v, h, hbar */
    }
}
static inline int64_t gk_lsmr_ws_round(int64_t bytes)
{
    return (bytes + 255) / 256 * 256;
}
static inline int64_t gk_lsmr_workspace_bytes(int64_t m, int64_t n, int64_t nnz, int64_t es)
{
    int64_t total = 0;
    for (int p = 0; p < GK_LSMR_WS_PIECES; p++)
        total += gk_lsmr_ws_round(gk_lsmr_ws_piece(p, m, n, nnz, es));
    return total;
}

/* The info output (case dtype), written by the device after the solve. */
enum {
    GK_LSMR_INFO_ITERATIONS = 0,
    GK_LSMR_INFO_ISTOP = 1,  /* why it stopped: enum gk_lsmr_stop */
    GK_LSMR_INFO_NORMR = 2,  /* LSMR's estimate of ||[b; 0] - [A; lambda I] x|| */
    GK_LSMR_INFO_NORMAR = 3, /* its estimate of ||A^T r - lambda^2 x|| */
    GK_LSMR_INFO_NORMA = 4,  /* its estimate of ||A||_F (on the Krylov space) */
    GK_LSMR_INFO_CONDA = 5,  /* its estimate of cond(A) */
    GK_LSMR_INFO_COUNT = 6
};

/* Stop reasons, numbered as in the paper's and scipy's istop. */
enum gk_lsmr_stop {
    GK_LSMR_RUNNING = -1,
    GK_LSMR_X0 = 0,         /* x = 0 is the exact solution (b = 0 or A^T b = 0) */
    GK_LSMR_COMPAT = 1,     /* ||r|| <= btol ||b|| + atol ||A|| ||x||: compatible system */
    GK_LSMR_LSQ = 2,        /* ||A^T r|| <= atol ||A|| ||r||: least-squares solution */
    GK_LSMR_CONLIM = 3,     /* cond(A) estimate >= conlim */
    GK_LSMR_COMPAT_EPS = 4, /* as 1, with atol = btol = machine precision */
    GK_LSMR_LSQ_EPS = 5,    /* as 2, likewise */
    GK_LSMR_COND_EPS = 6,   /* as 3, with conlim = 1/eps */
    GK_LSMR_MAXITER = 7     /* iteration cap */
};

/* Plane rotation [c s; -s c] with c a + s b = r >= 0 and -s a + c b = 0; hypot avoids
 * overflow. */
static inline void gk_lsmr_rot(double a, double b, double *c, double *s, double *r)
{
    double h = hypot(a, b);
    if (h == 0.0) {
        *c = 1.0;
        *s = 0.0;
    } else {
        *c = a / h;
        *s = b / h;
    }
    *r = h;
}

/* The scalar state of LSMR between two bidiagonalization steps. */
typedef struct gk_lsmr_scalars {
    double damp, atol, btol, ctol;
    int64_t maxiter, itn;
    /* the two QR factorizations (sec. 2) */
    double alpha, alphabar, zeta, zetabar, rho, rhobar, cbar, sbar;
    /* ||r|| estimate (sec. 3) */
    double betadd, betad, rhodold, tautildeold, thetatilde, d;
    /* ||A|| and cond(A) estimates (sec. 3) */
    double normA2, maxrbar, minrbar;
    double normb, normr, normar, normA, condA;
} gk_lsmr_scalars;

/* Start from beta1 = ||b||, alpha1 = ||A^T u1|| (x0 = 0). Returns GK_LSMR_X0 when x = 0 is
 * the answer, else GK_LSMR_RUNNING. */
static inline int gk_lsmr_begin(gk_lsmr_scalars *s, double alpha1, double beta1, double damp,
                                double atol, double btol, double conlim, int64_t maxiter)
{
    s->damp = damp;
    s->atol = atol;
    s->btol = btol;
    s->ctol = conlim > 0 ? 1.0 / conlim : 0.0;
    s->maxiter = maxiter;
    s->itn = 0;
    s->alpha = alpha1;
    s->alphabar = alpha1;
    s->zeta = 0.0;
    s->zetabar = alpha1 * beta1;
    s->rho = 1.0;
    s->rhobar = 1.0;
    s->cbar = 1.0;
    s->sbar = 0.0;
    s->betadd = beta1;
    s->betad = 0.0;
    s->rhodold = 1.0;
    s->tautildeold = 0.0;
    s->thetatilde = 0.0;
    s->d = 0.0;
    s->normA2 = alpha1 * alpha1;
    s->maxrbar = 0.0;
    s->minrbar = 1e100;
    s->normb = beta1;
    s->normr = beta1;
    s->normar = alpha1 * beta1;
    s->normA = alpha1;
    s->condA = 1.0;
    return s->normar == 0.0 ? GK_LSMR_X0 : GK_LSMR_RUNNING;
}

/* Coefficients of the step's vector updates, applied in this order with v = v_{k+1}:
 *   hbar = h - hbar_coef hbar;   x = x + x_coef hbar;   h = v - h_coef h. */
typedef struct gk_lsmr_coefs {
    double hbar_coef, x_coef, h_coef;
} gk_lsmr_coefs;

/* One step's rotations, given the new beta = beta_{k+1} = ||A v_k - alpha_k u_k|| and
 * alpha = alpha_{k+1} = ||A^T u_{k+1} - beta_{k+1} v_k||. Fills the vector-update
 * coefficients and the ||r||, ||A^T r||, ||A||, cond(A) estimates. */
static inline void gk_lsmr_step(gk_lsmr_scalars *s, double alpha, double beta, gk_lsmr_coefs *k)
{
    s->itn++;
    /* the damping rotation: fold lambda into alphabar (the stacked [A; lambda I]) */
    double chat, shat, alphahat;
    gk_lsmr_rot(s->alphabar, s->damp, &chat, &shat, &alphahat);

    /* rotation Q_k: B_k to R_k */
    double rhoold = s->rho, c, sn;
    gk_lsmr_rot(alphahat, beta, &c, &sn, &s->rho);
    double thetanew = sn * alpha;
    s->alphabar = c * alpha;

    /* rotation Qbar_k: R_k^T to Rbar_k */
    double rhobarold = s->rhobar, zetaold = s->zeta;
    double thetabar = s->sbar * s->rho;
    double rhotemp = s->cbar * s->rho;
    gk_lsmr_rot(s->cbar * s->rho, thetanew, &s->cbar, &s->sbar, &s->rhobar);
    s->zeta = s->cbar * s->zetabar;
    s->zetabar = -s->sbar * s->zetabar;

    k->hbar_coef = thetabar * s->rho / (rhoold * rhobarold);
    k->x_coef = s->zeta / (s->rho * s->rhobar);
    k->h_coef = thetanew / s->rho;

    /* ||r|| estimate: apply Qhat_k, Q_k to (betadd, 0), then Qtilde_{k-1} (sec. 3) */
    double betaacute = chat * s->betadd, betacheck = -shat * s->betadd;
    double betahat = c * betaacute;
    s->betadd = -sn * betaacute;
    double thetatildeold = s->thetatilde, ctildeold, stildeold, rhotildeold;
    gk_lsmr_rot(s->rhodold, thetabar, &ctildeold, &stildeold, &rhotildeold);
    s->thetatilde = stildeold * s->rhobar;
    s->rhodold = ctildeold * s->rhobar;
    s->betad = -stildeold * s->betad + ctildeold * betahat;
    s->tautildeold = (zetaold - thetatildeold * s->tautildeold) / rhotildeold;
    double taud = (s->zeta - s->thetatilde * s->tautildeold) / s->rhodold;
    s->d += betacheck * betacheck;
    s->normr = sqrt(s->d + (s->betad - taud) * (s->betad - taud) + s->betadd * s->betadd);

    /* ||A||_F of the bidiagonal so far, and cond(A) from the diagonal of Rbar (sec. 3) */
    s->normA2 += beta * beta;
    s->normA = sqrt(s->normA2);
    s->normA2 += alpha * alpha;
    if (rhobarold > s->maxrbar) s->maxrbar = rhobarold;
    if (s->itn > 1 && rhobarold < s->minrbar) s->minrbar = rhobarold;
    double hi = s->maxrbar > rhotemp ? s->maxrbar : rhotemp;
    double lo = s->minrbar < rhotemp ? s->minrbar : rhotemp;
    s->condA = hi / lo;
    s->normar = fabs(s->zetabar);
    s->alpha = alpha;
}

/* The stopping rules S1-S3 (sec. 3) once x_k is formed, given ||x_k||. Returns the
 * stop reason or GK_LSMR_RUNNING; the later, stronger tests win, as in the paper. */
static inline int gk_lsmr_test(const gk_lsmr_scalars *s, double normx)
{
    double test1 = s->normr / s->normb;
    double test2 = (s->normA * s->normr) != 0.0 ? s->normar / (s->normA * s->normr) : INFINITY;
    double test3 = 1.0 / s->condA;
    double t1 = test1 / (1.0 + s->normA * normx / s->normb);
    double rtol = s->btol + s->atol * s->normA * normx / s->normb;
    int istop = GK_LSMR_RUNNING;
    if (s->itn >= s->maxiter) istop = GK_LSMR_MAXITER;
    if (1.0 + test3 <= 1.0) istop = GK_LSMR_COND_EPS;
    if (1.0 + test2 <= 1.0) istop = GK_LSMR_LSQ_EPS;
    if (1.0 + t1 <= 1.0) istop = GK_LSMR_COMPAT_EPS;
    if (test3 <= s->ctol) istop = GK_LSMR_CONLIM;
    if (test2 <= s->atol) istop = GK_LSMR_LSQ;
    if (test1 <= rtol) istop = GK_LSMR_COMPAT;
    return istop;
}

#ifdef __cplusplus
}
#endif
#endif
