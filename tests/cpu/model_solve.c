/* model_solve.c: the solve ops' judgement (src/ops/solve.c) with the device played by host
 * solvers: correct solvers pass, no pivoting and wrong info fail, the residual judges where no
 * tier is expected; inputs, expected tiers, shapes and layout. */
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

/* ---- the ops' judgement, the device played by host solvers --------------------------------- */

/* LU without pivoting in arithmetic T (the planted bug's algorithm; LAPACK has none), on
   the rounded A and b of a problem; x in f64. Returns the first zero pivot's index, or 0. */
#define DEFINE_NOPIVOT_LU(T, SUFFIX)                                                               \
    static int nopivot_lu_##SUFFIX(int64_t n, const double *a, const double *b, double *x)         \
    {                                                                                              \
        T *m = malloc((size_t)(n * n) * sizeof *m), *y = malloc((size_t)n * sizeof *y);            \
        cr_assert(m &&y);                                                                          \
        int info = 0;                                                                              \
        for (int64_t i = 0; i < n * n; i++)                                                        \
            m[i] = (T)a[i];                                                                        \
        for (int64_t i = 0; i < n; i++)                                                            \
            y[i] = (T)b[i];                                                                        \
        for (int64_t k = 0; k < n; k++) {                                                          \
            if (m[k * n + k] == 0 && !info) info = (int)k + 1;                                     \
            for (int64_t i = k + 1; i < n; i++) {                                                  \
                T l = m[i * n + k] / m[k * n + k];                                                 \
                for (int64_t j = k + 1; j < n; j++)                                                \
                    m[i * n + j] -= l * m[k * n + j];                                              \
                y[i] -= l * y[k];                                                                  \
            }                                                                                      \
        }                                                                                          \
        for (int64_t i = n - 1; i >= 0; i--) {                                                     \
            T s = y[i];                                                                            \
            for (int64_t j = i + 1; j < n; j++)                                                    \
                s -= m[i * n + j] * y[j];                                                          \
            x[i] = (double)(y[i] = s / m[i * n + i]);                                              \
        }                                                                                          \
        free(m);                                                                                   \
        free(y);                                                                                   \
        return info;                                                                               \
    }
DEFINE_NOPIVOT_LU(float, f32)
DEFINE_NOPIVOT_LU(double, f64)

/* A correct solver in the dtype's arithmetic, on another path than the oracle's: f32 LAPACKE
   sgesv / sposv; f64 LU of A^T (the row-major buffer read column-major) solved transposed,
   and Cholesky of the other triangle. Returns LAPACK's info. */
static int host_solve(bool chol, gv_dtype t, int64_t n, const double *a, const double *b, double *x)
{
    lapack_int ln = (lapack_int)n, *ipiv = malloc((size_t)n * sizeof *ipiv + 1), info;
    cr_assert_not_null(ipiv);
    if (t == GV_F32) {
        float *fa = malloc((size_t)(n * n) * sizeof *fa), *fx = malloc((size_t)n * sizeof *fx);
        cr_assert(fa && fx);
        for (int64_t i = 0; i < n * n; i++)
            fa[i] = (float)a[i];
        for (int64_t i = 0; i < n; i++)
            fx[i] = (float)b[i];
        info = chol ? LAPACKE_sposv(LAPACK_ROW_MAJOR, 'U', ln, 1, fa, ln, fx, 1)
                    : LAPACKE_sgesv(LAPACK_ROW_MAJOR, ln, 1, fa, ln, ipiv, fx, 1);
        for (int64_t i = 0; i < n; i++)
            x[i] = fx[i];
        free(fa);
        free(fx);
    } else {
        double *f = gv_test_alloc(n * n);
        memcpy(f, a, (size_t)(n * n) * sizeof *f);
        memcpy(x, b, (size_t)n * sizeof *x);
        if (chol) {
            info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', ln, 1, f, ln, x, 1);
        } else {
            info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, ln, ln, f, ln, ipiv);
            if (!info) info = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'T', ln, 1, f, ln, ipiv, x, ln);
        }
        free(f);
    }
    free(ipiv);
    return (int)info;
}

