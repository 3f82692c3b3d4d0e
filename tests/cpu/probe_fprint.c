/* probe_fprint.c: the probes' constructions (src/probe/fprint.c) on arithmetics simulated on the
 * CPU, where the answer of every feature is known from the simulation's definition: an IEEE
 * FMA chain in f32 and f64, the same unfused and flushing subnormals, the published tensor-core
 * block FMA models (src/core/bfma.c) behind a conversion that rounds or truncates, fp8 with
 * and without promotion of its partial sums, and a fixed-point row emulation. A construction
 * that cannot tell these apart fails here before it reaches a GPU. Also the expectation files'
 * reader and judge. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bfma.h"
#include "ops/gemm_fp8.h"
#include "probe/expect.h"
#include "probe/expect_files.h"
#include "probe/fprint.h"
#include "probe/replay.h"

typedef enum {
    SIM_FMA,     /* acc = fma(a, b, acc) in the storage dtype, k in order */
    SIM_UNFUSED, /* acc = acc + fl(a b) */
    SIM_FTZ,     /* fma with subnormal operands and results flushed to zero (f32) */
    SIM_MODEL,   /* operands converted (rz or rn) to the model's input, then gv_bfma_dot */
    SIM_FP8,     /* fp8: scale 448 / amax, e4m3 (RN), the model; promote: every 128 products
                    into an f32 accumulator */
    SIM_FIXED,   /* each row of A and column of B truncated to w bits below its largest
                    element's binade, the sum exact, rounded once to f64 */
    SIM_FP8S,    /* a scaled fp8 mode (or a plant of it): the operands quantised by
                    gv_fp8_quantise under abi/gemm.h's recipe of (mode, plant); each 128-chunk
                    of K summed by the model and promoted to f32, the descales applied to each
                    chunk's sum (blockwise) or to the whole sum (per tensor, row, column) */
} sim_kind;

typedef struct sim {
    sim_kind kind;
    gv_dtype t;
    const gv_bfma_model *model;
    bool rz;      /* SIM_MODEL: truncate the conversion */
    bool promote; /* SIM_FP8 */
    int w;        /* SIM_FIXED */
    gv_mode mode; /* SIM_FP8S: the label and the plant (GK_FP8_*) */
    int plant;
} sim;

/* The H100 fp8 model with an input format wide enough for e4m3 and e5m2 operands alike (the
   e4m3 and e5m2 models differ in nothing else: block 32, 13 fraction bits, RZ) */
static gv_bfma_model fp8_any(void)
{
    gv_bfma_model m = *gv_bfma_find(90, "e4m3");
    m.in = (gv_bfma_format){"e4m3|e5m2", 4, -14, 15, true, true};
    return m;
}

static void sim_fp8s(const sim *s, int64_t m, int64_t k, int64_t n, const double *A,
                     const double *B, double *C)
{
    gk_fp8_recipe r;
    cr_assert(gk_fp8_recipe_of(s->mode, s->plant, &r));
    gv_bfma_model model = fp8_any();
    double *qa = malloc(sizeof *qa * (size_t)(m * k)), *qb = malloc(sizeof *qb * (size_t)(k * n));
    float *da = malloc(sizeof *da * (size_t)gk_fp8_scale_count(r.group_a, 0, m, k, n)),
          *db = malloc(sizeof *db * (size_t)gk_fp8_scale_count(r.group_b, 1, m, k, n));
    float *a = malloc(sizeof *a * GK_FP8_BLOCK_K), *b = malloc(sizeof *b * GK_FP8_BLOCK_K);
    cr_assert(qa && qb && da && db && a && b);
    cr_assert_eq(gv_fp8_quantise(&r, 0, m, k, n, A, qa, da, NULL), GV_OK);
    cr_assert_eq(gv_fp8_quantise(&r, 1, m, k, n, B, qb, db, NULL), GV_OK);
    bool blk = r.group_a == GK_FP8_BLOCK;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float d = 0;
            for (int64_t l0 = 0; l0 < k; l0 += GK_FP8_BLOCK_K) {
                int len = (int)(k - l0 < GK_FP8_BLOCK_K ? k - l0 : GK_FP8_BLOCK_K), any = 0;
                for (int l = 0; l < len; l++) {
                    a[l] = (float)qa[i * k + l0 + l];
                    b[l] = (float)qb[(l0 + l) * n + j];
                    any |= a[l] != 0 && b[l] != 0;
                }
                if (!any) continue;
                float part = gv_bfma_dot(&model, a, b, len, 0.0f);
                if (blk)
                    part = part * da[gk_fp8_a_scale_index(r.group_a, i, l0, m)] *
                           db[gk_fp8_b_scale_index(r.group_b, l0, j, k)];
                d += part;
            }
            if (!blk)
                d = d * da[gk_fp8_a_scale_index(r.group_a, i, 0, m)] *
                    db[gk_fp8_b_scale_index(r.group_b, 0, j, k)];
            C[i * n + j] = d;
        }
    free(qa);
    free(qb);
    free(da);
    free(db);
    free(a);
    free(b);
}

static float ftz(float x)
{
    return fabsf(x) < 0x1p-126f ? 0.0f * x : x;
}

static double amax(const double *x, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        if (fabs(x[i]) > m) m = fabs(x[i]);
    return m;
}

