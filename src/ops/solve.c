/* solve.c: op descriptors for dense A x = b through cuSOLVER against LAPACKE — LU with
 * partial pivoting (solve.gesv), Cholesky (solve.posv), the factorisations' reports on a
 * singular / indefinite matrix (solve.gesv.singular, solve.posv.indefinite) and the planted
 * bug solve.gesv.nopivot. Inputs are built with condition number 10^d (build_matrix,
 * oracle/solve.c); the judgement is solve_measure's HPL scaled residual and info check.
 * Error model: docs/error-models.md, section solve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "core/metrics.h"
#include "../../abi/solve.h"
#include "ops/opkit.h"

extern const gk_op gk_solve_gesv, gk_solve_gesv_nopivot, gk_solve_posv, gk_solve_gesv_singular,
    gk_solve_posv_indefinite;

#define SOLVE_MAX_LOG10_KAPPA 15
#define SOLVE_MAX_N           46340 /* cuSOLVER's legacy API takes int sizes: n^2 < 2^31 */
#define SOLVE_RESIDUAL_BOUND  16.0

/* generator streams of the construction (the case's tensors use 0 and 1) */
enum { GEN_Q1 = 10, GEN_Q2 = 11, GEN_XTRUE = 12 };

/* Cholesky ops are named solve.posv*: the op's name, not its kernel (NULL without CUDA). */
static bool is_posv(const gv_case *c)
{
    return strncmp(c->op->name, "solve.posv", 10) == 0;
}
static double kappa_of(const gv_case *c)
{
    return pow(10.0, (double)c->shape.d[1]);
}

/* ---- shapes, layout, costs -------------------------------------------------------------- */

static int solve_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[0] < 2) {
        snprintf(why, len,
                 "solve: n = %lld has condition number 1 only; kappa = 10^d (d >= 1) "
                 "needs n >= 2",
                 (long long)s->d[0]);
        return GV_EINVAL;
    }
    if (s->d[0] > SOLVE_MAX_N) {
        snprintf(why, len, "solve: n must be at most %d (cuSOLVER's int sizes)", SOLVE_MAX_N);
        return GV_EINVAL;
    }
    if (s->d[1] > SOLVE_MAX_LOG10_KAPPA) {
        snprintf(why, len,
                 "solve: log10 kappa must be 1..%d (f64 cannot hold a system with "
                 "kappa above 1e15)",
                 SOLVE_MAX_LOG10_KAPPA);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int singular_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[0] > SOLVE_MAX_N) {
        snprintf(why, len, "solve: n must be at most %d (cuSOLVER's int sizes)", SOLVE_MAX_N);
        return GV_EINVAL;
    }
    if (s->d[1] > s->d[0]) {
        snprintf(why, len, "solve: the failing index k = %lld must be in 1..n = %lld",
                 (long long)s->d[1], (long long)s->d[0]);
        return GV_EINVAL;
    }
    return GV_OK;
}

/* Workspace of kernels/solve.cu: the column-major copy of A, alignment slack, n pivots and
   two info words. */
static int64_t solve_workspace(const gv_case *c)
{
    return gv_solve_ws_bytes(c->shape.d[0], (int64_t)gv_dtype_size(c->dtype));
}

static int solve_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = c->shape.d[0];
    *l = (gv_layout){.n_in = 2, .n_out = 2};
    l->in[0] = (gv_tensor_spec){"A", n * n};
    l->in[1] = (gv_tensor_spec){"b", n};
    l->out[0] = (gv_tensor_spec){"x", n};
    l->out[1] = (gv_tensor_spec){"info", 1};
    l->workspace_bytes = solve_workspace(c);
    return GV_OK;
}

static int singular_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = c->shape.d[0];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"A", n * n};
    l->out[0] = (gv_tensor_spec){"info", 1};
    l->workspace_bytes = solve_workspace(c);
    return GV_OK;
}

static double gesv_flops(const gv_case *c)
{
    double n = (double)c->shape.d[0];
    return 2.0 / 3.0 * n * n * n + 2.0 * n * n;
}

static double posv_flops(const gv_case *c)
{
    double n = (double)c->shape.d[0];
    return 1.0 / 3.0 * n * n * n + 2.0 * n * n;
}

