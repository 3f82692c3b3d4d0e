/* xfer.cu: the bulk data paths of gk_run (kernels/device.cu) — the process's two pinned
 * staging buffers, host<->device copies staged through them, and the device-side hash that
 * tells gk_run's input guard whether an input is unchanged without reading it back.
 *
 * Staged copies: a pageable cudaMemcpy goes through the driver's own pinned bounce buffer on
 * the calling thread, one piece at a time. Here a large copy is cut into kGkStageChunk pieces;
 * the host side of each piece (pageable memory <-> pinned staging) is a memcpy split over a
 * few threads, and it overlaps the DMA of the other staging buffer. Small copies, and every
 * copy when the staging buffers could not be pinned, stay plain cudaMemcpyAsync calls.
 * GPUVAL_PAGEABLE=1 in the environment makes every copy a plain one (to compare the two).
 *
 * Input hash (kernels/gk_hash.h): two 64-bit lanes, each a sum over the buffer's 8-byte
 * words of a bijective mix of the word keyed by its index, so that one changed word always
 * shows and several all but surely do; the device sums the words' terms in any order (the sum
 * is mod 2^64), so the result is the host version's, bit for bit. */
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "gk_cuda.h"
#include "gk_hash.h"

/* ---- Staging buffers ------------------------------------------------------------------ */

static unsigned char *g_stage[2];
static bool g_stage_pinned;

bool gk_stage_buffers(unsigned char *stage[2], bool *pinned)
{
    if (!g_stage[0]) {
        void *p = NULL;
        g_stage_pinned = true;
        if (cudaMallocHost(&p, 2 * kGkStageChunk) != cudaSuccess) {
            cudaGetLastError(); /* not sticky: clear it, and stage in pageable memory */
            g_stage_pinned = false;
            p = malloc(2 * kGkStageChunk);
            if (!p) return false;
        }
        g_stage[0] = (unsigned char *)p;
        g_stage[1] = g_stage[0] + kGkStageChunk;
    }
    stage[0] = g_stage[0];
    stage[1] = g_stage[1];
    if (pinned) *pinned = g_stage_pinned;
    return true;
}

/* ---- Staged copies ---------------------------------------------------------------------- */

/* Copies below this size go as one plain cudaMemcpyAsync: the chunking would not pay. */
static const size_t kStageMin = (size_t)4 << 20;
/* Host threads for one chunk's memcpy: the oracle of the same case runs on the other cores
   meanwhile (src/core/run.c), so a few are enough to keep ahead of the DMA. */
static const unsigned kStageThreads = 4;

bool gk_pageable_wanted(void)
{
    return gk_get_knobs()->pageable;
}

static unsigned stage_threads(void)
{
    unsigned hw = std::thread::hardware_concurrency();
    unsigned t = hw / 2 < kStageThreads ? hw / 2 : kStageThreads;
    return t < 1 ? 1 : t;
}

/* memcpy of len bytes on up to stage_threads() threads (pieces of at least 1 MiB). */
static void parallel_memcpy(void *dst, const void *src, size_t len)
{
    const size_t min_piece = (size_t)1 << 20;
    unsigned nt = stage_threads();
    if (len / min_piece < nt) nt = (unsigned)(len / min_piece);
    if (nt <= 1) {
        memcpy(dst, src, len);
        return;
    }
    size_t piece = (len + nt - 1) / nt;
    assert(nt <= kStageThreads); /* stage_threads() caps it: workers[] holds them */
    std::thread workers[kStageThreads];
    unsigned started = 0;
    for (unsigned t = 1; t < nt; t++) {
        size_t off = piece * t, n = off + piece > len ? len - off : piece;
        assert(off < len); /* pieces of 1 MiB or more: every thread's starts inside */
        try {
            workers[t] =
                std::thread([=] { memcpy((char *)dst + off, (const char *)src + off, n); });
            started = t;
        } catch (...) {
            memcpy((char *)dst + off, (const char *)src + off, n); /* no thread: copy here */
        }
    }
    memcpy(dst, src, piece);
    for (unsigned t = 1; t <= started; t++)
        if (workers[t].joinable()) workers[t].join();
}

