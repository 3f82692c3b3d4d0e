/* gemm.cu: C(m x n) = A(m x k) B(k x n), row-major.
 *  - gemm.cublas: cublasSgemm/Dgemm with the mode's math mode set on the handle. cuBLAS is
 *    column-major, so the row-major product is the column-major C^T = B^T A^T: B first.
 *    Reduced-precision modes on f32 cases (workspace layout: abi/gemm.h):
 *      f16 / bf16  A and B rounded to 16 bits, cublasGemmEx with COMPUTE_32F, C in f32;
 *      f16acc      the same with COMPUTE_16F: f16 accumulation and an f16 C, widened to f32;
 *      fp8         per-tensor scaling as in the usual recipe: s = 448 / amax(|X|) for X = A
 *                  and B, X s rounded to e4m3 (nearest, saturating), and cublasLtMatmul with
 *                  the descale 1 / s of each operand as its scale pointer, f32 accumulation
 *                  and f32 C. cuBLASLt's fp8 kernels want the first operand transposed and
 *                  the second not ("TN"), so B is stored transposed. A device below compute
 *                  capability 8.9, or a shape cuBLASLt's heuristic has no kernel for, is a
 *                  SKIP that says so.
 *    Operands placed as a user may pass them (abi/layout.h: gemm.cublas.strided and
 *    .transposed) go to cuBLAS through its own arguments: a leading dimension as lda, ldb, ldc,
 *    an operand stored transposed as CUBLAS_OP_T (gemm_placed). The 16-bit and fp8 modes
 *    convert dense copies of A and B and take dense operands only.
 *  - gemm.tiled: the seeds' shared-memory tiled matmul in CUDA C. 32 x 32 tiles of A and B
 *    in shared memory; a 32 x 8 thread block, each thread accumulating 4 rows of its
 *    column; partial tiles (m, n or k not multiples of 32) are zero-filled on load.
 *  - planted bug gemm.cublas.tf32native: the native f32 call runs TF32 tensor-op math under a
 *    pedantic label (gk_secretly_tf32).
 *  - planted bugs of modes not in effect, each under its label: gemm.cublas.tf32off (the tf32
 *    mode runs pedantic f32), gemm.cublas.emunative (the f64 emulations run pedantic DGEMM),
 *    gemm.cublas.fp8fast (fp8 with cuBLASLt's fast accumulation, where the mode claims partial
 *    sums promoted to f32). The mode probes (src/ops/gemm.c) must FAIL each.
 *    It takes leading dimensions (lda, ldb, ldc) and any offset of its dtype.
 *  - planted bug gemm.tiled.ignoreld: the tiled kernel indexes A by its row length k where
 *    lda belongs: right on dense operands, wrong on gemm.cublas.strided's padded ones.
 *  - planted bug gemm.tiled.droptail: the K loop stops at the last full tile, dropping the
 *    partial tile (wrong whenever k % 32 != 0).
 *  - planted bug gemm.tiled.ulp: the tiled kernel's sums stored one ulp up (nextafter toward
 *    +inf): a bias only the bias rule sees (docs/error-models.md, "Bias"). */
#include <cassert>
#include <cstdlib>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "../abi/gemm.h"
#include "gemm_regblock.cuh"
#include "fp8_product.h"
#include "gk_cuda.h"

/* f16 / bf16 storage modes: the f32 inputs rounded (to nearest) into the workspace; Rz: toward
   zero, the planted gemm.cublas.rzconv (a conversion that truncates under a label that rounds) */
__device__ __forceinline__ __half to_half_rz(float x, __half *)
{
    return __float2half_rz(x);
}
__device__ __forceinline__ __nv_bfloat16 to_half_rz(float x, __nv_bfloat16 *)
{
    return __float2bfloat16_rz(x);
}
template <typename H, bool Rz = false>
__global__ void to_half_kernel(const float *__restrict__ x, H *__restrict__ y, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = Rz ? to_half_rz(x[i], (H *)nullptr) : H(x[i]);
}

__global__ void half_to_float_kernel(const __half *__restrict__ x, float *__restrict__ y, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = __half2float(x[i]);
}

/* The workspace part `part` of L's mode (abi/gemm.h), or NULL when the workspace the layout
   gave is smaller than the contract says. */
static char *ws_part(gk_launch *L, int part)
{
    int64_t off[GK_GEMM_MAX_PARTS];
    int64_t need = gk_gemm_workspace_bytes(L->mode, L->dims[0], L->dims[1], L->dims[2], off);
    if (!L->workspace || need > L->workspace_bytes) return NULL;
    return (char *)L->workspace + off[part];
}

/* Row-major C = A B with A and B stored in a 16-bit type H; f32 accumulation, or with
   acc16 (f16 only) f16 accumulation into an f16 C that is widened to f32 afterwards. */
template <typename H, bool Rz = false>
static int half_gemm(gk_launch *L, cublasHandle_t h, cudaDataType ht, bool acc16)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    H *a16 = (H *)ws_part(L, 0), *b16 = (H *)ws_part(L, 1);
    if (!a16 || !b16) return gk_fail_internal("gemm: workspace smaller than abi/gemm.h's layout");
    to_half_kernel<H, Rz>
        <<<gk_blocks(m * k, 256), 256, 0, gk_stream(L)>>>((const float *)L->in[0], a16, m * k);
    to_half_kernel<H, Rz>
        <<<gk_blocks(k * n, 256), 256, 0, gk_stream(L)>>>((const float *)L->in[1], b16, k * n);
    GK_LAUNCHED("to_half_kernel");
    if (acc16) {
        __half *c16 = (__half *)ws_part(L, 2);
        const __half one = __float2half(1.0f), zero = __float2half(0.0f);
        GK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b16, ht,
                               (int)n, a16, ht, (int)k, &zero, c16, CUDA_R_16F, (int)n,
                               CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT));
        half_to_float_kernel<<<gk_blocks(m * n, 256), 256, 0, gk_stream(L)>>>(
            c16, (float *)L->out[0], m * n);
        GK_LAUNCHED("half_to_float_kernel");
        snprintf(L->math_mode, sizeof L->math_mode, "cublasGemmEx f16 in, COMPUTE_16F");
        return GV_OK;
    }
    const float one = 1.0f, zero = 0.0f;
    GK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b16, ht,
                           (int)n, a16, ht, (int)k, &zero, L->out[0], CUDA_R_32F, (int)n,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    snprintf(L->math_mode, sizeof L->math_mode, "cublasGemmEx %s in, COMPUTE_32F",
             ht == CUDA_R_16F ? "f16" : "bf16");
    return GV_OK;
}

