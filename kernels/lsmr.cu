/* lsmr.cu: ridge least squares min ||A x - b||^2 + lambda^2 ||x||^2 by LSMR with
 * damp = lambda (Fong & Saunders 2011; the recurrences are kernels/lsmr.h's, shared with the
 * CPU reference in oracle/lsmr.c).
 *  - setup: A's CSR indices from host_aux to the device (values are input 0), A^T built once
 *    as its own CSR by cusparseCsr2cscEx2, so both products are non-transposed SpMVs with
 *    CUSPARSE_SPMV_CSR_ALG2, which is deterministic (a transposed CSR SpMV may not be); the
 *    cuSPARSE handle, descriptors and SpMV buffers live here too.
 *  - launch: the Golub-Kahan steps on the device (cusparseSpMV, cuBLAS nrm2/scal, one fused
 *    update kernel); the scalar recurrences on the HOST, in f64: each nrm2 returns its value
 *    to the host (CUBLAS_POINTER_MODE_HOST), so the stream synchronises three times per
 *    iteration and the stopping test is decided on the host. Fine for correctness runs;
 *    a timed run sees those round trips in its numbers. Every launch restarts from x = 0, so
 *    repeated launches give the same result. Writes x and the info output (kernels/lsmr.h).
 *  - planted bug lsmr.ridge.nodamp: the recurrences get damp = 0, i.e. the undamped problem
 *    min ||A x - b|| is solved whatever lambda is. */
#include <cstdlib>
#include <cusparse.h>

#include "gk_cuda.h"
#include "../abi/lsmr.h"

static const char *cusparse_status_name(cusparseStatus_t s)
{
    switch (s) {
    case CUSPARSE_STATUS_SUCCESS: return "CUSPARSE_STATUS_SUCCESS";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "CUSPARSE_STATUS_NOT_INITIALIZED";
    case CUSPARSE_STATUS_ALLOC_FAILED: return "CUSPARSE_STATUS_ALLOC_FAILED";
    case CUSPARSE_STATUS_INVALID_VALUE: return "CUSPARSE_STATUS_INVALID_VALUE";
    case CUSPARSE_STATUS_ARCH_MISMATCH: return "CUSPARSE_STATUS_ARCH_MISMATCH";
    case CUSPARSE_STATUS_MAPPING_ERROR: return "CUSPARSE_STATUS_MAPPING_ERROR";
    case CUSPARSE_STATUS_EXECUTION_FAILED: return "CUSPARSE_STATUS_EXECUTION_FAILED";
    case CUSPARSE_STATUS_INTERNAL_ERROR: return "CUSPARSE_STATUS_INTERNAL_ERROR";
    case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
        return "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSPARSE_STATUS_ZERO_PIVOT: return "CUSPARSE_STATUS_ZERO_PIVOT";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "CUSPARSE_STATUS_NOT_SUPPORTED";
    case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES";
    default: return "CUSPARSE_STATUS_UNKNOWN";
    }
}

