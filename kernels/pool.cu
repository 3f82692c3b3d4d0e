/* pool.cu: 2-D pooling over the planes of an NCHW tensor, viewed as nc planes of h x w
 * (row-major), with a k x k window, stride k and no padding (torch.nn.MaxPool2d(k) and
 * AvgPool2d(k), whose stride defaults to the window): out (nc, h/k, w/k), rounded down.
 *  - pool.max2d: the window's largest value, NaN where the window holds one (as PyTorch's
 *    max_pool2d propagates it); exact in any order.
 *  - pool.avg2d: the window's k*k values added row by row, left to right, then divided by k*k
 *    (exact in the dtype): k*k - 1 rounded additions and one division.
 * One thread an output, grid-stride. Planted bugs (each must FAIL): pool.max2d.window and
 * pool.avg2d.window take a window one row and one column too wide (`<=` for `<`, clamped to
 * the plane so that no read leaves the input). */
#include "gk_cuda.h"

enum pool_kind { POOL_MAX, POOL_AVG };

template <typename T, int Kind, bool Wide>
__global__ void pool_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t nc, int64_t h,
                            int64_t w, int64_t k)
{
    const int64_t oh = h / k, ow = w / k, total = nc * oh * ow;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
         o += (int64_t)gridDim.x * blockDim.x) {
        const int64_t plane = o / (oh * ow), r = o % (oh * ow), i = r / ow, j = r % ow;
        const T *xp = x + plane * h * w;
        /* the planted bug Wide: k + 1 rows and columns where they exist */
        const int64_t rows = Wide && i * k + k < h ? k + 1 : k;
        const int64_t cols = Wide && j * k + k < w ? k + 1 : k;
        T acc = Kind == POOL_MAX ? T(-INFINITY) : T(0);
        for (int64_t a = 0; a < rows; a++)
            for (int64_t b = 0; b < cols; b++) {
                const T v = xp[(i * k + a) * w + j * k + b];
                if (Kind == POOL_MAX)
                    acc = (v > acc || v != v) && acc == acc ? v : acc; /* a NaN stays */
                else
                    acc = (a == 0 && b == 0) ? v : acc + v;
            }
        y[o] = Kind == POOL_MAX ? acc : acc / T(k * k);
    }
}

template <typename T, int Kind, bool Wide> static int pool_t(gk_launch *L)
{
    const int64_t nc = L->dims[0], h = L->dims[1], w = L->dims[2], k = L->dims[3];
    snprintf(L->math_mode, sizeof L->math_mode, "one thread an output");
    const int64_t total = nc * (h / k) * (w / k);
    if (total == 0) return GV_OK;
    const int threads = 256;
    const int64_t want = (total + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < (1 << 20) ? want : (1 << 20));
    pool_kernel<T, Kind, Wide>
        <<<blocks, threads, 0, gk_stream(L)>>>((const T *)L->in[0], (T *)L->out[0], nc, h, w, k);
    GK_LAUNCHED("pool_kernel");
    return GV_OK;
}

template <int Kind, bool Wide> static int pool_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) { return pool_t<decltype(v), Kind, Wide>(L); });
}

extern "C" const gk_op gk_pool_max2d = {NULL, pool_launch<POOL_MAX, false>, NULL};
extern "C" const gk_op gk_pool_avg2d = {NULL, pool_launch<POOL_AVG, false>, NULL};
extern "C" const gk_op gk_pool_max2d_window = {NULL, pool_launch<POOL_MAX, true>, NULL};
extern "C" const gk_op gk_pool_avg2d_window = {NULL, pool_launch<POOL_AVG, true>, NULL};
