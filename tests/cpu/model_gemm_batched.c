/* model_gemm_batched.c: gemm.batched's descriptors (src/ops/gemm.c: NN, .tn, .nt and the
 * planted .stride) and the gemm model per batch element, by judging device results simulated
 * on the CPU: each batch's dot products as FMA chains in the case's precision pass under every
 * transpose; TF32 inputs pass under the tf32 label; the planted stride bug (batch q reads batch
 * q - 1's B), TF32 inputs under the native label and f32 arithmetic under an f64 label fail. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "testkit.h"

enum variant { V_OK, V_STRIDE, V_IN_F32, V_TF32 };

/* x rounded to TF32 (10 fraction bits, to nearest even), as the tensor cores read f32 */
static float to_tf32(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    b += 0xfffu + ((b >> 13) & 1u);
    b &= ~0x1fffu;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* op(A_q)(i, l) and op(B_q)(l, j) from the packed stored tensors */
static double a_at(const double *a, int trans, int64_t m, int64_t k, int64_t q, int64_t i,
                   int64_t l)
{
    return trans & 1 ? a[q * m * k + l * m + i] : a[q * m * k + i * k + l];
}
static double b_at(const double *b, int trans, int64_t k, int64_t n, int64_t q, int64_t l,
                   int64_t j)
{
    return trans & 2 ? b[q * k * n + j * k + l] : b[q * k * n + l * n + j];
}

static gv_result judge_sim(const char *op, int trans, gv_dtype t, gv_mode mode, gv_dist dist,
                           int64_t nb, int64_t m, int64_t k, int64_t n, enum variant v)
{
    gv_case c = gv_test_case(op, t, mode, dist, (gv_shape){4, {nb, m, k, n}}, 3);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *y = gv_test_alloc(nb * m * n);
    bool f32 = t == GV_F32 || v == V_IN_F32 || v == V_TF32;
    const double *a = p.in[0].ref, *b = p.in[1].ref;
    for (int64_t q = 0; q < nb; q++) {
        int64_t qb = v == V_STRIDE && q > 0 ? q - 1 : q;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                if (f32) {
                    float s = 0;
                    for (int64_t l = 0; l < k; l++) {
                        float x = (float)a_at(a, trans, m, k, q, i, l);
                        float w = (float)b_at(b, trans, k, n, qb, l, j);
                        if (v == V_TF32) x = to_tf32(x), w = to_tf32(w);
                        s = fmaf(x, w, s);
                    }
                    y[(q * m + i) * n + j] = s;
                } else {
                    double s = 0;
                    for (int64_t l = 0; l < k; l++)
                        s = fma(a_at(a, trans, m, k, q, i, l), b_at(b, trans, k, n, qb, l, j), s);
                    y[(q * m + i) * n + j] = s;
                }
            }
    }
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s %s %lldx%lldx%lldx%lld variant %d: %s ratio %.3g R %.3g %s", op,
                gv_dtype_name(t), gv_mode_name(mode), gv_dist_name(dist), (long long)nb,
                (long long)m, (long long)k, (long long)n, (int)v, gv_verdict_name(r.verdict),
                r.m.ratio, r.m.prob_max, r.reason);
    return r;
}

static const char *const ops[] = {"gemm.batched", "gemm.batched.tn", "gemm.batched.nt"};
static const int transes[] = {0, 1, 2};

