/* dense.cu: seed 004's dense layer Y(m x n) = sigmoid(W(m x k) X(k x n) + b), b(m) added to
 * row i, all row-major.
 *  - dense.sigmoid: cuBLAS product Z = W X into workspace (math mode of the case through
 *    gk_cublas: pedantic, or TF32 tensor ops), then ONE fused epilogue kernel that reads Z
 *    once, adds the row's bias and applies the sigmoid, writing Y. Fastmath (f32 only)
 *    evaluates the sigmoid with __expf and __fdividef, what --use_fast_math would emit.
 *  - planted bug dense.sigmoid.rowbias: the epilogue indexes the bias by column,
 *    b[j mod m], instead of by row: the bias-axis mix-up of a transposed layout, kept in
 *    range by the modulo so that it shows as wrong numbers, not as a memory fault.
 *
 * Why cuBLAS + own epilogue rather than a cuBLASLt bias epilogue: (1) cuBLASLt has RELU and
 * GELU epilogues but no sigmoid, so a second pass over Y would be needed anyway; (2) the
 * row-major product is computed as the column-major Z^T = X^T W^T, whose bias is per column
 * of that column-major matrix, while CUBLASLT_EPILOGUE_BIAS broadcasts a vector over the
 * columns (one value per row of D): it would need the transposed output and a transpose;
 * (3) cuBLASLt is not in the build's CUDA dependency and sets its precision through compute
 * types, outside gk_cublas's recorded math mode. One fused epilogue is one extra read and
 * write of m x n, small beside the 2mkn-flop product at the seed's shapes.
 *
 * f16 and bf16 modes (f32 cases): W and X rounded to the half type, their product by
 * cublasGemmEx with f32 accumulation (kernels/half_ops.cuh; the copies lie before Z in the
 * workspace), then the same f32 epilogue: autocast's mm followed by the bias and the sigmoid
 * in f32. b is added as stored. Planted bug dense.sigmoid.halfcount: X's copy converted over
 * W's element count.
 *
 * fp8 and the scaled fp8 modes (fp8e5m2, fp8row, fp8blk; f32 cases): cuBLASLt has no sigmoid
 * epilogue, and its bias epilogue would broadcast along the wrong axis (above), so the product
 * Z is gemm.cublas's own fp8 product (kernels/fp8_product.h: the same quantisation, scales and
 * cublasLtMatmul call, f32 output; gemm's workspace of the mode before Z), then the same f32
 * epilogue. Planted bugs dense.sigmoid.fp8noscale, .fp8rowtensor, .fp8e5m2b and .fp8blkrow run
 * abi/gemm.h's planted recipes under the scaled labels.
 *
 * The sigmoid is kernels/mathfn.cuh's gk_sigmoid (native: expf or exp and IEEE division;
 * fastmath: __expf and __fdividef), the very function the mathfn family judges alone against
 * its ulp bound (math.sigmoid). */
#include "fp8_product.h"
#include "gk_cuda.h"
#include "half_ops.cuh"
#include "mathfn.cuh"

/* Y(i, j) = sigmoid(Z(i, j) + b(i)). Block x runs along a row (coalesced reads of Z and
 * writes of Y); block y picks the row, so the bias is one load per row. Grid-stride on both
 * axes: any m and n fit the capped grid. */
template <typename T, bool Fast, bool ColumnBias>
__global__ void dense_epilogue_kernel(const T *__restrict__ z, const T *__restrict__ b,
                                      T *__restrict__ y, int64_t m, int64_t n)
{
    int64_t stride_j = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.y; i < m; i += gridDim.y) {
        T bias_row = b[i];
        const T *zrow = z + i * n;
        T *yrow = y + i * n;
        for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride_j) {
            T bias = ColumnBias ? b[j % m] : bias_row; /* ColumnBias: the planted bug */
            T v = zrow[j] + bias;
            yrow[j] = gk_sigmoid < T, Fast ? GK_MATH_FAST : GK_MATH_NATIVE > (v);
        }
    }
}

