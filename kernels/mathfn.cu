/* mathfn.cu: y = f(x) element-wise for each math function the catalogue's kernels call on
 * their own (sin in sin_iter, exp and the sigmoid in dense), through the very device functions
 * those kernels use (kernels/mathfn.cuh), so that the ulp judgement of src/ops/mathfn.c is a
 * judgement of what the catalogue runs. One thread per element, grid-stride; launch() reads x
 * and writes y only, so repeating it gives the same y.
 *  - native: the CUDA math library (sinf, expf, sin, exp, IEEE division);
 *  - fastmath (f32 only): the intrinsics (__sinf, __expf, __fdividef);
 *  - planted bugs math.sin.fast, math.exp.fast, math.sigmoid.fast: the intrinsics under the
 *    native label, what a stray --use_fast_math or a hand-written __expf does to a kernel that
 *    claims the library's accuracy. */
#include "gk_cuda.h"
#include "mathfn.cuh"

enum mathfn_fn { MATHFN_SIN, MATHFN_EXP, MATHFN_SIGMOID };

template <typename T, int Fn, int Kind> __device__ __forceinline__ T mathfn_apply(T v)
{
    if constexpr (Fn == MATHFN_SIN)
        return gk_sin<T, Kind>(v);
    else if constexpr (Fn == MATHFN_EXP)
        return gk_exp<T, Kind>(v);
    else
        return gk_sigmoid<T, Kind>(v);
}

template <typename T, int Fn, int Kind>
__global__ void mathfn_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = mathfn_apply<T, Fn, Kind>(x[i]);
}

/* The function each (Fn, element type, kind) calls, for the recorded math mode. */
static const char *mathfn_name(int fn, bool f32, bool fast)
{
    switch (fn) {
    case MATHFN_SIN:
        return fast ? "__sinf (SFU intrinsic)" : f32 ? "sinf (CUDA math)" : "sin (CUDA math)";
    case MATHFN_EXP:
        return fast ? "__expf (SFU intrinsic)" : f32 ? "expf (CUDA math)" : "exp (CUDA math)";
    default:
        return fast  ? "sigmoid: __expf, __fdividef"
               : f32 ? "sigmoid: expf, IEEE division"
                     : "sigmoid: exp, IEEE division";
    }
}

template <typename T, int Fn, int Kind> static void mathfn_enqueue(gk_launch *L)
{
    int64_t n = L->dims[0];
    const int threads = 256;
    mathfn_kernel<T, Fn, Kind><<<gk_blocks(n, threads), threads, 0, gk_stream(L)>>>(
        (const T *)L->in[0], (T *)L->out[0], n);
}

/* Planted: the intrinsic whatever the mode says (the descriptors give these ops the native
   mode only, so the recorded mode claims the library's accuracy). */
template <int Fn, bool Planted> static int mathfn_launch(gk_launch *L)
{
    bool fast = Planted || L->mode == GV_MODE_FASTMATH;
    if (fast) {
        if (L->dtype != GV_F32) return gk_fail_unsupported("the fast-math intrinsics are f32 only");
        snprintf(L->math_mode, sizeof L->math_mode, "%s%s", mathfn_name(Fn, true, true),
                 Planted ? " (planted bug)" : "");
        mathfn_enqueue<float, Fn, GK_MATH_FAST>(L);
        GK_LAUNCHED("mathfn_kernel (intrinsic)");
        return GV_OK;
    }
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        snprintf(L->math_mode, sizeof L->math_mode, "%s", mathfn_name(Fn, sizeof(T) == 4, false));
        mathfn_enqueue<T, Fn, GK_MATH_NATIVE>(L);
        GK_LAUNCHED("mathfn_kernel");
        return (int)GV_OK;
    });
}

extern "C" const gk_op gk_math_sin = {NULL, mathfn_launch<MATHFN_SIN, false>, NULL};
extern "C" const gk_op gk_math_exp = {NULL, mathfn_launch<MATHFN_EXP, false>, NULL};
extern "C" const gk_op gk_math_sigmoid = {NULL, mathfn_launch<MATHFN_SIGMOID, false>, NULL};
extern "C" const gk_op gk_math_sin_fast = {NULL, mathfn_launch<MATHFN_SIN, true>, NULL};
extern "C" const gk_op gk_math_exp_fast = {NULL, mathfn_launch<MATHFN_EXP, true>, NULL};
extern "C" const gk_op gk_math_sigmoid_fast = {NULL, mathfn_launch<MATHFN_SIGMOID, true>, NULL};