/* ---- fp8 (e4m3) through cuBLASLt ---------------------------------------------------------- */

#define E4M3_MAX 448.0f

/* amax |x| into *amax_bits (f32 bits; for non-negative floats the bit order is the value
   order, so an integer atomicMax is a float max; a NaN's bits exceed Inf's). */
__global__ void amax_kernel(const float *__restrict__ x, int64_t n, unsigned *amax_bits)
{
    float v = 0.0f;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float a = fabsf(x[i]);
        v = (a > v || a != a) ? a : v;
    }
    for (int o = 16; o > 0; o /= 2) {
        float w = __shfl_down_sync(0xffffffffu, v, o);
        v = (w > v || w != w) ? w : v;
    }
    if ((threadIdx.x & 31) == 0) atomicMax(amax_bits, __float_as_uint(v));
}

/* The scale s = 448 / amax; 1 where amax is 0, Inf or NaN (nothing to scale by). */
__device__ static float fp8_scale(unsigned amax_bits)
{
    float amax = __uint_as_float(amax_bits);
    return (amax > 0.0f && amax <= 3.402823466e38f) ? E4M3_MAX / amax : 1.0f;
}

__device__ static __nv_fp8_storage_t to_e4m3(float x, float s)
{
    return __nv_cvt_float_to_fp8(x * s, __NV_SATFINITE, __NV_E4M3);
}

/* y = e4m3(x s); the first thread also stores the descale 1 / s for cuBLASLt. */
__global__ void quant_kernel(const float *__restrict__ x, __nv_fp8_storage_t *__restrict__ y,
                             int64_t n, const unsigned *amax_bits, float *descale)
{
    float s = fp8_scale(*amax_bits);
    if (blockIdx.x == 0 && threadIdx.x == 0) *descale = 1.0f / s;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = to_e4m3(x[i], s);
}

/* yt (cols x rows, row-major) = q(x)^T for x (rows x cols, row-major), through 32 x 32 tiles
   in shared memory; blocks of 32 x 8 threads stride over the tiles. q(v, row, col) rounds
   x[row][col] = v to fp8 with its scale; it is called for the elements in range alone. */
template <typename Q>
__device__ __forceinline__ void quant_transpose_tiles(const float *__restrict__ x,
                                                      __nv_fp8_storage_t *__restrict__ yt,
                                                      int64_t rows, int64_t cols, Q q)
{
    __shared__ float tile[32][33];
    int64_t row_tiles = (rows + 31) / 32, col_tiles = (cols + 31) / 32;
    for (int64_t ty = blockIdx.y; ty < row_tiles; ty += gridDim.y)
        for (int64_t tx = blockIdx.x; tx < col_tiles; tx += gridDim.x) {
            int64_t c = tx * 32 + threadIdx.x;
            for (int r = threadIdx.y; r < 32; r += 8) {
                int64_t row = ty * 32 + r;
                tile[r][threadIdx.x] = (row < rows && c < cols) ? x[row * cols + c] : 0.0f;
            }
            __syncthreads();
            int64_t row = ty * 32 + threadIdx.x;
            for (int r = threadIdx.y; r < 32; r += 8) {
                int64_t col = tx * 32 + r;
                if (row < rows && col < cols)
                    yt[col * rows + row] = q(tile[threadIdx.x][r], row, col);
            }
            __syncthreads();
        }
}

/* yt = e4m3(x s)^T, one scale s for the tensor; the first thread also stores the descale
   1 / s for cuBLASLt. */
__global__ void quant_transpose_kernel(const float *__restrict__ x,
                                       __nv_fp8_storage_t *__restrict__ yt, int64_t rows,
                                       int64_t cols, const unsigned *amax_bits, float *descale)
{
    float s = fp8_scale(*amax_bits);
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
        *descale = 1.0f / s;
    quant_transpose_tiles(x, yt, rows, cols,
                          [s](float v, int64_t, int64_t) { return to_e4m3(v, s); });
}

/* The scales part of the workspace: the two amax words at its start, then A's and B's descale
   at bytes 256 and 512, as aligned as a cudaMalloc'd pointer. cuBLASLt declines a misaligned
   scale pointer with CUBLAS_STATUS_NOT_SUPPORTED at cublasLtMatmul although its heuristic
   offers algorithms (seen on an H100, cuBLAS 13.1: descales at bytes 8 and 12 of an
   allocation were declined, at 0 and 256 they ran). */
static float *fp8_descale(gk_launch *L, int operand)
{
    char *part = ws_part(L, 2);
    return part ? (float *)(part + 256 * (operand + 1)) : NULL;
}

