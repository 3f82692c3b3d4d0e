/* test_compare_model.c: src/core/metrics.c's NaN/Inf positions, poison (never-written outputs),
 * the error model's ratio and the merging of several outputs' metrics. Numbers derived as in
 * test_compare.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/metrics.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

static float f32_from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static double f64_from_bits(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* ---- NaN and Inf positions ----------------------------------------------------------------- */

Test(nonfinite, nan_where_oracle_has_nan_passes)
{
    double r[2] = {NAN, 1.0};
    double c[2] = {NAN, 1.0};
    gv_metrics m;
    gv_test_cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 0);
    cr_expect_eq(m.first_nonfinite_index, -1);
    cr_expect(gv_tier_met(&m, 0));
    /* f32 storage with a canonical quiet NaN */
    float c32[2] = {f32_from_bits(0x7FC00000u), 1.0f};
    gv_test_cmp32(c32, r, 2, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.nonfinite_mismatches, 0);
    cr_expect_eq(m.poisoned, 0);
}

Test(nonfinite, nan_where_oracle_is_finite_fails)
{
    double r[3] = {1.0, 2.0, 3.0};
    double c[3] = {1.0, NAN, NAN};
    gv_metrics m;
    gv_test_cmp64(c, r, 3, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 2);
    cr_expect_eq(m.first_nonfinite_index, 1);
    cr_expect_not(gv_tier_met(&m, 0));
    cr_expect_not(gv_tier_met(&m, 1));
    cr_expect_eq(m.max_abs, 0.0, "NaN pairs stay out of the finite metrics");
    float c32[3] = {1.0f, 2.0f, f32_from_bits(0x7FC00000u)};
    gv_test_cmp32(c32, r, 3, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1);
    cr_expect_eq(m.first_nonfinite_index, 2);
    cr_expect_eq(m.poisoned, 0, "a computed NaN is not poison");
}

Test(nonfinite, finite_where_oracle_has_nan_fails)
{
    double r[2] = {NAN, 1.0};
    double c[2] = {0.0, 1.0};
    gv_metrics m;
    gv_test_cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1);
    cr_expect_eq(m.first_nonfinite_index, 0);
    cr_expect_not(gv_tier_met(&m, 1));
}

Test(nonfinite, infinities_must_match_in_sign)
{
    double r[4] = {INFINITY, -INFINITY, INFINITY, 5.0};
    double same[4] = {INFINITY, -INFINITY, INFINITY, 5.0};
    gv_metrics m;
    gv_test_cmp64(same, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 0, "the same infinity passes");
    cr_expect(gv_tier_met(&m, 0));

    double flipped[4] = {INFINITY, INFINITY, INFINITY, 5.0};
    gv_test_cmp64(flipped, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1, "+Inf where the oracle has -Inf fails");
    cr_expect_eq(m.first_nonfinite_index, 1);

    double finite_for_inf[4] = {1e308, -INFINITY, INFINITY, 5.0};
    gv_test_cmp64(finite_for_inf, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1, "finite where the oracle has Inf fails");
    cr_expect_eq(m.first_nonfinite_index, 0);

    double inf_for_finite[4] = {INFINITY, -INFINITY, INFINITY, INFINITY};
    gv_test_cmp64(inf_for_finite, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1, "Inf where the oracle is finite fails");
    cr_expect_eq(m.first_nonfinite_index, 3);

    double nan_for_inf[4] = {NAN, -INFINITY, INFINITY, 5.0};
    gv_test_cmp64(nan_for_inf, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1, "NaN where the oracle has Inf fails");

    /* f32 storage: the f32 infinity widens to the f64 one */
    float c32[2] = {-INFINITY, INFINITY};
    double r32[2] = {-INFINITY, -INFINITY};
    gv_test_cmp32(c32, r32, 2, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1);
    cr_expect_eq(m.first_nonfinite_index, 1);
}

/* ---- poison: all bytes 0xFF means "never written" ------------------------------------------ */

Test(poison, all_ones_f32_is_poison)
{
    float c[5] = {1, 2, 3, 4, 5};
    double r[5] = {1, 2, 3, 4, 5};
    memset(&c[2], 0xFF, sizeof c[2]);
    memset(&c[4], 0xFF, sizeof c[4]);
    gv_metrics m;
    gv_test_cmp32(c, r, 5, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.poisoned, 2);
    cr_expect_eq(m.first_poisoned_index, 2);
    cr_expect_eq(m.nonfinite_mismatches, 0, "poison is its own kind, not a NaN mismatch");
    cr_expect_not(gv_tier_met(&m, 1));
    bool is_poison;
    cr_expect(isnan(gv_load(c, GV_F32, 2, &is_poison)));
    cr_expect(is_poison);
    gv_load(c, GV_F32, 1, &is_poison);
    cr_expect_not(is_poison);
}