/* Whether a copy of `bytes` goes through the staging buffers. */
static bool staged(size_t bytes, unsigned char *stage[2])
{
    if (bytes < kStageMin || gk_pageable_wanted()) return false;
    bool pinned = false;
    return gk_stage_buffers(stage, &pinned) && pinned;
}

/* Events marking when the DMA last enqueued on a staging buffer is done: the host writes a
   buffer only after its event (a copy still reading it would see the new bytes). */
struct stage_events {
    cudaEvent_t ev[2];
    bool recorded[2];
};

static cudaError_t events_open(stage_events *e)
{
    e->ev[0] = e->ev[1] = NULL;
    e->recorded[0] = e->recorded[1] = false;
    cudaError_t r = cudaEventCreateWithFlags(&e->ev[0], cudaEventDisableTiming);
    if (r == cudaSuccess) r = cudaEventCreateWithFlags(&e->ev[1], cudaEventDisableTiming);
    return r;
}

/* Waits for every copy on s (none may still use a staging buffer once a copy returns) and
   destroys the events; the first error wins. */
static cudaError_t events_close(stage_events *e, cudaStream_t s, cudaError_t r)
{
    cudaError_t drained = cudaStreamSynchronize(s);
    if (r == cudaSuccess) r = drained;
    for (int b = 0; b < 2; b++)
        if (e->ev[b]) cudaEventDestroy(e->ev[b]);
    return r;
}

cudaError_t gk_copy_to_device(void *dev, const void *host, size_t bytes, cudaStream_t s)
{
    unsigned char *stage[2];
    if (!staged(bytes, stage)) return cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s);
    stage_events e;
    cudaError_t r = events_open(&e);
    const unsigned char *src = (const unsigned char *)host;
    unsigned char *dst = (unsigned char *)dev;
    for (size_t off = 0, k = 0; r == cudaSuccess && off < bytes; k++) {
        size_t len = bytes - off < kGkStageChunk ? bytes - off : kGkStageChunk;
        int b = (int)(k % 2);
        if (e.recorded[b]) r = cudaEventSynchronize(e.ev[b]); /* chunk k - 2 has left it */
        if (r != cudaSuccess) break;
        parallel_memcpy(stage[b], src + off, len); /* overlaps chunk k - 1's DMA */
        r = cudaMemcpyAsync(dst + off, stage[b], len, cudaMemcpyHostToDevice, s);
        if (r == cudaSuccess) r = cudaEventRecord(e.ev[b], s);
        e.recorded[b] = r == cudaSuccess;
        off += len;
    }
    return events_close(&e, s, r);
}

cudaError_t gk_read_back(const void *dev, size_t bytes, cudaStream_t s, unsigned char *stage[2],
                         gk_chunk_fn consume, void *ctx)
{
    stage_events e;
    cudaError_t r = events_open(&e);
    const unsigned char *src = (const unsigned char *)dev;
    size_t len0 = bytes < kGkStageChunk ? bytes : kGkStageChunk;
    if (r == cudaSuccess) r = cudaMemcpyAsync(stage[0], src, len0, cudaMemcpyDeviceToHost, s);
    if (r == cudaSuccess) r = cudaEventRecord(e.ev[0], s);
    for (size_t off = 0, k = 0; r == cudaSuccess && off < bytes; k++) {
        size_t len = bytes - off < kGkStageChunk ? bytes - off : kGkStageChunk;
        size_t next = off + len;
        if (next < bytes) {
            /* the other buffer was consumed in the previous round */
            size_t nlen = bytes - next < kGkStageChunk ? bytes - next : kGkStageChunk;
            r = cudaMemcpyAsync(stage[(k + 1) % 2], src + next, nlen, cudaMemcpyDeviceToHost, s);
            if (r == cudaSuccess) r = cudaEventRecord(e.ev[(k + 1) % 2], s);
        }
        if (r == cudaSuccess) r = cudaEventSynchronize(e.ev[k % 2]);
        if (r != cudaSuccess) break;
        consume(stage[k % 2], off, len, ctx); /* overlaps chunk k + 1's DMA */
        off = next;
    }
    return events_close(&e, s, r);
}

