/* softmax.cu: the row-wise family over the last dimension of a row-major m x n input, one
 * block a row (gk_softmax_threads: 256 threads, 1024 for rows longer than 4096):
 *  - softmax.rows: M = the row's largest value, S = sum_j exp(x_j - M), y_j = exp(x_j - M) / S
 *    (the stable form PyTorch computes; exp is mathfn.cuh's gk_exp, the function math.exp
 *    judges alone, and the division IEEE's);
 *  - softmax.log: y_j = (x_j - M) - log S;
 *  - norm.layer: the mean, then the biased variance of x - mean (two passes), then
 *    (x - mean) * (1 / sqrt(var + eps));
 *  - norm.rms: (x * (1 / sqrt(mean(x^2) + eps)), eps 1e-6; norm.rms.eps5 the same at 1e-5.
 *  - norm.l2: x / sqrt(sum x^2); norm.l1mean: x / (sum |x| / n) (KernelBench's "L1 norm");
 *    norm.fro: norm.l2 of the whole tensor (Frobenius), one block.
 * Every sum of a row is each thread's strided terms added in order, then a tree over the
 * block (a warp's lanes, then the warps): the depth abi/softmax.h states, which the error
 * models use. The max is exact in any order. Deterministic: no atomics, a fixed order.
 * Planted bugs (each must FAIL): softmax.rows.nomax (no max subtraction), .partialsum (the sum
 * stops after the block's first pass over the row), norm.layer.unbiased (variance over
 * n - 1), norm.rms.noeps (no eps), norm.l2.partialsum (the block's first pass only),
 * norm.l1mean.sum (divided by the sum, not the mean). */
#include "../abi/softmax.h"
#include "gk_cuda.h"
#include "block_reduce.cuh"
#include "mathfn.cuh"

enum rows_kind { ROWS_SOFTMAX, ROWS_LOG, ROWS_LAYER, ROWS_RMS, ROWS_RMS5, ROWS_L2, ROWS_L1MEAN };
enum rows_bug { BUG_NONE, BUG_NOMAX, BUG_PARTIAL, BUG_UNBIASED, BUG_NOEPS, BUG_SUM };

template <typename T, int Bug> __device__ __forceinline__ T row_exp(T v)
{
    return gk_exp<T, GK_MATH_NATIVE>(v);
}

template <typename T, int Kind, int Bug>
__global__ void rows_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t m, int64_t n)
{
    __shared__ T sh[33];
    const int64_t step = blockDim.x;
    for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
        const T *xr = x + row * n;
        T *yr = y + row * n;
        if (Kind == ROWS_SOFTMAX || Kind == ROWS_LOG) {
            T mx = T(-INFINITY);
            for (int64_t j = threadIdx.x; j < n; j += step)
                mx = fmax(mx, xr[j]);
            mx = block_reduce<T, true>(mx, sh);
            if (Bug == BUG_NOMAX) mx = T(0); /* the planted bug */
            /* the planted bug BUG_PARTIAL: the block's first pass over the row only */
            const int64_t sum_end = Bug == BUG_PARTIAL && n > step ? step : n;
            T s = T(0);
            for (int64_t j = threadIdx.x; j < sum_end; j += step)
                s += row_exp<T, Bug>(xr[j] - mx);
            s = block_reduce<T, false>(s, sh);
            if (Kind == ROWS_SOFTMAX) {
                for (int64_t j = threadIdx.x; j < n; j += step)
                    yr[j] = row_exp<T, Bug>(xr[j] - mx) / s;
            } else {
                const T ls = log(s);
                for (int64_t j = threadIdx.x; j < n; j += step)
                    yr[j] = (xr[j] - mx) - ls;
            }
        } else if (Kind == ROWS_LAYER) {
            T s = T(0);
            for (int64_t j = threadIdx.x; j < n; j += step)
                s += xr[j];
            const T mean = block_reduce<T, false>(s, sh) / T(n);
            T q = T(0);
            for (int64_t j = threadIdx.x; j < n; j += step) {
                T c = xr[j] - mean;
                q += c * c;
            }
            q = block_reduce<T, false>(q, sh);
            /* the planted bug BUG_UNBIASED: n - 1 (n = 1 gives 0 / 0, NaN, as torch.var) */
            const T var = q / (Bug == BUG_UNBIASED ? T(n - 1) : T(n));
            const T rstd = T(1) / sqrt(var + T(GK_NORM_LAYER_EPS));
            for (int64_t j = threadIdx.x; j < n; j += step)
                yr[j] = (xr[j] - mean) * rstd;
        } else if (Kind == ROWS_L2 || Kind == ROWS_L1MEAN) {
            /* the planted bug BUG_PARTIAL: the block's first pass over the row only */
            const int64_t sum_end = Bug == BUG_PARTIAL && n > step ? step : n;
            T q = T(0);
            for (int64_t j = threadIdx.x; j < sum_end; j += step)
                q += Kind == ROWS_L2 ? xr[j] * xr[j] : fabs(xr[j]);
            q = block_reduce<T, false>(q, sh);
            /* the planted bug BUG_SUM: the sum of |x| where the mean is asked */
            const T d = Kind == ROWS_L2 ? sqrt(q) : Bug == BUG_SUM ? q : q / T(n);
            for (int64_t j = threadIdx.x; j < n; j += step)
                yr[j] = xr[j] / d;
        } else {
            T q = T(0);
            for (int64_t j = threadIdx.x; j < n; j += step)
                q += xr[j] * xr[j];
            const T ms = block_reduce<T, false>(q, sh) / T(n);
            const T eps = T(Kind == ROWS_RMS5 ? GK_NORM_RMS_EPS5 : GK_NORM_RMS_EPS);
            /* the planted bug BUG_NOEPS: the mean square alone */
            const T rstd = T(1) / sqrt(Bug == BUG_NOEPS ? ms : ms + eps);
            for (int64_t j = threadIdx.x; j < n; j += step)
                yr[j] = xr[j] * rstd;
        }
    }
}