#define GK_LT(call)                                                                                \
    do {                                                                                           \
        cublasStatus_t gk_s_ = (call);                                                             \
        if (gk_s_ != CUBLAS_STATUS_SUCCESS)                                                        \
            return gk_fail_lib("cuBLASLt", (int)gk_s_, gk_cublas_status_name(gk_s_), #call);       \
    } while (0)

/* The process's cuBLASLt handle (the device layer's, as gk_cublas's handle is). */
static cublasLtHandle_t g_lt;

/* What setup chooses once, so that a timed launch only quantises and multiplies. */
enum { FP8_MAX_ALGOS = 8 };
typedef struct fp8_plan {
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulAlgo_t algo[FP8_MAX_ALGOS];
    int n_algo;
    /* the heuristic's candidate that ran (first launch tries them in order), -1 before, and
       FP8_LIB_CHOICE when only cublasLtMatmul's own choice (algo NULL) ran */
    int chosen;
    bool scaled;          /* a scaled mode's plan (gemm_fp8scaled.cuh), by its recipe */
    gk_fp8_recipe recipe; /* abi/gemm.h */
} fp8_plan;

/* What a plan tells cuBLASLt about its operands: X (cuBLASLt's A = our B^T) and Y (its B =
   our A^T), their fp8 types, their scale modes (set only where set_modes: the fp8 mode leaves
   the library's default, one scalar) and their descale pointers. */
typedef struct fp8_types {
    cudaDataType x_type, y_type;
    cublasLtMatmulMatrixScale_t x_mode, y_mode;
    const float *sx, *sy;
    bool set_modes;
} fp8_types;
#define FP8_LIB_CHOICE FP8_MAX_ALGOS

static void fp8_plan_free(fp8_plan *p)
{
    if (!p) return;
    if (p->op) cublasLtMatmulDescDestroy(p->op);
    if (p->a) cublasLtMatrixLayoutDestroy(p->a);
    if (p->b) cublasLtMatrixLayoutDestroy(p->b);
    if (p->c) cublasLtMatrixLayoutDestroy(p->c);
    free(p);
}

/* Column-major, cuBLASLt's view: D (n x m, ld n) = op(X) op(Y) with X = B^T stored k x n
   (ld k: our transposed e4m3 copy of B) under CUBLAS_OP_T and Y = A^T stored k x m (ld k: the
   row-major A as it is) under CUBLAS_OP_N. X's scale is B's descale, Y's is A's. */
static int fp8_plan_make_as(gk_launch *L, fp8_plan *p, bool fast_accum, const fp8_types *t)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    if (!g_lt) GK_LT(cublasLtCreate(&g_lt));
    GK_LT(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const float *sx = t->sx, *sy = t->sy;
    if (t->set_modes) {
        GK_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &t->x_mode,
                                             sizeof t->x_mode));
        GK_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &t->y_mode,
                                             sizeof t->y_mode));
    }
    GK_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    GK_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    GK_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sx,
                                         sizeof sx));
    GK_LT(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sy,
                                         sizeof sy));
    /* the mode claims the library's default, fast accumulation off (partial sums promoted to
       f32); only the planted gemm.cublas.fp8fast turns it on under that label */
    int8_t fast = fast_accum ? 1 : 0;
    GK_LT(
        cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    GK_LT(cublasLtMatrixLayoutCreate(&p->a, t->x_type, (uint64_t)k, (uint64_t)n, k));
    GK_LT(cublasLtMatrixLayoutCreate(&p->b, t->y_type, (uint64_t)k, (uint64_t)m, k));
    GK_LT(cublasLtMatrixLayoutCreate(&p->c, CUDA_R_32F, (uint64_t)n, (uint64_t)m, n));
    cublasLtMatmulPreference_t pref;
    GK_LT(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t ws = (uint64_t)GK_GEMM_FP8_LT_BYTES;
    cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasLtMatmulHeuristicResult_t found[FP8_MAX_ALGOS];
    int n_found = 0;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(g_lt, p->op, p->a, p->b, p->c, p->c, pref,
                                            FP8_MAX_ALGOS, found, &n_found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS || n_found < 1) {
        char why[160];
        snprintf(why, sizeof why,
                 "%s: cuBLASLt has no kernel for m x k x n = %lld x %lld x %lld (%s)",
                 gv_mode_get(L->mode)->name, (long long)m, (long long)k, (long long)n,
                 st != CUBLAS_STATUS_SUCCESS ? gk_cublas_status_name(st) : "no algorithm found");
        return gk_fail_unsupported(why);
    }
    for (int i = 0; i < n_found; i++)
        if (found[i].state == CUBLAS_STATUS_SUCCESS) p->algo[p->n_algo++] = found[i].algo;
    p->chosen = -1;
    return GV_OK;
}

static int fp8_plan_make(gk_launch *L, fp8_plan *p, bool fast_accum)
{
    fp8_types t = {CUDA_R_8F_E4M3,
                   CUDA_R_8F_E4M3,
                   CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F,
                   CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F,
                   fp8_descale(L, 1),
                   fp8_descale(L, 0),
                   false};
    return fp8_plan_make_as(L, p, fast_accum, &t);
}

static int fp8_setup_as(gk_launch *L, bool fast_accum)
{
    if (L->dtype != GV_F32) return gk_fail_unsupported("fp8 takes f32 cases");
    /* compute capability 8.9 or later: gk_mode_check, before any setup */
    if (!ws_part(L, 0)) return gk_fail_internal("gemm: workspace smaller than abi/gemm.h's layout");
    fp8_plan *p = (fp8_plan *)calloc(1, sizeof *p);
    if (!p) return GV_ENOMEM;
    int rc = fp8_plan_make(L, p, fast_accum);
    if (rc != GV_OK) {
        fp8_plan_free(p);
        return rc;
    }
    L->state = p;
    return GV_OK;
}

static int fp8_setup(gk_launch *L)
{
    return fp8_setup_as(L, false);
}

static int fp8_run(gk_launch *L, fp8_plan *p, const void *b8t, const void *a8, float *c,
                   const char *what);

/* C (m x n, f32, dense) = A B in the fp8 mode by L's plan */
static int fp8_gemm(gk_launch *L, float *c)
{
    fp8_plan *p = (fp8_plan *)L->state;
    if (!p) return gk_fail_internal("gemm fp8: launch without its setup");
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    __nv_fp8_storage_t *a8 = (__nv_fp8_storage_t *)ws_part(L, 0);
    __nv_fp8_storage_t *b8t = (__nv_fp8_storage_t *)ws_part(L, 1);
    unsigned *amax = (unsigned *)ws_part(L, 2); /* [0] A's, [1] B's */
    float *descale_a = fp8_descale(L, 0), *descale_b = fp8_descale(L, 1);
    cudaStream_t s = gk_stream(L);
    const float *A = (const float *)L->in[0], *B = (const float *)L->in[1];
    GK_CUDA(cudaMemsetAsync(amax, 0, 2 * sizeof *amax, s));
    amax_kernel<<<gk_blocks(m * k, 256, 4096), 256, 0, s>>>(A, m * k, amax);
    amax_kernel<<<gk_blocks(k * n, 256, 4096), 256, 0, s>>>(B, k * n, amax + 1);
    GK_LAUNCHED("amax_kernel");
    quant_kernel<<<gk_blocks(m * k, 256), 256, 0, s>>>(A, a8, m * k, amax, descale_a);
    GK_LAUNCHED("quant_kernel");
    dim3 block(32, 8);
    dim3 grid((unsigned)gk_blocks(n, 32, 65535), (unsigned)gk_blocks(k, 32, 65535));
    quant_transpose_kernel<<<grid, block, 0, s>>>(B, b8t, k, n, amax + 1, descale_b);
    GK_LAUNCHED("quant_transpose_kernel");
    return fp8_run(L, p, b8t, a8, c, "e4m3 scaled");
}

/* cublasLtMatmul on the quantised operands (b8t: B^T, n x k; a8: A, m x k) by plan p into c
   (m x n, f32, dense); what names the arithmetic in math_mode and in a SKIP's reason. */
static int fp8_run(gk_launch *L, fp8_plan *p, const void *b8t, const void *a8, float *c,
                   const char *what)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    void *lt_ws = ws_part(L, 3);
    cudaStream_t s = gk_stream(L);
    const float one = 1.0f, zero = 0.0f;
    /* The heuristic's candidates in order until one runs, then cublasLtMatmul's own choice
       (algo NULL); the one that ran is kept for every later launch of the case. A candidate
       declined with NOT_SUPPORTED is passed over; any other status is an error. */
    int first = p->chosen >= 0 ? p->chosen : 0, last = p->chosen >= 0 ? p->chosen : p->n_algo;
    cublasStatus_t st = CUBLAS_STATUS_NOT_SUPPORTED;
    int declined = 0;
    for (int i = first; i <= last; i++) {
        const cublasLtMatmulAlgo_t *algo = i < p->n_algo ? &p->algo[i] : NULL;
        st = cublasLtMatmul(g_lt, p->op, &one, b8t, p->a, a8, p->b, &zero, c, p->c, c, p->c, algo,
                            lt_ws, (size_t)GK_GEMM_FP8_LT_BYTES, s);
        if (st != CUBLAS_STATUS_NOT_SUPPORTED) {
            if (st == CUBLAS_STATUS_SUCCESS) p->chosen = i;
            break;
        }
        declined++;
    }
    if (st == CUBLAS_STATUS_NOT_SUPPORTED) {
        /* the library declines every candidate for this descriptor (e4m3 A and B, "TN",
           f32 C and D, device scale pointers): the mode is a SKIP that says so */
        char why[240];
        snprintf(why, sizeof why,
                 "%s: cublasLtMatmul returned CUBLAS_STATUS_NOT_SUPPORTED for all %d candidates "
                 "(%d from the heuristic, then its own choice) for %s TN with f32 C/D at "
                 "%lld x %lld x %lld",
                 gv_mode_get(L->mode)->name, declined, p->n_algo, what, (long long)m, (long long)k,
                 (long long)n);
        return gk_fail_unsupported(why);
    }
    GK_LT(st);
    if (p->chosen < p->n_algo)
        snprintf(L->math_mode, sizeof L->math_mode, "cuBLASLt %s, COMPUTE_32F, algo %d/%d", what,
                 (p->chosen + 1) & 15, p->n_algo & 15); /* both <= FP8_MAX_ALGOS */
    else
        snprintf(L->math_mode, sizeof L->math_mode, "cuBLASLt %s, COMPUTE_32F, algo NULL", what);
    return GV_OK;
}