#define GK_CUSPARSE(call)                                                                          \
    do {                                                                                           \
        cusparseStatus_t gk_s_ = (call);                                                           \
        if (gk_s_ != CUSPARSE_STATUS_SUCCESS)                                                      \
            return gk_fail_lib("cuSPARSE", (int)gk_s_, cusparse_status_name(gk_s_), #call);        \
    } while (0)

/* Everything setup makes and teardown frees. Device memory: the op's workspace, carved in
   the order of src/ops/lsmr.c's layout, plus the two SpMV buffers. */
typedef struct lsmr_state {
    int64_t m, n, nnz;
    double lambda;
    cusparseHandle_t sp;
    cusparseConstSpMatDescr_t mat_a, mat_at; /* A (m x n) and A^T (n x m), both CSR */
    cusparseDnVecDescr_t vec_u, vec_v;
    void *buf_a, *buf_at;
    int32_t *a_ptr, *a_idx, *at_ptr, *at_idx;
    void *at_val, *u, *v, *h, *hbar;
    double info_f64[GK_LSMR_INFO_COUNT]; /* host staging of the info output */
    float info_f32[GK_LSMR_INFO_COUNT];
} lsmr_state;

/* The next piece of abi/lsmr.h's workspace layout. */
static char *carve(char **p, int piece, int64_t m, int64_t n, int64_t nnz, int64_t es)
{
    char *r = *p;
    *p += gk_lsmr_ws_round(gk_lsmr_ws_piece(piece, m, n, nnz, es));
    return r;
}

static void lsmr_teardown(gk_launch *L)
{
    lsmr_state *st = (lsmr_state *)L->state;
    if (!st) return;
    if (st->mat_a) cusparseDestroySpMat(st->mat_a);
    if (st->mat_at) cusparseDestroySpMat(st->mat_at);
    if (st->vec_u) cusparseDestroyDnVec(st->vec_u);
    if (st->vec_v) cusparseDestroyDnVec(st->vec_v);
    cudaFree(st->buf_a);
    cudaFree(st->buf_at);
    if (st->sp) cusparseDestroy(st->sp);
    free(st);
    L->state = NULL;
}

static int lsmr_setup_body(gk_launch *L, lsmr_state *st)
{
    const gk_lsmr_aux *ax = (const gk_lsmr_aux *)L->host_aux;
    if (!ax || ax->m != L->dims[0] || ax->n != L->dims[1] || ax->nnz != L->in_count[0] ||
        L->in_count[1] != ax->m || L->out_count[0] != ax->n ||
        L->out_count[1] != GK_LSMR_INFO_COUNT)
        return gk_fail_internal("lsmr: host_aux does not describe this case's tensors");
    cudaStream_t s = gk_stream(L);
    st->m = ax->m;
    st->n = ax->n;
    st->nnz = ax->nnz;
    st->lambda = ax->lambda;
    size_t es = gv_dtype_size(L->dtype);
    cudaDataType vt = gk_cuda_type_of(L->dtype);
    int64_t m = st->m, n = st->n, nnz = st->nnz;

    char *w = (char *)L->workspace;
    int64_t e = (int64_t)es;
    st->a_ptr = (int32_t *)carve(&w, GK_LSMR_WS_A_PTR, m, n, nnz, e);
    st->a_idx = (int32_t *)carve(&w, GK_LSMR_WS_A_IDX, m, n, nnz, e);
    st->at_ptr = (int32_t *)carve(&w, GK_LSMR_WS_AT_PTR, m, n, nnz, e);
    st->at_idx = (int32_t *)carve(&w, GK_LSMR_WS_AT_IDX, m, n, nnz, e);
    st->at_val = carve(&w, GK_LSMR_WS_AT_VAL, m, n, nnz, e);
    st->u = carve(&w, GK_LSMR_WS_U, m, n, nnz, e);
    st->v = carve(&w, GK_LSMR_WS_V, m, n, nnz, e);
    st->h = carve(&w, GK_LSMR_WS_H, m, n, nnz, e);
    st->hbar = carve(&w, GK_LSMR_WS_HBAR, m, n, nnz, e);
    if (w > (char *)L->workspace + L->workspace_bytes)
        return gk_fail_internal("lsmr: workspace smaller than the layout promised");

    GK_CUDA(
        cudaMemcpyAsync(st->a_ptr, ax->row_ptr, (size_t)(m + 1) * 4, cudaMemcpyHostToDevice, s));
    if (nnz > 0)
        GK_CUDA(
            cudaMemcpyAsync(st->a_idx, ax->col_idx, (size_t)nnz * 4, cudaMemcpyHostToDevice, s));
    GK_CUSPARSE(cusparseCreate(&st->sp));
    GK_CUSPARSE(cusparseSetStream(st->sp, s));
    GK_CUSPARSE(cusparseCreateDnVec(&st->vec_u, m, st->u, vt));
    GK_CUSPARSE(cusparseCreateDnVec(&st->vec_v, n, st->v, vt));
    if (nnz == 0) {
        GK_CUDA(cudaStreamSynchronize(s)); /* the pageable copies above are done */
        return GV_OK;                      /* A = 0: launch needs no product (x = 0 at once) */
    }

    /* A^T = CSC of A, i.e. the CSR of A^T: column pointers, row indices, values */
    size_t tbytes = 0;
    GK_CUSPARSE(cusparseCsr2cscEx2_bufferSize(st->sp, (int)m, (int)n, (int)nnz, L->in[0], st->a_ptr,
                                              st->a_idx, st->at_val, st->at_ptr, st->at_idx, vt,
                                              CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                              CUSPARSE_CSR2CSC_ALG1, &tbytes));
    void *tbuf = NULL;
    GK_CUDA(cudaMalloc(&tbuf, tbytes > 0 ? tbytes : 1));
    cusparseStatus_t ts =
        cusparseCsr2cscEx2(st->sp, (int)m, (int)n, (int)nnz, L->in[0], st->a_ptr, st->a_idx,
                           st->at_val, st->at_ptr, st->at_idx, vt, CUSPARSE_ACTION_NUMERIC,
                           CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, tbuf);
    cudaError_t te = cudaStreamSynchronize(s);
    cudaFree(tbuf);
    if (ts != CUSPARSE_STATUS_SUCCESS)
        return gk_fail_lib("cuSPARSE", (int)ts, cusparse_status_name(ts), "cusparseCsr2cscEx2");
    if (te != cudaSuccess) return gk_fail_cuda(te, "cusparseCsr2cscEx2 (at synchronisation)");

    GK_CUSPARSE(cusparseCreateConstCsr(&st->mat_a, m, n, nnz, st->a_ptr, st->a_idx, L->in[0],
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, vt));
    GK_CUSPARSE(cusparseCreateConstCsr(&st->mat_at, n, m, nnz, st->at_ptr, st->at_idx, st->at_val,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, vt));
    /* buffer sizes for y = A x - beta y with nonzero beta (the launch's products) */
    union {
        float f;
        double d;
    } one_v, mone_v;
    gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        *(T *)(void *)&one_v = T(1);
        *(T *)(void *)&mone_v = T(-1);
        return (int)GV_OK;
    });
    const void *one = &one_v, *mone = &mone_v;
    size_t ba = 0, bat = 0;
    GK_CUSPARSE(cusparseSpMV_bufferSize(st->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, one, st->mat_a,
                                        st->vec_v, mone, st->vec_u, vt, CUSPARSE_SPMV_CSR_ALG2,
                                        &ba));
    GK_CUSPARSE(cusparseSpMV_bufferSize(st->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, one, st->mat_at,
                                        st->vec_u, mone, st->vec_v, vt, CUSPARSE_SPMV_CSR_ALG2,
                                        &bat));
    GK_CUDA(cudaMalloc(&st->buf_a, ba > 0 ? ba : 1));
    GK_CUDA(cudaMalloc(&st->buf_at, bat > 0 ? bat : 1));
    return GV_OK;
}

