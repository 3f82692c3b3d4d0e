/* probe_blockscaled.c: Blackwell's block-scaled formats (src/probe/blockscaled.c) on CPU-
 * simulated arithmetic: the formats' encode and decode against their definitions, the OCP MX
 * and NVFP4 quantisers, every feature read right on the published model (OCP MX v1.0, NVIDIA's
 * NVFP4 recipe, MMA-Sim's product) and wrong on each planted impostor, and every kind a SKIP
 * that calls nothing on an architecture without block-scaled MMAs (sm_90). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "probe/blockscaled.h"

/* ---- formats ------------------------------------------------------------------------------ */

Test(blockscaled_formats, largest_and_smallest_values_are_the_specs)
{
    /* [OCPMX] table 1 and OFP8: largest normal, smallest subnormal */
    const struct {
        gv_bs_format f;
        double max, minsub;
    } t[] = {
        {GV_BS_E4M3, 448, 0x1p-9},       {GV_BS_E5M2, 57344, 0x1p-16}, {GV_BS_E2M3, 7.5, 0.125},
        {GV_BS_E3M2, 28, 0.0625},        {GV_BS_E2M1, 6, 0.5},         {GV_BS_UE4M3, 448, 0x1p-9},
        {GV_BS_UE8M0, 0x1p127, 0x1p-127}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const char *nm = gv_bs_format_get(t[i].f)->name;
        cr_expect_eq(gv_bs_round(t[i].f, 1e300, false), t[i].max, "%s: clamps to its largest", nm);
        double lo = t[i].f == GV_BS_UE8M0 ? gv_bs_decode(t[i].f, 0) : gv_bs_decode(t[i].f, 1);
        cr_expect_eq(lo, t[i].minsub, "%s: smallest %g, want %g", nm, lo, t[i].minsub);
    }
    cr_expect(isnan(gv_bs_decode(GV_BS_E4M3, 0x7f)), "E4M3 S.1111.111 is NaN");
    cr_expect(isnan(gv_bs_decode(GV_BS_E5M2, 0x7c)), "E5M2 exponent 31 is Inf/NaN, never a value");
    cr_expect(isnan(gv_bs_decode(GV_BS_UE8M0, 0xff)), "E8M0 0xFF is NaN");
    cr_expect_eq(gv_bs_decode(GV_BS_E2M1, 0xf), -6.0, "E2M1 1.11.1 is -6");
}

Test(blockscaled_formats, every_code_round_trips)
{
    for (int f = 0; f < GV_BS_NFORMATS; f++) {
        const gv_bs_format_info *fi = gv_bs_format_get(f);
        unsigned ncodes = f == GV_BS_UE8M0 ? 255 : 1u << (fi->ebits + fi->mbits + fi->sign);
        int finite = 0;
        for (unsigned c = 0; c < ncodes; c++) {
            double v = gv_bs_decode(f, c);
            if (isnan(v)) continue;
            finite++;
            cr_expect_eq(gv_bs_encode(f, v, false), c, "%s: code %#x (%g) round trip", fi->name, c,
                         v);
            cr_expect_eq(gv_bs_encode(f, v, true), c, "%s: code %#x (%g) round trip, rz", fi->name,
                         c, v);
        }
        /* E4M3 loses 2 codes to NaN, E5M2 8 to Inf/NaN, UE4M3 1; the FP6/FP4 none */
        int want = f == GV_BS_E4M3    ? 254
                   : f == GV_BS_E5M2  ? 248
                   : f == GV_BS_UE4M3 ? 127
                   : f == GV_BS_UE8M0 ? 255
                                      : (int)ncodes;
        cr_expect_eq(finite, want, "%s: %d finite codes", fi->name, finite);
    }
}

