/* poolpad.c: oracles for max and average pooling with a stride, zero padding and dilation
 * (torch.nn.MaxPool1d/2d/3d and AvgPool1d/2d/3d with stride=, padding=, dilation=, ceil_mode
 * False) over nc rows, planes or volumes (rank 1, 2 or 3; sz holds the rank's sides), the
 * same window k, stride s, padding p and dilation dil along every side; and the average's
 * gauge (docs/error-models.md, section poolpad). Output side: floor((n + 2p - dil (k-1) - 1)
 * / s) + 1. The max is taken over the window's elements inside the input (exact; NaN where one
 * is NaN; -inf where none is inside, as PyTorch's -inf padding gives), compared in double
 * (oracle/pool.c says why not in long double). The average sums those elements in long
 * double and divides by k^rank (count_include_pad=True: the padded zeros counted), rounding
 * the quotient once. */
#include <math.h>

#include "go.h"

int64_t go_poolpad_out(int64_t n, int64_t k, int64_t s, int64_t p, int64_t dil)
{
    const int64_t span = n + 2 * p - dil * (k - 1) - 1;
    return span < 0 ? 0 : span / s + 1;
}

static int check_poolpad(const char *fn, int rank, int64_t nc, const int64_t *sz, int64_t k,
                         int64_t s, int64_t p, int64_t dil, const double *x, const double *y)
{
    if (rank < 1 || rank > 3) return go_xerbla(fn, 1, "rank");
    if (nc < 0) return go_xerbla(fn, 2, "nc");
    if (!sz) return go_xerbla(fn, 3, "sz");
    if (k < 1) return go_xerbla(fn, 4, "k");
    if (s < 1) return go_xerbla(fn, 5, "s");
    if (p < 0 || 2 * p > k) return go_xerbla(fn, 6, "p"); /* PyTorch: padding <= k / 2 */
    if (dil < 1) return go_xerbla(fn, 7, "dil");
    for (int r = 0; r < rank; r++)
        if (sz[r] < 1 || go_poolpad_out(sz[r], k, s, p, dil) < 1) return go_xerbla(fn, 3, "sz");
    if (!x) return go_xerbla(fn, 8, "x");
    if (!y) return go_xerbla(fn, 9, "y");
    return 0;
}

/* mode 0: the max; 1: the mean; 2: the sum of |x| over k^rank (the average's gauge) */
static void poolpad(int mode, int rank, int64_t nc, const int64_t *sz, int64_t k, int64_t s,
                    int64_t p, int64_t dil, const double *x, double *y)
{
    int64_t n[3] = {1, 1, 1}, o[3] = {1, 1, 1}, kk[3] = {1, 1, 1}, ss[3] = {1, 1, 1},
            pp[3] = {0, 0, 0}, dd[3] = {1, 1, 1};
    for (int r = 0; r < rank; r++) {
        const int a = 3 - rank + r;
        n[a] = sz[r];
        kk[a] = k;
        ss[a] = s;
        pp[a] = p;
        dd[a] = dil;
        o[a] = go_poolpad_out(sz[r], k, s, p, dil);
    }
    const int64_t outs = o[0] * o[1] * o[2], plane = n[0] * n[1] * n[2];
    const long double terms = (long double)(kk[0] * kk[1] * kk[2]);
#pragma omp parallel for schedule(static) if ((double)nc * (double)outs >= GO_PAR_MIN)
    for (int64_t q = 0; q < nc; q++)
        for (int64_t t = 0; t < outs; t++) {
            const int64_t idx[3] = {t / (o[1] * o[2]), t / o[2] % o[1], t % o[2]};
            long double acc = 0.0L;
            double mx = -INFINITY;
            for (int64_t a = 0; a < kk[0]; a++)
                for (int64_t b = 0; b < kk[1]; b++)
                    for (int64_t c = 0; c < kk[2]; c++) {
                        const int64_t z = idx[0] * ss[0] - pp[0] + a * dd[0],
                                      row = idx[1] * ss[1] - pp[1] + b * dd[1],
                                      col = idx[2] * ss[2] - pp[2] + c * dd[2];
                        if (z < 0 || z >= n[0] || row < 0 || row >= n[1] || col < 0 || col >= n[2])
                            continue; /* the padding: skipped by the max, 0 in the sums */
                        const double v = x[q * plane + (z * n[1] + row) * n[2] + col];
                        if (mode == 0)
                            mx = isnan(mx) || isnan(v) ? NAN : (v > mx ? v : mx);
                        else
                            acc += mode == 1 ? (long double)v : fabsl((long double)v);
                    }
            y[q * outs + t] = mode == 0 ? mx : (double)(acc / terms);
        }
}

#define POOLPAD(name, mode)                                                                        \
    int name(int rank, int64_t nc, const int64_t *sz, int64_t k, int64_t s, int64_t p,             \
             int64_t dil, const double *x, double *y)                                              \
    {                                                                                              \
        int rc = check_poolpad(#name, rank, nc, sz, k, s, p, dil, x, y);                           \
        if (rc) return rc;                                                                         \
        poolpad(mode, rank, nc, sz, k, s, p, dil, x, y);                                           \
        return 0;                                                                                  \
    }

POOLPAD(go_poolpad_max, 0)
POOLPAD(go_poolpad_avg, 1)
POOLPAD(go_poolpad_avg_gauge, 2)