typedef enum { SIM_CORRECT, SIM_NOPIVOT, SIM_WRONG_INFO, SIM_NAN, SIM_UNWRITTEN } sim_kind;

/* Build the case's problem, run the oracle, play the device with a host solver in the
   dtype's arithmetic, judge. */
static gv_result judge_sim(const char *op, gv_dtype t, int64_t n, int64_t d, sim_kind sim)
{
    gv_case c = gv_test_case(op, t, GV_MODE_NATIVE, GV_DIST_UNIFORM11, (gv_shape){2, {n, d}}, 7);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *x = gv_test_alloc(n);
    const double *a = p.in[0].ref, *b = p.in[1].ref;
    bool chol = strncmp(op, "solve.posv", 10) == 0;
    int info;
    if (sim == SIM_NOPIVOT)
        info = t == GV_F64 ? nopivot_lu_f64(n, a, b, x) : nopivot_lu_f32(n, a, b, x);
    else
        info = host_solve(chol, t, n, a, b, x);
    if (sim == SIM_WRONG_INFO) info += 3;
    if (sim == SIM_NAN) x[n / 2] = NAN;
    for (int64_t i = 0; i < n; i++)
        gv_dtype_store(t, p.out[0].data, i, x[i]);
    gv_dtype_store(t, p.out[1].data, 0, (double)info);
    if (sim == SIM_UNWRITTEN) memset((char *)p.out[0].data, 0xFF, gv_dtype_size(t));
    gv_result r = gv_test_judge(&p);
    free(x);
    gv_problem_free(&p);
    return r;
}

Test(solve_ops, correct_solvers_pass, .timeout = 120)
{
    const char *ops[] = {"solve.gesv", "solve.posv"};
    const int64_t shapes[][2] = {{2, 1}, {37, 1}, {37, 6}, {257, 1}, {257, 6}, {600, 6}};
    for (int o = 0; o < 2; o++)
        for (int t = 0; t < 2; t++)
            for (int s = 0; s < 6; s++) {
                gv_result r =
                    judge_sim(ops[o], (gv_dtype)t, shapes[s][0], shapes[s][1], SIM_CORRECT);
                double sr = gv_test_extra(&r, "scaled_residual");
                cr_expect_eq(r.verdict, GV_PASS, "%s %s %ldx%ld: %s (%s), scaled residual %g",
                             ops[o], gv_dtype_name((gv_dtype)t), (long)shapes[s][0],
                             (long)shapes[s][1], gv_verdict_name(r.verdict), r.reason, sr);
                cr_expect_eq(r.m.ratio, sr, "the ratio column is the scaled residual");
                cr_expect(sr < 1.0, "%s %s %ldx%ld: a correct solver's residual %g", ops[o],
                          gv_dtype_name((gv_dtype)t), (long)shapes[s][0], (long)shapes[s][1], sr);
                cr_expect_eq(gv_test_extra(&r, "info_device"), 0.0);
                cr_expect_eq(gv_test_extra(&r, "kappa"), pow(10.0, (double)shapes[s][1]));
            }
}

Test(solve_ops, no_pivoting_fails_on_the_planted_bugs_test_shapes, .timeout = 120)
{
    const gv_op *op = gv_op_find("solve.gesv.nopivot");
    cr_assert_not_null(op);
    cr_assert_not_null(op->planted_bug);
    gv_shape shapes[16];
    char err[256];
    int ns = gv_size_spec_parse(op->test_shapes, shapes, 16, err, sizeof err);
    cr_assert_gt(ns, 0, "%s", err);
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < ns; s++) {
            gv_result r =
                judge_sim(op->name, (gv_dtype)t, shapes[s].d[0], shapes[s].d[1], SIM_NOPIVOT);
            cr_log_info("no pivoting %s %ldx%ld: %s (%s)", gv_dtype_name((gv_dtype)t),
                        (long)shapes[s].d[0], (long)shapes[s].d[1], gv_verdict_name(r.verdict),
                        r.reason);
            cr_expect_eq(r.verdict, GV_FAIL, "no pivoting %s %ldx%ld judged %s (%s), sr %g",
                         gv_dtype_name((gv_dtype)t), (long)shapes[s].d[0], (long)shapes[s].d[1],
                         gv_verdict_name(r.verdict), r.reason,
                         gv_test_extra(&r, "scaled_residual"));
        }
}

