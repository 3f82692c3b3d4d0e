/* gk.h: the C ABI of everything under kernels/ — the device layer (query, memory, streams,
 * the run of one op, timing) and the per-op entry points. No CUDA type appears here: streams
 * and handles are opaque pointers, so src/ and oracle/ include this header without CUDA.
 * Every function returns a gv_err code (src/gv.h); on a CUDA or library failure the error's
 * own name and where it happened are kept for gk_last_error(). */
#ifndef GK_H
#define GK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../abi/gv_abi.h"
#include "../abi/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GK_MAX_TENSORS 6

/* What one op launch sees. Filled by the device layer from a case; tensors are device
 * pointers of the case's dtype, row-major, counts in elements; dense and 256-byte aligned
 * unless their placement (in_place, out_place) says otherwise. */
typedef struct gk_launch {
    int dtype; /* gv_dtype */
    int mode;  /* gv_mode */
    int nd;
    int64_t dims[4];
    int n_in, n_out;
    const void *in[GK_MAX_TENSORS];
    void *out[GK_MAX_TENSORS];
    int64_t in_count[GK_MAX_TENSORS];
    int64_t out_count[GK_MAX_TENSORS];
    void *stream;    /* cudaStream_t the op must enqueue on */
    void *workspace; /* device scratch of workspace_bytes (from the op's layout) */
    int64_t workspace_bytes;
    const void *host_aux; /* the op's host-side extra data (e.g. sparse structure), or NULL */
    void *state;          /* owned by the op between setup and teardown */
    char math_mode[48];   /* library math mode actually set, recorded with the result */
    /* Optional tensor names ("a", "c") for gk_run's guard messages; NULL entries allowed. */
    const char *in_name[GK_MAX_TENSORS];
    const char *out_name[GK_MAX_TENSORS];
    /* The op being run, set by gk_run and gk_bench_open: an op registered through the public
       API (src/core/api.c) finds its own descriptor from it. */
    const struct gk_op *op;
    /* Where each tensor lies (abi/layout.h), from the op's layout: all zero is dense and
       256-byte aligned. gk_run places the tensors so; an op whose interface takes a leading
       dimension or a transpose reads them here (gk_place_ld, .trans). Timed runs
       (gk_bench_open) place every tensor dense and clear these. */
    gk_place in_place[GK_MAX_TENSORS];
    gk_place out_place[GK_MAX_TENSORS];
} gk_launch;

/* An op's device side. launch() only enqueues work on L->stream and must give the same
 * result when called again (timed runs repeat it); setup/teardown hold plans, handles and
 * extra device memory outside the timed region. setup and teardown may be NULL. */
typedef struct gk_op {
    int (*setup)(gk_launch *L);
    int (*launch)(gk_launch *L);
    void (*teardown)(gk_launch *L);
} gk_op;

/* After a launch hook outside kernels/ (a kernel registered through include/gpuval.h):
 * user_rc is what the hook returned (0, or a cudaError_t); a non-zero one is recorded with
 * its CUDA name, otherwise a launch-configuration error pending since is. GV_OK, GV_ECUDA
 * or GV_EDEVMEM, with `where` in gk_last_error(). */
int gk_hook_status(int user_rc, const char *where);

/* Each kernels/X.cu defines its ops as `extern "C" const gk_op gk_<op>`; the matching
 * src/ops/X.c declares the same symbols with `extern const gk_op` and names them through
 * GV_KERNEL (src/core/op.h). The type is the whole ABI, so no per-op prototypes gather here. */

/* Device fingerprint: what every result records. */
typedef struct gk_device_info {
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    int sm_clock_mhz, mem_clock_mhz, mem_bus_bits;
    int64_t mem_total_bytes, mem_free_bytes;
    int64_t l2_bytes;
    int driver_version, runtime_version, cublas_version;
    int ecc_enabled;
    char uuid[40];
    /* The code of gpuval's kernels the driver loaded for this device (cudaFuncGetAttributes of
       one of them; every kernel object is built with the same architectures): binary_arch, the
       machine code's architecture (90 for sm_90); ptx_arch, the virtual architecture it was
       compiled from (75: the generic paths). native: the binary carries SASS this device runs
       as it is (GV_CUDA_ARCH lists an sm_XY of the device's major with Y <= its minor) and the
       driver is not told to JIT everything (CUDA_FORCE_PTX_JIT); otherwise the driver
       JIT-compiled PTX. 0 / -1 where the device could not load it. */
    int binary_arch, ptx_arch, native;
} gk_device_info;

