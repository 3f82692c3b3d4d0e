/* oracle_solve.c: the solve family's oracles (oracle/solve.c): the conditioned-matrix builder,
 * dgesv and dposv against long double, LAPACK's info on singular and indefinite matrices, HPL's
 * scaled residual, and their argument checks. */
#include <criterion/criterion.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "go.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

/* n x n matrix with 2-norm condition kappa from the builder (generated random factors). */
static double *cond_matrix(int64_t n, double kappa, int kind, uint64_t seed)
{
    double *g1 = gv_test_alloc(n * n), *g2 = gv_test_alloc(n * n), *a = gv_test_alloc(n * n);
    gv_gen_fill(g1, n * n, GV_DIST_UNIFORM11, GV_F64, seed, 1);
    gv_gen_fill(g2, n * n, GV_DIST_UNIFORM11, GV_F64, seed, 2);
    cr_assert_eq(go_solve_cond_matrix(n, kappa, kind, g1, g2, a, n), 0);
    free(g1);
    free(g2);
    return a;
}

/* x = A^{-1} b by Gaussian elimination with partial pivoting in long double. */
static void ld_solve(int64_t n, const double *a, const double *b, long double *x)
{
    long double *m = malloc((size_t)(n * (n + 1)) * sizeof *m);
    cr_assert_not_null(m);
    int64_t w = n + 1;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < n; j++)
            m[i * w + j] = a[i * n + j];
        m[i * w + n] = b[i];
    }
    for (int64_t k = 0; k < n; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (fabsl(m[i * w + k]) > fabsl(m[p * w + k])) p = i;
        for (int64_t j = 0; j < w; j++) {
            long double t = m[k * w + j];
            m[k * w + j] = m[p * w + j];
            m[p * w + j] = t;
        }
        for (int64_t i = k + 1; i < n; i++) {
            long double l = m[i * w + k] / m[k * w + k];
            for (int64_t j = k; j < w; j++)
                m[i * w + j] -= l * m[k * w + j];
        }
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        long double s = m[i * w + n];
        for (int64_t j = i + 1; j < n; j++)
            s -= m[i * w + j] * x[j];
        x[i] = s / m[i * w + i];
    }
    free(m);
}

/* ---- the builder -------------------------------------------------------------------------- */

static void check_builder(int64_t n, double kappa, int kind)
{
    double *a = cond_matrix(n, kappa, kind, 5);
    double *s = gv_test_singular_values(n, a);
    double got = s[0] / s[n - 1];
    cr_expect(fabs(got - kappa) <= 0.01 * kappa, "n %ld kind %d: kappa %g, asked %g", (long)n, kind,
              got, kappa);
    /* the whole spectrum, not just its ends: s_k = kappa^(-k/(n-1)) to 1e-8 relative */
    for (int64_t k = 0; k < n; k++) {
        double want = pow(kappa, -(double)k / (double)(n - 1));
        cr_expect(fabs(s[k] - want) <= 1e-8 * want, "n %ld kind %d: s_%ld = %.17g, want %.17g",
                  (long)n, kind, (long)k, s[k], want);
    }
    if (kind == GO_COND_SPD)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < i; j++)
                cr_expect_eq(a[i * n + j], a[j * n + i], "SPD not symmetric at (%ld,%ld)", (long)i,
                             (long)j);
    if (kind == GO_COND_GENERAL_PIVOT)
        cr_expect(fabs(a[0]) <= 1e-14, "pivoting variant: a11 = %g, want 0 to rounding", a[0]);
    if (kind == GO_COND_SPD) {
        /* positive definite: Cholesky succeeds */
        double *f = gv_test_alloc(n * n);
        memcpy(f, a, (size_t)(n * n) * sizeof *f);
        cr_expect_eq(LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, f, (lapack_int)n), 0);
        free(f);
    }
    free(a);
    free(s);
}

Test(oracle_solve, builder_gives_the_requested_kappa)
{
    const int64_t ns[] = {2, 5, 37, 64};
    const double kappas[] = {10.0, 1e6};
    const int kinds[] = {GO_COND_GENERAL, GO_COND_GENERAL_PIVOT, GO_COND_SPD};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 3; k++)
                check_builder(ns[i], kappas[j], kinds[k]);
}

