/* test_compare.c: the tolerance oracle (src/compare.c) and the verdict rules of gv_judge
 * (src/run.c). Every expected number is derived in a comment from the definitions in
 * compare.h and DESIGN.md ("Compare"); boundary cases are built so that "exactly at the
 * tier" is exact in binary, so the test says which side of <= the oracle is on. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "run.h"

/* Power-of-two tiers: t(1 + |r|) is exact for the r used below, unlike 1e-8 and 1e-4. */
static const gv_tiers pow2_tiers = {2, {0x1p-26, 0x1p-13}};

static void cmp64(const double *c, const double *r, int64_t n, const gv_tiers *t,
                  const gv_error_model *em, gv_metrics *m)
{
    gv_compare(c, GV_F64, r, n, t, em, 53, m);
}

static void cmp32(const float *c, const double *r, int64_t n, const gv_tiers *t,
                  const gv_error_model *em, int bits, gv_metrics *m)
{
    gv_compare(c, GV_F32, r, n, t, em, bits, m);
}

/* Mismatches at tier k for the single pair (c, r). */
static int64_t miss64(double c, double r, const gv_tiers *t, int k)
{
    gv_metrics m;
    cmp64(&c, &r, 1, t, NULL, &m);
    return m.mismatches[k];
}

static int64_t miss32(float c, double r, const gv_tiers *t, int k)
{
    gv_metrics m;
    cmp32(&c, &r, 1, t, NULL, 24, &m);
    return m.mismatches[k];
}

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

/* ---- metrics ---------------------------------------------------------------------------- */

Test(compare, exact_match_has_zero_error_and_capped_bits)
{
    double r[3] = {1.5, -2.0, 0.0};
    gv_metrics m;
    cmp64(r, r, 3, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.n, 3);
    cr_expect_eq(m.max_abs, 0.0);
    cr_expect_eq(m.max_rel, 0.0);
    cr_expect_eq(m.normwise_rel, 0.0);
    cr_expect_eq(m.max_ulp, 0.0);
    cr_expect_eq(m.bits, 53.0, "no error: accurate bits are the precision (got %g)", m.bits);
    cr_expect_eq(m.mismatches[0], 0);
    cr_expect_eq(m.mismatches[1], 0);
    cr_expect_eq(m.poisoned, 0);
    cr_expect_eq(m.first_poisoned_index, -1);
    cr_expect_eq(m.first_nonfinite_index, -1);
    cr_expect(m.worst_index >= 0 && m.worst_index < 3);
    cr_expect(gv_tier_met(&m, 0) && gv_tier_met(&m, 1));
}

Test(compare, empty_input_has_no_worst_element)
{
    double r[1] = {0};
    gv_metrics m;
    cmp64(r, r, 0, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.n, 0);
    cr_expect_eq(m.worst_index, -1);
    cr_expect_eq(m.normwise_rel, 0.0);
    cr_expect(gv_tier_met(&m, 0));
}

Test(compare, known_metrics_f64)
{
    /* errors: 0, 2^-20 at r = -2, 0, 2^-30 at r = 0.5 */
    double r[4] = {1.0, -2.0, 4.0, 0.5};
    double c[4] = {1.0, -2.0 - 0x1p-20, 4.0, 0.5 + 0x1p-30};
    gv_metrics m;
    cmp64(c, r, 4, &pow2_tiers, NULL, &m);
    cr_expect_eq(m.max_abs, 0x1p-20);
    /* relative: 2^-20 / 2 = 2^-21 beats 2^-30 / 0.5 = 2^-29 */
    cr_expect_eq(m.max_rel, 0x1p-21);
    /* ||err||_2 = sqrt(2^-40 + 2^-60); ||r||_2 = sqrt(1 + 4 + 16 + 0.25) (both sums exact) */
    double normwise = sqrt(0x1p-40 + 0x1p-60) / sqrt(21.25);
    cr_expect_float_eq(m.normwise_rel, normwise, 1e-15 * normwise);
    cr_expect_float_eq(m.bits, -log2(normwise), 1e-12);
    /* ULPs at 53 bits: ulp(2) = 2^(1-52) = 2^-51 -> 2^-20 / 2^-51 = 2^31;
       ulp(0.5) = 2^-53 -> 2^-30 / 2^-53 = 2^23; the max is 2^31 */
    cr_expect_eq(m.max_ulp, 0x1p31);
    /* tier 2^-26: 2^-20 > 2^-26 (1 + 2) misses; 2^-30 <= 2^-26 (1.5) is met.
       tier 2^-13: both met */
    cr_expect_eq(m.mismatches[0], 1);
    cr_expect_eq(m.mismatches[1], 0);
    cr_expect_not(gv_tier_met(&m, 0));
    cr_expect(gv_tier_met(&m, 1));
    /* worst by |c - r| / (1 + |r|): 2^-20 / 3 beats 2^-30 / 1.5 */
    cr_expect_eq(m.worst_index, 1);
    cr_expect_eq(m.worst_value, -2.0 - 0x1p-20);
    cr_expect_eq(m.worst_ref, -2.0);
}

