/* solve.cu: dense A x = b through cuSOLVER, one right-hand side, f32 and f64.
 *  - solve.gesv: getrf (LU with partial pivoting) + getrs. A arrives row-major; it is
 *    transposed into a column-major workspace copy first, so that cuSOLVER factors A itself
 *    with row interchanges, exactly the factorisation LAPACKE_dgesv does (factoring the
 *    untransposed buffer would be LU of A^T, whose pivots and zero-pivot index differ).
 *  - solve.posv: potrf (Cholesky, lower) + potrs. A is exactly symmetric, so the row-major
 *    buffer is already the column-major A; it is copied, not transposed.
 *  - solve.gesv.singular / solve.posv.indefinite: the factorisation alone; the output is
 *    cuSOLVER's devInfo, to be compared with LAPACK's info.
 *  - planted bug solve.gesv.nopivot: getrf with devIpiv = NULL (no pivoting), then getrs
 *    with the identity permutation.
 * Every output of a run is written from the inputs afresh (A and b are copied into the
 * workspace and x before the in-place factorisation and solve), so launch is repeatable.
 * devInfo of the factorisation (or, if that is 0, of the solve: a negative argument index)
 * is written into the `info` output as a value of the case's dtype. */
#include <cusolverDn.h>

#include <cstdlib>

#include "../abi/solve.h"
#include "gk_cuda.h"

static const char *cusolver_status_name(cusolverStatus_t s)
{
    switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_MAPPING_ERROR: return "CUSOLVER_STATUS_MAPPING_ERROR";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
        return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_ZERO_PIVOT: return "CUSOLVER_STATUS_ZERO_PIVOT";
    case CUSOLVER_STATUS_INVALID_LICENSE: return "CUSOLVER_STATUS_INVALID_LICENSE";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "CUSOLVER_STATUS_UNKNOWN";
    }
}

#define GK_CUSOLVER(call)                                                                          \
    do {                                                                                           \
        cusolverStatus_t gk_s_ = (call);                                                           \
        if (gk_s_ != CUSOLVER_STATUS_SUCCESS)                                                      \
            return gk_fail_lib("cuSOLVER", (int)gk_s_, cusolver_status_name(gk_s_), #call);        \
    } while (0)

enum solve_kind {
    SOLVE_LU,          /* getrf + getrs */
    SOLVE_LU_NOPIVOT,  /* planted bug: getrf without pivoting + getrs */
    SOLVE_CHOL,        /* potrf + potrs */
    SOLVE_LU_FACTOR,   /* getrf alone: its info */
    SOLVE_CHOL_FACTOR, /* potrf alone: its info */
};

static bool is_lu(solve_kind k)
{
    return k != SOLVE_CHOL && k != SOLVE_CHOL_FACTOR;
}
static bool solves(solve_kind k)
{
    return k != SOLVE_LU_FACTOR && k != SOLVE_CHOL_FACTOR;
}

/* Between setup and teardown: the handle and cuSOLVER's own scratch (bufferSize). */
struct solve_state {
    cusolverDnHandle_t handle;
    void *lib_work;
    int lib_lwork;  /* elements of the dtype */
    void *irs_work; /* the mixed-precision solver's workspace (irs-* modes) */
    size_t irs_bytes;
};

/* cuSOLVER's mixed-precision iterative refinement (the legacy <t1><t2>gesv API): an LU
   factorisation in a lower precision, refined to f64, falling back to an f64 LU when the
   refinement does not converge. NULL for the other modes. */
typedef cusolverStatus_t (*irs_fn)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double *,
                                   cusolver_int_t, cusolver_int_t *, double *, cusolver_int_t,
                                   double *, cusolver_int_t, void *, size_t, cusolver_int_t *,
                                   cusolver_int_t *);
typedef cusolverStatus_t (*irs_size_fn)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t,
                                        double *, cusolver_int_t, cusolver_int_t *, double *,
                                        cusolver_int_t, double *, cusolver_int_t, void *, size_t *);
