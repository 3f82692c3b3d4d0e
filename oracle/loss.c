/* loss.c: oracle for the cross-entropy of each row of a row-major m x n matrix of logits
 * against an integer target a row (loss.xent), L_i = logsumexp(x_i) - x_i[t_i], and the gauge
 * of its error model (docs/error-models.md, section loss).
 *
 * Each row in long double: M the row's largest logit, S - 1 = sum_{j != first argmax}
 * exp(x_j - M) by Kahan's compensated sum, L = (M - x_t) + log1p(S - 1), rounded once to f64:
 * within about one f64 rounding of the exact value. Non-finite inputs follow IEEE through the
 * same formula, as a kernel that computes it does: a NaN or a +Inf in the row, or a row of
 * -Inf, gives NaN (x - M is NaN there); a target logit of -Inf in a row with a finite largest
 * value gives +Inf. A target that is not an integer in [0, n) gives NaN (the kernel's
 * convention: it never indexes with it). Rows run on all cores, each on one thread. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"

static int check_xent_args(const char *fn, int64_t m, int64_t n, const double *x, int64_t ldx,
                           const double *t, const double *l)
{
    if (m < 0) return go_xerbla(fn, 1, "m");
    if (n < 1) return go_xerbla(fn, 2, "n");
    if (!x) return go_xerbla(fn, 3, "x");
    if (ldx < n) return go_xerbla(fn, 4, "ldx");
    if (!t) return go_xerbla(fn, 5, "t");
    if (!l) return go_xerbla(fn, 6, "loss");
    return 0;
}

/* What one row gives: the loss, log S and the arguments' share A = sum_k y_k h_k of the
   softmax y (docs/error-models.md, section softmax); loss NaN where the row has no finite
   answer. */
typedef struct {
    long double loss, log_s;
    double arg_share;
} xent_row;

/* v = sig 2^E, sig its significand with the implicit bit (< 2^53, exact in long double) and
   E = max(e, 1) - 1075 for the exponent field e; 2^E as the product of two normal doubles
   2^E1 2^E2 (E1 = E / 2, E2 = E - E1, both in [-537, 486]), v's sign on the first so that a
   zero keeps it. Each product is exact in long double; no branch on the kind of finite v (a row
   near the threshold mixes subnormals and normals at random). */
long double go_widen(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    const int64_t e = (int64_t)(b >> 52 & 0x7ff);
    if (e == 0x7ff) return (long double)v; /* inf or NaN: the load's own conversion */
    const int64_t big = e > 1 ? e : 1, pow = big - 1075, e1 = pow / 2, e2 = pow - e1;
    const uint64_t sig = (b & 0x000fffffffffffffULL) | (uint64_t)(e != 0) << 52;
    const uint64_t b1 = (b & 1ULL << 63) | (uint64_t)(e1 + 1023) << 52;
    const uint64_t b2 = (uint64_t)(e2 + 1023) << 52;
    double d1, d2;
    memcpy(&d1, &b1, sizeof d1);
    memcpy(&d2, &b2, sizeof d2);
    return (long double)(int64_t)sig * d1 * d2;
}

/* The row's loss and log S; with e (n values) also A, from the exp(x_j - M) that the sum
   keeps in e: each exp once, and none kept where only the loss is wanted. */
static xent_row row_xent(const double *x, int64_t n, double target, long double *e)
{
    xent_row r = {NAN, NAN, NAN};
    double mx = -INFINITY;
    bool nan = false;
    for (int64_t j = 0; j < n; j++) {
        nan |= isnan(x[j]);
        if (x[j] > mx) mx = x[j];
    }
    if (nan || !isfinite(mx) || !(target >= 0 && target < (double)n && target == floor(target)))
        return r;
    /* S - 1, the first largest value's exact 1 left out (log1p keeps L's relative accuracy
       where S is 1 + tiny); there x - M is +0 and exp(+0) is exactly 1 */
    long double s = 0, c = 0;
    const long double mxl = mx; /* once a row: (long double)x_j - mx widens mx at every j */
    bool skipped = false;
    for (int64_t j = 0; j < n; j++) {
        if (!skipped && x[j] == mx) {
            skipped = true;
            if (e) e[j] = 1.0L;
            continue;
        }
        long double ex = expl(go_widen(x[j]) - mxl);
        if (e) e[j] = ex;
        long double y = ex - c, t = s + y;
        c = (t - s) - y;
        s = t;
    }
    r.log_s = log1pl(s);
    r.loss = ((long double)mx - x[(int64_t)target]) + r.log_s;
    if (!e) return r;
    long double total = 1.0L + s;
    double a = 0;
    for (int64_t j = 0; j < n; j++) {
        double y = (double)(e[j] / total);
        if (y > 0) a += y * go_softmax_arg_units(x[j] - mx);
    }
    r.arg_share = a;
    return r;
}