Test(solve_ops, wrong_info_nan_and_unwritten_fail)
{
    gv_result r = judge_sim("solve.gesv", GV_F64, 37, 1, SIM_WRONG_INFO);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_not_null(strstr(r.reason, "info"), "%s", r.reason);
    r = judge_sim("solve.posv", GV_F32, 37, 1, SIM_NAN);
    cr_expect_eq(r.verdict, GV_FAIL, "NaN in x: %s", r.reason);
    r = judge_sim("solve.gesv", GV_F32, 37, 6, SIM_UNWRITTEN);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_not_null(strstr(r.reason, "unwritten"), "%s", r.reason);
}

Test(solve_ops, forward_error_past_the_tier_fails_where_the_residual_passes)
{
    /* f64, kappa 1e6, n 37 expects 1e-8. Move x by 1e-7 along the right singular vector of
       the smallest singular value: forward error 1e-7, residual only 1e-6 * 1e-7 */
    int64_t n = 37;
    gv_case c = {gv_op_find("solve.gesv"), GV_F64,      GV_MODE_NATIVE,
                 GV_DIST_UNIFORM11,        {2, {n, 6}}, 7};
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    gv_result r;
    gv_result_init(&r, &c);
    cr_assert_eq(r.expected_tier, 1e-8);
    double *f = gv_test_alloc(n * n), *s = gv_test_alloc(n), *vt = gv_test_alloc(n * n),
           *superb = gv_test_alloc(n);
    memcpy(f, p.in[0].ref, (size_t)(n * n) * sizeof *f);
    cr_assert_eq(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', (lapack_int)n, (lapack_int)n, f,
                                (lapack_int)n, s, NULL, 1, vt, (lapack_int)n, superb),
                 0);
    for (int64_t i = 0; i < n; i++)
        ((double *)p.out[0].data)[i] = p.out[0].ref[i] + 1e-7 * vt[(n - 1) * n + i];
    ((double *)p.out[1].data)[0] = 0.0;
    gv_judge_problem(&p, &r);
    cr_expect(gv_test_extra(&r, "scaled_residual") <= 16.0, "residual passes: %g",
              gv_test_extra(&r, "scaled_residual"));
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_not_null(strstr(r.reason, "tier"), "%s", r.reason);
    int n_extra = r.n_extra;
    gv_judge_problem(&p, &r); /* a timed run judges again: the extras stay one of each */
    cr_expect_eq(r.n_extra, n_extra);
    cr_expect_eq(r.verdict, GV_FAIL);
    free(f);
    free(s);
    free(vt);
    free(superb);
    gv_problem_free(&p);
}

