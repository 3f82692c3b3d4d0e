/* reduce.cu: the sum of a vector by a tree, end to end, and column sums of a matrix.
 *  - reduce.sum: one kernel, applied level after level: block b sums tile b (2048 elements,
 *    zero-padded past the end) by a perfect binary tree — 3 levels in registers (8 elements
 *    a thread), 5 across the warp (shuffles), 3 across the block's 8 warps — and writes
 *    partial b. The partials are summed by the same kernel until one block is left (two
 *    levels up to 2^22 elements, three up to 2^33). No thread ever accumulates sequentially,
 *    so every element reaches the result through at most ceil(log2 n) additions that round
 *    (see src/ops/reduce.c for the argument). Deterministic: no atomics, a fixed order.
 *  - reduce.colsum: the chunked column sums of colsum.cuh (seed 002's sum over axis 0).
 *  - planted bug reduce.colsum.vectail: colsum.cuh's 16-byte column vectors taken where whole
 *    vectors do not make up a row (the row stride rounded down to whole vectors).
 *  - planted bug reduce.sum.droptail: the first level only reads whole tiles, so the tail
 *    n mod 2048 is lost.
 *  - planted bug reduce.sum.dropnan: the first level reads a NaN as 0 (a guard `x == x` of the
 *    kind that keeps a max or a mean "clean"), so a NaN among the terms never reaches the sum.
 *  - planted bug reduce.sum.rz: the same tree with every addition rounding toward zero
 *    (__fadd_rz / __dadd_rz), which only a replay of the tree sees (src/ops/reduce.c).
 *  - planted bug reduce.sum.racy: each block adds its tile's sum into the result with
 *    atomicAdd, in whatever order the blocks finish: accurate, but not bit-reproducible,
 *    while its descriptor claims it is (check --repeat must FAIL it).
 *  - reduce.sum.onepass: the same tile trees in one launch, the last block to finish summing
 *    the tiles in a fixed order (reduce_onepass.cuh); planted race reduce.sum.nofence: the
 *    same without its fences.
 * Workspace: the partials of every level but the last, one after another
 * (gk_reduce_workspace_elems in abi/reduce.h, which src/ops/reduce.c sizes it with too);
 * onepass: its counter and partials (gk_reduce_onepass_workspace_bytes). */
#include <cassert>

#include "../abi/reduce.h"
#include "../abi/softmax.h"
#include "block_reduce.cuh"
#include "colsum.cuh"
#include "reduce_onepass.cuh"

constexpr int RED_THREADS = 256;
constexpr int RED_PER_THREAD = 8;
constexpr int64_t RED_TILE = RED_THREADS * RED_PER_THREAD;
static_assert(RED_TILE == GK_REDUCE_TILE,
              "abi/reduce.h sizes the workspace for GK_REDUCE_TILE tiles");
static_assert(RED_THREADS % 32 == 0 && RED_THREADS / 32 == 8, "the block tree has 8 warps");

/* partial[blockIdx.x] = tree sum of x[tile], x read as 0 at and past n. Element j of thread
 * t is x[tile start + j * 256 + t]: each load instruction of a warp reads 32 consecutive
 * elements. The tree pairs index bits in a fixed order (bits 8..10 in registers, 4..0 across
 * lanes, 7..5 across warps), which is still a perfect binary tree over the tile. */
/* a + b, rounded to nearest, or toward zero (RZ: the planted bug reduce.sum.rz) */
template <bool RZ> __device__ __forceinline__ float red_add(float a, float b)
{
    return RZ ? __fadd_rz(a, b) : a + b;
}
template <bool RZ> __device__ __forceinline__ double red_add(double a, double b)
{
    return RZ ? __dadd_rz(a, b) : a + b;
}

