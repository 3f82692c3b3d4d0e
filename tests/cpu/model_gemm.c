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

/* ---- the range of the converted operands (op.h, mode_reference) ---------------------------
   A tensor-core mode converts its f32 operands first: an operand above the format's largest
   finite becomes inf, one below its least subnormal zero (0x1p-140 in TF32 and bf16: inf 0 is
   then NaN), and f16's range ends at 65504. The CPU emulates each mode the way the device runs
   it (each operand rounded to nearest even on its f32 bits, or to f16, then exact products
   summed in f32, in order) and the outputs are judged under the right and a wrong label. */

#include <float.h>

#include "testkit.h"

/* f32 x rounded to nearest even keeping `keep` of its 23 fraction bits, on its bits: a carry
   out of the top binade gives the infinity's bits (0x7f800000), as IEEE rounding does, and
   the subnormals round on the format's own grid (2^-149 2^(23 - keep)). */
static float round_f32_bits(float x, int keep)
{
    if (isnan(x)) return x;
    uint32_t u;
    memcpy(&u, &x, 4);
    int drop = 23 - keep;
    uint32_t half = 1u << (drop - 1), lsb = (u >> drop) & 1u;
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + half - 1 + lsb) & ~((1u << drop) - 1);
    memcpy(&x, &u, 4);
    return x;
}

typedef enum { EMU_TF32, EMU_BF16, EMU_F16 } emu_mode;

static float emu_convert(float x, emu_mode e)
{
    switch (e) {
    case EMU_TF32: return round_f32_bits(x, 10);
    case EMU_BF16: return round_f32_bits(x, 7);
    default: return (float)(_Float16)x; /* to nearest even, inf past 65504 (GCC's conversion) */
    }
}

/* C = A B as mode e computes it: operands converted, products exact, summed in f32 in order. */
static void emu_gemm(const gv_problem *p, emu_mode e, double *y)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    const float *a = p->in[0].data, *b = p->in[1].data;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float s = 0.0f;
            for (int64_t l = 0; l < k; l++)
                s += emu_convert(a[i * k + l], e) * emu_convert(b[l * n + j], e);
            y[i * n + j] = s;
        }
}

/* The verdict of gemm.cublas under label `mode` for outputs emulated as e; *misplaced: the
   outputs whose NaN/Inf class differs from the oracle's plain reference (what the judge saw
   before the converted operands were modelled). */
static gv_result judge_emulated(gv_mode mode, emu_mode e, gv_dist dist, gv_shape s, uint64_t seed,
                                int64_t *misplaced)
{
    gv_case c = gv_test_case("gemm.cublas", GV_F32, mode, dist, s, seed);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *y = malloc(sizeof *y * (size_t)p.out[0].count);
    cr_assert_not_null(y);
    emu_gemm(&p, e, y);
    *misplaced = 0;
    for (int64_t i = 0; i < p.out[0].count; i++) {
        double r = gv_dtype_round(GV_F32, p.out[0].ref[i]);
        *misplaced +=
            isfinite(r) != isfinite(y[i]) || isnan(r) != isnan(y[i]) || (isinf(r) && r != y[i]);
    }
    gv_test_store(&p, 0, y);
    gv_result r = gv_test_judge(&p);
    free(y);
    gv_problem_free(&p);
    return r;
}

/* Each mode's own arithmetic PASSes under its label on the edge data, where the operands'
   conversion moves NaN and Inf: tf32 and bf16 on special (0x1p-140 becomes 0 and meets an
   inf), f16 on huge (every operand past 65504). Without the converted operands' reference
   these outputs were "NaN/Inf not where the oracle has them": the test counts them. */