template <typename T> static int dense_product(gk_launch *L, cublasHandle_t h, T *z)
{
    return gk_gemm_rowmajor<T>(h, L->dims[0], L->dims[1], L->dims[2], (const T *)L->in[0],
                               (const T *)L->in[1], z);
}

/* Z (m x n) of L's mode: a 16-bit mode's rounded operands (their copies before Z), an fp8
   mode's product by gemm.cublas's fp8 path (its workspace before Z), else the dtype's product;
   HalfCount: the planted conversion of X over W's count. */
template <typename T, bool HalfCount> static int dense_z(gk_launch *L, cublasHandle_t h, T **z)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    int64_t half = gk_half_operands_bytes(L->mode, m, k, n, 2);
    int64_t fp8 = gk_fp8_product_bytes(L->mode, m, k, n);
    if (!L->workspace || L->workspace_bytes < half + fp8 + m * n * (int64_t)sizeof(T))
        return gk_fail_internal("dense: workspace smaller than the layout promised");
    *z = (T *)((char *)L->workspace + half + fp8);
    if (fp8) return gk_fp8_product(L, (float *)*z);
    if (half)
        return gk_half_gemm(L, h, (const float *)L->in[0], (const float *)L->in[1],
                            HalfCount ? m * k : k * n, (float *)*z);
    return dense_product<T>(L, h, *z);
}

template <typename T, bool Fast, bool ColumnBias, bool HalfCount = false>
static int dense_sigmoid_t(gk_launch *L)
{
    int64_t m = L->dims[0], n = L->dims[2]; /* workspace: m*n of T (the op's layout) */
    cublasHandle_t h;
    int rc = gk_cublas(L, &h);
    if (rc) return rc;
    if (Fast) snprintf(L->math_mode, sizeof L->math_mode, "CUBLAS_PEDANTIC_MATH+__expf,__fdividef");
    T *z = NULL;
    rc = dense_z<T, HalfCount>(L, h, &z);
    if (rc) return rc;
    const int threads = 256;
    unsigned bx = gk_blocks(n, threads, 1024);
    unsigned by = (unsigned)(m < 65535 ? m : 65535);
    dim3 grid(bx, by);
    dense_epilogue_kernel<T, Fast, ColumnBias>
        <<<grid, threads, 0, gk_stream(L)>>>(z, (const T *)L->in[2], (T *)L->out[0], m, n);
    GK_LAUNCHED("dense_epilogue_kernel");
    return GV_OK;
}

template <bool ColumnBias, bool HalfCount = false> static int dense_sigmoid(gk_launch *L)
{
    if (gk_fp8_mode(L->mode)) {
        if (L->dtype != GV_F32) return gk_fail_unsupported("the fp8 modes take f32 cases");
        return dense_sigmoid_t<float, false, ColumnBias>(L);
    }
    if (gk_half_mode(L->mode)) {
        if (L->dtype != GV_F32) return gk_fail_unsupported("16-bit modes take f32 cases");
        return dense_sigmoid_t<float, false, ColumnBias, HalfCount>(L);
    }
    if (L->mode == GV_MODE_FASTMATH) {
        if (L->dtype != GV_F32)
            return gk_fail_unsupported("fastmath intrinsics (__expf, __fdividef) are f32 only");
        return dense_sigmoid_t<float, true, ColumnBias>(L);
    }
    if (L->mode == GV_MODE_TF32 && L->dtype != GV_F32)
        return gk_fail_unsupported("tf32 applies to f32 storage only");
    return gk_by_dtype(L->dtype,
                       [&](auto x) { return dense_sigmoid_t<decltype(x), false, ColumnBias>(L); });
}

/* the fp8 modes' plan (gemm.cu's, by abi/gemm.h's recipe Plant under the label) */
template <int Plant> static int dense_fp8_setup(gk_launch *L)
{
    if (!gk_fp8_mode(L->mode)) return GV_OK;
    if (L->dtype != GV_F32) return gk_fail_unsupported("the fp8 modes take f32 cases");
    return gk_fp8_product_setup(L, Plant);
}

