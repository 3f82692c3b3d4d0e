/* attn.c: oracle for scaled dot-product attention (docs/error-models.md, section attn): for Q,
 * K, V of b x h x s x d (row-major, contiguous), y = softmax(Q K^T / sqrt(d) [+ causal mask]) V
 * as torch.nn.functional.scaled_dot_product_attention (no dropout; causal: key j <= query i),
 * and the gauge of its error model.
 * Each query row is computed in long double (x86's 64-bit significand): its scores, the
 * largest, the weights exp(s_j - M) / sum_k exp(s_k - M), the weighted sum of V's rows, each
 * output rounded once to f64. A score of d terms errs by d 2^-64 of sum |q||k| and a weight by
 * a few 2^-64 of its value plus the scores' errors: far inside what an f64 kernel is allowed.
 * Rows run on all cores, each on one thread. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "go.h"

static int check_attn_args(const char *fn, int64_t b, int64_t h, int64_t s, int64_t d,
                           const double *q, const double *k, const double *v, const double *y)
{
    if (b < 0) return go_xerbla(fn, 1, "b");
    if (h < 0) return go_xerbla(fn, 2, "h");
    if (s < 1) return go_xerbla(fn, 3, "s");
    if (d < 1) return go_xerbla(fn, 4, "d");
    if (!q) return go_xerbla(fn, 6, "q");
    if (!k) return go_xerbla(fn, 7, "k");
    if (!v) return go_xerbla(fn, 8, "v");
    if (!y) return go_xerbla(fn, 9, "y");
    return 0;
}

/* Key j's score from its dot product acc and sum of |terms| a: into sc[j] (and abs[j]), and
   the largest so far into *mx. */
static inline void put_score(int64_t j, long double acc, long double a, long double scale,
                             long double *sc, double *abs, long double *mx)
{
    sc[j] = acc * scale;
    if (abs) abs[j] = (double)(a * scale);
    if (sc[j] > *mx) *mx = sc[j];
}

/* Row (bh, i)'s scores into sc[0 .. keys-1] (long double), their largest into *mx, and
   (abs non-NULL) scale sum_l |q_l||k_jl| into abs; returns keys. Two keys at a time, each
   dot product summed in its own order: their additions overlap instead of waiting. */
static int64_t row_scores(int64_t s, int64_t d, bool causal, const double *q, const double *k,
                          int64_t bh, int64_t i, long double *sc, double *abs, long double *mx)
{
    const long double scale = 1.0L / sqrtl((long double)d);
    const double *qr = q + (bh * s + i) * d, *kb = k + bh * s * d;
    int64_t keys = causal ? i + 1 : s, j = 0;
    *mx = -INFINITY;
    for (; j + 2 <= keys; j += 2) {
        const double *k0 = kb + j * d, *k1 = k0 + d;
        long double acc0 = 0, a0 = 0, acc1 = 0, a1 = 0;
        for (int64_t l = 0; l < d; l++) {
            long double t0 = (long double)qr[l] * k0[l], t1 = (long double)qr[l] * k1[l];
            acc0 += t0;
            a0 += fabsl(t0);
            acc1 += t1;
            a1 += fabsl(t1);
        }
        put_score(j, acc0, a0, scale, sc, abs, mx);
        put_score(j + 1, acc1, a1, scale, sc, abs, mx);
    }
    for (; j < keys; j++) {
        long double acc = 0, a = 0;
        for (int64_t l = 0; l < d; l++) {
            long double t = (long double)qr[l] * kb[j * d + l];
            acc += t;
            a += fabsl(t);
        }
        put_score(j, acc, a, scale, sc, abs, mx);
    }
    return keys;
}

/* acc[c] = sum_j e[j] v[j][c] over the keys rows of v (d columns), each column's sum in key
   order. Four columns at a time, their sums in registers: one long double sum waits on each
   addition in turn, and one kept in memory also on an 80-bit store and load. */
static void weighted_rows(int64_t keys, int64_t d, const long double *e, const double *v,
                          long double *acc)
{
    int64_t c = 0;
    for (; c + 4 <= d; c += 4) {
        long double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (int64_t j = 0; j < keys; j++) {
            const double *vr = v + j * d + c;
            a0 += e[j] * vr[0];
            a1 += e[j] * vr[1];
            a2 += e[j] * vr[2];
            a3 += e[j] * vr[3];
        }
        acc[c] = a0, acc[c + 1] = a1, acc[c + 2] = a2, acc[c + 3] = a3;
    }
    for (; c < d; c++) {
        long double a0 = 0;
        for (int64_t j = 0; j < keys; j++)
            a0 += e[j] * v[j * d + c];
        acc[c] = a0;
    }
}

#define ATTN_PARALLEL if ((double)b * h * s * s * d >= GO_PAR_MIN)

