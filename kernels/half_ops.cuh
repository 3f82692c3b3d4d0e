/* half_ops.cuh: the 16-bit modes (f16, bf16) of the families whose product is not gemm's own
 * (matmul_colsum, einsum.colsum, dense.sigmoid), as torch.autocast and CuPy's float16 products
 * compute them: the f32 operands rounded to the half type (to nearest even, overflowing to
 * inf, as __float2half and __float2bfloat16 do), the products and sums in f32. The copies lie
 * at the start of the workspace (abi/gemm.h, gk_half_operands_bytes).
 *
 * B's count: the planted *.halfcount variants convert only A's m*k elements of B (a copied
 * launch whose count was not changed); the rest of B's copy is zero (fresh memory). */
#ifndef GK_HALF_OPS_CUH
#define GK_HALF_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../abi/gemm.h"
#include "gk_cuda.h"

/* rows x cols of x (leading dimension ld) rounded to H, stored packed into y as H (Wide false)
   or as the rounded value widened back to f32 (Wide true: exact, every H is an f32). y may be
   x (packed, Wide): each element is read and written by one thread. */
template <typename H, bool Wide>
__global__ void gk_half_round_kernel(const float *x, int64_t ld, int64_t cols, void *y,
                                     int64_t count)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        H h = H(x[(i / cols) * ld + i % cols]);
        if (Wide)
            ((float *)y)[i] = (float)h;
        else
            ((H *)y)[i] = h;
    }
}

/* The two rounded copies of L's mode, A (m x k, leading dimension lda) and B (k x n, ldb),
   into the start of L's workspace; *a_out, *b_out receive them. b_count: B's elements
   converted (k n; the planted variant's m k). GV_OK, or an internal failure where the
   workspace is smaller than abi/gemm.h's contract. */
template <typename H, bool Wide>
static int gk_half_operands_t(gk_launch *L, const float *a, int64_t lda, const float *b,
                              int64_t ldb, int64_t b_count, void **a_out, void **b_out)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    int64_t es = Wide ? 4 : 2;
    if (!L->workspace || L->workspace_bytes < gk_half_operands_bytes(L->mode, m, k, n, es))
        return gk_fail_internal("16-bit mode: workspace smaller than abi/gemm.h's contract");
    char *ws = (char *)L->workspace;
    void *a16 = ws, *b16 = ws + gk_gemm_round256(m * k * es);
    if (b_count > k * n) b_count = k * n;
    /* the planted short conversion: the tail it leaves is zeroed first, so that it never holds
       an earlier case's right values (the device pool reuses memory: a stale tail converted
       by the honest kernel at the same shape would hide the bug) */
    if (b_count < k * n) GK_CUDA(cudaMemsetAsync(b16, 0, (size_t)(k * n * es), gk_stream(L)));
    if (m * k > 0)
        gk_half_round_kernel<H, Wide>
            <<<gk_blocks(m * k, 256), 256, 0, gk_stream(L)>>>(a, lda, k, a16, m * k);
    if (b_count > 0)
        gk_half_round_kernel<H, Wide>
            <<<gk_blocks(b_count, 256), 256, 0, gk_stream(L)>>>(b, ldb, n, b16, b_count);
    GK_LAUNCHED("gk_half_round_kernel");
    *a_out = a16;
    *b_out = b16;
    return GV_OK;
}

/* As above for L's mode (f16 or bf16). */
template <bool Wide>
static int gk_half_operands(gk_launch *L, const float *a, int64_t lda, const float *b, int64_t ldb,
                            int64_t b_count, void **a_out, void **b_out)
{
    if (L->mode == GV_MODE_BF16)
        return gk_half_operands_t<__nv_bfloat16, Wide>(L, a, lda, b, ldb, b_count, a_out, b_out);
    return gk_half_operands_t<__half, Wide>(L, a, lda, b, ldb, b_count, a_out, b_out);
}

/* Row-major C (m x n, f32) = A B on L's operands rounded to its mode's half type: the copies
   (gk_half_operands), then cublasGemmEx with COMPUTE_32F, as autocast's mm and CuPy's float16
   matmul call it; the math mode recorded says so. */
static inline int gk_half_gemm(gk_launch *L, cublasHandle_t h, const float *a, const float *b,
                               int64_t b_count, float *c)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    void *a16 = NULL, *b16 = NULL;
    int rc = gk_half_operands<false>(L, a, k, b, n, b_count, &a16, &b16);
    if (rc) return rc;
    cudaDataType ht = L->mode == GV_MODE_BF16 ? CUDA_R_16BF : CUDA_R_16F;
    const float one = 1.0f, zero = 0.0f;
    GK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b16, ht,
                           (int)n, a16, ht, (int)k, &zero, c, CUDA_R_32F, (int)n,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    snprintf(L->math_mode, sizeof L->math_mode, "cublasGemmEx %s in, COMPUTE_32F",
             ht == CUDA_R_16F ? "f16" : "bf16");
    return GV_OK;
}

/* z (count f32 values) rounded to L's mode's half type in place, kept in f32: the product
   stored in the half type, as autocast's mm returns it (overflowing to inf past the type's
   largest finite, f16's 65504). */
static inline int gk_half_round_inplace(gk_launch *L, float *z, int64_t count)
{
    if (count <= 0) return GV_OK;
    if (L->mode == GV_MODE_BF16)
        gk_half_round_kernel<__nv_bfloat16, true>
            <<<gk_blocks(count, 256), 256, 0, gk_stream(L)>>>(z, count, count, z, count);
    else
        gk_half_round_kernel<__half, true>
            <<<gk_blocks(count, 256), 256, 0, gk_stream(L)>>>(z, count, count, z, count);
    GK_LAUNCHED("gk_half_round_kernel");
    return GV_OK;
}

#endif