Test(compare, max_rel_skips_zero_reference)
{
    /* r = 0 has no relative error; the other pair's is 2^-10 / 4 = 2^-12 */
    double r[2] = {0.0, 4.0};
    double c[2] = {0x1p-5, 4.0 + 0x1p-10};
    gv_metrics m;
    cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.max_rel, 0x1p-12);
    cr_expect_eq(m.max_abs, 0x1p-5);
    /* worst: 2^-5 / 1 beats 2^-10 / 5 */
    cr_expect_eq(m.worst_index, 0);
}

Test(compare, worst_is_by_error_over_one_plus_abs_reference)
{
    /* 2^-4 off at r = 100 scales to 2^-4 / 101 ~ 6.2e-4; 2^-8 off at r = 0 to 2^-8 ~ 3.9e-3:
       the second is the worst though its absolute error is the smaller */
    double r[2] = {100.0, 0.0};
    double c[2] = {100.0 + 0x1p-4, 0x1p-8};
    gv_metrics m;
    cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.max_abs, 0x1p-4);
    cr_expect_eq(m.worst_index, 1);
    cr_expect_eq(m.worst_value, 0x1p-8);
    cr_expect_eq(m.worst_ref, 0.0);
}

Test(compare, max_ulp_at_f32_precision)
{
    /* ulp(1) at 24 bits is 2^-23: 3 ulps. Just below 2: r = 2 - 2^-23 has ulp 2^-23 too,
       c = 2 - 2^-22 is 2^-23 away: 1 ulp */
    double r[2] = {1.0, 2.0 - 0x1p-23};
    float c[2] = {1.0f + 3 * 0x1p-23f, 2.0f - 0x1p-22f};
    gv_metrics m;
    cmp32(c, r, 2, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.max_ulp, 3.0);
    cr_expect_eq(m.max_abs, 3 * 0x1p-23);
}

Test(compare, max_ulp_just_below_a_power_of_two)
{
    /* r = 1 - 2^-24 lies in [1/2, 1) where the 24-bit ulp is 2^-24: c = 1 is 1 ulp off,
       not the half ulp the spacing above 1 would suggest */
    double r = 1.0 - 0x1p-24;
    float c = 1.0f;
    gv_metrics m;
    cmp32(&c, &r, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.max_ulp, 1.0);
}

Test(compare, max_ulp_at_tf32_precision)
{
    /* TF32 keeps 11 significant bits: ulp(1) = 2^-10, so 1 + 2^-10 is 1 ulp and
       1 + 5 * 2^-10 is 5; ulp(8) = 2^-7, so 8 + 2^-6 is 2 */
    double r[3] = {1.0, 1.0, 8.0};
    float c[3] = {1.0f + 0x1p-10f, 1.0f + 5 * 0x1p-10f, 8.0f + 0x1p-6f};
    gv_metrics m;
    cmp32(c, r, 3, &gv_default_tiers, NULL, 11, &m);
    cr_expect_eq(m.max_ulp, 5.0);
    cmp32(c + 2, r + 2, 1, &gv_default_tiers, NULL, 11, &m);
    cr_expect_eq(m.max_ulp, 2.0);
    /* and the bits cap follows the precision: exact results report 11 */
    cmp32(c, (const double[]){1.0 + 0x1p-10}, 1, &gv_default_tiers, NULL, 11, &m);
    cr_expect_eq(m.bits, 11.0);
}