/* x truncated to w bits below 2^(e + 1), e the binade of the row's largest element */
static double fixed(double x, int e, int w)
{
    return trunc(ldexp(x, w - 1 - e)) * ldexp(1.0, e - w + 1);
}

static int sim_gemm(void *ctx, int64_t m, int64_t k, int64_t n, const double *A, const double *B,
                    double *C, char *why, size_t len)
{
    (void)why;
    (void)len;
    const sim *s = ctx;
    if (s->kind == SIM_FP8S) {
        sim_fp8s(s, m, k, n, A, B, C);
        return GV_OK;
    }
    double sa = 1, sb = 1;
    if (s->kind == SIM_FP8) {
        sa = 448 / amax(A, m * k);
        sb = 448 / amax(B, k * n);
    }
    float *a = malloc(sizeof *a * (size_t)k), *b = malloc(sizeof *b * (size_t)k);
    /* SIM_FIXED: the binade of each row's and each column's largest element */
    int *rowe = calloc((size_t)m, sizeof *rowe), *cole = calloc((size_t)n, sizeof *cole);
    for (int64_t i = 0; i < m; i++) {
        rowe[i] = -2000;
        for (int64_t l = 0; l < k; l++)
            if (A[i * k + l] != 0 && ilogb(A[i * k + l]) > rowe[i]) rowe[i] = ilogb(A[i * k + l]);
    }
    for (int64_t j = 0; j < n; j++) {
        cole[j] = -2000;
        for (int64_t l = 0; l < k; l++)
            if (B[l * n + j] != 0 && ilogb(B[l * n + j]) > cole[j]) cole[j] = ilogb(B[l * n + j]);
    }
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            if (s->kind == SIM_FIXED) {
                long double acc = 0;
                for (int64_t l = 0; l < k; l++)
                    if (A[i * k + l] != 0 && B[l * n + j] != 0)
                        acc += (long double)fixed(A[i * k + l], rowe[i], s->w) *
                               (long double)fixed(B[l * n + j], cole[j], s->w);
                C[i * n + j] = (double)acc;
                continue;
            }
            if (s->t == GV_F64) {
                double acc = 0;
                for (int64_t l = 0; l < k; l++) {
                    double x = A[i * k + l], y = B[l * n + j];
                    acc = s->kind == SIM_UNFUSED ? acc + x * y : fma(x, y, acc);
                }
                C[i * n + j] = acc;
                continue;
            }
            if (s->kind == SIM_MODEL || s->kind == SIM_FP8) {
                /* the probe pads with zeros; zero products past the last nonzero one leave
                   the model's result as it is (a block of zero products returns c), so the
                   simulation stops there: the same result, a fraction of the time */
                int64_t kk = k;
                while (kk > 0 && (A[i * k + kk - 1] == 0 || B[(kk - 1) * n + j] == 0))
                    kk--;
                if (kk == 0) {
                    C[i * n + j] = 0;
                    continue;
                }
                for (int64_t l = 0; l < kk; l++) {
                    float x = (float)(A[i * k + l] * sa), y = (float)(B[l * n + j] * sb);
                    gv_bfma_round r = s->rz ? GV_BFMA_RZ : GV_BFMA_RN;
                    a[l] = gv_bfma_round_to(&s->model->in, x, r);
                    b[l] = gv_bfma_round_to(&s->model->in, y, r);
                }
                float d;
                if (s->promote) {
                    d = 0;
                    for (int64_t l0 = 0; l0 < kk; l0 += 128) {
                        int64_t len = kk - l0 < 128 ? kk - l0 : 128;
                        d += gv_bfma_dot(s->model, a + l0, b + l0, (int)len, 0.0f);
                    }
                } else {
                    d = gv_bfma_dot(s->model, a, b, (int)kk, 0.0f);
                }
                C[i * n + j] = (double)d / (sa * sb);
                continue;
            }
            float acc = 0;
            for (int64_t l = 0; l < k; l++) {
                float x = (float)A[i * k + l], y = (float)B[l * n + j];
                if (s->kind == SIM_UNFUSED)
                    acc = acc + (float)(x * y) * 1.0f;
                else if (s->kind == SIM_FTZ)
                    acc = ftz(fmaf(ftz(x), ftz(y), ftz(acc)));
                else
                    acc = fmaf(x, y, acc);
            }
            C[i * n + j] = acc;
        }
    free(a);
    free(b);
    free(rowe);
    free(cole);
    return GV_OK;
}

static gv_fp_print measure(gv_dtype t, gv_mode m, sim *s)
{
    gv_fp_arith a;
    cr_assert_eq(gv_fp_arith_of(t, m, &a), GV_OK);
    gv_fp_print fp;
    char why[256] = "";
    cr_assert_eq(gv_fp_measure(&a, sim_gemm, s, &fp, why, sizeof why), GV_OK, "%s", why);
    return fp;
}

