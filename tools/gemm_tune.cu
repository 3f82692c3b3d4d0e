/* gemm_tune.cu: which tiling of gemm.regblock's kernel (kernels/gemm_regblock.cuh) is fastest
 * on this device, and is each one correct? For every candidate tiling:
 *  - correctness on small, ragged and unaligned shapes (m, n, k not multiples of the tiles,
 *    k % 4 != 0, pointers one element off 16-byte alignment) against a plain reference kernel
 *    that accumulates the same inputs in f64: |c - ref| <= gamma_k(u) sum_k |a||b| + the
 *    reference's own bound, u the unit roundoff of the type (f32: 2^-24), gamma_k = k u /
 *    (1 - k u); NaN fails. The worst ratio error / bound is printed;
 *  - the planted bug (DropTail) on a shape with k % BK != 0 must fail that check;
 *  - timing at n^3 (default 4096^3): CUDA events around each launch on the legacy stream after
 *    3 warm-up launches, rounds (default 30) samples, median and 10th / 90th percentiles; the
 *    cuBLAS SGEMM (DGEMM for f64) in pedantic math mode is timed the same way right after each
 *    candidate's sample, so the rounds interleave all of them, and the ratio is cuBLAS's median
 *    over all its samples to the candidate's median;
 *  - registers and local memory (spills) per thread from cudaFuncGetAttributes.
 * One row per candidate and type. Exit status 1 when a candidate is wrong or its planted bug
 * passes. Not installed; built with the CUDA build only.
 *
 * usage: gemm_tune [n (4096)] [rounds (30)] [filter: only the candidates whose name has it] */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../kernels/gemm_regblock.cuh"
#include "probe_check.h"

template <typename T>
using launch_fn = cudaError_t (*)(const T *, const T *, T *, int64_t, int64_t, int64_t, bool,
                                  cudaStream_t);

/* One candidate tiling for one type. */
template <typename T> struct cand {
    const char *name;
    launch_fn<T> run, run_droptail;
    const void *vec_kernel; /* for cudaFuncGetAttributes */
    int bk;
    size_t smem;
    std::vector<double> ms;
    bool ok, drop_caught, runs; /* runs: the n^3 launch was accepted */
    double worst;
    int blocks_per_sm;
    cudaFuncAttributes attr;
};

template <typename T, typename Cfg> static cand<T> make(const char *name)
{
    cand<T> c;
    c.name = name;
    c.run = rb_launch<T, Cfg, false>;
    c.run_droptail = rb_launch<T, Cfg, true>;
    c.vec_kernel = (const void *)rb_kernel<T, Cfg, false>(true);
    c.bk = Cfg::BK;
    c.smem = Cfg::template smem_bytes<T>();
    c.ok = c.drop_caught = false;
    c.runs = true;
    c.worst = 0;
    c.blocks_per_sm = 0;
    memset(&c.attr, 0, sizeof c.attr);
    return c;
}

/* rb_cfg<BM, BN, BK, WM, WN, TM, TN, THREADS, MINB, GROUP, STAGES>: STAGES 0 is the
   register-staged double buffer, STAGES >= 2 the cp.async ring of that depth */
#define CAND(T, name, ...) make<T, rb_cfg<__VA_ARGS__>>(name)

/* Candidates tried and dropped (a kernel each costs build time in every CUDA build), with
   their share of cuBLAS pedantic SGEMM's rate at 4096^3 on an H100 80GB HBM3 in one run (30
   interleaved rounds, cuBLAS 2.675 ms): 128x128x16 w64x64 t8x16 128thr 82.9 %; 128x256x8
   group8 86.0 %, w32x128 86.8 %; 256x128x8 w64x64 84.2 %, w128x32 t16x8 79.7 %;
   128x256x16 t16x8 83.7 % (group8 83.6 %), t8x16 group4 89.8 %, group16 89.7 %; 256x128x16
   t16x8 group8 82.6 %. In another run (cuBLAS 2.677 ms): two 128-thread blocks an SM,
   128x128x8 and x16 w64x64 t8x16 min2 80.8 and 82.8 %, with cp.async rings of 3 or 4 79.9 to
   83.3 %; 128x256x16 cp3 84.5 %, 128x256x8 cp4 83.5 %. f64 (cuBLAS DGEMM 2.88 ms):
   64x128x8 w32x64 cp3 41.4 %, 128x64x16 cp3 43.9 %. */
