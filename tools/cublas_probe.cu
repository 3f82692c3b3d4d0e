/* cublas_probe.cu: why does `gpuval bench` time cuBLAS DGEMM at 4096^3 slower than an
 * independent timer (CuPy) on the same device? One run times the same cublasDgemm under
 * each set-up that differs between the two paths, one factor at a time from a CuPy-like
 * baseline (a handle made once, the legacy default stream, default math, cuBLAS's own
 * workspace, normal inputs, events around each call, no L2 flush), and then through
 * gpuval's own timed path (gk_bench_open / gk_bench_sample on the gemm.cublas op and on the
 * gemm ceiling). The configurations are sampled round-robin, so that a drift of clocks or
 * temperature during the run spreads over all of them instead of biasing the last.
 * Output: one row per configuration: median ms, 10th and 90th percentile, TFLOP/s, and the
 * median's ratio to the baseline's. Not installed; built with the CUDA build only.
 *
 * usage: cublas_probe [n (4096)] [rounds (25)] */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "../kernels/gk.h"
#include "probe_check.h"

extern "C" const gk_op gk_gemm_cublas;

enum inputs_kind { IN_NORMAL, IN_UNIFORM01, IN_GRID24 };

/* One way of making and timing the call. */
struct config {
    const char *name;
    bool own_stream;    /* a created non-blocking stream instead of the legacy stream 0 */
    size_t workspace;   /* > 0: cublasSetWorkspace with a buffer of this many bytes */
    bool pedantic;      /* CUBLAS_PEDANTIC_MATH instead of CUBLAS_DEFAULT_MATH */
    inputs_kind inputs; /* what A and B hold */
    bool flush;         /* write 2 x L2 before the call (outside the events) */
    bool cold_handle;   /* a fresh handle for each sample; its first call is timed */
    bool gpuval_setup;  /* gk_cublas's per-call set-up: stream, math, emulation controls */
    int reps;           /* calls between one pair of events */
    int preload;        /* calls enqueued just before the timed ones (clocks under load) */
    int gemm_ex;        /* 1: cublasGemmEx with CUBLAS_COMPUTE_64F instead of cublasDgemm
                           (CuPy's matmul call); 2: the same with CUBLAS_COMPUTE_64F_PEDANTIC
                           (CuPy's "pedantic" compute type) */
    int gpuval_path;    /* 1: gk_bench on gemm.cublas (hot); 2: the same, cold;
                           3: gk_ceiling_gemm_open (device-filled inputs, hot) */
    std::vector<double> ms;
    gk_bench *bench;
};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double unit53(uint64_t *s)
{
    return (double)(splitmix(s) >> 11) * 0x1p-53;
}

static void fill(std::vector<double> &x, inputs_kind k, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < x.size(); i++) {
        if (k == IN_UNIFORM01) {
            x[i] = unit53(&s);
        } else if (k == IN_GRID24) { /* as timing.cu's device fill: 24 bits in [0, 1) */
            x[i] = (double)(splitmix(&s) >> 40) * 0x1p-24;
        } else { /* Box-Muller */
            double u1 = unit53(&s), u2 = unit53(&s);
            if (u1 < 1e-300) u1 = 1e-300;
            x[i] = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
        }
    }
}

