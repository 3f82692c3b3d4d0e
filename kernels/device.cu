/* device.cu: the device layer — device query and fingerprint, memory, error naming, the
 * cached cuBLAS handle, and gk_run, the correctness run of one op with its guards (red zones
 * around every buffer, inputs hashed on the device before and after the op, and read back and
 * compared with their host copies where the hashes differ). Its memory pool is in devmem.cu,
 * its copies and the hash in xfer.cu. The only mutable global state of the project besides
 * the CLI's options lives in these files (last error, library handles, pool, staging). */
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

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

/* Free device memory as a case sees it: what the device reports free plus what gk_run's pool
   holds idle (a case takes it from the pool, or the pool gives it back first). */
static cudaError_t free_for_cases(size_t *f, size_t *t)
{
    cudaError_t e = cudaMemGetInfo(f, t);
    if (e != cudaSuccess) return e;
    size_t idle = gk_pool_idle_bytes();
    *f = *f + idle < *t ? *f + idle : *t;
    return cudaSuccess;
}

extern "C" int gk_mem_info(int64_t *free_bytes, int64_t *total_bytes)
{
    size_t f = 0, t = 0;
    GK_CUDA(free_for_cases(&f, &t));
    *free_bytes = (int64_t)f;
    *total_bytes = (int64_t)t;
    return GV_OK;
}

/* One kernel of this object: every kernel object is built with the same -gencode flags, so the
   code the driver picks for it is what it picks for all of gpuval's kernels. */
__global__ void gk_code_probe_kernel() {}

/* The code a kernel runs on a device does not change while the process lives: each
   (kernel, device) is asked once (cudaFuncGetAttributes costs microseconds, and the f64
   gemm.regblock asks before every launch). */
struct code_seen {
    const void *func;
    int dev, ptx;
};
static code_seen code_cache[64];
static int code_cached;
static std::mutex code_mu;

extern "C" bool gk_code_has(const void *func, int arch)
{
    if (gk_get_knobs()->generic_kernels) return false;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return false; /* the launch that follows reports it */
    }
    {
        std::lock_guard<std::mutex> lock(code_mu);
        for (int i = 0; i < code_cached; i++)
            if (code_cache[i].func == func && code_cache[i].dev == dev)
                return code_cache[i].ptx >= arch;
    }
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, func) != cudaSuccess) {
        cudaGetLastError();
        return false; /* the launch that follows reports it; nothing kept */
    }
    std::lock_guard<std::mutex> lock(code_mu);
    if (code_cached < (int)(sizeof code_cache / sizeof code_cache[0]))
        code_cache[code_cached++] = {func, dev, a.ptxVersion};
    return a.ptxVersion >= arch;
}

/* Which code of GV_CUDA_ARCH ("sm_80,sm_90,compute_75,compute_90") runs on this device. */
static void code_info(gk_device_info *info)
{
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, (const void *)gk_code_probe_kernel) != cudaSuccess) {
        cudaGetLastError();
        info->binary_arch = info->ptx_arch = 0;
        info->native = -1;
        return;
    }
    info->binary_arch = a.binaryVersion;
    info->ptx_arch = a.ptxVersion;
    /* SASS sm_XY runs as it is on a device X.Z with Z >= Y (the CUDA programming guide's
       binary compatibility); the driver prefers it to PTX unless told to JIT */
    bool sass = false;
    const char *s = GV_CUDA_ARCH;
    while ((s = strstr(s, "sm_")) != NULL) {
        int v = atoi(s + 3);
        if (v / 10 == info->cc_major && v % 10 <= info->cc_minor) sass = true;
        s += 3;
    }
    info->native = sass && !gk_get_knobs()->force_ptx_jit;
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
    code_info(info);
    size_t f = 0, t = 0;
    GK_CUDA(free_for_cases(&f, &t));
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
        /* the handle is shared by every case of the process: a fixed width set by an earlier
           fp64emuNN case would otherwise cap the automatic emulation's dynamic width (seen on
           an H100: the automatic row's cr_share read 43.2 after the fixed rows, 70.6 alone).
           0 restores cuBLAS's default maximum. */
        GK_CUBLAS(cublasSetFixedPointEmulationMaxMantissaBitCount(g_cublas, 0));
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

