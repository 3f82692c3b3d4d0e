/* probe_bfma.c: the port of the published tensor-core models (src/core/bfma.c) against the
 * dot products measured on GPUs and published with them (tests/cpu/bfma/, from Khattak and
 * Mikaitis's model_validation/ data: every one must agree bit for bit), and against properties
 * whose expected values are worked out by hand in each test from the published description:
 * exact small-integer sums, the truncation of terms below the extra alignment bits, RZ against
 * RN on a tie, the order of the blocks of a chain, the hand-built vectors of Fasi, Higham,
 * Mikaitis and Pranesh's test suite, GEMM.m's NaN and Inf rule, and the rounding of a value into
 * a format from its parameters. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bfma.h"

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static const gv_bfma_model *model(int sm, const char *fmt)
{
    const gv_bfma_model *m = gv_bfma_find(sm, fmt);
    cr_assert_not_null(m, "a model for sm_%d %s", sm, fmt);
    return m;
}

/* ---- the GPU-measured vectors ------------------------------------------------------------ */

enum { MAX_K = 64, FIXTURE_ROWS = 64 };

/* Replays tests/cpu/bfma/NAME (tools/bfma_vectors.py wrote it; its header says where each
 * vector was measured) through the model of sm and fmt: every row must give the GPU's bits. */
static void replay_file(const char *name, int sm, const char *fmt)
{
    const gv_bfma_model *m = model(sm, fmt);
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR names the source tree");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/cpu/bfma/%s", src, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s opens", path);
    char line[8192];
    int k = -1, c_used = -1, rows = 0, agree = 0;
    char out[16] = "";
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            sscanf(line, "# k %d c_used %d output %15s", &k, &c_used, out);
            continue;
        }
        cr_assert(k > 0 && k <= MAX_K && c_used >= 0, "%s: header names k and c_used", name);
        /* the output the file holds is the model's: fp16 for f16acc, fp32 otherwise */
        cr_assert_str_eq(out, m->out.sig_bits == 11 ? "fp16" : "fp32", "%s: output", name);
        float a[MAX_K], b[MAX_K];
        unsigned long w[2 + 2 * MAX_K] = {0};
        char *p = line;
        for (int i = 0; i < 2 + 2 * k; i++) {
            char *end;
            w[i] = strtoul(p, &end, 16);
            cr_assert(end != p, "%s row %d: %d words", name, rows + 1, 2 + 2 * k);
            p = end;
        }
        float c = c_used ? float_of((uint32_t)w[0]) : 0.0f;
        float d_gpu = float_of((uint32_t)w[1]);
        for (int i = 0; i < k; i++) {
            a[i] = float_of((uint32_t)w[2 + i]);
            b[i] = float_of((uint32_t)w[2 + k + i]);
        }
        /* for an f16 output, the GPU's C was c rounded to f16 to nearest (Validate_TC_models.m's
         * note; GEMM.m does the same through CPFloat) */
        if (m->out.sig_bits == 11) c = gv_bfma_round_to(&m->out, c, GV_BFMA_RN);
        float d = gv_bfma_dot(m, a, b, k, c);
        rows++;
        if (bits_of(d) == bits_of(d_gpu))
            agree++;
        else
            cr_log_error("%s row %d: model %a, GPU %a", name, rows, (double)d, (double)d_gpu);
    }
    fclose(f);
    cr_assert_eq(rows, FIXTURE_ROWS, "%s: %d rows read", name, rows);
    cr_expect_eq(agree, rows, "%s: %d of %d agree bit for bit", name, agree, rows);
}

Test(probe_bfma, v100_vectors)
{
    replay_file("v100_fp16_fp32.txt", 70, "f16");
    replay_file("v100_fp16_fp16.txt", 70, "f16acc");
}

Test(probe_bfma, a100_vectors)
{
    replay_file("a100_tf32_fp32.txt", 80, "tf32");
    replay_file("a100_fp16_fp32.txt", 80, "f16");
    replay_file("a100_fp16_fp16.txt", 80, "f16acc");
    replay_file("a100_bf16_fp32.txt", 80, "bf16");
}

