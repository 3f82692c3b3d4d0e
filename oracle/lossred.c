/* lossred.c: oracles for the losses reduced to one value with a mean over the batch, and the
 * gauges of their error models (docs/error-models.md, section lossred):
 *  - go_loss_xent_mean: the mean over the m rows of loss.xent's L_i (oracle/loss.c, each
 *    within about one f64 rounding), added in long double;
 *  - go_loss_hinge: mean(max(1 - p_ij t_j, 0)) over m x n, t of n values (+-1) broadcast
 *    along the rows, the terms and their compensated sum in long double;
 *  - go_loss_triplet: the mean over rows of max(||a_i - p_i + eps|| - ||a_i - q_i + eps|| +
 *    margin, 0) (TripletMarginLoss, p = 2), each row's sums of squares and roots in long
 *    double.
 * Every mean rounds once to f64. Non-finite terms give IEEE's order-free outcome (NaN where a
 * term is NaN or both infinities occur, else the infinity), as any order of additions does. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "go.h"

/* The mean of len terms over count: Kahan's sum of the finite ones in long double, IEEE's
   outcome where a term is not finite. */
static double mean_of(const long double *v, int64_t len, double count)
{
    long double s = 0, c = 0;
    bool nan = false, pinf = false, ninf = false;
    for (int64_t j = 0; j < len; j++) {
        if (isnan(v[j])) nan = true;
        if (isinf(v[j])) *(v[j] > 0 ? &pinf : &ninf) = true;
        if (!isfinite(v[j])) continue;
        long double d = v[j] - c, u = s + d;
        c = (u - s) - d;
        s = u;
    }
    if (nan || (pinf && ninf)) return NAN;
    if (pinf || ninf) return pinf ? INFINITY : -INFINITY;
    return (double)(s / (long double)count);
}

static long double *scratch(int64_t n)
{
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(long double));
}

int go_loss_xent_mean(int64_t m, int64_t n, const double *x, const double *t, double *out)
{
    if (m < 1) return go_xerbla(__func__, 1, "m");
    if (!out) return go_xerbla(__func__, 5, "out");
    double *l = malloc((size_t)m * sizeof *l);
    long double *v = scratch(m);
    int rc = l && v ? go_loss_xent(m, n, x, n, t, l) : GO_ENOMEM;
    if (rc == 0) {
        for (int64_t i = 0; i < m; i++)
            v[i] = l[i];
        *out = mean_of(v, m, (double)m);
    }
    free(l);
    free(v);
    return rc;
}

/* g = the mean of loss.xent's row gauges g_i >= max(L_i, bound_i / row_depth): then
   u (row_depth + mean_units) g bounds the rows' errors and the mean's own (its sum of m
   non-negative terms and the division, mean_units), docs/error-models.md. */
int go_loss_xent_mean_gauge(int64_t m, int64_t n, const double *x, const double *t,
                            double exp_units, double sum_depth, double row_depth, double *g)
{
    if (m < 1) return go_xerbla(__func__, 1, "m");
    if (!g) return go_xerbla(__func__, 8, "g");
    double *l = malloc((size_t)m * sizeof *l), *gi = malloc((size_t)m * sizeof *gi);
    long double *v = scratch(m);
    int rc = l && gi && v
                 ? go_loss_xent_with_gauge(m, n, x, n, t, l, exp_units, sum_depth, row_depth, gi)
                 : GO_ENOMEM;
    if (rc == 0) {
        for (int64_t i = 0; i < m; i++)
            v[i] = gi[i];
        *g = fabs(mean_of(v, m, (double)m));
    }
    free(l);
    free(gi);
    free(v);
    return rc;
}

int go_loss_hinge(int64_t m, int64_t n, const double *p, const double *t, double *out)
{
    if (m < 1) return go_xerbla(__func__, 1, "m");
    if (n < 1) return go_xerbla(__func__, 2, "n");
    if (!p) return go_xerbla(__func__, 3, "p");
    if (!t) return go_xerbla(__func__, 4, "t");
    if (!out) return go_xerbla(__func__, 5, "out");
    long double *v = scratch(m * n);
    if (!v) return GO_ENOMEM;
#pragma omp parallel for schedule(static) if ((double)m * (double)n >= GO_PAR_MIN)
    for (int64_t j = 0; j < m * n; j++) {
        long double h = 1.0L - (long double)p[j] * (long double)t[j % n];
        v[j] = h > 0 || isnan(h) ? h : 0.0L;
    }
    *out = mean_of(v, m * n, (double)m * (double)n);
    free(v);
    return 0;
}