/* The device layer's settings, read from the environment by src/core/knobs.c (GPUVAL_PAGEABLE,
 * GPUVAL_NO_DEVICE_POOL, GPUVAL_DEVICE_PHASES, GPUVAL_INJECT_FAULT=launch,
 * GPUVAL_PERTURB_DEVICE, GPUVAL_GENERIC_KERNELS) and handed down here: the device layer never
 * reads the environment. Until set, all off (perturb_device -1). */
typedef struct gk_knobs {
    bool pageable;            /* copy from pageable memory, no pinned staging */
    bool no_device_pool;      /* every tensor from cudaMalloc, no pool kept across runs */
    bool device_phases;       /* one line of phase times on stderr per gk_run */
    bool inject_launch_fault; /* gk_run stops where it would launch (below) */
    int perturb_device;       /* this device index changes its first output by 2 ulps; -1 */
    bool generic_kernels;     /* hand-written kernels take their generic paths everywhere */
    bool force_ptx_jit;       /* CUDA_FORCE_PTX_JIT=1: the driver JIT-compiles all PTX */
} gk_knobs;
void gk_set_knobs(const gk_knobs *k);
const gk_knobs *gk_get_knobs(void);

/* True when the code the driver loaded for kernel `func` (a __global__ function's address) on
 * the current device was compiled for virtual architecture `arch` or later (80: cp.async) and
 * the generic paths are not forced (gk_knobs.generic_kernels). Where a feature is guarded by
 * __CUDA_ARCH__ at compile time, the host asks this before choosing the kernel that uses it:
 * the device's own capability is not enough, since compute_75's PTX JIT-compiled for an H100
 * has the generic path only. */
bool gk_code_has(const void *func, int arch);

/* Number of usable CUDA devices; 0 when there is none or no driver (never an error). */
int gk_device_count(void);
int gk_device_info_get(gk_device_info *info);
/* Choose device `index` for this process (kernels/fleet.cu): no CUDA call is made; the next
 * gk_device_count, which every path calls before its first launch, makes it current
 * (cudaSetDevice), so handles and the context live on it. Call before any other CUDA work;
 * the caller checks index against a count. gk_device_current: the current index, -1 without
 * a device. */
int gk_device_select(int index);
int gk_device_current(void);
int gk_mem_info(int64_t *free_bytes, int64_t *total_bytes);
/* "cudaErrorMemoryAllocation in vadd launch", or "" */
const char *gk_last_error(void);
/* Forget the last error: each case starts with none, so no text leaks into a later row. */
void gk_clear_error(void);

/* Host-side tensors of one run: inputs in the case's dtype, outputs to be written. */
typedef struct gk_host_io {
    const void *in[GK_MAX_TENSORS];
    void *out[GK_MAX_TENSORS];
} gk_host_io;

/* The correctness run of one op: allocate, upload, poison outputs (all-ones bytes, a NaN in
 * f32 and f64), setup, launch, synchronise, download, check the guards, teardown, free.
 * L carries shapes and counts; its pointers are filled here.
 * Guards: every input, output and the workspace (when workspace_bytes > 0) is allocated
 * with GV_REDZONE_BYTES of red zone before and after it, filled with GV_REDZONE_BYTE; the
 * op sees base + GV_REDZONE_BYTES (so tensors stay 256-byte aligned). After the launch the
 * red zones are read back, and every input is hashed on the device right after its upload
 * and again after the op (two 64-bit lanes keyed by position: any single changed word always
 * shows, swapped or shifted ones all but surely); an input whose hashes differ, or could not
 * be taken, is read back and compared with its host copy io->in[i] byte for byte, which
 * counts the changed elements and names the first. A red zone that changed or an input that
 * changed makes gk_run return
 * GV_EGUARD, with the first violation (outputs, then inputs, then workspace) and the count
 * of all in gk_last_error(); the outputs are downloaded into io->out all the same. A write
 * farther than GV_REDZONE_BYTES from a tensor, or one that stores the guard byte itself,
 * is not seen.
 * Fault injection (tests): with GPUVAL_INJECT_FAULT=launch in the environment, gk_run does
 * everything up to the launch (allocation, upload, poison, setup), then tears down, frees
 * and returns GV_ECUDA with gk_last_error() "injected fault (GPUVAL_INJECT_FAULT=launch)"
 * instead of launching: `gpuval check` then exits 3, as on a real CUDA error.
 * Memory and copies: the buffers come from a stream-ordered pool kept across runs (plain
 * cudaMalloc where the device has none, or with GPUVAL_NO_DEVICE_POOL=1); large copies are
 * staged through pinned buffers (plain pageable cudaMemcpy with GPUVAL_PAGEABLE=1).
 * GPUVAL_DEVICE_PHASES=1 prints one line per run on stderr: the ms of each phase. */