Test(compare, max_ulp_at_zero_uses_the_subnormal_spacing)
{
    /* below the normal range the spacing is that of the smallest binade: f32 2^-149,
       f64 2^-1074; one such step from r = 0 is 1 ulp */
    double r0 = 0.0;
    float c32 = 0x1p-149f;
    gv_metrics m;
    cmp32(&c32, &r0, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.max_ulp, 1.0);
    double c64 = 0x1p-1074;
    cmp64(&c64, &r0, 1, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.max_ulp, 1.0);
    /* a subnormal reference has the same spacing: r = 2^-140, c one step up, 1 ulp (not
       the 2^23 ulps that 24 bits below 2^-140 would count) */
    double rs = 0x1p-140;
    float cs = 0x1p-140f + 0x1p-149f;
    cmp32(&cs, &rs, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.max_ulp, 1.0);
    /* and in f64: r = 2^-1060, c = r + 2^-1074 */
    double rd = 0x1p-1060, cd = 0x1p-1060 + 0x1p-1074;
    cmp64(&cd, &rd, 1, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.max_ulp, 1.0);
}

Test(compare, accurate_bits_are_capped_at_the_precision)
{
    /* normwise = 2^-52 / sqrt(2^80 + 1) ~ 2^-92: -log2 is ~92, capped at 53 */
    double r[2] = {0x1p40, 1.0};
    double c[2] = {0x1p40, 1.0 + 0x1p-52};
    gv_metrics m;
    cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
    cr_expect_gt(m.normwise_rel, 0.0);
    cr_expect_eq(m.bits, 53.0);
    /* f32: 2^-23 / ~2^20 ~ 2^-43, capped at 24 */
    double r32[2] = {0x1p20, 1.0};
    float c32[2] = {0x1p20f, 1.0f + 0x1p-23f};
    cmp32(c32, r32, 2, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.bits, 24.0);
    /* and never below 0: normwise |5 - 1| / 1 = 4 -> -2 -> 0 */
    double one = 1.0, five = 5.0;
    cmp64(&five, &one, 1, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.normwise_rel, 4.0);
    cr_expect_eq(m.bits, 0.0);
}

Test(compare, accurate_bits_uncapped_value)
{
    /* r = (1, 1, 1, 1), one element off by 2^-20: normwise 2^-20 / 2 = 2^-21, 21 bits */
    double r[4] = {1, 1, 1, 1};
    double c[4] = {1, 1, 1 + 0x1p-20, 1};
    gv_metrics m;
    cmp64(c, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.normwise_rel, 0x1p-21);
    cr_expect_eq(m.bits, 21.0);
}

/* ---- tier boundaries: |c - r| <= t (1 + |r|) ---------------------------------------------- */

Test(tiers, default_tiers_f64_exactly_at_and_just_over_with_zero_reference)
{
    /* r = 0: the bound is t (1 + 0) = t, the double nearest 1e-8 (or 1e-4) itself, and
       |c - 0| = c exactly: c = t is exactly at the bound, nextafter(t) just over */
    const gv_tiers *T = &gv_default_tiers;
    cr_expect_eq(miss64(1e-8, 0.0, T, 0), 0, "exactly at 1e-8 is met");
    cr_expect_eq(miss64(-1e-8, 0.0, T, 0), 0, "exactly at -1e-8 is met");
    cr_expect_eq(miss64(nextafter(1e-8, 1.0), 0.0, T, 0), 1, "just over 1e-8 misses");
    cr_expect_eq(miss64(nextafter(-1e-8, -1.0), 0.0, T, 0), 1, "just under -1e-8 misses");
    cr_expect_eq(miss64(nextafter(1e-8, 1.0), 0.0, T, 1), 0, "... and still meets 1e-4");
    cr_expect_eq(miss64(1e-4, 0.0, T, 1), 0, "exactly at 1e-4 is met");
    cr_expect_eq(miss64(nextafter(1e-4, 1.0), 0.0, T, 1), 1, "just over 1e-4 misses");
    cr_expect_eq(miss64(-nextafter(1e-4, 1.0), 0.0, T, 1), 1, "just under -1e-4 misses");
}

