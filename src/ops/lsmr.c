/* lsmr.c: op descriptors for seed 002's "regularized least squares": min ||A x - b||^2 +
 * lambda^2 ||x||^2 for a random sparse A (density 0.1, values uniform [0,1) as
 * scipy.sparse.random draws them), b ~ normal(3, 1), lambda_k from geomspace(1e-1, 5e3, 10),
 * solved on the GPU by LSMR with damp = lambda (kernels/lsmr.cu), and the planted bug that
 * drops the damping. Dims m,n,k: A is m x n, lambda = lambda_k (k = 1..10). The judgement is
 * lsmr_measure's: LSMR's normal-equations residual against its promise.
 * Error model: docs/error-models.md, section lsmr. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/lsmr.h"
#include "../../oracle/go.h"
#include "core/gen.h"
#include "ops/opkit.h"

extern const gk_op gk_lsmr_ridge, gk_lsmr_ridge_nodamp;

/* Generator streams (the tensor key of gv_gen_*): A's values keyed by position i n + j so a
 * value does not depend on the rest of the pattern; b by 2i, 2i + 1 (Box-Muller pairs). */
enum { LSMR_KEY_VALUES = 0, LSMR_KEY_B = 1, LSMR_KEY_PATTERN = 2 };

/* The dense oracle holds (m + n) x n doubles: cap it at 2e9 (16 GB). */
#define LSMR_MAX_DENSE 2e9

static int lsmr_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[2] < 1 || s->d[2] > GK_LSMR_NLAMBDA) {
        snprintf(why, len,
                 "lsmr: k = %lld is not a lambda index: k = 1..%d picks lambda_k = "
                 "geomspace(1e-1, 5e3, 10)[k-1]",
                 (long long)s->d[2], GK_LSMR_NLAMBDA);
        return GV_EINVAL;
    }
    if (((double)s->d[0] + (double)s->d[1]) * (double)s->d[1] > LSMR_MAX_DENSE) {
        snprintf(why, len,
                 "lsmr: the dense QR oracle needs (m + n) n = %.3g doubles, over its cap of %.0e",
                 ((double)s->d[0] + (double)s->d[1]) * (double)s->d[1], LSMR_MAX_DENSE);
        return GV_EINVAL;
    }
    return GV_OK;
}

/* Whether entry (i, j) of the pattern is kept: with probability GK_LSMR_DENSITY, decided by
 * its own 53 random bits. */
static inline int lsmr_kept(uint64_t seed, int64_t i, int64_t j, int64_t n)
{
    const uint64_t keep = (uint64_t)(GK_LSMR_DENSITY * 0x1p53);
    return (gv_gen_bits(seed, LSMR_KEY_PATTERN, (uint64_t)(i * n + j)) >> 11) < keep;
}

/* The kept entries of rows [0, m), counted on all cores: each row's count is exact, so the
 * total is the same whatever the thread count. Memoised for the last (seed, m, n): the layout
 * is asked for at selection and again for the run, and a 30000 x 30000 count is 9e8 hashes. */
static int64_t lsmr_count(uint64_t seed, int64_t m, int64_t n)
{
    static _Thread_local struct {
        uint64_t seed;
        int64_t m, n, nnz;
        int valid;
    } memo;
    if (memo.valid && memo.seed == seed && memo.m == m && memo.n == n) return memo.nnz;
    int64_t nnz = 0;
#pragma omp parallel for reduction(+ : nnz) schedule(static) if ((double)m * n > GO_PAR_MIN)
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            nnz += lsmr_kept(seed, i, j, n);
    memo.seed = seed;
    memo.m = m;
    memo.n = n;
    memo.nnz = nnz;
    memo.valid = 1;
    return nnz;
}

/* The sparsity pattern as CSR: row_ptr (m + 1) and col_idx (nnz), filled on all cores (each
 * row's count first, then a prefix sum, then each row's columns in order: the same arrays as
 * one thread's row-by-row walk). Without row_ptr only the count. Returns nnz. */