#define EXPECT_F(fp, feat, want)                                                                   \
    cr_expect_str_eq((fp).f[GV_FP_##feat].text, want, "%s: %s (%s)", #feat,                        \
                     (fp).f[GV_FP_##feat].text, (fp).f[GV_FP_##feat].detail)

Test(probe_fprint, ieee_fma_chain_f32, .timeout = 60)
{
    sim s = {.kind = SIM_FMA, .t = GV_F32};
    gv_fp_print fp = measure(GV_F32, GV_MODE_NATIVE, &s);
    EXPECT_F(fp, IN_BITS_A, "24");
    EXPECT_F(fp, IN_BITS_B, "24");
    EXPECT_F(fp, IN_ROUND_A, "none");
    EXPECT_F(fp, PRODUCTS, "exact");
    EXPECT_F(fp, BLOCK, "1");
    EXPECT_F(fp, EXTRA_BITS, "n/a");
    EXPECT_F(fp, BLOCK_ROUND, "RNE");
    EXPECT_F(fp, CARRY_ROUND, "RNE");
    EXPECT_F(fp, ACC_BITS, "24");
    EXPECT_F(fp, PROMOTION, "n/a");
    EXPECT_F(fp, ORDER, "sequential");
    EXPECT_F(fp, SUBNORMAL_IN, "kept");
    EXPECT_F(fp, SUBNORMAL_OUT, "kept");
    EXPECT_F(fp, ROW_BITS, "all");
    EXPECT_F(fp, FIXED_POINT, "no");
    EXPECT_F(fp, MONOTONIC, "yes");
    EXPECT_F(fp, DETERMINISTIC, "yes");
}

Test(probe_fprint, ieee_fma_chain_f64, .timeout = 60)
{
    sim s = {.kind = SIM_FMA, .t = GV_F64};
    gv_fp_print fp = measure(GV_F64, GV_MODE_NATIVE, &s);
    EXPECT_F(fp, IN_BITS_A, "53");
    EXPECT_F(fp, PRODUCTS, "exact");
    EXPECT_F(fp, BLOCK, "1");
    EXPECT_F(fp, BLOCK_ROUND, "RNE");
    EXPECT_F(fp, ACC_BITS, "53");
    EXPECT_F(fp, SUBNORMAL_IN, "kept");
    EXPECT_F(fp, SUBNORMAL_OUT, "kept");
    EXPECT_F(fp, ROW_BITS, "all");
}

Test(probe_fprint, unfused_and_flushing_chains_show, .timeout = 60)
{
    sim u = {.kind = SIM_UNFUSED, .t = GV_F32}, z = {.kind = SIM_FTZ, .t = GV_F32},
        u64 = {.kind = SIM_UNFUSED, .t = GV_F64};
    gv_fp_print fu = measure(GV_F32, GV_MODE_NATIVE, &u), fz = measure(GV_F32, GV_MODE_NATIVE, &z),
                fu64 = measure(GV_F64, GV_MODE_NATIVE, &u64);
    EXPECT_F(fu, PRODUCTS, "rounded");
    EXPECT_F(fu64, PRODUCTS, "rounded");
    EXPECT_F(fu, BLOCK, "1");
    EXPECT_F(fz, SUBNORMAL_IN, "flushed");
    EXPECT_F(fz, SUBNORMAL_OUT, "flushed");
    EXPECT_F(fz, PRODUCTS, "exact");
}

Test(probe_fprint, tf32_model_with_truncating_conversion, .timeout = 60)
{
    sim s = {.kind = SIM_MODEL, .t = GV_F32, .model = gv_bfma_find(90, "tf32"), .rz = true};
    cr_assert_not_null(s.model);
    gv_fp_print fp = measure(GV_F32, GV_MODE_TF32, &s);
    EXPECT_F(fp, IN_BITS_A, "11");
    EXPECT_F(fp, IN_BITS_B, "11");
    EXPECT_F(fp, IN_ROUND_A, "RZ");
    EXPECT_F(fp, IN_ROUND_B, "RZ");
    EXPECT_F(fp, PRODUCTS, "exact");
    EXPECT_F(fp, BLOCK, "8");
    EXPECT_F(fp, EXTRA_BITS, ">=2");
    EXPECT_F(fp, BLOCK_ROUND, "RZ");
    EXPECT_F(fp, CARRY_ROUND, "RZ");
    EXPECT_F(fp, ORDER, "sequential");
    EXPECT_F(fp, SUBNORMAL_IN, "kept");
    EXPECT_F(fp, ROW_BITS, "all");
    EXPECT_F(fp, FIXED_POINT, "no");
}

Test(probe_fprint, f16_model_and_the_a100_block, .timeout = 60)
{
    sim h = {.kind = SIM_MODEL, .t = GV_F32, .model = gv_bfma_find(90, "f16")};
    sim a = {.kind = SIM_MODEL, .t = GV_F32, .model = gv_bfma_find(80, "f16")};
    sim b = {.kind = SIM_MODEL, .t = GV_F32, .model = gv_bfma_find(90, "bf16")};
    gv_fp_print fh = measure(GV_F32, GV_MODE_F16, &h), fa = measure(GV_F32, GV_MODE_F16, &a),
                fb = measure(GV_F32, GV_MODE_BF16, &b);
    EXPECT_F(fh, IN_BITS_A, "11");
    EXPECT_F(fh, IN_ROUND_A, "RNE");
    EXPECT_F(fh, BLOCK, "16");
    EXPECT_F(fh, EXTRA_BITS, "2");
    EXPECT_F(fh, BLOCK_ROUND, "RZ");
    EXPECT_F(fa, BLOCK, "8"); /* A100TC.m: 8 products, 1 extra bit */
    EXPECT_F(fa, EXTRA_BITS, "1");
    EXPECT_F(fb, IN_BITS_A, "8");
    EXPECT_F(fb, BLOCK, "16");
    EXPECT_F(fb, SUBNORMAL_OUT, "kept");
    /* f16 accumulation: an f16 output, blocks of 16 rounded to nearest */
    sim c = {.kind = SIM_MODEL, .t = GV_F32, .model = gv_bfma_find(90, "f16acc")};
    gv_fp_print fc = measure(GV_F32, GV_MODE_F16ACC, &c);
    EXPECT_F(fc, IN_BITS_A, "11");
    EXPECT_F(fc, BLOCK, "16");
    EXPECT_F(fc, BLOCK_ROUND, "RNE");
    EXPECT_F(fc, ACC_BITS, "11");
    EXPECT_F(fc, SUBNORMAL_OUT, "kept");
}

Test(probe_fprint, fp8_narrow_accumulator_and_its_promotion, .timeout = 120)
{
    sim fast = {.kind = SIM_FP8, .t = GV_F32, .model = gv_bfma_find(90, "e4m3")};
    sim prom = fast;
    prom.promote = true;
    cr_assert_not_null(fast.model);
    gv_fp_print ff = measure(GV_F32, GV_MODE_FP8, &fast), fp = measure(GV_F32, GV_MODE_FP8, &prom);
    EXPECT_F(ff, IN_BITS_A, "4");
    EXPECT_F(ff, IN_ROUND_A, "RNE");
    EXPECT_F(ff, BLOCK, "32");
    EXPECT_F(ff, ACC_BITS, "14");
    EXPECT_F(ff, PROMOTION, "none");
    EXPECT_F(fp, ACC_BITS, "14");
    EXPECT_F(fp, PROMOTION, "128");
}

/* The replay agrees with the arithmetic it models, and tells a promoted fp8 accumulation from
   an unpromoted one (and the other way round) at K = 256. */
Test(probe_replay, agrees_with_its_model_and_sees_promotion, .timeout = 120)
{
    const gv_bfma_model *m = gv_bfma_find(90, "e4m3");
    sim fast = {.kind = SIM_FP8, .t = GV_F32, .model = m}, prom = fast;
    prom.promote = true;
    gv_fp_arith a;
    cr_assert_eq(gv_fp_arith_of(GV_F32, GV_MODE_FP8, &a), GV_OK);
    gv_replay_result r;
    char why[256];
    cr_assert_eq(gv_replay_run(&a, m, sim_gemm, &prom, 256, 128, 400, 1, &r, why, sizeof why),
                 GV_OK);
    cr_expect_eq(r.agree, r.dots, "promoted model on promoted arithmetic: %lld of %lld",
                 (long long)r.agree, (long long)r.dots);
    cr_assert_eq(gv_replay_run(&a, m, sim_gemm, &fast, 256, 0, 400, 1, &r, why, sizeof why), GV_OK);
    cr_expect_eq(r.agree, r.dots, "the plain chain on itself: %lld of %lld", (long long)r.agree,
                 (long long)r.dots);
    cr_assert_eq(gv_replay_run(&a, m, sim_gemm, &prom, 256, 0, 400, 1, &r, why, sizeof why), GV_OK);
    cr_expect_lt(r.agree, r.dots / 2,
                 "the plain chain on promoted arithmetic agrees on %lld of %lld",
                 (long long)r.agree, (long long)r.dots);
    const gv_bfma_model *t = gv_bfma_find(90, "tf32");
    sim tf = {.kind = SIM_MODEL, .t = GV_F32, .model = t};
    cr_assert_eq(gv_fp_arith_of(GV_F32, GV_MODE_TF32, &a), GV_OK);
    cr_assert_eq(gv_replay_run(&a, t, sim_gemm, &tf, 8, 0, 400, 1, &r, why, sizeof why), GV_OK);
    cr_expect_eq(r.agree, r.dots);
}

Test(probe_fprint, fixed_point_rows_show_their_width, .timeout = 60)
{
    sim s32 = {.kind = SIM_FIXED, .t = GV_F64, .w = 32},
        s40 = {.kind = SIM_FIXED, .t = GV_F64, .w = 40};
    gv_fp_print f32w = measure(GV_F64, GV_MODE_FP64EMU_32, &s32),
                f40w = measure(GV_F64, GV_MODE_FP64EMU_40, &s40);
    EXPECT_F(f32w, ROW_BITS, "31");
    EXPECT_F(f40w, ROW_BITS, "39");
    EXPECT_F(f32w, FIXED_POINT, "yes");
}

/* The scaled fp8 modes read as their labels claim on the model of each (the operands
   quantised as the kernel does, Hopper's fp8 block FMA, cuBLASLt's promotion every 128, the
   descales per tensor, row and column, or per 128-block): the scale groups, e5m2's 3 bits on B,
   the 14-bit accumulator, the 32-product block, the truncated block result, the interval. */
Test(probe_fprint, scaled_fp8_modes_read_as_their_labels, .timeout = 300)
{
    const struct {
        gv_mode m;
        const char *sa, *sb, *bits_b;
    } want[] = {{GV_MODE_FP8E5M2, "tensor", "tensor", "3"},
                {GV_MODE_FP8ROW, "row", "column", "4"},
                {GV_MODE_FP8BLK, "block", "block", "4"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sim s = {.kind = SIM_FP8S, .t = GV_F32, .mode = want[i].m, .plant = GK_FP8_HONEST};
        gv_fp_print fp = measure(GV_F32, want[i].m, &s);
        for (int f = 0; f < GV_FP_NFEATURES; f++)
            cr_log_info("%s %s = %s (%s)", gv_mode_name(want[i].m), gv_fp_feature_name(f),
                        fp.f[f].text, fp.f[f].detail);
        EXPECT_F(fp, SCALE_A, want[i].sa);
        EXPECT_F(fp, SCALE_B, want[i].sb);
        EXPECT_F(fp, IN_BITS_A, "4");
        EXPECT_F(fp, IN_BITS_B, want[i].bits_b);
        EXPECT_F(fp, BLOCK, "32");
        EXPECT_F(fp, ACC_BITS, "14");
        EXPECT_F(fp, PROMOTION, "128");
        EXPECT_F(fp, BLOCK_ROUND, "RZ");
        EXPECT_F(fp, CR_SHARE, "n/a");
    }
    /* plain fp8 (one scale per tensor, the anchor row and column) */
    sim fp8 = {.kind = SIM_FP8, .t = GV_F32, .model = gv_bfma_find(90, "e4m3"), .promote = true};
    gv_fp_print fp = measure(GV_F32, GV_MODE_FP8, &fp8);
    EXPECT_F(fp, SCALE_A, "tensor");
    EXPECT_F(fp, SCALE_B, "tensor");
    /* modes that convert unscaled have no scale to read */
    sim tf = {.kind = SIM_MODEL, .t = GV_F32, .model = gv_bfma_find(90, "tf32")};
    fp = measure(GV_F32, GV_MODE_TF32, &tf);
    EXPECT_F(fp, SCALE_A, "n/a");
}

/* The planted impostors of the scaled modes (abi/gemm.h), each read wrong by the feature that
   tells it apart: scales ignored (none), fp8row's scales taken from the tensor (tensor), B
   rounded to e5m2 under an e4m3 label (in_bits_B 3), fp8blk's scales per row and column applied
   after the whole sum (row, column). */
Test(probe_fprint, scaled_fp8_impostors_read_wrong, .timeout = 300)
{
    const struct {
        gv_mode m;
        int plant;
        const char *sa, *sb, *bits_b;
    } plant[] = {{GV_MODE_FP8E5M2, GK_FP8_NOSCALE, "none", "none", "3"},
                 {GV_MODE_FP8ROW, GK_FP8_NOSCALE, "none", "none", "4"},
                 {GV_MODE_FP8BLK, GK_FP8_NOSCALE, "none", "none", "4"},
                 {GV_MODE_FP8ROW, GK_FP8_ROWTENSOR, "tensor", "tensor", "4"},
                 {GV_MODE_FP8ROW, GK_FP8_E5M2B, "row", "column", "3"},
                 {GV_MODE_FP8BLK, GK_FP8_E5M2B, "block", "block", "3"},
                 {GV_MODE_FP8BLK, GK_FP8_BLKROW, "row", "column", "4"}};
    for (size_t i = 0; i < sizeof plant / sizeof plant[0]; i++) {
        gv_fp_arith a;
        cr_assert_eq(gv_fp_arith_of(GV_F32, plant[i].m, &a), GV_OK);
        sim s = {.kind = SIM_FP8S, .t = GV_F32, .mode = plant[i].m, .plant = plant[i].plant};
        gv_fp_print fp;
        char why[256] = "";
        /* only the features that tell these apart: the scale probes and in_bits */
        cr_assert_eq(gv_fp_measure(&a, sim_gemm, &s, &fp, why, sizeof why), GV_OK, "%s", why);
        cr_expect_str_eq(fp.f[GV_FP_SCALE_A].text, plant[i].sa, "%s plant %d: scale_A %s (%s)",
                         gv_mode_name(plant[i].m), plant[i].plant, fp.f[GV_FP_SCALE_A].text,
                         fp.f[GV_FP_SCALE_A].detail);
        cr_expect_str_eq(fp.f[GV_FP_SCALE_B].text, plant[i].sb, "%s plant %d: scale_B %s (%s)",
                         gv_mode_name(plant[i].m), plant[i].plant, fp.f[GV_FP_SCALE_B].text,
                         fp.f[GV_FP_SCALE_B].detail);
        cr_expect_str_eq(fp.f[GV_FP_IN_BITS_B].text, plant[i].bits_b, "%s plant %d: in_bits_B %s",
                         gv_mode_name(plant[i].m), plant[i].plant, fp.f[GV_FP_IN_BITS_B].text);
    }
}

/* cr_share on f64 tells the arithmetics apart on models whose answers are known: an FMA
   chain in k order returns few of the narrow-span product's outputs correctly rounded, a
   fixed-point sum that keeps these operands whole (62 bits, fp64emu56's measured width) and
   rounds once nearly all, a 32-bit one none; f32 outputs are not measured. (cuBLAS's own
   values, 51.7 native and 70.6 emulated on an H100, are sm_90.expect's: test_probe_expect.) */
Test(probe_fprint, cr_share_tells_an_emulation_from_native, .timeout = 120)
{
    sim fma = {.kind = SIM_FMA, .t = GV_F64}, w62 = {.kind = SIM_FIXED, .t = GV_F64, .w = 62},
        w32 = {.kind = SIM_FIXED, .t = GV_F64, .w = 32};
    gv_fp_print pn = measure(GV_F64, GV_MODE_FP64EMU, &fma),
                pe = measure(GV_F64, GV_MODE_FP64EMU, &w62),
                p32 = measure(GV_F64, GV_MODE_FP64EMU_32, &w32);
    cr_log_info("cr_share: fma %s (%s); fixed 62 %s (%s); fixed 32 %s", pn.f[GV_FP_CR_SHARE].text,
                pn.f[GV_FP_CR_SHARE].detail, pe.f[GV_FP_CR_SHARE].text, pe.f[GV_FP_CR_SHARE].detail,
                p32.f[GV_FP_CR_SHARE].text);
    double n = pn.f[GV_FP_CR_SHARE].num, e = pe.f[GV_FP_CR_SHARE].num,
           e32 = p32.f[GV_FP_CR_SHARE].num;
    cr_assert(isfinite(n) && isfinite(e) && isfinite(e32));
    cr_expect_lt(n, 30, "an FMA chain of 1024: %g %% correctly rounded", n);
    cr_expect_gt(e, 90, "an exact sum rounded once: %g %%", e);
    cr_expect_lt(e32, 1, "32 bits: %g %%", e32);
    sim f32 = {.kind = SIM_FMA, .t = GV_F32};
    gv_fp_print p = measure(GV_F32, GV_MODE_NATIVE, &f32);
    EXPECT_F(p, CR_SHARE, "n/a");
}

Test(probe_fprint, rounding_names)
{
    cr_expect_str_eq(gv_fp_classify_rounding(1, 1, 0, 2), "RNE");
    cr_expect_str_eq(gv_fp_classify_rounding(1, 1, 1, 2), "RNA");
    cr_expect_str_eq(gv_fp_classify_rounding(0, 0, 0, 1), "RZ");
    cr_expect_str_eq(gv_fp_classify_rounding(1, 0, 1, 2), "RU");
    cr_expect_str_eq(gv_fp_classify_rounding(0, 1, 0, 1), "RD");
    cr_expect_str_eq(gv_fp_classify_rounding(0.5, 1, 0, 2), "other");
}

/* The probe reads each mode's arithmetic from the mode table (abi/gv_abi.h): the formats it
   names are what gv_fp_arith_of builds operands for, on the dtypes the row allows and no
   other; a mode without a format is not probed; every replay model a row names is one the C
   port has on Hopper. A row added with a typo in its model name, or a format the probe
   cannot build, fails here rather than on a GPU. Three modes pinned by their published
   formats: TF32 (11 bits, binary32's range), f16acc (binary16 in and out), fp8 (E4M3, the
   scale 448 / 14 = 32). */
Test(probe_fprint, every_mode_row_gives_its_arithmetic)
{
    for (int m = 0; m < GV_NMODES; m++) {
        const gv_mode_info *mi = gv_mode_get(m);
        for (int t = 0; t < GV_NDTYPES; t++) {
            gv_fp_arith a;
            int rc = gv_fp_arith_of((gv_dtype)t, (gv_mode)m, &a);
            /* the scaled fp8 modes: their formats and groups from abi/gemm.h's recipe */
            bool want =
                (mi->dtypes & (1u << t)) && (mi->probe_in != GV_FMT_NONE || gv_mode_scaled(m));
            cr_expect_eq(rc == GV_OK, want, "%s %s: gv_fp_arith_of %d", mi->name,
                         gv_dtype_name((gv_dtype)t), rc);
            if (rc != GV_OK) continue;
            cr_expect_gt(a.in.p, 1, "%s: operand bits", mi->name);
            cr_expect_leq(a.in.p, gv_dtype_get(t)->mantissa_bits, "%s: exact in the dtype",
                          mi->name);
            cr_expect_lt(a.in.emin, a.in.emax, "%s", mi->name);
        }
        if (mi->bfma)
            cr_expect_not_null(gv_bfma_find(90, mi->bfma), "%s: no sm_90 model '%s'", mi->name,
                               mi->bfma);
        /* the same name (not the same pointer: a sanitizer build does not merge equal string
           literals, and the table may be one copy a translation unit) */
        const char *rf = gv_replay_format((gv_mode)m);
        cr_expect((!rf && !mi->bfma) || (rf && mi->bfma && strcmp(rf, mi->bfma) == 0),
                  "%s: replay format %s, table %s", mi->name, rf ? rf : "none",
                  mi->bfma ? mi->bfma : "none");
    }
    gv_fp_arith a;
    cr_assert_eq(gv_fp_arith_of(GV_F32, GV_MODE_TF32, &a), GV_OK);
    cr_expect(a.in.p == 11 && a.in.emin == -126 && a.in.emax == 127 && a.out.p == 24);
    cr_assert_eq(gv_fp_arith_of(GV_F32, GV_MODE_F16ACC, &a), GV_OK);
    cr_expect(a.in.p == 11 && a.in.emax == 15 && a.out.p == 11 && a.out.emin == -14);
    cr_assert_eq(gv_fp_arith_of(GV_F32, GV_MODE_FP8, &a), GV_OK);
    cr_expect(a.in.p == 4 && a.in.emin == -6 && a.in.emax == 8 && a.anchor == 14 && a.scale == 32);
    cr_expect(a.group_a == -1 && a.group_b == -1 && a.in_b.p == 4 && a.scale_b == 32);
    cr_assert_eq(gv_fp_arith_of(GV_F32, GV_MODE_FP8E5M2, &a), GV_OK);
    cr_expect(a.in.p == 4 && a.in_b.p == 3 && a.in_b.emin == -14 && a.scale == 32 &&
              a.scale_b == 4096 && a.group_a == GK_FP8_TENSOR && a.group_b == GK_FP8_TENSOR);
    cr_assert_eq(gv_fp_arith_of(GV_F32, GV_MODE_FP8ROW, &a), GV_OK);
    cr_expect(a.group_a == GK_FP8_OUTER && a.group_b == GK_FP8_OUTER && a.in_b.p == 4);
    cr_assert_eq(gv_fp_arith_of(GV_F32, GV_MODE_FP8BLK, &a), GV_OK);
    cr_expect(a.group_a == GK_FP8_BLOCK && a.group_b == GK_FP8_BLOCK);
    cr_assert_eq(gv_fp_arith_of(GV_F64, GV_MODE_FP64EMU_40, &a), GV_OK);
    cr_expect(a.in.p == 53 && a.in.emin == -1022 && a.in.emax == 1023 && a.anchor == 0);
    cr_expect_eq(gv_fp_arith_of(GV_F64, GV_MODE_TF32, &a), GV_EUNSUPPORTED, "tf32 is f32 only");
    cr_expect_eq(gv_fp_arith_of(GV_F32, GV_MODE_FASTMATH, &a), GV_EUNSUPPORTED);
}

static const char *write_tmp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/gv_expect_XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

Test(probe_expect, last_matching_line_wins_and_values_judge)
{
    const char *p = write_tmp("version 1\narch sm_90\n"
                              "* * * * ?\n"
                              "gemm.* f32 tf32 block 8 # KM25\n"
                              "gemm.cublas.x f32 tf32 block 16\n"
                              "* f64 fp64emu4* row_bits >=40\n"
                              "* f32 * acc_bits 13..14|24\n");
    gv_fp_expect e;
    char err[256];
    cr_assert_eq(gv_fp_expect_read(p, &e, err, sizeof err), GV_OK, "%s", err);
    const gv_fp_rule *r = gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, GV_FP_BLOCK);
    cr_assert_not_null(r);
    cr_expect_str_eq(r->value, "8");
    cr_expect_str_eq(r->source, "KM25");
    r = gv_fp_expect_find(&e, "gemm.cublas.x", GV_F32, GV_MODE_TF32, GV_FP_BLOCK);
    cr_expect_str_eq(r->value, "16");
    gv_fp_value v = {.num = 8};
    strcpy(v.text, "8");
    cr_expect_eq(
        gv_fp_judge(gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, GV_FP_BLOCK), &v),
        GV_FP_PASS);
    cr_expect_eq(gv_fp_judge(r, &v), GV_FP_FAIL);
    /* '?' is NEW */
    cr_expect_eq(
        gv_fp_judge(gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, GV_FP_ORDER), &v),
        GV_FP_NEW);
    /* >=40: 39 fails, 47 and ">=47" pass; a glob over modes */
    r = gv_fp_expect_find(&e, "gemm.cublas", GV_F64, GV_MODE_FP64EMU_40, GV_FP_ROW_BITS);
    cr_assert_not_null(r);
    gv_fp_value w39 = {.num = 39}, w47 = {.num = 47}, ge = {.num = NAN};
    strcpy(w39.text, "39");
    strcpy(w47.text, "47");
    strcpy(ge.text, ">=47");
    cr_expect_eq(gv_fp_judge(r, &w39), GV_FP_FAIL);
    cr_expect_eq(gv_fp_judge(r, &w47), GV_FP_PASS);
    cr_expect_eq(gv_fp_judge(r, &ge), GV_FP_PASS);
    /* a range and alternatives */
    r = gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_FP8, GV_FP_ACC_BITS);
    gv_fp_value a14 = {.num = 14}, a24 = {.num = 24}, a20 = {.num = 20};
    strcpy(a14.text, "14");
    strcpy(a24.text, "24");
    strcpy(a20.text, "20");
    cr_expect_eq(gv_fp_judge(r, &a14), GV_FP_PASS);
    cr_expect_eq(gv_fp_judge(r, &a24), GV_FP_PASS);
    cr_expect_eq(gv_fp_judge(r, &a20), GV_FP_FAIL);
    gv_fp_expect_free(&e);
    unlink(p);
}

