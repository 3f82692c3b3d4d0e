/* test_lowp_judge.c: outputs and inputs stored in bf16, f16, e4m3 and e5m2, judged through
 * gv_judge (api/lowp.c): the compute dtype's model plus the output's rounding. The values are
 * encoded here by this file's own rounding (the compiler's _Float16 for f16, bit arithmetic for
 * bf16, nearbyint on the format's grid for fp8), independent of lowp.c's decoder. Shown: an
 * output computed in f32 and stored in a low-precision format PASSes (gemm at k = 4096,
 * softmax over rows of 4096, vadd); the same values labelled f32 FAIL (the rounding was not
 * declared); a dot product accumulated in bf16 FAILs, as does a softmax summed in bf16; zeros,
 * a NaN and one element a format ulp off FAIL; f16 overflow to inf and e4m3 saturation at 448
 * PASS where the true value is past the format's range and FAIL where it is not; ops judged by
 * a backward error refuse these dtypes. No device is used. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../../include/gpuval.h"
#include "api/lowp.h"
#include "testkit.h"

/* ---- this file's own encoders (round to nearest even) ---------------------------------- */

static uint16_t bf16_of(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    if ((b & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((b >> 16) | 0x40); /* quiet NaN */
    b += 0x7fffu + ((b >> 16) & 1u);
    return (uint16_t)(b >> 16);
}
static float f32_of_bf16(uint16_t h)
{
    uint32_t b = (uint32_t)h << 16;
    float x;
    memcpy(&x, &b, 4);
    return x;
}
static uint16_t f16_of(float x)
{
    _Float16 h = (_Float16)x;
    uint16_t b;
    memcpy(&b, &h, 2);
    return b;
}
/* An OCP fp8 code: p significand bits, smallest normal 2^emin, exponent bias; sat: saturate
   to the largest finite (E4M3 as cuBLASLt writes it), else overflow to inf (E5M2). */
static uint8_t fp8_of(double x, int p, int emin, int bias, double max_finite, bool sat)
{
    int mbits = p - 1;
    uint8_t sign = signbit(x) ? 0x80 : 0;
    double a = fabs(x);
    int e = a > 0 ? ilogb(a) : emin;
    if (e < emin) e = emin;
    double v = ldexp(nearbyint(ldexp(a, p - 1 - e)), e - p + 1); /* RNE on the grid */
    if (v > max_finite) {
        if (sat)
            v = max_finite;
        else
            return (uint8_t)(sign | (0x1f << 2)); /* E5M2 inf */
    }
    if (v == 0) return sign;
    int ve = ilogb(v);
    if (ve < emin) /* subnormal: exponent field 0 */
        return (uint8_t)(sign | (int)ldexp(v, -(emin - p + 1)));
    int m = (int)(ldexp(v, -(ve - p + 1))) - (1 << mbits);
    return (uint8_t)(sign | ((ve + bias) << mbits) | m);
}
static uint8_t e4m3_of(double x)
{
    return fp8_of(x, 4, -6, 7, 448.0, true);
}
static uint8_t e5m2_of(double x)
{
    return fp8_of(x, 3, -14, 15, 57344.0, false);
}

/* uniform on [lo, hi), a fixed LCG: the same inputs every run */
static double uni(uint64_t *s, double lo, double hi)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(*s >> 11) * 0x1p-53;
}

typedef struct judged {
    int rc;
    gv_judgement j;
} judged;

static judged judge(const char *op, const char *size, int n_in, const gv_array *in,
                    const gv_array *out)
{
    gv_judge_spec s = {.op = op, .size = size, .n_in = n_in, .n_out = 1, .in = in, .out = out};
    judged r;
    r.rc = gv_judge(&s, &r.j);
    return r;
}

static void expect_verdict(const char *what, judged r, int verdict)
{
    cr_assert_eq(r.rc, GV_API_OK, "%s: %s", what, r.j.reason);
    cr_expect_eq(r.j.verdict, verdict, "%s: verdict %d, want %d: %s (ratio %g, max_rel %g)", what,
                 r.j.verdict, verdict, r.j.reason, r.j.ratio, r.j.max_rel);
    printf("%-44s %s  max_rel %.3g  ratio %.3g  %s\n", what,
           r.j.verdict == GV_VERDICT_PASS ? "PASS" : "FAIL", r.j.max_rel, r.j.ratio, r.j.reason);
    gv_judgement_free(&r.j);
}

/* ---- the preimage of a stored value ----------------------------------------------------- */

Test(lowp, preimages_are_half_an_ulp_each_side_and_end_where_the_format_does)
{
    double lo, hi;
    const gv_lowp_info *bf = gv_lowp_get(GV_DTYPE_BF16), *h = gv_lowp_get(GV_DTYPE_F16);
    const gv_lowp_info *e4 = gv_lowp_get(GV_DTYPE_E4M3), *e5 = gv_lowp_get(GV_DTYPE_E5M2);
    cr_assert(bf && h && e4 && e5);
    cr_expect_null(gv_lowp_get(GV_DTYPE_F32));
    gv_lowp_preimage(bf, 1.5, &lo, &hi); /* spacing 2^-7 in [1, 2) */
    cr_expect(lo == 1.5 - 0x1p-8 && hi == 1.5 + 0x1p-8, "bf16 1.5: [%a, %a]", lo, hi);
    gv_lowp_preimage(bf, 1.0, &lo, &hi); /* below 1 the spacing halves */
    cr_expect(lo == 1.0 - 0x1p-9 && hi == 1.0 + 0x1p-8, "bf16 1: [%a, %a]", lo, hi);
    gv_lowp_preimage(h, -2.0, &lo, &hi);
    cr_expect(lo == -2.0 - 0x1p-10 && hi == -2.0 + 0x1p-11, "f16 -2: [%a, %a]", lo, hi);
    gv_lowp_preimage(h, 65504.0, &lo, &hi); /* f16 overflows to inf from 65520 */
    cr_expect(lo == 65488.0 && hi == 65520.0, "f16 max: [%g, %g]", lo, hi);
    gv_lowp_preimage(h, INFINITY, &lo, &hi);
    cr_expect(lo == 65520.0 && hi == INFINITY, "f16 inf: [%g, %g]", lo, hi);
    gv_lowp_preimage(h, 0.0, &lo, &hi); /* half the subnormal spacing 2^-24 */
    cr_expect(lo == -0x1p-25 && hi == 0x1p-25, "f16 0: [%a, %a]", lo, hi);
    gv_lowp_preimage(h, 0x1p-24, &lo, &hi); /* the smallest subnormal */
    cr_expect(lo == 0x1p-25 && hi == 0x3p-25, "f16 2^-24: [%a, %a]", lo, hi);
    gv_lowp_preimage(e4, 448.0, &lo, &hi); /* saturated: no infinity in E4M3 */
    cr_expect(lo == 432.0 && hi == INFINITY, "e4m3 448: [%g, %g]", lo, hi);
    gv_lowp_preimage(e4, 0.0, &lo, &hi);
    cr_expect(lo == -0x1p-10 && hi == 0x1p-10, "e4m3 0: [%a, %a]", lo, hi);
    gv_lowp_preimage(e5, 57344.0, &lo, &hi);
    cr_expect(lo == 53248.0 && hi == 61440.0, "e5m2 max: [%g, %g]", lo, hi);
    gv_lowp_preimage(bf, NAN, &lo, &hi);
    cr_expect(isnan(lo) && isnan(hi));
}

Test(lowp, decoding_agrees_with_this_files_encoders_on_every_code)
{
    const gv_lowp_info *e4 = gv_lowp_get(GV_DTYPE_E4M3), *e5 = gv_lowp_get(GV_DTYPE_E5M2);
    const gv_lowp_info *h = gv_lowp_get(GV_DTYPE_F16), *bf = gv_lowp_get(GV_DTYPE_BF16);
    int nan4 = 0;
    for (int b = 0; b < 256; b++) {
        uint8_t code = (uint8_t)b;
        double v4 = gv_lowp_decode(e4, &code, 0), v5 = gv_lowp_decode(e5, &code, 0);
        if (isnan(v4))
            nan4++;
        else
            cr_expect_eq(e4m3_of(v4), code, "e4m3 0x%02x decodes to %g", b, v4);
        if (!isnan(v5) && !isinf(v5)) cr_expect_eq(e5m2_of(v5), code, "e5m2 0x%02x -> %g", b, v5);
    }
    cr_expect_eq(nan4, 2, "E4M3 has two NaN codes (S.1111.111)");
    for (uint32_t b = 0; b < 65536; b += 7) {
        uint16_t code = (uint16_t)b;
        double vh = gv_lowp_decode(h, &code, 0), vb = gv_lowp_decode(bf, &code, 0);
        if (!isnan(vh)) cr_expect_eq(f16_of((float)vh), code, "f16 0x%04x -> %g", b, vh);
        if (!isnan(vb)) cr_expect(vb == (double)f32_of_bf16(code), "bf16 0x%04x", b);
    }
}

/* ---- gemm: A (16 x 4096) B (4096 x 16), bf16 inputs ---------------------------------- */

#define GM 16
#define GK 4096
#define GN 16

typedef struct gemm_data {
    uint16_t a[GM * GK], b[GK * GN]; /* bf16 inputs */
    float af[GM * GK], bf[GK * GN];  /* the same values in f32 */
    float c32[GM * GN];              /* f32 accumulation (fmaf in k order) */
    float cacc[GM * GN];             /* bf16 accumulation: each partial sum rounded to bf16 */
} gemm_data;

static gemm_data *gemm_make(void)
{
    gemm_data *g = calloc(1, sizeof *g);
    cr_assert_not_null(g);
    uint64_t s = 2026;
    for (int i = 0; i < GM * GK; i++) {
        g->a[i] = bf16_of((float)uni(&s, -1, 1));
        g->af[i] = f32_of_bf16(g->a[i]);
    }
    for (int i = 0; i < GK * GN; i++) {
        g->b[i] = bf16_of((float)uni(&s, -1, 1));
        g->bf[i] = f32_of_bf16(g->b[i]);
    }
    for (int i = 0; i < GM; i++)
        for (int j = 0; j < GN; j++) {
            float s32 = 0.0f, sacc = 0.0f;
            for (int p = 0; p < GK; p++) {
                s32 = fmaf(g->af[i * GK + p], g->bf[p * GN + j], s32);
                sacc = f32_of_bf16(bf16_of(fmaf(g->af[i * GK + p], g->bf[p * GN + j], sacc)));
            }
            g->c32[i * GN + j] = s32;
            g->cacc[i * GN + j] = sacc;
        }
    return g;
}

static judged judge_gemm(const gemm_data *g, int in_dtype, int out_dtype, const void *out)
{
    gv_array in[2] = {
        {in_dtype, in_dtype == GV_DTYPE_BF16 ? (const void *)g->a : (const void *)g->af, GM * GK,
         "A"},
        {in_dtype, in_dtype == GV_DTYPE_BF16 ? (const void *)g->b : (const void *)g->bf, GK * GN,
         "B"}};
    gv_array o = {out_dtype, out, GM * GN, "C"};
    return judge("gemm", "16x4096x16", 2, in, &o);
}

Test(lowp, gemm_f32_accumulation_stored_low_passes_bf16_accumulation_fails, .timeout = 120)
{
    gemm_data *g = gemm_make();
    uint16_t c16[GM * GN], h16[GM * GN];
    uint8_t c8[GM * GN], c85[GM * GN];
    float back[GM * GN];
    for (int i = 0; i < GM * GN; i++) {
        c16[i] = bf16_of(g->c32[i]);
        h16[i] = f16_of(g->c32[i]);
        c8[i] = e4m3_of(g->c32[i]);
        c85[i] = e5m2_of(g->c32[i]);
        back[i] = f32_of_bf16(c16[i]);
    }
    judged first = judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_BF16, c16);
    /* the measured error is the stored values' own (2^-9 of rounding), not the preimage's */
    cr_expect(first.j.max_rel > 1e-3 && first.j.bits < 10, "max_rel %g, bits %g", first.j.max_rel,
              first.j.bits);
    cr_expect_not_null(strstr(first.j.json, "outputs given as bf16"), "%s", first.j.json);
    expect_verdict("gemm bf16 in, f32 acc, bf16 out", first, GV_VERDICT_PASS);
    expect_verdict("gemm bf16 in, f32 acc, f16 out",
                   judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_F16, h16), GV_VERDICT_PASS);
    expect_verdict("gemm bf16 in, f32 acc, e4m3 out",
                   judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_E4M3, c8), GV_VERDICT_PASS);
    expect_verdict("gemm bf16 in, f32 acc, e5m2 out",
                   judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_E5M2, c85), GV_VERDICT_PASS);
    /* mixed: bf16 inputs, the f32 output itself: the f32 model, no output rounding */
    expect_verdict("gemm bf16 in, f32 out", judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_F32, g->c32),
                   GV_VERDICT_PASS);
    /* the bf16 output claimed as f32: its rounding is 2^-9, far past f32's */
    expect_verdict("gemm bf16 values labelled f32", judge_gemm(g, GV_DTYPE_F32, GV_DTYPE_F32, back),
                   GV_VERDICT_FAIL);
    /* accumulated in bf16: every partial sum rounded to 8 bits */
    uint16_t acc16[GM * GN];
    for (int i = 0; i < GM * GN; i++)
        acc16[i] = bf16_of(g->cacc[i]);
    expect_verdict("gemm bf16 accumulation, bf16 out",
                   judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_BF16, acc16), GV_VERDICT_FAIL);
    uint16_t zeros[GM * GN] = {0};
    expect_verdict("gemm zeros, bf16 out", judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_BF16, zeros),
                   GV_VERDICT_FAIL);
    uint16_t nan1[GM * GN];
    memcpy(nan1, c16, sizeof nan1);
    nan1[37] = 0x7fc0;
    expect_verdict("gemm one NaN, bf16 out", judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_BF16, nan1),
                   GV_VERDICT_FAIL);
    uint16_t off[GM * GN];
    memcpy(off, c16, sizeof off);
    off[100] = (uint16_t)(off[100] + 2); /* two bf16 ulps: past the half ulp of rounding */
    expect_verdict("gemm one element 2 ulps off, bf16 out",
                   judge_gemm(g, GV_DTYPE_BF16, GV_DTYPE_BF16, off), GV_VERDICT_FAIL);
    free(g);
}

