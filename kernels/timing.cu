/* timing.cu: the device side of timed runs (gpuval bench), apart from gk_run's correctness
 * path: one op's case held on the device for repeated timed samples (events, pinned host
 * copies for end-to-end samples, the L2 flush buffer for cold samples, the holding kernel
 * that lets the events time the GPU's work rather than the host's launch rate), and the
 * two ceilings a run measures (a device-to-device copy, a pedantic cuBLAS gemm).
 * The holding kernel follows nvbench's blocking_kernel (NVIDIA/nvbench,
 * nvbench/blocking_kernel.cu): spin on a flag in mapped host memory, give up after a
 * timeout so that an op whose launch waits on the device cannot deadlock the run. */
#include <cstdlib>
#include <cstring>

#include "gk_cuda.h"

/* Long enough for any sane enqueue of a sample, short enough that a deadlocked one costs
   little: the sample is then retaken without the hold. */
static const unsigned long long kHoldTimeoutNs = 2000000000ULL;

struct gk_bench {
    const gk_op *op;
    gk_launch L; /* owned copy: the op keeps its state in L.state between calls */
    size_t es;   /* element size of the case's dtype */
    cudaStream_t s;
    cudaEvent_t start, stop;
    void *pin_in[GK_MAX_TENSORS];
    void *pin_out[GK_MAX_TENSORS];
    bool have_io;
    void *flush;
    size_t flush_bytes;
    unsigned flush_round;
    int *hold;     /* mapped host memory: [0] release flag, [1] timed-out flag */
    int *hold_dev; /* the same two ints as the device sees them */
    bool queued;
    int hold_timeouts;
    bool set_up;
    bool e2e_done;
};

__device__ static inline unsigned long long gk_globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Hold the stream until the host sets flags[0]; after timeout_ns, set flags[1] and go. */
__global__ void gk_hold_kernel(volatile int *flags, unsigned long long timeout_ns)
{
    unsigned long long t0 = gk_globaltimer_ns();
    while (flags[0] == 0) {
        if (gk_globaltimer_ns() - t0 > timeout_ns) {
            flags[1] = 1;
            __threadfence_system();
            return;
        }
    }
}

/* Values in [0, 1) from a hash of the index, for inputs that have no host copy (ceilings):
   real data, not zeros, so the gemm's power draw and clocks are those of real work. */
template <typename T> __global__ void gk_fill_unit_kernel(T *x, int64_t n, unsigned salt)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned h = (unsigned)i * 2654435761u ^ salt;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = (T)((double)(h >> 8) * (1.0 / 16777216.0));
    }
}

static size_t in_bytes(const gk_bench *b, int i)
{
    return (size_t)b->L.in_count[i] * b->es;
}
static size_t out_bytes(const gk_bench *b, int i)
{
    return (size_t)b->L.out_count[i] * b->es;
}

static int fill_unit(gk_bench *b, int i)
{
    int64_t n = b->L.in_count[i];
    unsigned blocks = gk_blocks(n, 256, 65535);
    return gk_by_dtype(b->L.dtype, [&](auto x) {
        using T = decltype(x);
        gk_fill_unit_kernel<T><<<blocks, 256, 0, b->s>>>((T *)b->L.in[i], n, 77u * i);
        GK_LAUNCHED("gk_fill_unit_kernel");
        return (int)GV_OK;
    });
}

static int poison_outputs(gk_bench *b)
{
    for (int i = 0; i < b->L.n_out; i++)
        GK_CUDA(cudaMemsetAsync(b->L.out[i], GV_POISON_BYTE, out_bytes(b, i), b->s));
    return GV_OK;
}

/* Everything that stays out of the timed region, once: streams, events, memory, upload,
   the op's setup, a warm-up launch and a warm-up of the holding kernel. */
