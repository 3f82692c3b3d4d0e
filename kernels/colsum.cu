/* colsum.cu: seed 002's "matmul -> sum" and "einsum ij,jk->k".
 *  - matmul_colsum: cuBLAS product into scratch (m x n), then the chunked column sum.
 *  - einsum.colsum: never forms the m x n product: s = column sums of A (k values), then
 *    out = s^T B as a weighted column sum of B. Reads A and B once each.
 *    Its operands may be placed as a user's (abi/layout.h: einsum.colsum.strided): A and B
 *    with leading dimensions, any of the three off 16-byte boundaries (the column sums then
 *    load one element at a time).
 *  - planted bug einsum.colsum.lastchunk: the column sum of A skips its last row chunk.
 *  - f16 and bf16 modes (f32 cases; kernels/half_ops.cuh): the operands rounded to the half
 *    type first. matmul_colsum's product is then cublasGemmEx with f32 accumulation, stored
 *    in the half type before the f32 column sum (what autocast's mm and sum run);
 *    einsum.colsum sums the rounded values, held in f32, in f32. Their copies lie at the
 *    start of the workspace (abi/gemm.h) and the parts below follow them.
 *  - planted bugs matmul_colsum.halfcount, einsum.colsum.halfcount: B's copy converted over
 *    A's element count (half_ops.cuh).
 * Workspace layout (bytes from the op's layout): see each launch. */
#include "colsum.cuh"
#include "half_ops.cuh"

template <typename T, bool HalfCount> static int matmul_colsum_t(gk_launch *L)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    cublasHandle_t h;
    int rc = gk_cublas(L, &h);
    if (rc) return rc;
    /* the 16-bit modes' operand copies first (abi/gemm.h), then the product and the scratch */
    int64_t half = gk_half_operands_bytes(L->mode, m, k, n, 2);
    T *prod = (T *)((char *)L->workspace + half);
    T *scratch = prod + m * n;
    if (!L->workspace ||
        colsum_scratch_end<T>(scratch, n, m, n) > (const char *)L->workspace + L->workspace_bytes)
        return gk_fail_internal("matmul_colsum: workspace smaller than the layout promised");
    if (half) { /* the product stored in the half type, as autocast's mm returns it */
        rc = gk_half_gemm(L, h, (const float *)L->in[0], (const float *)L->in[1],
                          HalfCount ? m * k : k * n, (float *)prod);
        if (rc == GV_OK) rc = gk_half_round_inplace(L, (float *)prod, m * n);
    } else
        rc = gk_gemm_rowmajor<T>(h, m, k, n, (const T *)L->in[0], (const T *)L->in[1], prod);
    if (rc) return rc;
    return colsum_enqueue<T>(prod, m, n, NULL, scratch, (T *)L->out[0], gk_stream(L));
}

template <bool HalfCount> static int matmul_colsum(gk_launch *L)
{
    if (gk_half_mode(L->mode)) {
        if (L->dtype != GV_F32) return gk_fail_unsupported("16-bit modes take f32 cases");
        return matmul_colsum_t<float, HalfCount>(L);
    }
    return gk_by_dtype(L->dtype,
                       [&](auto x) { return matmul_colsum_t<decltype(x), HalfCount>(L); });
}

template <typename T, bool LastChunk, bool HalfCount> static int einsum_colsum_t(gk_launch *L)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    snprintf(L->math_mode, sizeof L->math_mode, "hand-written FMA");
    /* workspace: the 16-bit modes' operand copies (rounded, held in f32: abi/gemm.h), s (k),
       then one scratch for both sums: counters for max(k, n) columns, the larger sum's
       partials (src/ops/colsum.c, einsum_layout) */
    int64_t half = gk_half_operands_bytes(L->mode, m, k, n, 4);
    T *s = (T *)((char *)L->workspace + half);
    T *scratch = s + k;
    int64_t counter_cols = k > n ? k : n;
    const char *end = (const char *)L->workspace + L->workspace_bytes;
    if (!L->workspace || colsum_scratch_end<T>(scratch, counter_cols, m, k) > end ||
        colsum_scratch_end<T>(scratch, counter_cols, k, n) > end)
        return gk_fail_internal("einsum.colsum: workspace smaller than the layout promised");
    int64_t rows = m;
    if (LastChunk) {
        int64_t chunks = gk_colsum_chunks(m), chunk_rows = (m + chunks - 1) / chunks;
        rows = chunks > 1 ? (chunks - 1) * chunk_rows : m; /* the bug: last chunk dropped */
        if (rows > m) rows = m;
    }
    const gk_place *pa = &L->in_place[0], *pb = &L->in_place[1];
    if ((gk_place_is_matrix(pa) && pa->trans) || (gk_place_is_matrix(pb) && pb->trans))
        return gk_fail_unsupported("einsum.colsum takes no transposed operands");
    const T *a = (const T *)L->in[0], *b = (const T *)L->in[1];
    int64_t lda = gk_place_ld_or(pa, k), ldb = gk_place_ld_or(pb, n);
    if (half) { /* the sums read the rounded copies, packed */
        void *ah = NULL, *bh = NULL;
        int rc = gk_half_operands<true>(L, (const float *)a, lda, (const float *)b, ldb,
                                        HalfCount ? m * k : k * n, &ah, &bh);
        if (rc) return rc;
        a = (const T *)ah;
        b = (const T *)bh;
        lda = k;
        ldb = n;
        snprintf(L->math_mode, sizeof L->math_mode, "%s operands, hand-written f32 FMA",
                 L->mode == GV_MODE_BF16 ? "bf16" : "f16");
    }
    int rc = colsum_zero_counters(scratch, counter_cols, gk_stream(L));
    if (rc) return rc;
    rc = colsum_enqueue_zeroed<T>(a, rows, k, NULL, scratch, counter_cols, s, gk_stream(L), lda);
    if (rc) return rc;
    return colsum_enqueue_zeroed<T>(b, k, n, s, scratch, counter_cols, (T *)L->out[0], gk_stream(L),
                                    ldb);
}

template <bool LastChunk, bool HalfCount> static int einsum_colsum(gk_launch *L)
{
    if (gk_half_mode(L->mode)) {
        if (L->dtype != GV_F32) return gk_fail_unsupported("16-bit modes take f32 cases");
        return einsum_colsum_t<float, LastChunk, HalfCount>(L);
    }
    return gk_by_dtype(
        L->dtype, [&](auto x) { return einsum_colsum_t<decltype(x), LastChunk, HalfCount>(L); });
}

extern "C" const gk_op gk_matmul_colsum = {NULL, matmul_colsum<false>, NULL};
extern "C" const gk_op gk_matmul_colsum_halfcount = {NULL, matmul_colsum<true>, NULL};
extern "C" const gk_op gk_einsum_colsum = {NULL, einsum_colsum<false, false>, NULL};
extern "C" const gk_op gk_einsum_colsum_lastchunk = {NULL, einsum_colsum<true, false>, NULL};
extern "C" const gk_op gk_einsum_colsum_halfcount = {NULL, einsum_colsum<false, true>, NULL};

/* planted bug matmul_colsum.tf32native: the product secretly in TF32 (gk_secretly_tf32) */
static int matmul_colsum_tf32native(gk_launch *L)
{
    return gk_secretly_tf32(matmul_colsum<false>, L);
}
extern "C" const gk_op gk_matmul_colsum_tf32native = {NULL, matmul_colsum_tf32native, NULL};
