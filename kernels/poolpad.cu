/* poolpad.cu: max and average pooling with a stride, zero padding and dilation (the geometries
 * of abi/poolpad.h: MaxPool1d/2d/3d and AvgPool1d/3d as KernelBench's problems 41-44 and 46
 * write them) over nc rows, planes or volumes, one thread an output, grid-stride. A side is
 * right-aligned (rank 1: d = h = 1, a 1 x 1 x k window).
 *  - max: the largest value among the window's elements inside the input (the padding is
 *    skipped, as PyTorch's -inf padding), NaN where one of them is NaN; exact in any order.
 *  - avg: the window's elements inside the input added in row-major window order, then
 *    divided by k^rank (the padded zeros counted, count_include_pad=True); exact divisor.
 * Planted bugs (each must FAIL): .nodil reads the window undilated (dilation 1), .nopad starts
 * each window at o s, as though unpadded (the output's size unchanged), .divisor divides the
 * average by the count of elements inside the input (count_include_pad=False). */
#include "../abi/poolpad.h"
#include "gk_cuda.h"

enum poolpad_kind { PP_MAX, PP_AVG };
enum poolpad_bug { PP_OK, PP_NODIL, PP_NOPAD, PP_DIVISOR };

struct poolpad_geom {
    int64_t n[3], o[3], k[3], s[3], p[3], dil[3];
};

template <typename T, int Kind, int Bug>
__global__ void poolpad_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t nc,
                               poolpad_geom g)
{
    const int64_t per = g.o[0] * g.o[1] * g.o[2], total = nc * per;
    const T terms = T(g.k[0] * g.k[1] * g.k[2]);
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < total;
         o += (int64_t)gridDim.x * blockDim.x) {
        const int64_t plane = o / per, r = o % per;
        const int64_t idx[3] = {r / (g.o[1] * g.o[2]), r / g.o[2] % g.o[1], r % g.o[2]};
        int64_t start[3], dil[3];
        for (int a = 0; a < 3; a++) {
            start[a] = idx[a] * g.s[a] - (Bug == PP_NOPAD ? 0 : g.p[a]);
            dil[a] = Bug == PP_NODIL ? 1 : g.dil[a];
        }
        const T *xp = x + plane * g.n[0] * g.n[1] * g.n[2];
        T acc = Kind == PP_MAX ? T(-INFINITY) : T(0);
        int64_t count = 0;
        for (int64_t a = 0; a < g.k[0]; a++) {
            const int64_t z = start[0] + a * dil[0];
            if (z < 0 || z >= g.n[0]) continue;
            for (int64_t b = 0; b < g.k[1]; b++) {
                const int64_t row = start[1] + b * dil[1];
                if (row < 0 || row >= g.n[1]) continue;
                for (int64_t c = 0; c < g.k[2]; c++) {
                    const int64_t col = start[2] + c * dil[2];
                    if (col < 0 || col >= g.n[2]) continue;
                    const T v = xp[(z * g.n[1] + row) * g.n[2] + col];
                    if (Kind == PP_MAX)
                        acc = (v > acc || v != v) && acc == acc ? v : acc; /* a NaN stays */
                    else
                        acc = count == 0 ? v : acc + v;
                    count++;
                }
            }
        }
        if (Kind == PP_MAX)
            y[o] = acc;
        else
            y[o] = acc / (Bug == PP_DIVISOR ? T(count > 0 ? count : 1) : terms);
    }
}

/* dims: nc then the rank's sides (l; h, w; d, h, w), right-aligned into n[3] */
template <typename T, int Kind, int Bug>
static int poolpad_t(gk_launch *L, int rank, int64_t k, int64_t s, int64_t p, int64_t dil)
{
    poolpad_geom g;
    for (int a = 0; a < 3; a++) {
        const bool on = a >= 3 - rank;
        g.n[a] = on ? L->dims[1 + a - (3 - rank)] : 1;
        g.k[a] = on ? k : 1;
        g.s[a] = on ? s : 1;
        g.p[a] = on ? p : 0;
        g.dil[a] = on ? dil : 1;
        g.o[a] = gk_poolpad_out(g.n[a], g.k[a], g.s[a], g.p[a], g.dil[a]);
    }
    snprintf(L->math_mode, sizeof L->math_mode, "one thread an output");
    const int64_t total = L->dims[0] * g.o[0] * g.o[1] * g.o[2];
    if (total == 0) return GV_OK;
    const int threads = 256;
    const int64_t want = (total + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < (1 << 20) ? want : (1 << 20));
    poolpad_kernel<T, Kind, Bug>
        <<<blocks, threads, 0, gk_stream(L)>>>((const T *)L->in[0], (T *)L->out[0], L->dims[0], g);
    GK_LAUNCHED("poolpad_kernel");
    return GV_OK;
}

template <int Kind, int Bug, int Rank, int K, int S, int P, int D>
static int poolpad_launch(gk_launch *L)
{
    return gk_by_dtype(
        L->dtype, [&](auto v) { return poolpad_t<decltype(v), Kind, Bug>(L, Rank, K, S, P, D); });
}

#define GK_POOLPAD_OPS_(name, rank, k, s, p, d)                                                    \
    extern "C" const gk_op gk_poolpad_max_##name = {                                               \
        NULL, poolpad_launch<PP_MAX, PP_OK, rank, k, s, p, d>, NULL};                              \
    extern "C" const gk_op gk_poolpad_avg_##name = {                                               \
        NULL, poolpad_launch<PP_AVG, PP_OK, rank, k, s, p, d>, NULL};                              \
    extern "C" const gk_op gk_poolpad_max_##name##_nodil = {                                       \
        NULL, poolpad_launch<PP_MAX, PP_NODIL, rank, k, s, p, d>, NULL};                           \
    extern "C" const gk_op gk_poolpad_max_##name##_nopad = {                                       \
        NULL, poolpad_launch<PP_MAX, PP_NOPAD, rank, k, s, p, d>, NULL};                           \
    extern "C" const gk_op gk_poolpad_avg_##name##_divisor = {                                     \
        NULL, poolpad_launch<PP_AVG, PP_DIVISOR, rank, k, s, p, d>, NULL};
GK_POOLPAD_GEOMETRIES(GK_POOLPAD_OPS_)
