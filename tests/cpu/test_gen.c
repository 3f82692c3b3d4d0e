/* test_gen.c: the counter-based input generator (src/core/gen.c). Expected bits are recomputed
 * here from the splitmix64 finaliser (Steele, Lea and Flood, OOPSLA 2014; the constants of
 * Vigna's reference splitmix64.c) and the keying gen.c documents, mix(mix(mix(seed) ^ tensor)
 * ^ index), so the test does not trust the implementation's own outputs. Then: the same
 * value whatever the fill size or order, each distribution's range, and rounding to f32. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "core/hash.h"
#include "core/op.h"

/* splitmix64's output function for state z: advance by the golden-ratio increment, then
   two xor-shift-multiply rounds and a final xor-shift. */
static uint64_t ref_mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t ref_bits(uint64_t seed, uint64_t tensor, uint64_t index)
{
    return ref_mix(ref_mix(ref_mix(seed) ^ tensor) ^ index);
}

Test(gen, reference_mixer_matches_published_splitmix64)
{
    /* splitmix64 seeded with 0 first outputs 0xE220A8397B1DCDAF (the widely quoted first
       value of Vigna's splitmix64.c), then 0x6E789E6AA1B965F4: states 1 and 2 increments */
    cr_assert_eq(ref_mix(0), 0xE220A8397B1DCDAFull);
    cr_assert_eq(ref_mix(0x9E3779B97F4A7C15ull), 0x6E789E6AA1B965F4ull);
}

Test(gen, bits_follow_the_documented_keying)
{
    const uint64_t keys[][3] = {{0, 0, 0},
                                {0, 0, 1},
                                {0, 1, 0},
                                {1, 2, 3},
                                {42, 0, 999},
                                {UINT64_MAX, 7, 1000000000},
                                {12345, 5, UINT64_MAX}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        uint64_t s = keys[i][0], t = keys[i][1], x = keys[i][2];
        cr_expect_eq(gv_gen_bits(s, t, x), ref_bits(s, t, x),
                     "bits(%llu, %llu, %llu): got %016llx want %016llx", (unsigned long long)s,
                     (unsigned long long)t, (unsigned long long)x,
                     (unsigned long long)gv_gen_bits(s, t, x),
                     (unsigned long long)ref_bits(s, t, x));
    }
}

Test(gen, unit_takes_the_top_53_bits)
{
    for (uint64_t i = 0; i < 64; i++) {
        double want = (double)(ref_bits(7, 1, i) >> 11) * 0x1p-53;
        cr_expect_eq(gv_gen_unit(7, 1, i), want);
        cr_expect_eq(gv_gen_value(GV_DIST_UNIFORM01, 7, 1, i), want);
    }
}

Test(gen, keys_are_independent)
{
    /* different seeds, tensors and indices give different streams (a 64-bit collision in
       these few draws would be a bug, not chance) */
    cr_expect_neq(gv_gen_bits(0, 0, 0), gv_gen_bits(1, 0, 0));
    cr_expect_neq(gv_gen_bits(0, 0, 0), gv_gen_bits(0, 1, 0));
    cr_expect_neq(gv_gen_bits(0, 0, 0), gv_gen_bits(0, 0, 1));
    cr_expect_neq(gv_gen_bits(0, 1, 0), gv_gen_bits(0, 0, 1), "tensor and index do not commute");
    double a[16], b[16];
    gv_gen_fill(a, 16, GV_DIST_UNIFORM01, GV_F64, 3, 0);
    gv_gen_fill(b, 16, GV_DIST_UNIFORM01, GV_F64, 3, 1);
    int same = 0;
    for (int i = 0; i < 16; i++)
        same += a[i] == b[i];
    cr_expect_eq(same, 0, "tensors 0 and 1 of one seed share %d values", same);
}

