/* vadd.cu: c = a + b (seed 000). Grid-stride loop with 16-byte vector loads and stores
 * (float4 / double2; f64 takes two double2 a trip, 32 bytes of each input); the 256-byte alignment
 * of every tensor (cudaMalloc's, which gk_run's red zones keep) makes the vector casts safe and the
 * scalar loop takes the tail. Planted bugs:
 *  - vadd.f32round adds f64 data in f32;
 *  - vadd.pastend, vadd.prestart, vadd.clobber compute c correctly, then one stray store
 *    (a second one-thread kernel, ordered after the first on the stream) writes c[n], one
 *    element past the end of c, or c[-1], one before its start, or overwrites the input
 *    a[n-1] after it was read. Only gk_run's guards (red zones, input check) can see them;
 *  - vadd.illegal and vadd.hang are faults, not numerics: after a correct c, one thread
 *    stores through a wild pointer (address 8, where nothing is ever mapped:
 *    cudaErrorIllegalAddress, which leaves the CUDA context unusable), or spins on the
 *    global timer for 30 minutes (longer than a test's --case-timeout of a few seconds, yet
 *    finite, so a lost watchdog cannot hold a GPU forever) and then stores NaN into c[0].
 * Planted slowdown: vadd.slow runs the same kernel VADD_SLOW_PASSES times over the same
 *  buffers; every pass writes the same c, so the results are vadd's, bit for bit, at a
 *  multiple of its memory traffic (what `gpuval compare` must call REGRESSED). */
#include "gk_cuda.h"

enum vadd_stray {
    STRAY_NONE,
    STRAY_PASTEND,
    STRAY_PRESTART,
    STRAY_CLOBBER,
    STRAY_WILD,
    STRAY_HANG
};

/* Nanoseconds of the global timer. */
__device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

constexpr unsigned long long kHangNs = 30ull * 60ull * 1000000000ull;

template <typename T, bool RoundThroughF32> __device__ __forceinline__ T vadd_one(T x, T y)
{
    return RoundThroughF32 ? (T)((float)x + (float)y) : x + y;
}

/* U vectors per thread and trip, at i, i + stride, ..: every load instruction of a warp is
   still 32 consecutive vectors, and all 2U loads are issued before the first add, so each
   thread keeps U times more bytes in flight (f64: U = 2, 32 bytes of each input). */
template <typename T, typename V, int U, bool RoundThroughF32>
__global__ void vadd_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
                            int64_t n)
{
    constexpr int W = sizeof(V) / sizeof(T);
    int64_t nv = n / W;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const V *av = reinterpret_cast<const V *>(a);
    const V *bv = reinterpret_cast<const V *>(b);
    V *cv = reinterpret_cast<V *>(c);
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < nv; i += U * stride) {
        V x[U], y[U], z[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            x[u] = av[i + u * stride];
            y[u] = bv[i + u * stride];
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const T *xs = reinterpret_cast<const T *>(&x[u]);
            const T *ys = reinterpret_cast<const T *>(&y[u]);
            T *zs = reinterpret_cast<T *>(&z[u]);
#pragma unroll
            for (int k = 0; k < W; k++)
                zs[k] = vadd_one<T, RoundThroughF32>(xs[k], ys[k]);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            cv[i + u * stride] = z[u];
    }
    for (; i < nv; i += stride) { /* fewer than U vectors left for this thread */
        V x = av[i], y = bv[i], z;
        const T *xs = reinterpret_cast<const T *>(&x);
        const T *ys = reinterpret_cast<const T *>(&y);
        T *zs = reinterpret_cast<T *>(&z);
#pragma unroll
        for (int k = 0; k < W; k++)
            zs[k] = vadd_one<T, RoundThroughF32>(xs[k], ys[k]);
        cv[i] = z;
    }
    for (int64_t j = nv * W + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride)
        c[j] = vadd_one<T, RoundThroughF32>(a[j], b[j]);
}

