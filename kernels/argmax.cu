/* argmax.cu: reduce.argmax and reduce.argmin, the index of each row's largest (smallest) value
 * of a row-major m x n matrix (torch.argmax and torch.argmin, dim=-1): the first index of the
 * extreme, a NaN beating every number in both (the first NaN of a row that has one), -0 equal
 * to +0; and reduce.max and reduce.min, the value at that index (torch.amax and torch.amin:
 * NaN where the row has one). One kernel, the direction (Min) and what is stored (Value)
 * parameters: argmin is argmax with the order reversed, max is argmax's value.
 * One block a row: each thread walks its strided elements in increasing index, keeping the
 * first best it meets; the threads' candidates are then combined by warp shuffles and across
 * the warps in shared memory, each combination keeping the better value and, on a tie, the
 * smaller index, so the result is the first best whatever the order the combinations happen
 * in. No arithmetic: the result is exact, and stored as a value of the dtype (an index below
 * 2^24 is exact in f32). Planted bugs (each must FAIL), the same for argmin:
 * reduce.argmax.lastties (a tie keeps the later index), reduce.argmax.nonan (a NaN never wins,
 * as fmax would have it); reduce.max.nonan and reduce.min.nonan (fmax's and fmin's rule: the
 * largest number where the row holds a NaN). */
#include "gk_cuda.h"

enum argmax_bug { ARGMAX_OK, ARGMAX_LASTTIES, ARGMAX_NONAN };

constexpr int ARGMAX_THREADS = 256;

/* Whether number v is further than w in the search's direction (larger; smaller for Min). */
template <typename T, bool Min> __device__ __forceinline__ bool further(T v, T w)
{
    return Min ? v < w : v > w;
}

/* Whether (v, i) beats (w, j) under the bug's rule. The correct rule: a NaN beats a number and
   the earlier of two NaNs wins; a number beats one it is further than; equal values keep the
   earlier. */
template <typename T, int Bug, bool Min>
__device__ __forceinline__ bool beats(T v, int64_t i, T w, int64_t j)
{
    const bool vn = v != v, wn = w != w;
    if (Bug == ARGMAX_NONAN) { /* the planted bug: a NaN loses to everything */
        if (vn || wn) return !vn && wn ? true : (vn && wn ? i < j : false);
        return further<T, Min>(v, w) || (v == w && i < j);
    }
    if (vn || wn) return vn && (!wn || i < j);
    if (Bug == ARGMAX_LASTTIES) return further<T, Min>(v, w) || (v == w && i > j);
    return further<T, Min>(v, w) || (v == w && i < j);
}

template <typename T, int Bug, bool Min, bool Value>
__global__ void __launch_bounds__(ARGMAX_THREADS)
    argmax_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t m, int64_t n)
{
    __shared__ T sv[ARGMAX_THREADS / 32];
    __shared__ int64_t si[ARGMAX_THREADS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
        const T *xr = x + row * n;
        /* a thread without elements holds index n, which every real candidate beats on a tie */
        T best = T(-INFINITY);
        int64_t bi = n;
        for (int64_t j = threadIdx.x; j < n; j += ARGMAX_THREADS)
            if (bi == n || beats<T, Bug, Min>(xr[j], j, best, bi)) best = xr[j], bi = j;
        for (int off = 16; off > 0; off >>= 1) {
            const T ov = __shfl_down_sync(0xffffffffu, best, off);
            const int64_t oi = __shfl_down_sync(0xffffffffu, bi, off);
            if (oi < n && (bi == n || beats<T, Bug, Min>(ov, oi, best, bi))) best = ov, bi = oi;
        }
        __syncthreads(); /* the previous row's readers of sv and si */
        if (lane == 0) sv[warp] = best, si[warp] = bi;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < ARGMAX_THREADS / 32; w++)
                if (si[w] < n && (bi == n || beats<T, Bug, Min>(sv[w], si[w], best, bi)))
                    best = sv[w], bi = si[w];
            y[row] = Value ? best : T(bi);
        }
    }
}

template <typename T, int Bug, bool Min, bool Value> static int argmax_t(gk_launch *L)
{
    const int64_t m = L->dims[0], n = L->dims[1];
    snprintf(L->math_mode, sizeof L->math_mode, "compare only (exact)");
    if (m == 0) return GV_OK;
    const unsigned blocks = (unsigned)(m < (1 << 20) ? m : (1 << 20));
    argmax_kernel<T, Bug, Min, Value>
        <<<blocks, ARGMAX_THREADS, 0, gk_stream(L)>>>((const T *)L->in[0], (T *)L->out[0], m, n);
    GK_LAUNCHED("argmax_kernel");
    return GV_OK;
}

template <int Bug, bool Min, bool Value = false> static int argmax_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) { return argmax_t<decltype(v), Bug, Min, Value>(L); });
}

extern "C" const gk_op gk_reduce_argmax = {NULL, argmax_launch<ARGMAX_OK, false>, NULL};
extern "C" const gk_op gk_reduce_argmax_lastties = {NULL, argmax_launch<ARGMAX_LASTTIES, false>,
                                                    NULL};
extern "C" const gk_op gk_reduce_argmax_nonan = {NULL, argmax_launch<ARGMAX_NONAN, false>, NULL};
extern "C" const gk_op gk_reduce_argmin = {NULL, argmax_launch<ARGMAX_OK, true>, NULL};
extern "C" const gk_op gk_reduce_argmin_lastties = {NULL, argmax_launch<ARGMAX_LASTTIES, true>,
                                                    NULL};
extern "C" const gk_op gk_reduce_argmin_nonan = {NULL, argmax_launch<ARGMAX_NONAN, true>, NULL};
extern "C" const gk_op gk_reduce_max = {NULL, argmax_launch<ARGMAX_OK, false, true>, NULL};
extern "C" const gk_op gk_reduce_max_nonan = {NULL, argmax_launch<ARGMAX_NONAN, false, true>, NULL};
extern "C" const gk_op gk_reduce_min = {NULL, argmax_launch<ARGMAX_OK, true, true>, NULL};
extern "C" const gk_op gk_reduce_min_nonan = {NULL, argmax_launch<ARGMAX_NONAN, true, true>, NULL};
