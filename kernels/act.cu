/* act.cu: the activations of the act family (src/ops/act.c), element-wise, one thread per
 * element, grid-stride; launch() reads x and writes y only, so repeating it gives the same y.
 * Each is PyTorch's CUDA formula (aten/src/ATen/native/cuda/ActivationGeluKernel.cu and
 * ActivationSiluKernel.cu), in the element type (PyTorch's opmath type for f32 and f64):
 *  - act.gelu:      x * 0.5 * (1 + erf(x * M_SQRT1_2));
 *  - act.gelu_tanh: 0.5 * x * (1 + tanh(kBeta * (x + kKappa * x^3))),
 *                   kBeta = sqrt(2) * (2/sqrt(pi)) * 0.5, kKappa = 0.044715;
 *  - act.silu:      x / (1 + exp(-x)); the fastmath mode (f32) with __expf;
 *  - act.tanh: tanh(x); act.relu: x > 0 ? x : 0; act.leaky_relu: x > 0 ? x : x * slope;
 *    act.hardtanh: clamp to [-1, 1]; act.softsign: x / (1 + |x|) (torch's composite);
 *    act.elu and act.selu (ActivationEluKernel.cu): x <= 0 ? expm1(x) * negcoef : x * poscoef,
 *    negcoef alpha scale and poscoef scale (ELU: 1 and 1); act.hardsigmoid
 *    (ActivationHardsigmoidKernel.cu): min(max(x + 3, 0), 6) * (1/6); act.softplus
 *    (ActivationSoftplusKernel.cu, beta 1): x > 20 ? x : log1p(exp(x)); abi/act.h's constants
 *    rounded to the element type.
 * Built without --use_fast_math: erff, tanhf, expf are the CUDA math library's, and x / y is
 * IEEE division. Planted bugs (each must FAIL): act.gelu.tanhlabel (the tanh form under the erf
 * label), act.silu.fastexp (__expf under the native label), act.elu.naive (exp(x) - 1, which
 * cancels near 0, for expm1), act.softplus.naive (log(1 + exp(x)), which loses a tiny exp(x)
 * in the 1 +, for log1p). */
#include "../abi/act.h"
#include "gk_cuda.h"

/* The functions in oracle/go.h's order (GO_ACT_*), then the planted forms */
enum act_fn {
    ACT_GELU,
    ACT_GELU_TANH,
    ACT_SILU,
    ACT_TANH,
    ACT_RELU,
    ACT_LEAKY_RELU,
    ACT_HARDTANH,
    ACT_SOFTSIGN,
    ACT_ELU,
    ACT_SELU,
    ACT_HARDSIGMOID,
    ACT_SOFTPLUS,
    ACT_ELU_NAIVE,
    ACT_SOFTPLUS_NAIVE
};

/* The CUDA math library's function of the element type */
#define ACT_LIBM(T, fn, v) (sizeof(T) == 4 ? (T)fn##f((float)(v)) : (T)fn((double)(v)))

template <typename T> __device__ __forceinline__ T act_erf(T v);
template <> __device__ __forceinline__ float act_erf<float>(float v)
{
    return erff(v);
}
template <> __device__ __forceinline__ double act_erf<double>(double v)
{
    return erf(v);
}
template <typename T> __device__ __forceinline__ T act_tanh(T v);
template <> __device__ __forceinline__ float act_tanh<float>(float v)
{
    return tanhf(v);
}
template <> __device__ __forceinline__ double act_tanh<double>(double v)
{
    return tanh(v);
}
/* Fast: __expf, float only (the launch refuses f64 before it gets here) */
template <typename T, bool Fast> __device__ __forceinline__ T act_exp(T v);
template <> __device__ __forceinline__ float act_exp<float, false>(float v)
{
    return expf(v);
}
template <> __device__ __forceinline__ float act_exp<float, true>(float v)
{
    return __expf(v);
}
template <> __device__ __forceinline__ double act_exp<double, false>(double v)
{
    return exp(v);
}
template <> __device__ __forceinline__ double act_exp<double, true>(double v)
{
    return exp(v);
}