Test(solve_ops, the_residual_judges_where_no_tier_is_expected)
{
    /* f32, kappa 1e6 expects no tier. x off by 1e-2 relative with random signs: no larger
       than a correct f32 solver's forward error here (about 1e-2, but along the directions
       A shrinks), yet its residual is about 5 times the bound: it must fail, by the residual */
    int64_t n = 257;
    gv_case c = {gv_op_find("solve.gesv"), GV_F32,      GV_MODE_NATIVE,
                 GV_DIST_UNIFORM11,        {2, {n, 6}}, 7};
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    gv_result r;
    gv_result_init(&r, &c);
    cr_assert_eq(r.expected_tier, 0.0);
    for (int64_t i = 0; i < n; i++) {
        double sign = gv_gen_bits(3, 3, (uint64_t)i) & 1 ? 1.0 : -1.0;
        gv_dtype_store(GV_F32, p.out[0].data, i, p.out[0].ref[i] * (1.0 + 1e-2 * sign));
    }
    gv_dtype_store(GV_F32, p.out[1].data, 0, 0.0);
    gv_judge_problem(&p, &r);
    cr_expect_eq(r.verdict, GV_FAIL, "%s", r.reason);
    cr_expect_not_null(strstr(r.reason, "scaled residual"), "%s", r.reason);
    cr_log_info("x off by 1e-2: %s, forward error %g", r.reason,
                gv_test_extra(&r, "forward_error"));
    gv_problem_free(&p);
}

Test(solve_ops, inputs_are_rounded_conditioned_and_need_pivoting)
{
    for (int t = 0; t < 2; t++) {
        gv_case c = {gv_op_find("solve.gesv"), (gv_dtype)t,  GV_MODE_NATIVE,
                     GV_DIST_UNIFORM11,        {2, {64, 6}}, 7};
        gv_problem p;
        cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
        const double *a = p.in[0].ref, *b = p.in[1].ref;
        for (int64_t i = 0; i < 64 * 64; i++)
            cr_assert_eq(a[i], gv_round_to(a[i], (gv_dtype)t), "A rounded to the dtype");
        for (int64_t i = 0; i < 64; i++)
            cr_assert_eq(b[i], gv_round_to(b[i], (gv_dtype)t), "b rounded to the dtype");
        cr_expect(fabs(a[0]) <= 1e-14, "a11 = %g: pivoting needed", a[0]);
        double *s = gv_test_singular_values(64, a);
        double kappa = s[0] / s[63];
        cr_expect(fabs(kappa - 1e6) <= 0.01 * 1e6, "%s: kappa of the rounded A %g",
                  gv_dtype_name((gv_dtype)t), kappa);
        free(s);
        gv_problem_free(&p);
    }
}

static gv_result judge_info(const char *op, gv_dtype t, int64_t n, int64_t k, double info)
{
    gv_case c = {gv_op_find(op), t, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {n, k}}, 7};
    cr_assert_not_null(c.op, "%s is registered", op);
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    gv_result r;
    gv_result_init(&r, &c);
    if (!isnan(info)) gv_dtype_store(t, p.out[0].data, 0, info);
    gv_judge_problem(&p, &r);
    gv_problem_free(&p);
    return r;
}

Test(solve_ops, singular_ops_judge_info)
{
    const char *ops[] = {"solve.gesv.singular", "solve.posv.indefinite"};
    for (int o = 0; o < 2; o++) {
        gv_shape shapes[16];
        char err[256];
        int ns = gv_size_spec_parse(gv_op_find(ops[o])->test_shapes, shapes, 16, err, sizeof err);
        cr_assert_gt(ns, 0, "%s", err);
        for (int s = 0; s < ns; s++)
            for (int t = 0; t < 2; t++) {
                int64_t n = shapes[s].d[0], k = shapes[s].d[1];
                gv_result r = judge_info(ops[o], (gv_dtype)t, n, k, (double)k);
                cr_expect_eq(r.verdict, GV_PASS, "%s %ldx%ld info k: %s", ops[o], (long)n, (long)k,
                             r.reason);
                double wrong = k == n ? (double)(k - 1) : (double)(k + 1);
                r = judge_info(ops[o], (gv_dtype)t, n, k, wrong);
                cr_expect_eq(r.verdict, GV_FAIL, "%s %ldx%ld wrong info: %s", ops[o], (long)n,
                             (long)k, r.reason);
                r = judge_info(ops[o], (gv_dtype)t, n, k, NAN); /* left poisoned */
                cr_expect_eq(r.verdict, GV_FAIL, "%s unwritten info: %s", ops[o], r.reason);
            }
    }
}

