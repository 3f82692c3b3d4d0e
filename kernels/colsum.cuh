/* colsum.cuh: chunked, weighted column sums out(j) = sum_i w(i) X(i, j) of a row-major
 * rows x cols matrix with leading dimension ld >= cols (rows padded as a user's may be;
 * w = NULL: all ones), deterministic (no atomics in any sum).
 *
 * Order (what gk_colsum_depth in abi/colsum.h counts): the rows are split into
 * gk_colsum_chunks(rows) chunks of ceil(rows / chunks) rows; each column of each chunk is
 * summed in row order, then the chunk sums of a column in chunk order. Every design choice
 * below keeps this order: unweighted sums (reduce.colsum) equal that order done one column at
 * a time bit for bit (tests/gpu/test_colsum_order.c); in weighted ones (einsum's second sum)
 * the compiler may fuse a product w(i) X(i, j) into the addition (an FMA: one rounding fewer,
 * within the same depth).
 *
 * Speed (chosen by measurement with tools/colsum_tune):
 *  - a thread owns W consecutive columns, one 16-byte load a row (W = 4 f32, 2 f64) where the
 *    column count, the leading dimension and the pointers allow it, else W = 1; a warp reads 512
 * contiguous bytes;
 *  - U rows are loaded before the first of them is added (U * 16 bytes in flight a thread);
 *  - fused: the chunk sums are added by the last block of each column group to finish pass 1
 *    (a counter per group; the counter only picks which block adds, the addition order stays
 *    the chunk order), saving the second launch. The counters are zeroed on the stream before
 *    the first sum that uses them, and that block zeroes its group's counter again, so
 *    einsum's two sums share one zeroing.
 *  - chunks: GK_COLSUM_SPREAD (abi/colsum.h) makes them few and long; 25 chunks of 400 rows
 *    at 10000 rows. */
#ifndef GK_COLSUM_CUH
#define GK_COLSUM_CUH

#include <cassert>

#include "../abi/colsum.h"
#include "gk_cuda.h"

/* Threads a block, rows in flight a thread, fused second pass: the fastest of
   tools/colsum_tune's candidates on an H100 at GK_COLSUM_SPREAD 4 (reduce.colsum 10000 x 7000
   and einsum.colsum 10000 x 5000 x 7000; f32 is held back most by einsum's second pass over
   5000 rows, which wants the deeper unroll and smaller blocks). */
template <typename T> struct colsum_cfg;
template <> struct colsum_cfg<float> {
    static constexpr int threads = 128, unroll = 16;
    static constexpr bool fused = true;
};
template <> struct colsum_cfg<double> {
    static constexpr int threads = 256, unroll = 8;
    static constexpr bool fused = true;
};

/* The load unit of a thread: W elements of T. */
template <typename T, int W> struct colsum_vec;
template <> struct colsum_vec<float, 1> {
    using type = float;
};
template <> struct colsum_vec<float, 4> {
    using type = float4;
};
template <> struct colsum_vec<double, 1> {
    using type = double;
};
template <> struct colsum_vec<double, 2> {
    using type = double2;
};

/* acc[k] += (chunk sum of) partial rows c0..c1-1 for the W columns at j, in chunk order. */
template <typename T, int W, bool Coherent>
__device__ __forceinline__ void colsum_add_chunks(const T *partial, int64_t chunks, int64_t cols,
                                                  int64_t j, T *acc)
{
    using V = typename colsum_vec<T, W>::type;
    int64_t c = 0;
    for (; c + 8 <= chunks; c += 8) {
        V v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) {
            const V *p = reinterpret_cast<const V *>(partial + (c + u) * cols + j);
            v[u] = Coherent ? __ldcg(p) : *p; /* __ldcg: from L2, past a stale L1 */
        }
#pragma unroll
        for (int u = 0; u < 8; u++) {
            const T *e = reinterpret_cast<const T *>(&v[u]);
#pragma unroll
            for (int k = 0; k < W; k++)
                acc[k] += e[k];
        }
    }
    for (; c < chunks; c++) {
        const V *p = reinterpret_cast<const V *>(partial + c * cols + j);
        V v = Coherent ? __ldcg(p) : *p;
        const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
        for (int k = 0; k < W; k++)
            acc[k] += e[k];
    }
}

/* Pass 1: block (x: threads * W columns, y: one chunk of rows) writes partial(chunk, j..);
   fused, the last block of a column group to finish also adds that group's chunks into out. */