Test(probe_expect, malformed_files_are_refused_with_the_line)
{
    /* each file, and the line its fault is on (0: the file as a whole) */
    const struct {
        const char *text;
        int line;
    } bad[] = {
        {"arch sm_90\n* * * * ?\n", 1},
        {"version 2\narch sm_90\n", 1},
        {"version 1\narch sm_90\n* f32 nomode block 8\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 nofeature 8\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block\n", 3},
        {"version 1\n* * * * ?\n", 0},
        /* junk after >=, or a number that is none: every value would FAIL */
        {"version 1\narch sm_90\n* f32 tf32 block >=8x\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block >=\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block >=nan\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block >=inf\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block 8..\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block 16..8\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block <=8\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block 8||16\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block 8|\n", 3},
        {"version 1\narch sm_90\n* f32 tf32 block ?|8\n", 3},
        /* an architecture name cut to fit was read as another one */
        {"version 1\narch sm_90aaaaaaaaaaaaaaaaaaaaa\n* * * * ?\n", 2},
        {"version 1\narch sm_9000000000000000000000\n* * * * ?\n", 2},
        {"version 1\narch hopper\n* * * * ?\n", 2},
        {"version 1\narch sm_90\narch sm_80\n* * * * ?\n", 3},
        {"version 1\narch sm_90 sm_80\n* * * * ?\n", 2},
        {"version 1x\narch sm_90\n", 1},
        {"version 1\nversion 1\narch sm_90\n", 2},
        /* a glob too long for its field, cut to another glob */
        {"version 1\narch sm_90\n* f********** tf32 block 8\n", 3},
        {"version 1\narch sm_90\n* f32 t*************** block 8\n", 3},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = write_tmp(bad[i].text);
        gv_fp_expect e;
        char err[512] = "", where[128];
        cr_expect_eq(gv_fp_expect_read(p, &e, err, sizeof err), GV_EINVAL, "file %zu accepted: %s",
                     i, bad[i].text);
        cr_expect(strstr(err, p) != NULL, "file %zu: the message names the file: %s", i, err);
        snprintf(where, sizeof where, "%s:%d:", p, bad[i].line);
        if (bad[i].line)
            cr_expect(strstr(err, where) != NULL, "file %zu: %s lacks %s", i, err, where);
        unlink(p);
    }
}