/* ---- softmax.rows: 8 rows of 4096 ------------------------------------------------------- */

#define SM 8
#define SN 4096

Test(lowp, softmax_stored_low_passes_summed_in_bf16_fails, .timeout = 120)
{
    static uint16_t x16[SM * SN], y16[SM * SN], yh[SM * SN], ybad[SM * SN], yz[SM * SN];
    static double x[SM * SN];
    uint64_t s = 7;
    for (int i = 0; i < SM * SN; i++) {
        x16[i] = bf16_of((float)uni(&s, -4, 4));
        x[i] = f32_of_bf16(x16[i]);
    }
    for (int i = 0; i < SM; i++) {
        const double *xr = x + (size_t)i * SN;
        double mx = -INFINITY, sum = 0.0;
        float sum16 = 0.0f;
        for (int j = 0; j < SN; j++)
            mx = fmax(mx, xr[j]);
        for (int j = 0; j < SN; j++) {
            sum += exp(xr[j] - mx);
            /* bf16 arithmetic: each exp and each partial sum rounded to bf16 */
            float e16 = f32_of_bf16(bf16_of((float)exp(xr[j] - mx)));
            sum16 = f32_of_bf16(bf16_of(sum16 + e16));
        }
        for (int j = 0; j < SN; j++) {
            float y = (float)(exp(xr[j] - mx) / sum); /* f32-accurate */
            y16[i * SN + j] = bf16_of(y);
            yh[i * SN + j] = f16_of(y);
            float e16 = f32_of_bf16(bf16_of((float)exp(xr[j] - mx)));
            ybad[i * SN + j] = bf16_of(e16 / sum16);
        }
    }
    gv_array in = {GV_DTYPE_BF16, x16, SM * SN, "X"};
    gv_array o = {GV_DTYPE_BF16, y16, SM * SN, "Y"};
    expect_verdict("softmax bf16 in, bf16 out", judge("softmax.rows", "8x4096", 1, &in, &o),
                   GV_VERDICT_PASS);
    o = (gv_array){GV_DTYPE_F16, yh, SM * SN, "Y"};
    expect_verdict("softmax bf16 in, f16 out", judge("softmax.rows", "8x4096", 1, &in, &o),
                   GV_VERDICT_PASS);
    o = (gv_array){GV_DTYPE_BF16, ybad, SM * SN, "Y"};
    expect_verdict("softmax in bf16 arithmetic", judge("softmax.rows", "8x4096", 1, &in, &o),
                   GV_VERDICT_FAIL);
    o = (gv_array){GV_DTYPE_BF16, yz, SM * SN, "Y"};
    expect_verdict("softmax zeros, bf16 out", judge("softmax.rows", "8x4096", 1, &in, &o),
                   GV_VERDICT_FAIL);
    y16[5] = 0xffc0; /* a NaN */
    o = (gv_array){GV_DTYPE_BF16, y16, SM * SN, "Y"};
    expect_verdict("softmax one NaN, bf16 out", judge("softmax.rows", "8x4096", 1, &in, &o),
                   GV_VERDICT_FAIL);
}