template <typename T, int W, int U, bool Fused>
__global__ void colsum_partial_kernel(const T *__restrict__ x, int64_t rows, int64_t cols,
                                      int64_t ld, const T *__restrict__ w, int64_t chunk_rows,
                                      int64_t chunks, T *__restrict__ partial, unsigned *counters,
                                      T *__restrict__ out)
{
    using V = typename colsum_vec<T, W>::type;
    int64_t j = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * W;
    int64_t chunk = blockIdx.y;
    bool active = j < cols;
    if (active) {
        int64_t i0 = chunk * chunk_rows;
        int64_t i1 = i0 + chunk_rows < rows ? i0 + chunk_rows : rows;
        alignas(sizeof(V)) T acc[W]; /* stored as one V */
#pragma unroll
        for (int k = 0; k < W; k++)
            acc[k] = 0;
        int64_t i = i0;
        for (; i + U <= i1; i += U) {
            V v[U];
#pragma unroll
            for (int u = 0; u < U; u++)
                v[u] = __ldg(reinterpret_cast<const V *>(x + (i + u) * ld + j));
#pragma unroll
            for (int u = 0; u < U; u++) {
                T *e = reinterpret_cast<T *>(&v[u]);
                if (w) {
                    T wu = w[i + u];
#pragma unroll
                    for (int k = 0; k < W; k++)
                        e[k] *= wu;
                }
#pragma unroll
                for (int k = 0; k < W; k++)
                    acc[k] += e[k];
            }
        }
        for (; i < i1; i++) {
            V v = __ldg(reinterpret_cast<const V *>(x + i * ld + j));
            const T *e = reinterpret_cast<const T *>(&v);
#pragma unroll
            for (int k = 0; k < W; k++)
                acc[k] += w ? e[k] * w[i] : e[k];
        }
        *reinterpret_cast<V *>(partial + chunk * cols + j) = *reinterpret_cast<V *>(acc);
    }
    if (!Fused) return;
    __shared__ bool last;
    __threadfence(); /* this block's partials are visible before its count */
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == (unsigned)(chunks - 1);
    __syncthreads();
    if (!last) return;
    __threadfence(); /* every other block's partials, counted before ours, are visible */
    if (active) {
        alignas(sizeof(V)) T acc[W]; /* stored as one V */
#pragma unroll
        for (int k = 0; k < W; k++)
            acc[k] = 0;
        colsum_add_chunks<T, W, true>(partial, chunks, cols, j, acc);
        *reinterpret_cast<V *>(out + j) = *reinterpret_cast<V *>(acc);
    }
    /* every block of the group has counted: zero again for the next sum on the stream */
    if (threadIdx.x == 0) counters[blockIdx.x] = 0;
}

/* Pass 2 (unfused): thread adds the chunk sums of its W columns in chunk order. */
template <typename T, int W>
__global__ void colsum_finish_kernel(const T *__restrict__ partial, int64_t chunks, int64_t cols,
                                     T *__restrict__ out)
{
    using V = typename colsum_vec<T, W>::type;
    int64_t j = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * W;
    if (j >= cols) return;
    alignas(sizeof(V)) T acc[W]; /* stored as one V */
#pragma unroll
    for (int k = 0; k < W; k++)
        acc[k] = 0;
    colsum_add_chunks<T, W, false>(partial, chunks, cols, j, acc);
    *reinterpret_cast<V *>(out + j) = *reinterpret_cast<V *>(acc);
}

/* Device scratch (bytes) colsum_enqueue needs for `rows` x `cols` (abi/colsum.h). */
static inline int64_t colsum_scratch_bytes(int64_t rows, int64_t cols, size_t elem)
{
    return gk_colsum_scratch_bytes(rows, cols, (int64_t)elem);
}

static inline bool colsum_aligned16(const void *p)
{
    return ((uintptr_t)p & 15) == 0;
}

static inline void *colsum_align16(void *p)
{
    return (void *)(((uintptr_t)p + 15) & ~(uintptr_t)15);
}

/* The counters of a scratch area (abi/colsum.h: first, at a 16-byte boundary), and the
   partial sums after `counter_cols` counters. */
static inline unsigned *colsum_counters(void *scratch)
{
    return (unsigned *)colsum_align16(scratch);
}
template <typename T> static inline T *colsum_partials(void *scratch, int64_t counter_cols)
{
    return (T *)colsum_align16(colsum_counters(scratch) + counter_cols);
}
/* One past the last byte a rows x cols sum touches in a scratch area laid out for
   `counter_cols` counters: the end of its partials (abi/colsum.h's layout, as carved above). */
template <typename T>
static inline const char *colsum_scratch_end(void *scratch, int64_t counter_cols, int64_t rows,
                                             int64_t cols)
{
    return (const char *)(colsum_partials<T>(scratch, counter_cols) +
                          gk_colsum_chunks(rows) * cols);
}

