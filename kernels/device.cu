/* device.cu: the device layer — device query and fingerprint, memory, error naming, the
 * cached cuBLAS handle, and gk_run, the correctness run of one op with its guards (red zones
 * around every buffer, inputs compared with their host copies). The only mutable global
 * state of the project besides the CLI's options lives here (last error, library handles). */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gk_cuda.h"

static_assert(GV_REDZONE_BYTES % 256 == 0, "red zones keep cudaMalloc's 256-byte alignment");

static char g_last_error[256];
static cublasHandle_t g_cublas;

extern "C" const char *gk_last_error(void)
{
    return g_last_error;
}

int gk_fail_cuda(cudaError_t e, const char *where)
{
    snprintf(g_last_error, sizeof g_last_error, "%s in %s", cudaGetErrorName(e), where);
    cudaGetLastError(); /* clear a sticky-free error so later calls start clean */
    return e == cudaErrorMemoryAllocation ? GV_EDEVMEM : GV_ECUDA;
}

int gk_fail_lib(const char *lib, int status, const char *status_name, const char *where)
{
    snprintf(g_last_error, sizeof g_last_error, "%s %s (%d) in %s", lib, status_name, status,
             where);
    return (strstr(status_name, "ALLOC") != NULL) ? GV_EDEVMEM : GV_ELIB;
}

int gk_fail_unsupported(const char *what)
{
    snprintf(g_last_error, sizeof g_last_error, "%s", what);
    return GV_EUNSUPPORTED;
}

int gk_fail_internal(const char *what)
{
    snprintf(g_last_error, sizeof g_last_error, "%s", what);
    return GV_EINTERNAL;
}

extern "C" int gk_hook_status(int user_rc, const char *where)
{
    if (user_rc != 0) return gk_fail_cuda((cudaError_t)user_rc, where);
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? GV_OK : gk_fail_cuda(e, where);
}

extern "C" void gk_clear_error(void)
{
    g_last_error[0] = '\0';
}

int gk_fail_guard(const char *what)
{
    snprintf(g_last_error, sizeof g_last_error, "%s", what);
    return GV_EGUARD;
}

const char *gk_cublas_status_name(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

/* gk_device_select's choice: made current by gk_device_count, which every path calls before
   its first launch (a case, the device query, a timed run). Selecting touches no CUDA state,
   so check's parent can select and still fork children that initialise CUDA themselves. */
static int g_selected_device = -1;

extern "C" void gk_device_choose(int index)
{
    g_selected_device = index;
}

extern "C" int gk_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    if (g_selected_device >= 0 && g_selected_device < n &&
        cudaSetDevice(g_selected_device) != cudaSuccess)
        cudaGetLastError();
    return n;
}

extern "C" int gk_mem_info(int64_t *free_bytes, int64_t *total_bytes)
{
    size_t f = 0, t = 0;
    GK_CUDA(cudaMemGetInfo(&f, &t));
    *free_bytes = (int64_t)f;
    *total_bytes = (int64_t)t;
    return GV_OK;
}

extern "C" int gk_device_info_get(gk_device_info *info)
{
    memset(info, 0, sizeof *info);
    int dev = 0;
    GK_CUDA(cudaGetDevice(&dev));
    cudaDeviceProp p;
    GK_CUDA(cudaGetDeviceProperties(&p, dev));
    snprintf(info->name, sizeof info->name, "%.127s", p.name);
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    int v = 0;
    /* clocks in kHz through attributes (the properties' clock fields left CUDA 13) */
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev) == cudaSuccess)
        info->sm_clock_mhz = v / 1000;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev) == cudaSuccess)
        info->mem_clock_mhz = v / 1000;
    cudaGetLastError();
    info->mem_bus_bits = p.memoryBusWidth;
    info->l2_bytes = p.l2CacheSize;
    info->ecc_enabled = p.ECCEnabled;
    size_t f = 0, t = 0;
    GK_CUDA(cudaMemGetInfo(&f, &t));
    info->mem_total_bytes = (int64_t)t;
    info->mem_free_bytes = (int64_t)f;
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    cublasGetProperty(MAJOR_VERSION, &v);
    info->cublas_version = v * 10000;
    cublasGetProperty(MINOR_VERSION, &v);
    info->cublas_version += v * 100;
    cublasGetProperty(PATCH_LEVEL, &v);
    info->cublas_version += v;
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(info->uuid, sizeof info->uuid,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    return GV_OK;
}

