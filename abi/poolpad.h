/* poolpad.h: the geometry of each op of the poolpad family, the contract kernels/poolpad.cu
 * and src/ops/poolpad.c share: max and average pooling with a stride other than the window,
 * zero padding and dilation, as torch.nn.MaxPool{1,2,3}d and AvgPool{1,3}d take them
 * (KernelBench's level-1 problems 41 to 44 and 46). A case's dims are the input's (nc, l;
 * nc, h, w; nc, d, h, w: at most four numbers), so the window, the stride, the padding and the
 * dilation are facts of the op, named in it (pool.max1d.k8s1p4d3 is MaxPool1d(8, stride=1,
 * padding=4, dilation=3)); the same along every side. Each output side is PyTorch's
 * floor((n + 2 p - dil (k - 1) - 1) / s) + 1 (ceil_mode False). The max skips the padding
 * (PyTorch pads with -inf); the average adds the window's elements inside the input and
 * divides by k^rank, the padded zeros counted (AvgPool's default count_include_pad=True; with
 * ceil_mode False no window reaches past the padding, so the divisor is k^rank everywhere). */
#ifndef GV_ABI_POOLPAD_H
#define GV_ABI_POOLPAD_H

#include <stdint.h>

/* X(name, rank, window k, stride, padding, dilation) */
#define GK_POOLPAD_GEOMETRIES(X)                                                                   \
    X(k8s1p4d3, 1, 8, 1, 4, 3)                                                                     \
    X(k4s1p1, 2, 4, 1, 1, 1)                                                                       \
    X(k3s2p1d3, 3, 3, 2, 1, 3)                                                                     \
    X(k8s1p4, 1, 8, 1, 4, 1)                                                                       \
    X(k3s2p1, 3, 3, 2, 1, 1)

/* An output side of an input side n (0 where the dilated window does not fit the padded side) */
static inline int64_t gk_poolpad_out(int64_t n, int64_t k, int64_t s, int64_t p, int64_t dil)
{
    const int64_t span = n + 2 * p - dil * (k - 1) - 1;
    return span < 0 ? 0 : span / s + 1;
}

#endif