#include "gemm_fp8scaled.cuh"

/* cuBLAS S/Dgemm with explicit operations and leading dimensions. */
static inline cublasStatus_t gemm_call_op(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const float *one, const float *a, int lda, const float *b,
                                          int ldb, const float *zero, float *c, int ldc)
{
    return cublasSgemm(h, ta, tb, m, n, k, one, a, lda, b, ldb, zero, c, ldc);
}
static inline cublasStatus_t gemm_call_op(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const double *one, const double *a, int lda,
                                          const double *b, int ldb, const double *zero, double *c,
                                          int ldc)
{
    return cublasDgemm(h, ta, tb, m, n, k, one, a, lda, b, ldb, zero, c, ldc);
}

/* Row-major C (m x n) = A (m x k) B (k x n) with each operand where its placement puts it
   (abi/layout.h). A row-major X with leading dimension ld is, to column-major cuBLAS, X^T with
   the same ld; so C^T = B^T A^T is computed, B first, each operand CUBLAS_OP_N. An operand
   stored transposed (X^T row-major) is X column-major: CUBLAS_OP_T with its ld. cuBLAS's rule
   is ld >= the rows of the operand as stored column-major (cuBLAS Library guide, cublas<t>gemm):
   n for B, k for B^T, k for A, m for A^T, n for C, which are the stored row lengths that
   gk_place_valid holds. Dense placements make the call gk_gemm_rowmajor makes. */
template <typename T> static int gemm_placed(cublasHandle_t h, const gk_launch *L)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    const gk_place *pa = &L->in_place[0], *pb = &L->in_place[1], *pc = &L->out_place[0];
    assert(!pc->trans); /* cuBLAS writes C as it is */
    cublasOperation_t ta = gk_place_is_matrix(pa) && pa->trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t tb = gk_place_is_matrix(pb) && pb->trans ? CUBLAS_OP_T : CUBLAS_OP_N;
    int64_t lda = gk_place_ld_or(pa, k), ldb = gk_place_ld_or(pb, n), ldc = gk_place_ld_or(pc, n);
    if (lda > 2147483647 || ldb > 2147483647 || ldc > 2147483647)
        return gk_fail_unsupported("gemm: a leading dimension beyond cuBLAS's int");
    const T one = 1, zero = 0;
    GK_CUBLAS(gemm_call_op(h, tb, ta, (int)n, (int)m, (int)k, &one, (const T *)L->in[1], (int)ldb,
                           (const T *)L->in[0], (int)lda, &zero, (T *)L->out[0], (int)ldc));
    return GV_OK;
}

