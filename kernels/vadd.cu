/* vadd.cu: c = a + b (seed 000). Grid-stride loop with 16-byte vector loads and stores
 * (float4 / double2); the 256-byte alignment of every tensor (cudaMalloc's, which gk_run's
 * red zones keep) makes the vector casts safe and the scalar loop takes the tail.
 * Planted bugs:
 *  - vadd.f32round adds f64 data in f32;
 *  - vadd.pastend, vadd.prestart, vadd.clobber compute c correctly, then one stray store
 *    (a second one-thread kernel, ordered after the first on the stream) writes c[n], one
 *    element past the end of c, or c[-1], one before its start, or overwrites the input
 *    a[n-1] after it was read. Only gk_run's guards (red zones, input check) can see them.
 * Planted slowdown: vadd.slow runs the same kernel VADD_SLOW_PASSES times over the same
 *  buffers; every pass writes the same c, so the results are vadd's, bit for bit, at a
 *  multiple of its memory traffic (what `gpuval compare` must call REGRESSED). */
#include "gk_cuda.h"

enum vadd_stray { STRAY_NONE, STRAY_PASTEND, STRAY_PRESTART, STRAY_CLOBBER };

template <typename T, typename V, bool RoundThroughF32>
__global__ void vadd_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
                            int64_t n)
{
    constexpr int W = sizeof(V) / sizeof(T);
    int64_t nv = n / W;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const V *av = reinterpret_cast<const V *>(a);
    const V *bv = reinterpret_cast<const V *>(b);
    V *cv = reinterpret_cast<V *>(c);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += stride) {
        V x = av[i], y = bv[i], z;
        const T *xs = reinterpret_cast<const T *>(&x);
        const T *ys = reinterpret_cast<const T *>(&y);
        T *zs = reinterpret_cast<T *>(&z);
#pragma unroll
        for (int k = 0; k < W; k++)
            zs[k] = RoundThroughF32 ? (T)((float)xs[k] + (float)ys[k]) : xs[k] + ys[k];
        cv[i] = z;
    }
    for (int64_t i = nv * W + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = RoundThroughF32 ? (T)((float)a[i] + (float)b[i]) : a[i] + b[i];
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

/* The vector type of a 16-byte load for each element type. */
template <typename T> struct vadd_vec;
template <> struct vadd_vec<float> {
    using type = float4;
};
template <> struct vadd_vec<double> {
    using type = double2;
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
            vadd_kernel<T, typename vadd_vec<T>::type, Planted && sizeof(T) == 8>
                <<<blocks, threads, 0, gk_stream(L)>>>((const T *)L->in[0], (const T *)L->in[1],
                                                       (T *)L->out[0], n);
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
extern "C" const gk_op gk_vadd_slow = {NULL, vadd_launch<false, STRAY_NONE, VADD_SLOW_PASSES>,
                                       NULL};
