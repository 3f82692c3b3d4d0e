/* gemm.h: the layout contract of gemm.cublas's reduced-precision modes (kernels/gemm.cu), shared
 * by the kernel and the op's layout (src/ops/gemm.c), which must agree. */
#ifndef GV_ABI_GEMM_H
#define GV_ABI_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "gv_abi.h"

/* The workspace of one gemm.cublas launch in mode `mode` (a gv_mode), cut into parts that
 * each start on a 256-byte boundary, in this order:
 *  - f16 / bf16:  A in 16 bits (m k), B in 16 bits (k n);
 *  - f16acc:      the same, then C in f16 (m n) before it is widened to f32;
 *  - fp8:         A in e4m3 (m k), B transposed in e4m3 (n k: cuBLASLt's fp8 kernels take
 *                 the "TN" layout), GK_GEMM_FP8_SCALE_BYTES of scales (amax of A and of B
 *                 as f32 bit patterns at byte 0, then the descale factors amax / 448 of A and
 *                 of B at bytes 256 and 512: cuBLASLt wants aligned scale pointers), then
 *                 GK_GEMM_FP8_LT_BYTES for cuBLASLt's own workspace;
 *  - fp8e5m2, fp8row, fp8blk: the same four parts, the scales part gk_fp8_scales_bytes's.
 * Other modes need none. off[i] receives the byte offset of part i (may be NULL). */
#define GK_GEMM_FP8_SCALE_BYTES 768
#define GK_GEMM_FP8_LT_BYTES    (32ll << 20)
#define GK_GEMM_MAX_PARTS       4

