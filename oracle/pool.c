/* pool.c: oracles for 2-D max and average pooling over nc planes of h x w (an NCHW tensor,
 * row-major planes), window k x k, stride k, no padding: y(p, i, j) over rows i k .. i k + k - 1
 * and columns j k .. j k + k - 1 of plane p, out (nc, h / k, w / k); and the average's gauge
 * (docs/error-models.md, section pool).
 * The max is exact (a NaN in the window gives NaN, as PyTorch's max_pool2d). The average sums
 * its k*k terms in long double (within k*k 2^-64 of the sum of |x|, far inside what an f64
 * kernel is allowed) and rounds the quotient once; non-finite terms give the IEEE sum's
 * outcome, which every order shares. */
#include <math.h>

#include "go.h"

static int check_pool_args(const char *fn, int64_t nc, int64_t h, int64_t w, int64_t k,
                           const double *x, const double *y)
{
    if (nc < 0) return go_xerbla(fn, 1, "nc");
    if (k < 1) return go_xerbla(fn, 4, "k");
    if (h < k) return go_xerbla(fn, 2, "h");
    if (w < k) return go_xerbla(fn, 3, "w");
    if (!x) return go_xerbla(fn, 5, "x");
    if (!y) return go_xerbla(fn, 6, "y");
    return 0;
}

#define POOL_PARALLEL if ((double)nc * (double)h * (double)w >= GO_PAR_MIN)

/* mode 0: the max; 1: the mean; 2: the mean of |x| (the average's gauge) */
static void pool(int mode, int64_t nc, int64_t h, int64_t w, int64_t k, const double *x, double *y)
{
    const int64_t oh = h / k, ow = w / k;
#pragma omp parallel for schedule(static) POOL_PARALLEL
    for (int64_t p = 0; p < nc; p++)
        for (int64_t i = 0; i < oh; i++)
            for (int64_t j = 0; j < ow; j++) {
                long double acc = mode == 0 ? -INFINITY : 0.0L;
                for (int64_t a = 0; a < k; a++)
                    for (int64_t b = 0; b < k; b++) {
                        double v = x[(p * h + i * k + a) * w + j * k + b];
                        if (mode == 0)
                            acc = isnan(acc) || isnan(v) ? NAN : (v > acc ? v : acc);
                        else
                            acc += mode == 1 ? (long double)v : fabsl((long double)v);
                    }
                y[(p * oh + i) * ow + j] = mode == 0 ? (double)acc : (double)(acc / (k * k));
            }
}

int go_pool_max2d(int64_t nc, int64_t h, int64_t w, int64_t k, const double *x, double *y)
{
    int rc = check_pool_args(__func__, nc, h, w, k, x, y);
    if (rc) return rc;
    pool(0, nc, h, w, k, x, y);
    return 0;
}

int go_pool_avg2d(int64_t nc, int64_t h, int64_t w, int64_t k, const double *x, double *y)
{
    int rc = check_pool_args(__func__, nc, h, w, k, x, y);
    if (rc) return rc;
    pool(1, nc, h, w, k, x, y);
    return 0;
}

/* g = the window's mean of |x|, >= |y| (ASNA eq. 4.3: the sum's error is relative to it) */
int go_pool_avg2d_gauge(int64_t nc, int64_t h, int64_t w, int64_t k, const double *x, double *g)
{
    int rc = check_pool_args(__func__, nc, h, w, k, x, g);
    if (rc) return rc;
    pool(2, nc, h, w, k, x, g);
    return 0;
}
