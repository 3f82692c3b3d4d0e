/* argmax.c: the oracle of reduce.argmax, the index of each row's largest value of a row-major
 * m x n matrix, as torch.argmax defines it: the first index of the maximum, a NaN counting as
 * larger than every number (so the first NaN of a row that has one), -0 equal to +0. It is
 * exact (comparisons never round), and the index, below 2^53, is exact in a double. */
#include <math.h>

#include "go.h"

#define ARGMAX_PARALLEL if ((double)m * (double)n >= GO_PAR_MIN)

int go_argmax_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *idx)
{
    if (m < 0) return go_xerbla(__func__, 1, "m");
    if (n < 1) return go_xerbla(__func__, 2, "n");
    if (!x) return go_xerbla(__func__, 3, "x");
    if (ldx < n) return go_xerbla(__func__, 4, "ldx");
    if (!idx) return go_xerbla(__func__, 5, "idx");
#pragma omp parallel for schedule(static) ARGMAX_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx;
        int64_t best = 0;
        for (int64_t j = 1; j < n && !isnan(xr[best]); j++)
            /* strictly larger, or the first NaN: a tie keeps the earlier index */
            if (isnan(xr[j]) || xr[j] > xr[best]) best = j;
        idx[i] = (double)best;
    }
    return 0;
}