template <typename T, int Fn, bool Fast> __device__ __forceinline__ T act_apply(T x)
{
    if constexpr (Fn == ACT_GELU) {
        const T alpha = T(0.70710678118654752440); /* M_SQRT1_2 */
        return x * T(0.5) * (T(1) + act_erf<T>(x * alpha));
    } else if constexpr (Fn == ACT_GELU_TANH) {
        const T beta = T(1.41421356237309504880 * 1.12837916709551257390 * 0.5);
        const T kappa = T(0.044715);
        T x_cube = x * x * x;
        T inner = beta * (x + kappa * x_cube);
        return T(0.5) * x * (T(1) + act_tanh<T>(inner));
    } else if constexpr (Fn == ACT_SILU) {
        return x / (T(1) + act_exp<T, Fast>(-x));
    } else if constexpr (Fn == ACT_TANH) {
        return act_tanh<T>(x);
    } else if constexpr (Fn == ACT_RELU) {
        return x > T(0) ? x : T(0);
    } else if constexpr (Fn == ACT_LEAKY_RELU) {
        return x > T(0) ? x : x * T(GK_ACT_LEAKY_SLOPE);
    } else if constexpr (Fn == ACT_HARDTANH) {
        return x < T(-1) ? T(-1) : (x > T(1) ? T(1) : x);
    } else if constexpr (Fn == ACT_SOFTSIGN) {
        return x / (T(1) + (x < T(0) ? -x : x));
    } else if constexpr (Fn == ACT_ELU || Fn == ACT_SELU || Fn == ACT_ELU_NAIVE) {
        const bool selu = Fn == ACT_SELU;
        const T negcoef = selu ? T(GK_ACT_SELU_ALPHA * GK_ACT_SELU_SCALE) : T(1);
        const T poscoef = selu ? T(GK_ACT_SELU_SCALE) : T(1);
        /* the planted bug ACT_ELU_NAIVE: exp(x) - 1, which cancels near 0 */
        const T em1 = Fn == ACT_ELU_NAIVE ? ACT_LIBM(T, exp, x) - T(1) : ACT_LIBM(T, expm1, x);
        return x <= T(0) ? em1 * negcoef : x * poscoef;
    } else if constexpr (Fn == ACT_HARDSIGMOID) {
        const T t = x + T(3);
        return (t < T(0) ? T(0) : (t > T(6) ? T(6) : t)) * T(1.0 / 6.0);
    } else {
        static_assert(Fn == ACT_SOFTPLUS || Fn == ACT_SOFTPLUS_NAIVE, "an act function");
        if (x > T(GK_ACT_SOFTPLUS_THRESHOLD)) return x;
        /* the planted bug ACT_SOFTPLUS_NAIVE: log(1 + exp(x)), 1 + a tiny exp(x) is 1 */
        return Fn == ACT_SOFTPLUS_NAIVE ? ACT_LIBM(T, log, T(1) + ACT_LIBM(T, exp, x))
                                        : ACT_LIBM(T, log1p, ACT_LIBM(T, exp, x));
    }
}

template <typename T, int Fn, bool Fast>
__global__ void act_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = act_apply<T, Fn, Fast>(x[i]);
}

static const char *act_name(int fn, bool f32, bool fast)
{
    switch (fn) {
    case ACT_GELU: return f32 ? "gelu: erff (CUDA math)" : "gelu: erf (CUDA math)";
    case ACT_GELU_TANH: return f32 ? "gelu tanh: tanhf (CUDA math)" : "gelu tanh: tanh (CUDA math)";
    case ACT_TANH: return f32 ? "tanhf (CUDA math)" : "tanh (CUDA math)";
    case ACT_RELU: return "relu: compare (exact)";
    case ACT_LEAKY_RELU: return "leaky relu: x * slope";
    case ACT_HARDTANH: return "hardtanh: clamp (exact)";
    case ACT_SOFTSIGN: return "softsign: IEEE div";
    case ACT_ELU: return f32 ? "elu: expm1f (CUDA math)" : "elu: expm1 (CUDA math)";
    case ACT_SELU: return f32 ? "selu: expm1f (CUDA math)" : "selu: expm1 (CUDA math)";
    case ACT_HARDSIGMOID: return "hardsigmoid: (x + 3) * (1/6)";
    case ACT_SOFTPLUS: return f32 ? "softplus: log1pf(expf)" : "softplus: log1p(exp)";
    case ACT_ELU_NAIVE: return "elu: exp - 1";
    case ACT_SOFTPLUS_NAIVE: return "softplus: log(1 + exp)";
    default:
        return fast  ? "silu: __expf (SFU), IEEE div"
               : f32 ? "silu: expf (CUDA math), IEEE div"
                     : "silu: exp (CUDA math), IEEE div";
    }
}