int gk_cublas(gk_launch *L, cublasHandle_t *h)
{
    if (!g_cublas) GK_CUBLAS(cublasCreate(&g_cublas));
    GK_CUBLAS(cublasSetStream(g_cublas, gk_stream(L)));
    /* every call sets everything it depends on: the handle is shared between cases */
    cublasMath_t mm = CUBLAS_PEDANTIC_MATH;
    const char *name = "CUBLAS_PEDANTIC_MATH";
    cublasEmulationStrategy_t strategy = CUBLAS_EMULATION_STRATEGY_DEFAULT;
    int fixed_bits = gv_mode_get(L->mode)->input_bits;
    switch (L->mode) {
    case GV_MODE_TF32:
        mm = CUBLAS_TF32_TENSOR_OP_MATH;
        name = "CUBLAS_TF32_TENSOR_OP_MATH";
        break;
    case GV_MODE_DEFAULT:
        mm = CUBLAS_DEFAULT_MATH;
        name = "CUBLAS_DEFAULT_MATH";
        break;
    case GV_MODE_BF16X9:
        mm = CUBLAS_FP32_EMULATED_BF16X9_MATH;
        name = "CUBLAS_FP32_EMULATED_BF16X9_MATH eager";
        strategy = CUBLAS_EMULATION_STRATEGY_EAGER;
        break;
    case GV_MODE_FP64EMU:
    case GV_MODE_FP64EMU_32:
    case GV_MODE_FP64EMU_40:
    case GV_MODE_FP64EMU_48:
    case GV_MODE_FP64EMU_56:
        mm = CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH;
        name = "CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH eager";
        strategy = CUBLAS_EMULATION_STRATEGY_EAGER;
        break;
    default: break;
    }
    GK_CUBLAS(cublasSetMathMode(g_cublas, mm));
    GK_CUBLAS(cublasSetEmulationStrategy(g_cublas, strategy));
    if (mm == CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH && fixed_bits > 0) {
        GK_CUBLAS(cublasSetFixedPointEmulationMantissaControl(
            g_cublas, CUDA_EMULATION_MANTISSA_CONTROL_FIXED));
        GK_CUBLAS(cublasSetFixedPointEmulationMaxMantissaBitCount(g_cublas, fixed_bits));
        snprintf(L->math_mode, sizeof L->math_mode, "%s,%db", name, fixed_bits & 127); /* <= 64 */
    } else {
        GK_CUBLAS(cublasSetFixedPointEmulationMantissaControl(
            g_cublas, CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC));
        snprintf(L->math_mode, sizeof L->math_mode, "%s", name);
    }
    *h = g_cublas;
    return GV_OK;
}

static size_t elem_size(const gk_launch *L)
{
    return gv_dtype_size(L->dtype);
}

static size_t in_bytes(const gk_launch *L, int i)
{
    return (size_t)L->in_count[i] * elem_size(L);
}

static size_t out_bytes(const gk_launch *L, int i)
{
    return (size_t)L->out_count[i] * elem_size(L);
}

/* Red-zoned buffers: cudaMalloc gives base, the op gets base + GV_REDZONE_BYTES; the red
   zones are [base, p) and [p + bytes, p + bytes + GV_REDZONE_BYTES). */
static char *guard_base(const void *p)
{
    return (char *)p - GV_REDZONE_BYTES;
}

static cudaError_t alloc_guarded(void **p, size_t bytes)
{
    void *base = NULL;
    cudaError_t e = cudaMalloc(&base, bytes + 2 * (size_t)GV_REDZONE_BYTES);
    *p = e == cudaSuccess ? (char *)base + GV_REDZONE_BYTES : NULL;
    return e;
}

static void free_guarded(const void *p)
{
    if (p) cudaFree(guard_base(p));
}

