/* gk_cuda.h: helpers for the .cu files only (never included from src/ or oracle/): error
 * recording with the CUDA or library error's own name, launch checks, the cached cuBLAS
 * handle, and grid sizing. */
#ifndef GK_CUDA_H
#define GK_CUDA_H

#include <cstdio>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../abi/gv_abi.h"
#include "gk.h"

/* Record a failure for gk_last_error(); return the gv_err to pass up. */
int gk_fail_cuda(cudaError_t e, const char *where);
int gk_fail_lib(const char *lib, int status, const char *status_name, const char *where);
int gk_fail_unsupported(const char *what);
/* GV_OK where the device has what L->mode needs (gv_mode_need), else GV_EUNSUPPORTED with the
   reason in gk_last_error(): gk_run and gk_bench_open call it before an op's setup. */
extern "C" int gk_mode_check(const gk_launch *L);
/* A guard violation (gk_run): the message as given; returns GV_EGUARD. */
int gk_fail_guard(const char *what);
/* A contract between an op's layout and its kernel is broken (workspace too small, aux for
   another case): a bug of gpuval, reported as an internal error, never as a SKIP. */
int gk_fail_internal(const char *what);
const char *gk_cublas_status_name(cublasStatus_t s);

#define GK_CUDA(call)                                                                              \
    do {                                                                                           \
        cudaError_t gk_e_ = (call);                                                                \
        if (gk_e_ != cudaSuccess) return gk_fail_cuda(gk_e_, #call);                               \
    } while (0)

/* After a <<<>>> launch: configuration errors show at once, faults at the next sync. */
#define GK_LAUNCHED(what)                                                                          \
    do {                                                                                           \
        cudaError_t gk_e_ = cudaGetLastError();                                                    \
        if (gk_e_ != cudaSuccess) return gk_fail_cuda(gk_e_, what);                                \
    } while (0)

#define GK_CUBLAS(call)                                                                            \
    do {                                                                                           \
        cublasStatus_t gk_s_ = (call);                                                             \
        if (gk_s_ != CUBLAS_STATUS_SUCCESS)                                                        \
            return gk_fail_lib("cuBLAS", (int)gk_s_, gk_cublas_status_name(gk_s_), #call);         \
    } while (0)

/* The process's cuBLAS handle, bound to L->stream, with the math mode of L->mode set
 * explicitly (native: CUBLAS_PEDANTIC_MATH; tf32: CUBLAS_TF32_TENSOR_OP_MATH) and recorded
 * in L->math_mode. */
int gk_cublas(gk_launch *L, cublasHandle_t *h);

/* For planted bugs only: run an op's f32 native launch with TF32 tensor-op math while the
 * recorded math mode still says pedantic, as a library default or an environment override
 * (NVIDIA_TF32_OVERRIDE) would do behind a caller's back. The verdict must catch it. */
static inline int gk_secretly_tf32(int (*launch)(gk_launch *), gk_launch *L)
{
    int mode = L->mode;
    if (L->dtype == GV_F32 && mode == GV_MODE_NATIVE) L->mode = GV_MODE_TF32;
    int rc = launch(L);
    L->mode = mode;
    if (mode == GV_MODE_NATIVE) snprintf(L->math_mode, sizeof L->math_mode, "CUBLAS_PEDANTIC_MATH");
    return rc;
}

/* ---- gk_run's bulk data paths (kernels/xfer.cu) ---------------------------------------- */

/* The size of each of the process's two staging buffers (pinned where possible). */
static const size_t kGkStageChunk = (size_t)32 << 20;
/* The two staging buffers, taken on first use and kept for the process; *pinned says whether
   they are page-locked. false: out of host memory. */
bool gk_stage_buffers(unsigned char *stage[2], bool *pinned);
/* GPUVAL_PAGEABLE=1: every copy is one plain cudaMemcpyAsync from or to pageable memory. */
bool gk_pageable_wanted(void);
/* Host -> device and device -> host on s: a large copy staged through the pinned buffers in
   chunks (host-side memcpy on a few threads, overlapped with the other chunk's DMA), a small
   one as a plain cudaMemcpyAsync. Both return with the host memory free to reuse:
   gk_copy_to_host with the bytes in host, gk_copy_to_device with nothing left reading it
   (a staged one synchronises s). */
cudaError_t gk_copy_to_device(void *dev, const void *host, size_t bytes, cudaStream_t s);
cudaError_t gk_copy_to_host(void *host, const void *dev, size_t bytes, cudaStream_t s);
/* Read bytes at dev back through stage (gk_stage_buffers) in kGkStageChunk chunks, calling
   consume(chunk, offset, length, ctx) on each while the next one is copied; returns after
   every copy on s is done (the staging is then free), the first error winning. */
typedef void (*gk_chunk_fn)(const unsigned char *chunk, size_t off, size_t len, void *ctx);
cudaError_t gk_read_back(const void *dev, size_t bytes, cudaStream_t s, unsigned char *stage[2],
                         gk_chunk_fn consume, void *ctx);
/* Enqueue on s the two-lane position-keyed hash of `bytes` at dev (8-byte aligned) into
   out[0..1] (device memory, zeroed here first). Equal hashes of one buffer before and after
   mean its bytes are unchanged, a single changed word certainly shows (xfer.cu). */
cudaError_t gk_hash_enqueue(const void *dev, size_t bytes, unsigned long long *out, cudaStream_t s);

/* ---- The device memory of gk_run's cases (kernels/devmem.cu) ----------------------------
 * One stream-ordered memory pool (cudaMallocFromPoolAsync) on the device first used, whose
 * release threshold keeps freed memory for the next case. */
/* The pool for a case on the current device, or NULL for plain cudaMalloc: the device has no
   memory pools, GPUVAL_NO_DEVICE_POOL=1 is set, or gk_pool_disable was called. */
cudaMemPool_t gk_pool_for_case(void);
/* Plain cudaMalloc from now on in this process (a block the pool gave was not aligned). */
void gk_pool_disable(void);
/* Bytes the pool holds on the current device but no allocation uses (free for a case). */
size_t gk_pool_idle_bytes(void);
/* Give the pool's idle memory back to the device: before allocations outside the pool (timed
   runs, or a retry after an allocation failed) so that they see all free memory. */
void gk_pool_trim(void);

/* Call f with a value of the C type of dtype t (float, double): the one place the kernels turn
 * a runtime dtype into a template argument, generated from abi/gv_abi.h's dtype table, e.g.
 *     return gk_by_dtype(L->dtype, [&](auto x) { return run_t<decltype(x)>(L); }); */
template <typename F> static inline int gk_by_dtype(int t, F &&f)
{
    switch (t) {
#define GK_DT_CASE_(e, name, ctype, bytes, p, emin, tier, compute)                                 \
    case e: return f(ctype{});
        GV_DTYPES(GK_DT_CASE_)
#undef GK_DT_CASE_
    default: return gk_fail_internal("a dtype outside abi/gv_abi.h's table");
    }
}

/* Row-major C (m x n) = A (m x k) B (k x n), dense, leading dims k, n and n, with the math
 * mode already set on h. cuBLAS is column-major, so this is the column-major product
 * C^T = B^T A^T: B first. The one place in the tree that spells the call. */
static inline cublasStatus_t gk_gemm_call(cublasHandle_t h, int m, int n, int k, const float *one,
                                          const float *a, int lda, const float *b, int ldb,
                                          const float *zero, float *c, int ldc)
{
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, one, a, lda, b, ldb, zero, c, ldc);
}
static inline cublasStatus_t gk_gemm_call(cublasHandle_t h, int m, int n, int k, const double *one,
                                          const double *a, int lda, const double *b, int ldb,
                                          const double *zero, double *c, int ldc)
{
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, one, a, lda, b, ldb, zero, c, ldc);
}
template <typename T>
static inline int gk_gemm_rowmajor(cublasHandle_t h, int64_t m, int64_t k, int64_t n, const T *a,
                                   const T *b, T *c)
{
    const T one = 1, zero = 0;
    GK_CUBLAS(
        gk_gemm_call(h, (int)n, (int)m, (int)k, &one, b, (int)n, a, (int)k, &zero, c, (int)n));
    return GV_OK;
}

/* The CUDA library data type of a C element type. */
template <typename T> static inline cudaDataType gk_cuda_type();
template <> inline cudaDataType gk_cuda_type<float>()
{
    return CUDA_R_32F;
}
template <> inline cudaDataType gk_cuda_type<double>()
{
    return CUDA_R_64F;
}

/* The CUDA library data type of a runtime dtype. */
static inline cudaDataType gk_cuda_type_of(int dtype)
{
    cudaDataType t = CUDA_R_32F;
    gk_by_dtype(dtype, [&](auto x) {
        t = gk_cuda_type<decltype(x)>();
        return (int)GV_OK;
    });
    return t;
}

static inline cudaStream_t gk_stream(const gk_launch *L)
{
    return (cudaStream_t)L->stream;
}

/* Blocks for n elements at `threads` per block, capped for grid-stride loops. */
static inline unsigned gk_blocks(int64_t n, int threads, int64_t cap = 65535LL * 16)
{
    int64_t b = (n + threads - 1) / threads;
    if (b < 1) b = 1;
    return (unsigned)(b > cap ? cap : b);
}

#endif