Test(poison, all_ones_f64_is_poison_even_where_oracle_has_nan)
{
    double c[4] = {1, 2, 3, 4};
    double r[4] = {1, NAN, 3, 4};
    memset(&c[1], 0xFF, sizeof c[1]);
    gv_metrics m;
    gv_test_cmp64(c, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.poisoned, 1, "an unwritten element never counts as the oracle's NaN");
    cr_expect_eq(m.first_poisoned_index, 1);
    cr_expect_not(gv_tier_met(&m, 0));
}

Test(poison, computed_canonical_nan_is_not_poison)
{
    /* 0x7FC00000 and 0x7FF8000000000000 are the NaNs arithmetic produces; only the all-ones
       pattern the device layer writes before a launch means "unwritten" */
    float c32 = f32_from_bits(0x7FC00000u);
    double c64 = f64_from_bits(0x7FF8000000000000ull);
    double r = NAN;
    gv_metrics m;
    gv_test_cmp32(&c32, &r, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.poisoned, 0);
    cr_expect_eq(m.first_poisoned_index, -1);
    cr_expect(gv_tier_met(&m, 0));
    gv_test_cmp64(&c64, &r, 1, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.poisoned, 0);
    cr_expect(gv_tier_met(&m, 0));
    /* a negative NaN that is not all ones (0xFFFFFFFE) is a NaN, not poison */
    float almost = f32_from_bits(0xFFFFFFFEu);
    double one = 1.0;
    gv_test_cmp32(&almost, &one, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.poisoned, 0);
    cr_expect_eq(m.nonfinite_mismatches, 1);
}

/* ---- the error model ---------------------------------------------------------------------- */

Test(error_model, ratio_with_gauge_depth_and_u)
{
    /* err 2^-52 at element 0 (gauge 4), err 2^-51 at element 1 (gauge 64), depth 2,
       u = 2^-53: ratios 2^-52 / (2^-53 * 4 * 2) = 1/4 and 2^-51 / (2^-53 * 64 * 2) = 1/32 */
    double r[2] = {1.0, 2.0};
    double c[2] = {1.0 + 0x1p-52, 2.0 + 0x1p-51};
    double g[2] = {4.0, 64.0};
    gv_error_model em = {.gauge = g, .depth = 2.0, .u = 0x1p-53};
    gv_metrics m;
    gv_test_cmp64(c, r, 2, &gv_default_tiers, &em, &m);
    cr_expect_eq(m.ratio, 0.25);
}

Test(error_model, null_gauge_means_abs_reference)
{
    /* g = |r|: 2^-52 / (2^-53 * 1 * 2) = 1 and 2^-51 / (2^-53 * 2 * 2) = 1/2 */
    double r[2] = {-1.0, 2.0};
    double c[2] = {-1.0 - 0x1p-52, 2.0 + 0x1p-51};
    gv_error_model em = {.gauge = NULL, .depth = 2.0, .u = 0x1p-53};
    gv_metrics m;
    gv_test_cmp64(c, r, 2, &gv_default_tiers, &em, &m);
    cr_expect_eq(m.ratio, 1.0);
}

Test(error_model, zero_gauge_with_error_is_infinite)
{
    double r[2] = {0.0, 1.0};
    double c[2] = {0x1p-60, 1.0};
    double g[2] = {0.0, 1.0};
    gv_error_model em = {.gauge = g, .depth = 1.0, .u = 0x1p-53};
    gv_metrics m;
    gv_test_cmp64(c, r, 2, &gv_default_tiers, &em, &m);
    cr_expect(isinf(m.ratio) && m.ratio > 0, "an error where the model allows none: ratio %g",
              m.ratio);
    cr_expect_not(m.ratio <= GV_DEFAULT_RATIO_BOUND, "an infinite ratio can never pass");
    /* without error a zero gauge is fine */
    double exact[2] = {0.0, 1.0};
    gv_test_cmp64(exact, r, 2, &gv_default_tiers, &em, &m);
    cr_expect_eq(m.ratio, 0.0);
    /* NULL gauge with r = 0 and an error: g = |r| = 0, infinite too */
    gv_error_model em_abs = {.gauge = NULL, .depth = 1.0, .u = 0x1p-53};
    gv_test_cmp64(c, r, 2, &gv_default_tiers, &em_abs, &m);
    cr_expect(isinf(m.ratio));
}