static inline int64_t gk_gemm_round256(int64_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

/* ---- the scaled fp8 modes (fp8e5m2, fp8row, fp8blk): which elements share a scale ----------
 * Each operand is cut into groups that share one f32 scale s = target / amax(group) (target:
 * 448 for e4m3, 57344 for e5m2; 1 where amax is 0, Inf or NaN); cuBLASLt multiplies by the
 * descale 1 / s. The groups, and where each group's descale sits in the array cuBLASLt reads
 * (cuBLAS Library guide, cublasLtMatmulMatrixScale_t and "Scaling factors layouts"; the
 * strides as PyTorch's scaled_mm states them from it, pytorch/pytorch PR 166752, and the
 * sizes of CUDALibrarySamples' cuBLASLt/helpers.h):
 *  - GK_FP8_TENSOR (SCALAR_32F): one for the whole operand;
 *  - GK_FP8_OUTER (OUTER_VEC_32F): one per row i of A (m), one per column j of B (n);
 *  - GK_FP8_BLOCK: A in 1 x 128 blocks along K (VEC128_32F): A[i][l] at i + (l / 128) m, the
 *    row index fastest ([M, K/128] with strides [1, M]); B in 128 x 128 blocks
 *    (BLK128x128_32F): B[l][j] at l / 128 + (j / 128) L4, the K-block index fastest with its
 *    count rounded up to a multiple of 4 (L4 = 4 ceil(ceil(K/128) / 4); [L4, N/128], strides
 *    [1, L4]). A partial last block (k or n not multiples of 128) is a block of its own.
 * gemm.cu passes cuBLASLt its "A" = our B^T and its "B" = our A^T (the "TN" layout), so B's
 * mode is cuBLASLt's A_SCALE_MODE and A's its B_SCALE_MODE; the outer dimension of each is
 * ours (n for B, m for A). */
enum { GK_FP8_TENSOR = 0, GK_FP8_OUTER = 1, GK_FP8_BLOCK = 2 };
#define GK_FP8_BLOCK_K 128

/* the indexing below runs in the kernels too (kernels/gemm_fp8scaled.cuh) */
#ifdef __CUDACC__
#define GK_FP8_HD __host__ __device__
#else
#define GK_FP8_HD
#endif

static inline GK_FP8_HD int64_t gk_fp8_cdiv(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* the K-block count of B's scales with its padding (L4) */
static inline GK_FP8_HD int64_t gk_fp8_l4(int64_t k)
{
    return gk_fp8_cdiv(gk_fp8_cdiv(k, GK_FP8_BLOCK_K), 4) * 4;
}

/* How many descales operand (0: A, 1: B) has under grouping g, padding included. */
static inline GK_FP8_HD int64_t gk_fp8_scale_count(int g, int operand, int64_t m, int64_t k,
                                                   int64_t n)
{
    if (g == GK_FP8_OUTER) return operand ? n : m;
    if (g == GK_FP8_BLOCK)
        return operand ? gk_fp8_l4(k) * gk_fp8_cdiv(n, GK_FP8_BLOCK_K)
                       : m * gk_fp8_cdiv(k, GK_FP8_BLOCK_K);
    return 1;
}

/* The descale index of A[i][l] (A m x k) and of B[l][j] (B k x n) under grouping g. */
static inline GK_FP8_HD int64_t gk_fp8_a_scale_index(int g, int64_t i, int64_t l, int64_t m)
{
    return g == GK_FP8_OUTER ? i : g == GK_FP8_BLOCK ? i + (l / GK_FP8_BLOCK_K) * m : 0;
}
static inline GK_FP8_HD int64_t gk_fp8_b_scale_index(int g, int64_t l, int64_t j, int64_t k)
{
    return g == GK_FP8_OUTER   ? j
           : g == GK_FP8_BLOCK ? l / GK_FP8_BLOCK_K + (j / GK_FP8_BLOCK_K) * gk_fp8_l4(k)
                               : 0;
}

/* What a scaled mode does to its operands (and what a planted variant does instead under
 * its label): the groups cuBLASLt is told, the groups each amax is taken over (the same but
 * in a plant), each operand's format (e5m2: target 57344; e4m3: 448), and whether every
 * scale is forced to 1. kernels/gemm.cu quantises by it, src/ops/gemm_fp8.c the reference
 * (always GK_FP8_HONEST: the reference is the label's). */
enum {
    GK_FP8_HONEST = 0,    /* the mode as its row says */
    GK_FP8_NOSCALE = 1,   /* planted: every scale 1 (the operands converted as they are) */
    GK_FP8_ROWTENSOR = 2, /* planted, fp8row: amax over the whole tensor in every row's slot */
    GK_FP8_E5M2B = 3,     /* planted, e4m3 modes: B rounded to e5m2 (3 significand bits),
                             stored in e4m3 bytes under the e4m3 label: e5m2's arithmetic on
                             a path cuBLASLt runs for e4m3, whatever it offers e5m2 */
    GK_FP8_BLKROW = 4,    /* planted, fp8blk: one scale per row of A and column of B, applied
                             after the sum over the whole K, where the label scales each block */
};
typedef struct gk_fp8_recipe {
    int group_a, group_b; /* GK_FP8_*: the descales cuBLASLt reads */
    int amax_a, amax_b;   /* GK_FP8_*: the elements one amax covers */
    int e5m2_a, e5m2_b;   /* 1: e5m2, 0: e4m3 */
    int unit_scales;      /* 1: s = 1 everywhere */
    int e5m2_round_b;     /* 1: B's scaled values rounded to e5m2 first, then to its format */
} gk_fp8_recipe;

/* The recipe of mode (a gv_mode) under plant; 0 where the mode is not a scaled fp8 mode. */
static inline int gk_fp8_recipe_of(int mode, int plant, gk_fp8_recipe *r)
{
    gk_fp8_recipe z = {GK_FP8_TENSOR, GK_FP8_TENSOR, GK_FP8_TENSOR, GK_FP8_TENSOR, 0, 0, 0, 0};
    if (mode == GV_MODE_FP8E5M2)
        z.e5m2_b = 1;
    else if (mode == GV_MODE_FP8ROW)
        z.group_a = z.group_b = z.amax_a = z.amax_b = GK_FP8_OUTER;
    else if (mode == GV_MODE_FP8BLK)
        z.group_a = z.group_b = z.amax_a = z.amax_b = GK_FP8_BLOCK;
    else
        return 0;
    if (plant == GK_FP8_NOSCALE) z.unit_scales = 1;
    if (plant == GK_FP8_ROWTENSOR) z.amax_a = z.amax_b = GK_FP8_TENSOR;
    if (plant == GK_FP8_E5M2B) z.e5m2_round_b = !z.e5m2_b;
    if (plant == GK_FP8_BLKROW) z.group_a = z.group_b = z.amax_a = z.amax_b = GK_FP8_OUTER;
    *r = z;
    return 1;
}

/* The index of A[i][l]'s (operand 0) or B[l][j]'s (operand 1) amax under recipe r: the
 * element's group in r's amax grouping. */
static inline GK_FP8_HD int64_t gk_fp8_amax_index(const gk_fp8_recipe *r, int operand, int64_t row,
                                                  int64_t col, int64_t m, int64_t k)
{
    return operand ? gk_fp8_b_scale_index(r->amax_b, row, col, k)
                   : gk_fp8_a_scale_index(r->amax_a, row, col, m);
}

/* The scales part of a scaled mode's workspace, sized for any grouping (the planted variants
 * run another one under the mode's label): A's amax words (f32 bits), B's, A's descales,
 * B's, each on a 256-byte boundary (cuBLASLt wants aligned scale pointers). off[4] receives
 * their offsets in the part (may be NULL); returns the part's bytes. */
static inline int64_t gk_fp8_scales_bytes(int64_t m, int64_t k, int64_t n, int64_t off[4])
{
    int64_t total = 0;
    for (int part = 0; part < 4; part++) {
        int operand = part & 1;
        int64_t most = 1;
        for (int g = GK_FP8_TENSOR; g <= GK_FP8_BLOCK; g++) {
            int64_t c = gk_fp8_scale_count(g, operand, m, k, n);
            most = c > most ? c : most;
        }
        if (off) off[part] = total;
        total += gk_gemm_round256(most * 4);
    }
    return total;
}

static inline int64_t gk_gemm_workspace_bytes(int mode, int64_t m, int64_t k, int64_t n,
                                              int64_t off[GK_GEMM_MAX_PARTS])
{
    int64_t part[GK_GEMM_MAX_PARTS] = {0, 0, 0, 0};
    int np = 0;
    switch (mode) {
    case GV_MODE_F16:
    case GV_MODE_BF16:
        part[0] = m * k * 2;
        part[1] = k * n * 2;
        np = 2;
        break;
    case GV_MODE_F16ACC:
        part[0] = m * k * 2;
        part[1] = k * n * 2;
        part[2] = m * n * 2;
        np = 3;
        break;
    case GV_MODE_FP8:
        part[0] = m * k;
        part[1] = k * n;
        part[2] = GK_GEMM_FP8_SCALE_BYTES;
        part[3] = GK_GEMM_FP8_LT_BYTES;
        np = 4;
        break;
    case GV_MODE_FP8E5M2:
    case GV_MODE_FP8ROW:
    case GV_MODE_FP8BLK:
        part[0] = m * k;
        part[1] = k * n;
        part[2] = gk_fp8_scales_bytes(m, k, n, NULL);
        part[3] = GK_GEMM_FP8_LT_BYTES;
        np = 4;
        break;
    default: break;
    }
    int64_t total = 0;
    for (int i = 0; i < np; i++) {
        if (off) off[i] = total;
        total += gk_gemm_round256(part[i]);
    }
    return total;
}

/* ---- products inside other families in the fp8 modes -------------------------------------
 * dense.sigmoid runs fp8 and the scaled fp8 modes through gemm.cublas's own fp8 product
 * (kernels/gemm.cu, gk_fp8_product): gemm's workspace of the mode sits at the start of the
 * op's workspace, in gk_gemm_workspace_bytes's layout, and the op's own parts follow it. */
static inline bool gk_fp8_mode(int mode)
{
    return mode == GV_MODE_FP8 || gv_mode_scaled(mode);
}

static inline int64_t gk_fp8_product_bytes(int mode, int64_t m, int64_t k, int64_t n)
{
    return gk_fp8_mode(mode) ? gk_gemm_workspace_bytes(mode, m, k, n, NULL) : 0;
}

/* ---- products inside other families in the 16-bit modes (f16, bf16) --------------------------
 * matmul_colsum, einsum.colsum and dense.sigmoid run their f16 and bf16 modes (f32 cases) on
 * copies of their two matrix operands rounded to the half type: A (m x k) and B (k x n), each
 * element es bytes (2: the half type itself, for cublasGemmEx; 4: the rounded value held in
 * f32, for a kernel that sums in f32 itself). The copies sit at the start of the op's
 * workspace, each on a 256-byte boundary, and the op's own parts follow them. Other modes: 0
 * (the workspace is as it was). */
static inline bool gk_half_mode(int mode)
{
    return mode == GV_MODE_F16 || mode == GV_MODE_BF16;
}

static inline int64_t gk_half_operands_bytes(int mode, int64_t m, int64_t k, int64_t n, int64_t es)
{
    if (!gk_half_mode(mode)) return 0;
    return gk_gemm_round256(m * k * es) + gk_gemm_round256(k * n * es);
}

#endif
