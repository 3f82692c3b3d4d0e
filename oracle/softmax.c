/* softmax.c: oracle for the row-wise family over the last dimension of a row-major m x n matrix
 * (softmax, log-softmax, layer norm, RMS norm), and the gauges of their error models
 * (docs/error-models.md, section softmax).
 *
 * Each row is computed in long double (x86's 64-bit significand) and rounded once to f64. The
 * softmax takes the stable form y_j = exp(x_j - M) / sum_k exp(x_k - M), M the row's largest
 * value, as PyTorch does; the sums are compensated (Kahan), so a row of 65536 terms errs by a
 * few units of 2^-64 rather than 65536 of them, and the f64 result is within about one rounding
 * of the exact value: far inside what an f64 kernel is allowed. Non-finite inputs follow IEEE
 * through the same formulas, as a kernel that computes them does: a NaN or a +Inf anywhere in
 * a row makes the whole row NaN (x - M is NaN there), a -Inf gives 0 (log-softmax: -Inf) where
 * the row has a finite largest value. Rows run on all cores, each on one thread. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "go.h"

/* Kahan's compensated sum, in long double. */
typedef struct {
    long double s, c, plain;
} ksum;
static inline void ksum_add(ksum *k, long double v)
{
    long double y = v - k->c, t = k->s + y;
    k->c = (t - k->s) - y;
    k->s = t;
    k->plain += v;
}
/* the compensated sum; the plain one where it is not finite (an infinite term makes the
   compensation NaN, where IEEE's sum is the infinity) */
static inline long double ksum_value(const ksum *k)
{
    return isfinite(k->plain) ? k->s : k->plain;
}

/* The row's largest value; NaNs are passed over here and reach the result through x - M. */
static double row_max(const double *x, int64_t n)
{
    double mx = -INFINITY;
    for (int64_t j = 0; j < n; j++)
        if (x[j] > mx) mx = x[j];
    return mx;
}

/* sum_j exp(x_j - M) - 1 of one row: the term of the first largest value, exactly 1, left
   out, so that log-softmax takes log1p of it and keeps its relative accuracy where the sum is
   1 + tiny (y near 0 at the largest value) */
static long double row_expsum_m1(const double *x, int64_t n, double mx)
{
    ksum k = {0, 0, 0};
    bool skipped = false;
    for (int64_t j = 0; j < n; j++) {
        if (!skipped && isfinite(mx) && x[j] == mx) {
            skipped = true;
            continue;
        }
        ksum_add(&k, expl((long double)x[j] - mx));
    }
    /* no largest finite value (NaN everywhere, +-Inf): the sum's IEEE result, less 1 */
    if (!skipped) return ksum_value(&k) - 1.0L;
    return ksum_value(&k);
}

#define ROWS_PARALLEL if ((double)m * (double)n >= GO_PAR_MIN)

int go_softmax_rows(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
#pragma omp parallel for schedule(static) ROWS_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx;
        double mx = row_max(xr, n);
        long double s = 1.0L + row_expsum_m1(xr, n, mx);
        for (int64_t j = 0; j < n; j++)
            y[i * ldy + j] = (double)(expl((long double)xr[j] - mx) / s);
    }
    return 0;
}

int go_softmax_log(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
#pragma omp parallel for schedule(static) ROWS_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx;
        double mx = row_max(xr, n);
        long double ls = log1pl(row_expsum_m1(xr, n, mx));
        for (int64_t j = 0; j < n; j++)
            y[i * ldy + j] = (double)(((long double)xr[j] - mx) - ls);
    }
    return 0;
}

/* The mean and the biased variance (the centred sum of squares over n) of one row. */
/* The row's variance about its mean mu, compensated. */
static long double row_var(const double *x, int64_t n, long double mu)
{
    ksum q = {0, 0, 0};
    for (int64_t j = 0; j < n; j++) {
        long double c = x[j] - mu;
        ksum_add(&q, c * c);
    }
    return ksum_value(&q) / n;
}

static void row_moments(const double *x, int64_t n, long double *mean, long double *var)
{
    ksum k = {0, 0, 0};
    for (int64_t j = 0; j < n; j++)
        ksum_add(&k, x[j]);
    *mean = ksum_value(&k) / n;
    *var = row_var(x, n, *mean);
}

