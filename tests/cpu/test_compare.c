/* test_compare.c: the tolerance oracle's metrics and tier boundaries (src/core/metrics.c). Every
 * expected number is derived in a comment from the definitions in metrics.h and DESIGN.md
 * ("Compare"); boundary cases are built so that "exactly at the tier" is exact in binary,
 * so the test says which side of <= the oracle is on. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "core/metrics.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "testkit.h"

/* Mismatches at tier k for the single pair (c, r). */
static int64_t miss64(double c, double r, const gv_tiers *t, int k)
{
    gv_metrics m;
    gv_test_cmp64(&c, &r, 1, t, NULL, &m);
    return m.mismatches[k];
}

static int64_t miss32(float c, double r, const gv_tiers *t, int k)
{
    gv_metrics m;
    gv_test_cmp32(&c, &r, 1, t, NULL, 24, &m);
    return m.mismatches[k];
}

/* ---- metrics ---------------------------------------------------------------------------- */

Test(compare, exact_match_has_zero_error_and_unbounded_bits)
{
    double r[3] = {1.5, -2.0, 0.0};
    gv_metrics m;
    gv_test_cmp64(r, r, 3, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.n, 3);
    cr_expect_eq(m.max_abs, 0.0);
    cr_expect_eq(m.max_rel, 0.0);
    cr_expect_eq(m.normwise_rel, 0.0);
    cr_expect_eq(m.max_ulp, 0.0);
    cr_expect(isinf(m.bits) && m.bits > 0, "no error: no finite number of bits (got %g)", m.bits);
    cr_expect(isnan(m.cr_frac), "no exact reference: no correctly rounded fraction");
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
    gv_test_cmp64(r, r, 0, &gv_default_tiers, NULL, &m);
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
    gv_test_cmp64(c, r, 4, &gv_test_pow2_tiers, NULL, &m);
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
    gv_test_cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
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
    gv_test_cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
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
    gv_test_cmp32(c, r, 2, &gv_default_tiers, NULL, 24, &m);
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
    gv_test_cmp32(&c, &r, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.max_ulp, 1.0);
}

Test(compare, max_ulp_at_tf32_precision)
{
    /* TF32 keeps 11 significant bits: ulp(1) = 2^-10, so 1 + 2^-10 is 1 ulp and
       1 + 5 * 2^-10 is 5; ulp(8) = 2^-7, so 8 + 2^-6 is 2 */
    double r[3] = {1.0, 1.0, 8.0};
    float c[3] = {1.0f + 0x1p-10f, 1.0f + 5 * 0x1p-10f, 8.0f + 0x1p-6f};
    gv_metrics m;
    gv_test_cmp32(c, r, 3, &gv_default_tiers, NULL, 11, &m);
    cr_expect_eq(m.max_ulp, 5.0);
    gv_test_cmp32(c + 2, r + 2, 1, &gv_default_tiers, NULL, 11, &m);
    cr_expect_eq(m.max_ulp, 2.0);
    /* bits are measured, not the mode's width: an exact result reports no finite number */
    gv_test_cmp32(c, (const double[]){1.0 + 0x1p-10}, 1, &gv_default_tiers, NULL, 11, &m);
    cr_expect(isinf(m.bits), "%g", m.bits);
    cr_expect_eq(m.precision_bits, 11, "the claimed width is kept beside them");
}

Test(compare, max_ulp_at_zero_uses_the_subnormal_spacing)
{
    /* below the normal range the spacing is that of the smallest binade: f32 2^-149,
       f64 2^-1074; one such step from r = 0 is 1 ulp */
    double r0 = 0.0;
    float c32 = 0x1p-149f;
    gv_metrics m;
    gv_test_cmp32(&c32, &r0, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.max_ulp, 1.0);
    double c64 = 0x1p-1074;
    gv_test_cmp64(&c64, &r0, 1, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.max_ulp, 1.0);
    /* a subnormal reference has the same spacing: r = 2^-140, c one step up, 1 ulp (not
       the 2^23 ulps that 24 bits below 2^-140 would count) */
    double rs = 0x1p-140;
    float cs = 0x1p-140f + 0x1p-149f;
    gv_test_cmp32(&cs, &rs, 1, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.max_ulp, 1.0);
    /* and in f64: r = 2^-1060, c = r + 2^-1074 */
    double rd = 0x1p-1060, cd = 0x1p-1060 + 0x1p-1074;
    gv_test_cmp64(&cd, &rd, 1, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.max_ulp, 1.0);
}

