/* reduce_onepass.cuh: the sum of a vector in one launch, by the last-block pattern of the
 * CUDA samples' threadFenceReduction and of the CUDA C++ Programming Guide's example for
 * __threadfence() (section "Memory Fence Functions"):
 *  - every block sums its tile of GK_REDUCE_TILE elements by reduce.cu's tree (3 levels in
 *    registers, 5 across a warp, 3 across the block's 8 warps) and thread 0 stores the tile's
 *    sum as partial b;
 *  - thread 0 then makes that store visible to the whole device (__threadfence) and takes a
 *    ticket from a counter in global memory (atomicInc). The block that draws the last ticket
 *    knows every other block has stored its partial;
 *  - that block alone sums the partials in a FIXED order, whoever finished when: groups of
 *    GK_REDUCE_TILE partials by the same tree (zero-padded), the groups' sums one after another
 *    in group order. It writes the result and sets the counter back to 0 for the next launch.
 *    The counter picks which block adds, never the order of the additions: the result is
 *    bit-identical from launch to launch.
 * reduce.sum.nofence (a planted race) is the same kernel without its fences: a block's
 * partial is a plain store that its ticket may overtake, and the last block's loads of the
 * partials are not ordered after the tickets it counted. A partial read before it is
 * visible is what the workspace held before: setup poisons the partials (all-ones bytes, a
 * NaN), so such a read turns the sum into a NaN or another value, never the right one by
 * luck.
 * Workspace (gk_reduce_onepass_workspace_bytes, abi/reduce.h): the counter in the first
 * GK_REDUCE_ONEPASS_COUNTER_BYTES bytes, then one partial a tile. */
#ifndef GK_REDUCE_ONEPASS_CUH
#define GK_REDUCE_ONEPASS_CUH

#include <cassert>

#include "../abi/reduce.h"
#include "gk_cuda.h"

namespace onepass
{

constexpr int THREADS = 256;
constexpr int PER_THREAD = 8;
constexpr int64_t TILE = THREADS * PER_THREAD;
static_assert(TILE == GK_REDUCE_TILE, "abi/reduce.h sizes the partials for GK_REDUCE_TILE tiles");

/* The tree sum of src[start .. start + TILE), read as 0 at and past n, in thread 0 (the other
   threads return values nobody reads). Element j of thread t is src[start + j * 256 + t]; the
   pairing is reduce.cu's reduce_tile_kernel's. Every thread of the block must call it: it
   synchronises the block, and leaves warp_sums free for the next call. P is a plain or a
   volatile pointer to T. */
template <typename T, typename P>
__device__ __forceinline__ T tile_tree(P src, int64_t start, int64_t n, T *warp_sums)
{
    const int64_t base = start + threadIdx.x;
    T v[PER_THREAD];
#pragma unroll
    for (int j = 0; j < PER_THREAD; j++) {
        int64_t i = base + (int64_t)j * THREADS;
        v[j] = i < n ? T(src[i]) : T(0);
    }
    T a = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        a += __shfl_down_sync(0xffffffffu, a, off);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = a;
    __syncthreads();
    T b = T(0);
    if (warp == 0) {
        b = lane < THREADS / 32 ? warp_sums[lane] : T(0);
#pragma unroll
        for (int off = THREADS / 64; off > 0; off >>= 1)
            b += __shfl_down_sync(0xffffffffu, b, off);
    }
    __syncthreads();
    return b;
}

/* One launch, one block a tile (gridDim.x tiles cover n). Fence false: the planted race. */
template <typename T, bool Fence>
__global__ void __launch_bounds__(THREADS)
    onepass_kernel(const T *__restrict__ x, int64_t n, T *partial, unsigned *count, T *out)
{
    __shared__ T warp_sums[THREADS / 32];
    __shared__ bool last;
    T b = tile_tree<T>(x, (int64_t)blockIdx.x * TILE, n, warp_sums);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = b;
        /* release: the partial is visible to every block before the ticket that counts it */
        if (Fence) __threadfence();
        unsigned ticket = atomicInc(count, gridDim.x); /* no wrap: gridDim.x tickets, 0.. */
        /* acquire (with the block's fence below): what the counted blocks stored before
           their tickets is visible to the loads that follow ours */
        if (Fence) __threadfence();
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return; /* shared: the whole block returns or the whole block goes on */
    if (Fence) __threadfence();
    /* volatile: every partial is read from the memory system (no L1 copy), at the time of
       this read */
    const volatile T *p = partial;
    const int64_t parts = gridDim.x;
    T s = T(0);
    for (int64_t g = 0; g < parts; g += TILE) {
        T t = tile_tree<T>(p, g, parts, warp_sums);
        s = g == 0 ? t : s + t; /* the groups in order */
    }
    if (threadIdx.x == 0) {
        *out = s;
        *count = 0; /* every block has drawn its ticket: ready for the next launch */
    }
}

/* The workspace's counter and partials. */
static inline unsigned *counter(void *ws)
{
    return (unsigned *)ws;
}
template <typename T> static inline T *partials(void *ws)
{
    return (T *)((char *)ws + GK_REDUCE_ONEPASS_COUNTER_BYTES);
}

static inline int64_t tiles(int64_t n)
{
    return n < 1 ? 1 : (n + TILE - 1) / TILE;
}

/* Setup, outside any timed region: the counter from 0, the partials poisoned (whatever an
   earlier run on the same inputs left there would be the right values). */
template <typename T> static int setup_t(gk_launch *L)
{
    int64_t n = L->dims[0];
    if (!L->workspace ||
        L->workspace_bytes < gk_reduce_onepass_workspace_bytes(n, (int64_t)sizeof(T)))
        return gk_fail_internal("reduce.sum.onepass: workspace smaller than the layout promised");
    cudaStream_t s = gk_stream(L);
    GK_CUDA(cudaMemsetAsync(counter(L->workspace), 0, GK_REDUCE_ONEPASS_COUNTER_BYTES, s));
    GK_CUDA(cudaMemsetAsync(partials<T>(L->workspace), 0xff, (size_t)tiles(n) * sizeof(T), s));
    return GV_OK;
}

template <typename T, bool Fence> static int launch_t(gk_launch *L)
{
    int64_t n = L->dims[0], blocks = tiles(n);
    assert(blocks <= 0x7fffffff); /* check_shape (src/ops/reduce.c) bounds n */
    snprintf(L->math_mode, sizeof L->math_mode,
             Fence ? "one pass: tile trees, last block sums the tiles"
                   : "one pass without fences (planted race)");
    onepass_kernel<T, Fence><<<(unsigned)blocks, THREADS, 0, gk_stream(L)>>>(
        (const T *)L->in[0], n, partials<T>(L->workspace), counter(L->workspace), (T *)L->out[0]);
    GK_LAUNCHED(Fence ? "onepass_kernel" : "onepass_kernel (no fence)");
    return GV_OK;
}

} // namespace onepass

#endif
