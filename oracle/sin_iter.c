/* sin_iter.c: oracle for y = sin applied k times to x (seed 000: the CPU/GPU crossover as the
 * work per element grows). Plain f64 iteration with the C library's sin. glibc's double sin
 * keeps its error under 1 ulp (glibc manual, "Errors in Math Functions"; tests/cpu checks it
 * against a long double iteration), and on |y| < pi/2 a relative error is not amplified by
 * later steps (y cot y <= 1), so after k steps the oracle is within about k ulps of the truth:
 * 2.2e-13 relative at k = 1000 in the worst case, far inside the 1e-8 tier and at most 2/16
 * of the f64 error model's budget (src/ops/sin_iter.c). Elements are independent, so they run
 * on all cores (OpenMP; OMP_NUM_THREADS) with each element's iteration exactly as on one:
 * the results are the same bits whatever the thread count. Timed runs that compare with
 * NumPy's single-core np.sin set OMP_NUM_THREADS=1. */
#include <math.h>

#include "go.h"

int go_sin_iter(int64_t n, int64_t k, const double *x, double *y)
{
    if (n < 0) return go_xerbla(__func__, 1, "n");
    if (k < 0) return go_xerbla(__func__, 2, "k");
    if (!x) return go_xerbla(__func__, 3, "x");
    if (!y) return go_xerbla(__func__, 4, "y");
#pragma omp parallel for schedule(static) if ((double)n * (double)(k + 1) >= GO_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        double v = x[i];
        for (int64_t j = 0; j < k; j++)
            v = sin(v);
        y[i] = v;
    }
    return 0;
}