struct irs_entry {
    int mode;
    irs_fn solve;
    irs_size_fn size;
    const char *name;
};
static const irs_entry irs_table[] = {
    {GV_MODE_IRS_F16, cusolverDnDHgesv, cusolverDnDHgesv_bufferSize, "cusolverDnDHgesv"},
    {GV_MODE_IRS_BF16, cusolverDnDBgesv, cusolverDnDBgesv_bufferSize, "cusolverDnDBgesv"},
    {GV_MODE_IRS_TF32, cusolverDnDXgesv, cusolverDnDXgesv_bufferSize, "cusolverDnDXgesv"},
    {GV_MODE_IRS_F32, cusolverDnDSgesv, cusolverDnDSgesv_bufferSize, "cusolverDnDSgesv"},
};
static const irs_entry *irs_of(int mode)
{
    for (const irs_entry &e : irs_table)
        if (e.mode == mode) return &e;
    return NULL;
}

/* The op's workspace (src/ops/solve.c sizes it n^2 elements + 256 + (n + 2) ints): the
 * column-major copy of A, then the pivots, then the factorisation's and the solve's info. */
struct solve_ws {
    void *a;
    int *ipiv;
    int *info; /* [0]: factorisation, [1]: solve */
};

static int workspace_of(const gk_launch *L, solve_ws *w)
{
    int64_t n = L->dims[0];
    int64_t es = (int64_t)gv_dtype_size(L->dtype);
    size_t a_bytes = (size_t)gv_solve_ws_a_bytes(n, es);
    size_t need = (size_t)gv_solve_ws_bytes(n, es);
    if (!L->workspace || (int64_t)need > L->workspace_bytes)
        return gk_fail_internal("solve: workspace smaller than the layout promised");
    char *base = (char *)L->workspace;
    w->a = base;
    w->ipiv = (int *)(base + a_bytes);
    w->info = w->ipiv + n;
    return GV_OK;
}

/* Row-major in (n x n) to column-major out: out[j n + i] = in[i n + j]. 32 x 32 tiles
   through shared memory (padded against bank conflicts), so reads and writes coalesce. */
#define TT 32
template <typename T>
__global__ void transpose_kernel(const T *__restrict__ in, T *__restrict__ out, int64_t n)
{
    __shared__ T tile[TT][TT + 1];
    int64_t row0 = (int64_t)blockIdx.y * TT, col0 = (int64_t)blockIdx.x * TT;
    for (int r = threadIdx.y; r < TT; r += blockDim.y) {
        int64_t i = row0 + r, j = col0 + threadIdx.x;
        if (i < n && j < n) tile[r][threadIdx.x] = in[i * n + j];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < TT; r += blockDim.y) {
        int64_t i = row0 + threadIdx.x, j = col0 + r;
        if (i < n && j < n) out[j * n + i] = tile[threadIdx.x][r];
    }
}

__global__ void identity_pivots_kernel(int *ipiv, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        ipiv[i] = (int)(i + 1); /* 1-based, as LAPACK: row i stays row i */
}

/* info[0] (factorisation) wins; a failing solve (negative: bad argument) shows otherwise. */
template <typename T> __global__ void info_kernel(const int *info, bool with_solve, T *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int f = info[0];
        int s = with_solve ? info[1] : 0;
        out[0] = (T)(f != 0 ? f : s);
    }
}

/* Type-dispatched cuSOLVER calls (column-major, lda = n, one right-hand side). */
static cusolverStatus_t getrf_size(cusolverDnHandle_t h, int n, float *a, int *lw)
{
    return cusolverDnSgetrf_bufferSize(h, n, n, a, n, lw);
}
static cusolverStatus_t getrf_size(cusolverDnHandle_t h, int n, double *a, int *lw)
{
    return cusolverDnDgetrf_bufferSize(h, n, n, a, n, lw);
}
static cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, float *a, int *lw)
{
    return cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lw);
}
static cusolverStatus_t potrf_size(cusolverDnHandle_t h, int n, double *a, int *lw)
{
    return cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, n, lw);
}
static cusolverStatus_t getrf(cusolverDnHandle_t h, int n, float *a, float *w, int *ipiv, int *info)
{
    return cusolverDnSgetrf(h, n, n, a, n, w, ipiv, info);
}
static cusolverStatus_t getrf(cusolverDnHandle_t h, int n, double *a, double *w, int *ipiv,
                              int *info)
{
    return cusolverDnDgetrf(h, n, n, a, n, w, ipiv, info);
}
static cusolverStatus_t getrs(cusolverDnHandle_t h, int n, const float *a, const int *ipiv,
                              float *x, int *info)
{
    return cusolverDnSgetrs(h, CUBLAS_OP_N, n, 1, a, n, ipiv, x, n, info);
}
static cusolverStatus_t getrs(cusolverDnHandle_t h, int n, const double *a, const int *ipiv,
                              double *x, int *info)
{
    return cusolverDnDgetrs(h, CUBLAS_OP_N, n, 1, a, n, ipiv, x, n, info);
}
static cusolverStatus_t potrf(cusolverDnHandle_t h, int n, float *a, float *w, int lw, int *info)
{
    return cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lw, info);
}
static cusolverStatus_t potrf(cusolverDnHandle_t h, int n, double *a, double *w, int lw, int *info)
{
    return cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, w, lw, info);
}
static cusolverStatus_t potrs(cusolverDnHandle_t h, int n, const float *a, float *x, int *info)
{
    return cusolverDnSpotrs(h, CUBLAS_FILL_MODE_LOWER, n, 1, a, n, x, n, info);
}
static cusolverStatus_t potrs(cusolverDnHandle_t h, int n, const double *a, double *x, int *info)
{
    return cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, 1, a, n, x, n, info);
}