Test(probe_bfma, ada_vectors)
{
    replay_file("ada_tf32_fp32.txt", 89, "tf32");
    replay_file("ada_fp16_fp32.txt", 89, "f16");
    replay_file("ada_fp16_fp16.txt", 89, "f16acc");
    replay_file("ada_bf16_fp32.txt", 89, "bf16");
    replay_file("ada_e4m3_fp32.txt", 89, "e4m3"); /* K = 32: a chain of two 16-blocks */
    replay_file("ada_e5m2_fp32.txt", 89, "e5m2");
}

Test(probe_bfma, h100_vectors)
{
    replay_file("h100_tf32_fp32.txt", 90, "tf32");
    replay_file("h100_fp16_fp32.txt", 90, "f16");
    replay_file("h100_fp16_fp16.txt", 90, "f16acc");
    replay_file("h100_bf16_fp32.txt", 90, "bf16");
    replay_file("h100_e4m3_fp32.txt", 90, "e4m3");
    replay_file("h100_e5m2_fp32.txt", 90, "e5m2");
}

Test(probe_bfma, h200_vectors)
{
    replay_file("h200_tf32_fp32.txt", 90, "tf32");
    replay_file("h200_fp16_fp32.txt", 90, "f16");
    replay_file("h200_fp16_fp16.txt", 90, "f16acc");
    replay_file("h200_bf16_fp32.txt", 90, "bf16");
    replay_file("h200_e4m3_fp32.txt", 90, "e4m3");
    replay_file("h200_e5m2_fp32.txt", 90, "e5m2");
}

Test(probe_bfma, b200_vectors)
{
    replay_file("b200_tf32_fp32.txt", 100, "tf32");
    replay_file("b200_fp16_fp32.txt", 100, "f16");
    replay_file("b200_fp16_fp16.txt", 100, "f16acc");
    replay_file("b200_bf16_fp32.txt", 100, "bf16");
}

/* ---- the table ------------------------------------------------------------------------------ */

/* The H100 numbers as H100TC.m states them (and issue 24 quotes them): 8 products a block for
 * TF32, 16 for f16 and bf16, 32 for fp8; 2 extra alignment bits; fp8 sums kept to 23 - 10 = 13
 * fraction bits; truncation everywhere but the f16 output, rounded to nearest. */
Test(probe_bfma, h100_parameters)
{
    cr_expect_eq(model(90, "tf32")->block, 8);
    cr_expect_eq(model(90, "f16")->block, 16);
    cr_expect_eq(model(90, "bf16")->block, 16);
    cr_expect_eq(model(90, "e4m3")->block, 32);
    cr_expect_eq(model(90, "f16")->extra_align_bits, 2);
    cr_expect_eq(model(90, "e4m3")->acc_sig_bits - 1, 13);
    cr_expect_eq(model(90, "tf32")->block_round, GV_BFMA_RZ);
    cr_expect_eq(model(90, "f16acc")->block_round, GV_BFMA_RN);
    cr_expect_eq(model(90, "f16acc")->out.sig_bits, 11);
    cr_expect(!model(90, "e4m3")->unconfirmed);
    cr_expect(model(100, "e4m3")->unconfirmed);
}

Test(probe_bfma, find_knows_only_published_models)
{
    cr_expect_null(gv_bfma_find(90, "f64"));
    cr_expect_null(gv_bfma_find(75, "f16"));  /* no Turing model was published */
    cr_expect_null(gv_bfma_find(80, "e4m3")); /* Ampere has no fp8 */
    cr_expect_null(gv_bfma_find(90, NULL));
    int n = 0;
    while (gv_bfma_at(n))
        n++;
    cr_expect_gt(n, 20);
    for (int i = 0; i < n; i++) /* each row is found by its own name, once */
        cr_expect_eq(gv_bfma_find(gv_bfma_at(i)->sm, gv_bfma_at(i)->fmt), gv_bfma_at(i));
}

/* ---- rounding into a format ------------------------------------------------------------------ */

/* Expected values from the formats' definitions: binary16 has 10 fraction bits, so at 1 its
 * step is 2^-10 and 1 + 2^-11 is halfway; ties go to the even significand. */