Test(blockscaled_formats, ties_go_to_even_and_rz_truncates)
{
    /* E2M1's grid 0 0.5 1 1.5 2 3 4 6 */
    const double x[] = {1.25, 1.75, 2.5, 3.5, 5, 0.25, 0.75, 1.3, -1.75, 7};
    const double rne[] = {1, 2, 2, 4, 4, 0, 1, 1.5, -2, 6};
    const double rz[] = {1, 1.5, 2, 3, 4, 0, 0.5, 1, -1.5, 6};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
        cr_expect_eq(gv_bs_round(GV_BS_E2M1, x[i], false), rne[i], "e2m1 rne(%g)", x[i]);
        cr_expect_eq(gv_bs_round(GV_BS_E2M1, x[i], true), rz[i], "e2m1 rz(%g)", x[i]);
    }
    cr_expect_eq(gv_bs_round(GV_BS_E4M3, 1.0625, false), 1.0, "e4m3: 1 + 2^-4 ties to 1");
    cr_expect_eq(gv_bs_round(GV_BS_E4M3, 1.1875, false), 1.25, "e4m3: ties to the even 1.25");
    cr_expect_eq(gv_bs_round(GV_BS_UE4M3, -3, false), 0.0, "unsigned: a negative clamps to 0");
    cr_expect_eq(gv_bs_round(GV_BS_UE8M0, 0x1p-3, false), 0x1p-3);
}

/* ---- the quantisers ------------------------------------------------------------------------ */

Test(blockscaled_quant, mx_scale_is_floor_log2_amax_less_emax_and_elements_clamp)
{
    gv_bs_model md = gv_bs_model_of(GV_BS_MXFP4);
    double x[64] = {0}, el[64], sc[2], t;
    x[0] = 7;     /* [OCPMX]: X = floor(log2 7) - 2 = 0; 7 clamps to 6 */
    x[1] = 1.25;  /* a tie at scale 1: to 1 */
    x[32] = 0.1;  /* block 1: X = -4 - 2 = -6: 0.1 x 64 = 6.4 -> 6 */
    x[33] = 0.01; /* 0.64 -> 0.5 */
    cr_assert_eq(gv_bs_model_quant(&md, GV_BS_MXFP4, 64, x, el, sc, &t), GV_OK);
    cr_expect_eq(sc[0], 1.0);
    cr_expect_eq(el[0], 6.0);
    cr_expect_eq(el[1], 1.0);
    cr_expect_eq(sc[1], 0x1p-6);
    cr_expect_eq(el[32], 6.0);
    cr_expect_eq(el[33], 0.5);
    cr_expect_eq(t, 1.0, "MX has no tensor scale");
}

Test(blockscaled_quant, nvfp4_scales_per_16_in_e4m3_under_a_tensor_scale)
{
    gv_bs_model md = gv_bs_model_of(GV_BS_NVFP4);
    double x[32] = {0}, el[32], sc[2], t;
    x[0] = 2688;  /* the tensor's amax: 6 x 448, tensor scale 1 */
    x[16] = 1;    /* block 1's amax: scale E4M3(1/6) = 0.171875, 1 / 0.171875 = 5.8 -> 6 */
    x[17] = 0.25; /* 1.45 -> 1.5 */
    cr_assert_eq(gv_bs_model_quant(&md, GV_BS_NVFP4, 32, x, el, sc, &t), GV_OK);
    cr_expect_eq(t, 1.0);
    cr_expect_eq(sc[0], 448.0);
    cr_expect_eq(el[0], 6.0);
    cr_expect_eq(sc[1], 0.171875);
    cr_expect_eq(el[16], 6.0);
    cr_expect_eq(el[17], 1.5);
}

/* NaN never passes: a NaN in a block makes its scale NaN ([OCPMX] 6.3), so every value of that
   block, and every dot product through it, is NaN; the other blocks are untouched. */
