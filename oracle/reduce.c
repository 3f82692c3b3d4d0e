/* reduce.c: oracles for the sum of a vector and the column sums of a matrix. Both go through
 * go_colsum (oracle/colsum.c: Neumaier's compensated summation, Higham ASNA 2nd ed. sec. 4.3),
 * whose error stays near one f64 rounding of the sum however many terms there are. A vector
 * is an n x 1 matrix with leading dimension 1.
 *
 * Non-finite inputs: compensation turns a sum holding +Inf into NaN (the correction term
 * computes Inf - Inf), while IEEE addition in any order gives +Inf. So a result that comes
 * out non-finite is recomputed by plain recursive summation, whose NaN/Inf outcome does not
 * depend on the order (NaN if any NaN or both infinities, else the infinity's sign), which
 * is what the device's tree gives too. Finite inputs never reach that path unless the exact
 * sum overflows, where the plain sum overflows as well. */
#include <assert.h>
#include <math.h>

#include "go.h"

/* s(j) of columns whose compensated sum is not finite, by plain summation (of |x| for a
 * gauge). */
static void fix_nonfinite(int64_t m, int64_t n, const double *x, int64_t ldx, double *s,
                          int take_abs)
{
    for (int64_t j = 0; j < n; j++) {
        if (isfinite(s[j])) continue;
        double plain = 0.0;
        for (int64_t i = 0; i < m; i++)
            plain += take_abs ? fabs(x[i * ldx + j]) : x[i * ldx + j];
        s[j] = plain;
    }
}

int go_reduce_sum(int64_t n, const double *x, double *s)
{
    if (n < 0) return go_xerbla(__func__, 1, "n");
    if (!x) return go_xerbla(__func__, 2, "x");
    if (!s) return go_xerbla(__func__, 3, "s");
    int rc = go_colsum(n, 1, x, 1, s);
    assert(rc == 0 || rc == GO_ENOMEM); /* its arguments are the ones checked above */
    if (rc) return rc == GO_ENOMEM ? go_enomem(__func__) : go_xerbla(__func__, 1, "n");
    fix_nonfinite(n, 1, x, 1, s, 0);
    return 0;
}

int go_reduce_sum_gauge(int64_t n, const double *x, double *g)
{
    if (n < 0) return go_xerbla(__func__, 1, "n");
    if (!x) return go_xerbla(__func__, 2, "x");
    if (!g) return go_xerbla(__func__, 3, "g");
    int rc = go_colsum_gauge(n, 1, x, 1, g);
    assert(rc == 0 || rc == GO_ENOMEM);
    if (rc) return rc == GO_ENOMEM ? go_enomem(__func__) : go_xerbla(__func__, 1, "n");
    fix_nonfinite(n, 1, x, 1, g, 1);
    return 0;
}

int go_reduce_colsum(int64_t m, int64_t n, const double *x, int64_t ldx, double *s)
{
    int rc = go_colsum(m, n, x, ldx, s);
    if (rc) return rc;
    fix_nonfinite(m, n, x, ldx, s, 0);
    return 0;
}

int go_reduce_colsum_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g)
{
    int rc = go_colsum_gauge(m, n, x, ldx, g);
    if (rc) return rc;
    fix_nonfinite(m, n, x, ldx, g, 1);
    return 0;
}

/* The mean of each row of X (m x n, leading dimension ldx): the row's sum as go_reduce_sum's
 * (a row is an n x 1 matrix of leading dimension 1), divided by n in f64: two f64 roundings of
 * the exact mean. take_abs: the mean of |x| (the gauge). */
static int row_means(const char *fn, int64_t m, int64_t n, const double *x, int64_t ldx, double *y,
                     int take_abs)
{
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (n < 1) return go_xerbla(fn, 2, "n");
    if (!x) return go_xerbla(fn, 3, "x");
    if (ldx < n) return go_xerbla(fn, 4, "ldx");
    if (!y) return go_xerbla(fn, 5, "y");
    for (int64_t i = 0; i < m; i++) {
        int rc = take_abs ? go_reduce_sum_gauge(n, x + i * ldx, y + i)
                          : go_reduce_sum(n, x + i * ldx, y + i);
        if (rc) return rc == GO_ENOMEM ? go_enomem(fn) : rc;
        y[i] /= (double)n;
    }
    return 0;
}

int go_reduce_mean(int64_t m, int64_t n, const double *x, int64_t ldx, double *y)
{
    return row_means(__func__, m, n, x, ldx, y, 0);
}

int go_reduce_mean_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double *g)
{
    return row_means(__func__, m, n, x, ldx, g, 1);
}