static double solve_bytes(const gv_case *c)
{
    double n = (double)c->shape.d[0];
    return (n * n + 2.0 * n + 1.0) * gv_esize(c);
}

static double singular_bytes(const gv_case *c)
{
    double n = (double)c->shape.d[0];
    return (n * n + 1.0) * gv_esize(c);
}

/* HPL's n in the scaled residual's denominator */
static double solve_depth(const gv_case *c)
{
    return (double)c->shape.d[0];
}
static double singular_depth(const gv_case *c)
{
    (void)c;
    return 1.0;
}

/* ---- inputs ----------------------------------------------------------------------------- */

/* The orthogonal factors Q1 and Q2 of one (n, dist, seed): every kappa, dtype and mode of that
   size and seed shares them, and at n = 4000 each QR takes seconds. The last few are kept for
   the process (a run's cases come grouped by op, dtype and mode, with the sizes innermost);
   only sizes where the QR costs more than the copy. */
enum { Q_KEPT = 4, Q_KEPT_MIN_N = 500 };
typedef struct q_factors {
    int64_t n;
    gv_dist dist;
    uint64_t seed;
    double *q[2]; /* Q1, Q2 (NULL until first asked for) */
    unsigned long used;
} q_factors;
static q_factors q_kept[Q_KEPT];
static unsigned long q_clock;

/* Q_which (0: Q1 from GEN_Q1, 1: Q2 from GEN_Q2) of (n, dist, seed) into dst; 0 or an oracle
   error code. */
static int orthogonal_factor(int64_t n, gv_dist dist, uint64_t seed, int which, double *dst)
{
    size_t bytes = (size_t)(n * n) * sizeof *dst;
    q_factors *e = NULL, *victim = &q_kept[0];
    for (int i = 0; i < Q_KEPT && !e; i++) {
        q_factors *k = &q_kept[i];
        if (k->n == n && k->dist == dist && k->seed == seed)
            e = k;
        else if (k->used < victim->used)
            victim = k;
    }
    if (!e) {
        free(victim->q[0]);
        free(victim->q[1]);
        *victim = (q_factors){.n = n, .dist = dist, .seed = seed};
        e = victim;
    }
    e->used = ++q_clock;
    if (!e->q[which]) {
        double *q = malloc(bytes + 1);
        if (!q) return GO_ENOMEM;
        gv_gen_fill(q, n * n, dist, GV_F64, seed, which ? GEN_Q2 : GEN_Q1);
        int rc = go_solve_orthogonalise(n, q);
        if (rc) {
            free(q);
            return rc;
        }
        e->q[which] = q;
    }
    memcpy(dst, e->q[which], bytes);
    return 0;
}

/* The construction of build_matrix, for gv_cache_memo. */
typedef struct cond_job {
    gv_problem *p;
    int64_t n;
    double kappa;
    int kind;
} cond_job;

static int make_cond_matrix(void *ctx)
{
    const cond_job *job = ctx;
    gv_problem *p = job->p;
    int64_t n = job->n;
    int kind = job->kind;
    double *g1 = malloc((size_t)(n * n) * sizeof *g1 + 1);
    double *g2 = kind == GO_COND_SPD ? NULL : malloc((size_t)(n * n) * sizeof *g2 + 1);
    int rc = (!g1 || (kind != GO_COND_SPD && !g2)) ? GO_ENOMEM : 0;
    if (!rc && n >= Q_KEPT_MIN_N) {
        rc = orthogonal_factor(n, p->c.dist, p->c.seed, 0, g1);
        if (!rc && g2) rc = orthogonal_factor(n, p->c.dist, p->c.seed, 1, g2);
        if (!rc)
            rc = go_solve_cond_matrix(n, job->kappa, kind | GO_COND_Q_GIVEN, g1, g2, p->in[0].ref,
                                      n);
    } else if (!rc) {
        gv_gen_fill(g1, n * n, p->c.dist, GV_F64, p->c.seed, GEN_Q1);
        if (g2) gv_gen_fill(g2, n * n, p->c.dist, GV_F64, p->c.seed, GEN_Q2);
        rc = go_solve_cond_matrix(n, job->kappa, kind, g1, g2, p->in[0].ref, n);
    }
    free(g1);
    free(g2);
    return gv_oracle_rc(rc);
}