Test(gemm_range, each_mode_passes_its_label_on_special_and_huge, .timeout = 120)
{
    const struct {
        gv_mode mode;
        emu_mode e;
    } modes[] = {{GV_MODE_TF32, EMU_TF32}, {GV_MODE_BF16, EMU_BF16}, {GV_MODE_F16, EMU_F16}};
    /* special at k = 256 makes nearly every output NaN (a NaN or opposite infinities in
       most rows): the gemm test shapes with short k (37, 5) keep finite outputs to judge */
    const struct {
        gv_dist dist;
        gv_shape shape;
    } cases[] = {{GV_DIST_SPECIAL, {3, {100, 37, 129}}},
                 {GV_DIST_SPECIAL, {3, {129, 5, 33}}},
                 {GV_DIST_HUGE, {3, {64, 256, 64}}}};
    const uint64_t seeds[] = {0, 81};
    int64_t moved_special = 0, moved_huge_f16 = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t d = 0; d < 3; d++)
            for (size_t s = 0; s < 2; s++) {
                int64_t misplaced;
                gv_dist dist = cases[d].dist;
                gv_result r = judge_emulated(modes[a].mode, modes[a].e, dist, cases[d].shape,
                                             seeds[s], &misplaced);
                cr_expect_eq(r.verdict, GV_PASS, "%s on %s, seed %llu (%lld outputs moved): %s",
                             gv_mode_name(modes[a].mode), gv_dist_name(dist),
                             (unsigned long long)seeds[s], (long long)misplaced, r.reason);
                cr_log_info("%s on %s %lldx%lldx%lld seed %llu: %lld outputs moved, %s",
                            gv_mode_name(modes[a].mode), gv_dist_name(dist),
                            (long long)cases[d].shape.d[0], (long long)cases[d].shape.d[1],
                            (long long)cases[d].shape.d[2], (unsigned long long)seeds[s],
                            (long long)misplaced, gv_verdict_name(r.verdict));
                if (dist == GV_DIST_SPECIAL && modes[a].mode != GV_MODE_F16)
                    moved_special += misplaced;
                if (dist == GV_DIST_HUGE && modes[a].mode == GV_MODE_F16)
                    moved_huge_f16 += misplaced;
            }
    cr_expect_gt(moved_special, 0, "the conversion moves NaN/Inf on special data");
    cr_expect_gt(moved_huge_f16, 0, "f16 overflows on huge data");
}

/* The converted operands' reference is the claimed mode's, not any mode's: bf16 operands under
   the tf32 label and f16 operands under the bf16 label FAIL on the same data. */
Test(gemm_range, a_wrong_label_still_fails, .timeout = 120)
{
    const struct {
        gv_mode label;
        emu_mode e;
        gv_dist dist;
    } wrong[] = {{GV_MODE_TF32, EMU_BF16, GV_DIST_SPECIAL},
                 {GV_MODE_TF32, EMU_BF16, GV_DIST_HUGE},
                 {GV_MODE_BF16, EMU_F16, GV_DIST_SPECIAL},
                 {GV_MODE_BF16, EMU_F16, GV_DIST_HUGE},
                 {GV_MODE_TF32, EMU_F16, GV_DIST_HUGE}};
    for (size_t w = 0; w < sizeof wrong / sizeof wrong[0]; w++)
        for (uint64_t seed = 0; seed <= 81; seed += 81) {
            int64_t misplaced;
            gv_shape s = wrong[w].dist == GV_DIST_HUGE ? (gv_shape){3, {64, 256, 64}}
                                                       : (gv_shape){3, {100, 37, 129}};
            gv_result r =
                judge_emulated(wrong[w].label, wrong[w].e, wrong[w].dist, s, seed, &misplaced);
            cr_expect_eq(r.verdict, GV_FAIL, "emulation %d under %s on %s, seed %llu: %s",
                         (int)wrong[w].e, gv_mode_name(wrong[w].label), gv_dist_name(wrong[w].dist),
                         (unsigned long long)seed, r.reason);
        }
}

/* The hook itself: on operands made by hand, gemm's mode_reference rewrites exactly the
   outputs whose operands the conversion changes in kind, to what IEEE arithmetic gives on the
   converted operands; fp8 saturates an infinity to 448 (times the descale) instead. */
