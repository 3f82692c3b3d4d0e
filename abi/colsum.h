/* colsum.h: the layout contract of chunked column sums (kernels/colsum.cuh), shared by the
 * kernels (colsum, reduce families), the ops' layouts and error models (src/ops/colsum.c,
 * src/ops/reduce.c) and their tests, which must agree on the chunking and so on the depth. */
#ifndef GV_ABI_COLSUM_H
#define GV_ABI_COLSUM_H

#include <stdint.h>

/* Chunked column sums (kernels/colsum.cuh) split `rows` into this many chunks of
 * ceil(rows / chunks) rows: about sqrt(rows), so a column's summation depth
 * (chunk length + chunks) is near its minimum 2 sqrt(rows). Shared by the kernels and the
 * ops' error models, which must agree on the depth. */
static inline int64_t gk_colsum_chunks(int64_t rows)
{
    int64_t c = 1;
    while (c * c < rows)
        c++;
    return c > 1024 ? 1024 : c;
}
static inline int64_t gk_colsum_depth(int64_t rows)
{
    int64_t c = gk_colsum_chunks(rows);
    return (rows + c - 1) / c + c;
}

#endif