static void release(solve_state *s)
{
    if (!s) return;
    if (s->lib_work) cudaFree(s->lib_work);
    if (s->irs_work) cudaFree(s->irs_work);
    if (s->handle) cusolverDnDestroy(s->handle);
    free(s);
}

template <typename T> static int setup_impl(gk_launch *L, solve_state *s, solve_kind kind)
{
    solve_ws w;
    int rc = workspace_of(L, &w);
    if (rc) return rc;
    int n = (int)L->dims[0];
    GK_CUSOLVER(cusolverDnCreate(&s->handle));
    GK_CUSOLVER(cusolverDnSetStream(s->handle, gk_stream(L)));
    /* the default math, not the emulated ones (CUSOLVER_FP32_EMULATED_BF16X9_MATH,
       CUSOLVER_FP64_EMULATED_FIXEDPOINT_MATH); set explicitly and recorded, as for cuBLAS.
       Should the library lower f32 arithmetic under it, the f32 scaled residual (judged at
       u = 2^-24) would show it */
    GK_CUSOLVER(cusolverDnSetMathMode(s->handle, CUSOLVER_DEFAULT_MATH));
    snprintf(L->math_mode, sizeof L->math_mode, "CUSOLVER_DEFAULT_MATH");
    if (is_lu(kind))
        GK_CUSOLVER(getrf_size(s->handle, n, (T *)w.a, &s->lib_lwork));
    else
        GK_CUSOLVER(potrf_size(s->handle, n, (T *)w.a, &s->lib_lwork));
    if (s->lib_lwork < 1) s->lib_lwork = 1;
    GK_CUDA(cudaMalloc(&s->lib_work, (size_t)s->lib_lwork * sizeof(T)));
    const irs_entry *irs = irs_of(L->mode);
    if (irs) {
        if (kind != SOLVE_LU || L->dtype != GV_F64)
            return gk_fail_unsupported("mixed-precision refinement: solve.gesv in f64 only");
        GK_CUSOLVER(irs->size(s->handle, n, 1, (double *)w.a, n, w.ipiv, (double *)L->in[1], n,
                              (double *)L->out[0], n, NULL, &s->irs_bytes));
        GK_CUDA(cudaMalloc(&s->irs_work, s->irs_bytes > 0 ? s->irs_bytes : 1));
    }
    return GV_OK;
}

template <solve_kind K> static int solve_setup(gk_launch *L)
{
    solve_state *s = (solve_state *)calloc(1, sizeof *s);
    if (!s) return GV_ENOMEM;
    int rc = gk_by_dtype(L->dtype, [&](auto x) { return setup_impl<decltype(x)>(L, s, K); });
    if (rc) {
        release(s);
        return rc;
    }
    L->state = s;
    return GV_OK;
}

template <solve_kind K> static void solve_teardown(gk_launch *L)
{
    release((solve_state *)L->state);
    L->state = NULL;
}