static int bench_prepare(gk_bench *b, const gk_host_io *io)
{
    gk_launch *L = &b->L;
    GK_CUDA(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking));
    L->stream = b->s;
    GK_CUDA(cudaEventCreate(&b->start));
    GK_CUDA(cudaEventCreate(&b->stop));
    GK_CUDA(cudaHostAlloc((void **)&b->hold, 2 * sizeof(int), cudaHostAllocMapped));
    GK_CUDA(cudaHostGetDevicePointer((void **)&b->hold_dev, b->hold, 0));

    cudaError_t e = cudaSuccess;
    for (int i = 0; i < L->n_in && e == cudaSuccess; i++) {
        void *p = NULL;
        e = cudaMalloc(&p, in_bytes(b, i) + 16);
        L->in[i] = p;
    }
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++)
        e = cudaMalloc(&L->out[i], out_bytes(b, i) + 16);
    if (e == cudaSuccess && L->workspace_bytes > 0)
        e = cudaMalloc(&L->workspace, (size_t)L->workspace_bytes);
    if (e != cudaSuccess) return gk_fail_cuda(e, "cudaMalloc of the timed case's tensors");

    if (io) {
        for (int i = 0; i < L->n_in; i++) {
            GK_CUDA(cudaMallocHost(&b->pin_in[i], in_bytes(b, i) + 16));
            memcpy(b->pin_in[i], io->in[i], in_bytes(b, i));
            GK_CUDA(cudaMemcpyAsync((void *)L->in[i], b->pin_in[i], in_bytes(b, i),
                                    cudaMemcpyHostToDevice, b->s));
        }
        for (int i = 0; i < L->n_out; i++)
            GK_CUDA(cudaMallocHost(&b->pin_out[i], out_bytes(b, i) + 16));
    } else {
        for (int i = 0; i < L->n_in; i++) {
            int rc = fill_unit(b, i);
            if (rc != GV_OK) return rc;
        }
    }
    int rc = gk_mode_check(L);
    if (rc != GV_OK) return rc;
    rc = poison_outputs(b);
    if (rc != GV_OK) return rc;
    if (b->op->setup) {
        rc = b->op->setup(L);
        if (rc != GV_OK) return rc;
    }
    b->set_up = true;
    rc = b->op->launch(L);
    if (rc != GV_OK) return rc;
    e = cudaStreamSynchronize(b->s);
    if (e != cudaSuccess) return gk_fail_cuda(e, "the op's warm-up launch (at synchronisation)");

    volatile int *flags = b->hold;
    flags[0] = 1;
    flags[1] = 0;
    gk_hold_kernel<<<1, 1, 0, b->s>>>((volatile int *)b->hold_dev, kHoldTimeoutNs);
    GK_LAUNCHED("gk_hold_kernel (warm-up)");
    GK_CUDA(cudaStreamSynchronize(b->s));
    b->queued = true;
    return GV_OK;
}

extern "C" int gk_bench_open(const gk_op *op, const gk_launch *Lin, const gk_host_io *io,
                             gk_bench **out)
{
    *out = NULL;
    if (!op || !op->launch || !Lin || Lin->n_in < 0 || Lin->n_in > GK_MAX_TENSORS ||
        Lin->n_out < 1 || Lin->n_out > GK_MAX_TENSORS)
        return GV_EINVAL;
    gk_pool_trim(); /* memory gk_run's pool holds idle counts as free (gk_mem_info) */
    gk_bench *b = (gk_bench *)calloc(1, sizeof *b);
    if (!b) return GV_ENOMEM;
    b->op = op;
    b->L = *Lin;
    b->L.op = op;
    b->L.stream = NULL;
    b->L.state = NULL;
    b->L.workspace = NULL;
    for (int i = 0; i < GK_MAX_TENSORS; i++) {
        b->L.in[i] = NULL;
        b->L.out[i] = NULL;
    }
    /* timed runs allocate every tensor dense (abi/layout.h's placements are a correctness
       matter, judged by gk_run): the kernels see no leading dimension or offset here */
    memset(b->L.in_place, 0, sizeof b->L.in_place);
    memset(b->L.out_place, 0, sizeof b->L.out_place);
    snprintf(b->L.math_mode, sizeof b->L.math_mode, "none");
    b->es = gv_dtype_size(b->L.dtype);
    b->have_io = io != NULL;
    int rc = bench_prepare(b, io);
    if (rc != GV_OK) {
        gk_bench_close(b);
        return rc;
    }
    *out = b;
    return GV_OK;
}

/* The timed region: (flush) start event, the launches (with transfers for E2E), stop. */
static int enqueue_timed(gk_bench *b, int scope, int reps)
{
    gk_launch *L = &b->L;
    if (scope == GK_SCOPE_COLD)
        GK_CUDA(cudaMemsetAsync(b->flush, (int)(b->flush_round++ & 0xff), b->flush_bytes, b->s));
    GK_CUDA(cudaEventRecord(b->start, b->s));
    for (int r = 0; r < reps; r++) {
        if (scope == GK_SCOPE_E2E)
            for (int i = 0; i < L->n_in; i++)
                GK_CUDA(cudaMemcpyAsync((void *)L->in[i], b->pin_in[i], in_bytes(b, i),
                                        cudaMemcpyHostToDevice, b->s));
        int rc = b->op->launch(L);
        if (rc != GV_OK) return rc;
        if (scope == GK_SCOPE_E2E)
            for (int i = 0; i < L->n_out; i++)
                GK_CUDA(cudaMemcpyAsync(b->pin_out[i], L->out[i], out_bytes(b, i),
                                        cudaMemcpyDeviceToHost, b->s));
    }
    GK_CUDA(cudaEventRecord(b->stop, b->s));
    return GV_OK;
}