Test(tiers, pow2_tiers_f64_nonzero_reference)
{
    /* r = 3: the bound is t * 4, i.e. 2^-24 (t = 2^-26) and 2^-11 (t = 2^-13), exact.
       3 + 2^-24 and 3 + 2^-11 are doubles (26 and 13 significant bits) and their difference
       with 3 is exact (Sterbenz). The next double up is 2^-51 further (ulp in [2, 4)). */
    const gv_tiers *T = &pow2_tiers;
    for (int sign = -1; sign <= 1; sign += 2) {
        double r = 3.0 * sign;
        double at0 = r + sign * 0x1p-24, at1 = r + sign * 0x1p-11;
        cr_expect_eq(miss64(at0, r, T, 0), 0, "r = %g: at 2^-24 met", r);
        cr_expect_eq(miss64(nextafter(at0, sign * INFINITY), r, T, 0), 1,
                     "r = %g: just over tier 0", r);
        cr_expect_eq(miss64(at1, r, T, 1), 0, "r = %g: at 2^-11 met", r);
        cr_expect_eq(miss64(nextafter(at1, sign * INFINITY), r, T, 1), 1,
                     "r = %g: just over tier 1", r);
        /* on the other side of r too */
        double below = r - sign * 0x1p-11;
        cr_expect_eq(miss64(below, r, T, 1), 0, "r = %g: at -2^-11 met", r);
        cr_expect_eq(miss64(nextafter(below, -sign * INFINITY), r, T, 1), 1,
                     "r = %g: just over on the other side", r);
    }
}

Test(tiers, pow2_tiers_f32_storage)
{
    const gv_tiers *T = &pow2_tiers;
    /* r = 0: the bound is t itself, a float; the next float up is t (1 + 2^-23) */
    cr_expect_eq(miss32(0x1p-26f, 0.0, T, 0), 0);
    cr_expect_eq(miss32(nextafterf(0x1p-26f, 1.0f), 0.0, T, 0), 1);
    cr_expect_eq(miss32(-0x1p-13f, 0.0, T, 1), 0);
    cr_expect_eq(miss32(nextafterf(-0x1p-13f, -1.0f), 0.0, T, 1), 1);
    /* r = 0.5: tier 2^-13 bounds 1.5 * 2^-13 = 3 * 2^-14, exact; 0.5 + 3 * 2^-14 is a float
       (14 significant bits); the next float is 2^-24 (ulp in [0.5, 1)) further */
    float at = 0.5f + 3 * 0x1p-14f;
    cr_expect_eq((double)at - 0.5, 3 * 0x1p-14, "construction is exact");
    cr_expect_eq(miss32(at, 0.5, T, 1), 0);
    cr_expect_eq(miss32(nextafterf(at, 1.0f), 0.5, T, 1), 1);
    /* below r: 0.5 - 3 * 2^-14 (ulp 2^-25 there) */
    float below = 0.5f - 3 * 0x1p-14f;
    cr_expect_eq(miss32(below, 0.5, T, 1), 0);
    cr_expect_eq(miss32(nextafterf(below, 0.0f), 0.5, T, 1), 1);
    /* tier 2^-26 at r = 0.5 bounds 3 * 2^-27 = 0.375 ulp: only the exact value meets it */
    cr_expect_eq(miss32(0.5f, 0.5, T, 0), 0);
    cr_expect_eq(miss32(nextafterf(0.5f, 1.0f), 0.5, T, 0), 1);
}

Test(tiers, tier_met_needs_no_mismatch_no_nonfinite_no_poison)
{
    gv_metrics m;
    memset(&m, 0, sizeof m);
    cr_expect(gv_tier_met(&m, 0));
    m.mismatches[1] = 1;
    cr_expect(gv_tier_met(&m, 0));
    cr_expect_not(gv_tier_met(&m, 1));
    m.mismatches[1] = 0;
    m.nonfinite_mismatches = 1;
    cr_expect_not(gv_tier_met(&m, 0));
    m.nonfinite_mismatches = 0;
    m.poisoned = 1;
    cr_expect_not(gv_tier_met(&m, 0));
}

/* ---- NaN and Inf positions ----------------------------------------------------------------- */

Test(nonfinite, nan_where_oracle_has_nan_passes)
{
    double r[2] = {NAN, 1.0};
    double c[2] = {NAN, 1.0};
    gv_metrics m;
    cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 0);
    cr_expect_eq(m.first_nonfinite_index, -1);
    cr_expect(gv_tier_met(&m, 0));
    /* f32 storage with a canonical quiet NaN */
    float c32[2] = {f32_from_bits(0x7FC00000u), 1.0f};
    cmp32(c32, r, 2, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.nonfinite_mismatches, 0);
    cr_expect_eq(m.poisoned, 0);
}

