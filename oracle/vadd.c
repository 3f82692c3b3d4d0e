/* vadd.c: oracle for c = a + b (seed 000). One correctly rounded f64 addition per element. */
#include <math.h>

#include "go.h"

int go_vadd(int64_t n, const double *a, const double *b, double *c)
{
    if (n < 0) return go_xerbla(__func__, 1, "n");
    if (!a) return go_xerbla(__func__, 2, "a");
    if (!b) return go_xerbla(__func__, 3, "b");
    if (!c) return go_xerbla(__func__, 4, "c");
#pragma omp parallel for schedule(static) if (n >= GO_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
    return 0;
}

int go_vadd_gauge(int64_t n, const double *a, const double *b, double *g)
{
    if (n < 0) return go_xerbla(__func__, 1, "n");
    if (!a) return go_xerbla(__func__, 2, "a");
    if (!b) return go_xerbla(__func__, 3, "b");
    if (!g) return go_xerbla(__func__, 4, "g");
#pragma omp parallel for schedule(static) if (n >= GO_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        g[i] = fabs(a[i]) + fabs(b[i]);
    return 0;
}