Test(blockscaled_quant, a_nan_makes_its_block_nan_and_the_dot_nan)
{
    for (int k = 0; k < GV_BS_NKINDS; k++) {
        gv_bs_model md = gv_bs_model_of(k);
        int64_t L = gv_bs_kind_get(k)->block;
        double x[64] = {0}, el[64], sc[4], t, out;
        x[0] = 1;
        x[1] = NAN;
        x[L] = 1.5;
        x[2 * L - 1] = -3;
        cr_assert_eq(gv_bs_model_quant(&md, k, 2 * L, x, el, sc, &t), GV_OK);
        const char *kn = gv_bs_kind_get(k)->name;
        for (int64_t l = 0; l < L; l++)
            cr_expect(isnan(el[l] * sc[0] * t), "%s: element %lld of the NaN's block", kn,
                      (long long)l);
        cr_expect(isfinite(el[L] * sc[1] * t), "%s: the next block is not touched", kn);
        double one[64];
        for (int l = 0; l < 64; l++)
            one[l] = 1;
        cr_assert_eq(gv_bs_model_mma(&md, k, 2 * L, el, sc, one, one, t, 1, &out), GV_OK);
        cr_expect(isnan(out), "%s: the dot through a NaN block is %g", kn, out);
        x[1] = INFINITY;
        cr_assert_eq(gv_bs_model_quant(&md, k, 2 * L, x, el, sc, &t), GV_OK);
        cr_expect(isnan(el[0] * sc[0] * t), "%s: Inf in a block: NaN, not the largest value", kn);
    }
    cr_expect(isnan(gv_bs_round(GV_BS_E2M1, NAN, false)), "rounding keeps NaN in every format");
    cr_expect(isnan(gv_bs_round(GV_BS_E4M3, NAN, false)));
}

/* ---- the features on the published model and on the impostors ------------------------------- */

static const char *reading(const gv_bs_print *bp, int f)
{
    return bp->f[f].text;
}

static void measure(gv_bs_kind k, int sm, const gv_bs_model *md, gv_bs_print *bp)
{
    int rc = gv_bs_measure(k, sm, gv_bs_model_quant, gv_bs_model_mma, (void *)md, bp);
    cr_assert_eq(rc, GV_OK, "%s: rc %d", gv_bs_kind_get(k)->name, rc);
    gv_bs_judge(sm, bp);
}

Test(blockscaled_probe, the_published_model_reads_every_expected_value)
{
    const int sms[] = {100, 103, 120};
    for (int k = 0; k < GV_BS_NKINDS; k++) {
        gv_bs_model md = gv_bs_model_of(k);
        for (size_t s = 0; s < sizeof sms / sizeof sms[0]; s++) {
            gv_bs_print bp;
            measure(k, sms[s], &md, &bp);
            bool fp4 = gv_bs_kind_get(k)->elem == GV_BS_E2M1;
            for (int f = 0; f < GV_BS_NFEATURES; f++) {
                cr_expect_eq(bp.verdict[f], GV_FP_PASS, "%s sm_%d %s: read %s (%s), expected %s",
                             gv_bs_kind_get(k)->name, sms[s], gv_bs_feature_name(f),
                             reading(&bp, f), bp.f[f].detail, bp.expect[f]);
                cr_expect(bp.source[f] && *bp.source[f], "every expectation names its source");
            }
            /* MMA-Sim's two kinds: FP4 groups of 16 at 35 bits, FP8/FP6 single terms at 25 */
            cr_expect_str_eq(reading(&bp, GV_BS_GROUP), fp4 ? "16" : "1");
            cr_expect_str_eq(reading(&bp, GV_BS_ACC_FRAC_BITS), fp4 ? "35" : "25");
        }
    }
}

/* A planted impostor: the published model of kind with one thing changed, and the feature that
   must read it (with the value it reads). */
typedef struct plant {
    const char *name;
    gv_bs_kind kind;
    void (*change)(gv_bs_model *);
    int feature;
    const char *reads;
} plant;

/* Each change sets one field of the model to one value. */
#define CHANGE(name, field, value)                                                                 \
    static void name(gv_bs_model *m)                                                               \
    {                                                                                              \
        m->field = value;                                                                          \
    }
