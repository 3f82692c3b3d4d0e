/* bnorm.cu: norm.batch, training-mode batch norm of an NCHW tensor (torch.nn.BatchNorm2d in
 * training mode, affine at its initial weight 1 and bias 0, which are exact): for each channel
 * c, the mean and the biased variance over its N H W values, then (x - mean) / sqrt(var + eps).
 * A channel is norm.layer's row, gathered: its j-th value (j = n HW + p) lies at
 * (n C + c) HW + p. One block a channel (gk_softmax_threads of the channel's N HW values), each
 * thread adding its strided terms j = t, t + T, ... in order, then block_reduce's tree: the
 * order and the depth norm.layer's kernel has (abi/softmax.h), so that its error model holds
 * for a channel as for a row. Deterministic: no atomics, a fixed order.
 * Planted bug (must FAIL): norm.batch.perimage (the statistics of each image's plane alone:
 * instance norm under the batch norm's label). */
#include "../abi/softmax.h"
#include "gk_cuda.h"
#include "block_reduce.cuh"

enum bnorm_bug { BNORM_OK, BNORM_PERIMAGE };

/* The channel's j-th value of an NCHW tensor of nb images, nc channels, hw values a plane. */
__device__ __forceinline__ int64_t bnorm_at(int64_t c, int64_t j, int64_t nc, int64_t hw)
{
    return (j / hw * nc + c) * hw + j % hw;
}

template <typename T>
__device__ void bnorm_group(const T *__restrict__ x, T *__restrict__ y, int64_t c, int64_t first,
                            int64_t len, int64_t nc, int64_t hw, T *sh)
{
    const int64_t step = blockDim.x;
    T s = T(0);
    for (int64_t j = threadIdx.x; j < len; j += step)
        s += x[bnorm_at(c, first + j, nc, hw)];
    const T mean = block_reduce<T, false>(s, sh) / T(len);
    T q = T(0);
    for (int64_t j = threadIdx.x; j < len; j += step) {
        T d = x[bnorm_at(c, first + j, nc, hw)] - mean;
        q += d * d;
    }
    const T var = block_reduce<T, false>(q, sh) / T(len);
    const T rstd = T(1) / sqrt(var + T(GK_NORM_LAYER_EPS));
    for (int64_t j = threadIdx.x; j < len; j += step) {
        const int64_t at = bnorm_at(c, first + j, nc, hw);
        y[at] = (x[at] - mean) * rstd;
    }
}

template <typename T, int Bug>
__global__ void bnorm_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t nb, int64_t nc,
                             int64_t hw)
{
    __shared__ T sh[33];
    for (int64_t c = blockIdx.x; c < nc; c += gridDim.x) {
        if (Bug == BNORM_PERIMAGE) /* the planted bug: each image's plane on its own */
            for (int64_t i = 0; i < nb; i++)
                bnorm_group(x, y, c, i * hw, hw, nc, hw, sh);
        else
            bnorm_group(x, y, c, 0, nb * hw, nc, hw, sh);
    }
}

template <typename T, int Bug> static int bnorm_t(gk_launch *L)
{
    const int64_t nb = L->dims[0], nc = L->dims[1], hw = L->dims[2] * L->dims[3];
    snprintf(L->math_mode, sizeof L->math_mode, "one block a channel");
    if (nc == 0 || nb * hw == 0) return GV_OK;
    /* the channel's N HW values are the row: the same thread count as norm.layer's */
    const int threads = gk_softmax_threads(Bug == BNORM_PERIMAGE ? hw : nb * hw);
    const unsigned blocks = (unsigned)(nc < (1 << 20) ? nc : (1 << 20));
    bnorm_kernel<T, Bug>
        <<<blocks, threads, 0, gk_stream(L)>>>((const T *)L->in[0], (T *)L->out[0], nb, nc, hw);
    GK_LAUNCHED("bnorm_kernel");
    return GV_OK;
}

template <int Bug> static int bnorm_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) { return bnorm_t<decltype(v), Bug>(L); });
}

extern "C" const gk_op gk_norm_batch = {NULL, bnorm_launch<BNORM_OK>, NULL};
extern "C" const gk_op gk_norm_batch_perimage = {NULL, bnorm_launch<BNORM_PERIMAGE>, NULL};