/* ---- vadd: rounding, overflow and saturation ------------------------------------------- */

#define VN 4096

Test(lowp, vadd_rounding_overflow_and_saturation)
{
    static float a[VN], b[VN];
    static uint16_t c16[VN], h16[VN];
    static uint8_t c8[VN];
    uint64_t s = 99;
    for (int i = 0; i < VN; i++) {
        a[i] = (float)uni(&s, -1, 1);
        b[i] = (float)uni(&s, -1, 1);
        c16[i] = bf16_of(a[i] + b[i]);
    }
    gv_array in[2] = {{GV_DTYPE_F32, a, VN, "a"}, {GV_DTYPE_F32, b, VN, "b"}};
    gv_array o = {GV_DTYPE_BF16, c16, VN, "c"};
    expect_verdict("vadd f32 in, bf16 out", judge("vadd", "4096", 2, in, &o), GV_VERDICT_PASS);
    c16[9] = (uint16_t)(c16[9] + 1); /* one bf16 ulp: half an ulp past any rounding */
    expect_verdict("vadd one element 1 ulp off, bf16 out", judge("vadd", "4096", 2, in, &o),
                   GV_VERDICT_FAIL);

    /* f16: sums past 65520 overflow to inf, as RNE to binary16 does */
    for (int i = 0; i < VN; i++) {
        a[i] = (float)uni(&s, 20000, 40000);
        b[i] = (float)uni(&s, 20000, 40000);
        h16[i] = f16_of(a[i] + b[i]);
    }
    int infs = 0;
    for (int i = 0; i < VN; i++)
        infs += h16[i] == 0x7c00;
    cr_assert(infs > 100 && infs < VN - 100, "%d overflowed", infs);
    o = (gv_array){GV_DTYPE_F16, h16, VN, "c"};
    expect_verdict("vadd f16 out, overflow to inf", judge("vadd", "4096", 2, in, &o),
                   GV_VERDICT_PASS);
    for (int i = 0; i < VN; i++)
        if (h16[i] != 0x7c00 && a[i] + b[i] < 65000) {
            h16[i] = 0x7c00; /* inf where the sum is well inside the range */
            break;
        }
    expect_verdict("vadd f16 out, inf below 65520", judge("vadd", "4096", 2, in, &o),
                   GV_VERDICT_FAIL);

    /* e4m3: saturated at 448 past the range passes; NaN there (torch's .to()) fails */
    for (int i = 0; i < VN; i++) {
        a[i] = (float)uni(&s, -300, 300);
        b[i] = (float)uni(&s, -300, 300);
        c8[i] = e4m3_of(a[i] + b[i]);
    }
    o = (gv_array){GV_DTYPE_E4M3, c8, VN, "c"};
    expect_verdict("vadd e4m3 out, saturating at 448", judge("vadd", "4096", 2, in, &o),
                   GV_VERDICT_PASS);
    for (int i = 0; i < VN; i++)
        if (a[i] + b[i] > 480) {
            c8[i] = 0x7f; /* NaN, as PyTorch's float8_e4m3fn conversion gives on overflow */
            break;
        }
    expect_verdict("vadd e4m3 out, NaN on overflow", judge("vadd", "4096", 2, in, &o),
                   GV_VERDICT_FAIL);
}