int go_attn_sdpa(int64_t b, int64_t h, int64_t s, int64_t d, int causal, const double *q,
                 const double *k, const double *v, double *y)
{
    int rc = check_attn_args(__func__, b, h, s, d, q, k, v, y);
    if (rc) return rc;
    bool nomem = false;
#pragma omp parallel ATTN_PARALLEL
    {
        long double *sc = malloc((size_t)s * sizeof *sc), *acc = malloc((size_t)d * sizeof *acc);
        if (!sc || !acc) {
#pragma omp atomic write
            nomem = true;
        }
#pragma omp for schedule(static)
        for (int64_t row = 0; row < b * h * s; row++) {
            if (!sc || !acc) continue;
            const int64_t bh = row / s, i = row % s;
            long double mx, sum = 0;
            int64_t keys = row_scores(s, d, causal, q, k, bh, i, sc, NULL, &mx);
            for (int64_t j = 0; j < keys; j++) {
                sc[j] = expl(sc[j] - mx);
                sum += sc[j];
            }
            weighted_rows(keys, d, sc, v + bh * s * d, acc);
            for (int64_t c = 0; c < d; c++)
                y[row * d + c] = (double)(acc[c] / sum);
        }
        free(sc);
        free(acc);
    }
    return nomem ? go_enomem(__func__) : 0;
}

/* The gauge (docs/error-models.md, section attn), in units of u and the depth D: for the row's
   weights w_j, score errors delta_j = u (d + 6) a_j (a_j = sum |q||k_j| / sqrt(d)), their
   log-mean Delta = log sum_k w_k exp(delta_k), and softmax's own u (h_j + A + 2E + 2 + keys)
   (h_j = go_softmax_arg_units(s_j - M), A = sum w h), a weight errs relatively by at most
   rho_j = expm1(delta_j + Delta) + u (h_j + A + 2E + 2 + keys). The output's error is then
   at most B = W + u (keys + 3)(S1 + W) + (E/2 + 1) spacing sum_j |v_jc|, S1 = sum_j w_j |v_jc|,
   W = min(sum_j w_j rho_j |v_jc|, 2 max_j |v_jc|) (weights in [0, 1] that sum to 1 move the
   output by at most 2 max |v| whatever their errors); g = max(|y|, B / (u D)). */
int go_attn_sdpa_gauge(int64_t b, int64_t h, int64_t s, int64_t d, int causal, const double *q,
                       const double *k, const double *v, const double *y, double u,
                       double exp_units, double spacing, double depth, double *g)
{
    int rc = check_attn_args(__func__, b, h, s, d, q, k, v, g);
    if (rc) return rc;
    if (!y) return go_xerbla(__func__, 9, "y");
    bool nomem = false;
#pragma omp parallel ATTN_PARALLEL
    {
        long double *sc = malloc((size_t)s * sizeof *sc), *ex = malloc((size_t)s * sizeof *ex);
        double *a = malloc((size_t)s * sizeof *a), *w = malloc((size_t)s * sizeof *w);
        double *rho = malloc((size_t)s * sizeof *rho), *col = malloc(4 * (size_t)d * sizeof *col);
        const bool have = sc && ex && a && w && rho && col;
        if (!have) {
#pragma omp atomic write
            nomem = true;
        }
#pragma omp for schedule(static)
        for (int64_t row = 0; row < b * h * s; row++) {
            if (!have) continue;
            const int64_t bh = row / s, i = row % s;
            long double mx, sum = 0;
            int64_t keys = row_scores(s, d, causal, q, k, bh, i, sc, a, &mx);
            for (int64_t j = 0; j < keys; j++) { /* each exp once, kept for the weights */
                ex[j] = expl(sc[j] - mx);
                sum += ex[j];
            }
            double share = 0, mean_growth = 0; /* A, and sum_k w_k expm1(delta_k) */
            for (int64_t j = 0; j < keys; j++) {
                w[j] = (double)(ex[j] / sum);
                rho[j] = u * (d + 6.0) * a[j]; /* delta_j, for now */
                share += w[j] * go_softmax_arg_units((double)(sc[j] - mx));
                mean_growth += w[j] * expm1(rho[j]);
            }
            const double big_delta = log1p(mean_growth);
            for (int64_t j = 0; j < keys; j++) {
                double h_j = go_softmax_arg_units((double)(sc[j] - mx));
                rho[j] = expm1(rho[j] + big_delta) +
                         u * (h_j + share + 2.0 * exp_units + 2.0 + (double)keys);
            }
            /* per column c: S1 = sum w |v|, W before its cap, max |v|, sum |v| (V along rows) */
            const double *vb = v + bh * s * d;
            double *s1 = col, *wts = col + d, *vmax = col + 2 * d, *vsum = col + 3 * d;
            for (int64_t c = 0; c < 4 * d; c++)
                col[c] = 0;
            for (int64_t j = 0; j < keys; j++)
                for (int64_t c = 0; c < d; c++) {
                    double av = fabs(vb[j * d + c]);
                    s1[c] += w[j] * av;
                    if (w[j] > 0) wts[c] += w[j] * rho[j] * av; /* no 0 inf */
                    vmax[c] = fmax(vmax[c], av);
                    vsum[c] += av;
                }
            for (int64_t c = 0; c < d; c++) {
                double wt = fmin(wts[c], 2.0 * vmax[c]);
                double bound = wt + u * ((double)keys + 3.0) * (s1[c] + wt) +
                               (0.5 * exp_units + 1.0) * spacing * vsum[c];
                g[row * d + c] = fmax(fabs(y[row * d + c]), bound / (u * depth));
            }
        }
        free(sc);
        free(ex);
        free(a);
        free(w);
        free(rho);
        free(col);
    }
    return nomem ? go_enomem(__func__) : 0;
}