int go_norm_layer(int64_t m, int64_t n, const double *x, int64_t ldx, double eps, double *y,
                  int64_t ldy)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
    if (!(eps >= 0)) return go_xerbla(__func__, 5, "eps");
#pragma omp parallel for schedule(static) ROWS_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx;
        long double mu, var;
        row_moments(xr, n, &mu, &var);
        long double sd = sqrtl(var + eps);
        for (int64_t j = 0; j < n; j++)
            y[i * ldy + j] = (double)((xr[j] - mu) / sd);
    }
    return 0;
}

/* sum(x^2) of one row (p = 2), or sum |x| (p = 1) */
static long double row_sum_pow(const double *x, int64_t n, int p)
{
    ksum k = {0, 0, 0};
    for (int64_t j = 0; j < n; j++)
        ksum_add(&k, p == 2 ? (long double)x[j] * x[j] : fabsl((long double)x[j]));
    return ksum_value(&k);
}

/* mean(x^2) of one row */
static long double row_meansq(const double *x, int64_t n)
{
    return row_sum_pow(x, n, 2) / n;
}

int go_norm_rms(int64_t m, int64_t n, const double *x, int64_t ldx, double eps, double *y,
                int64_t ldy)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
    if (!(eps >= 0)) return go_xerbla(__func__, 5, "eps");
#pragma omp parallel for schedule(static) ROWS_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx;
        long double rms = sqrtl(row_meansq(xr, n) + eps);
        for (int64_t j = 0; j < n; j++)
            y[i * ldy + j] = (double)(xr[j] / rms);
    }
    return 0;
}

/* y = x / sqrt(sum x^2) (p = 2) or x / mean |x| (p = 1) along each row */
static int norm_by(const char *fn, int64_t m, int64_t n, const double *x, int64_t ldx, int p,
                   double *y, int64_t ldy)
{
    int rc = go_check_rows(fn, m, n, x, ldx, y, ldy);
    if (rc) return rc;
#pragma omp parallel for schedule(static) ROWS_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx;
        long double s = row_sum_pow(xr, n, p);
        long double d = p == 2 ? sqrtl(s) : s / n;
        for (int64_t j = 0; j < n; j++)
            y[i * ldy + j] = (double)(xr[j] / d);
    }
    return 0;
}

int go_norm_l2(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    return norm_by(__func__, m, n, x, ldx, 2, y, ldy);
}

int go_norm_l1mean(int64_t m, int64_t n, const double *x, int64_t ldx, double *y, int64_t ldy)
{
    return norm_by(__func__, m, n, x, ldx, 1, y, ldy);
}

/* ---- gauges (docs/error-models.md, section softmax) ------------------------------------- */

double go_softmax_arg_units(double t)
{
    if (!(t != 0) || !isfinite(t)) return 0.0; /* exact, or an output judged by placement */
    /* the largest power of two <= |t| (frexp's 2^(e-1)), read off t's bits: its exponent field
       alone, or for a subnormal its significand's top bit alone. frexp and ldexp scale a
       subnormal through floating-point products, each an assist on many x86 cores, and the
       inputs near the underflow threshold make every t of a row subnormal. */
    uint64_t b;
    memcpy(&b, &t, sizeof b);
    const uint64_t ex = b & 0x7ff0000000000000ULL, frac = b & 0x000fffffffffffffULL;
    const uint64_t h = ex ? ex : 1ULL << (63 - __builtin_clzll(frac));
    double u;
    memcpy(&u, &h, sizeof u);
    return u;
}

/* A_i = sum_k y_k h_k, h_k = go_softmax_arg_units(x_k - M): the share of the rounded
   arguments in the row's sum, in units of u (at most ln n; docs/error-models.md). */
static double row_arg_share(const double *x, const double *y, int64_t n, double mx)
{
    double a = 0;
    for (int64_t j = 0; j < n; j++)
        if (y[j] > 0) a += y[j] * go_softmax_arg_units(x[j] - mx);
    return a;
}

