/* lossred.cu: the losses KernelBench's level 1 reduces to one value with a mean over the batch:
 *  - loss.xent.mean: cross_entropy(x, t) (reduction 'mean'): each row's L_i = (M - x_t) +
 *    log S as loss.xent's kernel (one block a row, the softmax family's block tree), into the
 *    workspace; then one block sums the m losses and divides by m (problem 95);
 *  - loss.hinge: mean(clamp(1 - p * t, min=0)) over an m x n p with t of n values +-1
 *    broadcast along the rows (t[j] multiplies column j, as `predictions * targets` broadcasts
 *    a (n,) targets against (m, n) predictions): one block over the m n terms (problem 100);
 *  - loss.triplet: TripletMarginLoss(margin=1, p=2, eps=1e-6): each row's
 *    max(||a - p + eps|| - ||a - n + eps|| + 1, 0) (torch's pairwise_distance adds eps to the
 *    difference), one block a row into the workspace, then one block's mean (problem 99).
 * Each final sum is one block (the softmax family's thread counts and tree, abi/softmax.h:
 * depth gk_softmax_sum_depth of its length), then the division by the count rounded to the
 * dtype. Planted bugs (each must FAIL): loss.xent.mean.sum (reduction 'sum': no division by m),
 * loss.hinge.rowtarget (t indexed by the row, t[i mod n], not broadcast along it),
 * loss.triplet.nosqrt (squared distances). */
#include "../abi/lossred.h"
#include "../abi/softmax.h"
#include "block_reduce.cuh"
#include "gk_cuda.h"
#include "mathfn.cuh"




enum lossred_bug { LR_OK, LR_SUM, LR_ROWTARGET, LR_NOSQRT };

/* the one-block mean of v[0 .. len) over count (no division: the planted .sum) */
template <typename T, int Bug>
__global__ void lossred_mean_kernel(const T *__restrict__ v, T *__restrict__ out, int64_t len,
                                    int64_t count)
{
    __shared__ T sh[33];
    T s = T(0);
    for (int64_t j = threadIdx.x; j < len; j += blockDim.x)
        s += v[j];
    s = block_reduce<T, false>(s, sh);
    if (threadIdx.x == 0) out[0] = Bug == LR_SUM ? s : s / T(count);
}

template <typename T>
__global__ void xent_rows_kernel(const T *__restrict__ x, const T *__restrict__ target,
                                 T *__restrict__ loss, int64_t m, int64_t n)
{
    __shared__ T sh[33];
    for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
        const T *xr = x + row * n;
        T mx = T(-INFINITY);
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
            mx = fmax(mx, xr[j]);
        mx = block_reduce<T, true>(mx, sh);
        T s = T(0);
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x)
            s += gk_exp<T, GK_MATH_NATIVE>(xr[j] - mx);
        s = block_reduce<T, false>(s, sh);
        if (threadIdx.x != 0) continue;
        const T t = target[row];
        if (!(t >= T(0) && t < T(n) && t == floor(t))) { /* NaN fails every comparison */
            loss[row] = T(NAN);
            continue;
        }
        loss[row] = (mx - xr[(int64_t)t]) + log(s);
    }
}

template <typename T, int Bug>
__global__ void triplet_rows_kernel(const T *__restrict__ a, const T *__restrict__ p,
                                    const T *__restrict__ q, T *__restrict__ loss, int64_t m,
                                    int64_t n)
{
    __shared__ T sh[33];
    const T eps = T(GK_TRIPLET_EPS);
    for (int64_t row = blockIdx.x; row < m; row += gridDim.x) {
        const int64_t o = row * n;
        T sp = T(0), sn = T(0);
        for (int64_t j = threadIdx.x; j < n; j += blockDim.x) {
            const T zp = (a[o + j] - p[o + j]) + eps, zn = (a[o + j] - q[o + j]) + eps;
            sp += zp * zp;
            sn += zn * zn;
        }
        sp = block_reduce<T, false>(sp, sh);
        sn = block_reduce<T, false>(sn, sh);
        if (threadIdx.x != 0) continue;
        const T dp = Bug == LR_NOSQRT ? sp : sqrt(sp), dn = Bug == LR_NOSQRT ? sn : sqrt(sn);
        const T l = (dp - dn) + T(GK_TRIPLET_MARGIN);
        loss[row] = l > T(0) || l != l ? l : T(0); /* clamp(min=0); NaN stays */
    }
}