template <typename T> static int launch_impl(gk_launch *L, solve_kind kind)
{
    solve_state *s = (solve_state *)L->state;
    solve_ws w;
    int rc = workspace_of(L, &w);
    if (rc) return rc;
    int64_t n = L->dims[0];
    cudaStream_t st = gk_stream(L);
    T *a = (T *)w.a;
    const T *a_in = (const T *)L->in[0];
    if (is_lu(kind)) {
        dim3 block(TT, 8), grid((unsigned)((n + TT - 1) / TT), (unsigned)((n + TT - 1) / TT));
        transpose_kernel<T><<<grid, block, 0, st>>>(a_in, a, n);
        GK_LAUNCHED("transpose_kernel");
    } else {
        GK_CUDA(
            cudaMemcpyAsync(a, a_in, (size_t)(n * n) * sizeof(T), cudaMemcpyDeviceToDevice, st));
    }
    T *x = solves(kind) ? (T *)L->out[0] : NULL;
    T *info_out = (T *)L->out[solves(kind) ? 1 : 0];
    if (x)
        GK_CUDA(cudaMemcpyAsync(x, L->in[1], (size_t)n * sizeof(T), cudaMemcpyDeviceToDevice, st));
    T *lw = (T *)s->lib_work;
    int ni = (int)n;
    const irs_entry *irs = irs_of(L->mode);
    if (irs && x) {
        /* refinement reads b from the input and writes x itself; its iteration count is a
           host value (negative: it fell back to an f64 LU), recorded with the math mode */
        cusolver_int_t iters = 0;
        GK_CUSOLVER(irs->solve(s->handle, ni, 1, (double *)a, ni, w.ipiv,
                               (double *)const_cast<void *>(L->in[1]), ni, (double *)x, ni,
                               s->irs_work, s->irs_bytes, &iters, w.info));
        GK_CUDA(cudaMemsetAsync(w.info + 1, 0, sizeof(int), st));
        /* negative: the refinement stopped and cuSOLVER solved with an f64 LU instead (seen
           at kappa = 1e6 on an H100: -50 for the 16-bit and TF32 LUs) */
        int it = iters < -9999 ? -9999 : iters > 9999 ? 9999 : (int)iters;
        if (it >= 0)
            snprintf(L->math_mode, sizeof L->math_mode, "%s, %d iterations", irs->name, it);
        else
            snprintf(L->math_mode, sizeof L->math_mode, "%s, f64 LU fallback (%d)", irs->name, it);
        info_kernel<T><<<1, 32, 0, st>>>(w.info, true, info_out);
        GK_LAUNCHED("info_kernel");
        return GV_OK;
    }
    switch (kind) {
    case SOLVE_LU:
    case SOLVE_LU_FACTOR: GK_CUSOLVER(getrf(s->handle, ni, a, lw, w.ipiv, w.info)); break;
    case SOLVE_LU_NOPIVOT:
        GK_CUSOLVER(getrf(s->handle, ni, a, lw, NULL, w.info));
        identity_pivots_kernel<<<gk_blocks(n, 256), 256, 0, st>>>(w.ipiv, n);
        GK_LAUNCHED("identity_pivots_kernel");
        break;
    case SOLVE_CHOL:
    case SOLVE_CHOL_FACTOR: GK_CUSOLVER(potrf(s->handle, ni, a, lw, s->lib_lwork, w.info)); break;
    }
    if (x && is_lu(kind)) GK_CUSOLVER(getrs(s->handle, ni, a, w.ipiv, x, w.info + 1));
    if (x && !is_lu(kind)) GK_CUSOLVER(potrs(s->handle, ni, a, x, w.info + 1));
    info_kernel<T><<<1, 32, 0, st>>>(w.info, solves(kind), info_out);
    GK_LAUNCHED("info_kernel");
    return GV_OK;
}

template <solve_kind K> static int solve_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return launch_impl<decltype(x)>(L, K); });
}

/* clang-format off */
#define SOLVE_OP(K) {solve_setup<K>, solve_launch<K>, solve_teardown<K>}
/* clang-format on */
extern "C" const gk_op gk_solve_gesv = SOLVE_OP(SOLVE_LU);
extern "C" const gk_op gk_solve_gesv_nopivot = SOLVE_OP(SOLVE_LU_NOPIVOT);
extern "C" const gk_op gk_solve_posv = SOLVE_OP(SOLVE_CHOL);
extern "C" const gk_op gk_solve_gesv_singular = SOLVE_OP(SOLVE_LU_FACTOR);
extern "C" const gk_op gk_solve_posv_indefinite = SOLVE_OP(SOLVE_CHOL_FACTOR);
