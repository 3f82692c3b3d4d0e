/* gk_cuda.h: helpers for the .cu files only (never included from src/ or oracle/): error
 * recording with the CUDA or library error's own name, launch checks, the cached cuBLAS
 * handle, and grid sizing. */
#ifndef GK_CUDA_H
#define GK_CUDA_H

#include <cstdio>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../src/gv.h"
#include "gk.h"

/* Record a failure for gk_last_error(); return the gv_err to pass up. */
int gk_fail_cuda(cudaError_t e, const char *where);
int gk_fail_lib(const char *lib, int status, const char *status_name, const char *where);
int gk_fail_unsupported(const char *what);
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
