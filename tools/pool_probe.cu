/* pool_probe.cu: does compute-sanitizer see faults in memory from gk_run's pool
 * (kernels/devmem.cu)? Each mode makes one deliberate fault in a block taken from that very
 * pool with cudaMallocFromPoolAsync, as gk_run takes its tensors:
 *   oob     a kernel reads 4 bytes just past the end of a 1000-byte block
 *           (memcheck should report "Invalid __global__ read of size 4");
 *   uninit  a block is written, freed, taken again at the same size (the pool hands back the
 *           same memory, as from one case to the next) and read without being written
 *           (initcheck should report "Uninitialized __global__ memory read").
 * Without a sanitizer both run quietly and print what they did. Run by hand, not installed:
 *   compute-sanitizer --tool memcheck build/pool_probe oob
 *   compute-sanitizer --tool initcheck build/pool_probe uninit */
#include <cstdio>
#include <cstring>

#include "gk_cuda.h"

__global__ void read_one(const float *p, size_t i, float *sink)
{
    *sink = p[i];
}

__global__ void write_all(float *p, size_t n)
{
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        p[i] = 1.0f;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "pool_probe: %s: %s\n", #call, cudaGetErrorName(e_));                  \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "oob") != 0 && strcmp(mode, "uninit") != 0) {
        fprintf(stderr, "usage: pool_probe oob|uninit\n");
        return 2;
    }
    if (gk_device_count() < 1) {
        fprintf(stderr, "pool_probe: no CUDA device\n");
        return 77;
    }
    cudaMemPool_t pool = gk_pool_for_case();
    if (!pool) {
        fprintf(stderr, "pool_probe: no memory pool on this device (or GPUVAL_NO_DEVICE_POOL)\n");
        return 77;
    }
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *sink = NULL, *p = NULL;
    CHECK(cudaMallocFromPoolAsync((void **)&sink, sizeof *sink, pool, s));
    const size_t n = 250; /* 1000 bytes */
    CHECK(cudaMallocFromPoolAsync((void **)&p, n * sizeof *p, pool, s));
    if (strcmp(mode, "oob") == 0) {
        write_all<<<1, 256, 0, s>>>(p, n);
        read_one<<<1, 1, 0, s>>>(p, n, sink); /* one element past the end */
        printf("pool_probe: read p[%zu] of a %zu-element pooled block at %p\n", n, n, (void *)p);
    } else {
        write_all<<<1, 256, 0, s>>>(p, n);
        CHECK(cudaFreeAsync(p, s));
        CHECK(cudaStreamSynchronize(s));
        float *q = NULL;
        CHECK(cudaMallocFromPoolAsync((void **)&q, n * sizeof *q, pool, s));
        read_one<<<1, 1, 0, s>>>(q, n / 2, sink); /* never written since taken */
        printf("pool_probe: read q[%zu] of a block taken again (%s address as the freed one)\n",
               n / 2, q == p ? "same" : "another");
        p = q;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaFreeAsync(sink, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