static double pct(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    double pos = p * (double)(v.size() - 1);
    size_t lo = (size_t)pos, hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - (double)lo) * (v[hi] - v[lo]);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int rounds = argc > 2 ? atoi(argv[2]) : 25;
    if (n < 1 || n > 16384 || rounds < 3) {
        fprintf(stderr, "usage: cublas_probe [n in 1..16384] [rounds >= 3]\n");
        return 2;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int cublas_ver = 0;
    cublasGetProperty(MAJOR_VERSION, &cublas_ver);
    int minor = 0, patch = 0;
    cublasGetProperty(MINOR_VERSION, &minor);
    cublasGetProperty(PATCH_LEVEL, &patch);
    printf("cublas_probe: DGEMM %d^3 on %s (%d SMs, L2 %d MiB), cuBLAS %d.%d.%d, %d rounds\n", n,
           prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, cublas_ver, minor, patch,
           rounds);

    const size_t nn = (size_t)n * n;
    std::vector<double> h(nn);
    double *dA[3], *dB[3], *dC;
    for (int k = 0; k < 3; k++) {
        CK(cudaMalloc(&dA[k], nn * sizeof(double)));
        CK(cudaMalloc(&dB[k], nn * sizeof(double)));
        fill(h, (inputs_kind)k, 11 + k);
        CK(cudaMemcpy(dA[k], h.data(), nn * sizeof(double), cudaMemcpyHostToDevice));
        fill(h, (inputs_kind)k, 77 + k);
        CK(cudaMemcpy(dB[k], h.data(), nn * sizeof(double), cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&dC, nn * sizeof(double)));
    size_t flush_bytes = 2 * (size_t)prop.l2CacheSize;
    void *flush = NULL, *ws = NULL;
    CK(cudaMalloc(&flush, flush_bytes));
    const size_t ws_bytes = (size_t)32 << 20;
    CK(cudaMalloc(&ws, ws_bytes));
    cudaStream_t own;
    CK(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cublasHandle_t handle;
    CB(cublasCreate(&handle));

    std::vector<config> cs;
    auto add = [&](const char *name) -> config & {
        config c{};
        c.name = name;
        c.inputs = IN_NORMAL;
        c.reps = 1;
        cs.push_back(c);
        return cs.back();
    };
    add("baseline: stream 0, default math, normal");
    add("created non-blocking stream").own_stream = true;
    add("cublasSetWorkspace 32 MiB").workspace = ws_bytes;
    add("pedantic math").pedantic = true;
    add("inputs uniform [0,1), 53 bits").inputs = IN_UNIFORM01;
    add("inputs [0,1) on a 2^-24 grid").inputs = IN_GRID24;
    add("L2 flushed before the call").flush = true;
    add("cold handle (first call of a new handle)").cold_handle = true;
    {
        config &c = add("gk_cublas per-call set-up, own stream, pedantic");
        c.own_stream = c.pedantic = c.gpuval_setup = true;
        c.inputs = IN_UNIFORM01;
    }
    add("cublasGemmEx COMPUTE_64F (CuPy's call), default math").gemm_ex = 1;
    add("cublasGemmEx COMPUTE_64F_PEDANTIC, default math").gemm_ex = 2;
    {
        config &c = add("cublasGemmEx COMPUTE_64F, pedantic math");
        c.gemm_ex = 1;
        c.pedantic = true;
    }
    add("10 calls between one pair of events").reps = 10;
    add("after 100 untimed calls back to back (clocks under load)").preload = 100;
    add("gpuval: gk_bench gemm.cublas hot, uniform01").gpuval_path = 1;
    add("gpuval: gk_bench gemm.cublas cold, uniform01").gpuval_path = 2;
    add("gpuval: gemm ceiling (device fill), hot").gpuval_path = 3;

    /* gpuval's own path: the op and the ceiling, opened once (as gpuval bench does) */
    fill(h, IN_UNIFORM01, 11);
    std::vector<double> hb(nn), hc(nn);
    {
        uint64_t s = 77;
        for (size_t i = 0; i < nn; i++)
            hb[i] = unit53(&s);
    }
    for (auto &c : cs) {
        if (c.gpuval_path == 1 || c.gpuval_path == 2) {
            gk_launch L;
            memset(&L, 0, sizeof L);
            L.dtype = GV_F64;
            L.mode = GV_MODE_NATIVE;
            L.nd = 3;
            L.dims[0] = L.dims[1] = L.dims[2] = n;
            L.n_in = 2;
            L.n_out = 1;
            L.in_count[0] = L.in_count[1] = L.out_count[0] = (int64_t)nn;
            gk_host_io io;
            memset(&io, 0, sizeof io);
            io.in[0] = h.data();
            io.in[1] = hb.data();
            io.out[0] = hc.data();
            if (gk_bench_open(&gk_gemm_cublas, &L, &io, &c.bench) != GV_OK) {
                fprintf(stderr, "gk_bench_open failed: %s\n", gk_last_error());
                return 3;
            }
        } else if (c.gpuval_path == 3) {
            if (gk_ceiling_gemm_open(GV_F64, n, &c.bench) != GV_OK) {
                fprintf(stderr, "gk_ceiling_gemm_open failed: %s\n", gk_last_error());
                return 3;
            }
        }
    }

    /* warm-up: every input set once through the baseline handle */
    for (int k = 0; k < 3; k++) {
        const double one = 1.0, zero = 0.0;
        CB(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dB[k], n, dA[k], n, &zero,
                       dC, n));
    }
    CK(cudaDeviceSynchronize());

    for (int r = 0; r < rounds + 1; r++) { /* round 0 warms each configuration, untimed */
        for (auto &c : cs) {
            double ms = 0.0;
            if (c.gpuval_path) {
                int scope = c.gpuval_path == 2 ? GK_SCOPE_COLD : GK_SCOPE_HOT;
                if (gk_bench_sample(c.bench, scope, c.reps, &ms) != GV_OK) {
                    fprintf(stderr, "gk_bench_sample: %s\n", gk_last_error());
                    return 3;
                }
            } else {
                cudaStream_t s = c.own_stream ? own : (cudaStream_t)0;
                cublasHandle_t hd = handle;
                if (c.cold_handle) CB(cublasCreate(&hd));
                CB(cublasSetStream(hd, s)); /* also puts back cuBLAS's own workspace */
                if (c.workspace) CB(cublasSetWorkspace(hd, ws, c.workspace));
                CB(cublasSetMathMode(hd, c.pedantic ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));
                if (c.flush) CK(cudaMemsetAsync(flush, r & 0xff, flush_bytes, s));
                const double one = 1.0, zero = 0.0;
                CK(cudaStreamSynchronize(s));
                for (int q = 0; q < c.preload; q++)
                    CB(cublasDgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dB[c.inputs], n,
                                   dA[c.inputs], n, &zero, dC, n));
                CK(cudaEventRecord(e0, s));
                for (int q = 0; q < c.reps; q++) {
                    if (c.gpuval_setup) { /* what kernels/device.cu's gk_cublas does each call */
                        CB(cublasSetStream(hd, s));
                        CB(cublasSetMathMode(hd, CUBLAS_PEDANTIC_MATH));
                        CB(cublasSetEmulationStrategy(hd, CUBLAS_EMULATION_STRATEGY_DEFAULT));
                        CB(cublasSetFixedPointEmulationMantissaControl(
                            hd, CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC));
                    }
                    if (c.gemm_ex)
                        CB(cublasGemmEx(
                            hd, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dB[c.inputs], CUDA_R_64F,
                            n, dA[c.inputs], CUDA_R_64F, n, &zero, dC, CUDA_R_64F, n,
                            c.gemm_ex == 2 ? CUBLAS_COMPUTE_64F_PEDANTIC : CUBLAS_COMPUTE_64F,
                            CUBLAS_GEMM_DEFAULT));
                    else
                        CB(cublasDgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dB[c.inputs], n,
                                       dA[c.inputs], n, &zero, dC, n));
                }
                CK(cudaEventRecord(e1, s));
                CK(cudaEventSynchronize(e1));
                float f = 0;
                CK(cudaEventElapsedTime(&f, e0, e1));
                ms = (double)f / c.reps;
                if (c.cold_handle) CB(cublasDestroy(hd));
            }
            if (r > 0) c.ms.push_back(ms);
        }
    }

    const double flops = 2.0 * (double)n * n * n;
    const double base = pct(cs[0].ms, 0.5);
    printf("%-52s %9s %9s %9s %8s %7s\n", "configuration", "median_ms", "p10_ms", "p90_ms",
           "TFLOP/s", "/base");
    for (auto &c : cs) {
        double med = pct(c.ms, 0.5);
        printf("%-52s %9.4f %9.4f %9.4f %8.2f %7.3f\n", c.name, med, pct(c.ms, 0.1), pct(c.ms, 0.9),
               flops / (med * 1e-3) / 1e12, med / base);
    }
    printf("a row whose /base is far from 1 names the factor; the gpuval rows against the plain "
           "rows with the same set-up say whether the timing path itself adds time\n");
    for (auto &c : cs)
        if (c.bench) gk_bench_close(c.bench);
    cublasDestroy(handle);
    return 0;
}