template <typename T, bool Atomic = false, bool DropNaN = false, bool RZ = false>
__global__ void __launch_bounds__(RED_THREADS)
    reduce_tile_kernel(const T *__restrict__ x, int64_t n, T *__restrict__ partial)
{
    __shared__ T warp_sums[RED_THREADS / 32];
    const int64_t base = (int64_t)blockIdx.x * RED_TILE + threadIdx.x;
    T v[RED_PER_THREAD];
#pragma unroll
    for (int j = 0; j < RED_PER_THREAD; j++) {
        int64_t i = base + (int64_t)j * RED_THREADS;
        v[j] = i < n ? x[i] : T(0);
        if (DropNaN && v[j] != v[j]) v[j] = T(0); /* the planted bug */
    }
    T a = red_add<RZ>(red_add<RZ>(red_add<RZ>(v[0], v[1]), red_add<RZ>(v[2], v[3])),
                      red_add<RZ>(red_add<RZ>(v[4], v[5]), red_add<RZ>(v[6], v[7])));
    /* lane l adds lane l + off; lane 0 ends with the tree over all 32 lanes (lanes whose
       partner is out of range compute values nobody reads) */
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        a = red_add<RZ>(a, __shfl_down_sync(0xffffffffu, a, off));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = a;
    __syncthreads();
    if (warp == 0) {
        T b = lane < RED_THREADS / 32 ? warp_sums[lane] : T(0);
#pragma unroll
        for (int off = RED_THREADS / 64; off > 0; off >>= 1)
            b = red_add<RZ>(b, __shfl_down_sync(0xffffffffu, b, off));
        if (lane == 0 && Atomic) atomicAdd(partial, b); /* the planted race: arrival order */
        if (lane == 0 && !Atomic) partial[blockIdx.x] = b;
    }
}

template <typename T, bool DropTail, bool DropNaN, bool RZ = false>
static int reduce_sum_t(gk_launch *L)
{
    int64_t n = L->dims[0];
    if (L->workspace_bytes < gk_reduce_workspace_elems(n) * (int64_t)sizeof(T))
        return gk_fail_cuda(cudaErrorInvalidValue,
                            "reduce.sum: workspace smaller than its levels need (the tile of "
                            "src/ops/reduce.c and kernels/reduce.cu differ)");
    snprintf(L->math_mode, sizeof L->math_mode, "hand-written tree");
    cudaStream_t s = gk_stream(L);
    /* the bug: only whole tiles are summed */
    int64_t len = DropTail ? n / RED_TILE * RED_TILE : n;
    const T *src = (const T *)L->in[0];
    T *ws = (T *)L->workspace;
    /* The levels below are the ones gk_reduce_workspace_elems counts (abi/reduce.h): each
       level's partials follow the last within its total, and the whole sum uses all of it. */
    const T *ws_end = ws + gk_reduce_workspace_elems(n);
    for (;;) {
        int64_t blocks = (len + RED_TILE - 1) / RED_TILE;
        if (blocks < 1) blocks = 1;   /* len 0 (droptail below one tile): write the empty sum */
        assert(blocks <= 0x7fffffff); /* REDUCE_MAX_N (src/ops/reduce.c): one block a tile */
        assert(blocks == 1 || ws + blocks <= ws_end);
        T *dst = blocks == 1 ? (T *)L->out[0] : ws;
        if (DropNaN && src == (const T *)L->in[0]) /* the planted bug reads the inputs only */
            reduce_tile_kernel<T, false, true>
                <<<(unsigned)blocks, RED_THREADS, 0, s>>>(src, len, dst);
        else
            reduce_tile_kernel<T, false, false, RZ>
                <<<(unsigned)blocks, RED_THREADS, 0, s>>>(src, len, dst);
        GK_LAUNCHED("reduce_tile_kernel");
        if (blocks == 1) {
            assert(DropTail || ws == ws_end);
            return GV_OK;
        }
        src = dst;
        ws += blocks;
        len = blocks;
    }
}

/* reduce.sum.racy: one level, every block's tile sum atomically added into the zeroed
   result (the order in which blocks finish varies from launch to launch). */
template <typename T> static int reduce_sum_racy_t(gk_launch *L)
{
    int64_t n = L->dims[0];
    snprintf(L->math_mode, sizeof L->math_mode, "tile trees, atomicAdd of the tiles");
    cudaStream_t s = gk_stream(L);
    int64_t blocks = n < 1 ? 1 : (n + RED_TILE - 1) / RED_TILE;
    GK_CUDA(cudaMemsetAsync(L->out[0], 0, sizeof(T), s));
    reduce_tile_kernel<T, true>
        <<<(unsigned)blocks, RED_THREADS, 0, s>>>((const T *)L->in[0], n, (T *)L->out[0]);
    GK_LAUNCHED("reduce_tile_kernel (atomic)");
    return GV_OK;
}

static int reduce_sum_racy(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return reduce_sum_racy_t<decltype(x)>(L); });
}