Test(nonfinite, nan_where_oracle_is_finite_fails)
{
    double r[3] = {1.0, 2.0, 3.0};
    double c[3] = {1.0, NAN, NAN};
    gv_metrics m;
    cmp64(c, r, 3, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 2);
    cr_expect_eq(m.first_nonfinite_index, 1);
    cr_expect_not(gv_tier_met(&m, 0));
    cr_expect_not(gv_tier_met(&m, 1));
    cr_expect_eq(m.max_abs, 0.0, "NaN pairs stay out of the finite metrics");
    float c32[3] = {1.0f, 2.0f, f32_from_bits(0x7FC00000u)};
    cmp32(c32, r, 3, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1);
    cr_expect_eq(m.first_nonfinite_index, 2);
    cr_expect_eq(m.poisoned, 0, "a computed NaN is not poison");
}

Test(nonfinite, finite_where_oracle_has_nan_fails)
{
    double r[2] = {NAN, 1.0};
    double c[2] = {0.0, 1.0};
    gv_metrics m;
    cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1);
    cr_expect_eq(m.first_nonfinite_index, 0);
    cr_expect_not(gv_tier_met(&m, 1));
}

Test(nonfinite, infinities_must_match_in_sign)
{
    double r[4] = {INFINITY, -INFINITY, INFINITY, 5.0};
    double same[4] = {INFINITY, -INFINITY, INFINITY, 5.0};
    gv_metrics m;
    cmp64(same, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 0, "the same infinity passes");
    cr_expect(gv_tier_met(&m, 0));

    double flipped[4] = {INFINITY, INFINITY, INFINITY, 5.0};
    cmp64(flipped, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1, "+Inf where the oracle has -Inf fails");
    cr_expect_eq(m.first_nonfinite_index, 1);

    double finite_for_inf[4] = {1e308, -INFINITY, INFINITY, 5.0};
    cmp64(finite_for_inf, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1, "finite where the oracle has Inf fails");
    cr_expect_eq(m.first_nonfinite_index, 0);

    double inf_for_finite[4] = {INFINITY, -INFINITY, INFINITY, INFINITY};
    cmp64(inf_for_finite, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1, "Inf where the oracle is finite fails");
    cr_expect_eq(m.first_nonfinite_index, 3);

    double nan_for_inf[4] = {NAN, -INFINITY, INFINITY, 5.0};
    cmp64(nan_for_inf, r, 4, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.nonfinite_mismatches, 1, "NaN where the oracle has Inf fails");

    /* f32 storage: the f32 infinity widens to the f64 one */
    float c32[2] = {-INFINITY, INFINITY};
    double r32[2] = {-INFINITY, -INFINITY};
    cmp32(c32, r32, 2, &gv_default_tiers, NULL, 24, &m);
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
    cmp32(c, r, 5, &gv_default_tiers, NULL, 24, &m);
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
    cmp64(c, r, 4, &gv_default_tiers, NULL, &m);
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
    cmp32(&c32, &r, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.poisoned, 0);
    cr_expect_eq(m.first_poisoned_index, -1);
    cr_expect(gv_tier_met(&m, 0));
    cmp64(&c64, &r, 1, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.poisoned, 0);
    cr_expect(gv_tier_met(&m, 0));
    /* a negative NaN that is not all ones (0xFFFFFFFE) is a NaN, not poison */
    float almost = f32_from_bits(0xFFFFFFFEu);
    double one = 1.0;
    cmp32(&almost, &one, 1, &gv_default_tiers, NULL, 24, &m);
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
    cmp64(c, r, 2, &gv_default_tiers, &em, &m);
    cr_expect_eq(m.ratio, 0.25);
}

Test(error_model, null_gauge_means_abs_reference)
{
    /* g = |r|: 2^-52 / (2^-53 * 1 * 2) = 1 and 2^-51 / (2^-53 * 2 * 2) = 1/2 */
    double r[2] = {-1.0, 2.0};
    double c[2] = {-1.0 - 0x1p-52, 2.0 + 0x1p-51};
    gv_error_model em = {.gauge = NULL, .depth = 2.0, .u = 0x1p-53};
    gv_metrics m;
    cmp64(c, r, 2, &gv_default_tiers, &em, &m);
    cr_expect_eq(m.ratio, 1.0);
}

