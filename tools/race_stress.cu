/* race_stress.cu: can a run see the last-block sum's missing fence? Measures how many
 * launches of a last-block reduction without its fences give a wrong sum, alone and beside a
 * kernel that stresses the memory system (stores, volatile loads or atomics to random lines of
 * a 256 MB buffer on another stream: the "memory stress" of Sorensen and Donaldson, "Exposing
 * errors related to weak memory in GPU applications", PLDI 2016), for two patterns:
 *   onepass  thread 0 stores the block's sum and takes the ticket (kernels/reduce_onepass.cuh);
 *   multi    every thread stores a partial, the block synchronises, thread 0 takes the ticket
 *            (the pattern of kernels/colsum.cuh's fused kernel);
 * each without fences (all, or only the release or only the acquire ones) and, as the control,
 * with them. The partials are poisoned before each launch, so an early read is a NaN sum. Each
 * launch's sum is compared on the device with the fenced kernel's, bit for bit.
 * Run by hand, not installed, not a test: build/race_stress [LAUNCHES (2000)] [multi].
 * docs/error-models.md ("Repeat canaries") has what it measured. */
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

#include "reduce_onepass.cuh"
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
using onepass::PER_THREAD;
using onepass::THREADS;
using onepass::TILE;
using onepass::tile_tree; /* the tree of kernels/reduce_onepass.cuh, the one reduce.sum.onepass uses
                           */