template <typename T, int Bug>
__global__ void hinge_kernel(const T *__restrict__ pred, const T *__restrict__ t,
                             T *__restrict__ out, int64_t m, int64_t n)
{
    __shared__ T sh[33];
    const int64_t total = m * n;
    T s = T(0);
    for (int64_t j = threadIdx.x; j < total; j += blockDim.x) {
        const T tj = Bug == LR_ROWTARGET ? t[(j / n) % n] : t[j % n];
        const T h = T(1) - pred[j] * tj;
        s += h > T(0) || h != h ? h : T(0);
    }
    s = block_reduce<T, false>(s, sh);
    if (threadIdx.x == 0) out[0] = s / T(total);
}

template <typename T, int Kind, int Bug> static int lossred_t(gk_launch *L)
{
    const int64_t m = L->dims[0], n = L->dims[1];
    snprintf(L->math_mode, sizeof L->math_mode,
             Kind == 1 ? "one block" : "one block a row, one block's mean");
    if (Kind == 1) {
        hinge_kernel<T, Bug><<<1, gk_softmax_threads(m * n), 0, gk_stream(L)>>>(
            (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], m, n);
        GK_LAUNCHED("hinge_kernel");
        return GV_OK;
    }
    T *rows = (T *)L->workspace; /* m row losses (src/ops/lossred.c's layout) */
    const unsigned blocks = (unsigned)(m < (1 << 20) ? m : (1 << 20));
    if (Kind == 0) {
        xent_rows_kernel<T><<<blocks, gk_softmax_threads(n), 0, gk_stream(L)>>>(
            (const T *)L->in[0], (const T *)L->in[1], rows, m, n);
        GK_LAUNCHED("xent_rows_kernel");
    } else {
        triplet_rows_kernel<T, Bug><<<blocks, gk_softmax_threads(n), 0, gk_stream(L)>>>(
            (const T *)L->in[0], (const T *)L->in[1], (const T *)L->in[2], rows, m, n);
        GK_LAUNCHED("triplet_rows_kernel");
    }
    lossred_mean_kernel<T, Bug == LR_SUM ? LR_SUM : LR_OK>
        <<<1, gk_softmax_threads(m), 0, gk_stream(L)>>>(rows, (T *)L->out[0], m, m);
    GK_LAUNCHED("lossred_mean_kernel");
    return GV_OK;
}

template <int Kind, int Bug> static int lossred_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) { return lossred_t<decltype(v), Kind, Bug>(L); });
}

/* Kind: 0 cross-entropy, 1 hinge, 2 triplet */
extern "C" const gk_op gk_loss_xent_mean = {NULL, lossred_launch<0, LR_OK>, NULL};
extern "C" const gk_op gk_loss_xent_mean_sum = {NULL, lossred_launch<0, LR_SUM>, NULL};
extern "C" const gk_op gk_loss_hinge = {NULL, lossred_launch<1, LR_OK>, NULL};
extern "C" const gk_op gk_loss_hinge_rowtarget = {NULL, lossred_launch<1, LR_ROWTARGET>, NULL};
extern "C" const gk_op gk_loss_triplet = {NULL, lossred_launch<2, LR_OK>, NULL};
extern "C" const gk_op gk_loss_triplet_nosqrt = {NULL, lossred_launch<2, LR_NOSQRT>, NULL};