/* The bytes of a tensor's device image: its elements, and the padding between its rows where
   its placement has a leading dimension (abi/layout.h). */
static size_t in_bytes(const gk_launch *L, int i)
{
    return (size_t)gk_place_span(&L->in_place[i], L->in_count[i]) * elem_size(L);
}

static size_t out_bytes(const gk_launch *L, int i)
{
    return (size_t)gk_place_span(&L->out_place[i], L->out_count[i]) * elem_size(L);
}

/* The device memory of one case besides its tensors: where it comes from, and the input
   hashes of the input guard (check_guards). */
struct case_mem {
    cudaMemPool_t pool; /* stream-ordered from this pool (kernels/devmem.cu), or NULL: cudaMalloc */
    /* Per input i: lanes before the op at [4 i], [4 i + 1], after it at [4 i + 2], [4 i + 3]. */
    unsigned long long *hashes;
    bool hashed[GK_MAX_TENSORS]; /* the before-hash of input i was enqueued */
    /* Host images of the tensors that are not dense (abi/layout.h), NULL for dense ones: an
       input's as uploaded (padding of the red-zone byte), which the input check compares
       with; an output's as downloaded, which the padding check reads and the packed output
       is taken from. */
    unsigned char *in_image[GK_MAX_TENSORS];
    unsigned char *out_image[GK_MAX_TENSORS];
};

static cudaError_t dev_alloc(void **p, size_t bytes, const case_mem *m, cudaStream_t s)
{
    if (m->pool) return cudaMallocFromPoolAsync(p, bytes, m->pool, s);
    return cudaMalloc(p, bytes);
}

static void dev_free(void *p, const case_mem *m, cudaStream_t s)
{
    if (!p) return;
    if (m->pool)
        cudaFreeAsync(p, s);
    else
        cudaFree(p);
}

/* Red-zoned buffers: the allocator gives base, the op gets p = base + offset +
   GV_REDZONE_BYTES (offset: the placement's, abi/layout.h, 0 for dense tensors); the red
   zones are [p - GV_REDZONE_BYTES, p) and [p + bytes, p + bytes + GV_REDZONE_BYTES), right
   against the tensor's first and last used byte whatever its offset. */
static char *guard_base(const void *p)
{
    return (char *)p - GV_REDZONE_BYTES;
}

/* cudaErrorMisalignedAddress: the pool gave a block that is not 256-byte aligned (cudaMalloc's
   alignment, which the ops' vector loads rely on); it was given back. */
static cudaError_t alloc_guarded(void **p, size_t bytes, size_t offset, const case_mem *m,
                                 cudaStream_t s)
{
    void *base = NULL;
    *p = NULL;
    assert(offset < 256);
    cudaError_t e = dev_alloc(&base, offset + bytes + 2 * (size_t)GV_REDZONE_BYTES, m, s);
    if (e != cudaSuccess) return e;
    if ((uintptr_t)base % 256 != 0) {
        dev_free(base, m, s);
        return cudaErrorMisalignedAddress;
    }
    *p = (char *)base + offset + GV_REDZONE_BYTES;
    /* what the op is promised: 256-byte aligned, or exactly its placement's offset past that */
    assert((uintptr_t)*p % 256 == offset && guard_base(*p) == (char *)base + offset);
    return cudaSuccess;
}

static void free_guarded(const void *p, size_t offset, const case_mem *m, cudaStream_t s)
{
    if (p) dev_free(guard_base(p) - offset, m, s);
}

