/* oracle_lsmr.c: the lsmr family's oracle (go_lsmr_ridge's dense QR) against long double normal
 * equations, its argument checks and info, the input generator, and the CPU LSMR reference's
 * recurrences (tests/cpu/lsmr_ref.h). */
#include <criterion/criterion.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "go.h"
#include "lsmr.h"
#include "lsmr_ref.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

/* ---- the oracle ----------------------------------------------------------------------- */

/* x of (A^T A + lambda^2 I) x = A^T b by Cholesky in long double (u = 2^-64 on x87). */
static void normal_solve_ld(int64_t m, int64_t n, const gk_lsmr_aux *ax, const double *vals,
                            const double *b, double lambda, long double *x)
{
    long double *g = calloc((size_t)(n * n), sizeof *g);
    cr_assert_not_null(g);
    for (int64_t j = 0; j < n; j++)
        x[j] = 0;
    for (int64_t i = 0; i < m; i++)
        for (int32_t k = ax->row_ptr[i]; k < ax->row_ptr[i + 1]; k++) {
            x[ax->col_idx[k]] += (long double)vals[k] * b[i];
            for (int32_t l = ax->row_ptr[i]; l < ax->row_ptr[i + 1]; l++)
                g[ax->col_idx[k] * n + ax->col_idx[l]] += (long double)vals[k] * vals[l];
        }
    for (int64_t j = 0; j < n; j++)
        g[j * n + j] += (long double)lambda * lambda;
    for (int64_t j = 0; j < n; j++) { /* G = L L^T, L in the lower triangle */
        for (int64_t k = 0; k < j; k++)
            g[j * n + j] -= g[j * n + k] * g[j * n + k];
        cr_assert(g[j * n + j] > 0, "normal matrix is SPD");
        g[j * n + j] = sqrtl(g[j * n + j]);
        for (int64_t i = j + 1; i < n; i++) {
            for (int64_t k = 0; k < j; k++)
                g[i * n + j] -= g[i * n + k] * g[j * n + k];
            g[i * n + j] /= g[j * n + j];
        }
    }
    for (int64_t i = 0; i < n; i++) { /* L y = A^T b, then L^T x = y */
        for (int64_t k = 0; k < i; k++)
            x[i] -= g[i * n + k] * x[k];
        x[i] /= g[i * n + i];
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        for (int64_t k = i + 1; k < n; k++)
            x[i] -= g[k * n + i] * x[k];
        x[i] /= g[i * n + i];
    }
    free(g);
}