Test(probe_bfma, round_to_f16)
{
    const gv_bfma_format *h = &model(90, "f16acc")->out;
    cr_expect_eq(gv_bfma_round_to(h, 1.0f + 0x1p-11f, GV_BFMA_RN), 1.0f);
    cr_expect_eq(gv_bfma_round_to(h, 1.0f + 3 * 0x1p-11f, GV_BFMA_RN), 1.0f + 0x1p-9f);
    cr_expect_eq(gv_bfma_round_to(h, 1.0f + 3 * 0x1p-11f, GV_BFMA_RZ), 1.0f + 0x1p-10f);
    cr_expect_eq(gv_bfma_round_to(h, -(1.0f + 3 * 0x1p-11f), GV_BFMA_RZ), -(1.0f + 0x1p-10f));
    /* subnormals on the 2^-24 grid: 2^-25 is a tie between 0 and 2^-24 */
    cr_expect_eq(gv_bfma_round_to(h, 0x1p-25f, GV_BFMA_RN), 0.0f);
    cr_expect_eq(gv_bfma_round_to(h, 0x1.8p-25f, GV_BFMA_RN), 0x1p-24f);
    /* 65504 is the largest; 65520 is the tie with 2^16, which overflows */
    cr_expect_eq(gv_bfma_round_to(h, 65519.0f, GV_BFMA_RN), 65504.0f);
    cr_expect(isinf(gv_bfma_round_to(h, 65520.0f, GV_BFMA_RN)));
    cr_expect_eq(gv_bfma_round_to(h, 1e6f, GV_BFMA_RZ), 65504.0f);
    cr_expect(gv_bfma_in_format(h, 0x1p-24f));
    cr_expect(!gv_bfma_in_format(h, 0x1p-25f));
    cr_expect(!gv_bfma_in_format(h, 1.0f + 0x1p-11f));
}

/* E4M3 (OCP OFP8): 3 fraction bits, subnormals on 2^-9, largest 448 = 1.75 x 2^8, no Inf. */
Test(probe_bfma, round_to_e4m3)
{
    const gv_bfma_format *e = &model(90, "e4m3")->in;
    cr_expect_eq(gv_bfma_round_to(e, 448.0f, GV_BFMA_RN), 448.0f);
    cr_expect_eq(gv_bfma_round_to(e, 464.0f, GV_BFMA_RN), 448.0f); /* tie: 1.110 is even */
    cr_expect(isnan(gv_bfma_round_to(e, 470.0f, GV_BFMA_RN)));     /* past it: no Inf */
    cr_expect_eq(gv_bfma_round_to(e, 1000.0f, GV_BFMA_RZ), 448.0f);
    cr_expect_eq(gv_bfma_round_to(e, 0x1p-9f, GV_BFMA_RN), 0x1p-9f);
    cr_expect_eq(gv_bfma_round_to(e, 0x1.8p-9f, GV_BFMA_RN), 0x1p-8f); /* tie to even: 2 */
    cr_expect_eq(gv_bfma_round_to(e, 1.0625f, GV_BFMA_RN), 1.0f);      /* tie: 1.000 even */
    cr_expect_eq(gv_bfma_round_to(e, 1.1875f, GV_BFMA_RN), 1.25f);     /* tie: 1.010 even */
    cr_expect(isnan(gv_bfma_round_to(e, INFINITY, GV_BFMA_RN)));
    cr_expect(!gv_bfma_in_format(e, INFINITY));
    cr_expect(!gv_bfma_in_format(e, 480.0f));
}

/* TF32: binary32's exponents, 10 fraction bits; bfloat16: 7 fraction bits. */
Test(probe_bfma, round_to_tf32_bf16)
{
    const gv_bfma_format *t = &model(80, "tf32")->in, *bf = &model(80, "bf16")->in;
    cr_expect_eq(gv_bfma_round_to(t, 1.0f + 0x1p-11f, GV_BFMA_RN), 1.0f);
    cr_expect_eq(gv_bfma_round_to(t, 1.0f + 0x1p-11f + 0x1p-23f, GV_BFMA_RN), 1.0f + 0x1p-10f);
    cr_expect_eq(gv_bfma_round_to(t, 1.0f + 0x1p-11f + 0x1p-23f, GV_BFMA_RZ), 1.0f);
    cr_expect_eq(gv_bfma_round_to(t, 0x1p-140f, GV_BFMA_RN), 0.0f); /* 1/16 of the 2^-136 step */
    cr_expect_eq(gv_bfma_round_to(t, 0x1p-136f, GV_BFMA_RN), 0x1p-136f);
    cr_expect_eq(gv_bfma_round_to(bf, 1.0f + 0x1p-8f, GV_BFMA_RN), 1.0f);
    cr_expect_eq(gv_bfma_round_to(bf, 1.0f + 3 * 0x1p-8f, GV_BFMA_RN), 1.0f + 0x1p-6f);
    cr_expect(isnan(gv_bfma_round_to(bf, NAN, GV_BFMA_RN)));
}

