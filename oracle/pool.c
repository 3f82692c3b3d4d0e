/* pool.c: oracles for 2-D max and average pooling over nc planes of h x w (an NCHW tensor,
 * row-major planes), window k x k, stride k, no padding: y(p, i, j) over rows i k .. i k + k - 1
 * and columns j k .. j k + k - 1 of plane p, out (nc, h / k, w / k); and the average's gauge
 * (docs/error-models.md, section pool).
 * The max is exact (a NaN in the window gives NaN, as PyTorch's max_pool2d), compared in
 * double: the long double max it replaced gave the same bits (every value is a double) but
 * loaded each term onto the x87 stack, which for a subnormal double costs a microcode assist on
 * many x86 cores; in double the max takes a third to a quarter of the time on an AMD EPYC,
 * subnormal or not. The average sums its k*k terms in long double (within k*k 2^-64 of the
 * sum of |x|, far inside what an f64 kernel is allowed) and rounds the quotient once;
 * non-finite terms give the IEEE sum's outcome, which every order shares. */
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
                long double acc = 0.0L;
                double mx = -INFINITY;
                for (int64_t a = 0; a < k; a++)
                    for (int64_t b = 0; b < k; b++) {
                        double v = x[(p * h + i * k + a) * w + j * k + b];
                        if (mode == 0)
                            mx = isnan(mx) || isnan(v) ? NAN : (v > mx ? v : mx);
                        else
                            acc += mode == 1 ? (long double)v : fabsl((long double)v);
                    }
                y[(p * oh + i) * ow + j] = mode == 0 ? mx : (double)(acc / (k * k));
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

/* 1-D and 3-D pooling (MaxPool1d/AvgPool1d(k) over nc rows of l; MaxPool3d/AvgPool3d(k) over
 * nc volumes of d x h x w), window k a side, stride k, no padding: the same three modes as
 * above over a window of k or k^3 terms. sz holds the rank's sides (l; or d, h, w). */
static int check_pool_nd(const char *fn, int rank, int64_t nc, const int64_t *sz, int64_t k,
                         const double *x, const double *y)
{
    if (nc < 0) return go_xerbla(fn, 1, "nc");
    for (int r = 0; r < rank; r++)
        if (sz[r] < k || k < 1)
            return go_xerbla(fn, k < 1 ? rank + 2 : r + 2, k < 1 ? "k" : "side");
    if (!x) return go_xerbla(fn, rank + 3, "x");
    if (!y) return go_xerbla(fn, rank + 4, "y");
    return 0;
}

static void pool_nd(int mode, int rank, int64_t nc, const int64_t *sz, int64_t k, const double *x,
                    double *y)
{
    int64_t in_sz[3] = {1, 1, 1}, out_sz[3] = {1, 1, 1};
    for (int r = 0; r < rank; r++) {
        in_sz[3 - rank + r] = sz[r];
        out_sz[3 - rank + r] = sz[r] / k;
    }
    const int64_t kd = rank == 3 ? k : 1, kh = rank >= 2 ? k : 1, kw = k;
    const int64_t terms = kd * kh * kw, outs = out_sz[0] * out_sz[1] * out_sz[2];
    const int64_t plane_in = in_sz[0] * in_sz[1] * in_sz[2];
#pragma omp parallel for schedule(static) if ((double)nc * (double)plane_in >= GO_PAR_MIN)
    for (int64_t p = 0; p < nc; p++)
        for (int64_t o = 0; o < outs; o++) {
            const int64_t i = o / (out_sz[1] * out_sz[2]), j = o / out_sz[2] % out_sz[1],
                          l = o % out_sz[2];
            long double acc = 0.0L;
            double mx = -INFINITY;
            for (int64_t a = 0; a < kd; a++)
                for (int64_t b = 0; b < kh; b++)
                    for (int64_t c = 0; c < kw; c++) {
                        double v =
                            x[p * plane_in + ((i * kd + a) * in_sz[1] + j * kh + b) * in_sz[2] +
                              l * kw + c];
                        if (mode == 0)
                            mx = isnan(mx) || isnan(v) ? NAN : (v > mx ? v : mx);
                        else
                            acc += mode == 1 ? (long double)v : fabsl((long double)v);
                    }
            y[p * outs + o] = mode == 0 ? mx : (double)(acc / terms);
        }
}

#define POOL_ND(name, rank, mode)                                                                  \
    int name(int64_t nc, const int64_t *sz, int64_t k, const double *x, double *y)                 \
    {                                                                                              \
        int rc = check_pool_nd(#name, rank, nc, sz, k, x, y);                                      \
        if (rc) return rc;                                                                         \
        pool_nd(mode, rank, nc, sz, k, x, y);                                                      \
        return 0;                                                                                  \
    }

POOL_ND(go_pool_max1d, 1, 0)
POOL_ND(go_pool_avg1d, 1, 1)
POOL_ND(go_pool_avg1d_gauge, 1, 2)
POOL_ND(go_pool_max3d, 3, 0)
POOL_ND(go_pool_avg3d, 3, 1)
POOL_ND(go_pool_avg3d_gauge, 3, 2)
