/* mathfn.cuh: the element-wise math functions the catalogue's kernels call, one device
 * function per (function, element type, kind), shared by those kernels (sin_iter.cu,
 * dense.cu) and by the mathfn family (mathfn.cu) that judges each function alone against its
 * documented ulp bound: what mathfn judges is what the catalogue runs.
 *  - GK_MATH_NATIVE: CUDA's math library (sinf, expf, sin, exp; IEEE division), built without
 *    -use_fast_math so that sinf and expf are not replaced by the intrinsics;
 *  - GK_MATH_FAST (float only): the SFU intrinsics __sinf, __expf and __fdividef, what
 *    --use_fast_math would emit.
 * The sigmoid uses the form stable for both signs, as the oracles do (oracle/dense.c,
 * oracle/mathfn.c): t = exp(-|z|), y = (z >= 0 ? 1 : t) / (1 + t). exp's argument is never
 * positive (no overflow), 1 + t is in [1, 2] (inside __fdividef's accurate range
 * 2^-126..2^126). */
#ifndef GK_MATHFN_CUH
#define GK_MATHFN_CUH

enum gk_math_kind { GK_MATH_NATIVE, GK_MATH_FAST };

template <typename T, int Kind> __device__ __forceinline__ T gk_sin(T v);
template <> __device__ __forceinline__ float gk_sin<float, GK_MATH_NATIVE>(float v)
{
    return sinf(v);
}
template <> __device__ __forceinline__ float gk_sin<float, GK_MATH_FAST>(float v)
{
    return __sinf(v);
}
template <> __device__ __forceinline__ double gk_sin<double, GK_MATH_NATIVE>(double v)
{
    return sin(v);
}

template <typename T, int Kind> __device__ __forceinline__ T gk_exp(T v);
template <> __device__ __forceinline__ float gk_exp<float, GK_MATH_NATIVE>(float v)
{
    return expf(v);
}
template <> __device__ __forceinline__ float gk_exp<float, GK_MATH_FAST>(float v)
{
    return __expf(v);
}
template <> __device__ __forceinline__ double gk_exp<double, GK_MATH_NATIVE>(double v)
{
    return exp(v);
}

template <typename T, int Kind> __device__ __forceinline__ T gk_sigmoid(T z);
template <> __device__ __forceinline__ float gk_sigmoid<float, GK_MATH_NATIVE>(float z)
{
    float t = expf(-fabsf(z));
    return (z >= 0.0f ? 1.0f : t) / (1.0f + t);
}
template <> __device__ __forceinline__ float gk_sigmoid<float, GK_MATH_FAST>(float z)
{
    float t = __expf(-fabsf(z));
    return __fdividef(z >= 0.0f ? 1.0f : t, 1.0f + t);
}
template <> __device__ __forceinline__ double gk_sigmoid<double, GK_MATH_NATIVE>(double z)
{
    double t = exp(-fabs(z));
    return (z >= 0.0 ? 1.0 : t) / (1.0 + t);
}

#endif