static int lsmr_setup(gk_launch *L)
{
    if (L->mode != GV_MODE_NATIVE) return gk_fail_unsupported("lsmr: native mode only");
    lsmr_state *st = (lsmr_state *)calloc(1, sizeof *st);
    if (!st) return GV_ENOMEM;
    L->state = st;
    int rc = lsmr_setup_body(L, st);
    if (rc != GV_OK) lsmr_teardown(L);
    return rc;
}

/* hbar = h - c_hbar hbar; x = x + c_x hbar; h = v - c_h h (one pass, old h in both) */
template <typename T>
__global__ void lsmr_update_kernel(int64_t n, T c_hbar, T c_x, T c_h, const T *__restrict__ v,
                                   T *__restrict__ h, T *__restrict__ hbar, T *__restrict__ x)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        T hi = h[i];
        T hb = hi - c_hbar * hbar[i];
        hbar[i] = hb;
        x[i] = x[i] + c_x * hb;
        h[i] = v[i] - c_h * hi;
    }
}

static int nrm2(cublasHandle_t cb, int64_t n, const double *x, double *out)
{
    GK_CUBLAS(cublasDnrm2(cb, (int)n, x, 1, out));
    return GV_OK;
}

static int nrm2(cublasHandle_t cb, int64_t n, const float *x, double *out)
{
    float r = 0.0f;
    GK_CUBLAS(cublasSnrm2(cb, (int)n, x, 1, &r));
    *out = r;
    return GV_OK;
}

static int scal(cublasHandle_t cb, int64_t n, double a, double *x)
{
    GK_CUBLAS(cublasDscal(cb, (int)n, &a, x, 1));
    return GV_OK;
}

static int scal(cublasHandle_t cb, int64_t n, double a, float *x)
{
    float af = (float)a;
    GK_CUBLAS(cublasSscal(cb, (int)n, &af, x, 1));
    return GV_OK;
}

/* y = M x - beta y */
template <typename T>
static int spmv(lsmr_state *st, cusparseConstSpMatDescr_t mat, cusparseDnVecDescr_t x,
                cusparseDnVecDescr_t y, double beta, void *buf)
{
    T one = T(1), mbeta = T(-beta);
    cudaDataType vt = gk_cuda_type<T>();
    GK_CUSPARSE(cusparseSpMV(st->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, x, &mbeta, y, vt,
                             CUSPARSE_SPMV_CSR_ALG2, buf));
    return GV_OK;
}

#define LSMR_TRY(call)                                                                             \
    do {                                                                                           \
        int lsmr_rc_ = (call);                                                                     \
        if (lsmr_rc_ != GV_OK) return lsmr_rc_;                                                    \
    } while (0)

/* beta u = u (scaled to unit length when nonzero); returns beta in *beta */
template <typename T> static int normalise(cublasHandle_t cb, int64_t len, T *vec, double *norm)
{
    LSMR_TRY(nrm2(cb, len, vec, norm));
    if (*norm > 0) LSMR_TRY(scal(cb, len, 1.0 / *norm, vec));
    return GV_OK;
}