static int64_t lsmr_pattern(uint64_t seed, int64_t m, int64_t n, int32_t *row_ptr, int32_t *col_idx)
{
    if (!row_ptr) return lsmr_count(seed, m, n);
    row_ptr[0] = 0;
#pragma omp parallel for schedule(static) if ((double)m * n > GO_PAR_MIN)
    for (int64_t i = 0; i < m; i++) {
        int32_t count = 0;
        for (int64_t j = 0; j < n; j++)
            count += lsmr_kept(seed, i, j, n);
        row_ptr[i + 1] = count;
    }
    for (int64_t i = 0; i < m; i++) { /* nnz <= INT32_MAX: lsmr_layout refuses more */
        assert((int64_t)row_ptr[i + 1] + row_ptr[i] <= INT32_MAX);
        row_ptr[i + 1] += row_ptr[i];
    }
    if (col_idx) {
#pragma omp parallel for schedule(static) if ((double)m * n > GO_PAR_MIN)
        for (int64_t i = 0; i < m; i++) {
            int32_t at = row_ptr[i];
            for (int64_t j = 0; j < n; j++)
                if (lsmr_kept(seed, i, j, n)) col_idx[at++] = (int32_t)j;
        }
    }
    return row_ptr[m];
}

/* The pattern's indices travel as values of the case's dtype (every tensor of a case has one
   dtype): f32 holds integers exactly up to 2^24. */
#define LSMR_F32_INDEX_MAX 16777216.0

static int lsmr_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], n = c->shape.d[1];
    int64_t nnz = lsmr_pattern(c->seed, m, n, NULL, NULL);
    if (nnz > INT32_MAX) return GV_EINVAL; /* cuSPARSE's int32 CSR; check_shape keeps it far */
    if (c->dtype == GV_F32 && ((double)nnz > LSMR_F32_INDEX_MAX || (double)n > LSMR_F32_INDEX_MAX))
        return GV_EINVAL; /* the indices would not be exact; check_shape keeps the shapes far */
    int64_t es = (int64_t)gv_dtype_size(c->dtype);
    /* A as CSR: its values, then (inputs 2 and 3) its row pointers and column indices, so that
       a solver elsewhere has the whole matrix (gpuval inputs, gv_make_inputs); the kernel reads
       the pattern from host_aux, the same arrays as integers */
    *l = (gv_layout){.n_in = 4, .n_out = 2};
    l->in[0] = (gv_tensor_spec){"A_values", nnz};
    l->in[1] = (gv_tensor_spec){"b", m};
    l->in[2] = (gv_tensor_spec){"A_row_ptr", m + 1};
    l->in[3] = (gv_tensor_spec){"A_col_idx", nnz};
    l->out[0] = (gv_tensor_spec){"x", n};
    l->out[1] = (gv_tensor_spec){"info", GK_LSMR_INFO_COUNT};
    l->workspace_bytes = gk_lsmr_workspace_bytes(m, n, nnz, es); /* abi/lsmr.h's carve */
    return GV_OK;
}

/* One LSMR iteration: two SpMVs (2 nnz flops each), three norms, two scalings, the fused
   update (6 n). The judge scales these by the iterations the run took. */
static double lsmr_expected_nnz(const gv_case *c)
{
    return GK_LSMR_DENSITY * (double)c->shape.d[0] * (double)c->shape.d[1];
}

static double lsmr_flops(const gv_case *c)
{
    double m = (double)c->shape.d[0], n = (double)c->shape.d[1];
    return 4.0 * lsmr_expected_nnz(c) + 3.0 * m + 11.0 * n;
}

static double lsmr_bytes(const gv_case *c)
{
    double m = (double)c->shape.d[0], n = (double)c->shape.d[1], es = gv_esize(c);
    return 2.0 * lsmr_expected_nnz(c) * (es + 4.0) + (m + n + 2.0) * 4.0 +
           (6.0 * m + 14.0 * n) * es;
}

static double lsmr_depth(const gv_case *c)
{
    (void)c;
    return 1.0;
}

static void lsmr_aux_free(void *aux)
{
    free(aux);
}

