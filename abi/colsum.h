/* colsum.h: the layout contract of chunked column sums (kernels/colsum.cuh), shared by the
 * kernels (colsum, reduce families), the ops' layouts and error models (src/ops/colsum.c,
 * src/ops/reduce.c) and their tests, which must agree on the chunking and so on the depth. */
#ifndef GV_ABI_COLSUM_H
#define GV_ABI_COLSUM_H

#include <stdint.h>

/* Chunked column sums (kernels/colsum.cuh) split `rows` into this many chunks of
 * ceil(rows / chunks) rows: the fewest c with (GK_COLSUM_SPREAD c)^2 >= rows, at most 1024,
 * so a chunk has about GK_COLSUM_SPREAD^2 times as many rows as there are chunks. A column's
 * summation depth (chunk length + chunks) is then about (GK_COLSUM_SPREAD + 1 /
 * GK_COLSUM_SPREAD) sqrt(rows): 4.25 sqrt(rows) at spread 4, against the minimum
 * 2 sqrt(rows) at spread 1; fewer, longer chunks measured faster on the GPU
 * (tools/colsum_tune). Shared by the kernels and the ops' error models, which must agree on
 * the depth. */
#define GK_COLSUM_SPREAD 4
static inline int64_t gk_colsum_chunks(int64_t rows)
{
    int64_t c = 1;
    while ((GK_COLSUM_SPREAD * c) * (GK_COLSUM_SPREAD * c) < rows)
        c++;
    return c > 1024 ? 1024 : c;
}
static inline int64_t gk_colsum_depth(int64_t rows)
{
    int64_t c = gk_colsum_chunks(rows);
    return (rows + c - 1) / c + c;
}
/* Device scratch of chunked column sums: first the counters (4 bytes for each group of
 * columns, at most one a column; `cols` the most columns of any sum that shares them), then
 * the partial sums (chunks x cols elements of `elem` bytes), each area starting at a 16-byte
 * boundary (16 bytes of slack each). */
static inline int64_t gk_colsum_counters_bytes(int64_t cols)
{
    return 16 + 4 * cols;
}
static inline int64_t gk_colsum_partials_bytes(int64_t rows, int64_t cols, int64_t elem)
{
    return 16 + gk_colsum_chunks(rows) * cols * elem;
}
/* Scratch of one column sum of a rows x cols matrix. */
static inline int64_t gk_colsum_scratch_bytes(int64_t rows, int64_t cols, int64_t elem)
{
    return gk_colsum_counters_bytes(cols) + gk_colsum_partials_bytes(rows, cols, elem);
}

#endif