Test(compare, accurate_bits_are_measured_never_capped)
{
    /* normwise = 2^-52 / sqrt(2^80 + 1): -log2 is 52 + log2(2^80 + 1) / 2, about 92, more than
       f64's 53: reported as measured (the old cap at the mode's width hid this) */
    double r[2] = {0x1p40, 1.0};
    double c[2] = {0x1p40, 1.0 + 0x1p-52};
    gv_metrics m;
    gv_test_cmp64(c, r, 2, &gv_default_tiers, NULL, &m);
    cr_expect_gt(m.normwise_rel, 0.0);
    cr_expect_float_eq(m.bits, 52.0 + 0.5 * log2(0x1p80 + 1.0), 1e-9, "%.12g", m.bits);
    cr_expect_eq(m.precision_bits, 53);
    /* f32: 2^-23 / sqrt(2^40 + 1): 23 + log2(2^40 + 1) / 2, about 43, not 24 */
    double r32[2] = {0x1p20, 1.0};
    float c32[2] = {0x1p20f, 1.0f + 0x1p-23f};
    gv_test_cmp32(c32, r32, 2, &gv_default_tiers, NULL, 24, &m);
    cr_expect_float_eq(m.bits, 23.0 + 0.5 * log2(0x1p40 + 1.0), 1e-9, "%.12g", m.bits);
    /* and never below 0: normwise |5 - 1| / 1 = 4 -> -2 -> 0 */
    double one = 1.0, five = 5.0;
    gv_test_cmp64(&five, &one, 1, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.normwise_rel, 4.0);
    cr_expect_eq(m.bits, 0.0);
}