// F bit0: release fence, bit1: acquire after ticket, bit2: block fence before reads. V: volatile
// reads
template <typename T, int F, bool V>
__global__ void __launch_bounds__(THREADS)
    sum_kernel(const T *__restrict__ x, int64_t n, T *partial, unsigned *count, T *out)
{
    __shared__ T ws[THREADS / 32];
    __shared__ bool last;
    T b = tile_tree<T>(x, (int64_t)blockIdx.x * TILE, n, ws);
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = b;
        if (F & 1) __threadfence();
        unsigned t = atomicInc(count, gridDim.x);
        if (F & 2) __threadfence();
        last = t == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    if (F & 4) __threadfence();
    T s = T(0);
    const int64_t parts = gridDim.x;
    for (int64_t g = 0; g < parts; g += TILE) {
        T t = V ? tile_tree<T>((const volatile T *)partial, g, parts, ws)
                : tile_tree<T>((const T *)partial, g, parts, ws);
        s = g == 0 ? t : s + t;
    }
    if (threadIdx.x == 0) {
        *out = s;
        *count = 0;
    }
}
template <typename T> __global__ void cmp(const T *out, const T *ref, unsigned *bad)
{
    const unsigned char *a = (const unsigned char *)out, *b = (const unsigned char *)ref;
    for (int i = 0; i < (int)sizeof(T); i++)
        if (a[i] != b[i]) {
            atomicAdd(bad, 1u);
            return;
        }
}
// stress: each thread hammers lines of a scratch buffer (stores + loads + atomics) until stop
__global__ void stress(unsigned *buf, size_t words, volatile int *stop, int kind)
{
    unsigned id = blockIdx.x * blockDim.x + threadIdx.x, h = id * 2654435761u + 12345u, acc = 0;
    long long t0 = clock64();
    for (int it = 0;; it++) {
        if ((it & 63) == 0 && (*stop || clock64() - t0 > 400000000LL)) break;
        h = h * 1664525u + 1013904223u;
        size_t w = ((size_t)h * 32) % words;
        if (kind == 0)
            buf[w] = h;
        else if (kind == 1)
            acc += ((volatile unsigned *)buf)[w];
        else
            atomicAdd(&buf[w], 1u);
    }
    if (acc == 0xdeadbeef) buf[0] = acc;
}
template <typename T, int F, bool V>
void run(const char *name, int64_t n, int launches, int sblocks, int kind, cudaStream_t s,
         cudaStream_t ss, unsigned *sbuf, size_t swords, int *stop)
{
    T *x, *ws, *out, *ref;
    unsigned *bad;
    int64_t tiles = (n + TILE - 1) / TILE;
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&ws, 256 + tiles * sizeof(T)));
    CK(cudaMalloc(&out, sizeof(T)));
    CK(cudaMalloc(&ref, sizeof(T)));
    CK(cudaMalloc(&bad, 4));
    std::vector<T> h(n);
    for (int64_t i = 0; i < n; i++)
        h[i] = T((i * 2654435761u % 1000003) / 1000003.0);
    CK(cudaMemcpy(x, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    unsigned *cnt = (unsigned *)ws;
    T *part = (T *)((char *)ws + 256);
    CK(cudaMemset(cnt, 0, 256));
    CK(cudaMemset(part, 0xff, tiles * sizeof(T)));
    sum_kernel<T, 7, true><<<tiles, THREADS, 0, s>>>(x, n, part, cnt, ref);
    CK(cudaMemset(bad, 0, 4));
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    if (sblocks) {
        CK(cudaMemsetAsync(stop, 0, 4, ss));
        stress<<<sblocks, 512, 0, ss>>>(sbuf, swords, stop, kind);
    }
    cudaEventRecord(e0, s);
    for (int l = 0; l < launches; l++) {
        cudaMemsetAsync(part, 0xff, tiles * sizeof(T), s);
        sum_kernel<T, F, V><<<tiles, THREADS, 0, s>>>(x, n, part, cnt, out);
        cmp<T><<<1, 1, 0, s>>>(out, ref, bad);
    }
    cudaEventRecord(e1, s);
    CK(cudaMemsetAsync(stop, 1, 4, s));
    CK(cudaDeviceSynchronize());
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    unsigned b;
    CK(cudaMemcpy(&b, bad, 4, cudaMemcpyDeviceToHost));
    printf("%-28s %-6s F=%d V=%d blocks=%-6lld stress=%-4d kind=%d : %u of %d launches wrong  "
           "(%.1f us/launch)\n",
           name, sizeof(T) == 4 ? "f32" : "f64", F, (int)V, (long long)tiles, sblocks, kind, b,
           launches, 1000 * ms / launches);
    fflush(stdout);
    cudaFree(x);
    cudaFree(ws);
    cudaFree(out);
    cudaFree(ref);
    cudaFree(bad);
}

// Multi-writer: every thread stores its own partial (256 a block), the block synchronises,
// thread 0 takes the ticket: the colsum fused kernel's pattern. F bit0: fence before barrier.
template <typename T, int F>
__global__ void __launch_bounds__(THREADS)
    multi(const T *__restrict__ x, int64_t n, T *partial, unsigned *count, T *out)
{
    __shared__ T ws[THREADS / 32];
    __shared__ bool last;
    int64_t base = (int64_t)blockIdx.x * TILE + threadIdx.x;
    T a = T(0);
#pragma unroll
    for (int j = 0; j < PER_THREAD; j++) {
        int64_t i = base + (int64_t)j * THREADS;
        a += i < n ? x[i] : T(0);
    }
    partial[(int64_t)blockIdx.x * THREADS + threadIdx.x] = a;
    if (F & 1) __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicInc(count, gridDim.x) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    if (F & 1) __threadfence();
    T s = T(0);
    const int64_t parts = (int64_t)gridDim.x * THREADS;
    for (int64_t g = 0; g < parts; g += TILE) {
        T t = tile_tree<T>((const volatile T *)partial, g, parts, ws);
        s = g == 0 ? t : s + t;
    }
    if (threadIdx.x == 0) {
        *out = s;
        *count = 0;
    }
}
template <typename T, int F>
void runm(const char *name, int64_t n, int launches, int sblocks, int kind, cudaStream_t s,
          cudaStream_t ss, unsigned *sbuf, size_t swords, int *stop)
{
    T *x, *ws, *out, *ref;
    unsigned *bad;
    int64_t tiles = (n + TILE - 1) / TILE, np = tiles * THREADS;
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&ws, 256 + np * sizeof(T)));
    CK(cudaMalloc(&out, sizeof(T)));
    CK(cudaMalloc(&ref, sizeof(T)));
    CK(cudaMalloc(&bad, 4));
    std::vector<T> h(n);
    for (int64_t i = 0; i < n; i++)
        h[i] = T((i * 2654435761u % 1000003) / 1000003.0);
    CK(cudaMemcpy(x, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    unsigned *cnt = (unsigned *)ws;
    T *part = (T *)((char *)ws + 256);
    CK(cudaMemset(cnt, 0, 256));
    CK(cudaMemset(part, 0xff, np * sizeof(T)));
    multi<T, 1><<<tiles, THREADS, 0, s>>>(x, n, part, cnt, ref);
    CK(cudaMemset(bad, 0, 4));
    CK(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    if (sblocks) {
        CK(cudaMemsetAsync(stop, 0, 4, ss));
        stress<<<sblocks, 512, 0, ss>>>(sbuf, swords, stop, kind);
    }
    cudaEventRecord(e0, s);
    for (int l = 0; l < launches; l++) {
        cudaMemsetAsync(part, 0xff, np * sizeof(T), s);
        multi<T, F><<<tiles, THREADS, 0, s>>>(x, n, part, cnt, out);
        cmp<T><<<1, 1, 0, s>>>(out, ref, bad);
    }
    cudaEventRecord(e1, s);
    CK(cudaMemsetAsync(stop, 1, 4, s));
    CK(cudaDeviceSynchronize());
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    unsigned b;
    CK(cudaMemcpy(&b, bad, 4, cudaMemcpyDeviceToHost));
    printf("%-28s %-6s F=%d blocks=%-6lld stress=%-4d kind=%d : %u of %d launches wrong  (%.1f "
           "us/launch)\n",
           name, sizeof(T) == 4 ? "f32" : "f64", F, (long long)tiles, sblocks, kind, b, launches,
           1000 * ms / launches);
    fflush(stdout);
    cudaFree(x);
    cudaFree(ws);
    cudaFree(out);
    cudaFree(ref);
    cudaFree(bad);
}
int main(int argc, char **argv)
{
    int launches = argc > 1 ? atoi(argv[1]) : 2000;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int sm = p.multiProcessorCount;
    printf("%s, %d SMs\n", p.name, sm);
    cudaStream_t s, ss;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&ss, cudaStreamNonBlocking));
    size_t swords = (size_t)64 << 20;
    unsigned *sbuf;
    int *stop;
    CK(cudaMalloc(&sbuf, swords * 4));
    CK(cudaMalloc(&stop, 4));
    for (int64_t n : {(int64_t)2097152, (int64_t)16777216}) {
        runm<float, 0>("multi nofence", n, launches, 0, 0, s, ss, sbuf, swords, stop);
        runm<float, 0>("multi nofence", n, launches, sm / 4, 1, s, ss, sbuf, swords, stop);
        runm<float, 0>("multi nofence", n, launches, sm, 0, s, ss, sbuf, swords, stop);
        runm<double, 0>("multi nofence", n, launches, 0, 0, s, ss, sbuf, swords, stop);
        runm<float, 1>("multi control", n, launches, 0, 0, s, ss, sbuf, swords, stop);
        runm<float, 1>("multi control", n, launches, sm, 0, s, ss, sbuf, swords, stop);
    }
    if (argc > 2) return 0;
    int64_t ns[] = {2097152, 16777216};
    for (int64_t n : ns) {
        run<float, 0, true>("nofence", n, launches, 0, 0, s, ss, sbuf, swords, stop);
        for (int kind = 0; kind < 3; kind++)
            for (int sb : {sm / 4, sm, 2 * sm})
                run<float, 0, true>("nofence", n, launches, sb, kind, s, ss, sbuf, swords, stop);
        run<double, 0, true>("nofence", n, launches, 0, 0, s, ss, sbuf, swords, stop);
        run<double, 0, true>("nofence", n, launches, sm, 0, s, ss, sbuf, swords, stop);
        run<float, 0, false>("nofence nonvolatile", n, launches, 0, 0, s, ss, sbuf, swords, stop);
        run<float, 0, false>("nofence nonvolatile", n, launches, sm, 0, s, ss, sbuf, swords, stop);
        run<float, 6, true>("no release fence", n, launches, sm, 0, s, ss, sbuf, swords, stop);
        run<float, 1, true>("no acquire fences", n, launches, sm, 0, s, ss, sbuf, swords, stop);
        run<float, 7, true>("control (fenced)", n, launches, sm, 0, s, ss, sbuf, swords, stop);
        run<float, 7, true>("control (fenced)", n, launches, 0, 0, s, ss, sbuf, swords, stop);
    }
    return 0;
}
