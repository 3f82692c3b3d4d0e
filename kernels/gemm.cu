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

/* ---- gemm.regblock: register-blocked FFMA SGEMM / DGEMM ----
 * The structure of the well-known SIMT designs (CUTLASS's SIMT sgemm; the "how to optimize
 * a CUDA matmul" worklog's warp-tiled kernel), written for this tree:
 *  - a 256-thread block computes a BM x BN = 128 x 128 tile of C, walking K in BK = 8 slices;
 *  - 8 warps in 2 x 4, each a 64 x 32 warp tile; a lane owns an 8 x 8 thread tile made of
 *    2 x 2 sub-tiles of 4 x 4 (rows tr*4 + {0, 32}, columns tc*4 + {0, 16} inside the warp
 *    tile), so that the lanes of a warp read 8 (A) and 4 (B) distinct 4-vectors from shared
 *    memory: no bank conflicts, the rest broadcast;
 *  - A's slice is stored transposed (k-major, As[k][m], padded by 4 so the transposing
 *    stores of a warp do not collide), B's as it is (Bs[k][n]);
 *  - two shared buffers: the next slice is loaded from global memory into registers before
 *    the current one is used, then stored into the other buffer; one barrier per slice;
 *  - 4-vector global loads and stores (one float4, or two double2) when k and n are
 *    multiples of 4 and A, B, C are 16-byte aligned: a 4-vector is then wholly inside or
 *    wholly outside the matrix. Otherwise every element is guarded on its own. Out-of-range
 *    elements load as 0 and are never stored.
 * Each C element is one FMA chain over k in order (acc = fma(a, b, acc)): the gamma_k model
 * of gemm holds as for any order. */
#define RB_BM      128
#define RB_BN      128
#define RB_BK      8
#define RB_THREADS 256
#define RB_APAD    4

template <typename T> struct rb_vec4 {
    T v[4];
};