Test(gemm_range, mode_reference_rewrites_only_the_converted_outputs)
{
    const gv_op *op = gv_op_find("gemm.cublas");
    cr_assert_not_null(op);
    cr_assert_not_null(op->mode_reference);
    gv_shape s = {3, {2, 2, 2}};
    gv_case c = gv_test_case("gemm.cublas", GV_F32, GV_MODE_TF32, GV_DIST_UNIFORM01, s, 0);
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    /* A = [FLT_MAX 1; 1 1]: FLT_MAX rounds to inf in TF32 (its 24 bits are all ones). B = [1
       1; 0x1p-140 1]: 0x1p-140 is below TF32's least subnormal 2^-136 / 2 and becomes 0. */
    const double a[4] = {FLT_MAX, 1.0, 1.0, 1.0}, b[4] = {1.0, 1.0, 0x1p-140, 1.0};
    for (int i = 0; i < 4; i++) {
        p.in[0].ref[i] = a[i];
        p.in[1].ref[i] = b[i];
        gv_dtype_store(GV_F32, p.in[0].data, i, a[i]);
        gv_dtype_store(GV_F32, p.in[1].data, i, b[i]);
    }
    cr_assert_eq(go_gemm(2, 2, 2, a, 2, b, 2, p.out[0].ref, 2), 0);
    double ref[4];
    memcpy(ref, p.out[0].ref, sizeof ref);
    int64_t patched = -1;
    cr_assert_eq(op->mode_reference(&p, ref, &patched), GV_OK);
    /* row 0 holds an operand that became inf: both its outputs are inf (FLT_MAX 1 + 1 and
       FLT_MAX 1 + 1, no zero met); row 1 is untouched, finite and as the oracle had it */
    cr_expect(isinf(ref[0]) && ref[0] > 0, "C00 = inf 1 + 1 0 = inf: %g", ref[0]);
    cr_expect(isinf(ref[1]) && ref[1] > 0, "C01: %g", ref[1]);
    cr_expect_eq(ref[2], p.out[0].ref[2], "C10 keeps the oracle's %g", ref[2]);
    cr_expect_eq(ref[3], p.out[0].ref[3]);
    cr_expect_eq(patched, 2);
    /* A = [1 inf; 1 1]: the infinity is A's own, and it meets B10 = 0x1p-140, which the
       conversion makes zero: plainly C00 = 1 + inf 2^-140 = inf, converted 1 + inf 0 = NaN */
    const double a2[4] = {1.0, INFINITY, 1.0, 1.0};
    for (int i = 0; i < 4; i++) {
        p.in[0].ref[i] = a2[i];
        gv_dtype_store(GV_F32, p.in[0].data, i, a2[i]);
    }
    cr_assert_eq(go_gemm(2, 2, 2, a2, 2, b, 2, p.out[0].ref, 2), 0);
    cr_expect(isinf(p.out[0].ref[0]), "plainly: 1 1 + inf 2^-140 = inf");
    memcpy(ref, p.out[0].ref, sizeof ref);
    cr_assert_eq(op->mode_reference(&p, ref, &patched), GV_OK);
    cr_expect(isnan(ref[0]), "converted: 1 1 + inf 0 = NaN, got %g", ref[0]);
    cr_expect(isinf(ref[1]), "C01 = 1 1 + inf 1 = inf: %g", ref[1]);
    cr_expect_eq(ref[2], p.out[0].ref[2]);
    cr_expect_eq(patched, 1, "only C00 changes kind");
    /* fp8: an inf among A makes its amax inf, so no scaling (s = 1), and e4m3 saturates it */
    p.c.mode = GV_MODE_FP8;
    memcpy(ref, p.out[0].ref, sizeof ref);
    cr_assert_eq(op->mode_reference(&p, ref, &patched), GV_OK);
    /* B is scaled by 448 and descaled by fl(1/448): its ones come back within 2^-20 */
    cr_expect(fabs(ref[1] - 449.0) < 1e-3, "C01 = 1 1 + 448 1 under satfinite: %.9g", ref[1]);
    cr_expect(isfinite(ref[0]) && isfinite(ref[2]), "no infinity is left in fp8");
    /* a mode without a conversion rewrites nothing */
    p.c.mode = GV_MODE_NATIVE;
    memcpy(ref, p.out[0].ref, sizeof ref);
    cr_assert_eq(op->mode_reference(&p, ref, &patched), GV_OK);
    cr_expect_eq(patched, 0);
    gv_problem_free(&p);
}