int gk_run(const gk_op *op, gk_launch *L, const gk_host_io *io);
/* How many inputs gk_run has read back in full since the process started (their hashes
 * differed): 0 for runs whose inputs stayed as uploaded. For tests of the input guard. */
int64_t gk_input_readbacks(void);
/* The input guard's hash of `bytes` at host, copied to the device as gk_run copies and hashed
 * by its kernel into lanes[0..1]: tests compare it with gk_hash_bytes_host (kernels/gk_hash.h).
 * GV_OK or a CUDA error (GV_ENODEV without CUDA). */
int gk_input_hash_device(const void *host, size_t bytes, uint64_t lanes[2]);

/* Planted disagreement (tests of gpuval merge; kernels/fleet.cu): with GPUVAL_PERTURB_DEVICE=N
 * in the environment, gk_run on device N adds 2 to the bit pattern of every element of output 0
 * after the op's launch (2 ulps away from zero; NaN and Inf left alone). vadd's cases still
 * pass (error at most 2.5 ulps: ratio <= 5 of 16), but their digests differ from every other
 * device's and their error is larger; ops judged by tighter models may FAIL. Returns GV_OK or
 * a CUDA error. */
int gk_perturb_if_planted(gk_launch *L);

/* ---- Timed runs (kernels/timing.cu; kernels/nodevice.c answers GV_ENODEV) ----------------
 * Kept apart from gk_run: a correctness run never times, a timed run never replaces it.
 * gk_bench_open does everything that must stay out of the timed region once: allocation,
 * pinned host copies of the inputs, upload, the op's setup (plans, handles) and a warm-up
 * launch (module load, first touches). gk_bench_sample then times one sample of a scope
 * with CUDA events. While the host enqueues a sample, a small kernel holds the stream (it
 * spins on a flag in mapped host memory, with a 2 s timeout), so the events time the GPU's
 * work back to back and not the host's launch rate; if the hold times out (an op's launch
 * waited on the device) the sample is taken again without it, and so are all later ones. */
typedef struct gk_bench gk_bench; /* opaque: one op's case, set up on the device for timing */

enum {
    GK_SCOPE_HOT = 0,  /* kernel only: reps launches back to back, time per launch */
    GK_SCOPE_COLD = 1, /* kernel only: one launch after the L2 is flushed (a buffer of twice
                          its size written just before the start event) */
    GK_SCOPE_E2E = 2,  /* pinned H2D of every input + one launch + D2H of every output */
    GK_NSCOPES
};

typedef struct gk_bench_info {
    char math_mode[48];   /* library math mode the op set (as gk_launch.math_mode) */
    int queued;           /* 1 while samples are taken behind the holding kernel */
    int hold_timeouts;    /* samples retaken without it */
    int64_t flush_bytes;  /* bytes written to flush the L2 before a cold sample (2 x L2) */
    int64_t device_bytes; /* device memory held: tensors, workspace, flush buffer */
} gk_bench_info;

/* io != NULL: inputs come from io->in (dtype of L), pinned copies are kept for E2E samples.
 * io == NULL: inputs are filled on the device with values in [0, 1) and E2E is refused.
 * L gives dtype, mode, dims, counts and workspace_bytes (as for gk_run). On failure *out is
 * NULL and nothing is held. */
int gk_bench_open(const gk_op *op, const gk_launch *L, const gk_host_io *io, gk_bench **out);
/* One sample of scope (GK_SCOPE_*): elapsed device time in ms per launch. reps >= 1 launches
 * back to back for GK_SCOPE_HOT; the other scopes take reps = 1. Before an E2E sample the
 * device outputs are poisoned (outside the events), so gk_bench_result sees what that
 * sample's launch wrote. */
int gk_bench_sample(gk_bench *b, int scope, int reps, double *ms);
/* The outputs of the timed path into io->out, for a sanity verdict. GK_SCOPE_E2E: what the
 * last E2E sample brought back (GV_EINVAL before one). GK_SCOPE_HOT/COLD: outputs poisoned,
 * one more launch on the device-resident inputs (after all the repeated ones), download. */
int gk_bench_result(gk_bench *b, int scope, const gk_host_io *io);
int gk_bench_info_get(const gk_bench *b, gk_bench_info *info);
/* Teardown and free; NULL is allowed. */
void gk_bench_close(gk_bench *b);