static std::vector<cand<float>> f32_cands()
{
    return {
        CAND(float, "128x128x8 w64x32 t8x8 256thr min2", 128, 128, 8, 64, 32, 8, 8, 256, 2, 0, 0),
        CAND(float, "128x256x8 w64x64 t8x16 256thr", 128, 256, 8, 64, 64, 8, 16, 256, 1, 0, 0),
        CAND(float, "128x256x8 w64x64 t16x8 256thr", 128, 256, 8, 64, 64, 16, 8, 256, 1, 0, 0),
        CAND(float, "128x256x8 w64x64 t8x16 256thr cp3", 128, 256, 8, 64, 64, 8, 16, 256, 1, 0, 3),
        CAND(float, "128x256x16 w64x64 t8x16 256thr", 128, 256, 16, 64, 64, 8, 16, 256, 1, 0, 0),
        CAND(float, "128x256x16 w64x64 t8x16 256thr group8", 128, 256, 16, 64, 64, 8, 16, 256, 1, 8,
             0),
        CAND(float, "256x128x16 w64x64 t8x16 256thr", 256, 128, 16, 64, 64, 8, 16, 256, 1, 0, 0),
        /* the tree's (kernels/gemm.cu, rb_cfg_f32) */
        CAND(float, "128x256x16 w32x128 t8x16 256thr group8", 128, 256, 16, 32, 128, 8, 16, 256, 1,
             8, 0),
    };
}

static std::vector<cand<double>> f64_cands()
{
    return {
        CAND(double, "128x128x8 w64x32 t8x8 256thr min1", 128, 128, 8, 64, 32, 8, 8, 256, 1, 0, 0),
        /* the generic path's (rb_cfg_f64_generic) */
        CAND(double, "128x64x8 w64x32 t8x8 128thr min2", 128, 64, 8, 64, 32, 8, 8, 128, 2, 0, 0),
        CAND(double, "128x64x8 w64x32 t8x8 128thr min2 cp3", 128, 64, 8, 64, 32, 8, 8, 128, 2, 0,
             3),
        /* the tree's (rb_cfg_f64) */
        CAND(double, "128x64x8 w64x32 t8x8 128thr min2 cp2", 128, 64, 8, 64, 32, 8, 8, 128, 2, 0,
             2),
    };
}

/* ref = sum_q a[i,q] b[q,j] and mag = sum_q |a||b| in f64, one thread per element. */
template <typename T>
__global__ void ref_kernel(const T *A, const T *B, double *ref, double *mag, int64_t m, int64_t k,
                           int64_t n)
{
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (i >= m || j >= n) return;
    double s = 0, a = 0;
    for (int64_t q = 0; q < k; q++) {
        double x = (double)A[i * k + q], y = (double)B[q * n + j];
        s += x * y;
        a += fabs(x) * fabs(y);
    }
    ref[i * n + j] = s;
    mag[i * n + j] = a;
}

/* Uniform in [-1, 1) from a hash of the index. */
template <typename T> __global__ void fill_kernel(T *x, int64_t len, uint64_t seed)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= len) return;
    uint64_t z = seed + (uint64_t)i * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    x[i] = (T)((double)(z >> 40) * 0x1p-23 - 1.0);
}

template <typename T> static void fill(T *x, int64_t len, uint64_t seed)
{
    if (len <= 0) return;
    fill_kernel<T><<<(unsigned)((len + 255) / 256), 256>>>(x, len, seed);
    CK(cudaGetLastError());
}

template <typename T> static double unit_roundoff()
{
    return sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
}
static double gamma_k(int64_t k, double u)
{
    return (double)k * u / (1.0 - (double)k * u);
}

struct shape {
    int64_t m, k, n;
};

/* Worst error / bound of one launch at one shape; off: elements by which A, B and C sit past
   a 16-byte boundary (1: the guarded kernel). Returns +inf for NaN or a failed launch. */