static bool operands_dense(const gk_launch *L)
{
    return gk_place_dense(&L->in_place[0]) && gk_place_dense(&L->in_place[1]) &&
           gk_place_dense(&L->out_place[0]);
}

static int cublas_gemm_setup(gk_launch *L)
{
    if (gv_mode_scaled(L->mode)) return fp8s_setup(L, GK_FP8_HONEST);
    return L->mode == GV_MODE_FP8 ? fp8_setup(L) : GV_OK;
}

static void cublas_gemm_teardown(gk_launch *L)
{
    if (L->mode == GV_MODE_FP8 || gv_mode_scaled(L->mode)) fp8_plan_free((fp8_plan *)L->state);
    L->state = NULL;
}

template <bool Rz = false> static int cublas_gemm_as(gk_launch *L)
{
    cublasHandle_t h;
    int rc = gk_cublas(L, &h);
    if (rc) return rc;
    bool converts = L->mode == GV_MODE_F16 || L->mode == GV_MODE_BF16 ||
                    L->mode == GV_MODE_F16ACC || L->mode == GV_MODE_FP8 || gv_mode_scaled(L->mode);
    if (converts && !operands_dense(L))
        return gk_fail_unsupported("the 16-bit and fp8 modes take dense operands only");
    if (L->mode == GV_MODE_F16 || L->mode == GV_MODE_BF16 || L->mode == GV_MODE_F16ACC) {
        if (L->dtype != GV_F32) return gk_fail_unsupported("16-bit storage modes take f32 cases");
        return L->mode == GV_MODE_BF16
                   ? half_gemm<__nv_bfloat16, Rz>(L, h, CUDA_R_16BF, false)
                   : half_gemm<__half, Rz>(L, h, CUDA_R_16F, L->mode == GV_MODE_F16ACC);
    }
    if (L->mode == GV_MODE_FP8) return fp8_gemm(L, (float *)L->out[0]);
    if (gv_mode_scaled(L->mode)) return fp8s_gemm(L, (float *)L->out[0]);
    return gk_by_dtype(L->dtype, [&](auto x) { return gemm_placed<decltype(x)>(h, L); });
}

static int cublas_gemm(gk_launch *L)
{
    return cublas_gemm_as<false>(L);
}

#define TILE            32
#define ROWS_PER_THREAD 4 /* blockDim.y = TILE / ROWS_PER_THREAD */

__device__ __forceinline__ float next_up(float v)
{
    return nextafterf(v, INFINITY);
}
__device__ __forceinline__ double next_up(double v)
{
    return nextafter(v, (double)INFINITY);
}

/* acc + a b as the tiled kernel computes it. TILED_FMA: one fused multiply-add (nvcc contracts
   the expression, --fmad=true); the planted arithmetic of gemm.tiled.unfused (TILED_UNFUSED: the
   product rounded, then the sum) and gemm.tiled.ftz (TILED_FTZ, f32: fma.rn.ftz, subnormal
   inputs and results flushed to zero; f64 has no such instruction and keeps the FMA). */
enum { TILED_FMA = 0, TILED_UNFUSED = 1, TILED_FTZ = 2 };
template <int Arith> __device__ __forceinline__ float tiled_madd(float acc, float a, float b)
{
    if (Arith == TILED_UNFUSED) return __fadd_rn(acc, __fmul_rn(a, b));
    if (Arith == TILED_FTZ) {
        float d;
        asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(acc));
        return d;
    }
    return acc + a * b;
}
template <int Arith> __device__ __forceinline__ double tiled_madd(double acc, double a, double b)
{
    if (Arith == TILED_UNFUSED) return __dadd_rn(acc, __dmul_rn(a, b));
    return acc + a * b;
}

/* Row strides lda, ldb, ldc (>= k, n, n): the operands' leading dimensions. IgnoreLd: the
   planted gemm.tiled.ignoreld, which steps through A by its row length k instead. */
template <typename T, bool DropTail, bool UlpUp, bool IgnoreLd, int Arith>
__global__ void tiled_gemm_kernel(const T *__restrict__ A, const T *__restrict__ B,
                                  T *__restrict__ C, int64_t m, int64_t k, int64_t n, int64_t lda,
                                  int64_t ldb, int64_t ldc)
{
    if (IgnoreLd) lda = k;
    __shared__ T As[TILE][TILE + 1]; /* +1: no bank conflicts on the transposed reads */
    __shared__ T Bs[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int64_t row0 = (int64_t)blockIdx.y * TILE, col = (int64_t)blockIdx.x * TILE + tx;
    T acc[ROWS_PER_THREAD] = {};
    int64_t ktiles = DropTail ? k / TILE : (k + TILE - 1) / TILE;
    for (int64_t t = 0; t < ktiles; t++) {
        int64_t kk = t * TILE;
#pragma unroll
        for (int r = 0; r < ROWS_PER_THREAD; r++) {
            int ly = ty + r * (TILE / ROWS_PER_THREAD);
            int64_t arow = row0 + ly, acol = kk + tx;
            As[ly][tx] = (arow < m && acol < k) ? A[arow * lda + acol] : T(0);
            int64_t brow = kk + ly;
            Bs[ly][tx] = (brow < k && col < n) ? B[brow * ldb + col] : T(0);
        }
        __syncthreads();
#pragma unroll 8
        for (int q = 0; q < TILE; q++) {
            T b = Bs[q][tx];
#pragma unroll
            for (int r = 0; r < ROWS_PER_THREAD; r++)
                acc[r] = tiled_madd<Arith>(acc[r], As[ty + r * (TILE / ROWS_PER_THREAD)][q], b);
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < ROWS_PER_THREAD; r++) {
        int64_t row = row0 + ty + r * (TILE / ROWS_PER_THREAD);
        if (row < m && col < n) C[row * ldc + col] = UlpUp ? next_up(acc[r]) : acc[r];
    }
}

template <bool DropTail, bool UlpUp = false, bool IgnoreLd = false, int Arith = TILED_FMA>
static int tiled_gemm(gk_launch *L)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    const gk_place *pa = &L->in_place[0], *pb = &L->in_place[1], *pc = &L->out_place[0];
    if ((gk_place_is_matrix(pa) && pa->trans) || (gk_place_is_matrix(pb) && pb->trans) ||
        (gk_place_is_matrix(pc) && pc->trans))
        return gk_fail_unsupported("gemm.tiled takes no transposed operands");
    int64_t lda = gk_place_ld_or(pa, k), ldb = gk_place_ld_or(pb, n), ldc = gk_place_ld_or(pc, n);
    dim3 block(TILE, TILE / ROWS_PER_THREAD);
    dim3 grid((unsigned)((n + TILE - 1) / TILE), (unsigned)((m + TILE - 1) / TILE));
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        tiled_gemm_kernel<T, DropTail, UlpUp, IgnoreLd, Arith><<<grid, block, 0, gk_stream(L)>>>(
            (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], m, k, n, lda, ldb, ldc);
        GK_LAUNCHED("tiled_gemm_kernel");
        return (int)GV_OK;
    });
}