template <typename T, bool NoDamp> static int lsmr_launch(gk_launch *L)
{
    lsmr_state *st = (lsmr_state *)L->state;
    cudaStream_t s = gk_stream(L);
    cublasHandle_t cb;
    LSMR_TRY(gk_cublas(L, &cb));
    GK_CUBLAS(cublasSetPointerMode(cb, CUBLAS_POINTER_MODE_HOST));
    snprintf(L->math_mode, sizeof L->math_mode, "CUBLAS_PEDANTIC_MATH, SPMV_CSR_ALG2");
    GK_CUSPARSE(cusparseSetStream(st->sp, s));
    int64_t m = st->m, n = st->n;
    T *x = (T *)L->out[0], *u = (T *)st->u, *v = (T *)st->v, *h = (T *)st->h;
    T *hbar = (T *)st->hbar;

    /* x0 = 0; beta1 u1 = b; alpha1 v1 = A^T u1; h1 = v1; hbar0 = 0 */
    GK_CUDA(cudaMemsetAsync(x, 0, (size_t)n * sizeof(T), s));
    GK_CUDA(cudaMemsetAsync(hbar, 0, (size_t)n * sizeof(T), s));
    GK_CUDA(cudaMemcpyAsync(u, L->in[1], (size_t)m * sizeof(T), cudaMemcpyDeviceToDevice, s));
    double alpha = 0.0, beta = 0.0;
    LSMR_TRY(normalise(cb, m, u, &beta));
    if (st->nnz > 0) {
        GK_CUDA(cudaMemsetAsync(v, 0, (size_t)n * sizeof(T), s)); /* beta = 0 reads no y */
        LSMR_TRY(spmv<T>(st, st->mat_at, st->vec_u, st->vec_v, 0.0, st->buf_at));
    } else {
        GK_CUDA(cudaMemsetAsync(v, 0, (size_t)n * sizeof(T), s));
    }
    LSMR_TRY(normalise(cb, n, v, &alpha));
    GK_CUDA(cudaMemcpyAsync(h, v, (size_t)n * sizeof(T), cudaMemcpyDeviceToDevice, s));

    gk_lsmr_scalars sc;
    double atol = gk_lsmr_atol(L->dtype);
    int istop = gk_lsmr_begin(&sc, alpha, beta, NoDamp ? 0.0 : st->lambda, atol, atol,
                              GK_LSMR_CONLIM_VALUE, gk_lsmr_maxiter(m, n));
    unsigned blocks = gk_blocks(n, 256);
    while (istop == GK_LSMR_RUNNING) {
        /* beta u = A v - alpha u;  alpha v = A^T u - beta v */
        LSMR_TRY(spmv<T>(st, st->mat_a, st->vec_v, st->vec_u, alpha, st->buf_a));
        LSMR_TRY(normalise(cb, m, u, &beta));
        LSMR_TRY(spmv<T>(st, st->mat_at, st->vec_u, st->vec_v, beta, st->buf_at));
        LSMR_TRY(normalise(cb, n, v, &alpha));

        gk_lsmr_coefs k;
        gk_lsmr_step(&sc, alpha, beta, &k);
        lsmr_update_kernel<T>
            <<<blocks, 256, 0, s>>>(n, (T)k.hbar_coef, (T)k.x_coef, (T)k.h_coef, v, h, hbar, x);
        GK_LAUNCHED("lsmr_update_kernel");
        double normx = 0.0;
        LSMR_TRY(nrm2(cb, n, x, &normx));
        istop = gk_lsmr_test(&sc, normx);
    }

    double *info = st->info_f64;
    info[GK_LSMR_INFO_ITERATIONS] = (double)sc.itn;
    info[GK_LSMR_INFO_ISTOP] = (double)istop;
    info[GK_LSMR_INFO_NORMR] = sc.normr;
    info[GK_LSMR_INFO_NORMAR] = sc.normar;
    info[GK_LSMR_INFO_NORMA] = sc.normA;
    info[GK_LSMR_INFO_CONDA] = sc.condA;
    const void *src = info;
    if (sizeof(T) == 4) {
        for (int i = 0; i < GK_LSMR_INFO_COUNT; i++)
            st->info_f32[i] = (float)info[i];
        src = st->info_f32;
    }
    GK_CUDA(
        cudaMemcpyAsync(L->out[1], src, GK_LSMR_INFO_COUNT * sizeof(T), cudaMemcpyHostToDevice, s));
    return GV_OK;
}

static int lsmr_ridge(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return lsmr_launch<decltype(x), false>(L); });
}

static int lsmr_ridge_nodamp(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto x) { return lsmr_launch<decltype(x), true>(L); });
}

extern "C" const gk_op gk_lsmr_ridge = {lsmr_setup, lsmr_ridge, lsmr_teardown};
extern "C" const gk_op gk_lsmr_ridge_nodamp = {lsmr_setup, lsmr_ridge_nodamp, lsmr_teardown};
