/* colsum_order.h: the chunked column sums' documented order (kernels/colsum.cuh, abi/colsum.h),
 * emulated on the CPU in the dtype's own arithmetic: gk_colsum_chunks(m) chunks of
 * ceil(m / chunks) rows, each column's chunk summed in row order, then the chunk sums in
 * chunk order (plain adds: nothing to contract). colsum_f and colsum_d: x is m x n, row-major.
 * Shared by the CPU model test (model_reduce.c) and the GPU bit-for-bit test
 * (tests/gpu/test_colsum_order.c). */
#ifndef GV_TEST_COLSUM_ORDER_H
#define GV_TEST_COLSUM_ORDER_H

#include <stdint.h>

#include "colsum.h"

#define GV_TEST_DEFINE_COLSUM(T, SUFFIX)                                                           \
    static inline void colsum_##SUFFIX(const T *x, int64_t m, int64_t n, T *out)                   \
    {                                                                                              \
        int64_t chunks = gk_colsum_chunks(m), rows = (m + chunks - 1) / chunks;                    \
        for (int64_t j = 0; j < n; j++) {                                                          \
            T total = 0;                                                                           \
            for (int64_t c = 0; c < chunks; c++) {                                                 \
                T acc = 0;                                                                         \
                for (int64_t i = c * rows; i < (c + 1) * rows && i < m; i++)                       \
                    acc += x[i * n + j];                                                           \
                total += acc;                                                                      \
            }                                                                                      \
            out[j] = total;                                                                        \
        }                                                                                          \
    }
GV_TEST_DEFINE_COLSUM(float, f)
GV_TEST_DEFINE_COLSUM(double, d)

#endif