extern "C" const gk_op gk_gemm_cublas = {cublas_gemm_setup, cublas_gemm, cublas_gemm_teardown};
extern "C" const gk_op gk_gemm_tiled = {NULL, tiled_gemm<false>, NULL};
extern "C" const gk_op gk_gemm_tiled_droptail = {NULL, tiled_gemm<true>, NULL};
extern "C" const gk_op gk_gemm_tiled_ulp = {NULL, tiled_gemm<false, true>, NULL};
extern "C" const gk_op gk_gemm_tiled_ignoreld = {NULL, tiled_gemm<false, false, true>, NULL};
extern "C" const gk_op gk_gemm_tiled_unfused = {
    NULL, tiled_gemm<false, false, false, TILED_UNFUSED>, NULL};
extern "C" const gk_op gk_gemm_tiled_ftz = {NULL, tiled_gemm<false, false, false, TILED_FTZ>, NULL};

static int cublas_gemm_tf32native(gk_launch *L)
{
    return gk_secretly_tf32(cublas_gemm, L);
}
extern "C" const gk_op gk_gemm_cublas_tf32native = {NULL, cublas_gemm_tf32native, NULL};

/* Planted: modes that are not in effect, under their labels, as a library setting or a silent
   fallback would leave them (the math-mode string still claims the mode). */
static int cublas_gemm_tf32off(gk_launch *L)
{
    int saved = L->mode;
    if (L->mode == GV_MODE_TF32) L->mode = GV_MODE_NATIVE; /* pedantic f32 under a TF32 label */
    int rc = cublas_gemm(L);
    L->mode = saved;
    if (saved == GV_MODE_TF32)
        snprintf(L->math_mode, sizeof L->math_mode, "CUBLAS_TF32_TENSOR_OP_MATH");
    return rc;
}
extern "C" const gk_op gk_gemm_cublas_tf32off = {NULL, cublas_gemm_tf32off, NULL};

static int cublas_gemm_emunative(gk_launch *L)
{
    int saved = L->mode;
    bool emu = L->mode == GV_MODE_FP64EMU || L->mode == GV_MODE_FP64EMU_32 ||
               L->mode == GV_MODE_FP64EMU_40 || L->mode == GV_MODE_FP64EMU_48 ||
               L->mode == GV_MODE_FP64EMU_56;
    if (emu) L->mode = GV_MODE_NATIVE; /* pedantic DGEMM under an emulation label */
    int rc = cublas_gemm(L);
    L->mode = saved;
    if (emu)
        snprintf(L->math_mode, sizeof L->math_mode, "CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH eager");
    return rc;
}
extern "C" const gk_op gk_gemm_cublas_emunative = {NULL, cublas_gemm_emunative, NULL};

static int cublas_gemm_fp8fast_setup(gk_launch *L)
{
    return L->mode == GV_MODE_FP8 ? fp8_setup_as(L, true) : GV_OK;
}
extern "C" const gk_op gk_gemm_cublas_fp8fast = {cublas_gemm_fp8fast_setup, cublas_gemm,
                                                 cublas_gemm_teardown};

/* Planted scaled fp8 done wrong under the scaled modes' labels (abi/gemm.h's plants): the
   setup builds the plant's recipe, the launch and teardown are gemm.cublas's. */
template <int Plant> static int cublas_gemm_fp8plant_setup(gk_launch *L)
{
    return gv_mode_scaled(L->mode) ? fp8s_setup(L, Plant) : GV_OK;
}
extern "C" const gk_op gk_gemm_cublas_fp8noscale = {cublas_gemm_fp8plant_setup<GK_FP8_NOSCALE>,
                                                    cublas_gemm, cublas_gemm_teardown};
extern "C" const gk_op gk_gemm_cublas_fp8rowtensor = {cublas_gemm_fp8plant_setup<GK_FP8_ROWTENSOR>,
                                                      cublas_gemm, cublas_gemm_teardown};
extern "C" const gk_op gk_gemm_cublas_fp8e5m2b = {cublas_gemm_fp8plant_setup<GK_FP8_E5M2B>,
                                                  cublas_gemm, cublas_gemm_teardown};
extern "C" const gk_op gk_gemm_cublas_fp8blkrow = {cublas_gemm_fp8plant_setup<GK_FP8_BLKROW>,
                                                   cublas_gemm, cublas_gemm_teardown};

/* gemm.cublas's fp8 product for another family (fp8_product.h) */
int gk_fp8_product_setup(gk_launch *L, int plant)
{
    if (gv_mode_scaled(L->mode)) return fp8s_setup(L, plant);
    return L->mode == GV_MODE_FP8 ? fp8_setup(L) : GV_OK;
}