/* ---- refusals ----------------------------------------------------------------------- */

Test(lowp, ops_not_judged_element_by_element_refuse_low_precision)
{
    static uint16_t a[64 * 64], bvec[64], x[64];
    gv_array in[2] = {{GV_DTYPE_BF16, a, 64 * 64, "A"}, {GV_DTYPE_BF16, bvec, 64, "b"}};
    gv_array o = {GV_DTYPE_BF16, x, 64, "x"};
    gv_judge_spec s = {.op = "solve", .size = "64x2", .n_in = 2, .n_out = 1, .in = in, .out = &o};
    gv_judgement j;
    cr_expect_eq(gv_judge(&s, &j), GV_API_EINVAL);
    cr_expect_not_null(strstr(j.reason, "bf16"), "%s", j.reason);
    cr_expect_not_null(strstr(j.reason, "solve"), "%s", j.reason);
    printf("refused: %s\n", j.reason);
    gv_judgement_free(&j);
    /* generated inputs are gpuval's f32 or f64: bf16 ones cannot be them */
    static uint16_t va[16], vb[16], vc[16];
    gv_array vin[2] = {{GV_DTYPE_BF16, va, 16, "a"}, {GV_DTYPE_BF16, vb, 16, "b"}};
    gv_array vo = {GV_DTYPE_BF16, vc, 16, "c"};
    s = (gv_judge_spec){.op = "vadd",
                        .size = "16",
                        .dist = "uniform01",
                        .n_in = 2,
                        .n_out = 1,
                        .in = vin,
                        .out = &vo};
    cr_expect_eq(gv_judge(&s, &j), GV_API_EINVAL);
    cr_expect_not_null(strstr(j.reason, "distribution"), "%s", j.reason);
    gv_judgement_free(&j);
    /* a dtype code of no format */
    vo.dtype = 9;
    s.dist = NULL;
    cr_expect_eq(gv_judge(&s, &j), GV_API_EINVAL);
    cr_expect_not_null(strstr(j.reason, "dtype 9"), "%s", j.reason);
    gv_judgement_free(&j);
}

