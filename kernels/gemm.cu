/* gemm.cu: C(m x n) = A(m x k) B(k x n), row-major.
 *  - gemm.cublas: cublasSgemm/Dgemm with the mode's math mode set on the handle. cuBLAS is
 *    column-major, so the row-major product is the column-major C^T = B^T A^T: B first.
 *  - gemm.tiled: the seeds' shared-memory tiled matmul in CUDA C. 32 x 32 tiles of A and B
 *    in shared memory; a 32 x 8 thread block, each thread accumulating 4 rows of its
 *    column; partial tiles (m, n or k not multiples of 32) are zero-filled on load.
 *  - planted bug gemm.cublas.tf32native: the native f32 call runs TF32 tensor-op math under a
 *    pedantic label (gk_secretly_tf32).
 *  - planted bug gemm.tiled.droptail: the K loop stops at the last full tile, dropping the
 *    partial tile (wrong whenever k % 32 != 0). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gk_cuda.h"

/* f16 / bf16 storage modes: the f32 inputs rounded (to nearest) into the workspace */
template <typename H>
__global__ void to_half_kernel(const float *__restrict__ x, H *__restrict__ y, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = H(x[i]);
}

/* Row-major C = A B with A and B stored in a 16-bit type H and f32 accumulation: the layout
   (src/ops/gemm.c) reserves the two 16-bit copies in the workspace, A's first, each rounded
   up to 256 bytes. */
template <typename H> static int half_gemm(gk_launch *L, cublasHandle_t h, cudaDataType ht)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    int64_t a_bytes = (m * k * 2 + 255) / 256 * 256;
    if (!L->workspace || a_bytes + k * n * 2 > L->workspace_bytes)
        return gk_fail_internal("gemm: workspace smaller than the 16-bit copies need");
    H *a16 = (H *)L->workspace, *b16 = (H *)((char *)L->workspace + a_bytes);
    to_half_kernel<H>
        <<<gk_blocks(m * k, 256), 256, 0, gk_stream(L)>>>((const float *)L->in[0], a16, m * k);
    to_half_kernel<H>
        <<<gk_blocks(k * n, 256), 256, 0, gk_stream(L)>>>((const float *)L->in[1], b16, k * n);
    GK_LAUNCHED("to_half_kernel");
    const float one = 1.0f, zero = 0.0f;
    GK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b16, ht,
                           (int)n, a16, ht, (int)k, &zero, L->out[0], CUDA_R_32F, (int)n,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    snprintf(L->math_mode, sizeof L->math_mode, "cublasGemmEx %s in, COMPUTE_32F",
             ht == CUDA_R_16F ? "f16" : "bf16");
    return GV_OK;
}

static int cublas_gemm(gk_launch *L)
{
    cublasHandle_t h;
    int rc = gk_cublas(L, &h);
    if (rc) return rc;
    if (L->mode == GV_MODE_F16 || L->mode == GV_MODE_BF16) {
        if (L->dtype != GV_F32) return gk_fail_unsupported("16-bit storage modes take f32 cases");
        return L->mode == GV_MODE_F16 ? half_gemm<__half>(L, h, CUDA_R_16F)
                                      : half_gemm<__nv_bfloat16>(L, h, CUDA_R_16BF);
    }
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        return gk_gemm_rowmajor<T>(h, L->dims[0], L->dims[1], L->dims[2], (const T *)L->in[0],
                                   (const T *)L->in[1], (T *)L->out[0]);
    });
}

#define TILE            32
#define ROWS_PER_THREAD 4 /* blockDim.y = TILE / ROWS_PER_THREAD */

template <typename T, bool DropTail>
__global__ void tiled_gemm_kernel(const T *__restrict__ A, const T *__restrict__ B,
                                  T *__restrict__ C, int64_t m, int64_t k, int64_t n)
{
    __shared__ T As[TILE][TILE + 1]; /* +1: no bank conflicts on the transposed reads */
    __shared__ T Bs[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int64_t row0 = (int64_t)blockIdx.y * TILE, col = (int64_t)blockIdx.x * TILE + tx;
    T acc[ROWS_PER_THREAD] = {};
    int64_t ktiles = DropTail ? k / TILE : (k + TILE - 1) / TILE;
    for (int64_t t = 0; t < ktiles; t++) {
        int64_t kk = t * TILE;
#pragma unroll
        for (int r = 0; r < ROWS_PER_THREAD; r++) {
            int ly = ty + r * (TILE / ROWS_PER_THREAD);
            int64_t arow = row0 + ly, acol = kk + tx;
            As[ly][tx] = (arow < m && acol < k) ? A[arow * k + acol] : T(0);
            int64_t brow = kk + ly;
            Bs[ly][tx] = (brow < k && col < n) ? B[brow * n + col] : T(0);
        }
        __syncthreads();
#pragma unroll 8
        for (int q = 0; q < TILE; q++) {
            T b = Bs[q][tx];
#pragma unroll
            for (int r = 0; r < ROWS_PER_THREAD; r++)
                acc[r] += As[ty + r * (TILE / ROWS_PER_THREAD)][q] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < ROWS_PER_THREAD; r++) {
        int64_t row = row0 + ty + r * (TILE / ROWS_PER_THREAD);
        if (row < m && col < n) C[row * n + col] = acc[r];
    }
}

template <bool DropTail> static int tiled_gemm(gk_launch *L)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    dim3 block(TILE, TILE / ROWS_PER_THREAD);
    dim3 grid((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE));
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        tiled_gemm_kernel<T, DropTail><<<grid, block, 0, gk_stream(L)>>>(
            (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], m, k, n);
        GK_LAUNCHED("tiled_gemm_kernel");
        return (int)GV_OK;
    });
}

extern "C" const gk_op gk_gemm_cublas = {NULL, cublas_gemm, NULL};
extern "C" const gk_op gk_gemm_tiled = {NULL, tiled_gemm<false>, NULL};
extern "C" const gk_op gk_gemm_tiled_droptail = {NULL, tiled_gemm<true>, NULL};

static int cublas_gemm_tf32native(gk_launch *L)
{
    return gk_secretly_tf32(cublas_gemm, L);
}
extern "C" const gk_op gk_gemm_cublas_tf32native = {NULL, cublas_gemm_tf32native, NULL};