Test(oracle_solve, builder_checks_arguments)
{
    double g1[4] = {1, 2, 3, 4}, g2[4] = {4, 3, 2, 1}, a[4];
    cr_expect_eq(go_solve_cond_matrix(0, 10, GO_COND_GENERAL, g1, g2, a, 2), -1);
    cr_expect_eq(go_solve_cond_matrix(2, 0.5, GO_COND_GENERAL, g1, g2, a, 2), -2, "kappa < 1");
    cr_expect_eq(go_solve_cond_matrix(1, 10, GO_COND_GENERAL, g1, g2, a, 1), -2,
                 "1 x 1 has kappa 1 only");
    cr_expect_eq(go_solve_cond_matrix(2, 10, 7, g1, g2, a, 2), -3);
    cr_expect_eq(go_solve_cond_matrix(2, 10, GO_COND_GENERAL, NULL, g2, a, 2), -4);
    cr_expect_eq(go_solve_cond_matrix(2, 10, GO_COND_GENERAL, g1, NULL, a, 2), -5);
    cr_expect_eq(go_solve_cond_matrix(2, 10, GO_COND_GENERAL, g1, g2, NULL, 2), -6);
    cr_expect_eq(go_solve_cond_matrix(2, 10, GO_COND_GENERAL, g1, g2, a, 1), -7);
    cr_expect_eq(go_solve_cond_matrix(1, 1, GO_COND_GENERAL, g1, g2, a, 1), 0);
    cr_expect_eq(fabs(a[0]), 1.0, "1 x 1: |a| = s = 1");
}

/* ---- the oracles -------------------------------------------------------------------------- */

static void check_oracle(int64_t n, double kappa, bool spd)
{
    double *a = cond_matrix(n, kappa, spd ? GO_COND_SPD : GO_COND_GENERAL_PIVOT, 9);
    double *b = gv_test_alloc(n), *x = gv_test_alloc(n);
    long double *x_ld = malloc((size_t)n * sizeof *x_ld);
    cr_assert_not_null(x_ld);
    gv_gen_fill(b, n, GV_DIST_UNIFORM11, GV_F64, 9, 3);
    int info = -1;
    int rc = spd ? go_posv(n, a, n, b, x, &info) : go_gesv(n, a, n, b, x, &info);
    cr_assert_eq(rc, 0);
    cr_expect_eq(info, 0);
    double sr = -1;
    cr_assert_eq(go_solve_scaled_residual(n, a, n, x, b, 0x1p-53, &sr), 0);
    cr_expect(sr < 1.0, "%s n %ld kappa %g: oracle's scaled residual %g", spd ? "posv" : "gesv",
              (long)n, kappa, sr);
    ld_solve(n, a, b, x_ld);
    long double e = 0, r = 0;
    for (int64_t i = 0; i < n; i++) {
        e += ((long double)x[i] - x_ld[i]) * ((long double)x[i] - x_ld[i]);
        r += x_ld[i] * x_ld[i];
    }
    long double fwd = sqrtl(e / r);
    cr_expect(fwd <= 1e-14L * kappa, "%s n %ld kappa %g: forward error %Lg over 1e-14 kappa",
              spd ? "posv" : "gesv", (long)n, kappa, fwd);
    free(a);
    free(b);
    free(x);
    free(x_ld);
}

Test(oracle_solve, gesv_matches_long_double)
{
    const int64_t ns[] = {2, 5, 37, 100};
    for (int i = 0; i < 4; i++) {
        check_oracle(ns[i], 10.0, false);
        check_oracle(ns[i], 1e6, false);
    }
}

Test(oracle_solve, posv_matches_long_double)
{
    const int64_t ns[] = {2, 5, 37, 100};
    for (int i = 0; i < 4; i++) {
        check_oracle(ns[i], 10.0, true);
        check_oracle(ns[i], 1e6, true);
    }
}

Test(oracle_solve, leaves_inputs_untouched_and_checks_arguments)
{
    double a[4] = {0, 1, 2, 3}, a0[4], b[2] = {1, 1}, x[2];
    memcpy(a0, a, sizeof a);
    int info = -1;
    cr_assert_eq(go_gesv(2, a, 2, b, x, &info), 0);
    cr_expect_eq(info, 0, "a11 = 0 pivots away");
    cr_expect(memcmp(a, a0, sizeof a) == 0 && b[0] == 1 && b[1] == 1, "inputs changed");
    /* [0 1; 2 3] x = [1 1]: x = (-1, 1) */
    cr_expect(fabs(x[0] + 1) < 1e-15 && fabs(x[1] - 1) < 1e-15, "x = (%g, %g)", x[0], x[1]);
    cr_expect_eq(go_gesv(-1, a, 2, b, x, &info), -1);
    cr_expect_eq(go_gesv(2, NULL, 2, b, x, &info), -2);
    cr_expect_eq(go_gesv(2, a, 1, b, x, &info), -3);
    cr_expect_eq(go_gesv(2, a, 2, NULL, x, &info), -4);
    cr_expect_eq(go_gesv(2, a, 2, b, NULL, &info), -5);
    cr_expect_eq(go_gesv(2, a, 2, b, x, NULL), -6);
    cr_expect_eq(go_posv(2, a, 1, b, x, &info), -3);
    cr_expect_eq(go_posv(2, a, 2, b, x, NULL), -6);
}

/* ---- info on singular and indefinite matrices --------------------------------------------- */