Test(gemm_batched_model, registered_with_dims_modes_and_planted_bug)
{
    const char *in_dims[] = {"b,m,k;b,k,n", "b,m,k;b,k,n", "b,m,k;b,n,k"};
    in_dims[1] = "b,k,m;b,k,n";
    for (int i = 0; i < 3; i++) {
        const gv_op *op = gv_op_find(ops[i]);
        cr_assert_not_null(op, "%s", ops[i]);
        cr_expect_str_eq(op->family, "gemm");
        cr_expect_str_eq(op->dims, "b,m,k,n");
        cr_expect_str_eq(op->in_dims, in_dims[i]);
        cr_expect_str_eq(op->out_dims, "b,m,n");
        cr_expect_null(op->planted_bug);
        cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE) && gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
        cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_TF32));
        cr_expect_not(gv_mode_ok(op, GV_F64, GV_MODE_TF32));
        cr_expect_not_null(op->pgauge);
        /* gemm's depth per batch element: k, tf32 4 + k / 2^13 */
        gv_case c = gv_test_case(ops[i], GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                                 (gv_shape){4, {7, 10, 8192, 12}}, 0);
        cr_expect_float_eq(op->depth(&c), 8192.0, 0);
        c.mode = GV_MODE_TF32;
        cr_expect_float_eq(op->depth(&c), 5.0, 0);
        cr_expect_float_eq(op->flops(&c), 7.0 * 2 * 10 * 8192 * 12, 0);
        char why[128];
        cr_expect_eq(op->check_shape(&(gv_shape){3, {10, 10, 10}}, why, sizeof why), GV_EINVAL);
    }
    const gv_op *bug = gv_op_find("gemm.batched.stride");
    cr_assert_not_null(bug);
    cr_expect_not_null(bug->planted_bug);
    gv_shape s[8];
    char err[128];
    int ns = gv_size_spec_parse(bug->test_shapes, s, 8, err, sizeof err);
    cr_assert_gt(ns, 0, "%s", err);
    for (int i = 0; i < ns; i++)
        cr_expect_geq(s[i].d[0], 2, "the stride bug shows from the second batch on");
}

Test(gemm_batched_model, correct_arithmetic_passes_every_transpose, .timeout = 240)
{
    const int64_t shapes[][4] = {{1, 1, 1, 1}, {3, 17, 33, 9}, {2, 64, 257, 31}};
    const gv_dist dists[] = {GV_DIST_UNIFORM01, GV_DIST_UNIFORM11, GV_DIST_SMALLINT};
    for (int o = 0; o < 3; o++)
        for (size_t sh = 0; sh < 3; sh++)
            for (size_t d = 0; d < 3; d++)
                for (int t = 0; t < 2; t++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    const int64_t *s = shapes[sh];
                    gv_result r = judge_sim(ops[o], transes[o], dt, GV_MODE_NATIVE, dists[d], s[0],
                                            s[1], s[2], s[3], V_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %s %lldx%lldx%lldx%lld: %s", ops[o],
                                 gv_dtype_name(dt), gv_dist_name(dists[d]), (long long)s[0],
                                 (long long)s[1], (long long)s[2], (long long)s[3], r.reason);
                }
}

/* A transposed operand read as if it were not is another product: judged under .tn, the NN
   arithmetic FAILs (and the other way round) */
Test(gemm_batched_model, wrong_transpose_fails)
{
    gv_result r = judge_sim("gemm.batched.tn", 0, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, 2, 16,
                            16, 16, V_OK);
    cr_expect_eq(r.verdict, GV_FAIL, "NN arithmetic under .tn: %s", r.reason);
    r = judge_sim("gemm.batched.nt", 1, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, 2, 16, 16, 16,
                  V_OK);
    cr_expect_eq(r.verdict, GV_FAIL, "TN arithmetic under .nt: %s", r.reason);
}

Test(gemm_batched_model, planted_stride_fails)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r = judge_sim("gemm.batched.stride", 0, dt, GV_MODE_NATIVE, GV_DIST_UNIFORM01, 3,
                                64, 64, 64, V_STRIDE);
        cr_expect_eq(r.verdict, GV_FAIL, "%s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_gt(r.m.ratio, 1e3, "ratio %.3g", r.m.ratio);
    }
}

/* TF32 inputs: within the tf32 label's model, past the native one (the probabilistic model,
   at k = 1024 on zero-mean inputs); f32 arithmetic past the f64 model. */
Test(gemm_batched_model, reduced_precision_under_a_wider_label_fails)
{
    gv_result ok = judge_sim("gemm.batched", 0, GV_F32, GV_MODE_TF32, GV_DIST_UNIFORM11, 2, 32,
                             1024, 32, V_TF32);
    cr_expect_eq(ok.verdict, GV_PASS, "tf32 under tf32: %s", ok.reason);
    gv_result bad = judge_sim("gemm.batched", 0, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, 2, 32,
                              1024, 32, V_TF32);
    cr_expect_eq(bad.verdict, GV_FAIL, "tf32 under native: %s", bad.reason);
    gv_result f32 = judge_sim("gemm.batched.nt", 2, GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01, 2,
                              32, 64, 32, V_IN_F32);
    cr_expect_eq(f32.verdict, GV_FAIL, "f32 under f64: %s", f32.reason);
}