/* ---- properties of one block and of a chain ------------------------------------------------- */

/* Products of small integers and their sums are exact in every model: every term is an integer
 * below 2^4, the sum below 2^10, all on the grid 2^(E - 13) or finer, and below 2^11 so the
 * f16 output holds it. */
Test(probe_bfma, small_integers_are_exact)
{
    unsigned state = 12345u;
    for (int i = 0; gv_bfma_at(i); i++) {
        const gv_bfma_model *m = gv_bfma_at(i);
        for (int trial = 0; trial < 50; trial++) {
            int k = 2 * m->block;
            float a[2 * 64], b[2 * 64];
            int c_int = 0, exact;
            state = state * 1103515245u + 12345u;
            c_int = (int)((state >> 16) % 31) - 15;
            exact = c_int;
            for (int j = 0; j < k; j++) {
                state = state * 1103515245u + 12345u;
                int x = (int)((state >> 16) % 7) - 3; /* e5m2 holds -3..3 (2 bits) */
                state = state * 1103515245u + 12345u;
                int y = (int)((state >> 16) % 7) - 3;
                a[j] = (float)x;
                b[j] = (float)y;
                exact += x * y;
            }
            float d = gv_bfma_dot(m, a, b, k, (float)c_int);
            cr_expect_eq(d, (float)exact, "sm_%d %s: %g, exact %d", m->sm, m->fmt, (double)d,
                         exact);
        }
    }
}

/* One product of 1 and block - 1 products far below it. Aligned to E = 0 the terms keep
 * 23 + neab fraction bits (Generic_BFMA_TC.m's AlignSignficand, truncating): a product of
 * 2^-(24 + neab) is lost entirely, so the block returns exactly 1, where the exact sum is
 * 1 + (block - 1) 2^-(24 + neab), a binary32 number above 1 for every block here; a product of
 * 2^-(23 + neab) is kept, and the result is 1 + (block - 1) 2^-(23 + neab) truncated to
 * binary32. */
static void alignment_truncation(int sm, const char *fmt)
{
    const gv_bfma_model *m = model(sm, fmt);
    int neab = m->extra_align_bits, n = m->block;
    float a[64], b[64];
    a[0] = b[0] = 1.0f;
    /* 2^-(24 + neab) as a product of two normal values of every input format here */
    int lost = 24 + neab, kept = 23 + neab;
    for (int i = 1; i < n; i++) {
        a[i] = ldexpf(1.0f, -(lost / 2));
        b[i] = ldexpf(1.0f, -(lost - lost / 2));
    }
    cr_expect_eq(gv_bfma_block(m, a, b, n, 0.0f), 1.0f, "sm_%d %s: terms below the %d extra bits",
                 sm, fmt, neab);
    for (int i = 1; i < n; i++) {
        a[i] = ldexpf(1.0f, -(kept / 2));
        b[i] = ldexpf(1.0f, -(kept - kept / 2));
    }
    /* (n - 1) 2^-kept truncated to a multiple of 2^-23 */
    double tail = floor((n - 1) * ldexp(1.0, 23 - kept)) * 0x1p-23;
    cr_expect_eq(gv_bfma_block(m, a, b, n, 0.0f), (float)(1.0 + tail),
                 "sm_%d %s: terms at the last extra bit", sm, fmt);
}

Test(probe_bfma, alignment_truncates_small_terms)
{
    alignment_truncation(80, "f16");
    alignment_truncation(80, "bf16");
    alignment_truncation(80, "tf32");
    alignment_truncation(90, "f16");
    alignment_truncation(90, "bf16");
    alignment_truncation(90, "tf32");
    alignment_truncation(100, "f16");
}

/* RN and RZ on a tie: 1 + 3 x 2^-11 lies halfway between the binary16 numbers 1 + 2^-10 (odd)
 * and 1 + 2^-9 (even). The f16-output model rounds to nearest even (frmode 'rne'); the same
 * model with RZ truncates; the f32-output model holds the sum exactly. */