static int singular_inputs(gv_problem *p);

/* The conditioned matrix make_inputs builds for case c, before any change: kappa 10^d, SPD
   for the Cholesky ops and pivoted LU's otherwise (solve_inputs); kappa 10 (1 at n = 1), SPD
   or general, for the singular ops (singular_inputs). */
static void cond_of(const gv_case *c, double *kappa, int *kind)
{
    bool posv = is_posv(c);
    if (c->op->make_inputs == singular_inputs) {
        *kappa = c->shape.d[0] > 1 ? 10.0 : 1.0;
        *kind = posv ? GO_COND_SPD : GO_COND_GENERAL;
    } else {
        *kappa = kappa_of(c);
        *kind = posv ? GO_COND_SPD : GO_COND_GENERAL_PIVOT;
    }
}

/* The oracle-cache key of that matrix: every dtype, mode and op of the family with the same
   n, kappa, kind, dist and seed builds the same one (the ops' shared_input_key). */
static bool cond_key(const gv_case *c, char *key, size_t len)
{
    double kappa;
    int kind;
    cond_of(c, &kappa, &kind);
    snprintf(key, len, "solve.cond_matrix;kind=%d;n=%lld;kappa=%.17g;dist=%s;seed=%llu", kind,
             (long long)c->shape.d[0], kappa, gv_dist_name(c->dist), (unsigned long long)c->seed);
    return true;
}

/* A (in[0].ref, n x n) with the condition number and kind of cond_of, built in f64 and
   rounded in place by the caller. At n = 4000 the two QRs and the product take seconds on 16
   cores, and every dtype and mode of (n, kappa, kind, dist, seed) builds the same matrix: it
   is kept in the oracle cache (versioned by these sources, so a changed construction is never
   read back) under cond_key. */
static int build_matrix(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    cond_job job = {p, n, 0, 0};
    cond_of(&p->c, &job.kappa, &job.kind);
    char key[256];
    cond_key(&p->c, key, sizeof key);
    void *buf = p->in[0].ref;
    size_t bytes = (size_t)(n * n) * sizeof(double);
    return gv_cache_memo(key, 1, &buf, &bytes, make_cond_matrix, &job);
}

static int solve_inputs(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    int rc = build_matrix(p);
    if (rc != GV_OK) return rc;
    gv_store_rounded(p, 0);
    /* b = A x_true on the rounded A, then rounded: the exact solution of the rounded system
       is near x_true, not equal to it; the oracle solves that rounded system */
    double *xt = malloc((size_t)n * sizeof *xt + 1);
    if (!xt) return GV_ENOMEM;
    gv_gen_fill(xt, n, p->c.dist, GV_F64, p->c.seed, GEN_XTRUE);
    rc = go_gemm(n, n, 1, p->in[0].ref, n, xt, 1, p->in[1].ref, 1);
    free(xt);
    if (rc) return gv_oracle_rc(rc);
    gv_store_rounded(p, 1);
    return GV_OK;
}

/* gesv.singular: a kappa-10 matrix with column k zeroed. The column stays exactly zero
   through every elimination step (its updates multiply zeros), so the first zero pivot is
   U(k,k) for any correct LU with row pivoting: info = k (1-based), the earlier pivots being
   those of a well-conditioned matrix. posv.indefinite: an SPD kappa-10 matrix with a_kk set
   to -1: the leading minors of order < k are principal submatrices of the SPD matrix, the
   k-th Cholesky pivot is -1 - |l_k|^2 < 0: info = k. */
static int singular_inputs(gv_problem *p)
{
    int64_t n = p->c.shape.d[0], k = p->c.shape.d[1];
    bool chol = is_posv(&p->c);
    int rc = build_matrix(p);
    if (rc != GV_OK) return rc;
    double *a = p->in[0].ref;
    if (chol)
        a[(k - 1) * n + (k - 1)] = -1.0;
    else
        for (int64_t i = 0; i < n; i++)
            a[i * n + (k - 1)] = 0.0;
    gv_store_rounded(p, 0);
    return GV_OK;
}

/* ---- oracle ----------------------------------------------------------------------------- */

