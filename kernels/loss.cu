/* loss.cu: the cross-entropy of each row of a row-major m x n matrix of logits against an
 * integer target a row (loss.xent: torch.nn.functional.cross_entropy(x, t, reduction='none')),
 * one block a row as the softmax family (the same thread counts and block tree,
 * abi/softmax.h, block_reduce.cuh): M = the row's largest logit, S = sum_j exp(x_j - M), then
 * thread 0 writes L = (M - x_t) + log S. Both terms are >= 0: no cancellation. The targets
 * arrive in the case's dtype (integers, exact in f32 up to 2^24); one that is not an integer
 * in [0, n) gives NaN, as the oracle does, and is never used as an index.
 * Planted bugs (each must FAIL): loss.xent.nomax (no max subtraction: exp overflows on the
 * wide logits), loss.xent.naivelog (-log of the target's softmax probability, which underflows
 * to 0 where the loss is large, giving +Inf). */
#include "../abi/softmax.h"
#include "block_reduce.cuh"
#include "gk_cuda.h"
#include "mathfn.cuh"

enum xent_bug { XENT_OK, XENT_NOMAX, XENT_NAIVELOG };

template <typename T, int Bug>
__global__ void xent_kernel(const T *__restrict__ x, const T *__restrict__ target,
                            T *__restrict__ loss, int64_t m, int64_t n)
{
    __shared__ T sh[33];
    const int64_t step = blockDim.x;
    for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
        const T *xr = x + row * n;
        T mx = T(-INFINITY);
        for (int64_t j = threadIdx.x; j < n; j += step)
            mx = fmax(mx, xr[j]);
        mx = block_reduce<T, true>(mx, sh);
        if (Bug == XENT_NOMAX) mx = T(0); /* the planted bug */
        T s = T(0);
        for (int64_t j = threadIdx.x; j < n; j += step)
            s += gk_exp<T, GK_MATH_NATIVE>(xr[j] - mx);
        s = block_reduce<T, false>(s, sh);
        if (threadIdx.x != 0) continue;
        const T t = target[row];
        if (!(t >= T(0) && t < T(n) && t == floor(t))) { /* NaN fails every comparison */
            loss[row] = T(NAN);
            continue;
        }
        const T xt = xr[(int64_t)t];
        if (Bug == XENT_NAIVELOG) /* the planted bug: -log(softmax(x)_t) */
            loss[row] = -log(gk_exp<T, GK_MATH_NATIVE>(xt - mx) / s);
        else
            loss[row] = (mx - xt) + log(s);
    }
}

template <typename T, int Bug> static int xent_t(gk_launch *L)
{
    const int64_t m = L->dims[0], n = L->dims[1];
    snprintf(L->math_mode, sizeof L->math_mode, "one block a row");
    if (m == 0) return GV_OK;
    const int threads = gk_softmax_threads(n);
    const unsigned blocks = (unsigned)(m < (1 << 20) ? m : (1 << 20));
    xent_kernel<T, Bug><<<blocks, threads, 0, gk_stream(L)>>>(
        (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], m, n);
    GK_LAUNCHED("xent_kernel");
    return GV_OK;
}

template <int Bug> static int xent_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) { return xent_t<decltype(v), Bug>(L); });
}

extern "C" const gk_op gk_loss_xent = {NULL, xent_launch<XENT_OK>, NULL};
extern "C" const gk_op gk_loss_xent_nomax = {NULL, xent_launch<XENT_NOMAX>, NULL};
extern "C" const gk_op gk_loss_xent_naivelog = {NULL, xent_launch<XENT_NAIVELOG>, NULL};