/* kappa_2([A; lambda I])^2 from the eigenvalues of A^T A + lambda^2 I (LAPACKE dsyev). */
static double kappa2_stacked(int64_t m, int64_t n, const gk_lsmr_aux *ax, const double *vals,
                             double lambda, double *norm2)
{
    double *g = calloc((size_t)(n * n), sizeof *g), *w = gv_test_zeros(n);
    cr_assert_not_null(g);
    for (int64_t i = 0; i < m; i++)
        for (int32_t k = ax->row_ptr[i]; k < ax->row_ptr[i + 1]; k++)
            for (int32_t l = ax->row_ptr[i]; l < ax->row_ptr[i + 1]; l++)
                g[ax->col_idx[k] * n + ax->col_idx[l]] += vals[k] * vals[l];
    for (int64_t j = 0; j < n; j++)
        g[j * n + j] += lambda * lambda;
    cr_assert_eq(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', (lapack_int)n, g, (lapack_int)n, w), 0);
    double k = sqrt(w[n - 1] / w[0]);
    *norm2 = sqrt(w[n - 1]);
    free(g);
    free(w);
    return k;
}

/* Householder QR is backward stable for least squares: the computed x solves a problem with
 * [A; lambda I] perturbed by eps <= gamma_{c (m+n) n} (Higham, ASNA 2nd ed., sec. 20.2), and
 * Wedin's perturbation theorem (ibid., sec. 20.1) turns that into
 *   ||x - x*|| / ||x*|| <= eps kappa (2 + (kappa + 1) ||rbar|| / (||Abar|| ||x*||)),
 * kappa = kappa_2([A; lambda I]). With eps = (m + n) n u the bound is about 1e-12 times the
 * conditioning at these sizes; the long double reference is 2^11 times tighter than u. */
static void check_oracle(int64_t m, int64_t n, int64_t k, uint64_t seed)
{
    gv_case c = gv_test_case("lsmr.ridge", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                             (gv_shape){3, {m, n, k}}, seed);
    gv_problem p;
    gv_test_problem(&p, &c);
    const gk_lsmr_aux *ax = p.aux;
    long double *xl = malloc((size_t)n * sizeof *xl);
    cr_assert_not_null(xl);
    normal_solve_ld(m, n, ax, p.in[0].ref, p.in[1].ref, ax->lambda, xl);
    long double e = 0, r = 0;
    for (int64_t j = 0; j < n; j++) {
        long double d = (long double)p.out[0].ref[j] - xl[j];
        e += d * d;
        r += xl[j] * xl[j];
    }
    double err = (double)(sqrtl(e) / sqrtl(r)), anorm;
    double kappa = kappa2_stacked(m, n, ax, p.in[0].ref, ax->lambda, &anorm);
    double norms[GO_LSMR_NNORMS];
    cr_assert_eq(go_lsmr_ridge_residuals(m, n, ax->row_ptr, ax->col_idx, p.in[0].ref, p.in[1].ref,
                                         ax->lambda, p.out[0].ref, norms),
                 0);
    double cond =
        kappa * (2 + (kappa + 1) * norms[GO_LSMR_NORM_RBAR] / (anorm * norms[GO_LSMR_NORM_X]));
    double bound = (double)((m + n) * n) * 0x1p-53 * cond;
    cr_expect(err <= bound, "%ldx%ldx%ld: normwise %.3g over %.3g (kappa %.3g, cond %.3g)", (long)m,
              (long)n, (long)k, err, bound, kappa, cond);
    cr_expect(err <= 1e-14 * cond, "%ldx%ldx%ld: normwise %.3g, cond %.3g: far under the bound",
              (long)m, (long)n, (long)k, err, cond);

    /* the bound can fail: a lambda off by 1e-8 (relative) moves x by far more */
    double *xw = gv_test_zeros(n);
    int info = -1;
    cr_assert_eq(go_lsmr_ridge(m, n, ax->row_ptr, ax->col_idx, p.in[0].ref, p.in[1].ref,
                               ax->lambda * (1 + 1e-8), xw, &info),
                 0);
    cr_expect_eq(info, 0);
    e = 0;
    for (int64_t j = 0; j < n; j++)
        e += ((long double)xw[j] - xl[j]) * ((long double)xw[j] - xl[j]);
    double err_wrong = (double)(sqrtl(e) / sqrtl(r));
    cr_expect(err_wrong > bound, "a perturbed lambda must break the bound: %.3g vs %.3g", err_wrong,
              bound);
    free(xw);
    free(xl);
    gv_problem_free(&p);
}

Test(lsmr_oracle, qr_matches_long_double_normal_equations, .timeout = 60)
{
    check_oracle(40, 30, 1, 3);
    check_oracle(40, 30, 4, 3);
    check_oracle(30, 40, 2, 5);  /* wide: only the damping makes it full rank */
    check_oracle(60, 60, 10, 9); /* lambda 5e3: x ~ A^T b / lambda^2 */
    check_oracle(97, 61, 6, 11);
}

/* Rank deficiency is a numerical outcome, not a bad argument: lambda = 0 and a zero column
   give info > 0 (dgels: R(2,2) = 0) with the return 0 and x unwritten. */
Test(lsmr_oracle, rank_deficiency_is_info_not_an_argument_error)
{
    int32_t rp[3] = {0, 1, 1}, ci[1] = {0};
    double va[1] = {3}, b[2] = {1, 1}, x[2] = {7, 7};
    int info = -1;
    go_clear_error();
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, va, b, 0.0, x, &info), 0);
    cr_expect_eq(info, 2, "info %d", info);
    cr_expect(x[0] == 7 && x[1] == 7, "x unwritten: %g %g", x[0], x[1]);
    cr_expect_str_eq(go_last_error(), "", "no error recorded: %s", go_last_error());
    /* any lambda > 0 makes it full rank */
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, va, b, 1e-3, x, &info), 0);
    cr_expect_eq(info, 0);
}