static int lsmr_inputs(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1], nnz = p->in[0].count;
    /* one block: the struct, then row_ptr, then col_idx */
    gk_lsmr_aux *ax = malloc(sizeof *ax + (size_t)(m + 1 + nnz) * sizeof(int32_t));
    if (!ax) return GV_ENOMEM;
    ax->m = m;
    ax->n = n;
    ax->nnz = nnz;
    ax->lambda = gk_lsmr_lambda(p->c.shape.d[2]);
    ax->row_ptr = (int32_t *)(ax + 1);
    ax->col_idx = ax->row_ptr + m + 1;
    p->aux = ax;
    p->aux_free = lsmr_aux_free;
    if (lsmr_pattern(p->c.seed, m, n, ax->row_ptr, ax->col_idx) != nnz) return GV_EINVAL;

    for (int64_t i = 0; i < m; i++)
        for (int32_t k = ax->row_ptr[i]; k < ax->row_ptr[i + 1]; k++)
            p->in[0].ref[k] = gv_gen_value(p->c.dist, p->c.seed, LSMR_KEY_VALUES,
                                           (uint64_t)(i * n + ax->col_idx[k]));
    gv_store_rounded(p, 0);
    /* b ~ normal(3, 1) by Box-Muller on two counter-based uniforms; 1 - u1 is in (0, 1] */
    for (int64_t i = 0; i < m; i++) {
        double u1 = gv_gen_unit(p->c.seed, LSMR_KEY_B, (uint64_t)(2 * i));
        double u2 = gv_gen_unit(p->c.seed, LSMR_KEY_B, (uint64_t)(2 * i + 1));
        p->in[1].ref[i] = 3.0 + sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
    }
    gv_store_rounded(p, 1);
    for (int64_t i = 0; i <= m; i++) /* exact in the dtype: lsmr_layout refuses larger */
        p->in[2].ref[i] = (double)ax->row_ptr[i];
    for (int64_t k = 0; k < nnz; k++)
        p->in[3].ref[k] = (double)ax->col_idx[k];
    gv_store_rounded(p, 2);
    gv_store_rounded(p, 3);
    return GV_OK;
}

/* Elements of the inputs' pattern (inputs 2 and 3) that are not the seed's: given data judged
   on another pattern than the one the oracle and the kernel use. */
static int64_t lsmr_pattern_mismatches(const gv_problem *p)
{
    const gk_lsmr_aux *ax = p->aux;
    int64_t bad = 0;
    for (int64_t i = 0; i <= ax->m; i++)
        bad += p->in[2].ref[i] != (double)ax->row_ptr[i];
    for (int64_t k = 0; k < ax->nnz; k++)
        bad += p->in[3].ref[k] != (double)ax->col_idx[k];
    return bad;
}

static int lsmr_oracle(gv_problem *p)
{
    const gk_lsmr_aux *ax = p->aux;
    int info = 0;
    int rc = go_lsmr_ridge(ax->m, ax->n, ax->row_ptr, ax->col_idx, p->in[0].ref, p->in[1].ref,
                           ax->lambda, p->out[0].ref, &info);
    if (rc) return gv_oracle_rc(rc);
    /* info > 0: [A; lambda I] rank deficient, which needs lambda = 0; gk_lsmr_lambda is
       >= 0.1 for every shape, so this is a broken contract of the harness, not of the GPU */
    if (info > 0) return GV_EINTERNAL;
    for (int64_t j = 0; j < ax->n; j++)
        p->out[0].gauge[j] = fabs(p->out[0].ref[j]);
    /* info has no reference: the judge reads it, the element-wise compare ignores it */
    for (int i = 0; i < GK_LSMR_INFO_COUNT; i++) {
        p->out[1].ref[i] = 0.0;
        p->out[1].gauge[i] = 1.0;
    }
    return GV_OK;
}

/* ||A||_F expected from the shape: density m n entries with E[a^2] = 1/3 (uniform [0,1) and
   uniform [-1,1) alike). */
static double lsmr_kappa_f(const gv_case *c)
{
    double fro = sqrt(lsmr_expected_nnz(c) / 3.0);
    return fro / gk_lsmr_lambda(c->shape.d[2]);
}