static cudaError_t fill_guards(const void *p, size_t bytes, cudaStream_t s)
{
    cudaError_t e = cudaMemsetAsync(guard_base(p), GV_REDZONE_BYTE, GV_REDZONE_BYTES, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync((char *)p + bytes, GV_REDZONE_BYTE, GV_REDZONE_BYTES, s);
    return e;
}

/* Free every buffer on s (pooled: in stream order; the caller synchronises s before the
   memory counts as free). */
static void free_buffers(gk_launch *L, case_mem *m, cudaStream_t s)
{
    for (int i = 0; i < L->n_in; i++)
        free_guarded(L->in[i], (size_t)L->in_place[i].offset_bytes, m, s);
    for (int i = 0; i < L->n_out; i++)
        free_guarded(L->out[i], (size_t)L->out_place[i].offset_bytes, m, s);
    free_guarded(L->workspace, 0, m, s);
    dev_free(m->hashes, m, s);
    for (int i = 0; i < GK_MAX_TENSORS; i++) {
        L->in[i] = NULL;
        L->out[i] = NULL;
        free(m->in_image[i]);
        free(m->out_image[i]);
        m->in_image[i] = m->out_image[i] = NULL;
    }
    L->workspace = NULL;
    m->hashes = NULL;
}

static cudaError_t alloc_all(gk_launch *L, case_mem *m, cudaStream_t s)
{
    for (int i = 0; i < GK_MAX_TENSORS; i++) {
        L->in[i] = NULL;
        L->out[i] = NULL;
    }
    L->workspace = NULL;
    m->hashes = NULL;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < L->n_in && e == cudaSuccess; i++) {
        void *p = NULL;
        e = alloc_guarded(&p, in_bytes(L, i), (size_t)L->in_place[i].offset_bytes, m, s);
        L->in[i] = p;
    }
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++)
        e = alloc_guarded(&L->out[i], out_bytes(L, i), (size_t)L->out_place[i].offset_bytes, m, s);
    if (e == cudaSuccess && L->workspace_bytes > 0)
        e = alloc_guarded(&L->workspace, (size_t)L->workspace_bytes, 0, m, s);
    if (e == cudaSuccess && L->n_in > 0) {
        e = dev_alloc((void **)&m->hashes, 4 * GK_MAX_TENSORS * sizeof *m->hashes, m, s);
        if (e == cudaSuccess && (uintptr_t)m->hashes % 256 != 0) e = cudaErrorMisalignedAddress;
    }
    return e;
}

/* Allocate every tensor and the workspace with red zones, and the input hashes; on failure
   free what was taken. From the pool, a failed try is taken again once with plain cudaMalloc
   after a misaligned block (and the pool left for good), or after the pool's idle memory was
   given back. With the tensors taken, idle pool memory is given back too when less than a
   quarter of the device is free, so that the op's own allocations (library workspaces) find
   what they found before the pool. */
static int alloc_buffers(gk_launch *L, case_mem *m, cudaStream_t s)
{
    cudaError_t e = alloc_all(L, m, s);
    if (e != cudaSuccess && m->pool) {
        free_buffers(L, m, s);
        cudaStreamSynchronize(s);
        cudaGetLastError(); /* an allocation failure is not sticky */
        if (e == cudaErrorMisalignedAddress) {
            gk_pool_disable();
            m->pool = NULL;
        } else {
            gk_pool_trim();
        }
        e = alloc_all(L, m, s);
    }
    if (e != cudaSuccess) {
        int rc = gk_fail_cuda(e, m->pool ? "cudaMallocFromPoolAsync of the case's tensors"
                                         : "cudaMalloc of the case's tensors");
        free_buffers(L, m, s);
        cudaStreamSynchronize(s);
        return rc;
    }
    size_t free_b = 0, total_b = 0;
    if (m->pool && gk_pool_idle_bytes() > 0 && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess &&
        free_b < total_b / 4)
        gk_pool_trim();
    cudaGetLastError();
    return GV_OK;
}

/* The input hash covers a tensor from the 8-byte boundary at or before its start (the hash
   loads words; the bytes before the start are red zone, unchanged unless a guard sees it). */
static cudaError_t hash_input(const gk_launch *L, int i, unsigned long long *out, cudaStream_t s)
{
    size_t lead = (uintptr_t)L->in[i] % 8;
    return gk_hash_enqueue((const char *)L->in[i] - lead, in_bytes(L, i) + lead, out, s);
}