Test(lsmr_oracle, rejects_bad_arguments)
{
    int32_t rp[3] = {0, 1, 2}, ci[2] = {0, 1}, bad_ci[2] = {0, 5};
    double va[2] = {1, 2}, b[2] = {1, 1}, x[2];
    int info = -1;
    cr_expect_eq(go_lsmr_ridge(0, 2, rp, ci, va, b, 1.0, x, &info), -1);
    cr_expect_eq(go_lsmr_ridge(2, 0, rp, ci, va, b, 1.0, x, &info), -2);
    cr_expect_eq(go_lsmr_ridge(2, 2, NULL, ci, va, b, 1.0, x, &info), -3);
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, bad_ci, va, b, 1.0, x, &info), -4);
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, NULL, b, 1.0, x, &info), -5);
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, va, NULL, 1.0, x, &info), -6);
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, va, b, -1.0, x, &info), -7);
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, va, b, NAN, x, &info), -7);
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, va, b, 1.0, NULL, &info), -8);
    cr_expect_str_eq(go_last_error(), "go_lsmr_ridge: argument 8 (x) is invalid");
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, va, b, 1.0, x, NULL), -9);
    cr_expect_str_eq(go_last_error(), "go_lsmr_ridge: argument 9 (info) is invalid");
    cr_expect_eq(go_lsmr_ridge(2, 2, rp, ci, va, b, 1.0, x, &info), 0);
    cr_expect_eq(info, 0);
    /* diag(1, 2), lambda 1: x_j = a_j b_j / (a_j^2 + 1) */
    cr_expect(fabs(x[0] - 0.5) < 1e-15 && fabs(x[1] - 0.4) < 1e-15, "x = %g %g", x[0], x[1]);
}

/* ---- the generator -------------------------------------------------------------------- */

Test(lsmr_inputs, csr_is_deterministic_well_formed_and_at_density)
{
    gv_case c = gv_test_case("lsmr.ridge", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                             (gv_shape){3, {200, 300, 3}}, 21);
    gv_problem p, q;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_problem_init(&q, &c), GV_OK);
    const gk_lsmr_aux *a = p.aux, *b = q.aux;
    cr_assert_eq(a->nnz, p.in[0].count, "the layout counted the same pattern");
    cr_assert_eq(a->nnz, b->nnz);
    cr_expect_eq(memcmp(a->row_ptr, b->row_ptr, (size_t)(a->m + 1) * 4), 0, "row_ptr repeats");
    cr_expect_eq(memcmp(a->col_idx, b->col_idx, (size_t)a->nnz * 4), 0, "col_idx repeats");
    cr_expect_eq(memcmp(p.in[0].ref, q.in[0].ref, (size_t)a->nnz * 8), 0, "values repeat");
    cr_expect_eq(memcmp(p.in[1].ref, q.in[1].ref, (size_t)a->m * 8), 0, "b repeats");
    cr_expect_eq(a->lambda, gk_lsmr_lambda(3));

    /* Bernoulli(0.1) over 6e4 entries: sd 1.2e-3; 5 sd */
    double density = (double)a->nnz / (200.0 * 300.0);
    cr_expect(fabs(density - GK_LSMR_DENSITY) < 6e-3, "density %.4f", density);
    cr_expect_eq(a->row_ptr[0], 0);
    for (int64_t i = 0; i < a->m; i++) {
        cr_assert(a->row_ptr[i] <= a->row_ptr[i + 1], "row_ptr non-decreasing at %ld", (long)i);
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            cr_assert(a->col_idx[k] >= 0 && a->col_idx[k] < a->n);
            if (k > a->row_ptr[i]) cr_assert(a->col_idx[k] > a->col_idx[k - 1], "sorted row");
            cr_assert(p.in[0].ref[k] >= 0 && p.in[0].ref[k] < 1, "uniform [0,1) value");
        }
    }
    gv_problem_free(&q);

    /* another seed: another pattern */
    gv_case c2 = c;
    c2.seed = 22;
    cr_assert_eq(gv_problem_init(&q, &c2), GV_OK);
    b = q.aux;
    cr_expect(b->nnz != a->nnz || memcmp(a->col_idx, b->col_idx, (size_t)a->nnz * 4) != 0,
              "seed 22 differs from seed 21");
    gv_problem_free(&q);

    /* f32: the same pattern; values and b rounded to f32, the oracle sees the rounded ones */
    gv_case c3 = c;
    c3.dtype = GV_F32;
    cr_assert_eq(gv_problem_init(&q, &c3), GV_OK);
    b = q.aux;
    cr_assert_eq(b->nnz, a->nnz);
    cr_expect_eq(memcmp(a->col_idx, b->col_idx, (size_t)a->nnz * 4), 0, "pattern by seed only");
    for (int64_t k = 0; k < b->nnz; k++) {
        cr_assert_eq(q.in[0].ref[k], (double)(float)p.in[0].ref[k]);
        cr_assert_eq((double)((float *)q.in[0].data)[k], q.in[0].ref[k]);
    }
    gv_problem_free(&q);
    gv_problem_free(&p);
}