static int solve_oracle(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    int info = 0;
    int rc = is_posv(&p->c) ? go_posv(n, p->in[0].ref, n, p->in[1].ref, p->out[0].ref, &info)
                            : go_gesv(n, p->in[0].ref, n, p->in[1].ref, p->out[0].ref, &info);
    if (rc) return gv_oracle_rc(rc);
    p->out[1].ref[0] = (double)info;
    /* the element-wise gauge is not the judgement here (see solve_judge); ||x||_inf keeps
       the compare's ratio finite and normwise */
    double xmax = 0;
    for (int64_t i = 0; i < n; i++)
        xmax = fmax(xmax, fabs(p->out[0].ref[i]));
    for (int64_t i = 0; i < n; i++)
        p->out[0].gauge[i] = xmax > 0 ? xmax : 1.0;
    p->out[1].gauge[0] = 1.0;
    return GV_OK;
}

static int singular_oracle(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    bool chol = is_posv(&p->c);
    double *b = calloc((size_t)n + 1, sizeof *b), *x = malloc((size_t)n * sizeof *x + 1);
    int info = 0, rc = (!b || !x) ? GO_ENOMEM : 0;
    if (!rc)
        rc = chol ? go_posv(n, p->in[0].ref, n, b, x, &info)
                  : go_gesv(n, p->in[0].ref, n, b, x, &info);
    free(b);
    free(x);
    if (rc) return gv_oracle_rc(rc);
    p->out[0].ref[0] = (double)info;
    p->out[0].gauge[0] = fmax(1.0, (double)info);
    return GV_OK;
}

/* ---- expected tier ---------------------------------------------------------------------- */

/* The envelope of measured forward errors times 4 (docs/error-models.md, section solve). */
static double forward_error_estimate(const gv_case *c)
{
    double n = (double)c->shape.d[0], kappa = kappa_of(c);
    double u = gv_unit_roundoff(c->dtype, c->mode);
    if (is_posv(c)) return 4.0 * u * kappa * (0.5 + sqrt(n) / 64.0);
    return 4.0 * u * (n + kappa * sqrt(n) / 8.0);
}

/* The dtype's own tier where the estimate is under it, else the loosest default tier that
   still holds it (f64 falls back to 1e-4), else none; why formatted from the numbers. */
static double solve_expected_tier(const gv_case *c, char *why, size_t len)
{
    double est = forward_error_estimate(c), kappa = kappa_of(c);
    double own = gv_dtype_tier(c->dtype), u = gv_unit_roundoff(c->dtype, c->mode);
    if (est <= own) return own;
    double fallback = 0.0;
    for (int k = gv_default_tiers.n - 1; k >= 0; k--)
        if (gv_default_tiers.t[k] > own && est <= gv_default_tiers.t[k])
            fallback = gv_default_tiers.t[k];
    snprintf(why, len,
             "kappa %.0e, %s: kappa u = %.1e; the forward-error estimate %.2g (n and kappa: see "
             "the error model) is over the dtype's tier %.0e; x is judged by HPL's scaled "
             "residual",
             kappa, gv_dtype_name(c->dtype), kappa * u, est, own);
    return fallback;
}

/* ---- judgement -------------------------------------------------------------------------- */

/* Set a named extra, replacing an earlier value: a result may be judged twice (a timed run
   judges a copy of its sanity result again), and the names must stay unique. */
static void put_extra(gv_result *r, const char *name, double value)
{
    for (int i = 0; i < r->n_extra; i++)
        if (strcmp(r->extra[i].name, name) == 0) {
            r->extra[i].value = value;
            return;
        }
    gv_result_extra(r, name, value);
}

/* Measurements for gv_decide: the solution's metrics (x against LAPACK's), HPL's scaled
   residual as the error-model ratio, and cuSOLVER's info against LAPACK's as a check. The
   element-wise compare of x stays in r->m; info (output 1) is judged by the check alone. */