/* One row's distance ||x - y + eps|| and, for the gauge, ||w||, w_j = |x_j - y_j| + |z_j| +
   eps (z_j = x_j - y_j + eps): the first-order share of the difference's and eps's roundings */
static long double row_dist(const double *x, const double *y, int64_t n, double eps,
                            long double *wnorm)
{
    long double s = 0, w2 = 0;
    for (int64_t j = 0; j < n; j++) {
        long double d = (long double)x[j] - (long double)y[j], z = d + eps;
        long double w = fabsl(d) + fabsl(z) + eps;
        s += z * z;
        w2 += w * w;
    }
    *wnorm = sqrtl(w2);
    return sqrtl(s);
}

/* Each row's loss (gauge false) or its bound in units of u (gauge true, docs/error-models.md,
   section lossred): ||w_p|| + ||w_q|| + (d_n + 3)/2 (D_p + D_q) + |D_p - D_q| + |D_p - D_q +
   margin|, with d_n the kernel's depth of a row's sum of squares. */
static int triplet_rows(int64_t m, int64_t n, const double *a, const double *p, const double *q,
                        double eps, double margin, double row_sum_depth, bool gauge, long double *v)
{
#pragma omp parallel for schedule(static) if ((double)m * (double)n >= GO_PAR_MIN)
    for (int64_t i = 0; i < m; i++) {
        long double wp, wq;
        long double dp = row_dist(a + i * n, p + i * n, n, eps, &wp);
        long double dq = row_dist(a + i * n, q + i * n, n, eps, &wq);
        long double l = dp - dq + margin;
        if (!gauge)
            v[i] = l > 0 || isnan(l) ? l : 0.0L;
        else
            v[i] = wp + wq + (row_sum_depth + 3.0L) / 2.0L * (dp + dq) + fabsl(dp - dq) + fabsl(l);
    }
    return 0;
}

static int check_triplet(const char *fn, int64_t m, int64_t n, const double *a, const double *p,
                         const double *q, double eps, const double *out)
{
    if (m < 1) return go_xerbla(fn, 1, "m");
    if (n < 1) return go_xerbla(fn, 2, "n");
    if (!a) return go_xerbla(fn, 3, "a");
    if (!p) return go_xerbla(fn, 4, "p");
    if (!q) return go_xerbla(fn, 5, "q");
    if (!(eps >= 0)) return go_xerbla(fn, 6, "eps");
    if (!out) return go_xerbla(fn, 8, "out");
    return 0;
}

int go_loss_triplet(int64_t m, int64_t n, const double *a, const double *p, const double *q,
                    double eps, double margin, double *out)
{
    int rc = check_triplet(__func__, m, n, a, p, q, eps, out);
    if (rc) return rc;
    long double *v = scratch(m);
    if (!v) return GO_ENOMEM;
    triplet_rows(m, n, a, p, q, eps, margin, 0.0, false, v);
    *out = mean_of(v, m, (double)m);
    free(v);
    return 0;
}

/* g = max(|r|, B / depth), B = the rows' mean bound (triplet_rows) + mean_units r: the mean's
   sum of m non-negative terms and its division (docs/error-models.md, section lossred) */
int go_loss_triplet_gauge(int64_t m, int64_t n, const double *a, const double *p, const double *q,
                          double eps, double margin, double row_sum_depth, double mean_units,
                          double depth, double *g)
{
    int rc = check_triplet(__func__, m, n, a, p, q, eps, g);
    if (rc) return rc;
    if (!(depth >= 1)) return go_xerbla(__func__, 10, "depth");
    long double *v = scratch(m);
    if (!v) return GO_ENOMEM;
    double r;
    triplet_rows(m, n, a, p, q, eps, margin, 0.0, false, v);
    r = mean_of(v, m, (double)m);
    triplet_rows(m, n, a, p, q, eps, margin, row_sum_depth, true, v);
    double b = mean_of(v, m, (double)m);
    *g = isfinite(r) ? fmax(fabs(r), (b + mean_units * fabs(r)) / depth) : fabs(r);
    free(v);
    return 0;
}
