/* scan.c: oracles for the inclusive prefix sums and prefix products along the rows of a
 * row-major m x n matrix (scan.cumsum, scan.cumprod), and the gauges of their error models
 * (docs/error-models.md, sections scan and scan.cumprod).
 *
 * Each row's running sum is Neumaier's compensated sum in long double (Higham ASNA 2nd ed.,
 * sec. 4.3): every prefix is within about 2 units of 2^-64 of its exact value plus n 2^-128
 * of the sum of |x|, then rounded once to f64, far inside what an f64 kernel is allowed.
 * Non-finite inputs: a prefix whose compensated value is not finite is the plain running
 * sum's, the IEEE outcome of any order (NaN once a NaN or both infinities are among the
 * terms, else the infinity), which a kernel that adds the terms in its own order gives too.
 * Rows run on all cores, each on one thread. */
#include <math.h>

#include "go.h"

#define SCAN_PARALLEL if ((double)m * (double)n >= GO_PAR_MIN)

int go_scan_cumsum(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
#pragma omp parallel for schedule(static) SCAN_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx;
        long double s = 0, c = 0, plain = 0;
        for (int64_t j = 0; j < n; j++) {
            long double v = xr[j], t = s + v;
            /* Neumaier: the part of the smaller operand that the sum lost */
            c += fabsl(s) >= fabsl(v) ? (s - t) + v : (v - t) + s;
            s = t;
            plain += v;
            y[i * ldy + j] = isfinite(plain) ? (double)(s + c) : (double)plain;
        }
    }
    return 0;
}

/* g_ij = sum_{k <= j} |x_ik|: the sum of the magnitudes an output is made of (ASNA eq. 4.3);
   in long double, so that its own rounding is far below the model's slack. */
int go_scan_cumsum_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g, int64_t ldg)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, g, ldg);
    if (rc) return rc;
#pragma omp parallel for schedule(static) SCAN_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        long double s = 0;
        for (int64_t j = 0; j < n; j++) {
            s += fabsl((long double)x[i * ldx + j]);
            g[i * ldg + j] = (double)s;
        }
    }
    return 0;
}

/* y_ij = prod_{k <= j} x_ik, the running product in long double rounded once a prefix: each of
   its j multiplications rounds at 2^-64 relative, so a prefix is within j 2^-64 of the exact
   product, about 2^-11 j of the unit of the model an f64 kernel is held to ((j + 1) 2^-53);
   long double's range (to 2^-16445) keeps every product that f64 can hold (and its
   subnormals) away from underflow. Non-finite prefixes are the IEEE outcome of the sequential
   order (a NaN term, or an infinity meeting a zero, gives NaN), which is every order's as long
   as no partial product underflows to zero beside an infinity: the op takes no such inputs
   (src/ops/scan.c). */
int go_scan_cumprod(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
#pragma omp parallel for schedule(static) SCAN_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        long double p = 1;
        for (int64_t j = 0; j < n; j++) {
            p *= x[i * ldx + j];
            y[i * ldy + j] = (double)p;
        }
    }
    return 0;
}

/* g_ij = (j + 1) |y_ij|: a product of j + 1 terms computed in any order makes exactly j
   rounded multiplications, each a factor (1 + delta), |delta| <= u, so |y^ - y| <= gamma_j |y|
   (Higham ASNA sec. 3.1, Lemma 3.1); the depth is then 1 and the gauge carries j + 1 >= j. */
int go_scan_cumprod_gauge(int64_t m, int64_t n, const double *y, int64_t ldy, double *g,
                          int64_t ldg)
{
    int rc = go_check_rows(__func__, m, n, y, ldy, g, ldg);
    if (rc) return rc;
#pragma omp parallel for schedule(static) SCAN_PARALLEL
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            g[i * ldg + j] = (double)(j + 1) * fabs(y[i * ldy + j]);
    return 0;
}
