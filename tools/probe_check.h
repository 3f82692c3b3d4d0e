/* probe_check.h: the stand-alone GPU tools' (cublas_probe, gemm_tune, colsum_tune) error
 * checks. A tool measures one thing and has nothing to recover: a failed CUDA or cuBLAS call
 * prints where and why and exits 3. CB needs cublas_v2.h included before this header. */
#ifndef GV_PROBE_CHECK_H
#define GV_PROBE_CHECK_H

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));  \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

#define CB(call)                                                                                   \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int)s_);   \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

#endif