static double lsmr_expected_tier(const gv_case *c, char *why, size_t len)
{
    double tier = gv_dtype_tier(c->dtype);
    double kf = lsmr_kappa_f(c), u = gv_unit_roundoff(c->dtype, c->mode);
    double atol = gk_lsmr_atol(c->dtype);
    double predicted = 30.0 * atol * kf + u * kf * kf;
    if (predicted <= tier) {
        snprintf(why, len,
                 "%s: LSMR stops at atol %.0e; 30 atol kappa_F + u kappa_F^2 = %.2g <= %.0e "
                 "(kappa_F = ||A||_F/lambda = %.3g)",
                 gv_dtype_name(c->dtype), atol, predicted, tier, kf);
        return tier;
    }
    snprintf(why, len,
             "%s: 30 atol kappa_F + u kappa_F^2 = %.2g > %.0e (atol %.0e, kappa_F = "
             "||A||_F/lambda = %.3g): the forward error follows kappa_F; no tier, judged by "
             "the LSMR residual model",
             gv_dtype_name(c->dtype), predicted, tier, atol, kf);
    return 0.0;
}

/* info's numbers read back, with lambda, as the result's extras; a poisoned info element
   counts as a poisoned output (after x's elements). */
static void lsmr_read_info(const gv_problem *p, gv_result *r, double info[GK_LSMR_INFO_COUNT])
{
    const gv_case *c = &p->c;
    const gk_lsmr_aux *ax = p->aux;
    const gv_tensor *xt = &p->out[0], *it = &p->out[1];
    int64_t info_poisoned = 0;
    for (int i = 0; i < GK_LSMR_INFO_COUNT; i++) {
        bool poison = false;
        info[i] = gv_load(it->data, c->dtype, i, &poison);
        info_poisoned += poison;
    }
    gv_result_extra(r, "lambda", ax->lambda);
    gv_result_extra(r, "iterations", info[GK_LSMR_INFO_ITERATIONS]);
    gv_result_extra(r, "stop_reason", info[GK_LSMR_INFO_ISTOP]);
    if (info_poisoned) {
        if (r->m.first_poisoned_index < 0) r->m.first_poisoned_index = xt->count;
        r->m.poisoned += info_poisoned;
    }
}

/* The residual norms of the device's x (nd) and the oracle's (no), and into err2 the squared
   distance ||x - x*||^2; false, with r->internal saying why, where they could not be computed. */
static bool lsmr_residuals(const gv_problem *p, gv_result *r, double nd[GO_LSMR_NNORMS],
                           double no[GO_LSMR_NNORMS], double *err2)
{
    const gv_case *c = &p->c;
    const gk_lsmr_aux *ax = p->aux;
    const gv_tensor *xt = &p->out[0];
    double *x = malloc((size_t)ax->n * sizeof *x + 1);
    if (!x) {
        snprintf(r->internal, sizeof r->internal, "no host memory for %lld doubles",
                 (long long)ax->n);
        return false;
    }
    *err2 = 0.0;
    for (int64_t j = 0; j < ax->n; j++) {
        bool poison;
        x[j] = gv_load(xt->data, c->dtype, j, &poison);
        *err2 += (x[j] - xt->ref[j]) * (x[j] - xt->ref[j]);
    }
    int rc = go_lsmr_ridge_residuals(ax->m, ax->n, ax->row_ptr, ax->col_idx, p->in[0].ref,
                                     p->in[1].ref, ax->lambda, x, nd);
    if (!rc)
        rc = go_lsmr_ridge_residuals(ax->m, ax->n, ax->row_ptr, ax->col_idx, p->in[0].ref,
                                     p->in[1].ref, ax->lambda, xt->ref, no);
    free(x);
    if (rc) {
        snprintf(r->internal, sizeof r->internal, "go_lsmr_ridge_residuals returned %d", rc);
        return false;
    }
    return true;
}

/* The LSMR residual against its promise (a foreign solver's: the backward-stable floor alone)
   and the forward error against what that residual allows, as checks, with their extras. */