static void into_host(const unsigned char *chunk, size_t off, size_t len, void *ctx)
{
    parallel_memcpy((unsigned char *)ctx + off, chunk, len);
}

cudaError_t gk_copy_to_host(void *host, const void *dev, size_t bytes, cudaStream_t s)
{
    unsigned char *stage[2];
    if (!staged(bytes, stage)) {
        cudaError_t r = cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s);
        return r == cudaSuccess ? cudaStreamSynchronize(s) : r;
    }
    return gk_read_back(dev, bytes, s, stage, into_host, host);
}

/* ---- Input hash ------------------------------------------------------------------------- */

__device__ __forceinline__ uint64_t warp_sum(uint64_t v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

static const int kHashThreads = 256;

/* out[0], out[1] += the lanes over nwords words at p and the tail_len (0..7) bytes after. */
__global__ void __launch_bounds__(kHashThreads)
    hash_kernel(const uint64_t *__restrict__ p, int64_t nwords, int tail_len,
                unsigned long long *out)
{
    uint64_t a = 0, b = 0;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += stride)
        gk_hash_word(p[i], (uint64_t)i, &a, &b);
    if (tail_len > 0 && blockIdx.x == 0 && threadIdx.x == 0)
        gk_hash_word(gk_hash_tail_word((const unsigned char *)(p + nwords), tail_len),
                     (uint64_t)nwords, &a, &b);
    __shared__ uint64_t part[2][kHashThreads / 32];
    a = warp_sum(a);
    b = warp_sum(b);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
        part[0][warp] = a;
        part[1][warp] = b;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        uint64_t sa = 0, sb = 0;
        for (int k = 0; k < kHashThreads / 32; k++) {
            sa += part[0][k];
            sb += part[1][k];
        }
        atomicAdd(&out[0], (unsigned long long)sa); /* wraps mod 2^64, in any order */
        atomicAdd(&out[1], (unsigned long long)sb);
    }
}

cudaError_t gk_hash_enqueue(const void *dev, size_t bytes, unsigned long long *out, cudaStream_t s)
{
    if ((uintptr_t)dev % 8 != 0) return cudaErrorMisalignedAddress; /* word loads need it */
    cudaError_t e = cudaMemsetAsync(out, 0, 2 * sizeof *out, s);
    if (e != cudaSuccess) return e;
    int64_t nwords = (int64_t)(bytes / 8);
    int dev_id = 0, sms = 0;
    if (cudaGetDevice(&dev_id) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev_id) != cudaSuccess ||
        sms < 1)
        sms = 32;
    unsigned blocks = gk_blocks(nwords, kHashThreads, (int64_t)sms * 8);
    hash_kernel<<<blocks, kHashThreads, 0, s>>>((const uint64_t *)dev, nwords, (int)(bytes % 8),
                                                out);
    return cudaGetLastError();
}

extern "C" int gk_input_hash_device(const void *host, size_t bytes, uint64_t lanes[2])
{
    void *dev = NULL;
    unsigned long long *out = NULL, got[2] = {0, 0};
    cudaStream_t s = NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc(&dev, bytes > 0 ? bytes : 1);
    if (e == cudaSuccess) e = cudaMalloc((void **)&out, sizeof got);
    if (e == cudaSuccess) e = gk_copy_to_device(dev, host, bytes, s);
    if (e == cudaSuccess) e = gk_hash_enqueue(dev, bytes, out, s);
    if (e == cudaSuccess) e = cudaMemcpyAsync(got, out, sizeof got, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (s) cudaStreamSynchronize(s);
    cudaFree(dev);
    cudaFree(out);
    if (s) cudaStreamDestroy(s);
    if (e != cudaSuccess) return gk_fail_cuda(e, "gk_input_hash_device");
    lanes[0] = got[0];
    lanes[1] = got[1];
    return GV_OK;
}
