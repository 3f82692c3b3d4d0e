/* test_modes.c: precision-mode evidence the registry sweep cannot give by itself. TF32 must
 * miss the 1e-4 tier on inputs TF32 cannot hold (k + 0.5 for k in [1024, 2048) needs 12
 * significant bits, TF32 keeps 11) and on cancelling [-1, 1) inputs, while native f32
 * meets it on the very same inputs; special values must land where the oracle puts them. */
#include <criterion/criterion.h>

#include "registry.h"
#include "run.h"

static gv_result run(const char *op, gv_dtype t, gv_mode m, gv_dist d, int64_t a, int64_t b,
                     int64_t c)
{
    gv_case cs = {gv_op_find(op), t, m, d, {3, {a, b, c}}, 11};
    if (b == 0) cs.shape.nd = 1;
    cr_assert_not_null(cs.op, "op %s is registered", op);
    gv_result r;
    cr_assert_eq(gv_run_case(&cs, &gv_default_tiers, &r), GV_OK);
    cr_log_info("%s %s %s %s: %s normwise %.3g max_rel %.3g ratio %.3g 1e-4 %s (%s)", op,
                gv_dtype_name(t), gv_mode_name(m), gv_dist_name(d), gv_verdict_name(r.verdict),
                r.m.normwise_rel, r.m.max_rel, r.m.ratio, gv_tier_met(&r.m, 1) ? "met" : "missed",
                r.reason);
    return r;
}

Test(gpu_modes, tf32_misses_1e4_on_offgrid_values, .timeout = 120)
{
    gv_result native = run("gemm.cublas", GV_F32, GV_MODE_NATIVE, GV_DIST_OFFGRID, 256, 256, 256);
    gv_result tf32 = run("gemm.cublas", GV_F32, GV_MODE_TF32, GV_DIST_OFFGRID, 256, 256, 256);
    cr_expect_eq(native.verdict, GV_PASS, "native f32 on offgrid inputs: %s", native.reason);
    cr_expect(gv_tier_met(&native.m, 1), "native f32 meets 1e-4 on offgrid inputs");
    cr_expect_not(gv_tier_met(&tf32.m, 1), "tf32 must miss 1e-4 on offgrid inputs (max_rel %.3g)",
                  tf32.m.max_rel);
    cr_expect_eq(tf32.verdict, GV_PASS, "tf32 within its own error model: %s", tf32.reason);
}

Test(gpu_modes, tf32_misses_1e4_under_cancellation, .timeout = 120)
{
    gv_result native =
        run("gemm.cublas", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, 512, 4096, 512);
    gv_result tf32 = run("gemm.cublas", GV_F32, GV_MODE_TF32, GV_DIST_UNIFORM11, 512, 4096, 512);
    cr_expect(gv_tier_met(&native.m, 1), "native f32 meets 1e-4 under cancellation");
    cr_expect_not(gv_tier_met(&tf32.m, 1), "tf32 must miss 1e-4 under cancellation (max_rel %.3g)",
                  tf32.m.max_rel);
}

Test(gpu_modes, tf32_claimed_as_native_fails_the_probabilistic_model, .timeout = 300)
{
    /* the planted variant runs TF32 tensor-op math under a pedantic label: on zero-mean inputs
       the probabilistic model must fail it at every depth, while the genuine native path
       stays far inside the same model on the same inputs */
    const int64_t ks[] = {64, 1024, 4096, 16384};
    for (int i = 0; i < 4; i++) {
        gv_result fake = run("gemm.cublas.tf32native", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                             256, ks[i], 256);
        gv_result real =
            run("gemm.cublas", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, 256, ks[i], 256);
        cr_log_info("K=%lld: TF32 as native R max %.3g rms %.3g; native R max %.3g rms %.3g",
                    (long long)ks[i], fake.m.prob_max, fake.m.prob_rms, real.m.prob_max,
                    real.m.prob_rms);
        cr_expect_eq(fake.verdict, GV_FAIL, "K=%lld: TF32 passed off as f32 was %s (%s)",
                     (long long)ks[i], gv_verdict_name(fake.verdict), fake.reason);
        cr_expect_eq(real.verdict, GV_PASS, "K=%lld: native %s", (long long)ks[i], real.reason);
        cr_expect_leq(real.m.prob_max, GV_PROB_MAX_BOUND / 5, "K=%lld native max R %.3g",
                      (long long)ks[i], real.m.prob_max);
        cr_expect_leq(real.m.prob_rms, GV_PROB_RMS_BOUND / 5, "K=%lld native RMS R %.3g",
                      (long long)ks[i], real.m.prob_rms);
    }
}

Test(gpu_modes, special_values_land_where_the_oracle_has_them, .timeout = 120)
{
    gv_result f32 = run("vadd", GV_F32, GV_MODE_NATIVE, GV_DIST_SPECIAL, 100003, 0, 0);
    gv_result f64 = run("vadd", GV_F64, GV_MODE_NATIVE, GV_DIST_SPECIAL, 100003, 0, 0);
    cr_expect_eq(f32.verdict, GV_PASS, "f32: %s", f32.reason);
    cr_expect_eq(f64.verdict, GV_PASS, "f64: %s", f64.reason);
}