Test(oracle_solve, lapack_info_on_the_singular_constructions)
{
    const int64_t nk[][2] = {{1, 1}, {2, 1}, {2, 2}, {37, 20}, {64, 1}, {64, 64}, {257, 257}};
    for (int t = 0; t < 7; t++) {
        int64_t n = nk[t][0], k = nk[t][1];
        double kappa = n > 1 ? 10.0 : 1.0;
        double *b = gv_test_alloc(n), *x = gv_test_alloc(n);
        for (int64_t i = 0; i < n; i++)
            b[i] = 1.0;
        double *a = cond_matrix(n, kappa, GO_COND_GENERAL, 4);
        for (int64_t i = 0; i < n; i++)
            a[i * n + (k - 1)] = 0.0;
        int info = -1;
        cr_assert_eq(go_gesv(n, a, n, b, x, &info), 0);
        cr_expect_eq(info, (int)k, "gesv n %ld, column %ld zero: info %d", (long)n, (long)k, info);
        cr_expect_eq(x[0], b[0], "LAPACK leaves b in x when U is singular");
        free(a);
        a = cond_matrix(n, kappa, GO_COND_SPD, 4);
        a[(k - 1) * n + (k - 1)] = -1.0;
        info = -1;
        cr_assert_eq(go_posv(n, a, n, b, x, &info), 0);
        cr_expect_eq(info, (int)k, "posv n %ld, a_kk = -1 at k %ld: info %d", (long)n, (long)k,
                     info);
        free(a);
        free(b);
        free(x);
    }
}

/* ---- the scaled residual ------------------------------------------------------------------ */

Test(oracle_solve, scaled_residual_is_hpls_formula)
{
    /* A = [2 0; 0 1], x = (1, 1), b = (2, 1 + d): ||r|| = d, ||A|| = 2, ||x|| = 1,
       ||b|| = 2: sr = d / (u (2 + 2) 2) */
    double a[4] = {2, 0, 0, 1}, x[2] = {1, 1}, d = 0x1p-40, b[2] = {2, 1 + d}, u = 0x1p-53;
    double sr = -1;
    cr_assert_eq(go_solve_scaled_residual(2, a, 2, x, b, u, &sr), 0);
    cr_expect_eq(sr, d / (u * 8.0), "sr %.17g", sr);
    b[1] = 1;
    cr_assert_eq(go_solve_scaled_residual(2, a, 2, x, b, u, &sr), 0);
    cr_expect_eq(sr, 0.0, "an exact solution has residual 0");
    x[1] = NAN;
    cr_assert_eq(go_solve_scaled_residual(2, a, 2, x, b, u, &sr), 0);
    cr_expect(isnan(sr), "NaN in x gives NaN, never a pass");
    x[1] = INFINITY;
    cr_assert_eq(go_solve_scaled_residual(2, a, 2, x, b, u, &sr), 0);
    cr_expect(!(sr <= 16), "Inf in x never passes (sr %g)", sr);
    cr_expect_eq(go_solve_scaled_residual(0, a, 2, x, b, u, &sr), -1);
    cr_expect_eq(go_solve_scaled_residual(2, a, 2, x, b, 0, &sr), -6);
    cr_expect_eq(go_solve_scaled_residual(2, a, 2, x, b, u, NULL), -7);
}

/* src/ops/solve.c keeps the orthogonal factors of a size and seed (n >= 500) and builds A from
   them with GO_COND_Q_GIVEN: the inputs are those of the QR done afresh for every case, bit for
   bit, on the first case and on later ones that reuse the factors. */
Test(oracle_solve, kept_orthogonal_factors_give_the_same_inputs)
{
    const char *ops[2] = {"solve.gesv", "solve.posv"};
    for (int o = 0; o < 2; o++) {
        const int64_t n = 600;
        gv_case c = {gv_op_find(ops[o]),     GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                     {.nd = 2, .d = {n, 3}}, 5};
        cr_assert_not_null(c.op);
        int kind = o ? GO_COND_SPD : GO_COND_GENERAL_PIVOT;
        double *g1 = gv_test_alloc(n * n), *g2 = gv_test_alloc(n * n), *a = gv_test_alloc(n * n);
        gv_gen_fill(g1, n * n, c.dist, GV_F64, c.seed, 10); /* GEN_Q1 */
        gv_gen_fill(g2, n * n, c.dist, GV_F64, c.seed, 11); /* GEN_Q2 */
        cr_assert_eq(go_solve_cond_matrix(n, 1e3, kind, g1, g2, a, n), 0);
        for (int round = 0; round < 2; round++) {
            gv_problem p;
            cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
            cr_expect_eq(memcmp(p.in[0].ref, a, sizeof *a * (size_t)(n * n)), 0,
                         "%s, case %d: A differs from the one built afresh", ops[o], round);
            gv_problem_free(&p);
        }
        free(g1);
        free(g2);
        free(a);
    }
    double g[4] = {1, 2, 3, 4}, a[4];
    cr_expect_eq(go_solve_cond_matrix(2, 10, 7 | GO_COND_Q_GIVEN, g, g, a, 2), -3);
    cr_expect_eq(go_solve_orthogonalise(0, g), -1);
    cr_expect_eq(go_solve_orthogonalise(2, NULL), -2);
}
