/* softmax.h: the layout contract of the row-wise kernels of the softmax family
 * (kernels/softmax.cu): how many threads a row gets, hence how deep each row's sums are.
 * The kernels and the error models (src/ops/softmax.c) must agree on it. */
#ifndef GV_ABI_SOFTMAX_H
#define GV_ABI_SOFTMAX_H

#include <stdint.h>

/* One block a row. Rows up to 4096 get 256 threads, longer rows 1024, so that a thread never
   sums more than max(16, ceil(n / 1024)) of the row's terms on its own. */
#define GK_SOFTMAX_SHORT_ROW 4096
static inline int gk_softmax_threads(int64_t n)
{
    return n > GK_SOFTMAX_SHORT_ROW ? 1024 : 256;
}
static inline int gk_softmax_log2_threads(int64_t n)
{
    return n > GK_SOFTMAX_SHORT_ROW ? 10 : 8;
}

/* The rounded additions a term of a row's sum (the exponentials, the values, their squares)
   goes through at most: thread t adds x[t], x[t + T], x[t + 2T], ... one after another
   (ceil(n / T) terms, at most ceil(n / T) - 1 rounded additions after the exact first one),
   then a binary tree over the T threads' partials (log2 T levels: across a warp's lanes, then
   across the warps). Counted as ceil(n / T) + log2 T, one more than the most: it stays >= 1
   for n = 1 and covers a kernel that starts its sum from 0. */
static inline int64_t gk_softmax_sum_depth(int64_t n)
{
    int64_t t = gk_softmax_threads(n);
    return (n + t - 1) / t + gk_softmax_log2_threads(n);
}

/* The norms' eps, rounded to the case's dtype by the kernels and taken as given (f64) by the
   oracle: layer norm's is torch.nn.LayerNorm's default; RMS norm's 1e-6 is the value LLaMA-style
   models use (torch.nn.RMSNorm's default is the dtype's epsilon instead). */
#define GK_NORM_LAYER_EPS 1e-5
#define GK_NORM_RMS_EPS   1e-6
#define GK_NORM_RMS_EPS5  1e-5 /* norm.rms.eps5: nn.RMSNorm as KernelBench writes it */

#endif