static int sample_once(gk_bench *b, int scope, int reps, double *ms, bool *hold_timed_out)
{
    *hold_timed_out = false;
    if (scope == GK_SCOPE_E2E) {
        int rc = poison_outputs(b);
        if (rc != GV_OK) return rc;
    }
    volatile int *flags = b->hold;
    bool held = false;
    if (b->queued) {
        flags[0] = 0;
        flags[1] = 0;
        gk_hold_kernel<<<1, 1, 0, b->s>>>((volatile int *)b->hold_dev, kHoldTimeoutNs);
        GK_LAUNCHED("gk_hold_kernel");
        held = true;
    }
    int rc = enqueue_timed(b, scope, reps);
    if (held) flags[0] = 1; /* release: the whole sample is queued behind the hold */
    if (rc != GV_OK) {
        cudaStreamSynchronize(b->s);
        return rc;
    }
    cudaError_t e = cudaEventSynchronize(b->stop);
    if (e != cudaSuccess) return gk_fail_cuda(e, "a timed sample (at synchronisation)");
    if (held && flags[1]) *hold_timed_out = true;
    float f = 0.0f;
    GK_CUDA(cudaEventElapsedTime(&f, b->start, b->stop));
    *ms = (double)f / reps;
    if (scope == GK_SCOPE_E2E) b->e2e_done = true;
    return GV_OK;
}

extern "C" int gk_bench_sample(gk_bench *b, int scope, int reps, double *ms)
{
    *ms = 0.0;
    if (!b || scope < 0 || scope >= GK_NSCOPES || reps < 1) return GV_EINVAL;
    if (scope != GK_SCOPE_HOT) reps = 1;
    if (scope == GK_SCOPE_E2E && !b->have_io) return GV_EINVAL;
    if (scope == GK_SCOPE_COLD && !b->flush) {
        int64_t fb = gk_l2_flush_bytes();
        b->flush_bytes = fb > 0 ? (size_t)fb : (size_t)64 << 20;
        GK_CUDA(cudaMalloc(&b->flush, b->flush_bytes));
    }
    bool timed_out = false;
    int rc = sample_once(b, scope, reps, ms, &timed_out);
    if (rc == GV_OK && timed_out) {
        /* the op's launch waited on the device (or the launch queue filled): the events
           then timed host gaps too. Retake this and every later sample without the hold. */
        b->queued = false;
        b->hold_timeouts++;
        rc = sample_once(b, scope, reps, ms, &timed_out);
    }
    return rc;
}

extern "C" int gk_bench_result(gk_bench *b, int scope, const gk_host_io *io)
{
    if (!b || !io || scope < 0 || scope >= GK_NSCOPES) return GV_EINVAL;
    if (scope == GK_SCOPE_E2E) {
        if (!b->e2e_done) return GV_EINVAL;
        for (int i = 0; i < b->L.n_out; i++)
            memcpy(io->out[i], b->pin_out[i], out_bytes(b, i));
        return GV_OK;
    }
    int rc = poison_outputs(b);
    if (rc == GV_OK) rc = b->op->launch(&b->L);
    if (rc != GV_OK) {
        cudaStreamSynchronize(b->s);
        return rc;
    }
    cudaError_t e = cudaStreamSynchronize(b->s);
    if (e != cudaSuccess) return gk_fail_cuda(e, "the op's kernels (at synchronisation)");
    for (int i = 0; i < b->L.n_out; i++)
        GK_CUDA(cudaMemcpy(io->out[i], b->L.out[i], out_bytes(b, i), cudaMemcpyDeviceToHost));
    return GV_OK;
}

extern "C" int gk_bench_info_get(const gk_bench *b, gk_bench_info *info)
{
    memset(info, 0, sizeof *info);
    if (!b) return GV_EINVAL;
    snprintf(info->math_mode, sizeof info->math_mode, "%s", b->L.math_mode);
    info->queued = b->queued;
    info->hold_timeouts = b->hold_timeouts;
    info->flush_bytes = (int64_t)b->flush_bytes;
    int64_t bytes = b->L.workspace_bytes + (int64_t)b->flush_bytes;
    for (int i = 0; i < b->L.n_in; i++)
        bytes += (int64_t)in_bytes(b, i);
    for (int i = 0; i < b->L.n_out; i++)
        bytes += (int64_t)out_bytes(b, i);
    info->device_bytes = bytes;
    return GV_OK;
}