Test(gen, same_values_whatever_the_fill_size_or_order)
{
    enum { N = 1000 };
    for (int d = 0; d < GV_NDISTS; d++) {
        for (int t = 0; t < GV_NDTYPES; t++) {
            double *big = malloc(N * sizeof *big), *small = malloc(10 * sizeof *small);
            cr_assert(big && small);
            gv_gen_fill(big, N, (gv_dist)d, (gv_dtype)t, 99, 2);
            gv_gen_fill(small, 10, (gv_dist)d, (gv_dtype)t, 99, 2);
            for (int i = 0; i < 10; i++)
                cr_expect(small[i] == big[i] || (isnan(small[i]) && isnan(big[i])),
                          "%s %s: prefix element %d differs", gv_dist_name((gv_dist)d),
                          gv_dtype_name((gv_dtype)t), i);
            /* drawn one by one, backwards: element i depends on i alone */
            for (int i = N - 1; i >= 0; i--) {
                double v = gv_round_to(gv_gen_value((gv_dist)d, 99, 2, (uint64_t)i), (gv_dtype)t);
                cr_expect(v == big[i] || (isnan(v) && isnan(big[i])),
                          "%s %s: element %d filled %g, drawn %g", gv_dist_name((gv_dist)d),
                          gv_dtype_name((gv_dtype)t), i, big[i], v);
            }
            free(big);
            free(small);
        }
    }
}

enum { SAMPLE = 100000 };

static double *sample(gv_dist d, gv_dtype t)
{
    double *x = malloc(SAMPLE * sizeof *x);
    cr_assert_not_null(x);
    gv_gen_fill(x, SAMPLE, d, t, 2024, 0);
    return x;
}

Test(gen, uniform01_range)
{
    double *x = sample(GV_DIST_UNIFORM01, GV_F64);
    double lo = 1, hi = 0, sum = 0;
    for (int i = 0; i < SAMPLE; i++) {
        cr_assert(x[i] >= 0.0 && x[i] < 1.0, "x[%d] = %a outside [0, 1)", i, x[i]);
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
        sum += x[i];
    }
    /* 1e5 draws: the mean's standard deviation is 0.29 / 316 ~ 1e-3 */
    cr_expect_lt(fabs(sum / SAMPLE - 0.5), 0.01);
    cr_expect_lt(lo, 1e-3);
    cr_expect_gt(hi, 1 - 1e-3);
    free(x);
}

Test(gen, uniform11_range)
{
    for (int t = 0; t < GV_NDTYPES; t++) {
        double *x = sample(GV_DIST_UNIFORM11, (gv_dtype)t);
        double lo = 1, hi = -1;
        int neg = 0;
        for (int i = 0; i < SAMPLE; i++) {
            /* f32 may round a value just below 1 up to 1; [-1, 1] is the closed promise */
            cr_assert(x[i] >= -1.0 && x[i] <= 1.0, "x[%d] = %a outside [-1, 1]", i, x[i]);
            if (t == GV_F64) cr_assert(x[i] < 1.0);
            lo = fmin(lo, x[i]);
            hi = fmax(hi, x[i]);
            neg += x[i] < 0;
        }
        cr_expect_lt(lo, -1 + 1e-3);
        cr_expect_gt(hi, 1 - 1e-3);
        cr_expect_lt(abs(neg - SAMPLE / 2), SAMPLE / 50, "about half negative: %d", neg);
        free(x);
    }
}

Test(gen, smallint_are_integers_in_minus8_to_8)
{
    double *x = sample(GV_DIST_SMALLINT, GV_F32);
    int seen[17] = {0};
    for (int i = 0; i < SAMPLE; i++) {
        cr_assert(x[i] == floor(x[i]) && x[i] >= -8 && x[i] <= 8, "x[%d] = %g", i, x[i]);
        seen[(int)x[i] + 8]++;
    }
    for (int v = 0; v < 17; v++)
        cr_expect_gt(seen[v], 0, "%d never drawn", v - 8);
    free(x);
}

/* x rounded to p significant bits (nearest): equal to x when x fits in p bits. */
static double round_to_bits(double x, int p)
{
    int e;
    double f = frexp(x, &e); /* x = f 2^e, f in [0.5, 1) */
    return ldexp(nearbyint(ldexp(f, p)), e - p);
}

Test(gen, offgrid_needs_12_bits)
{
    double *x = sample(GV_DIST_OFFGRID, GV_F32);
    int seen_lo = 0, seen_hi = 0;
    for (int i = 0; i < SAMPLE; i++) {
        double k = x[i] - 0.5;
        cr_assert(k == floor(k) && k >= 1024 && k < 2048, "x[%d] = %g is not k + 0.5", i, x[i]);
        /* in [2^10, 2^11) a spacing of 0.5 = 2^-1 takes 10 + 1 + 1 = 12 significant bits */
        cr_assert_eq(round_to_bits(x[i], 12), x[i]);
        cr_assert_neq(round_to_bits(x[i], 11), x[i], "%g fits in 11 bits (TF32)", x[i]);
        cr_assert_eq((double)(float)x[i], x[i], "offgrid values are exact in f32");
        seen_lo += k == 1024;
        seen_hi += k == 2047;
    }
    cr_expect(seen_lo && seen_hi, "both ends of [1024, 2048) drawn");
    free(x);
}