static void lsmr_judge_residuals(const gv_problem *p, gv_result *r, bool foreign,
                                 const double nd[GO_LSMR_NNORMS], const double no[GO_LSMR_NNORMS],
                                 double err2)
{
    const gk_lsmr_aux *ax = p->aux;
    double atol = gk_lsmr_atol(p->c.dtype), lambda = ax->lambda;
    double fro2 = 0.0, b2 = 0.0;
    for (int64_t k = 0; k < ax->nnz; k++)
        fro2 += p->in[0].ref[k] * p->in[0].ref[k];
    for (int64_t i = 0; i < ax->m; i++)
        b2 += p->in[1].ref[i] * p->in[1].ref[i];
    double fro = sqrt(fro2), normb = sqrt(b2);
    double promise =
        (foreign ? 0.0 : atol * fro * nd[GO_LSMR_NORM_RBAR]) +
        r->u * r->depth * ((fro2 + lambda * lambda) * nd[GO_LSMR_NORM_X] + fro * normb);
    double g = nd[GO_LSMR_NORM_G];
    double ratio = g == 0.0 ? 0.0 : g / promise;
    /* ||x - x*|| <= ||g|| / lambda^2 <= ratio promise / lambda^2: the oracle must agree */
    double fwd = lambda > 0 && promise > 0 ? sqrt(err2) * lambda * lambda / promise : 0.0;
    r->m.ratio = ratio;

    gv_result_extra(r, "residual_norm", nd[GO_LSMR_NORM_R]);
    gv_result_extra(r, "solution_norm", nd[GO_LSMR_NORM_X]);
    gv_result_extra(r, "oracle_residual_norm", no[GO_LSMR_NORM_R]);
    gv_result_extra(r, "oracle_solution_norm", no[GO_LSMR_NORM_X]);
    gv_result_extra(r, "normal_residual",
                    fro * nd[GO_LSMR_NORM_RBAR] > 0 ? g / (fro * nd[GO_LSMR_NORM_RBAR]) : 0.0);
    gv_result_extra(r, "forward_ratio", fwd);
    gv_result_extra(r, "kappa_f", lambda > 0 ? fro / lambda : INFINITY);
    gv_result_extra(r, "atol", foreign ? 0.0 : atol); /* 0: no stopping tolerance judged */

    gv_result_check(r, "lsmr_residual", ratio, r->ratio_bound,
                    foreign ? "normal-equations residual ||A^T r - lambda^2 x|| is %.3g x a "
                              "backward-stable solver's (bound %.3g)"
                            : "LSMR residual ||A^T r - lambda^2 x|| is %.3g x its promise "
                              "(bound %.3g)",
                    ratio, r->ratio_bound);
    gv_result_check(r, "forward_ratio", fwd, r->ratio_bound,
                    "||x - x*|| is %.3g x what its residual allows (bound %.3g): oracle disagrees",
                    fwd, r->ratio_bound);
}

/* Measurements for gv_decide, from x and info alone (gv_judge_problem merged the info output into
   the element-wise metrics; it has no reference): x's metrics, info's validity, the LSMR
   residual against its promise and the forward error against what that residual allows,
   as checks. Idempotent: a result may be measured again. */