/* ---- gpuval judge with .npy files of these dtypes -------------------------------------- */

static void write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

/* A version 1.0 .npy of one dim with the descr given, data of n elements of es bytes. */
static void write_npy(const char *path, const char *descr, int64_t n, const void *data, size_t es)
{
    char head[128];
    int hl =
        snprintf(head, sizeof head, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }",
                 descr, (long long)n);
    int total = 10 + hl + 1;
    int pad = (64 - total % 64) % 64;
    unsigned char buf[256 + 8192];
    cr_assert((size_t)(total + pad) + (size_t)n * es <= sizeof buf);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)((hl + pad + 1) & 0xff);
    buf[9] = (unsigned char)((hl + pad + 1) >> 8);
    memcpy(buf + 10, head, (size_t)hl);
    memset(buf + 10 + hl, ' ', (size_t)pad);
    buf[10 + hl + pad] = '\n';
    memcpy(buf + total + pad, data, (size_t)n * es);
    write_file(path, buf, (size_t)(total + pad) + (size_t)n * es);
}

Test(lowp, judge_cli_reads_f16_bf16_and_declared_raw_bits_and_refuses_hostile_files, .timeout = 120)
{
    char dir[] = "/tmp/gv_lowp_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    enum { N = 512 };
    static float a[N], b[N];
    static uint16_t ha[N], hb[N], hc[N], bc[N];
    static uint8_t ec[N];
    uint64_t s = 5;
    for (int i = 0; i < N; i++) {
        ha[i] = f16_of((float)uni(&s, -2, 2));
        hb[i] = f16_of((float)uni(&s, -2, 2));
        _Float16 fa, fb; /* the f16 values, exact in f32 */
        memcpy(&fa, &ha[i], 2);
        memcpy(&fb, &hb[i], 2);
        a[i] = (float)fa;
        b[i] = (float)fb;
        hc[i] = f16_of(a[i] + b[i]);
        bc[i] = bf16_of(a[i] + b[i]);
        ec[i] = e4m3_of(a[i] + b[i]);
    }
    char pa[96], pb[96], pc[96], pbf[96], praw[96], pe[96], pv1[96], ptr[96], pf[96];
    snprintf(pa, sizeof pa, "%s/a.npy", dir);
    snprintf(pb, sizeof pb, "%s/b.npy", dir);
    snprintf(pc, sizeof pc, "%s/c16.npy", dir);
    snprintf(pbf, sizeof pbf, "%s/cbf.npy", dir);
    snprintf(praw, sizeof praw, "%s/craw.npy", dir);
    snprintf(pe, sizeof pe, "%s/c8.npy", dir);
    snprintf(pv1, sizeof pv1, "%s/c8v.npy", dir);
    snprintf(ptr, sizeof ptr, "%s/trunc.npy", dir);
    snprintf(pf, sizeof pf, "%s/cf32.npy", dir);
    write_npy(pa, "<f2", N, ha, 2); /* f16 inputs: the size read off their shapes */
    write_npy(pb, "<f2", N, hb, 2);
    write_npy(pc, "<f2", N, hc, 2);
    write_npy(pbf, "<V2", N, bc, 2);  /* ml_dtypes' bfloat16 */
    write_npy(praw, "<u2", N, bc, 2); /* raw bits: --dtype bf16 names them */
    write_npy(pe, "|u1", N, ec, 1);
    write_npy(pv1, "|V1", N, ec, 1); /* ml_dtypes' float8_e4m3fn */
    float sum32[N];
    for (int i = 0; i < N; i++)
        sum32[i] = a[i] + b[i];
    write_npy(pf, "<f4", N, sum32, 4); /* mixed: f16 inputs, the f32 output */
    char args[1024], out[8192];
#define JUDGE(extra, outs)                                                                         \
    snprintf(args, sizeof args, "judge --op vadd --inputs %s,%s --outputs %s %s", pa, pb, outs,    \
             extra)
    JUDGE("", pc);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "f16 in and out: %s", out);
    JUDGE("", pbf);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "bf16 out (<V2): %s", out);
    JUDGE("", pf);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "f32 out of f16 inputs: %s", out);
    /* raw bf16 bits beside f32 inputs (beside f16 files they would be a mix-up: below) */
    char pa32[96], pb32[96];
    snprintf(pa32, sizeof pa32, "%s/a32.npy", dir);
    snprintf(pb32, sizeof pb32, "%s/b32.npy", dir);
    write_npy(pa32, "<f4", N, a, 4);
    write_npy(pb32, "<f4", N, b, 4);
    snprintf(args, sizeof args, "judge --op vadd --inputs %s,%s --outputs %s --dtype bf16", pa32,
             pb32, praw);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "raw <u2 as bf16: %s", out);
    JUDGE("--dtype e4m3", pe);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "raw |u1 as e4m3: %s", out);
    JUDGE("--dtype e4m3", pv1);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "|V1 as e4m3: %s", out);
    /* the same fp8 codes read as e5m2 are other numbers: a FAIL, not a usage error */
    JUDGE("--dtype e5m2", pe);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 1, "e4m3 codes as e5m2: %s", out);
    /* hostile and undeclared */
    JUDGE("", praw);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect_not_null(strstr(out, "--dtype"), "raw bits without --dtype: %s", out);
    JUDGE("", pe);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect_not_null(strstr(out, "e4m3 or e5m2"), "%s", out);
    JUDGE("--dtype bf16", pc);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect_not_null(strstr(out, "--dtype says bf16"), "an f16 file declared bf16: %s", out);
    JUDGE("--dtype bf16", pe);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "1-byte bits as bf16: %s", out);
    write_npy(ptr, "<f2", N, hc, 2);
    cr_assert_eq(truncate(ptr, 128 + 2 * (N - 3)), 0); /* short data */
    JUDGE("", ptr);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "truncated: %s", out);
    cr_expect_not_null(strstr(out, "trunc.npy"), "%s", out);
    write_npy(ptr, "<V3", N / 2, hc, 3); /* no format of 3 bytes */
    JUDGE("", ptr);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "<V3: %s", out);
    cr_expect_not_null(strstr(out, "unsupported dtype"), "%s", out);
    write_npy(ptr, ">u2", N, bc, 2);
    JUDGE("--dtype bf16", ptr);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "big-endian: %s", out);
    /* an op judged by its backward error: exit 2 naming the op and the dtype */
    snprintf(args, sizeof args, "judge --op solve --size 8x1 --inputs %s,%s --outputs %s", pa, pb,
             pc);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect_not_null(strstr(out, "f16"), "%s", out);
#undef JUDGE
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    cr_expect_eq(system(rm), 0);
}