int gk_fp8_product(gk_launch *L, float *c)
{
    if (L->mode == GV_MODE_FP8) return fp8_gemm(L, c);
    if (gv_mode_scaled(L->mode)) return fp8s_gemm(L, c);
    return gk_fail_internal("gk_fp8_product: not an fp8 mode");
}

void gk_fp8_product_teardown(gk_launch *L)
{
    cublas_gemm_teardown(L);
}

/* Planted for gpuval probe: the arithmetic of another mode under a mode's label. bf16tf32: the
   tf32 mode converts the operands to bfloat16 (8 bits where TF32 keeps 11); the workspace is
   bf16's (src/ops/gemm.c's layout gives it). */
static int cublas_gemm_bf16tf32(gk_launch *L)
{
    int saved = L->mode;
    if (L->mode == GV_MODE_TF32) L->mode = GV_MODE_BF16;
    int rc = cublas_gemm(L);
    L->mode = saved;
    if (saved == GV_MODE_TF32)
        snprintf(L->math_mode, sizeof L->math_mode, "CUBLAS_TF32_TENSOR_OP_MATH");
    return rc;
}
extern "C" const gk_op gk_gemm_cublas_bf16tf32 = {NULL, cublas_gemm_bf16tf32, NULL};

/* emuwidth: the fixed-width emulations above 32 bits run with 32. */
static int cublas_gemm_emuwidth(gk_launch *L)
{
    int saved = L->mode;
    bool wider = L->mode == GV_MODE_FP64EMU_40 || L->mode == GV_MODE_FP64EMU_48 ||
                 L->mode == GV_MODE_FP64EMU_56;
    if (wider) L->mode = GV_MODE_FP64EMU_32;
    int rc = cublas_gemm(L);
    L->mode = saved;
    if (wider) /* the label's width, as gk_cublas would have written it */
        snprintf(L->math_mode, sizeof L->math_mode,
                 "CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH eager,%db",
                 gv_mode_get(saved)->input_bits & 127);
    return rc;
}
extern "C" const gk_op gk_gemm_cublas_emuwidth = {NULL, cublas_gemm_emuwidth, NULL};

/* rzconv: the f16 and bf16 modes convert their operands toward zero. */
extern "C" const gk_op gk_gemm_cublas_rzconv = {NULL, cublas_gemm_as<true>, NULL};

/* ---- gemm.regblock: register-blocked FFMA SGEMM / DGEMM ----
 * The kernel is kernels/gemm_regblock.cuh, a template over its tiling; tools/gemm_tune.cu
 * checks candidate tilings on ragged and unaligned shapes and times them against cuBLAS. The
 * instances used here are the fastest of its runs on an H100 at 4096^3:
 *  - f32: a 256-thread block computes a 128 x 256 tile of C in K slices of 16, staged through
 *    registers into two shared buffers; 8 warps in 4 x 2, each a 32 x 128 warp tile; a lane
 *    owns an 8 x 16 thread tile of 2 x 4 sub-tiles of 4 x 4; blocks numbered in groups of 8
 *    tile rows. On an H100 80GB HBM3, interleaved with cuBLAS pedantic SGEMM (2.72 ms): 2.98
 *    ms, 91.5 % of it; the K slice of 8 with 64 x 64 warp tiles, the previous choice, 3.12 ms
 *    (87.5 %; the slice of 16 halves the barriers a tile and the register-staged copies'
 *    latency exposed at each, with one 255-register block an SM); the 128 x 128 tile with
 *    8 x 8 thread tiles took 3.55 ms;
 *  - f64: a 128-thread block computes a 128 x 64 tile in K slices of 8 through a 2-deep
 *    cp.async ring; 4 warps in 2 x 2, each 64 x 32; 8 x 8 thread tiles (6.25 ms; the 3-deep
 *    ring 6.54 ms, the 128 x 128 tile 6.70 ms; cuBLAS pedantic DGEMM 2.93 ms).
 * Each C element is one FMA chain over k in order (acc = fma(a, b, acc)): the gamma_k model
 * of gemm holds as for any order. Ragged shapes (m, n, k not multiples of the tile; k or n not
 * multiples of 4; unaligned pointers) take the guarded path: elements load one by one, out of
 * range ones as 0, and are never stored. */
typedef rb_cfg<128, 256, 16, 32, 128, 8, 16, 256, 1, 8, 0> rb_cfg_f32;
typedef rb_cfg<128, 64, 8, 64, 32, 8, 8, 128, 2, 0, 2> rb_cfg_f64;
/* f64's generic path, where the loaded code has no cp.async (compute_75's PTX, a T4) or
   GPUVAL_GENERIC_KERNELS=1 asks for it: the same tiling staged through registers, so each C
   element is the same FMA chain in the same order: the same bits as the cp.async path. */
typedef rb_cfg<128, 64, 8, 64, 32, 8, 8, 128, 2, 0, 0> rb_cfg_f64_generic;

template <typename T> struct rb_cfg_of;
template <> struct rb_cfg_of<float> {
    typedef rb_cfg_f32 type;
};
template <> struct rb_cfg_of<double> {
    typedef rb_cfg_f64 type;
};