static void lsmr_measure(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    const gv_tensor *xt = &p->out[0];
    int bits = gv_mode_precision_bits(c->dtype, c->mode);
    gv_error_model em = {.gauge = xt->gauge, .depth = r->depth, .u = r->u};
    gv_compare(xt->data, c->dtype, xt->ref, xt->count, &r->tiers, &em, bits, &r->m);
    r->n_extra = 0; /* the extras are this judge's own: a result judged again starts over */

    double info[GK_LSMR_INFO_COUNT];
    lsmr_read_info(p, r, info);
    double iters = info[GK_LSMR_INFO_ITERATIONS], istop = info[GK_LSMR_INFO_ISTOP];
    if (r->m.poisoned || r->m.nonfinite_mismatches) return; /* gv_decide says which */
    int64_t off_pattern = lsmr_pattern_mismatches(p);
    gv_result_check(r, "pattern", (double)off_pattern, 0.0,
                    "%g entries of A_row_ptr and A_col_idx are not the seed's pattern, which A's "
                    "values, the oracle and the kernel use",
                    (double)off_pattern);
    if (off_pattern) return;
    /* Outputs computed elsewhere (gv_judge) come from a solver that need not be LSMR, nor stop
       at gpuval's atol: info is not read, and x is held to the backward-stable floor alone (the
       normal-equations residual a solver stable for [A; lambda I] x = [b; 0] leaves: QR, an
       SVD, Cholesky of the normal equations, or any iteration run to that accuracy) */
    bool foreign = r->env.foreign;
    if (!foreign) {
        bool info_ok =
            iters >= 0 && iters == floor(iters) && istop >= 0 && istop <= GK_LSMR_MAXITER;
        gv_result_check(r, "info", info_ok ? 0.0 : 1.0, 0.0,
                        "info holds no LSMR result (iterations %g, stop reason %g)", iters, istop);
        if (!info_ok) return;
        /* the descriptor's numbers are per iteration; set, not scaled, so judging twice is safe */
        r->flops = c->op->flops(c) * (iters > 1 ? iters : 1);
        r->bytes = c->op->bytes(c) * (iters > 1 ? iters : 1);
    }
    /* the device's x in f64, its residuals, and the oracle's */
    double nd[GO_LSMR_NNORMS], no[GO_LSMR_NNORMS], err2 = 0.0;
    if (!lsmr_residuals(p, r, nd, no, &err2)) return;
    lsmr_judge_residuals(p, r, foreign, nd, no, err2);
}

#define LSMR_COMMON                                                                                \
    .family = "lsmr", .dims = "m,n,k", .in_dims = ";m;;", .out_dims = "n;",                        \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE),                                     \
    .dists = GV_BIT(GV_DIST_UNIFORM01) | GV_BIT(GV_DIST_UNIFORM11),                                \
    .default_dist = GV_DIST_UNIFORM01, .check_shape = lsmr_check_shape, .layout = lsmr_layout,     \
    .flops = lsmr_flops, .bytes = lsmr_bytes, .make_inputs = lsmr_inputs, .oracle = lsmr_oracle,   \
    .bytes_model = "each iteration (the run's count): A's values and column indices read twice "   \
                   "(A v and A^T u), its row pointers once, and 6m + 14n vector elements",         \
    .depth = lsmr_depth, .expected_tier = lsmr_expected_tier, .measure = lsmr_measure,             \
    .error_model = "||A^T r - lambda^2 x|| <= atol ||A||_F ||[r; lambda x]|| + u d "               \
                   "((||A||_F^2 + lambda^2) ||x|| + ||A||_F ||b||), gauge ||A||_F, depth 1: "      \
                   "LSMR's rule S2 plus a backward-stable floor (docs/error-models.md)"

static const gv_op lsmr_ridge = {
    .name = "lsmr.ridge",
    .summary = "ridge least squares by LSMR, damp = lambda_k; cuSPARSE SpMV (seed 002)",
    .shapes = "1000x1000x1,1000x1000x2,1000x1000x3,1000x1000x4,1000x1000x5,1000x1000x6,"
              "1000x1000x7,1000x1000x8,1000x1000x9,1000x1000x10,"
              "2000x1500x1,2000x1500x4,2000x1500x7,2000x1500x10",
    .test_shapes = "61x97x1,97x61x4,300x200x2,300x200x6,1000x1000x1,1000x1000x7,"
                   "2000x1500x3,2000x1500x10",
    .device = GV_KERNEL(gk_lsmr_ridge),
    LSMR_COMMON,
};

static const gv_op lsmr_ridge_nodamp = {
    .name = "lsmr.ridge.nodamp",
    .summary = "planted bug: LSMR ignores lambda (solves the undamped problem)",
    .planted_bug = "damping dropped: solves min ||A x - b|| for every lambda",
    .shapes = "1000x1000x8",
    .test_shapes = "300x200x6,1000x1000x8,2000x1500x5",
    .device = GV_KERNEL(gk_lsmr_ridge_nodamp),
    LSMR_COMMON,
};

const gv_op *const gv_family_lsmr[] = {&lsmr_ridge, &lsmr_ridge_nodamp, NULL};