Test(error_model, f32_ratio)
{
    /* f32: c = 1 + 2^-22 against 1 with g = 1, d = 1, u = 2^-24: ratio 4 */
    float c = 1.0f + 0x1p-22f;
    double r = 1.0, g = 1.0;
    gv_error_model em = {.gauge = &g, .depth = 1.0, .u = 0x1p-24};
    gv_metrics m;
    gv_test_cmp32(&c, &r, 1, &gv_default_tiers, &em, 24, &m);
    cr_expect_eq(m.ratio, 4.0);
}

/* ---- merging the metrics of several outputs ------------------------------------------------ */

Test(merge, two_outputs_fold_into_one)
{
    /* output a: 3 elements, one off by 2^-20 at index 0; output b: 3 elements, one off by
       2^-10 (index 1 -> 3 + 1 = 4 in the merged numbering), one NaN for a finite r at 0 */
    double ra[3] = {1.0, 1.0, 1.0}, ca[3] = {1.0 + 0x1p-20, 1.0, 1.0};
    double rb[3] = {2.0, 2.0, 2.0}, cb[3] = {NAN, 2.0 + 0x1p-10, 2.0};
    double g[3] = {1.0, 1.0, 1.0};
    gv_error_model em = {.gauge = g, .depth = 1.0, .u = 0x1p-53};
    gv_metrics a, b;
    gv_test_cmp64(ca, ra, 3, &gv_test_pow2_tiers, &em, &a);
    gv_test_cmp64(cb, rb, 3, &gv_test_pow2_tiers, &em, &b);
    cr_expect_eq(b.first_nonfinite_index, 0);
    cr_expect_eq(b.worst_index, 1);
    double ratio_b = b.ratio;
    gv_metrics_merge(&a, &b, gv_test_pow2_tiers.n);
    cr_expect_eq(a.n, 6);
    cr_expect_eq(a.max_abs, 0x1p-10);
    cr_expect_eq(a.max_rel, 0x1p-11);
    cr_expect_eq(a.ratio, ratio_b);
    cr_expect_eq(a.ratio, 0x1p-10 / 0x1p-53);
    /* tier 2^-26: 2^-20 > 2^-25 and 2^-10 > 3 * 2^-26: 2; tier 2^-13: only 2^-10 > 3 * 2^-13 */
    cr_expect_eq(a.mismatches[0], 2);
    cr_expect_eq(a.mismatches[1], 1);
    cr_expect_eq(a.nonfinite_mismatches, 1);
    cr_expect_eq(a.first_nonfinite_index, 3);
    cr_expect_eq(a.worst_index, 4);
    cr_expect_eq(a.worst_value, 2.0 + 0x1p-10);
    cr_expect_eq(a.worst_ref, 2.0);
    /* normwise over both: sqrt(2^-40 + 2^-20) / sqrt(3 * 1 + 2 * 4) (b's NaN pair is out) */
    double normwise = sqrt(0x1p-40 + 0x1p-20) / sqrt(11.0);
    cr_expect_float_eq(a.normwise_rel, normwise, 1e-15 * normwise);
}

Test(merge, poison_index_is_offset_and_first_kept)
{
    double r[2] = {1.0, 1.0};
    double ca[2] = {1.0, 1.0}, cb[2] = {1.0, 1.0}, cc[2] = {1.0, 1.0};
    memset(&cb[1], 0xFF, sizeof cb[1]);
    memset(&cc[0], 0xFF, sizeof cc[0]);
    gv_metrics a, b, c;
    gv_test_cmp64(ca, r, 2, &gv_default_tiers, NULL, &a);
    gv_test_cmp64(cb, r, 2, &gv_default_tiers, NULL, &b);
    gv_test_cmp64(cc, r, 2, &gv_default_tiers, NULL, &c);
    gv_metrics_merge(&a, &b, 2);
    gv_metrics_merge(&a, &c, 2);
    cr_expect_eq(a.poisoned, 2);
    cr_expect_eq(a.first_poisoned_index, 3, "b's index 1 after a's 2 elements");
    cr_expect_eq(a.n, 6);
}