template <bool DropTail> static int regblock_gemm(gk_launch *L)
{
    int64_t m = L->dims[0], k = L->dims[1], n = L->dims[2];
    /* dense rows only; any offset (the 4-vector path is taken only where rb_vec_ok allows) */
    for (int i = 0; i < 3; i++) {
        const gk_place *p = i < 2 ? &L->in_place[i] : &L->out_place[0];
        if (gk_place_is_matrix(p) && (p->trans || gk_place_ld(p) != gk_place_scols(p)))
            return gk_fail_unsupported("gemm.regblock takes no leading dimension or transpose");
    }
    const bool vec = rb_vec_ok(k, n, L->in[0], L->in[1], L->out[0]);
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        using Cfg = typename rb_cfg_of<T>::type;
        /* the cp.async ring only where the loaded code has it (sm_80 and later) */
        const bool async =
            Cfg::STAGES > 0 && gk_code_has((const void *)rb_kernel<T, Cfg, DropTail>(vec), 80);
        snprintf(L->math_mode, sizeof L->math_mode, "hand-written FFMA, %s%s loads",
                 async ? "cp.async, " : "", vec ? "4-vector" : "scalar");
        const T *A = (const T *)L->in[0], *B = (const T *)L->in[1];
        T *C = (T *)L->out[0];
        cudaError_t e;
        if constexpr (Cfg::STAGES == 0)
            e = rb_launch<T, Cfg, DropTail>(A, B, C, m, k, n, vec, gk_stream(L));
        else
            e = async ? rb_launch<T, Cfg, DropTail>(A, B, C, m, k, n, vec, gk_stream(L))
                      : rb_launch<T, rb_cfg_f64_generic, DropTail>(A, B, C, m, k, n, vec,
                                                                   gk_stream(L));
        if (e != cudaSuccess) return gk_fail_cuda(e, "regblock_gemm_kernel");
        return (int)GV_OK;
    });
}

extern "C" const gk_op gk_gemm_regblock = {NULL, regblock_gemm<false>, NULL};
extern "C" const gk_op gk_gemm_regblock_droptail = {NULL, regblock_gemm<true>, NULL};

/* ---- gemm.batched: C_q = op(A_q) op(B_q), strided batched (src/ops/gemm.c) ---------------
 * cublasSgemmStridedBatched / cublasDgemmStridedBatched with the handle's math mode (gk_cublas:
 * pedantic, default or TF32). Every matrix packed row-major, batch after batch. As gemm_placed
 * does, the row-major C_q = op(A_q) op(B_q) is the column-major C_q^T = op(B_q)^T op(A_q)^T, B
 * first: a row-major B (k x n) is B^T to cuBLAS with ld n (CUBLAS_OP_N); one stored n x k
 * (.nt) is B with ld k, so CUBLAS_OP_T gives B^T; likewise A: m x k with ld k (OP_N), or
 * stored k x m (.tn) with ld m (OP_T). Planted gemm.batched.stride: batch 0 alone, then
 * batches 1.. with B's base pointer left at batch 0, so batch q reads batch q - 1's B. */
static inline cublasStatus_t gemm_sb(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                     int m, int n, int k, const float *one, const float *a, int lda,
                                     long long sa, const float *b, int ldb, long long sb,
                                     const float *zero, float *c, int ldc, long long sc, int batch)
{
    return cublasSgemmStridedBatched(h, ta, tb, m, n, k, one, a, lda, sa, b, ldb, sb, zero, c, ldc,
                                     sc, batch);
}
static inline cublasStatus_t gemm_sb(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                     int m, int n, int k, const double *one, const double *a,
                                     int lda, long long sa, const double *b, int ldb, long long sb,
                                     const double *zero, double *c, int ldc, long long sc,
                                     int batch)
{
    return cublasDgemmStridedBatched(h, ta, tb, m, n, k, one, a, lda, sa, b, ldb, sb, zero, c, ldc,
                                     sc, batch);
}

enum { BATCHED_TRANS_A = 1, BATCHED_TRANS_B = 2 };

template <typename T, int Trans, bool StrideBug>
static int batched_gemm_t(cublasHandle_t h, gk_launch *L)
{
    int64_t batch = L->dims[0], m = L->dims[1], k = L->dims[2], n = L->dims[3];
    if (batch > 2147483647) return gk_fail_unsupported("gemm.batched: batch beyond cuBLAS's int");
    bool ta = Trans & BATCHED_TRANS_A, tb = Trans & BATCHED_TRANS_B;
    cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    int lda = (int)(ta ? m : k), ldb = (int)(tb ? k : n), ldc = (int)n;
    /* cuBLAS wants ld >= 1 even where the dim is 0 */
    lda = lda > 0 ? lda : 1, ldb = ldb > 0 ? ldb : 1, ldc = ldc > 0 ? ldc : 1;
    long long sa = (long long)(m * k), sb = (long long)(k * n), sc = (long long)(m * n);
    const T one = 1, zero = 0;
    const T *A = (const T *)L->in[0], *B = (const T *)L->in[1];
    T *C = (T *)L->out[0];
    if constexpr (!StrideBug) {
        GK_CUBLAS(gemm_sb(h, opb, opa, (int)n, (int)m, (int)k, &one, B, ldb, sb, A, lda, sa, &zero,
                          C, ldc, sc, (int)batch));
    } else {
        GK_CUBLAS(gemm_sb(h, opb, opa, (int)n, (int)m, (int)k, &one, B, ldb, sb, A, lda, sa, &zero,
                          C, ldc, sc, 1));
        if (batch > 1)
            GK_CUBLAS(gemm_sb(h, opb, opa, (int)n, (int)m, (int)k, &one, B, ldb, sb, A + sa, lda,
                              sa, &zero, C + sc, ldc, sc, (int)batch - 1));
    }
    return GV_OK;
}

template <int Trans, bool StrideBug> static int batched_gemm(gk_launch *L)
{
    if (L->mode != GV_MODE_NATIVE && L->mode != GV_MODE_DEFAULT && L->mode != GV_MODE_TF32)
        return gk_fail_unsupported("gemm.batched: native, default and tf32 modes only");
    cublasHandle_t h;
    int rc = gk_cublas(L, &h); /* the mode's math mode on the handle, and its name */
    if (rc) return rc;
    return gk_by_dtype(L->dtype,
                       [&](auto x) { return batched_gemm_t<decltype(x), Trans, StrideBug>(h, L); });
}

extern "C" const gk_op gk_gemm_batched = {NULL, batched_gemm<0, false>, NULL};
extern "C" const gk_op gk_gemm_batched_tn = {NULL, batched_gemm<BATCHED_TRANS_A, false>, NULL};
extern "C" const gk_op gk_gemm_batched_nt = {NULL, batched_gemm<BATCHED_TRANS_B, false>, NULL};
extern "C" const gk_op gk_gemm_batched_stride = {NULL, batched_gemm<0, true>, NULL};
