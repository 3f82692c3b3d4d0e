/* argmax.c: the oracles of reduce.argmax and reduce.argmin, the index of each row's largest
 * (smallest) value of a row-major m x n matrix, as torch.argmax and torch.argmin define it:
 * the first index of the extreme, a NaN beating every number in both (so the first NaN of a
 * row that has one), -0 equal to +0; and of reduce.max and reduce.min, the value there
 * (torch.amax and torch.amin: NaN where the row has one). One walk, the direction and what is
 * stored parameters. It is exact (comparisons never round), and the index, below 2^53, is
 * exact in a double. */
#include <math.h>
#include <stdbool.h>

#include "go.h"

#define ARGMAX_PARALLEL if ((double)m * (double)n >= GO_PAR_MIN)

/* value false: idx(i) = the index; true: the value at it */
static int arg_rows(const char *fn, bool min, bool value, int64_t m, int64_t n, const double *x,
                    int64_t ldx, double *idx)
{
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (n < 1) return go_xerbla(fn, 2, "n");
    if (!x) return go_xerbla(fn, 3, "x");
    if (ldx < n) return go_xerbla(fn, 4, "ldx");
    if (!idx) return go_xerbla(fn, 5, "idx");
#pragma omp parallel for schedule(static) ARGMAX_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx;
        int64_t best = 0;
        for (int64_t j = 1; j < n && !isnan(xr[best]); j++)
            /* strictly further, or the first NaN: a tie keeps the earlier index */
            if (isnan(xr[j]) || (min ? xr[j] < xr[best] : xr[j] > xr[best])) best = j;
        idx[i] = value ? xr[best] : (double)best;
    }
    return 0;
}

int go_argmax_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *idx)
{
    return arg_rows(__func__, false, false, m, n, x, ldx, idx);
}

int go_argmin_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *idx)
{
    return arg_rows(__func__, true, false, m, n, x, ldx, idx);
}

int go_max_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *y)
{
    return arg_rows(__func__, false, true, m, n, x, ldx, y);
}

int go_min_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *y)
{
    return arg_rows(__func__, true, true, m, n, x, ldx, y);
}