static cudaError_t fill_guards(const void *p, size_t bytes, cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(guard_base(p), GV_REDZONE_BYTE, GV_REDZONE_BYTES, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync((char *)p + bytes, GV_REDZONE_BYTE, GV_REDZONE_BYTES, s);
    return e;
}

static void free_buffers(gk_launch *L)
{
    for (int i = 0; i < L->n_in; i++)
        free_guarded(L->in[i]);
    for (int i = 0; i < L->n_out; i++)
        free_guarded(L->out[i]);
    free_guarded(L->workspace);
    for (int i = 0; i < GK_MAX_TENSORS; i++) {
        L->in[i] = NULL;
        L->out[i] = NULL;
    }
    L->workspace = NULL;
}

/* Allocate every tensor and the workspace with red zones; on failure free what was taken. */
static int alloc_buffers(gk_launch *L)
{
    for (int i = 0; i < GK_MAX_TENSORS; i++) {
        L->in[i] = NULL;
        L->out[i] = NULL;
    }
    L->workspace = NULL;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < L->n_in && e == cudaSuccess; i++) {
        void *p = NULL;
        e = alloc_guarded(&p, in_bytes(L, i));
        L->in[i] = p;
    }
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++)
        e = alloc_guarded(&L->out[i], out_bytes(L, i));
    if (e == cudaSuccess && L->workspace_bytes > 0)
        e = alloc_guarded(&L->workspace, (size_t)L->workspace_bytes);
    if (e != cudaSuccess) {
        int rc = gk_fail_cuda(e, "cudaMalloc of the case's tensors");
        free_buffers(L);
        return rc;
    }
    return GV_OK;
}

/* Upload the inputs, poison the outputs, fill every red zone. */
static cudaError_t upload_and_poison(gk_launch *L, const gk_host_io *io, cudaStream_t s)
{
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < L->n_in && e == cudaSuccess; i++) {
        e = cudaMemcpyAsync((void *)L->in[i], io->in[i], in_bytes(L, i), cudaMemcpyHostToDevice, s);
        if (e == cudaSuccess) e = fill_guards(L->in[i], in_bytes(L, i), s);
    }
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++) {
        e = cudaMemsetAsync(L->out[i], GV_POISON_BYTE, out_bytes(L, i), s);
        if (e == cudaSuccess) e = fill_guards(L->out[i], out_bytes(L, i), s);
    }
    if (e == cudaSuccess && L->workspace)
        e = fill_guards(L->workspace, (size_t)L->workspace_bytes, s);
    return e;
}

/* ---- Guard checks: what the op wrote outside its tensors or into its inputs ---------- */

/* The first violation found (in the order checked) and how many there were. */
struct guard_report {
    int violations;
    char first[200];
};

static void guard_note(guard_report *g, const char *msg)
{
    if (g->violations++ == 0) snprintf(g->first, sizeof g->first, "%s", msg);
}

/* "output 0 (c)", "input 1", "the workspace" */
static void tensor_label(char *buf, size_t len, const char *kind, int i, const char *name)
{
    if (i < 0)
        snprintf(buf, len, "the %s", kind);
    else if (name && name[0])
        snprintf(buf, len, "%s %d (%.40s)", kind, i, name);
    else
        snprintf(buf, len, "%s %d", kind, i);
}

/* Read back both red zones of the buffer p of `bytes` and note each one that changed: how
   many of its bytes differ and where the first (in address order) lies from the tensor. */