Test(error_model, zero_gauge_with_error_is_infinite)
{
    double r[2] = {0.0, 1.0};
    double c[2] = {0x1p-60, 1.0};
    double g[2] = {0.0, 1.0};
    gv_error_model em = {.gauge = g, .depth = 1.0, .u = 0x1p-53};
    gv_metrics m;
    cmp64(c, r, 2, &gv_default_tiers, &em, &m);
    cr_expect(isinf(m.ratio) && m.ratio > 0, "an error where the model allows none: ratio %g",
              m.ratio);
    cr_expect_not(m.ratio <= GV_DEFAULT_RATIO_BOUND, "an infinite ratio can never pass");
    /* without error a zero gauge is fine */
    double exact[2] = {0.0, 1.0};
    cmp64(exact, r, 2, &gv_default_tiers, &em, &m);
    cr_expect_eq(m.ratio, 0.0);
    /* NULL gauge with r = 0 and an error: g = |r| = 0, infinite too */
    gv_error_model em_abs = {.gauge = NULL, .depth = 1.0, .u = 0x1p-53};
    cmp64(c, r, 2, &gv_default_tiers, &em_abs, &m);
    cr_expect(isinf(m.ratio));
}

Test(error_model, f32_ratio)
{
    /* f32: c = 1 + 2^-22 against 1 with g = 1, d = 1, u = 2^-24: ratio 4 */
    float c = 1.0f + 0x1p-22f;
    double r = 1.0, g = 1.0;
    gv_error_model em = {.gauge = &g, .depth = 1.0, .u = 0x1p-24};
    gv_metrics m;
    cmp32(&c, &r, 1, &gv_default_tiers, &em, 24, &m);
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
    cmp64(ca, ra, 3, &pow2_tiers, &em, &a);
    cmp64(cb, rb, 3, &pow2_tiers, &em, &b);
    cr_expect_eq(b.first_nonfinite_index, 0);
    cr_expect_eq(b.worst_index, 1);
    double ratio_b = b.ratio;
    gv_metrics_merge(&a, &b, pow2_tiers.n);
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
    cmp64(ca, r, 2, &gv_default_tiers, NULL, &a);
    cmp64(cb, r, 2, &gv_default_tiers, NULL, &b);
    cmp64(cc, r, 2, &gv_default_tiers, NULL, &c);
    gv_metrics_merge(&a, &b, 2);
    gv_metrics_merge(&a, &c, 2);
    cr_expect_eq(a.poisoned, 2);
    cr_expect_eq(a.first_poisoned_index, 3, "b's index 1 after a's 2 elements");
    cr_expect_eq(a.n, 6);
}

/* ---- gv_judge: verdict rules on hand-planted results --------------------------------------- */

/* A fake op: shape (n, d) gives one output of n elements (two for fake2) judged at depth d,
   so a test picks the error model's depth through the case. */
static int fake_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 0, .n_out = 1};
    l->out[0] = (gv_tensor_spec){"y", c->shape.d[0]};
    return GV_OK;
}

static int fake2_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 0, .n_out = 2};
    l->out[0] = (gv_tensor_spec){"y", c->shape.d[0]};
    l->out[1] = (gv_tensor_spec){"z", c->shape.d[0]};
    return GV_OK;
}

static double fake_zero(const gv_case *c)
{
    (void)c;
    return 0.0;
}

static double fake_depth(const gv_case *c)
{
    return (double)c->shape.d[1];
}

static int fake_inputs(gv_problem *p)
{
    (void)p;
    return GV_OK;
}

static double fake_tier_1e4(const gv_case *c, const char **why)
{
    (void)c;
    *why = "test: claims only 1e-4";
    return 1e-4;
}

#define FAKE_COMMON                                                                                \
    .family = "fake", .dims = "n,d", .dtypes = 3u,                                                 \
    .modes = (1u << GV_MODE_NATIVE) | (1u << GV_MODE_TF32), .flops = fake_zero,                    \
    .bytes = fake_zero, .make_inputs = fake_inputs, .depth = fake_depth

static const gv_op fake = {.name = "fake", .layout = fake_layout, FAKE_COMMON};
static const gv_op fake2 = {.name = "fake2", .layout = fake2_layout, FAKE_COMMON};
static const gv_op fake_loose = {
    .name = "fake.loose", .layout = fake_layout, .expected_tier = fake_tier_1e4, FAKE_COMMON};

/* Problem for op at (n, depth); outputs poisoned (unwritten) until plant() writes them. */
static void problem(gv_problem *p, const gv_op *op, gv_dtype t, gv_mode mode, int64_t n,
                    int64_t depth)
{
    gv_case c = {op, t, mode, GV_DIST_UNIFORM01, {2, {n, depth}}, 0};
    cr_assert_eq(gv_problem_init(p, &c), GV_OK);
}

