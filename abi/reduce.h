/* reduce.h: the layout contract of reduce.sum's tree (kernels/reduce.cu), shared by the
 * kernel, the op's layout (src/ops/reduce.c) and the tests. */
#ifndef GV_ABI_REDUCE_H
#define GV_ABI_REDUCE_H

#include <stdint.h>

/* reduce.sum (kernels/reduce.cu) reduces tiles of GK_REDUCE_TILE elements per block, level
 * after level; the workspace holds every level but the last. Shared by the kernel and the
 * op's layout, which must agree. */
#define GK_REDUCE_TILE 2048
static inline int64_t gk_reduce_workspace_elems(int64_t n)
{
    int64_t total = 0;
    for (int64_t len = n; len > GK_REDUCE_TILE;) {
        len = (len + GK_REDUCE_TILE - 1) / GK_REDUCE_TILE;
        total += len;
    }
    return total;
}

/* reduce.sum.onepass and its planted reduce.sum.nofence (kernels/reduce_onepass.cuh): one
 * launch of one block a tile; the workspace holds the blocks' ticket counter, padded to
 * GK_REDUCE_ONEPASS_COUNTER_BYTES so the partials after it stay aligned, then one partial a
 * tile (at least one). */
#define GK_REDUCE_ONEPASS_COUNTER_BYTES 16
static inline int64_t gk_reduce_onepass_workspace_bytes(int64_t n, int64_t elem)
{
    int64_t tiles = n < 1 ? 1 : (n + GK_REDUCE_TILE - 1) / GK_REDUCE_TILE;
    return GK_REDUCE_ONEPASS_COUNTER_BYTES + tiles * elem;
}

#endif
