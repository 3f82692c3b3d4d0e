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

static xent_row row_xent(const double *x, int64_t n, double target)
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
       where S is 1 + tiny) */
    long double s = 0, c = 0;
    bool skipped = false;
    for (int64_t j = 0; j < n; j++) {
        if (!skipped && x[j] == mx) {
            skipped = true;
            continue;
        }
        long double y = expl((long double)x[j] - mx) - c, t = s + y;
        c = (t - s) - y;
        s = t;
    }
    r.log_s = log1pl(s);
    r.loss = ((long double)mx - x[(int64_t)target]) + r.log_s;
    long double total = 1.0L + s;
    double a = 0;
    for (int64_t j = 0; j < n; j++) {
        double y = (double)(expl((long double)x[j] - mx) / total);
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
        l[i] = (double)row_xent(x + i * ldx, n, t[i]).loss;
    return 0;
}

/* g_i = max(L_i, (A_i + E + d_s + 2 L_i + 2 log S_i) / D): the first-order bound
   u (A + E + d_s + 2L + 2 log S) of docs/error-models.md over u D, and never below |L|. */
int go_loss_xent_gauge(int64_t m, int64_t n, const double *x, int64_t ldx, const double *t,
                       const double *l, double exp_units, double sum_depth, double depth, double *g)
{
    int rc = check_xent_args(__func__, m, n, x, ldx, t, l);
    if (rc) return rc;
    if (!(exp_units >= 0)) return go_xerbla(__func__, 7, "exp_units");
    if (!(sum_depth >= 1)) return go_xerbla(__func__, 8, "sum_depth");
    if (!(depth >= 1)) return go_xerbla(__func__, 9, "depth");
    if (!g) return go_xerbla(__func__, 10, "g");
#pragma omp parallel for schedule(static) XENT_PARALLEL
    for (int64_t i = 0; i < m; i++) {
        if (!isfinite(l[i])) { /* judged by NaN/Inf placement */
            g[i] = fabs(l[i]);
            continue;
        }
        xent_row r = row_xent(x + i * ldx, n, t[i]);
        double bound =
            (r.arg_share + exp_units + sum_depth + 2.0 * fabs(l[i]) + 2.0 * (double)r.log_s) /
            depth;
        g[i] = fmax(fabs(l[i]), bound);
    }
    return 0;
}