template <typename T>
static double check_one(launch_fn<T> run, shape s, int off, T *dA, T *dB, T *dC, double *dref,
                        double *dmag)
{
    T *A = dA + off, *B = dB + off, *C = dC + off;
    fill(A, s.m * s.k, 11);
    fill(B, s.k * s.n, 23);
    CK(cudaMemset(C, 0xff, (size_t)(s.m * s.n) * sizeof(T))); /* NaN where nothing is stored */
    ref_kernel<T><<<dim3((unsigned)((s.n + 127) / 128), (unsigned)s.m), 128>>>(A, B, dref, dmag,
                                                                               s.m, s.k, s.n);
    CK(cudaGetLastError());
    const bool vec = rb_vec_ok(s.k, s.n, A, B, C);
    if (run(A, B, C, s.m, s.k, s.n, vec, 0) != cudaSuccess) return INFINITY;
    if (cudaDeviceSynchronize() != cudaSuccess) return INFINITY;
    size_t len = (size_t)(s.m * s.n);
    std::vector<T> c(len);
    std::vector<double> ref(len), mag(len);
    CK(cudaMemcpy(c.data(), C, len * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ref.data(), dref, len * sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(mag.data(), dmag, len * sizeof(double), cudaMemcpyDeviceToHost));
    const double g = gamma_k(s.k, unit_roundoff<T>()) + gamma_k(s.k, 0x1p-53);
    double worst = 0;
    for (size_t i = 0; i < len; i++) {
        double e = fabs((double)c[i] - ref[i]), b = g * mag[i];
        if (!(e <= b)) { /* NaN fails; a zero bound allows only an exact zero */
            if (b == 0 || std::isnan(e)) return INFINITY;
        }
        if (b > 0) worst = std::max(worst, e / b);
    }
    return worst;
}

static const shape check_shapes[] = {
    {1, 1, 1},      {127, 129, 131}, {129, 7, 133},    {257, 256, 260}, {300, 1024, 516},
    {64, 4, 4},     {513, 33, 1},    {3, 1000, 255},   {200, 17, 390},  {128, 128, 128},
    {256, 64, 256}, {1, 515, 300},   {260, 131, 1000}, {130, 36, 260},  {260, 132, 132},
};
static const shape drop_shape = {129, 131, 133}; /* 131 % 8 and 131 % 16 are not 0 */

template <typename T> static void check(cand<T> &c)
{
    size_t most = 0, most_mn = 0;
    for (const shape &s : check_shapes) {
        most = std::max(most, (size_t)std::max(s.m * s.k, s.k * s.n));
        most_mn = std::max(most_mn, (size_t)(s.m * s.n));
    }
    T *dA, *dB, *dC;
    double *dref, *dmag;
    CK(cudaMalloc(&dA, (most + 4) * sizeof(T)));
    CK(cudaMalloc(&dB, (most + 4) * sizeof(T)));
    CK(cudaMalloc(&dC, (most_mn + 4) * sizeof(T)));
    CK(cudaMalloc(&dref, most_mn * sizeof(double)));
    CK(cudaMalloc(&dmag, most_mn * sizeof(double)));
    c.ok = true;
    c.worst = 0;
    for (const shape &s : check_shapes)
        for (int off = 0; off < 2; off++) {
            double w = check_one<T>(c.run, s, off, dA, dB, dC, dref, dmag);
            c.worst = std::max(c.worst, w);
            if (!(w <= 1.0)) {
                c.ok = false;
                fprintf(stderr, "  %s: FAIL at %lldx%lldx%lld offset %d (error/bound %g)\n", c.name,
                        (long long)s.m, (long long)s.k, (long long)s.n, off, w);
            }
        }
    c.drop_caught = !(check_one<T>(c.run_droptail, drop_shape, 0, dA, dB, dC, dref, dmag) <= 1.0);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    CK(cudaFree(dref));
    CK(cudaFree(dmag));
    CK(cudaFuncGetAttributes(&c.attr, c.vec_kernel));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c.blocks_per_sm, c.vec_kernel,
                                                     c.attr.maxThreadsPerBlock, c.smem));
}

static double pct(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    double pos = p * (double)(v.size() - 1);
    size_t lo = (size_t)pos, hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - (double)lo) * (v[hi] - v[lo]);
}

static cublasStatus_t lib_gemm(cublasHandle_t h, int n, const float *A, const float *B, float *C)
{
    const float one = 1, zero = 0; /* row-major C = A B is column-major C^T = B^T A^T */
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);
}
static cublasStatus_t lib_gemm(cublasHandle_t h, int n, const double *A, const double *B, double *C)
{
    const double one = 1, zero = 0;
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n, &zero, C, n);
}

static bool all_correct = true;