int go_softmax_rows_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *y,
                          int64_t ldy, double depth, double *g, int64_t ldg)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
    if (!(depth >= 1)) return go_xerbla(__func__, 7, "depth");
    if (!g) return go_xerbla(__func__, 8, "g");
    if (ldg < n) return go_xerbla(__func__, 9, "ldg");
#pragma omp parallel for schedule(static) ROWS_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx, *yr = y + i * ldy;
        double mx = row_max(xr, n);
        double a = row_arg_share(xr, yr, n, mx);
        for (int64_t j = 0; j < n; j++) {
            double yj = fabs(yr[j]);
            /* y_j (D + h_j + A_i) / D, 0 where y_j is; NaN rows keep NaN (never passes) */
            g[i * ldg + j] =
                yj > 0 ? yj * (1.0 + (go_softmax_arg_units(xr[j] - mx) + a) / depth) : yj;
        }
    }
    return 0;
}

int go_softmax_log_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *y,
                         int64_t ldy, double depth, double *g, int64_t ldg)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
    if (!(depth >= 1)) return go_xerbla(__func__, 7, "depth");
    if (!g) return go_xerbla(__func__, 8, "g");
    if (ldg < n) return go_xerbla(__func__, 9, "ldg");
#pragma omp parallel for schedule(static) ROWS_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx, *yr = y + i * ldy;
        double mx = row_max(xr, n);
        /* y_j = t_j - L with t_j <= 0 and L = log S >= 0, so the shares of the softmax are
           exp(y_j) and L = -(y_j - t_j) at any finite element */
        double a = 0, ell = 0;
        for (int64_t j = 0; j < n; j++) {
            double p = exp(yr[j]);
            if (p > 0) a += p * go_softmax_arg_units(xr[j] - mx);
            if (xr[j] == mx) ell = -yr[j];
        }
        for (int64_t j = 0; j < n; j++) {
            double yj = fabs(yr[j]);
            double b = 1.0 + (go_softmax_arg_units(xr[j] - mx) + a + 3.0 * ell + yj) / depth;
            g[i * ldg + j] = isfinite(yj) ? (b > yj ? b : yj) : yj;
        }
    }
    return 0;
}

int go_norm_layer_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, double eps,
                        const double *y, int64_t ldy, double u, double spacing, double depth,
                        double sum_depth, double *g, int64_t ldg)
{
    int rc = go_check_rows(__func__, m, n, x, ldx, y, ldy);
    if (rc) return rc;
    if (!(eps >= 0)) return go_xerbla(__func__, 5, "eps");
    if (!(u > 0 && u < 1)) return go_xerbla(__func__, 8, "u");
    if (!(spacing >= 0)) return go_xerbla(__func__, 9, "spacing");
    if (!(depth >= 1)) return go_xerbla(__func__, 10, "depth");
    if (!(sum_depth >= 1)) return go_xerbla(__func__, 11, "sum_depth");
    if (!g) return go_xerbla(__func__, 12, "g");
    if (ldg < n) return go_xerbla(__func__, 13, "ldg");
#pragma omp parallel for schedule(static) ROWS_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        const double *xr = x + i * ldx, *yr = y + i * ldy;
        /* the sums of x (row_moments' first) and of |x| in one pass: two independent
           compensated sums overlap where each alone waits on its additions */
        ksum kx = {0, 0, 0}, k = {0, 0, 0};
        for (int64_t j = 0; j < n; j++) {
            ksum_add(&kx, xr[j]);
            ksum_add(&k, fabs(xr[j]));
        }
        long double mu = ksum_value(&kx) / n, var = row_var(xr, n, mu);
        double m1 = (double)(ksum_value(&k) / n), sd = (double)sqrtl(var + eps);
        double dm = (sum_depth + 2.0) * m1; /* the mean's error, in units of u */
        double second = u * dm * dm / (2.0 * (double)(var + eps));
        for (int64_t j = 0; j < n; j++) {
            double c = fabs((double)(xr[j] - mu)), yj = fabs(yr[j]);
            double b = (dm + c + spacing / u) / sd + yj * (0.5 * sum_depth + 10.0 + second);
            b /= depth;
            g[i * ldg + j] = isfinite(yj) ? (b > yj ? b : yj) : yj;
        }
    }
    return 0;
}