/* A feature no line speaks of is NEW, never PASS (nor FAIL): a file without the catch-all
   '* * * * ?' leaves most features without a rule. And the values every shipped file uses
   read. */
Test(probe_expect, a_feature_without_a_rule_is_new)
{
    const char *p = write_tmp("version 1\narch sm_90\n"
                              "gemm.* f32 tf32 block 8|16 # KM25\n"
                              "* f64 * acc_bits >=53\n"
                              "* * * in_round_A RNE|RZ|n/a\n");
    gv_fp_expect e;
    char err[256];
    cr_assert_eq(gv_fp_expect_read(p, &e, err, sizeof err), GV_OK, "%s", err);
    gv_fp_value v = {.num = 8};
    strcpy(v.text, "8");
    cr_expect_null(gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, GV_FP_ORDER));
    cr_expect_eq(
        gv_fp_judge(gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, GV_FP_ORDER), &v),
        GV_FP_NEW, "a feature without a rule");
    cr_expect_eq(
        gv_fp_judge(gv_fp_expect_find(&e, "gemm.cublas", GV_F64, GV_MODE_NATIVE, GV_FP_BLOCK), &v),
        GV_FP_NEW, "a dtype without a rule");
    cr_expect_eq(gv_fp_judge(NULL, &v), GV_FP_NEW);
    for (int f = 0; f < GV_FP_NFEATURES; f++) /* whatever was measured */
        cr_expect_neq(gv_fp_judge(gv_fp_expect_find(&e, "other", GV_F32, GV_MODE_NATIVE, f), &v),
                      GV_FP_PASS, "feature %s without a rule", gv_fp_feature_name(f));
    cr_expect_eq(
        gv_fp_judge(gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, GV_FP_BLOCK), &v),
        GV_FP_PASS);
    gv_fp_expect_free(&e);
    unlink(p);
}