template <bool DropTail, bool DropNaN = false, bool RZ = false> static int reduce_sum(gk_launch *L)
{
    return gk_by_dtype(
        L->dtype, [&](auto x) { return reduce_sum_t<decltype(x), DropTail, DropNaN, RZ>(L); });
}

template <typename T, bool VecAlways> static int reduce_colsum_t(gk_launch *L)
{
    int64_t m = L->dims[0], n = L->dims[1];
    if (L->workspace_bytes < colsum_scratch_bytes(m, n, sizeof(T)))
        return gk_fail_cuda(cudaErrorInvalidValue, "reduce.colsum: workspace too small");
    snprintf(L->math_mode, sizeof L->math_mode, "hand-written chunked sums");
    return colsum_enqueue<T, VecAlways>((const T *)L->in[0], m, n, NULL, (T *)L->workspace,
                                        (T *)L->out[0], gk_stream(L));
}

template <bool VecAlways> static int reduce_colsum(gk_launch *L)
{
    return gk_by_dtype(L->dtype,
                       [&](auto x) { return reduce_colsum_t<decltype(x), VecAlways>(L); });
}

extern "C" const gk_op gk_reduce_sum = {NULL, reduce_sum<false>, NULL};
extern "C" const gk_op gk_reduce_sum_droptail = {NULL, reduce_sum<true>, NULL};
extern "C" const gk_op gk_reduce_sum_dropnan = {NULL, reduce_sum<false, true>, NULL};
extern "C" const gk_op gk_reduce_sum_racy = {NULL, reduce_sum_racy, NULL};
extern "C" const gk_op gk_reduce_sum_rz = {NULL, reduce_sum<false, false, true>, NULL};
static int reduce_onepass_setup(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return onepass::setup_t<decltype(x)>(L); });
}

template <bool Fence> static int reduce_onepass(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return onepass::launch_t<decltype(x), Fence>(L); });
}

extern "C" const gk_op gk_reduce_sum_onepass = {reduce_onepass_setup, reduce_onepass<true>, NULL};
extern "C" const gk_op gk_reduce_sum_nofence = {reduce_onepass_setup, reduce_onepass<false>, NULL};
extern "C" const gk_op gk_reduce_colsum = {NULL, reduce_colsum<false>, NULL};
extern "C" const gk_op gk_reduce_colsum_vectail = {NULL, reduce_colsum<true>, NULL};

/* reduce.mean: the mean of each row of a row-major m x n matrix (torch.mean(x, dim=-1); a
 * vector is m = 1), one block a row as the row-wise kernels of the softmax family (thread
 * counts and the block tree of abi/softmax.h and block_reduce.cuh, so its depth is theirs):
 * thread t adds x[t], x[t + T], ... one after another, the block adds the T partials by a
 * tree, then thread 0 divides by n rounded to the dtype (exact up to 2^24 in f32, 2^53 in f64).
 * Planted bug reduce.mean.nminus1: divides by n - 1 (the unbiased variance's denominator). */
template <typename T, bool NMinus1>
__global__ void row_mean_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t m, int64_t n)
{
    __shared__ T sh[33];
    for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
        const T *xr = x + row * n;
        T s = T(0);
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
            s += xr[j];
        s = block_reduce<T, false>(s, sh);
        if (threadIdx.x == 0) y[row] = s / T(NMinus1 ? n - 1 : n);
    }
}

template <typename T, bool NMinus1> static int row_mean_t(gk_launch *L)
{
    const int64_t m = L->dims[0], n = L->dims[1];
    snprintf(L->math_mode, sizeof L->math_mode, "one block a row");
    if (m == 0) return GV_OK;
    const unsigned blocks = (unsigned)(m < (1 << 20) ? m : (1 << 20));
    row_mean_kernel<T, NMinus1><<<blocks, gk_softmax_threads(n), 0, gk_stream(L)>>>(
        (const T *)L->in[0], (T *)L->out[0], m, n);
    GK_LAUNCHED("row_mean_kernel");
    return GV_OK;
}

template <bool NMinus1> static int row_mean(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return row_mean_t<decltype(x), NMinus1>(L); });
}

extern "C" const gk_op gk_reduce_mean = {NULL, row_mean<false>, NULL};
extern "C" const gk_op gk_reduce_mean_nminus1 = {NULL, row_mean<true>, NULL};
