/* model_gemm.c: the gemm op descriptors' facts that a GPU run relies on (depth per mode,
 * tensor counts, flops and bytes, modes, shape checks). */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>

#include "../../oracle/go.h"
#include "core/problem.h"
#include "core/registry.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

static gv_case gemm_case(const char *op, gv_dtype t, gv_mode mode, int64_t m, int64_t k, int64_t n)
{
    gv_case c = {gv_op_find(op), t, mode, GV_DIST_UNIFORM01, {3, {m, k, n}}, 0};
    cr_assert_not_null(c.op, "%s is registered", op);
    return c;
}

Test(oracle_gemm, depth_is_k_native_and_tf32_model)
{
    /* native: gamma_k, depth k. tf32: operands rounded at 2 u_tf32 each (4 u_tf32) plus
       k f32 roundings, u_f32 / u_tf32 = 2^-24 / 2^-11 = 2^-13: depth 4 + k 2^-13 */
    const char *ops[] = {"gemm.cublas", "gemm.tiled", "gemm.tiled.droptail"};
    for (int i = 0; i < 3; i++) {
        gv_case c64 = gemm_case(ops[i], GV_F64, GV_MODE_NATIVE, 100, 37, 129);
        gv_case c32 = gemm_case(ops[i], GV_F32, GV_MODE_NATIVE, 100, 37, 129);
        cr_expect_eq(c64.op->depth(&c64), 37.0, "%s f64", ops[i]);
        cr_expect_eq(c32.op->depth(&c32), 37.0, "%s f32", ops[i]);
    }
    gv_case t = gemm_case("gemm.cublas", GV_F32, GV_MODE_TF32, 512, 4096, 512);
    cr_expect_eq(t.op->depth(&t), 4.0 + 4096.0 / 8192.0);
    gv_result r;
    gv_result_init(&r, &t);
    cr_expect_eq(r.u, 0x1p-11, "tf32 is judged at u = 2^-11");
    cr_expect_eq(r.expected_tier, 0.0, "tf32 expects no tier");
}

Test(oracle_gemm, layout_counts_and_flops)
{
    const char *ops[] = {"gemm.cublas", "gemm.tiled"};
    for (int i = 0; i < 2; i++) {
        gv_case c = gemm_case(ops[i], GV_F32, GV_MODE_NATIVE, 5, 7, 11);
        gv_layout l;
        cr_assert_eq(c.op->layout(&c, &l), GV_OK);
        cr_expect_eq(l.n_in, 2);
        cr_expect_eq(l.n_out, 1);
        cr_expect_eq(l.in[0].count, 5 * 7, "A is m x k");
        cr_expect_eq(l.in[1].count, 7 * 11, "B is k x n");
        cr_expect_eq(l.out[0].count, 5 * 11, "C is m x n");
        cr_expect_eq(c.op->flops(&c), 2.0 * 5 * 7 * 11);
        cr_expect_eq(c.op->bytes(&c), (5.0 * 7 + 7 * 11 + 5 * 11) * 4);
    }
}

Test(oracle_gemm, modes_and_shapes)
{
    const gv_op *cublas = gv_op_find("gemm.cublas"), *tiled = gv_op_find("gemm.tiled");
    const gv_op *bug = gv_op_find("gemm.tiled.droptail");
    cr_assert(cublas && tiled && bug);
    cr_expect(gv_mode_ok(cublas, GV_F32, GV_MODE_TF32));
    cr_expect_not(gv_mode_ok(cublas, GV_F64, GV_MODE_TF32), "no tf32 for f64");
    cr_expect_not(gv_mode_ok(tiled, GV_F32, GV_MODE_TF32));
    cr_expect(gv_mode_ok(tiled, GV_F64, GV_MODE_NATIVE));
    cr_expect_null(cublas->planted_bug);
    cr_expect_not_null(bug->planted_bug);
    char why[256];
    gv_shape two = {2, {10, 10}}, ok = {3, {100, 37, 129}}, huge = {3, {1 << 30, 1, 1}};
    cr_expect_not(gv_shape_ok(cublas, &two, why, sizeof why));
    cr_expect(gv_shape_ok(cublas, &ok, why, sizeof why), "%s", why);
    cr_expect_not(gv_shape_ok(cublas, &huge, why, sizeof why), "dims past 2^30 - 1 refused");
    /* every test shape is accepted by its op */
    const gv_op *all[] = {cublas, tiled, bug};
    for (int i = 0; i < 3; i++) {
        gv_shape s[32];
        char err[256];
        int ns = gv_size_spec_parse(all[i]->test_shapes, s, 32, err, sizeof err);
        cr_expect_gt(ns, 0, "%s test shapes: %s", all[i]->name, err);
        for (int j = 0; j < ns; j++)
            cr_expect(gv_shape_ok(all[i], &s[j], why, sizeof why), "%s: %s", all[i]->name, why);
    }
}

/* f64 products up to GV_EXACT_MAX_FLOPS are judged against the exact product (oracle/exact.c)
   where the inputs sit on a grid: the reference is dgemm's result corrected by at most a few
   ulps, and its remainder is at most half an ulp; f32 cases and larger products keep dgemm. */
Test(oracle_gemm, f64_references_are_exact_where_wanted)
{
    gv_case c = gemm_case("gemm.cublas", GV_F64, GV_MODE_NATIVE, 33, 1000, 17);
    c.dist = GV_DIST_UNIFORM11;
    cr_assert(gv_exact_wanted(&c));
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    cr_assert(p.ref_exact);
    int64_t m = 33, k = 1000, n = 17;
    double *blas = malloc(sizeof *blas * (size_t)(m * n));
    cr_assert_eq(go_gemm(m, k, n, p.in[0].ref, k, p.in[1].ref, n, blas, n), 0);
    for (int64_t i = 0; i < m * n; i++) {
        double r = p.out[0].ref[i], lo = p.out[0].ref_lo[i];
        cr_assert(fabs(lo) <= 0.5 * ldexp(1.0, ilogb(r) - 52), "remainder %a of %a", lo, r);
        cr_assert(fabs(blas[i] - r) <= 1e-13 * (fabs(r) + 1e-300) + 1e-300 ||
                      fabs(blas[i] - r) <= 64 * ldexp(1.0, ilogb(r) - 52),
                  "dgemm %a against exact %a", blas[i], r);
    }
    free(blas);
    gv_problem_free(&p);
    gv_case f32 = gemm_case("gemm.cublas", GV_F32, GV_MODE_NATIVE, 33, 1000, 17);
    cr_expect(!gv_exact_wanted(&f32), "f32: the f64 oracle is far tighter than the dtype");
    gv_case big = gemm_case("gemm.cublas", GV_F64, GV_MODE_NATIVE, 4096, 4096, 4096);
    cr_expect(!gv_exact_wanted(&big), "4096^3 keeps dgemm: the integer sums would take minutes");
}