Test(probe_bfma, rn_and_rz_on_a_tie)
{
    const gv_bfma_model *rn = model(90, "f16acc");
    gv_bfma_model rz = *rn;
    rz.block_round = GV_BFMA_RZ;
    float a[3] = {1.0f, 0x1p-10f, 0x1p-11f}, b[3] = {1.0f, 1.0f, 1.0f};
    cr_expect_eq(gv_bfma_block(rn, a, b, 3, 0.0f), 1.0f + 0x1p-9f);
    cr_expect_eq(gv_bfma_block(&rz, a, b, 3, 0.0f), 1.0f + 0x1p-10f);
    cr_expect_eq(gv_bfma_block(model(90, "f16"), a, b, 3, 0.0f), 1.0f + 3 * 0x1p-11f);
    /* the tie below 1: 1 + 2^-11 goes to 1 (even) */
    cr_expect_eq(gv_bfma_block(rn, a, b, 1, 0x1p-11f), 1.0f);
    float neg[3] = {-1.0f, -0x1p-10f, -0x1p-11f};
    cr_expect_eq(gv_bfma_block(rn, neg, b, 3, 0.0f), -(1.0f + 0x1p-9f));
    cr_expect_eq(gv_bfma_block(&rz, neg, b, 3, 0.0f), -(1.0f + 0x1p-10f));
}

/* The chain adds the blocks in ascending order, each result the next block's c (GEMM.m). With
 * H100's f16 blocks of 16: sixteen products of 2^-26 first sum exactly to 2^-22, which the
 * second block adds to 1 exactly; put after the 1, each is truncated away against it (below
 * 2^-25, the last extra bit) and the sum stays 1. */
Test(probe_bfma, chain_order)
{
    const gv_bfma_model *m = model(90, "f16");
    float a[32], b[32];
    for (int i = 0; i < 32; i++) {
        a[i] = 0x1p-13f;
        b[i] = 0x1p-13f;
    }
    for (int i = 16; i < 32; i++)
        a[i] = b[i] = 0.0f;
    a[16] = b[16] = 1.0f;
    cr_expect_eq(gv_bfma_dot(m, a, b, 32, 0.0f), 1.0f + 0x1p-22f);
    float a2[32], b2[32];
    for (int i = 0; i < 16; i++) {
        a2[i] = a[16 + i];
        b2[i] = b[16 + i];
        a2[16 + i] = a[i];
        b2[16 + i] = b[i];
    }
    cr_expect_eq(gv_bfma_dot(m, a2, b2, 32, 0.0f), 1.0f);
    /* a k that is no multiple of the block: the last block is the short one */
    cr_expect_eq(gv_bfma_dot(m, a, b, 17, 0.0f), 1.0f + 0x1p-22f);
    cr_expect_eq(gv_bfma_dot(m, a, b, 0, 2.5f), 2.5f);
}

/* The hand-built vectors of Fasi, Higham, Mikaitis and Pranesh's suite for the A100 in TF32
 * mode (github.com/north-numerical-computing/tensor-cores-numerical-behavior,
 * tc_test_numerics-A100-tf32.cu), one wmma block of 4 products, with the suite's expected
 * outputs. Each also follows by hand from A100TC.m's TF32 row (4 products, 1 extra bit, RZ):
 * the derivation is in the comment. Inputs that binary32 holds but TF32 does not (the suite's
 * 1 - 2^-24, which the hardware converts) are left out. */