template <typename T>
static void bench(std::vector<cand<T>> &cs, cublasHandle_t h, int n, int rounds, const char *type,
                  const char *lib, const char *filter)
{
    if (filter) {
        std::vector<cand<T>> kept;
        for (auto &c : cs)
            if (strstr(c.name, filter)) kept.push_back(c);
        cs = kept;
    }
    if (cs.empty()) return;
    for (auto &c : cs) {
        check(c);
        if (!c.ok || !c.drop_caught) all_correct = false;
        printf("checked %s %s: %s (error/bound %.3g), droptail %s\n", type, c.name,
               c.ok ? "correct" : "WRONG", c.worst, c.drop_caught ? "caught" : "MISSED");
        fflush(stdout);
    }
    T *A, *B, *C;
    size_t len = (size_t)n * n;
    CK(cudaMalloc(&A, len * sizeof(T)));
    CK(cudaMalloc(&B, len * sizeof(T)));
    CK(cudaMalloc(&C, len * sizeof(T)));
    fill(A, (int64_t)len, 5);
    fill(B, (int64_t)len, 7);
    const bool vec = rb_vec_ok(n, n, A, B, C);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (auto &c : cs) {
        c.ms.clear();
        for (int w = 0; w < 3 && c.runs; w++)
            if (c.run(A, B, C, n, n, n, vec, 0) != cudaSuccess) {
                c.runs = false;
                fprintf(stderr, "%s: the %d^3 launch fails: %s\n", c.name, n,
                        cudaGetErrorString(cudaGetLastError()));
            }
    }
    for (int w = 0; w < 3; w++)
        CB(lib_gemm(h, n, A, B, C));
    CK(cudaDeviceSynchronize());
    std::vector<double> lib_ms;
    float ms;
    for (int r = 0; r < rounds; r++)
        for (auto &c : cs) {
            if (!c.runs) continue;
            CK(cudaEventRecord(e0, 0));
            CK(c.run(A, B, C, n, n, n, vec, 0));
            CK(cudaEventRecord(e1, 0));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            c.ms.push_back(ms);
            CK(cudaEventRecord(e0, 0));
            CB(lib_gemm(h, n, A, B, C));
            CK(cudaEventRecord(e1, 0));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            lib_ms.push_back(ms);
        }
    if (lib_ms.empty()) return;
    const double lib_med = pct(lib_ms, 0.5), flop = 2.0 * n * (double)n * n;
    printf("\n%s at %d^3: %s pedantic median %.3f ms (p10 %.3f, p90 %.3f, %d samples, %.1f "
           "TFLOP/s)\n",
           type, n, lib, lib_med, pct(lib_ms, 0.1), pct(lib_ms, 0.9), (int)lib_ms.size(),
           flop / lib_med * 1e-9);
    printf("%-46s %-7s %-9s %-8s %8s %8s %8s %7s %5s %6s %6s %6s\n", "config", "correct", "err/bnd",
           "droptail", "median", "p10", "p90", "%lib", "regs", "spill", "blk/SM", "smemKB");
    for (auto &c : cs) {
        if (!c.runs) {
            printf("%-46s %-7s launch fails\n", c.name, c.ok ? "yes" : "NO");
            continue;
        }
        double med = pct(c.ms, 0.5);
        printf("%-46s %-7s %-9.3g %-8s %8.3f %8.3f %8.3f %6.1f%% %5d %6d %6d %6.1f\n", c.name,
               c.ok ? "yes" : "NO", c.worst, c.drop_caught ? "caught" : "MISSED", med,
               pct(c.ms, 0.1), pct(c.ms, 0.9), 100.0 * lib_med / med, c.attr.numRegs,
               (int)c.attr.localSizeBytes, c.blocks_per_sm, (double)c.smem / 1024.0);
    }
    fflush(stdout);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, rounds = argc > 2 ? atoi(argv[2]) : 30;
    const char *filter = argc > 3 ? argv[3] : NULL;
    if (argc > 4 || n < 1 || n > 16384 || rounds < 3) {
        fprintf(stderr, "usage: gemm_tune [n in 1..16384] [rounds >= 3] [name filter]\n");
        return 2;
    }
    int dev;
    cudaDeviceProp prop;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&prop, dev));
    int ver;
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasGetVersion(h, &ver));
    CB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    CB(cublasSetStream(h, 0));
    printf("gemm_tune: %d^3 on %s (%d SMs, L2 %d MiB), cuBLAS %d, %d rounds\n", n, prop.name,
           prop.multiProcessorCount, prop.l2CacheSize >> 20, ver, rounds);
    std::vector<cand<float>> f32 = f32_cands();
    bench(f32, h, n, rounds, "f32", "cublasSgemm", filter);
    std::vector<cand<double>> f64 = f64_cands();
    bench(f64, h, n, rounds, "f64", "cublasDgemm", filter);
    CB(cublasDestroy(h));
    return all_correct ? 0 : 1;
}
