/* solve.h: the solve family's workspace contract, shared by kernels/solve.cu (which carves
 * it), the op's layout (src/ops/solve.c) and the tests: the column-major copy of A (n x n of
 * the dtype, rounded up to 256 bytes), then n pivots and two info words (int32). */
#ifndef GV_ABI_SOLVE_H
#define GV_ABI_SOLVE_H

#include <stdint.h>

static inline int64_t gv_solve_ws_a_bytes(int64_t n, int64_t es)
{
    return (n * n * es + 255) / 256 * 256;
}
static inline int64_t gv_solve_ws_bytes(int64_t n, int64_t es)
{
    return gv_solve_ws_a_bytes(n, es) + (n + 2) * 4;
}

#endif