CHANGE(scale_ignored, mma_scale, GV_BS_USE_NONE)
CHANGE(scale_per_tensor_mma, mma_scale, GV_BS_USE_FIRST)
CHANGE(scale_per_tensor_quant, q_tensor, true)
CHANGE(mma_block16, mma_block, 16)
CHANGE(mma_block32, mma_block, 32)
CHANGE(mma_block64, mma_block, 64)
CHANGE(quant_block16, q_block, 16)
CHANGE(quant_block32, q_block, 32)
CHANGE(quant_block64, q_block, 64)
CHANGE(e8m0_ceil, q_xround, GV_BS_XCEIL)
CHANGE(e8m0_nearest, q_xround, GV_BS_XNEAREST)
CHANGE(ue4m3_rz, q_scale_rz, true)
CHANGE(elem_rz, q_elem_rz, true)
CHANGE(acc_rn, acc_rn, true)
CHANGE(no_extra_bits, frac_bits, 23)
CHANGE(group32, group, 32)
CHANGE(group8, group, 8)
CHANGE(group16, group, 16)
CHANGE(frac25, frac_bits, 25)

Test(blockscaled_probe, every_planted_impostor_fails_the_feature_that_tells_it)
{
    const plant p[] = {
        {"scales ignored by the MMA", GV_BS_MXFP4, scale_ignored, GV_BS_SCALE_APPLY, "none"},
        {"scales ignored by the MMA", GV_BS_NVFP4, scale_ignored, GV_BS_SCALE_APPLY, "none"},
        {"scales ignored by the MMA", GV_BS_MXFP8_E4M3, scale_ignored, GV_BS_SCALE_APPLY, "none"},
        {"block 0's scale for the tensor", GV_BS_MXFP6_E2M3, scale_per_tensor_mma,
         GV_BS_SCALE_APPLY, "tensor"},
        {"one scale per tensor", GV_BS_MXFP4, scale_per_tensor_quant, GV_BS_Q_SCALE_GROUP,
         "tensor"},
        {"one scale per tensor", GV_BS_MXFP8_E5M2, scale_per_tensor_quant, GV_BS_Q_SCALE_GROUP,
         "tensor"},
        {"one scale per tensor", GV_BS_NVFP4, scale_per_tensor_quant, GV_BS_Q_SCALE_GROUP,
         "tensor"},
        {"MMA reads MX scales per 16", GV_BS_MXFP4, mma_block16, GV_BS_SCALE_BLOCK, "16"},
        {"MMA reads MX scales per 64", GV_BS_MXFP8_E4M3, mma_block64, GV_BS_SCALE_BLOCK, "64"},
        {"MMA reads NVFP4 scales per 32", GV_BS_NVFP4, mma_block32, GV_BS_SCALE_BLOCK, "32"},
        {"quantiser's amax over 16 under MX", GV_BS_MXFP6_E3M2, quant_block16, GV_BS_Q_BLOCK, "16"},
        {"quantiser's amax over 64 under MX", GV_BS_MXFP4, quant_block64, GV_BS_Q_BLOCK, "64"},
        {"quantiser's amax over 32 under NVFP4", GV_BS_NVFP4, quant_block32, GV_BS_Q_BLOCK, "32"},
        {"E8M0 exponent rounded up", GV_BS_MXFP4, e8m0_ceil, GV_BS_Q_SCALE_ROUND, "ceil"},
        {"E8M0 exponent rounded up", GV_BS_MXFP8_E5M2, e8m0_ceil, GV_BS_Q_SCALE_ROUND, "ceil"},
        {"E8M0 exponent to nearest", GV_BS_MXFP6_E2M3, e8m0_nearest, GV_BS_Q_SCALE_ROUND,
         "nearest"},
        {"UE4M3 scale truncated", GV_BS_NVFP4, ue4m3_rz, GV_BS_Q_SCALE_ROUND, "RZ"},
        {"elements truncated", GV_BS_MXFP4, elem_rz, GV_BS_Q_ELEM_ROUND, "RZ"},
        {"elements truncated", GV_BS_MXFP8_E4M3, elem_rz, GV_BS_Q_ELEM_ROUND, "RZ"},
        {"elements truncated", GV_BS_NVFP4, elem_rz, GV_BS_Q_ELEM_ROUND, "RZ"},
        {"FP4 accumulated with RN", GV_BS_MXFP4, acc_rn, GV_BS_ACC_ROUND, "RNE"},
        {"FP4 accumulated with RN", GV_BS_NVFP4, acc_rn, GV_BS_ACC_ROUND, "RNE"},
        {"FP8 accumulated with RN", GV_BS_MXFP8_E4M3, acc_rn, GV_BS_ACC_ROUND, "RNE"},
        {"no alignment bits past f32's", GV_BS_MXFP4, no_extra_bits, GV_BS_ACC_FRAC_BITS, "23"},
        {"no alignment bits past f32's", GV_BS_NVFP4, no_extra_bits, GV_BS_ACC_FRAC_BITS, "23"},
        {"FP4 groups of 32", GV_BS_MXFP4, group32, GV_BS_GROUP, "32"},
        {"FP4 groups of 8", GV_BS_NVFP4, group8, GV_BS_GROUP, "8"},
        {"FP8 products summed in groups of 16", GV_BS_MXFP8_E4M3, group16, GV_BS_GROUP, "16"},
        {"FP6 products summed in groups of 16", GV_BS_MXFP6_E3M2, group16, GV_BS_GROUP, "16"},
        {"FP4 aligned at FP8's 25 bits", GV_BS_MXFP4, frac25, GV_BS_ACC_FRAC_BITS, "25"},
        {"FP4 aligned at FP8's 25 bits", GV_BS_NVFP4, frac25, GV_BS_ACC_FRAC_BITS, "25"},
    };
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) {
        gv_bs_model md = gv_bs_model_of(p[i].kind);
        p[i].change(&md);
        gv_bs_print bp;
        measure(p[i].kind, 100, &md, &bp);
        const char *kn = gv_bs_kind_get(p[i].kind)->name, *fn = gv_bs_feature_name(p[i].feature);
        cr_expect_str_eq(reading(&bp, p[i].feature), p[i].reads, "%s (%s): %s read %s (%s)",
                         p[i].name, kn, fn, reading(&bp, p[i].feature), bp.f[p[i].feature].detail);
        cr_expect_eq(bp.verdict[p[i].feature], GV_FP_FAIL, "%s (%s): %s should FAIL", p[i].name, kn,
                     fn);
    }
}