Test(lsmr_inputs, b_is_normal_3_1)
{
    gv_case c = gv_test_case("lsmr.ridge", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                             (gv_shape){3, {20000, 2, 1}}, 4);
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    double s = 0, s2 = 0;
    int64_t m = p.in[1].count, within1 = 0;
    for (int64_t i = 0; i < m; i++) {
        double v = p.in[1].ref[i];
        cr_assert(isfinite(v));
        s += v;
        s2 += v * v;
        within1 += fabs(v - 3.0) < 1.0;
    }
    double mean = s / m, sd = sqrt(s2 / m - mean * mean);
    /* 5 standard errors: mean 1/sqrt(m) = 7e-3, sd 1/sqrt(2m) = 5e-3, P(|z|<1) 3.3e-3 */
    cr_expect(fabs(mean - 3.0) < 0.036, "mean %.4f", mean);
    cr_expect(fabs(sd - 1.0) < 0.026, "sd %.4f", sd);
    cr_expect(fabs((double)within1 / m - 0.6827) < 0.017, "P(|b-3|<1) %.4f", (double)within1 / m);
    gv_problem_free(&p);
}

Test(lsmr_inputs, lambda_grid_is_geomspace)
{
    cr_expect_eq(gk_lsmr_lambda(1), 1e-1);
    cr_expect_eq(gk_lsmr_lambda(10), 5e3);
    double q = pow(5e4, 1.0 / 9.0);
    for (int k = 1; k < 10; k++) {
        double ratio = gk_lsmr_lambda(k + 1) / gk_lsmr_lambda(k);
        cr_expect(fabs(ratio - q) < 1e-14 * q, "lambda_%d+1 / lambda_%d = %.17g", k, k, ratio);
    }
}

/* The device carves its workspace from the layout's bytes (kernels/lsmr.cu): 9 pieces,
   each rounded up to 256 bytes, must fit. */
