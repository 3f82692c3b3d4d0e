/* scan.cu: the inclusive prefix sum and prefix product along each row of a row-major m x n
 * matrix (scan.cumsum, scan.cumprod: the same block-wise scan with * for + and 1 for 0), a
 * block-wise scan: one block a row, the row in tiles of GK_SCAN_TILE elements scanned one
 * after another (abi/scan.h). In a tile each of the 256 threads holds 4 consecutive elements
 * and keeps their running sum; the threads' totals are scanned by a Hillis-Steele scan across
 * each warp's lanes (shuffles), the 8 warp totals by the same scan in warp 0, and each element
 * gets carry + (warp prefix + lane prefix) + its local sum, the carry being the sum of the
 * row's earlier tiles. The order of the additions is not the sequential one; the depth
 * abi/scan.h counts is this kernel's. Deterministic: no atomics, a fixed order.
 * Planted bugs (each must FAIL): scan.cumsum.exclusive (the exclusive scan y_j = sum_{k<j},
 * where the op is inclusive), scan.cumsum.nocarry (each tile scanned alone: the carry of the
 * earlier tiles dropped), and the same two for cumprod (scan.cumprod.exclusive,
 * scan.cumprod.nocarry). */
#include "../abi/scan.h"
#include "gk_cuda.h"

enum scan_bug { SCAN_OK, SCAN_EXCLUSIVE, SCAN_NOCARRY };

constexpr int SCAN_WARPS = GK_SCAN_THREADS / 32;
static_assert(GK_SCAN_THREADS % 32 == 0 && SCAN_WARPS == 8,
              "abi/scan.h's depth counts 3 levels across the warps");

/* Inclusive Hillis-Steele scan of v across the warp's first `lanes` lanes (a power of two):
   log2(lanes) levels, each adding at most once to a lane's value. */
/* The scan's operation: + (cumsum) or * (cumprod), and its identity. */
template <typename T, bool Prod> __device__ __forceinline__ T combine(T a, T b)
{
    return Prod ? a * b : a + b;
}
template <typename T, bool Prod> __device__ __forceinline__ T identity()
{
    return Prod ? T(1) : T(0);
}

template <typename T, bool Prod> __device__ __forceinline__ T warp_scan(T v, int lane, int lanes)
{
    for (int off = 1; off < lanes; off <<= 1) {
        T o = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off) v = combine<T, Prod>(o, v);
    }
    return v;
}

template <typename T, int Bug, bool Prod>
__global__ void __launch_bounds__(GK_SCAN_THREADS)
    cumsum_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t m, int64_t n)
{
    __shared__ T warp_prefix[SCAN_WARPS]; /* exclusive prefix of each warp's total */
    __shared__ T tile_total;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
        const T *xr = x + row * n;
        T *yr = y + row * n;
        T carry = identity<T, Prod>();
        for (int64_t base = 0; base < n; base += GK_SCAN_TILE) {
            const int64_t first = base + (int64_t)threadIdx.x * GK_SCAN_PER_THREAD;
            T v[GK_SCAN_PER_THREAD], local[GK_SCAN_PER_THREAD];
#pragma unroll
            for (int p = 0; p < GK_SCAN_PER_THREAD; p++) {
                /* past the row: the identity, exact */
                v[p] = first + p < n ? xr[first + p] : identity<T, Prod>();
                local[p] = p == 0 ? v[0] : combine<T, Prod>(local[p - 1], v[p]);
            }
            const T lane_incl = warp_scan<T, Prod>(local[GK_SCAN_PER_THREAD - 1], lane, 32);
            T lane_excl = __shfl_up_sync(0xffffffffu, lane_incl, 1);
            if (lane == 0) lane_excl = identity<T, Prod>();
            __syncthreads(); /* the previous tile's readers of warp_prefix and tile_total */
            if (lane == 31) warp_prefix[warp] = lane_incl;
            __syncthreads();
            if (warp == 0) {
                const T w = lane < SCAN_WARPS ? warp_prefix[lane] : identity<T, Prod>();
                const T incl = warp_scan<T, Prod>(w, lane, SCAN_WARPS);
                T excl = __shfl_up_sync(0xffffffffu, incl, 1);
                __syncwarp();
                if (lane < SCAN_WARPS) warp_prefix[lane] = lane == 0 ? identity<T, Prod>() : excl;
                if (lane == SCAN_WARPS - 1) tile_total = incl;
            }
            __syncthreads();
            const T offset = combine<T, Prod>(warp_prefix[warp], lane_excl);
            /* the planted bug SCAN_NOCARRY: every tile as if it began the row */
            const T start = Bug == SCAN_NOCARRY ? offset : combine<T, Prod>(carry, offset);
#pragma unroll
            for (int p = 0; p < GK_SCAN_PER_THREAD; p++) {
                if (first + p >= n) break;
                /* the planted bug SCAN_EXCLUSIVE: the sum of the elements before this one */
                if (Bug == SCAN_EXCLUSIVE)
                    yr[first + p] = p == 0 ? start : combine<T, Prod>(start, local[p - 1]);
                else
                    yr[first + p] = combine<T, Prod>(start, local[p]);
            }
            carry = combine<T, Prod>(carry, tile_total);
        }
    }
}

template <typename T, int Bug, bool Prod> static int cumsum_t(gk_launch *L)
{
    const int64_t m = L->dims[0], n = L->dims[1];
    snprintf(L->math_mode, sizeof L->math_mode, "block scan, tiles in sequence");
    if (m == 0) return GV_OK;
    const unsigned blocks = (unsigned)(m < (1 << 20) ? m : (1 << 20));
    cumsum_kernel<T, Bug, Prod>
        <<<blocks, GK_SCAN_THREADS, 0, gk_stream(L)>>>((const T *)L->in[0], (T *)L->out[0], m, n);
    GK_LAUNCHED("cumsum_kernel");
    return GV_OK;
}

template <int Bug, bool Prod> static int cumsum_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) { return cumsum_t<decltype(v), Bug, Prod>(L); });
}

extern "C" const gk_op gk_scan_cumsum = {NULL, cumsum_launch<SCAN_OK, false>, NULL};
extern "C" const gk_op gk_scan_cumsum_exclusive = {NULL, cumsum_launch<SCAN_EXCLUSIVE, false>,
                                                   NULL};
extern "C" const gk_op gk_scan_cumsum_nocarry = {NULL, cumsum_launch<SCAN_NOCARRY, false>, NULL};
extern "C" const gk_op gk_scan_cumprod = {NULL, cumsum_launch<SCAN_OK, true>, NULL};
extern "C" const gk_op gk_scan_cumprod_exclusive = {NULL, cumsum_launch<SCAN_EXCLUSIVE, true>,
                                                    NULL};
extern "C" const gk_op gk_scan_cumprod_nocarry = {NULL, cumsum_launch<SCAN_NOCARRY, true>, NULL};
