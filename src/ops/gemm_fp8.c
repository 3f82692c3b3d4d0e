/* gemm_fp8.c: the reference side of gemm.cublas's scaled fp8 modes (fp8e5m2, fp8row, fp8blk):
 * the operands quantised as kernels/gemm.cu quantises them (abi/gemm.h's recipe: the same
 * groups, the same f32 scale, the same rounding), so that the oracle's product is the exact
 * result of the quantised problem and the judge sees the accumulation alone. */
#include "ops/gemm_fp8.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "../../oracle/go.h"

/* OCP 8-bit Floating Point Specification (OFP8) 1.0: E4M3 has 4 significand bits, smallest
   normal 2^-6, largest finite 448 (no infinity); E5M2 3 bits, 2^-14, 57344. */
static void format_of(int e5m2, int *p, int *emin, double *max)
{
    *p = e5m2 ? 3 : 4;
    *emin = e5m2 ? -14 : -6;
    *max = e5m2 ? 57344.0 : 448.0;
}

float gv_fp8_target(int e5m2)
{
    return e5m2 ? 57344.0f : 448.0f;
}

int gv_fp8_quantise(const gk_fp8_recipe *r, int operand, int64_t m, int64_t k, int64_t n,
                    const double *x, double *q, float *descale, double *deq)
{
    int amax_g = operand ? r->amax_b : r->amax_a, scale_g = operand ? r->group_b : r->group_a;
    int e5m2 = operand ? r->e5m2_b : r->e5m2_a;
    int64_t rows = operand ? k : m, cols = operand ? n : k;
    int64_t n_amax = gk_fp8_scale_count(amax_g, operand, m, k, n);
    int64_t n_scale = gk_fp8_scale_count(scale_g, operand, m, k, n);
    /* a plant's amax groups are the scale groups or the whole tensor (abi/gemm.h) */
    assert(amax_g == scale_g || amax_g == GK_FP8_TENSOR);
    float *amax = calloc((size_t)(n_amax * 2), sizeof *amax);
    if (!amax) return GV_ENOMEM;
    float *s = amax + n_amax;
    for (int64_t row = 0; row < rows; row++)
        for (int64_t col = 0; col < cols; col++) {
            float a = fabsf((float)x[row * cols + col]);
            int64_t g = gk_fp8_amax_index(r, operand, row, col, m, k);
            assert(g >= 0 && g < n_amax);
            if (a > amax[g] || isnan(a)) amax[g] = a; /* a NaN stays: the kernel's bit max */
        }
    float target = gv_fp8_target(e5m2);
    for (int64_t g = 0; g < n_amax; g++)
        s[g] = !r->unit_scales && amax[g] > 0.0f && amax[g] <= FLT_MAX ? target / amax[g] : 1.0f;
    if (descale)
        for (int64_t g = 0; g < n_scale; g++)
            descale[g] = 1.0f / s[amax_g == GK_FP8_TENSOR ? 0 : g];
    int p, emin, p5, emin5;
    double max, max5;
    format_of(e5m2, &p, &emin, &max);
    format_of(1, &p5, &emin5, &max5);
    bool twice = operand == 1 && r->e5m2_round_b; /* the planted e5m2 rounding first */
    for (int64_t row = 0; row < rows; row++)
        for (int64_t col = 0; col < cols; col++) {
            int64_t i = row * cols + col;
            float sg = s[gk_fp8_amax_index(r, operand, row, col, m, k)];
            double v = (double)((float)x[i] * sg);
            if (twice) v = go_round_format(v, p5, emin5, max5, 1);
            v = go_round_format(v, p, emin, max, 1);
            if (q) q[i] = v;
            if (deq) deq[i] = v * (double)(1.0f / sg);
        }
    free(amax);
    return GV_OK;
}

int gv_fp8_dequantised(gv_mode mode, int64_t m, int64_t k, int64_t n, const double *a,
                       const double *b, double **da, double **db)
{
    gk_fp8_recipe r;
    if (!gk_fp8_recipe_of(mode, GK_FP8_HONEST, &r)) return GV_EINVAL;
    double *both = malloc(sizeof *both * (size_t)(m * k + k * n + 1));
    if (!both) return GV_ENOMEM;
    int rc = gv_fp8_quantise(&r, 0, m, k, n, a, NULL, NULL, both);
    if (rc == GV_OK) rc = gv_fp8_quantise(&r, 1, m, k, n, b, NULL, NULL, both + m * k);
    if (rc != GV_OK) {
        free(both);
        return rc;
    }
    *da = both;
    *db = both + m * k;
    return GV_OK;
}

double gv_fp8_scaled_unit(gv_mode mode)
{
    return ldexp(1.0, 1 - gv_mode_get(mode)->acc_bits);
}

/* The sums: Hopper's fp8 tensor core adds 32 products a block into a running sum, every term
   aligned to the block's largest exponent and truncated to 13 fraction bits, the sum truncated
   to 14 significant bits ([KM25]: src/probe/bfma.c, H100TC.m); cuBLASLt starts a fresh sum
   every 128 products and adds it into an f32 accumulator (probe/sm_90.expect: promotion 128,
   measured), the blockwise mode after multiplying it by its two block descales. So one output
   is at most ceil(min(k, 128) / 32) truncating block sums deep below an f32 sum of
   ceil(k / 128) chunks, each with up to two f32 roundings (2^-24 = 2^-11 u), and the
   descales' product and the final scaling, two more. The truncations lean one way and each
   can lose up to the sum's last place: the ratio bound's 16 of them a block is the headroom
   (tests/cpu/model_fp8.c measures the emulated kernel's ratio against it). */
double gv_fp8_scaled_depth(const gv_case *c)
{
    int64_t k = c->shape.d[1];
    int64_t chunk = k < GK_FP8_BLOCK_K ? k : GK_FP8_BLOCK_K;
    double blocks = (double)gk_fp8_cdiv(chunk > 0 ? chunk : 1, 32);
    return blocks + (2.0 * (double)gk_fp8_cdiv(k > 0 ? k : 1, GK_FP8_BLOCK_K) + 2.0) * 0x1p-11;
}
