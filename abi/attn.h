/* attn.h: the layout contract of the attention kernels (kernels/attn.cu) and their descriptors
 * (src/ops/attn.c): one block a (batch x head, query row), the row's s scores held in shared
 * memory beside the query, so s and d are bounded by what a block's shared memory holds. */
#ifndef GV_ABI_ATTN_H
#define GV_ABI_ATTN_H

#include <stdint.h>

#define GK_ATTN_MAX_S   4096 /* scores a row: 32 KiB of f64 */
#define GK_ATTN_MAX_D   256  /* the head's width: the query row, 2 KiB of f64 */
#define GK_ATTN_THREADS 128

/* Shared memory of one block: the row's scores, then the query. */
static inline int64_t gk_attn_shared_bytes(int64_t s, int64_t d, int64_t elem_bytes)
{
    return (s + d) * elem_bytes;
}

#endif