Test(probe_bfma, fasi_suite_a100_tf32)
{
    const gv_bfma_model *m = model(80, "tf32");
    float a[4], b[4];
#define RESET() (memset(a, 0, sizeof a), memset(b, 0, sizeof b))
    /* A: a TF32 subnormal input, 2^-136 x 2^10 = 2^-126 exactly */
    RESET();
    a[0] = 0x1p-136f;
    b[0] = 0x1p10f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 0.0f), 0x1p-126f);
    /* A: a binary32 subnormal c passes through: 2^-149 */
    RESET();
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 0x1p-149f), 0x1p-149f);
    /* A: subnormal outputs: 2^-126 x 2^-1, and 2^-126 x 1 - 2^-127 */
    RESET();
    a[0] = 0x1p-126f;
    b[0] = 0.5f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 0.0f), 0x1p-127f);
    b[0] = 1.0f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, -0x1p-127f), 0x1p-127f);
    /* B: the product (1 - 2^-11)^2 = 1 - 2^-10 + 2^-22 is exact, and so are four of them */
    RESET();
    for (int i = 0; i < 4; i++)
        a[i] = b[i] = 1.0f - 0x1p-11f;
    cr_expect_eq(gv_bfma_block(m, a, b, 1, 0.0f), 1.0f - 0x1p-10f + 0x1p-22f);
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 0.0f), 4 * (1.0f - 0x1p-10f + 0x1p-22f));
    /* B: binary32 accumulation: 1 + 4 x (0.5 x 2^-24) stays 1 (E = 0, grid 2^-24: each 2^-25
     * product truncates to 0) */
    RESET();
    for (int i = 0; i < 4; i++) {
        a[i] = 0.5f;
        b[i] = 0x1p-24f;
    }
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 1.0f), 1.0f);
    /* B: alignment on the largest: one product of 1 among the 2^-25 ones, c = 2^-24: the sum
     * 2^24 + 1 units of 2^-24 truncates to 1, wherever the 1 stands */
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 4; i++) {
            a[i] = 0.5f;
            b[i] = 0x1p-24f;
        }
        a[j] = b[j] = 1.0f;
        cr_expect_eq(gv_bfma_block(m, a, b, 4, 0x1p-24f), 1.0f, "the 1 at %d", j);
    }
    /* C: round-down for positive sums, round-up for negative ones: 2 + 1.5 x 2^-23 -> 2 */
    RESET();
    for (int i = 0; i < 4; i++)
        a[i] = 1.0f;
    b[0] = 2.0f;
    b[1] = 0x1p-23f + 0x1p-24f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 0.0f), 2.0f);
    b[0] = -2.0f;
    b[1] = -(0x1p-23f + 0x1p-24f);
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 0.0f), -2.0f);
    /* D1: one extra alignment bit: 1 - (1 - 2^-24) = 2^-24 (c keeps its last bit on the
     * grid 2^-24 of E = 0) */
    RESET();
    a[0] = b[0] = 1.0f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, -(1.0f - 0x1p-24f)), 0x1p-24f);
    /* D2: normalisation in addition: (1 - 2^-24) + 4 x 2^-24 on the grid 2^-25 of E = -1 is
     * 1 + 1.5 x 2^-23, truncated to 1 + 2^-23 */
    RESET();
    for (int i = 0; i < 4; i++) {
        a[i] = 1.0f;
        b[i] = 0x1p-24f;
    }
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 1.0f - 0x1p-24f), 1.0f + 0x1p-23f);
    /* D3: normalisation in subtraction: 1 - 2^-24 + (-1 + 2^-24) = 0 */
    RESET();
    a[0] = a[1] = 1.0f;
    b[0] = 1.0f;
    b[1] = -0x1p-24f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, -1.0f + 0x1p-24f), 0.0f);
    /* D4: carry-out bits: three 1s, one 2^-23 and c = 1 + 2^-22 + 2^-23 give 4 + 2^-21 exactly,
     * wherever the 2^-23 stands; 1 + 1.5 + 1.75 + 1.875 + 1.875 = 8 */
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 4; i++)
            a[i] = b[i] = 1.0f;
        b[j] = 0x1p-23f;
        cr_expect_eq(gv_bfma_block(m, a, b, 4, 1.0f + 0x1p-22f + 0x1p-23f), 4.0f + 0x1p-21f);
    }
    for (int i = 0; i < 4; i++)
        a[i] = 1.0f;
    b[0] = 1.0f;
    b[1] = 1.5f;
    b[2] = 1.75f;
    b[3] = 1.875f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 1.875f), 8.0f);
    /* D4: truncation in normalisation: 4 + 1 + 2^-22 + 2^-23 -> 5, and its negative -> -5 */
    for (int i = 0; i < 4; i++)
        a[i] = b[i] = 1.0f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, 1.0f + 0x1p-22f + 0x1p-23f), 5.0f);
    for (int i = 0; i < 4; i++)
        b[i] = -1.0f;
    cr_expect_eq(gv_bfma_block(m, a, b, 4, -1.0f - 0x1p-22f - 0x1p-23f), -5.0f);
    /* D5: not monotonic: with c = 1 - 2^-24 (E = -1, grid 2^-25) the small products count and
     * the result is 1 + 2^-23; with the larger c = 1 (E = 0, grid 2^-24) they are truncated
     * away and the result is 1 */
    RESET();
    for (int i = 0; i < 3; i++) {
        a[i] = 0.5f;
        b[i] = 0x1p-24f;
    }
    a[3] = 0.5f;
    b[3] = 0x1p-23f + 0x1p-24f;
    float partial = gv_bfma_block(m, a, b, 4, 1.0f - 0x1p-24f);
    float larger = gv_bfma_block(m, a, b, 4, 1.0f);
    cr_expect_eq(partial, 1.0f + 0x1p-23f);
    cr_expect_lt(larger, partial, "a larger c gives a smaller sum");