static cudaError_t check_zones(const void *p, size_t bytes, const char *label, cudaStream_t s,
                               guard_report *g)
{
    unsigned char before[GV_REDZONE_BYTES], after[GV_REDZONE_BYTES];
    cudaError_t e =
        cudaMemcpyAsync(before, guard_base(p), GV_REDZONE_BYTES, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(after, (const char *)p + bytes, GV_REDZONE_BYTES,
                            cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return e;
    int nb = 0, first_b = -1, na = 0, first_a = -1;
    for (int k = 0; k < GV_REDZONE_BYTES; k++) {
        if (before[k] != GV_REDZONE_BYTE) {
            nb++;
            if (first_b < 0) first_b = k;
        }
        if (after[k] != GV_REDZONE_BYTE) {
            na++;
            if (first_a < 0) first_a = k;
        }
    }
    char msg[200];
    if (nb) {
        snprintf(msg, sizeof msg,
                 "wrote %d bytes before the start of %s, first at offset -%d from its start", nb,
                 label, GV_REDZONE_BYTES - first_b);
        guard_note(g, msg);
    }
    if (na) {
        snprintf(msg, sizeof msg,
                 "wrote %d bytes past the end of %s, first at offset +%d from its end", na, label,
                 first_a);
        guard_note(g, msg);
    }
    return cudaSuccess;
}

/* The input check's staging: two pinned host buffers of kInputCheckChunk bytes, taken on the
   first check and kept for the process (a case's inputs reach gigabytes: pinned copies run at
   the link's speed, and the buffers are not faulted in again for every case). Pageable
   memory where pinning fails. */
static const size_t kInputCheckChunk = (size_t)32 << 20;
static unsigned char *g_stage[2];

static bool stage_buffers(void)
{
    if (g_stage[0]) return true;
    void *p = NULL;
    if (cudaMallocHost(&p, 2 * kInputCheckChunk) != cudaSuccess) {
        cudaGetLastError(); /* not sticky: clear it, and stage in pageable memory */
        p = malloc(2 * kInputCheckChunk);
        if (!p) return false;
    }
    g_stage[0] = (unsigned char *)p;
    g_stage[1] = g_stage[0] + kInputCheckChunk;
    return true;
}

/* Read input i back in chunks and compare each with its host copy element by element (bytes,
   so a NaN compares equal to itself); chunk k + 1 is copied while chunk k is compared. */
static cudaError_t check_input(const gk_launch *L, int i, const void *host, const char *label,
                               cudaStream_t s, guard_report *g)
{
    size_t es = elem_size(L), total = in_bytes(L, i);
    const unsigned char *want = (const unsigned char *)host;
    const unsigned char *dev = (const unsigned char *)L->in[i];
    int64_t differ = 0, first = -1;
    cudaEvent_t copied[2] = {NULL, NULL};
    cudaError_t e = cudaEventCreateWithFlags(&copied[0], cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&copied[1], cudaEventDisableTiming);
    size_t len0 = total < kInputCheckChunk ? total : kInputCheckChunk;
    if (e == cudaSuccess) e = cudaMemcpyAsync(g_stage[0], dev, len0, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaEventRecord(copied[0], s);
    for (size_t off = 0, k = 0; e == cudaSuccess && off < total; k++) {
        size_t len = total - off < kInputCheckChunk ? total - off : kInputCheckChunk;
        size_t next = off + len;
        if (next < total) {
            /* the other buffer's chunk was compared in the previous round */
            size_t nlen = total - next < kInputCheckChunk ? total - next : kInputCheckChunk;
            e = cudaMemcpyAsync(g_stage[(k + 1) % 2], dev + next, nlen, cudaMemcpyDeviceToHost, s);
            if (e == cudaSuccess) e = cudaEventRecord(copied[(k + 1) % 2], s);
        }
        if (e == cudaSuccess) e = cudaEventSynchronize(copied[k % 2]);
        if (e != cudaSuccess) break;
        const unsigned char *buf = g_stage[k % 2];
        if (memcmp(buf, want + off, len) != 0) {
            for (size_t b = 0; b < len; b += es) {
                if (memcmp(buf + b, want + off + b, es) != 0) {
                    if (first < 0) first = (int64_t)((off + b) / es);
                    differ++;
                }
            }
        }
        off = next;
    }
    /* nothing may still be copying into the staging when it is reused or the case ends */
    cudaError_t drained = cudaStreamSynchronize(s);
    if (e == cudaSuccess) e = drained;
    for (int b = 0; b < 2; b++)
        if (copied[b]) cudaEventDestroy(copied[b]);
    if (e != cudaSuccess) return e;
    if (differ) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s changed: %lld of %lld elements differ, first at element %lld",
                 label, (long long)differ, (long long)L->in_count[i], (long long)first);
        guard_note(g, msg);
    }
    return cudaSuccess;
}

/* All guards of a finished launch: outputs' red zones, then inputs' red zones and contents,
   then the workspace's red zones. GV_OK, GV_EGUARD (first violation and count in the last
   error), or the failure of a read-back. */
static int check_guards(const gk_launch *L, const gk_host_io *io, cudaStream_t s)
{
    guard_report g;
    g.violations = 0;
    g.first[0] = '\0';
    char label[64];
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++) {
        tensor_label(label, sizeof label, "output", i, L->out_name[i]);
        e = check_zones(L->out[i], out_bytes(L, i), label, s, &g);
    }
    if (L->n_in > 0 && !stage_buffers()) {
        snprintf(g_last_error, sizeof g_last_error,
                 "out of host memory for the input check (%zu bytes)", 2 * kInputCheckChunk);
        return GV_ENOMEM;
    }
    for (int i = 0; i < L->n_in && e == cudaSuccess; i++) {
        tensor_label(label, sizeof label, "input", i, L->in_name[i]);
        e = check_zones(L->in[i], in_bytes(L, i), label, s, &g);
        if (e == cudaSuccess && in_bytes(L, i) > 0) e = check_input(L, i, io->in[i], label, s, &g);
    }
    if (e == cudaSuccess && L->workspace)
        e = check_zones(L->workspace, (size_t)L->workspace_bytes, "the workspace", s, &g);
    if (e != cudaSuccess) return gk_fail_cuda(e, "the guard check's read-back");
    if (g.violations == 0) return GV_OK;
    char msg[256];
    if (g.violations > 1)
        snprintf(msg, sizeof msg, "%s; %d guard violations in all", g.first, g.violations);
    else
        snprintf(msg, sizeof msg, "%s", g.first);
    return gk_fail_guard(msg);
}