Test(gen, special_holds_every_special_value)
{
    for (int t = 0; t < GV_NDTYPES; t++) {
        double *x = sample(GV_DIST_SPECIAL, (gv_dtype)t);
        int nan = 0, pinf = 0, ninf = 0, nzero = 0, sub32 = 0, ordinary = 0;
        for (int i = 0; i < SAMPLE; i++) {
            double v = x[i];
            if (isnan(v))
                nan++;
            else if (isinf(v))
                v > 0 ? pinf++ : ninf++;
            else if (v == 0 && signbit(v))
                nzero++;
            else if (v != 0 && fabs(v) < FLT_MIN)
                /* an f32 subnormal: survives f32 storage as a non-zero subnormal */
                sub32 += fpclassify((float)v) == FP_SUBNORMAL && (double)(float)v == v;
            else if (v >= -1 && v <= 1)
                ordinary++;
        }
        const char *dt = gv_dtype_name((gv_dtype)t);
        cr_expect_gt(nan, 0, "%s: no NaN", dt);
        cr_expect_gt(pinf, 0, "%s: no +Inf", dt);
        cr_expect_gt(ninf, 0, "%s: no -Inf", dt);
        cr_expect_gt(nzero, 0, "%s: no -0", dt);
        cr_expect_gt(sub32, 0, "%s: no f32 subnormal", dt);
        cr_expect_gt(ordinary, SAMPLE / 2, "%s: mostly ordinary values", dt);
        cr_expect_eq(nan + pinf + ninf + nzero + sub32 + ordinary, SAMPLE,
                     "%s: nothing else (e.g. a subnormal that f32 flushed)", dt);
        free(x);
    }
}

Test(gen, round_to_f32_is_round_to_nearest_even)
{
    /* 1 + 2^-24 is half way between 1 and 1 + 2^-23: ties go to the even significand, 1 */
    cr_expect_eq(gv_round_to(1 + 0x1p-24, GV_F32), 1.0);
    cr_expect_eq(gv_round_to(-(1 + 0x1p-24), GV_F32), -1.0);
    /* 1 + 3 * 2^-24 is half way between 1 + 2^-23 (odd) and 1 + 2^-22 (even) */
    cr_expect_eq(gv_round_to(1 + 3 * 0x1p-24, GV_F32), 1 + 0x1p-22);
    /* just above the half way point rounds up, just below rounds down */
    cr_expect_eq(gv_round_to(1 + 0x1p-24 + 0x1p-50, GV_F32), 1 + 0x1p-23);
    cr_expect_eq(gv_round_to(1 + 0x1p-24 - 0x1p-50, GV_F32), 1.0);
    /* not truncation: 1 - 2^-26 (below 1, f32 spacing 2^-24 there) goes up to 1 */
    cr_expect_eq(gv_round_to(1 - 0x1p-26, GV_F32), 1.0);
    /* subnormal ties: 2^-150 is half of the smallest subnormal, to even 0;
       3 * 2^-150 is half way between 2^-149 (odd) and 2^-148 (even) */
    cr_expect_eq(gv_round_to(0x1p-150, GV_F32), 0.0);
    cr_expect_eq(gv_round_to(3 * 0x1p-150, GV_F32), 0x1p-148);
    /* past FLT_MAX by half its ulp (2^104 / 2): a tie with an odd significand -> Inf */
    cr_expect(isinf(gv_round_to((double)FLT_MAX + 0x1p103, GV_F32)));
    cr_expect_eq(gv_round_to((double)FLT_MAX + 0x1p102, GV_F32), (double)FLT_MAX);
    /* f64 is the identity */
    cr_expect_eq(gv_round_to(1 + 0x1p-52, GV_F64), 1 + 0x1p-52);
    cr_expect(isnan(gv_round_to(NAN, GV_F32)));
    cr_expect(signbit(gv_round_to(-0.0, GV_F32)));
}