#undef RESET
}

/* GEMM.m's NaN and Inf rule and the output's overflow, as the repository's
 * ExceptionalCasesTest.m checks them (tests 1 to 5): c + a b past binary32's range is +Inf;
 * (+Inf)(-Inf) is -Inf, not NaN; +Inf + -Inf is NaN; two f16 products of 65504 overflow an f16
 * output to +-Inf. Also 0 x Inf is NaN, and an overflowed block carries its Inf down a chain. */
Test(probe_bfma, exceptional_cases)
{
    const gv_bfma_model *bf = model(90, "bf16"), *h = model(90, "f16acc");
    float a[16] = {0}, b[16] = {0};
    a[0] = 0x1p127f;
    b[0] = 1.0f;
    cr_expect(isinf(gv_bfma_block(bf, a, b, 16, 0x1p127f)) &&
              gv_bfma_block(bf, a, b, 16, 0x1p127f) > 0);
    a[0] = INFINITY;
    b[0] = -INFINITY;
    cr_expect_eq(gv_bfma_block(bf, a, b, 16, 0.0f), -INFINITY);
    a[0] = -INFINITY;
    b[0] = 1.0f;
    a[1] = INFINITY;
    b[1] = 1.0f;
    cr_expect(isnan(gv_bfma_block(bf, a, b, 16, 0.0f)));
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    a[0] = a[1] = 65504.0f;
    b[0] = b[1] = 1.0f;
    cr_expect_eq(gv_bfma_block(h, a, b, 16, 0.0f), INFINITY);
    b[0] = b[1] = -1.0f;
    cr_expect_eq(gv_bfma_block(h, a, b, 16, 0.0f), -INFINITY);
    a[0] = INFINITY;
    b[0] = 0.0f;
    cr_expect(isnan(gv_bfma_block(h, a, b, 16, 0.0f)));
    /* a chain: the first block overflows, the second adds a finite product to its Inf */
    float a32[32] = {0}, b32[32] = {0};
    a32[0] = a32[1] = 65504.0f;
    b32[0] = b32[1] = 1.0f;
    a32[16] = b32[16] = 1.0f;
    cr_expect_eq(gv_bfma_dot(h, a32, b32, 32, 0.0f), INFINITY);
}

/* Inputs outside the model's formats are refused with NaN, so unrounded data never agrees by
 * accident: 1 + 2^-20 is no f16, and 1 + 2^-12 is no f16 output (C). */
Test(probe_bfma, inputs_outside_the_format_give_nan)
{
    const gv_bfma_model *m = model(90, "f16acc");
    float a[2] = {1.0f + 0x1p-20f, 1.0f}, b[2] = {1.0f, 1.0f};
    cr_expect(isnan(gv_bfma_block(m, a, b, 2, 0.0f)));
    cr_expect(isnan(gv_bfma_dot(m, a, b, 2, 0.0f)));
    a[0] = 1.0f;
    cr_expect(isnan(gv_bfma_block(m, a, b, 2, 1.0f + 0x1p-12f)));
    cr_expect_eq(gv_bfma_block(m, a, b, 2, 1.0f), 3.0f);
    /* e4m3 holds no 1 + 2^-4 */
    const gv_bfma_model *e = model(90, "e4m3");
    float x[1] = {1.0625f}, y[1] = {1.0f};
    cr_expect(isnan(gv_bfma_block(e, x, y, 1, 0.0f)));
}