static void solve_measure(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    int64_t n = c->shape.d[0];
    bool poison;
    double info_dev = gv_load(p->out[1].data, c->dtype, 0, &poison);
    double info_ref = p->out[1].ref[0];
    double *x = malloc((size_t)n * sizeof *x + 1);
    if (!x) {
        snprintf(r->internal, sizeof r->internal, "no host memory to judge the solution");
        return;
    }
    /* ||x - x*|| / ||x*|| from scaled sums (gv_ssq): no inf / inf nor a subnormal square
       whatever the solution's size */
    gv_ssq sq_err = {0, 0, 0}, sq_ref = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        x[i] = gv_load(p->out[0].data, c->dtype, i, &poison);
        gv_ssq_add(&sq_err, fabs(x[i] - p->out[0].ref[i]));
        gv_ssq_add(&sq_ref, fabs(p->out[0].ref[i]));
    }
    double sr = NAN;
    go_solve_scaled_residual(n, p->in[0].ref, n, x, p->in[1].ref, r->u, &sr);
    free(x);
    double fwd = gv_ssq_ratio(&sq_err, &sq_ref);
    double kappa = kappa_of(c), est = forward_error_estimate(c);
    r->m.ratio = sr;
    r->ratio_bound = SOLVE_RESIDUAL_BOUND;
    put_extra(r, "scaled_residual", sr);
    put_extra(r, "forward_error", fwd);
    put_extra(r, "kappa", kappa);
    put_extra(r, "kappa_u", kappa * r->u);
    put_extra(r, "forward_error_estimate", est);
    put_extra(r, "info_device", info_dev);
    put_extra(r, "info_oracle", info_ref);
    if (info_ref != 0) {
        /* the rounded matrix is singular or not positive definite in f64 itself (possible
           only near kappa u = 1 in f32): there is no solution to judge */
        snprintf(r->unjudgeable, sizeof r->unjudgeable,
                 "LAPACK info %.0f on the rounded matrix (kappa u = %.2g): no solution to judge",
                 info_ref, kappa * r->u);
        return;
    }
    gv_result_check(r, "info", fabs(info_dev - info_ref), 0.0,
                    "cuSOLVER info %.0f, LAPACK info %.0f", info_dev, info_ref);
    gv_result_check(r, "scaled_residual", sr, r->ratio_bound,
                    "scaled residual %.3g over %.3g (forward error %.3g, estimate %.3g)", sr,
                    r->ratio_bound, fwd, est);
}

static void singular_measure(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    bool poison;
    double info_dev = gv_load(p->out[0].data, c->dtype, 0, &poison);
    double info_ref = p->out[0].ref[0];
    double k = (double)c->shape.d[1];
    r->m.ratio = info_dev == info_ref ? 0.0 : INFINITY;
    put_extra(r, "info_device", info_dev);
    put_extra(r, "info_oracle", info_ref);
    put_extra(r, "info_constructed", k);
    if (info_ref != k) {
        /* the construction guarantees info = k; anything else is the harness's fault */
        snprintf(r->internal, sizeof r->internal, "LAPACK info %.0f, the construction expects %.0f",
                 info_ref, k);
        return;
    }
    gv_result_check(r, "info", fabs(info_dev - info_ref), 0.0,
                    "cuSOLVER info %.0f, LAPACK info %.0f", info_dev, info_ref);
}

/* ---- descriptors ------------------------------------------------------------------------ */

#define SOLVE_ERROR_MODEL                                                                          \
    "HPL scaled residual ||Ax-b||_inf/(u(||A||_inf||x||_inf+||b||_inf)n) <= 16 (Higham ASNA "      \
    "Thm 7.1); info = LAPACK's; tiers where the forward-error estimate allows "                    \
    "(docs/error-models.md)"

/* The matrix A as an n x n array (row-major, as the layout holds it); b, x and info flat. */
static int solve_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i,
                              int64_t *shape)
{
    if (!output && i == 0) {
        shape[0] = shape[1] = c->shape.d[0];
        return 2;
    }
    shape[0] = output ? l->out[i].count : l->in[i].count;
    return 1;
}

#define SOLVE_COMMON                                                                               \
    .family = "solve", .dims = "n,log10kappa", .in_dims = "n,n;n", .out_dims = "n;",               \
    .dtypes = GV_BOTH_DTYPES, .dists = GV_BIT(GV_DIST_UNIFORM11),                                  \
    .default_dist = GV_DIST_UNIFORM11, .check_shape = solve_check_shape, .layout = solve_layout,   \
    .bytes = solve_bytes, .make_inputs = solve_inputs, .shared_input_key = cond_key,               \
    .oracle = solve_oracle, .depth = solve_depth, .ratio_bound = SOLVE_RESIDUAL_BOUND,             \
    .expected_tier = solve_expected_tier, .measure = solve_measure,                                \
    .error_model = SOLVE_ERROR_MODEL, .tensor_shape = solve_tensor_shape