#define XENT_PARALLEL if ((double)m * (double)n >= GO_PAR_MIN)

int go_loss_xent(int64_t m, int64_t n, const double *x, int64_t ldx, const double *t, double *l)
{
    int rc = check_xent_args(__func__, m, n, x, ldx, t, l);
    if (rc) return rc;
#pragma omp parallel for schedule(static) XENT_PARALLEL
    for (int64_t i = 0; i < m; i++)
        l[i] = (double)row_xent(x + i * ldx, n, t[i], NULL).loss;
    return 0;
}

/* g_i = max(L_i, (A_i + E + d_s + 2 L_i + 2 log S_i) / D): the first-order bound
   u (A + E + d_s + 2L + 2 log S) of docs/error-models.md over u D, and never below |L|. With
   l_out the rows' losses are computed here too (into l_out, then read as l); each thread keeps
   its row's exp values in one buffer of n. */
static int xent_gauge_rows(int64_t m, int64_t n, const double *x, int64_t ldx, const double *t,
                           const double *l, double *l_out, double exp_units, double sum_depth,
                           double depth, double *g)
{
    bool nomem = false;
#pragma omp parallel XENT_PARALLEL
    {
        long double *e = malloc((size_t)n * sizeof *e);
        if (!e) {
#pragma omp atomic write
            nomem = true;
        }
#pragma omp for schedule(static)
        for (int64_t i = 0; i < m; i++) {
            if (!e) continue;
            xent_row r = {0};
            if (l_out) {
                r = row_xent(x + i * ldx, n, t[i], e);
                l_out[i] = (double)r.loss;
            }
            if (!isfinite(l[i])) { /* judged by NaN/Inf placement */
                g[i] = fabs(l[i]);
                continue;
            }
            if (!l_out) r = row_xent(x + i * ldx, n, t[i], e);
            double bound =
                (r.arg_share + exp_units + sum_depth + 2.0 * fabs(l[i]) + 2.0 * (double)r.log_s) /
                depth;
            g[i] = fmax(fabs(l[i]), bound);
        }
        free(e);
    }
    return nomem ? GO_ENOMEM : 0;
}

static int check_gauge_args(const char *fn, double exp_units, double sum_depth, double depth,
                            const double *g)
{
    if (!(exp_units >= 0)) return go_xerbla(fn, 7, "exp_units");
    if (!(sum_depth >= 1)) return go_xerbla(fn, 8, "sum_depth");
    if (!(depth >= 1)) return go_xerbla(fn, 9, "depth");
    if (!g) return go_xerbla(fn, 10, "g");
    return 0;
}

int go_loss_xent_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *t,
                       const double *l, double exp_units, double sum_depth, double depth, double *g)
{
    int rc = check_xent_args(__func__, m, n, x, ldx, t, l);
    if (rc == 0) rc = check_gauge_args(__func__, exp_units, sum_depth, depth, g);
    if (rc == 0) rc = xent_gauge_rows(m, n, x, ldx, t, l, NULL, exp_units, sum_depth, depth, g);
    return rc == GO_ENOMEM ? go_enomem(__func__) : rc;
}

int go_loss_xent_with_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *t,
                            double *l, double exp_units, double sum_depth, double depth, double *g)
{
    int rc = check_xent_args(__func__, m, n, x, ldx, t, l);
    if (rc == 0) rc = check_gauge_args(__func__, exp_units, sum_depth, depth, g);
    if (rc == 0) rc = xent_gauge_rows(m, n, x, ldx, t, l, l, exp_units, sum_depth, depth, g);
    return rc == GO_ENOMEM ? go_enomem(__func__) : rc;
}