/* The shipped files are built in, parse and name their architecture, with no source tree:
   GPUVAL_SRCDIR unset and the working directory elsewhere. */
Test(probe_expect, shipped_files_are_built_in_and_parse)
{
    const int sm[] = {80, 89, 90, 100, 103, 120};
    unsetenv("GPUVAL_SRCDIR");
    cr_assert_eq(chdir("/"), 0);
    for (size_t i = 0; i < sizeof sm / sizeof sm[0]; i++) {
        gv_fp_expect e;
        char err[512], arch[16];
        cr_assert_eq(gv_fp_expect_builtin(sm[i], &e, err, sizeof err), GV_OK, "%s", err);
        snprintf(arch, sizeof arch, "sm_%d", sm[i]);
        cr_expect_str_eq(e.arch, arch);
        cr_expect_gt(e.n, 10, "%s: %d expectations", e.path, e.n);
        gv_fp_expect_free(&e);
    }
    gv_fp_expect e;
    char err[512];
    cr_expect_eq(gv_fp_expect_builtin(75, &e, err, sizeof err), GV_EIO, "no sm_75 file is shipped");
    cr_expect(strstr(err, "sm_75") != NULL, "%s", err);
}

/* What is built in is, byte for byte, every probe/sm_XY.expect of the tree: a file edited,
   added or left out of meson.build's list fails here. */
Test(probe_expect, built_in_text_equals_the_files)
{
    const char *root = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(root, "GPUVAL_SRCDIR names the source tree (tests/meson.build)");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/probe", root);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    int files = 0;
    for (struct dirent *x; (x = readdir(d));) {
        int sm;
        char tail[16];
        if (sscanf(x->d_name, "sm_%d.%15s", &sm, tail) != 2 || strcmp(tail, "expect") != 0)
            continue;
        files++;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, x->d_name);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        static char text[1 << 16];
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        const char *built = gv_fp_expect_builtin_text(sm);
        cr_assert_not_null(built, "%s is not built in (meson.build's expect_files)", path);
        cr_expect_eq(strlen(built), n, "%s: %zu bytes built in, %zu in the file", path,
                     strlen(built), n);
        cr_expect_str_eq(built, text, "%s differs from what is built in", path);
    }
    closedir(d);
    int built = 0;
    for (const gv_embedded_file *x = gv_expect_files; x->name; x++)
        built++;
    cr_expect_eq(built, files, "%d files built in, %d in probe/", built, files);
    cr_expect_geq(files, 6);
}