/* Upload the inputs, poison the outputs, fill every red zone; then hash every input as the
   op will find it (the input guard's "before"). A hash that cannot be enqueued leaves
   m->hashed[i] false: that input is then read back in full after the op. A tensor that is
   not dense (abi/layout.h) goes up as its host image: elements where its placement puts them,
   the padding between its rows the red-zone byte, so that the padding is a guard too. */
static cudaError_t upload_and_poison(gk_launch *L, const gk_host_io *io, case_mem *m,
                                     cudaStream_t s)
{
    cudaError_t e = cudaSuccess;
    const int64_t es = (int64_t)elem_size(L);
    for (int i = 0; i < L->n_in && e == cudaSuccess; i++) {
        const void *src = io->in[i];
        if (!gk_place_dense(&L->in_place[i])) {
            m->in_image[i] = (unsigned char *)malloc(in_bytes(L, i) ? in_bytes(L, i) : 1);
            if (!m->in_image[i]) return cudaErrorMemoryAllocation;
            gk_place_pack(&L->in_place[i], L->in_count[i], es, GV_REDZONE_BYTE, io->in[i],
                          m->in_image[i]);
            src = m->in_image[i];
        }
        e = gk_copy_to_device((void *)L->in[i], src, in_bytes(L, i), s);
        if (e == cudaSuccess) e = fill_guards(L->in[i], in_bytes(L, i), s);
    }
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++) {
        if (gk_place_dense(&L->out_place[i])) {
            e = cudaMemsetAsync(L->out[i], GV_POISON_BYTE, out_bytes(L, i), s);
        } else {
            m->out_image[i] = (unsigned char *)malloc(out_bytes(L, i) ? out_bytes(L, i) : 1);
            if (!m->out_image[i]) return cudaErrorMemoryAllocation;
            gk_place_fill(&L->out_place[i], L->out_count[i], es, GV_POISON_BYTE, GV_REDZONE_BYTE,
                          m->out_image[i]);
            e = gk_copy_to_device(L->out[i], m->out_image[i], out_bytes(L, i), s);
        }
        if (e == cudaSuccess) e = fill_guards(L->out[i], out_bytes(L, i), s);
    }
    if (e == cudaSuccess && L->workspace)
        e = fill_guards(L->workspace, (size_t)L->workspace_bytes, s);
    for (int i = 0; i < L->n_in && e == cudaSuccess; i++) {
        m->hashed[i] = in_bytes(L, i) > 0 && hash_input(L, i, m->hashes + 4 * i, s) == cudaSuccess;
        if (!m->hashed[i]) cudaGetLastError(); /* a refused launch: the read-back decides */
    }
    return e;
}

/* Download every output; a placed one (abi/layout.h) through its image, from which the packed
   output is taken (its padding is checked with the guards). */
static cudaError_t download_outputs(const gk_launch *L, const gk_host_io *io, case_mem *m,
                                    cudaStream_t s)
{
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++)
        e = gk_copy_to_host(m->out_image[i] ? (void *)m->out_image[i] : io->out[i], L->out[i],
                            out_bytes(L, i), s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++)
        if (m->out_image[i])
            gk_place_unpack(&L->out_place[i], L->out_count[i], (int64_t)elem_size(L),
                            m->out_image[i], io->out[i]);
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
    if (g->violations++ == 0) snprintf(g->first, sizeof g->first, "%.199s", msg);
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

/* Inputs read back in full by check_input since the process started (gk_input_readbacks). */
static int64_t g_input_readbacks;

extern "C" int64_t gk_input_readbacks(void)
{
    return g_input_readbacks;
}

/* check_input's consumer: each chunk compared with the host copy element by element (bytes,
   so a NaN compares equal to itself). */
struct input_compare {
    const unsigned char *want;
    size_t es;
    int64_t differ, first;
};

