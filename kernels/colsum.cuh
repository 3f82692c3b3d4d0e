/* colsum.cuh: chunked, weighted column sums out(j) = sum_i w(i) X(i, j) of a row-major
 * rows x cols matrix (w = NULL: all ones), deterministic (no atomics). Pass 1: block
 * (x: 256 columns, y: one chunk of rows) writes partial(chunk, j); pass 2 sums the chunks.
 * Consecutive threads read consecutive columns, so every warp load is coalesced; each row
 * chunk is unrolled by 4 for loads in flight. Summation depth per column:
 * gk_colsum_depth(rows) (gk.h). Shared by the colsum and reduce families. */
#ifndef GK_COLSUM_CUH
#define GK_COLSUM_CUH

#include "../abi/colsum.h"
#include "gk_cuda.h"

template <typename T>
__global__ void colsum_partial_kernel(const T *__restrict__ x, int64_t rows, int64_t cols,
                                      const T *__restrict__ w, int64_t chunk_rows,
                                      T *__restrict__ partial)
{
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t chunk = blockIdx.y;
    if (j >= cols) return;
    int64_t i0 = chunk * chunk_rows;
    int64_t i1 = i0 + chunk_rows < rows ? i0 + chunk_rows : rows;
    T acc = 0;
    int64_t i = i0;
    for (; i + 4 <= i1; i += 4) {
        T v0 = x[i * cols + j], v1 = x[(i + 1) * cols + j];
        T v2 = x[(i + 2) * cols + j], v3 = x[(i + 3) * cols + j];
        if (w) {
            v0 *= w[i];
            v1 *= w[i + 1];
            v2 *= w[i + 2];
            v3 *= w[i + 3];
        }
        acc += v0;
        acc += v1;
        acc += v2;
        acc += v3;
    }
    for (; i < i1; i++)
        acc += w ? x[i * cols + j] * w[i] : x[i * cols + j];
    partial[chunk * cols + j] = acc;
}

template <typename T>
__global__ void colsum_finish_kernel(const T *__restrict__ partial, int64_t chunks, int64_t cols,
                                     T *__restrict__ out)
{
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    T acc = 0;
    for (int64_t c = 0; c < chunks; c++)
        acc += partial[c * cols + j];
    out[j] = acc;
}

/* Device scratch (bytes) colsum_enqueue needs for `rows` x `cols`. */
static inline int64_t colsum_scratch_bytes(int64_t rows, int64_t cols, size_t elem)
{
    return gk_colsum_chunks(rows) * cols * (int64_t)elem;
}

template <typename T>
static int colsum_enqueue(const T *x, int64_t rows, int64_t cols, const T *w, T *scratch, T *out,
                          cudaStream_t s)
{
    int64_t chunks = gk_colsum_chunks(rows);
    int64_t chunk_rows = (rows + chunks - 1) / chunks;
    const int threads = 256;
    dim3 grid((unsigned)((cols + threads - 1) / threads), (unsigned)chunks);
    colsum_partial_kernel<T><<<grid, threads, 0, s>>>(x, rows, cols, w, chunk_rows, scratch);
    GK_LAUNCHED("colsum_partial_kernel");
    colsum_finish_kernel<T>
        <<<(unsigned)((cols + threads - 1) / threads), threads, 0, s>>>(scratch, chunks, cols, out);
    GK_LAUNCHED("colsum_finish_kernel");
    return GV_OK;
}

#endif
