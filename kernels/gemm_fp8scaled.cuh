/* gemm_fp8scaled.cuh: gemm.cublas's scaled fp8 modes (fp8e5m2, fp8row, fp8blk) and their
 * planted variants, included by gemm.cu (its ws_part, GK_LT, fp8_plan and fp8_run). Each
 * operand is quantised by abi/gemm.h's recipe: amax per group (one per tensor, per row of A
 * and column of B, or per 1 x 128 block of A and 128 x 128 block of B), s = target / amax in
 * f32, x s rounded to e4m3 or e5m2 (nearest even, saturating); cuBLASLt gets the descales
 * 1 / s in the layout abi/gemm.h states, through CUBLASLT_MATMUL_DESC_{A,B}_SCALE_MODE.
 * src/ops/gemm_fp8.c quantises the reference the same way. */

/* The amax of each of an operand's groups (rows x cols, row-major; operand 0: A, m x k; 1: B,
   k x n) into amax_bits (f32 bits, zeroed before; a non-negative float's bits order as its
   value, a NaN's above Inf's). The lanes of a warp that share a group reduce first (one
   atomic a group a warp), so a per-tensor amax is not one atomic an element. */
__global__ void fp8s_amax_kernel(const float *__restrict__ x, int64_t rows, int64_t cols,
                                 int operand, gk_fp8_recipe r, int64_t m, int64_t k,
                                 unsigned *amax_bits)
{
    int64_t total = rows * cols, stride = (int64_t)gridDim.x * blockDim.x;
    /* every lane of a block runs the same iterations: the warp's collectives see all 32 */
    for (int64_t base = (int64_t)blockIdx.x * blockDim.x; base < total; base += stride) {
        int64_t i = base + threadIdx.x;
        bool valid = i < total;
        unsigned long long g =
            valid ? (unsigned long long)gk_fp8_amax_index(&r, operand, i / cols, i % cols, m, k)
                  : ~0ull;
        unsigned bits = valid ? __float_as_uint(fabsf(x[i])) : 0u;
#if __CUDA_ARCH__ >= 800
        unsigned same = __match_any_sync(0xffffffffu, g);
        unsigned most = __reduce_max_sync(same, bits);
        if (valid && (threadIdx.x & 31) == (unsigned)(__ffs(same) - 1))
            atomicMax(amax_bits + g, most);
#else
        if (valid) atomicMax(amax_bits + g, bits);
#endif
    }
}

__device__ static float fp8s_scale(unsigned amax_bits, float target, int unit)
{
    float amax = __uint_as_float(amax_bits);
    return !unit && amax > 0.0f && amax <= 3.402823466e38f ? target / amax : 1.0f;
}

/* descale[g] = 1 / s for each of the operand's scale groups (padding included: its amax is
   0, its descale 1) */
__global__ void fp8s_descale_kernel(const unsigned *amax_bits, int64_t count, int per_tensor,
                                    float target, int unit, float *descale)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; g < count; g += stride)
        descale[g] = 1.0f / fp8s_scale(amax_bits[per_tensor ? 0 : g], target, unit);
}

__device__ static __nv_fp8_storage_t fp8s_cvt(float x, float s, int e5m2, int e5m2_first = 0)
{
    float v = x * s;
    if (e5m2_first) { /* the planted e5m2 rounding, back to float exactly (3 bits fit a half) */
        __half_raw h = __nv_cvt_fp8_to_halfraw(__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2),
                                               __NV_E5M2);
        v = __half2float(__half(h));
    }
    return __nv_cvt_float_to_fp8(v, __NV_SATFINITE, e5m2 ? __NV_E5M2 : __NV_E4M3);
}

/* A (m x k) quantised in place of its layout: a8[i k + l] */
__global__ void fp8s_quant_a_kernel(const float *__restrict__ x, __nv_fp8_storage_t *__restrict__ y,
                                    int64_t m, int64_t k, gk_fp8_recipe r, const unsigned *amax)
{
    float target = r.e5m2_a ? 57344.0f : 448.0f;
    int64_t total = m * k, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        float s =
            fp8s_scale(amax[gk_fp8_amax_index(&r, 0, i / k, i % k, m, k)], target, r.unit_scales);
        y[i] = fp8s_cvt(x[i], s, r.e5m2_a);
    }
}

/* B (k x n) quantised and transposed into bt (n x k), each element with its own scale,
   through gemm.cu's tiles (quant_transpose_tiles) */
__global__ void fp8s_quant_bt_kernel(const float *__restrict__ x,
                                     __nv_fp8_storage_t *__restrict__ bt, int64_t k, int64_t n,
                                     gk_fp8_recipe r, const unsigned *amax)
{
    float target = r.e5m2_b ? 57344.0f : 448.0f;
    quant_transpose_tiles(x, bt, k, n, [&](float v, int64_t l, int64_t j) {
        float s = fp8s_scale(amax[gk_fp8_amax_index(&r, 1, l, j, 0, k)], target, r.unit_scales);
        return fp8s_cvt(v, s, r.e5m2_b, r.e5m2_round_b);
    });
}