/* GPUVAL_INJECT_FAULT=launch: gk_run stops where it would launch (gk.h). */
static bool inject_launch_fault(void)
{
    const char *f = getenv("GPUVAL_INJECT_FAULT");
    return f && strcmp(f, "launch") == 0;
}

extern "C" int gk_run(const gk_op *op, gk_launch *L, const gk_host_io *io)
{
    cudaStream_t s;
    GK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    L->stream = s;
    L->state = NULL;
    L->op = op;
    snprintf(L->math_mode, sizeof L->math_mode, "none");
    int rc = alloc_buffers(L);
    bool set_up = false;
    if (rc == GV_OK) {
        cudaError_t e = upload_and_poison(L, io, s);
        if (e != cudaSuccess) rc = gk_fail_cuda(e, "upload, poison and red zones");
    }
    if (rc == GV_OK && op->setup) {
        rc = op->setup(L);
        set_up = rc == GV_OK;
    } else if (rc == GV_OK) {
        set_up = true;
    }
    if (rc == GV_OK && inject_launch_fault()) {
        snprintf(g_last_error, sizeof g_last_error, "injected fault (GPUVAL_INJECT_FAULT=launch)");
        rc = GV_ECUDA;
    }
    if (rc == GV_OK) rc = op->launch(L);
    if (rc == GV_OK) rc = gk_perturb_if_planted(L);
    if (rc == GV_OK) {
        cudaError_t e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) rc = gk_fail_cuda(e, "the op's kernels (at synchronisation)");
    }
    if (rc == GV_OK) {
        cudaError_t e = cudaSuccess;
        for (int i = 0; i < L->n_out && e == cudaSuccess; i++)
            e = cudaMemcpyAsync(io->out[i], L->out[i], out_bytes(L, i), cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) rc = gk_fail_cuda(e, "download");
    }
    /* after the download: a guard violation still hands its outputs to the metrics */
    if (rc == GV_OK) rc = check_guards(L, io, s);
    if (set_up && op->teardown) op->teardown(L);
    cudaStreamSynchronize(s);
    free_buffers(L);
    cudaStreamDestroy(s);
    L->stream = NULL;
    return rc;
}