extern "C" void gk_bench_close(gk_bench *b)
{
    if (!b) return;
    if (b->s) cudaStreamSynchronize(b->s);
    if (b->set_up && b->op->teardown) b->op->teardown(&b->L);
    if (b->s) cudaStreamSynchronize(b->s);
    for (int i = 0; i < GK_MAX_TENSORS; i++) {
        cudaFree((void *)b->L.in[i]);
        cudaFree(b->L.out[i]);
        cudaFreeHost(b->pin_in[i]);
        cudaFreeHost(b->pin_out[i]);
    }
    cudaFree(b->L.workspace);
    cudaFree(b->flush);
    if (b->hold) cudaFreeHost(b->hold);
    if (b->start) cudaEventDestroy(b->start);
    if (b->stop) cudaEventDestroy(b->stop);
    if (b->s) cudaStreamDestroy(b->s);
    cudaGetLastError(); /* a failed case must not leave an error for the next one */
    free(b);
}

/* ---- ceilings ---------------------------------------------------------------------- */

static int copy_ceiling_launch(gk_launch *L)
{
    GK_CUDA(cudaMemcpyAsync(L->out[0], L->in[0], (size_t)L->in_count[0] * sizeof(float),
                            cudaMemcpyDeviceToDevice, gk_stream(L)));
    return GV_OK;
}

/* Square column-major product C = A B: the layout does not matter for a ceiling. */
static int gemm_ceiling_launch(gk_launch *L)
{
    cublasHandle_t h;
    int rc = gk_cublas(L, &h); /* the math mode gk_ceiling_gemm_open chose */
    if (rc != GV_OK) return rc;
    int64_t n = L->dims[0];
    /* the row-major call with A and B swapped is the same column-major call */
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        return gk_gemm_rowmajor<T>(h, n, n, n, (const T *)L->in[1], (const T *)L->in[0],
                                   (T *)L->out[0]);
    });
}

static const gk_op copy_ceiling_op = {NULL, copy_ceiling_launch, NULL};
static const gk_op gemm_ceiling_op = {NULL, gemm_ceiling_launch, NULL};

extern "C" int gk_ceiling_copy_open(int64_t bytes, gk_bench **out)
{
    *out = NULL;
    int64_t n = bytes / (int64_t)sizeof(float);
    if (n < 1) return GV_EINVAL;
    gk_launch L;
    memset(&L, 0, sizeof L);
    L.dtype = GV_F32;
    L.mode = GV_MODE_NATIVE;
    L.nd = 1;
    L.dims[0] = n;
    L.n_in = L.n_out = 1;
    L.in_count[0] = L.out_count[0] = n;
    return gk_bench_open(&copy_ceiling_op, &L, NULL, out);
}

extern "C" int gk_ceiling_gemm_open(int dtype, int64_t n, gk_bench **out)
{
    *out = NULL;
    if (n < 1 || n > 65536 || (dtype != GV_F32 && dtype != GV_F64)) return GV_EINVAL;
    gk_launch L;
    memset(&L, 0, sizeof L);
    L.dtype = dtype;
    /* f64: CUBLAS_DEFAULT_MATH. It multiplies in IEEE f64 as pedantic math does, but cuBLAS
       13.1 on an H100 picks DGEMM kernels 1.26-1.28x faster for it (tools/cublas_probe; CuPy's
       default matmul is that fast too, ci/side-by-side): a pedantic ceiling would sit below
       what the device does and flatter every "% of gemm". f32: pedantic math, since default
       math may turn into TF32 behind the caller's back (NVIDIA_TF32_OVERRIDE). */
    L.mode = dtype == GV_F64 ? GV_MODE_DEFAULT : GV_MODE_NATIVE;
    L.nd = 3;
    L.dims[0] = L.dims[1] = L.dims[2] = n;
    L.n_in = 2;
    L.n_out = 1;
    L.in_count[0] = L.in_count[1] = L.out_count[0] = n * n;
    return gk_bench_open(&gemm_ceiling_op, &L, NULL, out);
}

extern "C" int64_t gk_l2_flush_bytes(void)
{
    int dev = 0, l2 = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return 2 * (int64_t)l2;
}
