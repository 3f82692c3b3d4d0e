/* fp8_product.h: gemm.cublas's fp8 and scaled fp8 product (kernels/gemm.cu) for the families
 * that run those modes on a product of their own (dense.sigmoid). The launch is the family's:
 * dims m, k, n, in[0] the m x k operand, in[1] the k x n one (f32, dense), and its workspace
 * starts with gemm's workspace of the mode (abi/gemm.h, gk_fp8_product_bytes). */
#ifndef GK_FP8_PRODUCT_H
#define GK_FP8_PRODUCT_H

#include "gk.h"

/* The mode's plan in L->state; plant: abi/gemm.h's GK_FP8_* recipe (GK_FP8_HONEST: the label's;
   the fp8 mode has none). GV_OK for a mode that is not an fp8 one (nothing to set up). */
int gk_fp8_product_setup(gk_launch *L, int plant);
/* c (m x n, f32, dense, device memory) = in[0] in[1] as the mode quantises and multiplies them:
   a SKIP that says why where cuBLASLt has no kernel for the shape. */
int gk_fp8_product(gk_launch *L, float *c);
void gk_fp8_product_teardown(gk_launch *L);

#endif