static void compare_chunk(const unsigned char *buf, size_t off, size_t len, void *ctx)
{
    input_compare *c = (input_compare *)ctx;
    if (memcmp(buf, c->want + off, len) == 0) return;
    for (size_t b = 0; b < len; b += c->es) {
        if (memcmp(buf + b, c->want + off + b, c->es) != 0) {
            if (c->first < 0) c->first = (int64_t)((off + b) / c->es);
            c->differ++;
        }
    }
}

/* Read input i back in chunks and compare each with its host copy; chunk k + 1 is copied
   while chunk k is compared. */
static cudaError_t check_input(const gk_launch *L, int i, const void *host, const char *label,
                               cudaStream_t s, guard_report *g)
{
    unsigned char *stage[2];
    if (!gk_stage_buffers(stage, NULL)) return cudaErrorMemoryAllocation;
    g_input_readbacks++;
    input_compare c = {(const unsigned char *)host, elem_size(L), 0, -1};
    cudaError_t e = gk_read_back(L->in[i], in_bytes(L, i), s, stage, compare_chunk, &c);
    if (e != cudaSuccess) return e;
    if (c.differ == 0) return cudaSuccess;
    char msg[320];
    const gk_place *pl = &L->in_place[i];
    int64_t ld = gk_place_ld(pl), row = c.first / ld, col = c.first % ld;
    if (gk_place_is_matrix(pl) && col >= gk_place_scols(pl))
        snprintf(msg, sizeof msg,
                 "%s changed: %lld of its %lld stored elements differ, first in the padding after "
                 "stored row %lld (ld %lld)",
                 label, (long long)c.differ, (long long)gk_place_span(pl, L->in_count[i]),
                 (long long)row, (long long)ld);
    else if (!gk_place_dense(pl))
        snprintf(msg, sizeof msg,
                 "%s changed: %lld of its %lld stored elements differ, first at stored element "
                 "%lld",
                 label, (long long)c.differ, (long long)gk_place_span(pl, L->in_count[i]),
                 (long long)c.first);
    else
        snprintf(msg, sizeof msg, "%s changed: %lld of %lld elements differ, first at element %lld",
                 label, (long long)c.differ, (long long)L->in_count[i], (long long)c.first);
    guard_note(g, msg);
    return cudaSuccess;
}

/* An output's padding between rows (abi/layout.h), as downloaded into its image: the
   red-zone byte everywhere, or the op wrote where its leading dimension says nothing is. */
static void check_padding(const gk_launch *L, int i, const case_mem *m, const char *label,
                          guard_report *g)
{
    if (!m->out_image[i]) return;
    int64_t row = -1, col = -1;
    const gk_place *pl = &L->out_place[i];
    int64_t n = gk_place_padding_changed(pl, L->out_count[i], (int64_t)elem_size(L),
                                         GV_REDZONE_BYTE, m->out_image[i], &row, &col);
    if (n == 0) return;
    char msg[320];
    snprintf(msg, sizeof msg,
             "wrote %lld bytes into the padding between the rows of %s (ld %lld, rows of %lld), "
             "first after stored row %lld, at element %lld of its ld",
             (long long)n, label, (long long)gk_place_ld(pl), (long long)gk_place_scols(pl),
             (long long)row, (long long)col);
    guard_note(g, msg);
}

/* The input guard's "after": hash every input hashed before the op again and fetch both.
   changed[i] is true where input i must be read back: its hashes differ, or either could not
   be taken. A failure here is not reported: every input is then read back. */