/* v, changed in its lowest bit if it has old's bits: a store of v over old always shows. */
__device__ __forceinline__ float differ_from(float v, float old)
{
    unsigned u = __float_as_uint(v);
    return u == __float_as_uint(old) ? __uint_as_float(u ^ 1u) : v;
}
__device__ __forceinline__ double differ_from(double v, double old)
{
    long long u = __double_as_longlong(v);
    return u == __double_as_longlong(old) ? __longlong_as_double(u ^ 1LL) : v;
}

/* The planted stray store, one thread, after vadd_kernel has finished (same stream). */
template <typename T, int Stray>
__global__ void vadd_stray_kernel(T *a, const T *b, T *c, int64_t n)
{
    if (blockIdx.x != 0 || threadIdx.x != 0 || n < 1) return;
    if (Stray == STRAY_PASTEND) c[n] = a[n - 1] + b[n - 1]; /* one element past the end */
    if (Stray == STRAY_PRESTART) c[-1] = a[0] + b[0];       /* one element before the start */
    if (Stray == STRAY_CLOBBER) a[n - 1] = differ_from(c[n - 1] + T(1), a[n - 1]);
    if (Stray == STRAY_WILD) *reinterpret_cast<volatile T *>((uintptr_t)8) = c[0];
    if (Stray == STRAY_HANG) {
        unsigned long long t0 = global_ns();
        while (global_ns() - t0 < kHangNs) {
        }
        c[0] = T(NAN); /* had nothing stopped it, the case still fails */
    }
}

template <typename T, int Stray> static int vadd_stray(gk_launch *L)
{
    if (Stray == STRAY_NONE) return GV_OK;
    /* the planted bug writes into an input: the const is cast away on purpose */
    vadd_stray_kernel<T, Stray><<<1, 1, 0, gk_stream(L)>>>(
        (T *)const_cast<void *>(L->in[0]), (const T *)L->in[1], (T *)L->out[0], L->dims[0]);
    GK_LAUNCHED("vadd_stray_kernel");
    return GV_OK;
}

/* The vector type of a 16-byte load for each element type, and the vectors a thread takes
   per trip: f32 runs at the copy ceiling with one; f64 wants more bytes in flight. */
template <typename T> struct vadd_vec;
template <> struct vadd_vec<float> {
    using type = float4;
    static constexpr int unroll = 1;
};
template <> struct vadd_vec<double> {
    using type = double2;
    static constexpr int unroll = 2;
};

enum { VADD_SLOW_PASSES = 4 };

template <bool Planted, int Stray = STRAY_NONE, int Passes = 1> static int vadd_launch(gk_launch *L)
{
    int64_t n = L->dims[0];
    const int threads = 256;
    unsigned blocks = gk_blocks(n / 4 + 1, threads, 132LL * 32);
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        /* the planted f32 rounding exists only where there is something wider to round */
        for (int pass = 0; pass < Passes; pass++) {
            vadd_kernel<T, typename vadd_vec<T>::type, vadd_vec<T>::unroll,
                        Planted && sizeof(T) == 8><<<blocks, threads, 0, gk_stream(L)>>>(
                (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], n);
            GK_LAUNCHED("vadd_kernel");
        }
        return vadd_stray<T, Stray>(L);
    });
}

extern "C" const gk_op gk_vadd = {NULL, vadd_launch<false>, NULL};
extern "C" const gk_op gk_vadd_f32round = {NULL, vadd_launch<true>, NULL};
extern "C" const gk_op gk_vadd_pastend = {NULL, vadd_launch<false, STRAY_PASTEND>, NULL};
extern "C" const gk_op gk_vadd_prestart = {NULL, vadd_launch<false, STRAY_PRESTART>, NULL};
extern "C" const gk_op gk_vadd_clobber = {NULL, vadd_launch<false, STRAY_CLOBBER>, NULL};
extern "C" const gk_op gk_vadd_illegal = {NULL, vadd_launch<false, STRAY_WILD>, NULL};
extern "C" const gk_op gk_vadd_hang = {NULL, vadd_launch<false, STRAY_HANG>, NULL};
extern "C" const gk_op gk_vadd_slow = {NULL, vadd_launch<false, STRAY_NONE, VADD_SLOW_PASSES>,
                                       NULL};