/* Zero the counters of every column sum that will use them (each leaves them zero again). */
static inline int colsum_zero_counters(void *scratch, int64_t counter_cols, cudaStream_t s)
{
    if (!colsum_cfg<float>::fused && !colsum_cfg<double>::fused) return GV_OK;
    GK_CUDA(
        cudaMemsetAsync(colsum_counters(scratch), 0, (size_t)counter_cols * sizeof(unsigned), s));
    return GV_OK;
}

template <typename T, int W>
static int colsum_enqueue_w(const T *x, int64_t rows, int64_t cols, int64_t ld, const T *w,
                            T *partial, unsigned *counters, T *out, cudaStream_t s)
{
    using C = colsum_cfg<T>;
    int64_t chunks = gk_colsum_chunks(rows);
    int64_t chunk_rows = (rows + chunks - 1) / chunks;
    int64_t groups = (cols / W + C::threads - 1) / C::threads;
    /* abi/colsum.h's chunking, which the error models' depth counts: 1..1024 chunks (the
       grid's y, and the count the fused pass's last block waits for) that cover every row.
       One counter a column group, at most one a column. */
    assert(chunks >= 1 && chunks <= 1024 && chunks * chunk_rows >= rows);
    assert(groups >= 1 && groups <= 0x7fffffff && groups <= cols);
    assert(ld >= cols && (W == 1 || ld % W == 0)); /* every row's vectors aligned as the first's */
    dim3 grid((unsigned)groups, (unsigned)chunks);
    colsum_partial_kernel<T, W, C::unroll, C::fused><<<grid, C::threads, 0, s>>>(
        x, rows, cols, ld, w, chunk_rows, chunks, partial, counters, out);
    GK_LAUNCHED("colsum_partial_kernel");
    if (C::fused) return GV_OK;
    colsum_finish_kernel<T, W><<<(unsigned)groups, C::threads, 0, s>>>(partial, chunks, cols, out);
    GK_LAUNCHED("colsum_finish_kernel");
    return GV_OK;
}

/* One column sum whose counters are already zero: scratch laid out for `counter_cols` >=
   cols counters and a rows x cols sum's partials (abi/colsum.h).
   VecAlways: the planted bug reduce.colsum.vectail, the vector path taken without checking
   that whole vectors make up a row: it sums cols rounded down to whole vectors, and takes
   that as the row stride too (every column wrong, the last cols mod W never written).
   ld: x's leading dimension (abi/layout.h), 0 for dense rows of cols. */
template <typename T, bool VecAlways = false>
static int colsum_enqueue_zeroed(const T *x, int64_t rows, int64_t cols, const T *w, void *scratch,
                                 int64_t counter_cols, T *out, cudaStream_t s, int64_t ld = 0)
{
    constexpr int WV = 16 / sizeof(T);
    assert(counter_cols >= cols); /* the partials start past counter_cols counters */
    if (ld == 0) ld = cols;
    unsigned *counters = colsum_counters(scratch);
    T *partial = colsum_partials<T>(scratch, counter_cols);
    bool aligned = colsum_aligned16(x) && colsum_aligned16(out) && ld % WV == 0;
    /* the planted bug checks the base pointers only: a dense row of cols that is not whole
       vectors is walked with the stride rounded down to whole vectors */
    bool bases16 = colsum_aligned16(x) && colsum_aligned16(out);
    if (VecAlways && bases16 && cols >= WV && (ld == cols || ld % WV == 0)) {
        int64_t vcols = cols / WV * WV;
        return colsum_enqueue_w<T, WV>(x, rows, vcols, ld == cols ? vcols : ld, w, partial,
                                       counters, out, s);
    }
    if (cols % WV == 0 && aligned)
        return colsum_enqueue_w<T, WV>(x, rows, cols, ld, w, partial, counters, out, s);
    return colsum_enqueue_w<T, 1>(x, rows, cols, ld, w, partial, counters, out, s);
}

/* One column sum; scratch: colsum_scratch_bytes(rows, cols, sizeof(T)) bytes, any alignment
   of T. */
template <typename T, bool VecAlways = false>
static int colsum_enqueue(const T *x, int64_t rows, int64_t cols, const T *w, T *scratch, T *out,
                          cudaStream_t s)
{
    int rc = colsum_zero_counters(scratch, cols, s);
    if (rc) return rc;
    return colsum_enqueue_zeroed<T, VecAlways>(x, rows, cols, w, scratch, cols, out, s);
}

#endif