/* ---- expected tiers, shapes, layout, CLI --------------------------------------------------- */

static gv_result start(const char *op, gv_dtype t, int64_t n, int64_t d)
{
    gv_case c = {gv_op_find(op), t, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {n, d}}, 7};
    cr_assert_not_null(c.op);
    gv_result r;
    gv_result_init(&r, &c);
    return r;
}

Test(solve_ops, expected_tiers_follow_the_forward_error_estimate)
{
    gv_result r = start("solve.gesv", GV_F32, 1000, 6);
    cr_expect_eq(r.expected_tier, 0.0, "f32 kappa 1e6: kappa u = 6e-2, no tier");
    cr_assert(r.expected_tier_why[0] != '\0');
    cr_expect_not_null(strstr(r.expected_tier_why, "6.0e-02"), "%s", r.expected_tier_why);
    r = start("solve.posv", GV_F32, 4000, 6);
    cr_expect_eq(r.expected_tier, 0.0);
    r = start("solve.gesv", GV_F64, 4000, 6);
    cr_expect_eq(r.expected_tier, 1e-8, "f64 kappa 1e6 meets 1e-8 (measured 2.7e-10 at 4000)");
    cr_expect_eq(r.expected_tier_why[0], '\0', "%s", r.expected_tier_why);
    r = start("solve.posv", GV_F64, 4000, 6);
    cr_expect_eq(r.expected_tier, 1e-8);
    r = start("solve.gesv", GV_F32, 257, 1);
    cr_expect_eq(r.expected_tier, 1e-4);
    r = start("solve.gesv", GV_F32, 4000, 1);
    cr_expect_eq(r.expected_tier, 0.0, "f32 LU at n 4000 misses 1e-4 even at kappa 10");
    r = start("solve.posv", GV_F32, 4000, 1);
    cr_expect_eq(r.expected_tier, 1e-4, "Cholesky's forward error does not grow with n");
    r = start("solve.gesv", GV_F64, 100, 9);
    cr_expect_eq(r.expected_tier, 1e-4, "f64 kappa 1e9 falls back to 1e-4");
    cr_expect_not_null(strstr(r.expected_tier_why, "1.1e-07"), "%s", r.expected_tier_why);
    cr_expect_eq(r.ratio_bound, 16.0);
    cr_expect_eq(r.u, 0x1p-53);
    cr_expect_eq(r.depth, 100.0, "HPL's n");
}

Test(solve_ops, shapes_and_layout)
{
    char why[256];
    const gv_op *gesv = gv_op_find("solve.gesv"), *sing = gv_op_find("solve.posv.indefinite");
    cr_assert(gesv && sing);
    gv_shape ok = {2, {37, 6}}, one = {2, {1, 1}}, big_kappa = {2, {37, 16}};
    cr_expect(gv_shape_ok(gesv, &ok, why, sizeof why), "%s", why);
    cr_expect_not(gv_shape_ok(gesv, &one, why, sizeof why));
    cr_expect_not(gv_shape_ok(gesv, &big_kappa, why, sizeof why));
    cr_expect(gv_shape_ok(sing, &one, why, sizeof why), "1 x 1 singular is fine: %s", why);
    gv_shape k_past_n = {2, {10, 11}};
    cr_expect_not(gv_shape_ok(sing, &k_past_n, why, sizeof why));
    gv_case c = {gesv, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {37, 6}}, 7};
    gv_layout l;
    cr_assert_eq(gesv->layout(&c, &l), GV_OK);
    cr_expect(l.n_in == 2 && l.n_out == 2);
    cr_expect(l.in[0].count == 37 * 37 && l.in[1].count == 37);
    cr_expect(l.out[0].count == 37 && l.out[1].count == 1);
    cr_expect_geq(l.workspace_bytes, 37 * 37 * 4 + 39 * 4, "A copy + pivots + infos");
}
