/* vadd.cu: c = a + b (seed 000). One 16-byte vector load of each input and one store a thread
 * (float4 / double2), no grid-stride loop (see vadd_kernel), where all three pointers are
 * 16-byte aligned (checked at each launch: a user's operand may start anywhere its dtype
 * allows, vadd.offset's do); otherwise one element a thread (vadd_scalar_kernel). The vector
 * kernel's scalar loop takes the tail. Planted bugs:
 *  - vadd.aligned16 takes the vector path without the check: on vadd.offset's operands (4 and
 *    8 bytes past a 16-byte boundary) its float4 / double2 loads fault with
 *    cudaErrorMisalignedAddress;
 *  - vadd.f32round adds f64 data in f32;
 *  - vadd.rz adds with rounding toward zero (__fadd_rz, __dadd_rz), and vadd.ulp adds
 *    correctly, then steps one ulp up (nextafter toward +inf). Every result is within one
 *    ulp of the right one: only the bias rule (docs/error-models.md, "Bias") sees that the
 *    errors all lean one way;
 *  - vadd.ftz (f32) adds with the FTZ instruction (add.rn.ftz.f32, what -ftz=true and
 *    --use_fast_math emit): subnormal inputs read as zero and subnormal sums flushed to zero;
 *  - vadd.accum zeroes its output and adds both inputs into it (c = 0; c += a; c += b), as a
 *    kernel that accumulates into a cleared buffer does: right everywhere but at -0 + -0, which
 *    IEEE says is -0 and this gives +0;
 *  - vadd.pastend, vadd.prestart, vadd.clobber compute c correctly, then one stray store
 *    (a second one-thread kernel, ordered after the first on the stream) writes c[n], one
 *    element past the end of c, or c[-1], one before its start, or overwrites the input
 *    a[n-1] after it was read. Only gk_run's guards (red zones, input check) can see them;
 *  - vadd.illegal and vadd.hang are faults, not numerics: after a correct c, one thread
 *    stores through a wild pointer (address 8, where nothing is ever mapped:
 *    cudaErrorIllegalAddress, which leaves the CUDA context unusable), or spins on the
 *    global timer for 30 minutes (longer than a test's --case-timeout of a few seconds, yet
 *    finite, so a lost watchdog cannot hold a GPU forever) and then stores NaN into c[0].
 *  - vadd.idx32 (the large tier's) keeps the index and the count in 32-bit int, the count
 *    clamped to INT_MAX: the elements from 2^31 - 1 on are never written.
 * Planted slowdown: vadd.slow runs the same kernel VADD_SLOW_PASSES times over the same
 *  buffers; every pass writes the same c, so the results are vadd's, bit for bit, at a
 *  multiple of its memory traffic (what `gpuval compare` must call REGRESSED). */
#include <climits>

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

/* The addition each variant does: round to nearest (vadd), through f32 (vadd.f32round, f64
   data only), toward zero (vadd.rz), or to nearest and then one ulp up (vadd.ulp). */
enum vadd_arith { ARITH_RN, ARITH_F32ROUND, ARITH_RZ, ARITH_ULP_UP, ARITH_FTZ, ARITH_ACCUM };

/* f32 addition with flush-to-zero of subnormal inputs and results (PTX ISA, add.ftz.f32) */
__device__ __forceinline__ float add_ftz(float x, float y)
{
    float z;
    asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(z) : "f"(x), "f"(y));
    return z;
}
__device__ __forceinline__ double add_ftz(double x, double y)
{
    return x + y; /* PTX has no FTZ for f64: the planted op is f32 only */
}

__device__ __forceinline__ float add_rz(float x, float y)
{
    return __fadd_rz(x, y);
}
__device__ __forceinline__ double add_rz(double x, double y)
{
    return __dadd_rz(x, y);
}
__device__ __forceinline__ float next_up(float v)
{
    return nextafterf(v, INFINITY);
}
__device__ __forceinline__ double next_up(double v)
{
    return nextafter(v, (double)INFINITY);
}

template <typename T, int Arith> __device__ __forceinline__ T vadd_one(T x, T y)
{
    if (Arith == ARITH_F32ROUND) return (T)((float)x + (float)y);
    if (Arith == ARITH_RZ) return add_rz(x, y);
    if (Arith == ARITH_ULP_UP) return next_up(x + y);
    if (Arith == ARITH_FTZ) return add_ftz(x, y);
    if (Arith == ARITH_ACCUM) {
        T acc = T(0);
        acc += x;
        acc += y;
        return acc;
    }
    return x + y;
}

/* One 16-byte vector (float4 / double2) per thread, no loop: block b takes the VADD_THREADS
   consecutive vectors from b * VADD_THREADS, so every load and store of a warp is 512
   contiguous bytes, and the grid covers the whole vector part (the hardware's block scheduler
   does the load balancing a grid-stride loop would do by hand). The last block also adds the
   n mod W scalar tail. Measured (tools/colsum_tune, H100): 1.051 ms f64 2^27 and 1.049 ms f32
   2^28 against 1.107 / 1.106 ms for the grid-stride loop with U vectors a trip it replaces. */
template <typename T, typename V, int Arith>
__global__ void vadd_kernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c,
                            int64_t n)
{
    constexpr int W = sizeof(V) / sizeof(T);
    int64_t nv = n / W;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nv) {
        V x = reinterpret_cast<const V *>(a)[i], y = reinterpret_cast<const V *>(b)[i], z;
        const T *xs = reinterpret_cast<const T *>(&x);
        const T *ys = reinterpret_cast<const T *>(&y);
        T *zs = reinterpret_cast<T *>(&z);
#pragma unroll
        for (int k = 0; k < W; k++)
            zs[k] = vadd_one<T, Arith>(xs[k], ys[k]);
        reinterpret_cast<V *>(c)[i] = z;
    }
    if (blockIdx.x == gridDim.x - 1)
        for (int64_t j = nv * W + threadIdx.x; j < n; j += blockDim.x)
            c[j] = vadd_one<T, Arith>(a[j], b[j]);
}