/* Set output o's reference and gauge (NULL: g = |r|) and the device values in dtype. */
static void plant(gv_problem *p, int o, const double *ref, const double *gauge, const double *got)
{
    gv_tensor *t = &p->out[o];
    for (int64_t i = 0; i < t->count; i++) {
        t->ref[i] = ref[i];
        t->gauge[i] = gauge ? gauge[i] : fabs(ref[i]);
        if (p->c.dtype == GV_F64)
            ((double *)t->data)[i] = got[i];
        else
            ((float *)t->data)[i] = (float)got[i];
    }
}

static gv_result judge(gv_problem *p)
{
    gv_result r;
    gv_result_init(&r, &p->c, &gv_default_tiers);
    gv_judge(p, &r);
    return r;
}

Test(judge, exact_enough_is_pass)
{
    /* f64, err 2^-52 at r = 1, g = 1, d = 1: ratio 2 <= 16, 1e-8 met */
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 2, 1);
    plant(&p, 0, (double[]){1.0, -3.0}, NULL, (double[]){1.0 + 0x1p-52, -3.0});
    gv_result r = judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_str_empty(r.reason);
    cr_expect_eq(r.m.ratio, 2.0);
    /* normwise 2^-52 / sqrt(10) ~ 2^-53.7: more bits than f64 has, reported as 53 */
    cr_expect_eq(r.m.bits, 53.0);
    cr_expect_eq(r.u, 0x1p-53);
    cr_expect_eq(r.depth, 1.0);
    cr_expect_eq(r.ratio_bound, GV_DEFAULT_RATIO_BOUND);
    cr_expect_eq(r.expected_tier, 1e-8);
    gv_problem_free(&p);
}

Test(judge, unwritten_output_is_fail)
{
    /* gv_problem_init poisons outputs; write all but element 2 */
    gv_problem p;
    problem(&p, &fake, GV_F32, GV_MODE_NATIVE, 4, 1);
    for (int i = 0; i < 4; i++) {
        p.out[0].ref[i] = 1.0;
        p.out[0].gauge[i] = 1.0;
        if (i != 2) ((float *)p.out[0].data)[i] = 1.0f;
    }
    gv_result r = judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_eq(r.m.poisoned, 1);
    cr_expect_eq(r.m.first_poisoned_index, 2);
    cr_expect(strstr(r.reason, "unwritten") != NULL, "reason: %s", r.reason);
    gv_problem_free(&p);
}

Test(judge, fully_unwritten_output_is_fail_even_where_oracle_has_nan)
{
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 3, 1);
    for (int i = 0; i < 3; i++)
        p.out[0].ref[i] = p.out[0].gauge[i] = NAN;
    gv_result r = judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_eq(r.m.poisoned, 3);
    gv_problem_free(&p);
}

Test(judge, misplaced_nan_is_fail)
{
    /* everything else perfect: a single NaN where the oracle is finite must still FAIL */
    gv_problem p;
    problem(&p, &fake, GV_F32, GV_MODE_NATIVE, 3, 1);
    plant(&p, 0, (double[]){1.0, 2.0, 3.0}, NULL, (double[]){1.0, NAN, 3.0});
    gv_result r = judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_eq(r.m.nonfinite_mismatches, 1);
    cr_expect(strstr(r.reason, "NaN") != NULL, "reason: %s", r.reason);
    gv_problem_free(&p);
}

Test(judge, all_nan_output_never_passes)
{
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 3, 1);
    plant(&p, 0, (double[]){1.0, 2.0, 3.0}, NULL, (double[]){NAN, NAN, NAN});
    gv_result r = judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL, "NaN everywhere: %s", gv_verdict_name(r.verdict));
    gv_problem_free(&p);
}

Test(judge, nan_where_oracle_has_nan_passes)
{
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 2, 1);
    plant(&p, 0, (double[]){NAN, INFINITY}, (double[]){0.0, 0.0}, (double[]){NAN, INFINITY});
    gv_result r = judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    gv_problem_free(&p);
}

Test(judge, ratio_over_bound_fails_even_when_the_tier_is_met)
{
    /* f32: c = fl32(1 + 1e-5) is 84 * 2^-23 ~ 1.0e-5 off, inside 1e-4 (1 + 1) = 2e-4, but
       one rounding (g = 1, d = 1, u = 2^-24) explains 6e-8: ratio 84 * 2 = 168 > 16 */
    gv_problem p;
    problem(&p, &fake, GV_F32, GV_MODE_NATIVE, 1, 1);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 1e-5});
    gv_result r = judge(&p);
    cr_expect(gv_tier_met(&r.m, 1), "the 1e-4 tier is met");
    cr_expect_eq(r.m.ratio, 168.0);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect(strstr(r.reason, "ratio") != NULL, "reason: %s", r.reason);
    gv_problem_free(&p);
}