/* Four consecutive T from 16-byte aligned p (a float4 or two double2). */
__device__ __forceinline__ rb_vec4<float> rb_load4(const float *p)
{
    float4 x = *reinterpret_cast<const float4 *>(p);
    return {{x.x, x.y, x.z, x.w}};
}
__device__ __forceinline__ rb_vec4<double> rb_load4(const double *p)
{
    double2 x = reinterpret_cast<const double2 *>(p)[0];
    double2 y = reinterpret_cast<const double2 *>(p)[1];
    return {{x.x, x.y, y.x, y.y}};
}
__device__ __forceinline__ void rb_store4(float *p, const float *v)
{
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ void rb_store4(double *p, const double *v)
{
    reinterpret_cast<double2 *>(p)[0] = make_double2(v[0], v[1]);
    reinterpret_cast<double2 *>(p)[1] = make_double2(v[2], v[3]);
}

/* The 4 elements p[0..3] of one row of a matrix; element q exists when row_ok and
   c + q < cols. Zero where it does not. Vec: cols % 4 == 0, c % 4 == 0 and p 16-byte
   aligned, so the four exist together or not at all. */
template <typename T, bool Vec>
__device__ __forceinline__ rb_vec4<T> rb_fetch4(const T *__restrict__ p, bool row_ok, int64_t c,
                                                int64_t cols)
{
    rb_vec4<T> x = {{T(0), T(0), T(0), T(0)}};
    if (!row_ok) return x;
    if (Vec) {
        if (c < cols) x = rb_load4(p);
    } else {
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (c + q < cols) x.v[q] = p[q];
    }
    return x;
}

template <typename T, bool Vec, bool DropTail>
__global__ void __launch_bounds__(RB_THREADS, sizeof(T) == 4 ? 2 : 1)
    regblock_gemm_kernel(const T *__restrict__ A, const T *__restrict__ B, T *__restrict__ C,
                         int64_t m, int64_t k, int64_t n)
{
    __shared__ __align__(16) T As[2][RB_BK][RB_BM + RB_APAD];
    __shared__ __align__(16) T Bs[2][RB_BK][RB_BN];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm0 = (warp / 4) * 64, wn0 = (warp % 4) * 32; /* the warp tile in the block tile */
    const int tr = lane / 4, tc = lane % 4;                 /* the lane in the warp tile */
    /* global-load assignment: A slice 128 x 8 as 128 rows x 2 vectors; B slice 8 x 128 as
       8 rows x 32 vectors; one vector of each per thread */
    const int a_r = tid / 2, a_k = (tid % 2) * 4;
    const int b_k = tid / 32, b_c = (tid % 32) * 4;
    const int64_t col0 = (int64_t)blockIdx.x * RB_BN;
    const int64_t tiles_m = (m + RB_BM - 1) / RB_BM;
    const int64_t ktiles = DropTail ? k / RB_BK : (k + RB_BK - 1) / RB_BK;

    for (int64_t by = blockIdx.y; by < tiles_m; by += gridDim.y) {
        const int64_t row0 = by * RB_BM;
        T acc[8][8];
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[i][j] = T(0);

        /* this thread's next A vector (row row0 + a_r) and B vector (column col0 + b_c),
           advanced by one slice at a time */
        const bool a_row_ok = row0 + a_r < m;
        const T *pa = A + (a_row_ok ? (row0 + a_r) * k + a_k : 0);
        const T *pb = B + (int64_t)b_k * n + col0 + b_c;
        rb_vec4<T> ra = {}, rb = {};
        if (ktiles > 0) {
            ra = rb_fetch4<T, Vec>(pa, a_row_ok, a_k, k);
            rb = rb_fetch4<T, Vec>(pb, b_k < k, col0 + b_c, n);
#pragma unroll
            for (int q = 0; q < 4; q++)
                As[0][a_k + q][a_r] = ra.v[q];
            rb_store4(&Bs[0][b_k][b_c], rb.v);
        }
        __syncthreads();

        for (int64_t t = 0; t < ktiles; t++) {
            const int cur = (int)(t & 1);
            const bool more = t + 1 < ktiles;
            if (more) { /* issue the next slice's loads now; they land while we compute */
                const int64_t kk = (t + 1) * RB_BK;
                pa += RB_BK;
                pb += (int64_t)RB_BK * n;
                ra = rb_fetch4<T, Vec>(pa, a_row_ok, kk + a_k, k);
                rb = rb_fetch4<T, Vec>(pb, kk + b_k < k, col0 + b_c, n);
            }
#pragma unroll
            for (int q = 0; q < RB_BK; q++) {
                T a[8], b[8];
                rb_vec4<T> a0 = rb_load4(&As[cur][q][wm0 + tr * 4]);
                rb_vec4<T> a1 = rb_load4(&As[cur][q][wm0 + 32 + tr * 4]);
                rb_vec4<T> b0 = rb_load4(&Bs[cur][q][wn0 + tc * 4]);
                rb_vec4<T> b1 = rb_load4(&Bs[cur][q][wn0 + 16 + tc * 4]);
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    a[i] = a0.v[i];
                    a[4 + i] = a1.v[i];
                    b[i] = b0.v[i];
                    b[4 + i] = b1.v[i];
                }
#pragma unroll
                for (int i = 0; i < 8; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++)
                        acc[i][j] = fma(a[i], b[j], acc[i][j]);
            }
            if (more) {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    As[cur ^ 1][a_k + q][a_r] = ra.v[q];
                rb_store4(&Bs[cur ^ 1][b_k][b_c], rb.v);
            }
            __syncthreads();
        }

#pragma unroll
        for (int i = 0; i < 8; i++) {
            const int64_t r = row0 + wm0 + (i / 4) * 32 + tr * 4 + (i % 4);
            if (r >= m) continue;
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int64_t c = col0 + wn0 + h * 16 + tc * 4;
                T *p = C + r * n + c;
                if (Vec) {
                    if (c < n) rb_store4(p, &acc[i][h * 4]);
                } else {
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        if (c + q < n) p[q] = acc[i][h * 4 + q];
                }
            }
        }
        /* the next tile row's first stores into buffer 0 must wait for every warp to have
           left this tile's last reads: the barrier at the end of the K loop covers it, and
           with ktiles == 0 nothing was read */
    }
}

static bool rb_aligned16(const void *p)
{
    return ((uintptr_t)p & 15) == 0;
}

template <bool DropTail> static int regblock_gemm(gk_launch *L)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    int64_t tiles_m = (m + RB_BM - 1) / RB_BM, tiles_n = (n + RB_BN - 1) / RB_BN;
    dim3 grid((unsigned)tiles_n, (unsigned)(tiles_m < 65535 ? tiles_m : 65535));
    const bool vec = k % 4 == 0 && n % 4 == 0 && rb_aligned16(L->in[0]) && rb_aligned16(L->in[1]) &&
                     rb_aligned16(L->out[0]);
    snprintf(L->math_mode, sizeof L->math_mode, "hand-written FFMA, %s loads",
             vec ? "4-vector" : "scalar");
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        const T *A = (const T *)L->in[0], *B = (const T *)L->in[1];
        T *C = (T *)L->out[0];
        if (vec)
            regblock_gemm_kernel<T, true, DropTail>
                <<<grid, RB_THREADS, 0, gk_stream(L)>>>(A, B, C, m, k, n);
        else
            regblock_gemm_kernel<T, false, DropTail>
                <<<grid, RB_THREADS, 0, gk_stream(L)>>>(A, B, C, m, k, n);
        GK_LAUNCHED("regblock_gemm_kernel");
        return (int)GV_OK;
    });
}

extern "C" const gk_op gk_gemm_regblock = {NULL, regblock_gemm<false>, NULL};
extern "C" const gk_op gk_gemm_regblock_droptail = {NULL, regblock_gemm<true>, NULL};