static const gv_op solve_gesv = {
    .name = "solve.gesv",
    .modes = GV_BIT(GV_MODE_NATIVE) | GV_BIT(GV_MODE_IRS_F16) | GV_BIT(GV_MODE_IRS_BF16) |
             GV_BIT(GV_MODE_IRS_TF32) | GV_BIT(GV_MODE_IRS_F32),
    .summary = "A x = b by cuSOLVER getrf + getrs (LU, partial pivoting) vs LAPACKE dgesv",
    .shapes = "100x1,100x6,1000x1,1000x6,4000x6",
    .test_shapes = "2x1,37x1,37x6,257x1,257x6,1000x6",
    .flops = gesv_flops,
    .device = GV_KERNEL(gk_solve_gesv),
    SOLVE_COMMON,
};

static const gv_op solve_posv = {
    .name = "solve.posv",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .summary = "SPD A x = b by cuSOLVER potrf + potrs (Cholesky) vs LAPACKE dposv",
    .shapes = "100x1,100x6,1000x1,1000x6,4000x6",
    .test_shapes = "2x1,37x1,37x6,257x1,257x6,1000x6",
    .flops = posv_flops,
    .device = GV_KERNEL(gk_solve_posv),
    SOLVE_COMMON,
};

static const gv_op solve_gesv_nopivot = {
    .name = "solve.gesv.nopivot",
    .modes = GV_BIT(GV_MODE_NATIVE),
    .summary = "planted bug: getrf without pivoting on matrices whose a11 is 0 up to rounding",
    .planted_bug = "LU without pivoting (getrf with devIpiv = NULL)",
    .shapes = "257x1",
    .test_shapes = "2x1,37x1,257x6,1000x1",
    .flops = gesv_flops,
    .device = GV_KERNEL(gk_solve_gesv_nopivot),
    SOLVE_COMMON,
};

#define SINGULAR_COMMON                                                                            \
    .family = "solve", .dims = "n,k", .in_dims = "n,n", .out_dims = "", .dtypes = GV_BOTH_DTYPES,  \
    .modes = GV_BIT(GV_MODE_NATIVE), .dists = GV_BIT(GV_DIST_UNIFORM11),                           \
    .default_dist = GV_DIST_UNIFORM11, .check_shape = singular_check_shape,                        \
    .layout = singular_layout, .bytes = singular_bytes, .make_inputs = singular_inputs,            \
    .shared_input_key = cond_key, .oracle = singular_oracle, .depth = singular_depth,              \
    .measure = singular_measure, .shapes = "100x50,1000x1000", .tensor_shape = solve_tensor_shape, \
    .test_shapes = "1x1,2x1,37x20,257x257,1000x500"

static const gv_op solve_gesv_singular = {
    .name = "solve.gesv.singular",
    .summary = "getrf on a matrix whose column k is zero: devInfo must equal LAPACK's (k)",
    .flops = gesv_flops,
    .error_model = "exact: cuSOLVER's devInfo = LAPACKE dgesv's info = k (U(k,k) = 0) "
                   "(docs/error-models.md)",
    .device = GV_KERNEL(gk_solve_gesv_singular),
    SINGULAR_COMMON,
};

static const gv_op solve_posv_indefinite = {
    .name = "solve.posv.indefinite",
    .summary = "potrf on an SPD matrix with a_kk = -1: devInfo must equal LAPACK's (k)",
    .flops = posv_flops,
    .error_model = "exact: cuSOLVER's devInfo = LAPACKE dposv's info = k (minor k not PD) "
                   "(docs/error-models.md)",
    .device = GV_KERNEL(gk_solve_posv_indefinite),
    SINGULAR_COMMON,
};

const gv_op *const gv_family_solve[] = {
    &solve_gesv, &solve_posv, &solve_gesv_nopivot, &solve_gesv_singular, &solve_posv_indefinite,
    NULL};