/* The losses of two m x n tensors reduced to one value (loss.mse, loss.l1, loss.smooth_l1,
 * loss.kl; kind GO_PAIR_*): each term in long double from the rounded inputs, the finite terms
 * added by Kahan's compensated sum (about one long double rounding of their sum, whatever m n),
 * then the division by the count (m n, or m for the KL's batchmean), rounded once to f64.
 * Non-finite terms give IEEE's order-free outcome, as any order of additions does: NaN where a
 * term is NaN or both infinities occur, else the infinity. The KL term is xlogy(y, y) - y x
 * with xlogy(0, 0) = 0 (torch's kl_div, log_target=False); a negative y gives NaN (its log).
 * The gauge (docs/error-models.md, section loss): |r| for the losses of non-negative terms;
 * for the KL sum(|y log y| + |y x|) / m, the first-order share of every term's roundings. */
static long double pair_term(int kind, double x, double y, double beta, bool gauge)
{
    if (kind == GO_PAIR_KL) {
        long double ly = y == 0 ? 0.0L : (long double)y * logl((long double)y);
        long double yx = (long double)y * (long double)x;
        return gauge ? fabsl(ly) + fabsl(yx) : ly - yx;
    }
    long double d = (long double)x - (long double)y;
    if (kind == GO_PAIR_MSE) return d * d;
    if (kind == GO_PAIR_L1) return fabsl(d);
    long double z = fabsl(d);
    return z < beta ? 0.5L * z * z / beta : z - 0.5L * beta;
}

/* The KL's terms (a log each) are computed PAIR_CHUNK at a time on all cores into a buffer,
   then added on one thread in their index order: the same sum as a single serial loop. The
   other terms cost less than the sum's own steps and are computed in its loop. */
enum { PAIR_CHUNK = 1 << 16 };

static int pair_loss(const char *fn, int kind, int64_t m, int64_t n, const double *x,
                     const double *y, double beta, bool gauge, double *out)
{
    if (kind < GO_PAIR_MSE || kind > GO_PAIR_KL) return go_xerbla(fn, 1, "kind");
    if (m < 1) return go_xerbla(fn, 2, "m");
    if (n < 1) return go_xerbla(fn, 3, "n");
    if (!x) return go_xerbla(fn, 4, "x");
    if (!y) return go_xerbla(fn, 5, "y");
    if (!(beta > 0)) return go_xerbla(fn, 6, "beta");
    if (!out) return go_xerbla(fn, 7, "out");
    const int64_t total = m * n, chunk = total < PAIR_CHUNK ? total : PAIR_CHUNK;
    const bool buffered = kind == GO_PAIR_KL;
    long double *term = buffered ? malloc((size_t)chunk * sizeof *term) : NULL;
    if (buffered && !term) return go_enomem(fn);
    long double s = 0, c = 0;
    bool nan = false, pinf = false, ninf = false;
    for (int64_t j0 = 0; j0 < total; j0 += chunk) {
        const int64_t len = total - j0 < chunk ? total - j0 : chunk;
        if (buffered) {
#pragma omp parallel for schedule(static) if ((double)total >= GO_PAR_MIN)
            for (int64_t k = 0; k < len; k++)
                term[k] = pair_term(kind, x[j0 + k], y[j0 + k], beta, gauge);
        }
        for (int64_t k = 0; k < len; k++) {
            long double t = buffered ? term[k] : pair_term(kind, x[j0 + k], y[j0 + k], beta, gauge);
            if (isnan(t)) nan = true;
            if (isinf(t) && t > 0) pinf = true;
            if (isinf(t) && t < 0) ninf = true;
            if (!isfinite(t)) continue;
            long double v = t - c, u = s + v;
            c = (u - s) - v;
            s = u;
        }
    }
    free(term);
    if (nan || (pinf && ninf)) {
        *out = NAN;
        return 0;
    }
    if (pinf || ninf) {
        *out = pinf ? INFINITY : -INFINITY;
        return 0;
    }
    *out = (double)(s / (long double)(kind == GO_PAIR_KL ? m : total));
    return 0;
}

int go_loss_pair(int kind, int64_t m, int64_t n, const double *x, const double *y, double beta,
                 double *out)
{
    return pair_loss(__func__, kind, m, n, x, y, beta, false, out);
}

int go_loss_pair_gauge(int kind, int64_t m, int64_t n, const double *x, const double *y,
                       double beta, double *g)
{
    if (kind != GO_PAIR_KL) {
        int rc = pair_loss(__func__, kind, m, n, x, y, beta, false, g);
        if (rc == 0) *g = fabs(*g);
        return rc;
    }
    return pair_loss(__func__, kind, m, n, x, y, beta, true, g);
}