Test(compare, accurate_bits_uncapped_value)
{
    /* r = (1, 1, 1, 1), one element off by 2^-20: normwise 2^-20 / 2 = 2^-21, 21 bits */
    double r[4] = {1, 1, 1, 1};
    double c[4] = {1, 1, 1 + 0x1p-20, 1};
    gv_metrics m;
    gv_test_cmp64(c, r, 4, &gv_default_tiers, NULL, &m);
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
    const gv_tiers *T = &gv_test_pow2_tiers;
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
    const gv_tiers *T = &gv_test_pow2_tiers;
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

/* ---- the ulp histogram's bins ------------------------------------------------------------ */

/* The bin by its definition (metrics.h): ceil of (log2(ulps) - GV_ULP_LOG2_MIN) bins per
   octave, 0 for ulps at or below 2^GV_ULP_LOG2_MIN (and exact elements), the last bin
   holding everything above it. */
static int bin_by_definition(double ulps)
{
    if (!(ulps > 0)) return 0;
    double b = (log2(ulps) - GV_ULP_LOG2_MIN) * GV_ULP_BINS_PER_OCTAVE;
    if (b < 0) return 0;
    if (b >= GV_ULP_NBINS - 1) return GV_ULP_NBINS - 1;
    return (int)ceil(b);
}

/* The ulps of c against r at p bits by the definition: |c - r| over 2^(e - p), r = f 2^e with
   f in [0.5, 1) (and the smallest normal binade of f64 for r = 0). */
static double ulps_by_definition(double c, double r, int p)
{
    int e;
    frexp(fabs(r), &e);
    if (r == 0.0 || e - 1 < -1022) e = -1021;
    return fabs(c - r) / ldexp(1.0, e - p);
}

/* metrics.c counts bins from the ulps' bits, not log2: every pair lands in the bin the
   definition gives, including ulps a few units from a bin edge 2^(j/8), exactly on one, on
   powers of two, below the first and past the last. At 24 bits r = 1.5 has ulp 2^-23 and
   c - r is a multiple of 2^-52: ulps come in steps of 2^-29, fine enough near the edges of
   every octave from 2^4 up (relative 2^-33 and less) to land within 1e-9 of an edge, where
   the count from bits hands over to log2. */
Test(compare, ulp_bins_follow_the_definition_at_and_near_every_edge)
{
    enum { N = 6000, P = 24 };
    static double ref[N], got[N];
    int n = 0;
    for (int k = -20; k <= 20; k++)
        for (int j = 0; j < GV_ULP_BINS_PER_OCTAVE; j++) {
            double edge = ldexp(exp2((double)j / GV_ULP_BINS_PER_OCTAVE), k);
            double near[] = {edge,
                             edge * (1 + 0x1p-40),
                             edge * (1 - 0x1p-40),
                             edge * (1 + 3e-10),
                             edge * (1 - 3e-10),
                             edge * (1 + 3e-9),
                             edge * (1 - 3e-9),
                             edge * (1 + 1e-6),
                             edge * (1 - 1e-6)};
            for (size_t q = 0; q < sizeof near / sizeof near[0]; q++) {
                cr_assert_lt(n, N);
                ref[n] = 1.5;
                got[n] = 1.5 + ldexp(nearbyint(ldexp(near[q], 29)), -52);
                n++;
            }
        }
    /* values spread over octaves, away from the edges: the buckets of the significand's top
       bits that need no closer look */
    for (int k = -17; k <= 20; k += 3)
        for (int q = 0; q < 64; q++) {
            cr_assert_lt(n, N);
            ref[n] = 1.5;
            got[n] = 1.5 + ldexp(nearbyint(ldexp(ldexp(1.0 + (q + 0.37) / 64.0, k), 29)), -52);
            n++;
        }
    /* past 2^63 ulps (the last bins, from log2), an infinite count and an exact element */
    double far[][2] = {
        {0x1p45, 1.5}, {0x1p60, 1.5}, {1.0, 0x1p-1000}, {0.0, 0x1p-1060}, {3.0, 3.0}};
    for (size_t q = 0; q < sizeof far / sizeof far[0]; q++) {
        got[n] = far[q][0];
        ref[n] = far[q][1];
        n++;
    }
    gv_metrics m;
    gv_compare(got, GV_F64, ref, n, &gv_default_tiers, NULL, P, &m);
    int64_t want[GV_ULP_NBINS] = {0};
    double max_ulp = 0;
    for (int i = 0; i < n; i++) {
        double u = ulps_by_definition(got[i], ref[i], P);
        want[bin_by_definition(u)]++;
        if (u > max_ulp) max_ulp = u;
    }
    for (int b = 0; b < GV_ULP_NBINS; b++)
        cr_expect_eq(m.ulp_hist[b], want[b], "bin %d: %lld, by the definition %lld", b,
                     (long long)m.ulp_hist[b], (long long)want[b]);
    cr_expect_eq(m.max_ulp, max_ulp);
    cr_expect_gt(want[GV_ULP_NBINS - 1], 0, "the last bin is reached");
}

/* Against an exact reference (ref + ref_lo, reference.h) the error is measured to the exact
   result, and an output equal to the exact result rounded to nearest counts as correctly
   rounded. exact[i] = r[i] + lo[i]: 1 + 2^-60, 2 - 2^-55, 3 (lo 0). */
Test(compare, errors_against_an_exact_reference_and_the_correctly_rounded_share)
{
    double r[3] = {1.0, 2.0, 3.0}, lo[3] = {0x1p-60, -0x1p-55, 0.0};
    double c[3] = {1.0, 2.0 - 0x1p-52, 3.0}; /* rounded correctly, one ulp below, exact */
    gv_error_model em = {.depth = 1.0, .u = 0x1p-53, .ref_lo = lo};
    gv_metrics m;
    gv_test_cmp64(c, r, 3, &gv_default_tiers, &em, &m);
    /* |1 - (1 + 2^-60)| = 2^-60; |2 - 2^-52 - (2 - 2^-55)| = 2^-52 - 2^-55 = 7 2^-55 */
    cr_expect_eq(m.max_abs, 7 * 0x1p-55, "%a", m.max_abs);
    cr_expect_eq(m.cr_n, 3);
    cr_expect_eq(m.cr, 2, "the first and the last are the exact results rounded");
    cr_expect_float_eq(m.cr_frac, 2.0 / 3.0, 1e-15);
    /* sum of squares: 2^-120 + 49 2^-110 over 1 + 4 + 9 = 14 */
    double want = sqrt(0x1p-120 + 49 * 0x1p-110) / sqrt(14.0);
    cr_expect_float_eq(m.normwise_rel, want, 1e-12 * want, "%a", m.normwise_rel);
    /* the same outputs against the rounded values alone read the first as exact */
    gv_test_cmp64(c, r, 3, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.cr_n, 0);
    cr_expect_eq(m.max_abs, 0x1p-52, "%a", m.max_abs);
}

/* ---- the bias sums (metrics.h, GV_BIAS_Z_BOUND) ------------------------------------------ */

Test(bias, signed_ulps_their_sums_and_z)
{
    /* f64 (53 bits): ulp(1) = 2^-52, ulp(-2) = 2^-51, ulp(4) = 2^-50, ulp(0.5) = 2^-53.
       Errors in ulps e = +1, +1 (-2 moved up, toward zero), -2, +3; r = 0 has no sign and
       is left out even though c differs there (n counts 4 of 5). sign(r) e = +1, -1, -2, +3.
       sum e = 3, sum sign(r) e = 1, sum e^2 = 1 + 1 + 4 + 9 = 15. */
    double r[5] = {1.0, -2.0, 4.0, 0.5, 0.0};
    double c[5] = {1.0 + 0x1p-52, -2.0 + 0x1p-51, 4.0 - 2 * 0x1p-50, 0.5 + 3 * 0x1p-53, 0x1p-60};
    gv_metrics m;
    gv_test_cmp64(c, r, 5, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.bias_n, 4);
    cr_expect_eq(m.bias_sum, 3.0);
    cr_expect_eq(m.bias_sum_sr, 1.0);
    cr_expect_eq(m.bias_sq.med, 15.0);
    cr_expect_eq(m.bias_mean, 0.75);
    cr_expect_eq(m.bias_mean_sr, 0.25);
    cr_expect_float_eq(m.bias_z, 3.0 / sqrt(15.0), 1e-15);
    cr_expect_float_eq(m.bias_z_sr, 1.0 / sqrt(15.0), 1e-15);
}

Test(bias, f32_storage_counts_f32_ulps)
{
    /* f32 (24 bits): r = 3 (ulp 2^-22), c rounded toward zero by half an ulp in each of 8
       elements of alternating sign: e = -0.5 sign(r), so sum e = 0 (the signs cancel) while
       sum sign(r) e = 8 (-0.5) = -4; sum e^2 = 8 / 4 = 2: z = 0, z_sr = -4 / sqrt 2. */
    enum { N = 8 };
    float c[N];
    double r[N];
    for (int i = 0; i < N; i++) {
        double s = i % 2 ? -1.0 : 1.0;
        r[i] = s * (3.0 + 0x1p-23); /* between two floats: c is 3 exactly, half an ulp lower */
        c[i] = (float)(s * 3.0);
    }
    gv_metrics m;
    gv_test_cmp32(c, r, N, &gv_default_tiers, NULL, 24, &m);
    cr_expect_eq(m.bias_n, N);
    cr_expect_eq(m.bias_sum, 0.0);
    cr_expect_eq(m.bias_sum_sr, -4.0);
    cr_expect_eq(m.bias_sq.med, 2.0);
    cr_expect_eq(m.bias_z, 0.0);
    cr_expect_float_eq(m.bias_z_sr, -4.0 / sqrt(2.0), 1e-15);
}

Test(bias, probabilistic_ops_sum_the_signed_r)
{
    /* with a probabilistic gauge the error is the signed R = (c - r) / (w G), w = 2^-10:
       errors 2^-12 at G = 1 (R = +1/4), -2^-11 at G = 2 (R = -1/4) for r = -1 (sign(r) e =
       +1/4), 3 2^-10 at G = 4 (R = +3/4); an element whose G is 0 under an error has an
       infinite R and is no measure of the bias: left out. sum e = 3/4, sum sign(r) e = 5/4,
       sum e^2 = 1/16 + 1/16 + 9/16 = 11/16. */
    double r[4] = {1.0, -1.0, 2.0, 1.0};
    double c[4] = {1.0 + 0x1p-12, -1.0 - 0x1p-11, 2.0 + 3 * 0x1p-10, 1.0 + 0x1p-20};
    double G[4] = {1.0, 2.0, 4.0, 0.0};
    gv_error_model em = {.gauge = NULL, .depth = 1, .u = 0x1p-10, .pgauge = G, .pw = 0x1p-10};
    gv_metrics m;
    gv_test_cmp64(c, r, 4, &gv_default_tiers, &em, &m);
    cr_expect_eq(m.bias_n, 3);
    cr_expect_eq(m.bias_sum, 0.75);
    cr_expect_eq(m.bias_sum_sr, 1.25);
    cr_expect_eq(m.bias_sq.med, 11.0 / 16.0);
    cr_expect_eq(m.bias_mean, 0.25);
    cr_expect_float_eq(m.bias_z, 0.75 / sqrt(11.0 / 16.0), 1e-15);
    cr_expect_float_eq(m.bias_z_sr, 1.25 / sqrt(11.0 / 16.0), 1e-15);
}

Test(bias, exact_outputs_have_z_zero_and_merges_add_the_sums)
{
    /* no error anywhere: every sum 0, and z 0 (not 0/0) */
    double r[3] = {1.0, -2.0, 3.0};
    gv_metrics m;
    gv_test_cmp64(r, r, 3, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.bias_n, 3);
    cr_expect_eq(m.bias_sq.med, 0.0);
    cr_expect_eq(m.bias_z, 0.0);
    cr_expect_eq(m.bias_z_sr, 0.0);
    /* merged: the second output's e = +1 ulp at r = 1 and at r = -1: sum e = 2, sum e^2 = 2,
       sum sign(r) e = 0, over 3 + 2 = 5 elements: z = 2 / sqrt 2, z_sr = 0 */
    double r2[2] = {1.0, -1.0}, c2[2] = {1.0 + 0x1p-52, -1.0 + 0x1p-52};
    gv_metrics b;
    gv_test_cmp64(c2, r2, 2, &gv_default_tiers, NULL, &b);
    gv_metrics_merge(&m, &b, gv_default_tiers.n);
    cr_expect_eq(m.bias_n, 5);
    cr_expect_eq(m.bias_sum, 2.0);
    cr_expect_eq(m.bias_sum_sr, 0.0);
    cr_expect_float_eq(m.bias_z, sqrt(2.0), 1e-15);
    cr_expect_eq(m.bias_z_sr, 0.0);
    cr_expect_eq(m.bias_mean, 0.4);
}

Test(bias, chunked_compare_gives_the_serial_sums)
{
    /* past one chunk of 2^20 elements the compare runs in chunks and merges: the same sums
       as the definition, each e = +-1 ulp (sums of integers: exact either way) */
    int64_t n = (1 << 20) + 4099;
    double *r = gv_test_alloc(n), *c = gv_test_alloc(n);
    double sum = 0, sum_sr = 0;
    for (int64_t i = 0; i < n; i++) {
        double s = (i % 3) ? 1.0 : -1.0, e = (i % 7) < 4 ? 1.0 : -1.0;
        r[i] = s * 1.5;
        c[i] = r[i] + e * 0x1p-52; /* ulp(1.5) = 2^-52 */
        sum += e;
        sum_sr += s * e;
    }
    gv_metrics m;
    gv_test_cmp64(c, r, n, &gv_default_tiers, NULL, &m);
    cr_expect_eq(m.bias_n, n);
    cr_expect_eq(m.bias_sum, sum);
    cr_expect_eq(m.bias_sum_sr, sum_sr);
    cr_expect_eq(m.bias_sq.med, (double)n);
    free(r);
    free(c);
}

/* The normwise error by scaled sums (gv_ssq): outputs near f64's maximum, in the subnormals,
   or whose difference overflows give their true ratio, each derived here by hand; ordinary
   data gives the plain sqrt(sum e^2) / sqrt(sum r^2) bit for bit. */
Test(compare, normwise_is_finite_at_the_extremes_of_f64)
{
    enum { N = 4096 };
    static double ref[N], got[N];
    gv_metrics m;
    /* huge: r = 2^1000, c = r (1 + 2^-40): every term's relative error 2^-40, so the normwise
       is 2^-40 exactly (each square and sum scaled by powers of two: no rounding) */
    for (int i = 0; i < N; i++)
        ref[i] = 0x1p1000, got[i] = 0x1p1000 * (1 + 0x1p-40);
    gv_compare(got, GV_F64, ref, N, &gv_default_tiers, NULL, 53, &m);
    cr_expect_eq(m.normwise_rel, 0x1p-40, "huge: %a", m.normwise_rel);
    cr_expect_eq(m.bits, 40.0);
    /* tiny: r = 2^-1060 (subnormal), c = r + 2^-1070: relative 2^-10 each */
    for (int i = 0; i < N; i++)
        ref[i] = 0x1p-1060, got[i] = 0x1p-1060 + 0x1p-1070;
    gv_compare(got, GV_F64, ref, N, &gv_default_tiers, NULL, 53, &m);
    cr_expect_eq(m.normwise_rel, 0x1p-10, "tiny: %a", m.normwise_rel);
    /* c - r overflows: r = -2^1023, c = 2^1023, |c - r| = 2^1024 = 2 |r| */
    for (int i = 0; i < N; i++)
        ref[i] = -0x1p1023, got[i] = 0x1p1023;
    gv_compare(got, GV_F64, ref, N, &gv_default_tiers, NULL, 53, &m);
    cr_expect_eq(m.normwise_rel, 2.0, "overflowing difference: %a", m.normwise_rel);
    /* a zero reference: 0 without error, +inf with one */
    for (int i = 0; i < N; i++)
        ref[i] = 0.0, got[i] = 0.0;
    gv_compare(got, GV_F64, ref, N, &gv_default_tiers, NULL, 53, &m);
    cr_expect_eq(m.normwise_rel, 0.0);
    got[7] = 1e-300;
    gv_compare(got, GV_F64, ref, N, &gv_default_tiers, NULL, 53, &m);
    cr_expect(isinf(m.normwise_rel) && m.normwise_rel > 0, "%a", m.normwise_rel);
    /* ordinary data: the plain sums' bits, one chunk and several (merged) */
    static double big_ref[3 << 20], big_got[3 << 20];
    for (int64_t n = N; n <= (3 << 20); n += (3 << 20) - N) {
        double se = 0, sr = 0;
        double *r = n == N ? ref : big_ref, *c = n == N ? got : big_got;
        for (int64_t i = 0; i < n; i++) {
            r[i] = 1.0 + (double)(i % 1000) / 7.0;
            c[i] = r[i] * (1 + 1e-12 * (double)((i * 7919) % 13 - 6));
        }
        gv_compare(c, GV_F64, r, n, &gv_default_tiers, NULL, 53, &m);
        if (n == N) { /* one pass in index order: exactly the plain sums */
            for (int64_t i = 0; i < n; i++)
                se += (c[i] - r[i]) * (c[i] - r[i]), sr += r[i] * r[i];
            cr_expect_eq(m.normwise_rel, sqrt(se) / sqrt(sr), "%a %a", m.normwise_rel,
                         sqrt(se) / sqrt(sr));
        }
        cr_expect_eq(m.sq_err.sml + m.sq_err.big + m.sq_ref.sml + m.sq_ref.big, 0.0);
        cr_expect_eq(m.normwise_rel, sqrt(m.sq_err.med) / sqrt(m.sq_ref.med));
    }
}

/* Near f64's underflow threshold the compare takes its ulps and its small sums of squares
   without subnormal arithmetic (metrics.c, metrics.h gv_ssq_add): the numbers must be those
   of the definitions, err / 2^k with 2^k the subnormal spacing and sum (err 2^537)^2, each
   computed here the plain way, at 53 and at 24 claimed bits. Each element's ulps alone (a
   maximum would hide the small ones); the sums over the subnormal errors alone (a normal
   error's square would absorb theirs). */
Test(compare, subnormal_ulps_and_sums_are_their_definitions)
{
    /* subnormal references with errors of 1, 3, 1000 and 2^14 spacings (subnormal errors),
       a normal error (the output 2^-1000, far above its reference), and one past the range */
    const double r[] = {0x1p-1070, 0x1p-1060, 0x1.8p-1050, 0x1p-1030, 0x1p-1070, 0x1p-1065};
    const double c[] = {0x1p-1070 + 0x1p-1074,
                        0x1p-1060 + 3 * 0x1p-1074,
                        0x1.8p-1050 - 1000 * 0x1p-1074,
                        0x1p-1030 + 0x1p-1060,
                        0x1p-1000,
                        1.0};
    enum { N = sizeof r / sizeof r[0], NSUB = 4 };
    const int bits[2] = {53, 24};
    for (int b = 0; b < 2; b++) {
        int p = bits[b];
        double sml = 0;
        for (int i = 0; i < N; i++) {
            double err = fabs(c[i] - r[i]);
            /* ulp_at_bits: 2^(e - p) with e = -1021, the smallest binade's, for every r
               below 2^-1022 */
            double want = err / ldexp(1.0, -1021 - p);
            gv_metrics m;
            gv_compare(&c[i], GV_F64, &r[i], 1, &gv_default_tiers, NULL, p, &m);
            cr_expect_eq(m.max_ulp, want, "%d bits, element %d: %a, want %a", p, i, m.max_ulp,
                         want);
            if (i < NSUB) {
                cr_expect(err < 0x1p-1022 && err > 0, "element %d's error is subnormal", i);
                double y = err * GV_SSQ_SSML;
                sml += y * y;
            }
        }
        cr_expect(isinf(fabs(c[N - 1] - r[N - 1]) / ldexp(1.0, -1021 - p)),
                  "an error of 1 is 2^%d spacings: past the range", 1021 + p);
        gv_metrics m;
        gv_compare(c, GV_F64, r, NSUB, &gv_default_tiers, NULL, p, &m);
        cr_expect_eq(m.sq_err.sml, sml, "%d bits: %a, want %a", p, m.sq_err.sml, sml);
        cr_expect_eq(m.sq_err.med, 0.0);
    }
}