static void inputs_changed(const gk_launch *L, case_mem *m, cudaStream_t s,
                           bool changed[GK_MAX_TENSORS])
{
    bool after[GK_MAX_TENSORS];
    bool any = false;
    for (int i = 0; i < L->n_in; i++) {
        changed[i] = true;
        after[i] = m->hashed[i] && hash_input(L, i, m->hashes + 4 * i + 2, s) == cudaSuccess;
        any = any || after[i];
    }
    if (!any) {
        cudaGetLastError();
        return;
    }
    unsigned long long h[4 * GK_MAX_TENSORS];
    cudaError_t e =
        cudaMemcpyAsync(h, m->hashes, 4 * (size_t)L->n_in * sizeof *h, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    for (int i = 0; i < L->n_in; i++)
        changed[i] = !after[i] || h[4 * i] != h[4 * i + 2] || h[4 * i + 1] != h[4 * i + 3];
}

/* All guards of a finished launch: outputs' red zones, then inputs' red zones and contents,
   then the workspace's red zones. An input whose device hash is the same after the op as
   before it is unchanged; any other is read back and compared with its host copy
   (check_input), which names how many elements differ and the first. GV_OK, GV_EGUARD (first
   violation and count in the last error), or the failure of a read-back. */
static int check_guards(const gk_launch *L, const gk_host_io *io, case_mem *m, cudaStream_t s)
{
    guard_report g;
    g.violations = 0;
    g.first[0] = '\0';
    char label[64];
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < L->n_out && e == cudaSuccess; i++) {
        tensor_label(label, sizeof label, "output", i, L->out_name[i]);
        e = check_zones(L->out[i], out_bytes(L, i), label, s, &g);
        if (e == cudaSuccess) check_padding(L, i, m, label, &g);
    }
    bool changed[GK_MAX_TENSORS];
    if (e == cudaSuccess) inputs_changed(L, m, s, changed);
    for (int i = 0; i < L->n_in && e == cudaSuccess; i++) {
        tensor_label(label, sizeof label, "input", i, L->in_name[i]);
        e = check_zones(L->in[i], in_bytes(L, i), label, s, &g);
        if (e != cudaSuccess || in_bytes(L, i) == 0 || !changed[i]) continue;
        unsigned char *stage[2];
        if (!gk_stage_buffers(stage, NULL)) {
            snprintf(g_last_error, sizeof g_last_error,
                     "out of host memory for the input check (%zu bytes)", 2 * kGkStageChunk);
            return GV_ENOMEM;
        }
        e = check_input(L, i, m->in_image[i] ? (const void *)m->in_image[i] : io->in[i], label, s,
                        &g);
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
    return gk_get_knobs()->inject_launch_fault;
}

/* GPUVAL_DEVICE_PHASES=1: gk_run prints one line on stderr per run with the wall time of each
   phase in ms (alloc, upload = upload + poison + red zones + input hashes, launch+sync =
   setup + launch + synchronisation, download, guards, free = teardown + free), the bytes
   moved and how memory and copies were made. Each phase then ends with a synchronisation of
   the case's stream, so the asynchronous work lands in its own phase. */
enum { PH_ALLOC, PH_UPLOAD, PH_LAUNCH, PH_DOWNLOAD, PH_GUARDS, PH_FREE, PH_N };

struct phase_clock {
    bool on;
    double t0, ms[PH_N];
};

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void phase_end(phase_clock *pc, int phase, cudaStream_t s)
{
    if (!pc->on) return;
    cudaStreamSynchronize(s); /* errors show (and are reported) at the next call */
    double t = wall_ms();
    pc->ms[phase] = t - pc->t0;
    pc->t0 = t;
}

static void phase_print(const phase_clock *pc, const gk_launch *L, const case_mem *m,
                        int64_t readbacks, int rc)
{
    if (!pc->on) return;
    size_t in_b = 0, out_b = 0;
    for (int i = 0; i < L->n_in; i++)
        in_b += in_bytes(L, i);
    for (int i = 0; i < L->n_out; i++)
        out_b += out_bytes(L, i);
    bool pinned = false;
    unsigned char *stage[2];
    const char *copies = gk_pageable_wanted()                         ? "pageable"
                         : gk_stage_buffers(stage, &pinned) && pinned ? "staged"
                                                                      : "pageable";
    fprintf(stderr,
            "gk_run phases (ms): alloc %.3f upload %.3f launch+sync %.3f download %.3f guards "
            "%.3f free %.3f | in %zu B, out %zu B, memory %s, copies %s, inputs read back %lld "
            "of %d, rc %d\n",
            pc->ms[PH_ALLOC], pc->ms[PH_UPLOAD], pc->ms[PH_LAUNCH], pc->ms[PH_DOWNLOAD],
            pc->ms[PH_GUARDS], pc->ms[PH_FREE], in_b, out_b, m->pool ? "pool" : "cudaMalloc",
            copies, (long long)readbacks, L->n_in, rc);
}

static bool phases_wanted(void)
{
    return gk_get_knobs()->device_phases;
}

extern "C" int gk_mode_check(const gk_launch *L)
{
    int dev = 0, major = 0, minor = 0;
    GK_CUDA(cudaGetDevice(&dev));
    GK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    GK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    char why[256];
    const char *lack = gv_mode_need(L->mode, major * 10 + minor, why, sizeof why);
    return lack ? gk_fail_unsupported(lack) : GV_OK;
}

extern "C" int gk_run(const gk_op *op, gk_launch *L, const gk_host_io *io)
{
    /* The launch a layout makes (src/core/problem.c, api.c): its tensors fit the arrays here
       (the input hashes hold 4 a tensor for GK_MAX_TENSORS), no count or workspace below 0. */
    assert(op && op->launch && L && io);
    assert(L->n_in >= 0 && L->n_in <= GK_MAX_TENSORS && L->n_out >= 0 &&
           L->n_out <= GK_MAX_TENSORS && L->workspace_bytes >= 0);
    for (int i = 0; i < L->n_in; i++)
        assert(L->in_count[i] >= 0 &&
               gk_place_valid(&L->in_place[i], L->in_count[i], (int64_t)elem_size(L)));
    for (int i = 0; i < L->n_out; i++)
        assert(L->out_count[i] >= 0 &&
               gk_place_valid(&L->out_place[i], L->out_count[i], (int64_t)elem_size(L)));
    /* a mode this device lacks is a SKIP before anything is allocated (gv_mode_need) */
    int need_rc = gk_mode_check(L);
    if (need_rc != GV_OK) return need_rc;
    phase_clock pc;
    memset(&pc, 0, sizeof pc);
    pc.on = phases_wanted();
    pc.t0 = pc.on ? wall_ms() : 0.0;
    const int64_t readbacks_before = g_input_readbacks;
    cudaStream_t s;
    GK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    L->stream = s;
    L->state = NULL;
    L->op = op;
    snprintf(L->math_mode, sizeof L->math_mode, "none");
    case_mem m;
    memset(&m, 0, sizeof m);
    m.pool = gk_pool_for_case();
    int rc = alloc_buffers(L, &m, s);
    phase_end(&pc, PH_ALLOC, s);
    bool set_up = false;
    if (rc == GV_OK) {
        cudaError_t e = upload_and_poison(L, io, &m, s);
        /* stream-ordered allocations become usable outside s (a library's own stream) once
           s has passed them: the op is promised plain device memory */
        if (e == cudaSuccess) e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) rc = gk_fail_cuda(e, "upload, poison and red zones");
    }
    phase_end(&pc, PH_UPLOAD, s);
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
    phase_end(&pc, PH_LAUNCH, s);
    if (rc == GV_OK) {
        cudaError_t e = download_outputs(L, io, &m, s);
        if (e != cudaSuccess) rc = gk_fail_cuda(e, "download");
    }
    phase_end(&pc, PH_DOWNLOAD, s);
    /* after the download: a guard violation still hands its outputs to the metrics */
    if (rc == GV_OK) rc = check_guards(L, io, &m, s);
    phase_end(&pc, PH_GUARDS, s);
    if (set_up && op->teardown) op->teardown(L);
    cudaStreamSynchronize(s);
    free_buffers(L, &m, s);
    cudaStreamSynchronize(s); /* pooled frees are done: the memory is idle in the pool */
    phase_end(&pc, PH_FREE, s);
    cudaStreamDestroy(s);
    L->stream = NULL;
    phase_print(&pc, L, &m, g_input_readbacks - readbacks_before, rc);
    return rc;
}