Test(gen, f32_fill_stores_exact_floats)
{
    for (int d = 0; d < GV_NDISTS; d++) {
        double x[4096];
        gv_gen_fill(x, 4096, (gv_dist)d, GV_F32, 5, 3);
        int inexact = 0;
        for (int i = 0; i < 4096; i++)
            inexact += !isnan(x[i]) && (double)(float)x[i] != x[i];
        cr_expect_eq(inexact, 0, "%s: %d values not representable in f32", gv_dist_name((gv_dist)d),
                     inexact);
        /* and the rounding happened: uniform draws carry 53 bits, f32 keeps 24 */
        if (d == GV_DIST_UNIFORM01) {
            int changed = 0;
            for (int i = 0; i < 4096; i++)
                changed += x[i] != gv_gen_value(d, 5, 3, (uint64_t)i);
            cr_expect_gt(changed, 4000);
        }
    }
}

/* ---- the edge distributions and the pinned values ---------------------------------------- */

/* An edge value as gen.h specifies it, computed the plain way (ldexp, then the dtype's
   rounding): sign from bit 0, binade top - floor(((bits >> 1) & 1023) width / 1024), p - 1
   fraction bits from the top. */
static double ref_edge(uint64_t bits, const gv_dist_window *w, gv_dtype t)
{
    int p = gv_dtype_mantissa_bits(t);
    double m = 1.0 + (double)(bits >> (65 - p)) * ldexp(1.0, 1 - p);
    int e = w->top - (int)((((bits >> 1) & 0x3FF) * (uint64_t)w->width) >> 10);
    double v = gv_round_to(ldexp(m, e), t);
    return (bits & 1) ? -v : v;
}

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

Test(gen, edge_values_are_the_rounded_ldexp_bit_for_bit)
{
    /* windows over every branch: f64 and f32 subnormals (ties to even included: at a shift of
       one bit half the draws are ties), flushed to zero, just normal, huge, overflowing */
    static const struct {
        gv_dtype t;
        gv_dist_window w;
    } cases[] = {
        {GV_F64, {-1021, 54, 0}}, {GV_F64, {-1060, 60, 0}}, {GV_F64, {-1100, 80, 0}},
        {GV_F64, {-510, 29, 0}},  {GV_F64, {1023, 4, 0}},   {GV_F64, {1030, 16, 0}},
        {GV_F64, {7, 8, 0}},      {GV_F32, {-125, 25, 0}},  {GV_F32, {-140, 40, 0}},
        {GV_F32, {-170, 60, 0}},  {GV_F32, {-62, 15, 0}},   {GV_F32, {127, 4, 0}},
        {GV_F32, {130, 8, 0}},    {GV_F32, {7, 8, 0}},      {GV_F64, {0, 1024, 0}},
        {GV_F32, {0, 1024, 0}},
    };
    enum { N = 1 << 16 };
    double *got = malloc(N * sizeof *got);
    cr_assert_not_null(got);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int d = 0; d < 2; d++) {
            gv_dist dist = d ? GV_DIST_HUGE : GV_DIST_TINY; /* one generator, two windows */
            gv_gen_fill_window(got, 5, N, dist, cases[c].t, 77, (uint64_t)c, &cases[c].w);
            int bad = 0;
            for (int64_t k = 0; k < N; k++) {
                double want = ref_edge(gv_gen_bits(77, (uint64_t)c, (uint64_t)(5 + k)), &cases[c].w,
                                       cases[c].t);
                if (bits_of(want) != bits_of(got[k]) && bad++ < 3)
                    cr_log_error("window %zu (%s, top %d, width %d), element %lld: got %a want %a",
                                 c, gv_dtype_name(cases[c].t), cases[c].w.top, cases[c].w.width,
                                 (long long)(5 + k), got[k], want);
            }
            cr_expect_eq(bad, 0, "window %zu: %d of %d edge values differ", c, bad, N);
        }
    }
    free(got);
}

/* An op stand-in for gv_dist_window_of: degree 2 (a product), 4096 terms an output. */
static double depth_4096(const gv_case *c)
{
    (void)c;
    return 4096.0;
}

/* The first values of every distribution, pinned: users' saved baselines and the oracle
   cache hold results of these inputs, so a change of the generator that moves one bit fails
   here. The digests are xxh64 (seed 0) of the f64 values, recorded from the generator as it
   stood before the edge distributions were computed from bits (gpuval 0.x, commit fd064e4);
   they are the generator's definition, never to be updated to follow a change. */