/* ---- no such hardware ------------------------------------------------------------------------ */

typedef struct counting {
    gv_bs_model md;
    int calls;
} counting;

static int count_quant(void *ctx, gv_bs_kind k, int64_t n, const double *x, double *e, double *s,
                       double *t)
{
    counting *c = ctx;
    c->calls++;
    return gv_bs_model_quant(&c->md, k, n, x, e, s, t);
}

static int count_mma(void *ctx, gv_bs_kind k, int64_t n, const double *a, const double *sa,
                     const double *b, const double *sb, double ta, double tb, double *out)
{
    counting *c = ctx;
    c->calls++;
    return gv_bs_model_mma(&c->md, k, n, a, sa, b, sb, ta, tb, out);
}

Test(blockscaled_probe, before_blackwell_every_kind_is_a_skip_that_calls_nothing)
{
    const int sms[] = {75, 80, 89, 90};
    for (size_t s = 0; s < sizeof sms / sizeof sms[0]; s++)
        for (int k = 0; k < GV_BS_NKINDS; k++) {
            counting c = {gv_bs_model_of(k), 0};
            gv_bs_print bp;
            cr_expect_eq(gv_bs_measure(k, sms[s], count_quant, count_mma, &c, &bp),
                         GV_EUNSUPPORTED);
            cr_expect(bp.skip);
            cr_expect(strstr(bp.skip_why, "no such hardware") != NULL, "%s", bp.skip_why);
            cr_expect_eq(c.calls, 0, "sm_%d %s: nothing may run", sms[s], gv_bs_kind_get(k)->name);
            cr_expect_eq(gv_bs_judge(sms[s], &bp), 0, "a SKIP is never a FAIL");
        }
    /* and the same callbacks do run where the hardware exists */
    counting c = {gv_bs_model_of(GV_BS_MXFP4), 0};
    gv_bs_print bp;
    cr_expect_eq(gv_bs_measure(GV_BS_MXFP4, 100, count_quant, count_mma, &c, &bp), GV_OK);
    cr_expect_gt(c.calls, 0);
    cr_expect_eq(bp.calls, c.calls);
}