static void dense_fp8_teardown(gk_launch *L)
{
    if (gk_fp8_mode(L->mode)) gk_fp8_product_teardown(L);
}

extern "C" const gk_op gk_dense_sigmoid = {dense_fp8_setup<GK_FP8_HONEST>, dense_sigmoid<false>,
                                           dense_fp8_teardown};
extern "C" const gk_op gk_dense_sigmoid_fp8noscale = {dense_fp8_setup<GK_FP8_NOSCALE>,
                                                      dense_sigmoid<false>, dense_fp8_teardown};
extern "C" const gk_op gk_dense_sigmoid_fp8rowtensor = {dense_fp8_setup<GK_FP8_ROWTENSOR>,
                                                        dense_sigmoid<false>, dense_fp8_teardown};
extern "C" const gk_op gk_dense_sigmoid_fp8e5m2b = {dense_fp8_setup<GK_FP8_E5M2B>,
                                                    dense_sigmoid<false>, dense_fp8_teardown};
extern "C" const gk_op gk_dense_sigmoid_fp8blkrow = {dense_fp8_setup<GK_FP8_BLKROW>,
                                                     dense_sigmoid<false>, dense_fp8_teardown};
extern "C" const gk_op gk_dense_sigmoid_rowbias = {NULL, dense_sigmoid<true>, NULL};
extern "C" const gk_op gk_dense_sigmoid_halfcount = {NULL, dense_sigmoid<false, true>, NULL};

/* planted bug dense.sigmoid.tf32native: the product secretly in TF32 (gk_secretly_tf32) */
static int dense_sigmoid_tf32native(gk_launch *L)
{
    return gk_secretly_tf32(dense_sigmoid<false>, L);
}
extern "C" const gk_op gk_dense_sigmoid_tf32native = {NULL, dense_sigmoid_tf32native, NULL};

/* planted bug dense.sigmoid.naive: the textbook exp(z) / (1 + exp(z)), whose exp overflows to
   +Inf for z above about 88.7 (f32) or 709.8 (f64) where the sigmoid is 1: Inf / Inf is NaN.
   Right on ordinary inputs; huge ones (docs/error-models.md, "The edges") show it. */
template <typename T>
__global__ void dense_naive_epilogue_kernel(const T *__restrict__ z, const T *__restrict__ b,
                                            T *__restrict__ y, int64_t m, int64_t n)
{
    int64_t stride_j = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = blockIdx.y; i < m; i += gridDim.y)
        for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride_j) {
            T e = exp(z[i * n + j] + b[i]);
            y[i * n + j] = e / (T(1) + e);
        }
}

template <typename T> static int dense_sigmoid_naive_t(gk_launch *L)
{
    int64_t m = L->dims[0], n = L->dims[2];
    cublasHandle_t h;
    int rc = gk_cublas(L, &h);
    if (rc) return rc;
    if (!L->workspace || L->workspace_bytes < m * n * (int64_t)sizeof(T))
        return gk_fail_internal("dense: workspace smaller than the layout promised");
    T *z = (T *)L->workspace;
    rc = dense_product<T>(L, h, z);
    if (rc) return rc;
    dim3 grid(gk_blocks(n, 256, 1024), (unsigned)(m < 65535 ? m : 65535));
    dense_naive_epilogue_kernel<T>
        <<<grid, 256, 0, gk_stream(L)>>>(z, (const T *)L->in[2], (T *)L->out[0], m, n);
    GK_LAUNCHED("dense_naive_epilogue_kernel");
    return GV_OK;
}

static int dense_sigmoid_naive(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return dense_sigmoid_naive_t<decltype(x)>(L); });
}
extern "C" const gk_op gk_dense_sigmoid_naive = {NULL, dense_sigmoid_naive, NULL};