template <typename T, int Kind, int Bug> static int rows_t(gk_launch *L)
{
    const int64_t m = L->dims[0], n = L->dims[1];
    snprintf(L->math_mode, sizeof L->math_mode, "one block a row");
    if (m == 0) return GV_OK;
    const int threads = gk_softmax_threads(n);
    const unsigned blocks = (unsigned)(m < (1 << 20) ? m : (1 << 20));
    rows_kernel<T, Kind, Bug>
        <<<blocks, threads, 0, gk_stream(L)>>>((const T *)L->in[0], (T *)L->out[0], m, n);
    GK_LAUNCHED("rows_kernel");
    return GV_OK;
}

template <int Kind, int Bug> static int rows_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) { return rows_t<decltype(v), Kind, Bug>(L); });
}

/* norm.fro: the whole m x n tensor as one row of m n elements (one block: the sum's depth is
   abi/softmax.h's for m n); the planted bug norm.fro.rows is norm.l2 judged as it */
static int fro_launch(gk_launch *L)
{
    gk_launch whole = *L;
    whole.dims[0] = 1;
    whole.dims[1] = L->dims[0] * L->dims[1];
    int rc = gk_by_dtype(L->dtype,
                         [&](auto v) { return rows_t<decltype(v), ROWS_L2, BUG_NONE>(&whole); });
    snprintf(L->math_mode, sizeof L->math_mode, "one block for the tensor");
    return rc;
}

extern "C" const gk_op gk_softmax_rows = {NULL, rows_launch<ROWS_SOFTMAX, BUG_NONE>, NULL};
extern "C" const gk_op gk_softmax_log = {NULL, rows_launch<ROWS_LOG, BUG_NONE>, NULL};
extern "C" const gk_op gk_norm_layer = {NULL, rows_launch<ROWS_LAYER, BUG_NONE>, NULL};
extern "C" const gk_op gk_norm_rms = {NULL, rows_launch<ROWS_RMS, BUG_NONE>, NULL};
extern "C" const gk_op gk_norm_rms_eps5 = {NULL, rows_launch<ROWS_RMS5, BUG_NONE>, NULL};
extern "C" const gk_op gk_norm_l2 = {NULL, rows_launch<ROWS_L2, BUG_NONE>, NULL};
extern "C" const gk_op gk_norm_l1mean = {NULL, rows_launch<ROWS_L1MEAN, BUG_NONE>, NULL};
extern "C" const gk_op gk_norm_l2_partialsum = {NULL, rows_launch<ROWS_L2, BUG_PARTIAL>, NULL};
extern "C" const gk_op gk_norm_l1mean_sum = {NULL, rows_launch<ROWS_L1MEAN, BUG_SUM>, NULL};
extern "C" const gk_op gk_norm_fro = {NULL, fro_launch, NULL};
extern "C" const gk_op gk_softmax_rows_nomax = {NULL, rows_launch<ROWS_SOFTMAX, BUG_NOMAX>, NULL};
extern "C" const gk_op gk_softmax_rows_partialsum = {NULL, rows_launch<ROWS_SOFTMAX, BUG_PARTIAL>,
                                                     NULL};
extern "C" const gk_op gk_norm_layer_unbiased = {NULL, rows_launch<ROWS_LAYER, BUG_UNBIASED>, NULL};
extern "C" const gk_op gk_norm_rms_noeps = {NULL, rows_launch<ROWS_RMS, BUG_NOEPS>, NULL};