static int failing_mma(void *ctx, gv_bs_kind k, int64_t n, const double *a, const double *sa,
                       const double *b, const double *sb, double ta, double tb, double *out)
{
    (void)ctx, (void)k, (void)n, (void)a, (void)sa, (void)b, (void)sb, (void)ta, (void)tb;
    *out = 0;
    return GV_ECUDA;
}

Test(blockscaled_probe, a_callback_error_is_returned_and_leaves_features_na)
{
    gv_bs_model md = gv_bs_model_of(GV_BS_NVFP4);
    gv_bs_print bp;
    cr_expect_eq(gv_bs_measure(GV_BS_NVFP4, 100, gv_bs_model_quant, failing_mma, &md, &bp),
                 GV_ECUDA);
    cr_expect_str_eq(bp.f[GV_BS_SCALE_APPLY].text, "n/a");
    cr_expect_str_eq(bp.f[GV_BS_ACC_ROUND].text, "n/a");
}

/* ---- the model against a second one ------------------------------------------------------ */

/* A second model of MMA-Sim's block-scaled instruction, written apart from blockscaled.c in
   integers: every term an exact dyadic m 2^k (m an integer), shifted to the alignment's grid
   2^(emax - F) in 128-bit integers with truncation toward zero, the sum truncated to 24
   significant bits. Exponents follow the simulator's split (products: the elements' and the
   scales' own exponents; FP4 groups: the scales' exponents only). */
typedef __int128 i128;

static int fexp(double v, int emin) /* floor(log2 |v|), at least emin; -999 for 0 */
{
    if (v == 0) return -999;
    int e = ilogb(v);
    return e < emin ? emin : e;
}

/* v = m 2^k with m an odd-or-zero integer (v a dyadic with at most 53 bits) */
static void dyadic(double v, int64_t *m, int *k)
{
    if (v == 0) {
        *m = 0;
        *k = 0;
        return;
    }
    int e;
    double f = frexp(v, &e);
    *m = (int64_t)ldexp(f, 53);
    *k = e - 53;
    while ((*m & 1) == 0) {
        *m /= 2;
        (*k)++;
    }
}

static i128 on_grid(double v, int grid) /* trunc(v / 2^grid) */
{
    int64_t m;
    int k;
    dyadic(v, &m, &k);
    int sh = k - grid;
    /* the magnitude is shifted, never a negative value (undefined behaviour in C) */
    if (sh >= 0) return m < 0 ? -((i128)-m << sh) : (i128)m << sh;
    if (-sh >= 100) return 0;
    i128 mag = (i128)(m < 0 ? -m : m) >> -sh;
    return m < 0 ? -mag : mag;
}

static double rz24(i128 s, int grid)
{
    if (s == 0) return 0;
    bool neg = s < 0;
    i128 a = neg ? -s : s;
    int bits = 0;
    for (i128 t = a; t; t >>= 1)
        bits++;
    if (bits > 24) {
        a >>= bits - 24;
        grid += bits - 24;
    }
    double r = ldexp((double)(int64_t)a, grid);
    return neg ? -r : r;
}