/* The scales part's four arrays (abi/gemm.h: gk_fp8_scales_bytes) */
static void *fp8s_scales(gk_launch *L, int which)
{
    int64_t off[4];
    char *part = ws_part(L, 2);
    gk_fp8_scales_bytes(L->dims[0], L->dims[1], L->dims[2], off);
    return part ? part + off[which] : NULL;
}

static cublasLtMatmulMatrixScale_t fp8s_lt_mode(int g, int operand)
{
    if (g == GK_FP8_OUTER) return CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F;
    if (g == GK_FP8_BLOCK)
        return operand ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F
                       : CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    return CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
}

static int fp8s_setup(gk_launch *L, int plant)
{
    if (L->dtype != GV_F32) return gk_fail_unsupported("the scaled fp8 modes take f32 cases");
    if (!ws_part(L, 3)) return gk_fail_internal("gemm: workspace smaller than abi/gemm.h's layout");
    fp8_plan *p = (fp8_plan *)calloc(1, sizeof *p);
    if (!p) return GV_ENOMEM;
    gk_fp8_recipe_of(L->mode, plant, &p->recipe);
    p->scaled = true;
    fp8_types t = {p->recipe.e5m2_b ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3,
                   p->recipe.e5m2_a ? CUDA_R_8F_E5M2 : CUDA_R_8F_E4M3,
                   fp8s_lt_mode(p->recipe.group_b, 1),
                   fp8s_lt_mode(p->recipe.group_a, 0),
                   (const float *)fp8s_scales(L, 3),
                   (const float *)fp8s_scales(L, 2),
                   true};
    int rc = fp8_plan_make_as(L, p, false, &t);
    if (rc != GV_OK) {
        fp8_plan_free(p);
        return rc;
    }
    L->state = p;
    return GV_OK;
}

static int fp8s_gemm(gk_launch *L, float *c)
{
    fp8_plan *p = (fp8_plan *)L->state;
    if (!p || !p->scaled) return gk_fail_internal("gemm scaled fp8: launch without its setup");
    const gk_fp8_recipe r = p->recipe;
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    __nv_fp8_storage_t *a8 = (__nv_fp8_storage_t *)ws_part(L, 0);
    __nv_fp8_storage_t *b8t = (__nv_fp8_storage_t *)ws_part(L, 1);
    unsigned *amax_a = (unsigned *)fp8s_scales(L, 0), *amax_b = (unsigned *)fp8s_scales(L, 1);
    float *descale_a = (float *)fp8s_scales(L, 2), *descale_b = (float *)fp8s_scales(L, 3);
    cudaStream_t s = gk_stream(L);
    const float *A = (const float *)L->in[0], *B = (const float *)L->in[1];
    int64_t na = gk_fp8_scale_count(r.group_a, 0, m, k, n),
            nb = gk_fp8_scale_count(r.group_b, 1, m, k, n);
    int64_t off[4];
    gk_fp8_scales_bytes(m, k, n, off);
    GK_CUDA(cudaMemsetAsync(amax_a, 0, (size_t)(off[2] - off[0]), s)); /* both amax arrays */
    fp8s_amax_kernel<<<gk_blocks(m * k, 256, 4096), 256, 0, s>>>(A, m, k, 0, r, m, k, amax_a);
    fp8s_amax_kernel<<<gk_blocks(k * n, 256, 4096), 256, 0, s>>>(B, k, n, 1, r, m, k, amax_b);
    GK_LAUNCHED("fp8s_amax_kernel");
    fp8s_descale_kernel<<<gk_blocks(na, 256), 256, 0, s>>>(amax_a, na, r.amax_a == GK_FP8_TENSOR,
                                                           r.e5m2_a ? 57344.0f : 448.0f,
                                                           r.unit_scales, descale_a);
    fp8s_descale_kernel<<<gk_blocks(nb, 256), 256, 0, s>>>(amax_b, nb, r.amax_b == GK_FP8_TENSOR,
                                                           r.e5m2_b ? 57344.0f : 448.0f,
                                                           r.unit_scales, descale_b);
    GK_LAUNCHED("fp8s_descale_kernel");
    fp8s_quant_a_kernel<<<gk_blocks(m * k, 256), 256, 0, s>>>(A, a8, m, k, r, amax_a);
    GK_LAUNCHED("fp8s_quant_a_kernel");
    dim3 block(32, 8);
    dim3 grid((unsigned)gk_blocks(n, 32, 65535), (unsigned)gk_blocks(k, 32, 65535));
    fp8s_quant_bt_kernel<<<grid, block, 0, s>>>(B, b8t, k, n, r, amax_b);
    GK_LAUNCHED("fp8s_quant_bt_kernel");
    /* the label's name, whatever a plant runs under it */
    const char *what = L->mode == GV_MODE_FP8E5M2  ? "e4m3 x e5m2, per-tensor scales"
                       : L->mode == GV_MODE_FP8ROW ? "e4m3, OUTER_VEC_32F scales"
                                                   : "e4m3, VEC128_32F x BLK128x128_32F scales";
    return fp8_run(L, p, b8t, a8, c, what);
}