/* One element a thread: any pointer a T may have. */
template <typename T, int Arith>
__global__ void vadd_scalar_kernel(const T *__restrict__ a, const T *__restrict__ b,
                                   T *__restrict__ c, int64_t n)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = vadd_one<T, Arith>(a[i], b[i]);
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

/* The vector type of a 16-byte load for each element type. */
template <typename T> struct vadd_vec;
template <> struct vadd_vec<float> {
    using type = float4;
};
template <> struct vadd_vec<double> {
    using type = double2;
};

enum { VADD_SLOW_PASSES = 4, VADD_THREADS = 1024 };

/* All three operands 16-byte aligned: the vector loads are legal. */
static bool vadd_aligned16(const gk_launch *L)
{
    return (((uintptr_t)L->in[0] | (uintptr_t)L->in[1] | (uintptr_t)L->out[0]) & 15) == 0;
}

/* AssumeAligned: the planted vadd.aligned16, the vector path whatever the pointers. */
template <int Arith, int Stray = STRAY_NONE, int Passes = 1, bool AssumeAligned = false>
static int vadd_launch(gk_launch *L)
{
    int64_t n = L->dims[0];
    const bool vector = AssumeAligned || vadd_aligned16(L);
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        using V = typename vadd_vec<T>::type;
        int64_t nv = n / (int64_t)(sizeof(V) / sizeof(T));
        unsigned blocks = (unsigned)(nv / VADD_THREADS + 1); /* the last one takes the tail */
        unsigned scalar_blocks = (unsigned)(n / VADD_THREADS + 1);
        /* the planted f32 rounding exists only where there is something wider to round */
        constexpr int A = Arith == ARITH_F32ROUND && sizeof(T) != 8 ? ARITH_RN : Arith;
        for (int pass = 0; pass < Passes; pass++) {
            if (vector) {
                vadd_kernel<T, V, A><<<blocks, VADD_THREADS, 0, gk_stream(L)>>>(
                    (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], n);
                GK_LAUNCHED("vadd_kernel");
            } else {
                vadd_scalar_kernel<T, A><<<scalar_blocks, VADD_THREADS, 0, gk_stream(L)>>>(
                    (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], n);
                GK_LAUNCHED("vadd_scalar_kernel");
            }
        }
        return vadd_stray<T, Stray>(L);
    });
}

/* vadd.idx32, a planted bug of the large tier: one element a thread, its index and the count in
   32-bit int, as a kernel written for int sizes would have them. The count is clamped to
   INT_MAX and the grid sized from it, so that no index overflows (a wrapped, negative index
   would store far before c: an illegal address, not a wrong result): the elements from
   2^31 - 1 on are never written. Right whenever n < 2^31. */
template <typename T>
__global__ void vadd_idx32_kernel(const T *__restrict__ a, const T *__restrict__ b,
                                  T *__restrict__ c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

static int vadd_idx32_launch(gk_launch *L)
{
    const int n = L->dims[0] > INT_MAX ? INT_MAX : (int)L->dims[0];
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        const int64_t want = ((int64_t)n + VADD_THREADS - 1) / VADD_THREADS;
        const unsigned blocks = (unsigned)(want > 0 ? want : 1);
        vadd_idx32_kernel<T><<<blocks, VADD_THREADS, 0, gk_stream(L)>>>(
            (const T *)L->in[0], (const T *)L->in[1], (T *)L->out[0], n);
        GK_LAUNCHED("vadd_idx32_kernel");
        return (int)GV_OK;
    });
}

extern "C" const gk_op gk_vadd = {NULL, vadd_launch<ARITH_RN>, NULL};
extern "C" const gk_op gk_vadd_idx32 = {NULL, vadd_idx32_launch, NULL};
extern "C" const gk_op gk_vadd_f32round = {NULL, vadd_launch<ARITH_F32ROUND>, NULL};
extern "C" const gk_op gk_vadd_rz = {NULL, vadd_launch<ARITH_RZ>, NULL};
extern "C" const gk_op gk_vadd_ulp = {NULL, vadd_launch<ARITH_ULP_UP>, NULL};
extern "C" const gk_op gk_vadd_ftz = {NULL, vadd_launch<ARITH_FTZ>, NULL};
extern "C" const gk_op gk_vadd_accum = {NULL, vadd_launch<ARITH_ACCUM>, NULL};
extern "C" const gk_op gk_vadd_pastend = {NULL, vadd_launch<ARITH_RN, STRAY_PASTEND>, NULL};
extern "C" const gk_op gk_vadd_prestart = {NULL, vadd_launch<ARITH_RN, STRAY_PRESTART>, NULL};
extern "C" const gk_op gk_vadd_clobber = {NULL, vadd_launch<ARITH_RN, STRAY_CLOBBER>, NULL};
extern "C" const gk_op gk_vadd_illegal = {NULL, vadd_launch<ARITH_RN, STRAY_WILD>, NULL};
extern "C" const gk_op gk_vadd_hang = {NULL, vadd_launch<ARITH_RN, STRAY_HANG>, NULL};
extern "C" const gk_op gk_vadd_aligned16 = {NULL, vadd_launch<ARITH_RN, STRAY_NONE, 1, true>, NULL};
extern "C" const gk_op gk_vadd_slow = {NULL, vadd_launch<ARITH_RN, STRAY_NONE, VADD_SLOW_PASSES>,
                                       NULL};
