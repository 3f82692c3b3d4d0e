/* kernels.cu: the example's own CUDA kernels and their launch hooks (gv_launch_args from
 * gpuval.h): a row softmax (one block per row, max and sum by block reductions), a naive
 * sgemm, and their planted bugs: the softmax without the max subtracted (exp overflows for
 * logits above 88.7 in f32), the sgemm that drops the last term of every dot product, and one
 * that writes one element past the end of its output. */
#include <cuda_runtime.h>
#include <math.h>

#include "ops.h"

static const int kThreads = 256;

template <typename T> __device__ T dev_exp(T x);
template <> __device__ float dev_exp<float>(float x)
{
    return expf(x);
}
template <> __device__ double dev_exp<double>(double x)
{
    return exp(x);
}

/* Block-wide reduction of v (max or sum) through shared memory; every thread gets it. */
template <typename T, bool Max> __device__ T block_reduce(T v, T *shm)
{
    shm[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            T a = shm[threadIdx.x], b = shm[threadIdx.x + s];
            shm[threadIdx.x] = Max ? (a > b ? a : b) : a + b;
        }
        __syncthreads();
    }
    T r = shm[0];
    __syncthreads();
    return r;
}

template <typename T, bool SubtractMax> __global__ void softmax_rows(const T *x, T *y, int64_t cols)
{
    __shared__ T shm[kThreads];
    const T *xr = x + (int64_t)blockIdx.x * cols;
    T *yr = y + (int64_t)blockIdx.x * cols;
    T m = 0;
    if (SubtractMax) {
        T local = -INFINITY;
        for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
            local = xr[j] > local ? xr[j] : local;
        m = block_reduce<T, true>(local, shm);
    }
    T local = 0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        local += dev_exp<T>(xr[j] - m);
    T s = block_reduce<T, false>(local, shm);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
        yr[j] = dev_exp<T>(xr[j] - m) / s;
}

template <bool SubtractMax> static int softmax_launch(const gv_launch_args *a)
{
    int64_t rows = a->dims[0], cols = a->dims[1];
    if (rows > 2147483647) return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)a->stream;
    if (a->dtype == GV_DTYPE_F64)
        softmax_rows<double, SubtractMax><<<(unsigned)rows, kThreads, 0, s>>>(
            (const double *)a->in[0], (double *)a->out[0], cols);
    else
        softmax_rows<float, SubtractMax>
            <<<(unsigned)rows, kThreads, 0, s>>>((const float *)a->in[0], (float *)a->out[0], cols);
    return (int)cudaGetLastError();
}

extern "C" int ext_softmax_launch(const gv_launch_args *a)
{
    return softmax_launch<true>(a);
}

extern "C" int ext_softmax_nomax_launch(const gv_launch_args *a)
{
    return softmax_launch<false>(a);
}

/* C (m x n) = A (m x k) B (k x n), row-major, one thread per element of C; with DropLast
   the last term of each dot product is left out; with WritePast the thread of the last
   element also stores one element past the end of C (gpuval's red zone must see it). */
template <bool DropLast, bool WritePast = false>
__global__ void sgemm_naive(const float *A, const float *B, float *C, int64_t m, int64_t k,
                            int64_t n)
{
    int64_t i = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m || j >= n) return;
    float acc = 0;
    for (int64_t p = 0; p < k - (DropLast ? 1 : 0); p++)
        acc = fmaf(A[i * k + p], B[p * n + j], acc);
    C[i * n + j] = acc;
    if (WritePast && i == m - 1 && j == n - 1) C[m * n] = acc;
}

template <bool DropLast, bool WritePast = false> static int sgemm_launch(const gv_launch_args *a)
{
    int64_t m = a->dims[0], k = a->dims[1], n = a->dims[2];
    dim3 block(16, 16), grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
    if ((m + 15) / 16 > 65535) return (int)cudaErrorInvalidValue;
    sgemm_naive<DropLast, WritePast><<<grid, block, 0, (cudaStream_t)a->stream>>>(
        (const float *)a->in[0], (const float *)a->in[1], (float *)a->out[0], m, k, n);
    return (int)cudaGetLastError();
}

extern "C" int ext_sgemm_launch(const gv_launch_args *a)
{
    return sgemm_launch<false>(a);
}

extern "C" int ext_sgemm_lastk_launch(const gv_launch_args *a)
{
    return sgemm_launch<true>(a);
}

extern "C" int ext_sgemm_past_launch(const gv_launch_args *a)
{
    return sgemm_launch<false, true>(a);
}
