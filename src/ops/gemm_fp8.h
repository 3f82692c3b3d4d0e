/* gemm_fp8.h: the reference side of gemm.cublas's scaled fp8 modes (gemm_fp8.c): each operand
 * quantised exactly as kernels/gemm.cu quantises it, by the recipe of abi/gemm.h. */
#ifndef GV_OPS_GEMM_FP8_H
#define GV_OPS_GEMM_FP8_H

#include <stdint.h>

#include "../../abi/gemm.h"
#include "core/gv.h"

/* The largest finite value the recipe scales a format to: 448 (e4m3), 57344 (e5m2). */
float gv_fp8_target(int e5m2);

/* Operand `operand` (0: A, m x k; 1: B, k x n; row-major f32 values held in doubles, x)
 * quantised under recipe r: each amax group's amax in f32, its scale s = target / amax in f32
 * (1 where amax is 0, Inf or NaN, or where r forces unit scales), x s in f32 rounded to
 * nearest even into the format with saturation (cuda_fp8.h's __NV_SATFINITE). Writes, where
 * not NULL: q, the format's values; descale, 1 / s in f32 for each of the operand's scale
 * groups (gk_fp8_scale_count of r's group, padding included); deq, q (1 / s) (exact in f64:
 * at most 4 and 24 significant bits). Returns GV_OK or GV_ENOMEM. */
int gv_fp8_quantise(const gk_fp8_recipe *r, int operand, int64_t m, int64_t k, int64_t n,
                    const double *x, double *q, float *descale, double *deq);

/* A (m x k) and B (k x n) of a scaled mode's case as its label quantises them, dequantised
   into *da and *db (malloc'd, the caller frees *da; *db lies in the same allocation).
   GV_EINVAL where the mode is not scaled. */
int gv_fp8_dequantised(gv_mode mode, int64_t m, int64_t k, int64_t n, const double *a,
                       const double *b, double **da, double **db);

/* The scaled fp8 modes' worst-case model (docs/error-models.md, "Scaled fp8"), for gemm.cublas
   and every op whose product is gemm's (dense.sigmoid): u, the accumulator's last place
   2^(1 - acc bits) (2^-13), and the depth of the product of c's shape (m, k, n) in units of
   it. */
double gv_fp8_scaled_unit(gv_mode mode);
double gv_fp8_scaled_depth(const gv_case *c);

#endif