/* Ceilings measured in the same run, timed with gk_bench_sample(b, GK_SCOPE_HOT, 1, ...):
 * a device-to-device copy of `bytes` (moves 2 x bytes: read + write), and a square cuBLAS
 * S/Dgemm of order n (2 n^3 flops) with pedantic math (no TF32). dtype is a gv_dtype. */
int gk_ceiling_copy_open(int64_t bytes, gk_bench **out);
int gk_ceiling_gemm_open(int dtype, int64_t n, gk_bench **out);
/* Bytes a cold sample writes to flush the L2 of the current device (2 x L2); 0 if none. */
int64_t gk_l2_flush_bytes(void);

/* ---- Collectives (kernels/coll.cu with NCCL; kernels/nocoll.c without) ------------------
 * One process drives devices 0..nranks-1, one rank each (ncclCommInitAll), out of place. */
enum {
    GK_COLL_ALLREDUCE_SUM = 0,
    GK_COLL_ALLREDUCE_MAX,
    GK_COLL_ALLGATHER,
    GK_COLL_REDUCESCATTER_SUM,
    GK_COLL_BROADCAST, /* root 0 */
    GK_NCOLLS
};
#define GK_COLL_MAX_RANKS 16

typedef struct gk_coll {
    int kind;      /* GK_COLL_* */
    int dtype;     /* gv_dtype: f32 or f64 */
    int nranks;    /* 2..GK_COLL_MAX_RANKS, at most the device count */
    int64_t count; /* per rank: elements sent (all-reduce, all-gather, broadcast) or received
                      (reduce-scatter), as NCCL's count arguments */
    const void *const *in; /* host, per rank: gk_coll_in_count elements of dtype */
    void *const *out;      /* host, per rank: gk_coll_out_count elements, written here */
    int warmup, iters;     /* untimed and timed repetitions after the judged one */
    double time_ms;        /* out: wall time of one collective, mean over iters (all ranks'
                              streams synchronised before and after the timed loop) */
    int nccl_version;      /* out: ncclGetVersion's code */
} gk_coll;

static inline int64_t gk_coll_in_count(int kind, int64_t count, int nranks)
{
    return kind == GK_COLL_REDUCESCATTER_SUM ? count * nranks : count;
}

static inline int64_t gk_coll_out_count(int kind, int64_t count, int nranks)
{
    return kind == GK_COLL_ALLGATHER ? count * nranks : count;
}

/* The judged run (outputs poisoned first, then downloaded), then warmup + iters timed ones.
 * GV_OK, GV_EUNSUPPORTED without NCCL, GV_ELIB for an NCCL error (named in gk_last_error),
 * GV_ECUDA, GV_EDEVMEM. Sets NCCL_NVLS_ENABLE=0 (NVLink multicast off) before NCCL starts. */
int gk_coll_run(gk_coll *c);

/* One rank per process (kernels/coll_rank.cu; stubs in kernels/nocoll.c): the processes of an
 * MPI job share an NCCL unique id (rank 0 makes it, the launcher's MPI carries it), each opens
 * its rank of the communicator on its own current device and runs every collective with the
 * others, in the same order. */
#define GK_COLL_ID_BYTES 128 /* NCCL_UNIQUE_ID_BYTES */
typedef struct gk_coll_comm gk_coll_comm;
/* 1 when built with NCCL, 0 without. */
int gk_coll_have_nccl(void);
/* A fresh unique id (on rank 0 only). GV_EUNSUPPORTED without NCCL, GV_ELIB. */
int gk_coll_unique_id(unsigned char id[GK_COLL_ID_BYTES]);
/* ncclCommInitRank(nranks, id, rank) on device (made current first); sets
 * NCCL_NVLS_ENABLE=0 before. Every rank must call it. */
int gk_coll_comm_open(const unsigned char id[GK_COLL_ID_BYTES], int nranks, int rank, int device,
                      gk_coll_comm **out);
/* This rank's device buffers for c (c->in[0] uploaded, the receive buffer poisoned), with no
 * NCCL call: a rank that fails here can tell the others before any of them enters the
 * collective (which would wait for it for ever). c->nranks is the communicator's size. */
int gk_coll_comm_prepare(gk_coll_comm *comm, const gk_coll *c);
/* The prepared collective with every other rank: the judged run, downloaded into c->out[0],
 * then c->warmup untimed runs, then c->iters timed back to back with a CUDA event between
 * each two: c->time_ms is the median of the iterations. The buffers are freed after. */
int gk_coll_comm_run(gk_coll_comm *comm, gk_coll *c);
void gk_coll_comm_close(gk_coll_comm *comm);

#ifdef __cplusplus
}
#endif
#endif
