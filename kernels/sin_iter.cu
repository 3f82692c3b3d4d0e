/* sin_iter.cu: y = sin applied k times to x (seed 000: the CPU/GPU crossover as the work per
 * element grows). One thread per element in a grid-stride loop: load once, k dependent sin
 * evaluations in registers, store once, so memory traffic is 2n elements whatever k is.
 *  - native: sinf / sin from CUDA's math library (2 ulp each, built without -use_fast_math
 *    so sinf is not replaced by the intrinsic);
 *  - fastmath (f32 only): the __sinf intrinsic (the SFU's approximation);
 *  - planted bug sin_iter.f32inner: the f64 path iterates in float.
 * launch() reads x and writes y only, so repeating it gives the same y. */
#include "gk_cuda.h"
#include "mathfn.cuh" /* gk_sin: the functions math.sin judges alone */

template <typename T, int Kind>
__global__ void sin_iter_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t n, int k)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        T v = x[i];
        for (int j = 0; j < k; j++)
            v = gk_sin<T, Kind>(v);
        y[i] = v;
    }
}

/* The planted bug: an f64 case whose iterations silently run in float. */
__global__ void sin_iter_f32inner_kernel(const double *__restrict__ x, double *__restrict__ y,
                                         int64_t n, int k)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = (float)x[i];
        for (int j = 0; j < k; j++)
            v = sinf(v);
        y[i] = (double)v;
    }
}

/* The CUDA math function each element type calls, for the recorded math mode. */
template <typename T> constexpr const char *sin_name = "sin";
template <> constexpr const char *sin_name<float> = "sinf";

template <bool F32Inner> static int sin_iter_launch(gk_launch *L)
{
    int64_t n = L->dims[0];
    int k = (int)L->dims[1]; /* the op's check_shape keeps k <= 1e6 */
    const int threads = 256;
    unsigned blocks = gk_blocks(n, threads);
    cudaStream_t s = gk_stream(L);
    if (F32Inner) {
        if (L->dtype != GV_F64) return gk_fail_unsupported("sin_iter.f32inner is f64 only");
        snprintf(L->math_mode, sizeof L->math_mode, "sinf on f64 data (planted bug)");
        sin_iter_f32inner_kernel<<<blocks, threads, 0, s>>>((const double *)L->in[0],
                                                            (double *)L->out[0], n, k);
        GK_LAUNCHED("sin_iter_f32inner_kernel");
        return GV_OK;
    }
    return gk_by_dtype(L->dtype, [&](auto x) {
        using T = decltype(x);
        constexpr bool f32 = sizeof(T) == 4;
        if (L->mode == GV_MODE_FASTMATH) {
            if constexpr (!f32) {
                return gk_fail_unsupported("sin_iter f64 has no fast-math intrinsic");
            } else {
                snprintf(L->math_mode, sizeof L->math_mode, "__sinf (SFU intrinsic)");
                sin_iter_kernel<T, GK_MATH_FAST>
                    <<<blocks, threads, 0, s>>>((const T *)L->in[0], (T *)L->out[0], n, k);
            }
        } else {
            snprintf(L->math_mode, sizeof L->math_mode, "%s (CUDA math, 2 ulp)", sin_name<T>);
            sin_iter_kernel<T, GK_MATH_NATIVE>
                <<<blocks, threads, 0, s>>>((const T *)L->in[0], (T *)L->out[0], n, k);
        }
        GK_LAUNCHED("sin_iter_kernel");
        return (int)GV_OK;
    });
}

extern "C" const gk_op gk_sin_iter = {NULL, sin_iter_launch<false>, NULL};
extern "C" const gk_op gk_sin_iter_f32inner = {NULL, sin_iter_launch<true>, NULL};