Test(lsmr_inputs, workspace_holds_what_the_device_carves)
{
    int64_t shapes[][2] = {{1, 1}, {61, 97}, {97, 61}, {300, 200}, {1000, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < GV_NDTYPES; t++) {
            gv_case c = gv_test_case("lsmr.ridge", (gv_dtype)t, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                                     (gv_shape){3, {shapes[s][0], shapes[s][1], 1}}, 7);
            gv_layout l;
            cr_assert_eq(c.op->layout(&c, &l), GV_OK);
            int64_t m = shapes[s][0], n = shapes[s][1], nnz = l.in[0].count;
            int64_t es = (int64_t)gv_dtype_size((gv_dtype)t);
            /* the pieces, from the one contract the kernel carves by; the test checks that
               they add up, hold the tensors' sizes, and fit the layout */
            int64_t need = 0;
            for (int i = 0; i < GK_LSMR_WS_PIECES; i++) {
                int64_t b = gk_lsmr_ws_piece(i, m, n, nnz, es);
                if (i == GK_LSMR_WS_U) cr_expect_geq(b, m * es, "u holds m elements");
                if (i >= GK_LSMR_WS_V) cr_expect_geq(b, n * es, "v, h, hbar hold n elements");
                need += (b + 255) / 256 * 256;
            }
            cr_expect_eq(need, gk_lsmr_workspace_bytes(m, n, nnz, es));
            cr_expect(need <= l.workspace_bytes, "%ldx%ld: carve %ld > workspace %ld", (long)m,
                      (long)n, (long)need, (long)l.workspace_bytes);
            cr_expect_eq(l.out[1].count, GK_LSMR_INFO_COUNT);
            cr_expect_eq(l.in[1].count, m);
            cr_expect_eq(l.out[0].count, n);
        }
}

/* ---- the recurrences, through the CPU reference --------------------------------------- */

Test(lsmr_reference, converges_to_the_oracle_with_exact_norm_estimates, .timeout = 60)
{
    int64_t ks[] = {1, 3, 6, 10};
    for (size_t i = 0; i < 4; i++) {
        gv_case c = gv_test_case("lsmr.ridge", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                                 (gv_shape){3, {300, 200, ks[i]}}, 5);
        gv_problem p;
        gv_test_problem(&p, &c);
        const gk_lsmr_aux *ax = p.aux;
        double *x = gv_test_zeros(ax->n), info[GK_LSMR_INFO_COUNT], nd[GO_LSMR_NNORMS];
        lsmr_ref_problem(&p, ax->lambda, gk_lsmr_atol(GV_F64), x, info);
        cr_expect_eq(info[GK_LSMR_INFO_ISTOP], GK_LSMR_LSQ, "k %ld: stops by rule S2 (istop %g)",
                     (long)ks[i], info[GK_LSMR_INFO_ISTOP]);
        cr_expect(info[GK_LSMR_INFO_ITERATIONS] >= 1 &&
                      info[GK_LSMR_INFO_ITERATIONS] < gk_lsmr_maxiter(300, 200),
                  "iterations %g", info[GK_LSMR_INFO_ITERATIONS]);
        cr_assert_eq(go_lsmr_ridge_residuals(ax->m, ax->n, ax->row_ptr, ax->col_idx, p.in[0].ref,
                                             p.in[1].ref, ax->lambda, x, nd),
                     0);
        /* the recurrence estimate of ||[b;0] - [A; lambda I] x|| (sec. 3.3) matches it */
        double rel = fabs(info[GK_LSMR_INFO_NORMR] / nd[GO_LSMR_NORM_RBAR] - 1);
        cr_expect(rel < 1e-12, "k %ld: ||rbar|| estimate off by %.3g", (long)ks[i], rel);
        /* and the estimate of ||A^T r - lambda^2 x|| is within a factor of the truth */
        double ar = info[GK_LSMR_INFO_NORMAR] / nd[GO_LSMR_NORM_G];
        cr_expect(ar > 0.05 && ar < 20, "k %ld: ||g|| estimate / truth %.3g", (long)ks[i], ar);
        double e = 0, r = 0;
        for (int64_t j = 0; j < ax->n; j++) {
            e += (x[j] - p.out[0].ref[j]) * (x[j] - p.out[0].ref[j]);
            r += p.out[0].ref[j] * p.out[0].ref[j];
        }
        /* forward error within ||g|| / lambda^2, up to the oracle's own O(u kappa) error */
        double allowed = nd[GO_LSMR_NORM_G] / (ax->lambda * ax->lambda) + 1e-13 * sqrt(r);
        cr_expect(sqrt(e) <= allowed, "||x - x*|| %.3g over ||g|| / lambda^2 + oracle's %.3g",
                  sqrt(e), allowed);
        cr_expect(sqrt(e / r) < 1e-8, "k %ld: relative error %.3g", (long)ks[i], sqrt(e / r));
        free(x);
        gv_problem_free(&p);
    }
}

Test(lsmr_reference, zero_matrix_stops_at_x0)
{
    int32_t rp[4] = {0, 0, 0, 0};
    double b[3] = {1, 2, 3}, x[2] = {9, 9}, info[GK_LSMR_INFO_COUNT];
    cr_assert_eq(lsmr_ridge_ref(3, 2, rp, NULL, NULL, b, 1.0, 1e-8, 1e-8, 10, 0, x, info), 0);
    cr_expect_eq(info[GK_LSMR_INFO_ISTOP], GK_LSMR_X0);
    cr_expect_eq(info[GK_LSMR_INFO_ITERATIONS], 0);
    cr_expect(x[0] == 0 && x[1] == 0);
}

/* The sparsity pattern is built on all cores (src/ops/lsmr.c: each row counted, a prefix sum,
 * each row filled): the CSR arrays and the values must be the same bits on 1 and 3 threads,
 * and every row's columns strictly increasing inside [0, n). */
Test(lsmr_oracle, the_pattern_is_the_same_on_any_thread_count)
{
    const int64_t m = 2000, n = 1500;
    gv_case c = gv_test_case("lsmr.ridge", GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                             (gv_shape){3, {m, n, 4}}, 11);
    gv_problem one, three;
    omp_set_num_threads(1);
    gv_test_problem(&one, &c);
    omp_set_num_threads(3);
    gv_test_problem(&three, &c);
    omp_set_num_threads(omp_get_num_procs());
    const gk_lsmr_aux *a = one.aux, *b = three.aux;
    cr_assert_eq(a->nnz, b->nnz);
    cr_expect_gt(a->nnz, 0);
    cr_expect_eq(memcmp(a->row_ptr, b->row_ptr, (size_t)(m + 1) * sizeof *a->row_ptr), 0);
    cr_expect_eq(memcmp(a->col_idx, b->col_idx, (size_t)a->nnz * sizeof *a->col_idx), 0);
    cr_expect_eq(memcmp(one.in[0].ref, three.in[0].ref, (size_t)a->nnz * sizeof(double)), 0);
    cr_expect_eq(a->row_ptr[m], a->nnz);
    for (int64_t i = 0; i < m; i++)
        for (int32_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
            cr_assert(a->col_idx[k] >= 0 && a->col_idx[k] < n);
            if (k > a->row_ptr[i])
                cr_assert_lt(a->col_idx[k - 1], a->col_idx[k], "row %lld", (long long)i);
        }
    gv_problem_free(&one);
    gv_problem_free(&three);
}