Test(judge, expected_tier_missed_is_fail)
{
    /* f64: 2^-20 ~ 9.5e-7 off at r = 1 misses 1e-8 (bound 2e-8); depth 2^40 keeps the ratio
       at 2^-20 / (2^-53 * 2^40) = 2^-7, so only the tier can fail it */
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 1, (int64_t)1 << 40);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 0x1p-20});
    gv_result r = judge(&p);
    cr_expect_eq(r.m.ratio, 0x1p-7);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect(strstr(r.reason, "tier") != NULL, "reason: %s", r.reason);
    gv_problem_free(&p);

    /* f32: 2^-12 ~ 2.4e-4 off at r = 1 misses 1e-4 (bound 2e-4); ratio
       2^-12 / (2^-24 * 2^30) = 2^-18 */
    problem(&p, &fake, GV_F32, GV_MODE_NATIVE, 1, (int64_t)1 << 30);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 0x1p-12});
    r = judge(&p);
    cr_expect_eq(r.expected_tier, 1e-4);
    cr_expect_eq(r.verdict, GV_FAIL);
    gv_problem_free(&p);
}

Test(judge, expected_tier_hook_and_reduced_modes)
{
    /* the op's own expected tier (1e-4 for f64) lets 2^-20 pass */
    gv_problem p;
    problem(&p, &fake_loose, GV_F64, GV_MODE_NATIVE, 1, (int64_t)1 << 40);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 0x1p-20});
    gv_result r = judge(&p);
    cr_expect_eq(r.expected_tier, 1e-4);
    cr_expect_str_eq(r.expected_tier_why, "test: claims only 1e-4");
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    gv_problem_free(&p);

    /* tf32 expects no tier: 2^-10 off misses 1e-4 but the model (u = 2^-11, ratio 2) holds */
    problem(&p, &fake, GV_F32, GV_MODE_TF32, 1, 1);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 0x1p-10});
    r = judge(&p);
    cr_expect_eq(r.u, 0x1p-11);
    cr_expect_eq(r.expected_tier, 0.0);
    cr_expect_not(gv_tier_met(&r.m, 1));
    cr_expect_eq(r.m.ratio, 2.0);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    gv_problem_free(&p);
}

Test(judge, second_output_counts)
{
    /* out y exact; out z has a NaN at 1 (merged index 2 + 1 = 3) and 2^-20 at 0 */
    gv_problem p;
    problem(&p, &fake2, GV_F64, GV_MODE_NATIVE, 2, 1);
    plant(&p, 0, (double[]){1.0, 1.0}, NULL, (double[]){1.0, 1.0});
    plant(&p, 1, (double[]){1.0, 1.0}, NULL, (double[]){1.0, NAN});
    gv_result r = judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_eq(r.m.first_nonfinite_index, 3);
    gv_problem_free(&p);

    /* accurate bits come from both outputs' sums: 2^-20 / sqrt(4) = 2^-21 -> 21 bits */
    problem(&p, &fake2, GV_F64, GV_MODE_NATIVE, 2, (int64_t)1 << 40);
    plant(&p, 0, (double[]){1.0, 1.0}, NULL, (double[]){1.0, 1.0});
    plant(&p, 1, (double[]){1.0, 1.0}, NULL, (double[]){1.0 + 0x1p-20, 1.0});
    r = judge(&p);
    cr_expect_eq(r.m.n, 4);
    cr_expect_eq(r.m.bits, 21.0);
    cr_expect_eq(r.m.worst_index, 2);
    cr_expect_eq(r.verdict, GV_FAIL, "1e-8 missed in the second output");
    gv_problem_free(&p);
}

Test(judge, unit_roundoffs)
{
    cr_expect_eq(gv_unit_roundoff(GV_F64, GV_MODE_NATIVE), 0x1p-53);
    cr_expect_eq(gv_unit_roundoff(GV_F32, GV_MODE_NATIVE), 0x1p-24);
    cr_expect_eq(gv_unit_roundoff(GV_F32, GV_MODE_TF32), 0x1p-11);
    cr_expect_eq(gv_mode_precision_bits(GV_F32, GV_MODE_TF32), 11);
    cr_expect_eq(gv_mode_precision_bits(GV_F64, GV_MODE_NATIVE), 53);
}