/* The losses that reduce two m x n tensors to one value (torch.nn.functional's defaults):
 *  - loss.mse: mean((x - y)^2) (mse_loss, reduction='mean');
 *  - loss.l1: mean(|x - y|) (l1_loss);
 *  - loss.smooth_l1: mean of z < beta ? 0.5 z^2 / beta : z - 0.5 beta, z = |x - y|, beta = 1
 *    (smooth_l1_loss's default; HuberLoss(delta) is delta times it with beta = delta, the same
 *    at delta = 1);
 *  - loss.kl: kl_div(x, y, reduction='batchmean'), x log-probabilities, y probabilities:
 *    sum(xlogy(y, y) - y x) / m, xlogy(0, 0) = 0 as torch's.
 * One block over the m n terms (the softmax family's thread counts and block tree,
 * abi/softmax.h: depth gk_softmax_sum_depth(m n)), then thread 0 divides by the count (m n,
 * or m for batchmean) rounded to the dtype. Planted bugs (each must FAIL): loss.mse.rowmean
 * (divides by n: the mean of one row's length), loss.l1.noabs (mean of x - y),
 * loss.smooth_l1.nooffset (the linear branch without - 0.5 beta), loss.kl.mean
 * (reduction='mean', divides by m n: torch's own warning about it). */
enum pair_kind { PAIR_MSE, PAIR_L1, PAIR_SMOOTH_L1, PAIR_KL };
enum pair_bug { PAIR_OK, PAIR_ROWMEAN, PAIR_NOABS, PAIR_NOOFFSET, PAIR_MEAN };

template <typename T, int Kind, int Bug> __device__ __forceinline__ T pair_term(T x, T y)
{
    if (Kind == PAIR_KL) {
        const T xlogy = y == T(0) ? T(0) : y * log(y); /* xlogy(0, 0) = 0; NaN stays NaN */
        return xlogy - y * x;
    }
    const T d = x - y;
    if (Kind == PAIR_MSE) return d * d;
    if (Kind == PAIR_L1) return Bug == PAIR_NOABS ? d : fabs(d);
    const T z = fabs(d), beta = T(1);
    if (z < beta) return T(0.5) * z * z / beta;
    return Bug == PAIR_NOOFFSET ? z : z - T(0.5) * beta;
}

template <typename T, int Kind, int Bug>
__global__ void pair_loss_kernel(const T *__restrict__ x, const T *__restrict__ y,
                                 T *__restrict__ out, int64_t m, int64_t n)
{
    __shared__ T sh[33];
    const int64_t total = m * n;
    T s = T(0);
    for (int64_t j = threadIdx.x; j < total; j += blockDim.x)
        s += pair_term<T, Kind, Bug>(x[j], y[j]);
    s = block_reduce<T, false>(s, sh);
    if (threadIdx.x != 0) return;
    const int64_t count = Bug == PAIR_ROWMEAN ? n
                          : Bug == PAIR_MEAN  ? total
                          : Kind == PAIR_KL   ? m
                                              : total;
    out[0] = s / T(count);
}

template <typename T, int Kind, int Bug> static int pair_t(gk_launch *L)
{
    const int64_t m = L->dims[0], n = L->dims[1];
    snprintf(L->math_mode, sizeof L->math_mode, "one block");
    pair_loss_kernel<T, Kind, Bug><<<1, gk_softmax_threads(m * n), 0, gk_stream(L)>>>(
        (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], m, n);
    GK_LAUNCHED("pair_loss_kernel");
    return GV_OK;
}

template <int Kind, int Bug> static int pair_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) { return pair_t<decltype(v), Kind, Bug>(L); });
}

extern "C" const gk_op gk_loss_mse = {NULL, pair_launch<PAIR_MSE, PAIR_OK>, NULL};
extern "C" const gk_op gk_loss_mse_rowmean = {NULL, pair_launch<PAIR_MSE, PAIR_ROWMEAN>, NULL};
extern "C" const gk_op gk_loss_l1 = {NULL, pair_launch<PAIR_L1, PAIR_OK>, NULL};
extern "C" const gk_op gk_loss_l1_noabs = {NULL, pair_launch<PAIR_L1, PAIR_NOABS>, NULL};
extern "C" const gk_op gk_loss_smooth_l1 = {NULL, pair_launch<PAIR_SMOOTH_L1, PAIR_OK>, NULL};
extern "C" const gk_op gk_loss_smooth_l1_nooffset = {
    NULL, pair_launch<PAIR_SMOOTH_L1, PAIR_NOOFFSET>, NULL};
extern "C" const gk_op gk_loss_kl = {NULL, pair_launch<PAIR_KL, PAIR_OK>, NULL};
extern "C" const gk_op gk_loss_kl_mean = {NULL, pair_launch<PAIR_KL, PAIR_MEAN>, NULL};