static double second_model(gv_bs_kind k, int64_t n, const double *a, const double *sa,
                           const double *b, const double *sb)
{
    const gv_bs_kind_info *ki = gv_bs_kind_get(k);
    bool fp4 = ki->elem == GV_BS_E2M1;
    int K = fp4 ? 64 : 32, G = fp4 ? 16 : 1, F = fp4 ? 35 : 25, L = ki->block;
    int es = ki->scale == GV_BS_UE8M0 ? -127 : -6, ee = 1 - gv_bs_format_get(ki->elem)->bias;
    double c = 0;
    for (int64_t i0 = 0; i0 < n; i0 += K) {
        double val[80];
        int ex[80], nt = 0;
        val[nt] = c;
        ex[nt++] = fexp(c, -126);
        for (int64_t g0 = i0; g0 < i0 + K; g0 += G) {
            double s = sa[g0 / L] * sb[g0 / L], sum = 0;
            for (int64_t l = g0; l < g0 + G; l++)
                sum += a[l] * b[l];
            val[nt] = sum * s;
            ex[nt++] = sum == 0 ? -999
                       : G == 1 ? fexp(a[g0], ee) + fexp(b[g0], ee) + fexp(sa[g0 / L], es) +
                                      fexp(sb[g0 / L], es)
                                : fexp(sa[g0 / L], es) + fexp(sb[g0 / L], es);
        }
        int emax = -999;
        for (int i = 0; i < nt; i++)
            if (ex[i] > emax) emax = ex[i];
        i128 S = 0;
        for (int i = 0; i < nt; i++)
            S += on_grid(val[i], emax - F);
        c = rz24(S, emax - F);
    }
    return c;
}

/* 10^4 random dot products of 128 per kind: random elements of the format, random scales (UE8M0
   2^-20..2^20, UE4M3 any positive value), zeros and signs: the model and the second one agree
   bit for bit; with the alignment 6 bits narrower the second one disagrees (the comparison can
   fail). */
Test(blockscaled_model, agrees_with_a_second_model_in_integers)
{
    uint64_t seed = 41;
    for (int k = 0; k < GV_BS_NKINDS; k++) {
        const gv_bs_kind_info *ki = gv_bs_kind_get(k);
        const gv_bs_format_info *fe = gv_bs_format_get(ki->elem);
        unsigned ncodes = 1u << (fe->ebits + fe->mbits + 1);
        gv_bs_model md = gv_bs_model_of(k), narrow = md;
        narrow.frac_bits -= 6;
        int n = 128, agree = 0, agree_narrow = 0, dots = 10000;
        double a[128], b[128], sa[8], sb[8];
        for (int d = 0; d < dots; d++) {
            for (int l = 0; l < n; l++) {
                double x, y;
                do {
                    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                    x = gv_bs_decode(ki->elem, (unsigned)(seed >> 33) % ncodes);
                    y = gv_bs_decode(ki->elem, (unsigned)(seed >> 13) % ncodes);
                } while (isnan(x) || isnan(y));
                a[l] = x;
                b[l] = y;
            }
            for (int q = 0; q < n / ki->block; q++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                if (ki->scale == GV_BS_UE8M0) {
                    sa[q] = ldexp(1.0, (int)((seed >> 40) % 41) - 20);
                    sb[q] = ldexp(1.0, (int)((seed >> 20) % 41) - 20);
                } else {
                    sa[q] = gv_bs_decode(GV_BS_UE4M3, 1 + (unsigned)((seed >> 40) % 126));
                    sb[q] = gv_bs_decode(GV_BS_UE4M3, 1 + (unsigned)((seed >> 20) % 126));
                }
            }
            double o, on, want = second_model(k, n, a, sa, b, sb);
            gv_bs_model_mma(&md, k, n, a, sa, b, sb, 1, 1, &o);
            gv_bs_model_mma(&narrow, k, n, a, sa, b, sb, 1, 1, &on);
            agree += o == want;
            agree_narrow += on == want;
        }
        cr_log_info("%s: %d of %d agree bit for bit; 6 bits narrower %d", ki->name, agree, dots,
                    agree_narrow);
        cr_expect_eq(agree, dots, "%s: %d of %d dot products agree bit for bit", ki->name, agree,
                     dots);
        cr_expect_lt(agree_narrow, dots, "%s: 6 bits narrower agrees on %d of %d", ki->name,
                     agree_narrow, dots);
    }
}