Test(gen, first_values_of_every_distribution_are_pinned)
{
    static const uint64_t plain[GV_NDISTS][GV_NDTYPES] = {
        {0x0fcbc5aa4a6dedf8ull, 0xd69fb779f2c31d15ull}, /* uniform01 f32, f64 */
        {0x3a690a851cd13b0cull, 0x30aef67c71ab7423ull}, /* uniform11 f32, f64 */
        {0x8c072446aedcfa88ull, 0x8c072446aedcfa88ull}, /* smallint f32, f64 */
        {0x7426d12fbec6628full, 0x731f03bae58733e4ull}, /* special f32, f64 */
        {0x5c38180f3858d6dcull, 0x5c38180f3858d6dcull}, /* offgrid f32, f64 */
        {0xd2b98f11555207e1ull, 0xd2b98f11555207e1ull}, /* tie f32, f64 */
        {0xd2b98f11555207e1ull, 0xd2b98f11555207e1ull}, /* perm2 f32, f64 */
        {0x4e1e7566fb324339ull, 0x85c759919441cc2full}, /* wide f32, f64 */
        {0xbab1a00104730c77ull, 0xbab1a00104730c77ull}, /* narrow f32, f64 */
        {0xc3a63f46d5635481ull, 0xc3a63f46d5635481ull}, /* width f32, f64 */
        {0xa6e61b84c7654fdcull, 0xf3655b780737f571ull}, /* tiny f32, f64 */
        {0xa6e61b84c7654fdcull, 0xf3655b780737f571ull}, /* huge f32, f64 */
        {0x4b2025f0464d8744ull, 0x9b3d0d37eeb79a78ull}, /* sparse-special f32, f64 */
    };
    /* windowed fills: (tiny, huge, sparse-special) x (element-wise op, degree-2 op of depth
       4096) x dtype, from gv_dist_window_of */
    static const uint64_t windowed[3][2][GV_NDTYPES] = {
        {{0x58d9efc4934873b5ull, 0xe7f611260726b108ull},
         {0xfa4b95a8f50d1c6cull, 0x6fb93af370c3857full}}, /* tiny */
        {{0xc322e3bbde33b612ull, 0x8a212f40decfee25ull},
         {0xed795141a9e2c11full, 0x53be2cfde0916627ull}}, /* huge */
        {{0x8b9995bab93ac809ull, 0x97cfe1f40c10ca50ull},
         {0xd8b0ad2052fd3e75ull, 0x86628bb16da33369ull}}, /* sparse-special */
    };
    enum { N = 4099 };
    double *x = malloc(N * sizeof *x);
    cr_assert_not_null(x);
    for (int d = 0; d < GV_NDISTS; d++)
        for (int t = 0; t < GV_NDTYPES; t++) {
            gv_gen_fill(x, N, (gv_dist)d, (gv_dtype)t, 2024, 1);
            uint64_t h = gv_xxh64(x, N * sizeof *x, 0);
            cr_expect_eq(h, plain[d][t], "%s %s: digest %016llx, pinned %016llx",
                         gv_dist_name((gv_dist)d), gv_dtype_name((gv_dtype)t),
                         (unsigned long long)h, (unsigned long long)plain[d][t]);
        }
    static const gv_dist wd[3] = {GV_DIST_TINY, GV_DIST_HUGE, GV_DIST_SPARSE_SPECIAL};
    gv_op product = {.range_degree = 2, .order_free_depth = depth_4096};
    for (int d = 0; d < 3; d++)
        for (int o = 0; o < 2; o++)
            for (int t = 0; t < GV_NDTYPES; t++) {
                gv_case c = {.op = o ? &product : NULL, .dtype = (gv_dtype)t, .dist = wd[d]};
                gv_dist_window w;
                gv_dist_window_of(&c, wd[d], N, &w);
                gv_gen_fill_window(x, 3, N, wd[d], (gv_dtype)t, 2024, 1, &w);
                uint64_t h = gv_xxh64(x, N * sizeof *x, 0);
                cr_expect_eq(
                    h, windowed[d][o][t], "windowed %s %s %s: digest %016llx, pinned %016llx",
                    gv_dist_name(wd[d]), o ? "product" : "element-wise", gv_dtype_name((gv_dtype)t),
                    (unsigned long long)h, (unsigned long long)windowed[d][o][t]);
            }
    free(x);
}