template <typename T, int Fn, bool Fast> static void act_enqueue(gk_launch *L)
{
    int64_t n = L->dims[0];
    const int threads = 256;
    act_kernel<T, Fn, Fast><<<gk_blocks(n, threads), threads, 0, gk_stream(L)>>>(
        (const T *)L->in[0], (T *)L->out[0], n);
}

/* Fn: what runs; Label: the function the descriptor claims (different only where planted);
   PlantFast: __expf whatever the mode (planted). */
template <int Fn, int Label, bool PlantFast> static int act_launch(gk_launch *L)
{
    bool planted = Fn != Label || PlantFast;
    bool fast = PlantFast || L->mode == GV_MODE_FASTMATH;
    if (fast) {
        if (Fn != ACT_SILU) return gk_fail_unsupported("act: fastmath is SiLU's (__expf) only");
        if (L->dtype != GV_F32) return gk_fail_unsupported("__expf is f32 only");
        snprintf(L->math_mode, sizeof L->math_mode, "%s%s", act_name(Fn, true, true),
                 planted ? " (planted bug)" : "");
        act_enqueue<float, Fn, true>(L);
        GK_LAUNCHED("act_kernel (__expf)");
        return GV_OK;
    }
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        snprintf(L->math_mode, sizeof L->math_mode, "%s%s", act_name(Fn, sizeof(T) == 4, false),
                 planted ? " (planted bug)" : "");
        act_enqueue<T, Fn, false>(L);
        GK_LAUNCHED("act_kernel");
        return (int)GV_OK;
    });
}

extern "C" const gk_op gk_act_gelu = {NULL, act_launch<ACT_GELU, ACT_GELU, false>, NULL};
extern "C" const gk_op gk_act_gelu_tanh = {NULL, act_launch<ACT_GELU_TANH, ACT_GELU_TANH, false>,
                                           NULL};
extern "C" const gk_op gk_act_silu = {NULL, act_launch<ACT_SILU, ACT_SILU, false>, NULL};
extern "C" const gk_op gk_act_gelu_tanhlabel = {NULL, act_launch<ACT_GELU_TANH, ACT_GELU, false>,
                                                NULL};
extern "C" const gk_op gk_act_silu_fastexp = {NULL, act_launch<ACT_SILU, ACT_SILU, true>, NULL};
#define ACT_OP_(name, FN)                                                                          \
    extern "C" const gk_op gk_act_##name = {NULL, act_launch<FN, FN, false>, NULL};
ACT_OP_(tanh, ACT_TANH)
ACT_OP_(relu, ACT_RELU)
ACT_OP_(leaky_relu, ACT_LEAKY_RELU)
ACT_OP_(hardtanh, ACT_HARDTANH)
ACT_OP_(softsign, ACT_SOFTSIGN)
ACT_OP_(elu, ACT_ELU)
ACT_OP_(selu, ACT_SELU)
ACT_OP_(hardsigmoid, ACT_HARDSIGMOID)
ACT_OP_(softplus, ACT_SOFTPLUS)
#undef ACT_OP_
extern "C" const gk_op gk_act_elu_naive = {NULL, act_launch<ACT_ELU_NAIVE, ACT_ELU, false>, NULL};
extern "C" const gk_op gk_act_softplus_naive = {
    NULL, act_launch<ACT_SOFTPLUS_NAIVE, ACT_SOFTPLUS, false>, NULL};
