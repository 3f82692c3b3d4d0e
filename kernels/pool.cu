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

/* 1-D and 3-D pooling (MaxPool1d/AvgPool1d(k): dims nc, l, k; MaxPool3d/AvgPool3d(k): dims nc,
 * d, h, w, k), window k a side, stride k, no padding, out (nc, l / k) or (nc, d/k, h/k, w/k).
 * The same arithmetic as the 2-D kernel above: the max exact with NaN kept; the average adds its
 * k or k^3 values in row-major window order, then divides by their count (exact in the dtype
 * while it is at most 2^24: src/ops/pool.c checks). Planted bugs (each must FAIL):
 * pool.{max,avg}{1d,3d}.window take one more element along each side where it exists (`<=`
 * for `<`), as the 2-D ones. A side is the rank's (d, h, w) right-aligned: rank 1 has d = h =
 * 1 and a 1 x 1 x k window. */
template <typename T, int Kind, bool Wide, int Rank>
__global__ void pool_nd_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t nc,
                               int64_t d, int64_t h, int64_t w, int64_t k)
{
    const int64_t kd = Rank == 3 ? k : 1, kh = Rank >= 2 ? k : 1;
    const int64_t od = d / kd, oh = h / kh, ow = w / k, per = od * oh * ow, total = nc * per;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
         o += (int64_t)gridDim.x * blockDim.x) {
        const int64_t plane = o / per, r = o % per, i = r / (oh * ow), j = r / ow % oh,
                      l = r % ow;
        const T *xp = x + plane * d * h * w;
        /* the planted bug Wide: one more along each windowed side where it exists */
        const int64_t nd = Wide && Rank == 3 && i * kd + kd < d ? kd + 1 : kd;
        const int64_t nh = Wide && Rank >= 2 && j * kh + kh < h ? kh + 1 : kh;
        const int64_t nw = Wide && l * k + k < w ? k + 1 : k;
        T acc = Kind == POOL_MAX ? T(-INFINITY) : T(0);
        bool first = true;
        for (int64_t a = 0; a < nd; a++)
            for (int64_t b = 0; b < nh; b++)
                for (int64_t c = 0; c < nw; c++) {
                    const T v = xp[((i * kd + a) * h + j * kh + b) * w + l * k + c];
                    if (Kind == POOL_MAX)
                        acc = (v > acc || v != v) && acc == acc ? v : acc; /* a NaN stays */
                    else
                        acc = first ? v : acc + v;
                    first = false;
                }
        y[o] = Kind == POOL_MAX ? acc : acc / T(kd * kh * k);
    }
}

template <typename T, int Kind, bool Wide, int Rank> static int pool_nd_t(gk_launch *L)
{
    const int64_t nc = L->dims[0];
    /* dims nc, l, k (rank 1) or nc, d, s, k (rank 3: d x s x s volumes, the case's four dims) */
    const int64_t d = Rank == 3 ? L->dims[1] : 1, h = Rank == 3 ? L->dims[2] : 1;
    const int64_t w = Rank == 3 ? L->dims[2] : L->dims[1], k = Rank == 3 ? L->dims[3] : L->dims[2];
    snprintf(L->math_mode, sizeof L->math_mode, "one thread an output");
    const int64_t total = nc * (Rank == 3 ? (d / k) * (h / k) : 1) * (w / k);
    if (total == 0) return GV_OK;
    const int threads = 256;
    const int64_t want = (total + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < (1 << 20) ? want : (1 << 20));
    pool_nd_kernel<T, Kind, Wide, Rank><<<blocks, threads, 0, gk_stream(L)>>>(
        (const T *)L->in[0], (T *)L->out[0], nc, d, h, w, k);
    GK_LAUNCHED("pool_nd_kernel");
    return GV_OK;
}

template <int Kind, bool Wide, int Rank> static int pool_nd_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype,
                       [&](auto v) { return pool_nd_t<decltype(v), Kind, Wide, Rank>(L); });
}

extern "C" const gk_op gk_pool_max1d = {NULL, pool_nd_launch<POOL_MAX, false, 1>, NULL};
extern "C" const gk_op gk_pool_avg1d = {NULL, pool_nd_launch<POOL_AVG, false, 1>, NULL};
extern "C" const gk_op gk_pool_max1d_window = {NULL, pool_nd_launch<POOL_MAX, true, 1>, NULL};
extern "C" const gk_op gk_pool_avg1d_window = {NULL, pool_nd_launch<POOL_AVG, true, 1>, NULL};
extern "C" const gk_op gk_pool_max3d = {NULL, pool_nd_launch<POOL_MAX, false, 3>, NULL};
extern "C" const gk_op gk_pool_avg3d = {NULL, pool_nd_launch<POOL_AVG, false, 3>, NULL};
extern "C" const gk_op gk_pool_max3d_window = {NULL, pool_nd_launch<POOL_MAX, true, 3>, NULL};
extern "C" const gk_op gk_pool_avg3d_window = {NULL, pool_nd_launch<POOL_AVG, true, 3>, NULL};
