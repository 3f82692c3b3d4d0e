/* conv.cu: direct 3-D, 2-D and 1-D convolutions of an NC(D)HW input, as
 * torch.nn.functional.conv3d, conv2d and conv1d compute them (cross-correlation: no flip of
 * the window), with zero padding and a bias or none: y(b, oc, k, i, j) = bias(oc) + sum over
 * ci, z, a, e of x(b, ci, k S - PD + z, i S - PH + a, j S - PW + e) w(oc, ci, z, a, e), the
 * terms that fall in the padding left out (their zeros are exact). A plane is a volume of
 * depth 1 (KD 1, PD 0). The geometry (window, stride, padding, bias) is the op's
 * (abi/conv.h). One thread an output, grid-stride, the c KD KH KW terms added one after
 * another with FMAs, then the bias: a dot product of c KD KH KW (+ 1) terms.
 * Planted bugs (each must FAIL): conv.2d.wrap (the columns' padding reads the other edge of
 * the row, circular padding where zeros belong), conv.2d.flipped (the window flipped: a
 * convolution where conv2d is a correlation), conv.2d.f16acc (products and sum rounded to
 * f16), conv.2d.nobias (the bias dropped); conv.2d.valid.padded (padding 1 where there is
 * none), conv.3d.flipped (the 3-D window flipped), conv.2d.transposed.noflip (a transposed
 * convolution computed as a padded correlation without flipping the window). The transposed
 * ops (stride 1, padding 0) are correlations of the input padded by the window less one with
 * the window flipped and the weights read (in, out): the geometry's TR. Dilation DL spaces
 * the taps DL apart; groups G (0: as many as the input's channels, depthwise) give output
 * channel oc the c / G input channels of group oc / (o / G) and weights (o, c / G, window).
 * Planted bugs of these: conv.2d.strided.stride1 (the reads at stride 1),
 * conv.2d.dilated.nodil (the reads at dilation 1), conv.2d.grouped.groupmap and
 * conv.2d.depthwise.groupmap (oc's group taken as oc mod G). */
#include <cuda_fp16.h>

#include "../abi/conv.h"
#include "gk_cuda.h"

enum conv_bug {
    BUG_NONE,
    BUG_WRAP,
    BUG_FLIPPED,
    BUG_F16ACC,
    BUG_NOBIAS,
    BUG_STRIDE1,  /* the reads at stride 1 */
    BUG_NODIL,    /* the reads at dilation 1 */
    BUG_GROUPMAP, /* output channel oc in group oc mod groups */
};

/* G: torch's groups, 0 for as many as the input's channels (depthwise); DL: its dilation. */
template <typename T, int KD, int KH, int KW, int S, int PD, int PH, int PW, int BIAS, int TR,
          int DL, int G, int Bug>
__global__ void conv_kernel(const T *__restrict__ x, const T *__restrict__ wt,
                            const T *__restrict__ bias, T *__restrict__ y, int64_t n, int64_t c,
                            int64_t d, int64_t h, int64_t w, int64_t o, int64_t od, int64_t oh,
                            int64_t ow)
{
    const int64_t total = n * o * od * oh * ow;
    const int64_t groups = G ? G : c, cg = c / groups, og = o / groups;
    constexpr int RS = Bug == BUG_STRIDE1 ? 1 : S, RD = Bug == BUG_NODIL ? 1 : DL;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
         idx += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = idx % ow, i = (idx / ow) % oh, k = (idx / (ow * oh)) % od,
                      oc = (idx / (ow * oh * od)) % o, b = idx / (ow * oh * od * o);
        /* the first input channel of oc's group (the planted bug: round-robin) */
        const int64_t c0 = (Bug == BUG_GROUPMAP ? oc % groups : oc / og) * cg;
        T acc = T(0);
        __half acc16 = __float2half_rn(0.0f);
        for (int64_t ci = 0; ci < cg; ci++) {
            const T *xp = x + (b * c + c0 + ci) * d * h * w;
            /* transposed: the weights are (in, out), c x o x window (groups 1) */
            const T *wp = wt + (TR ? ci * o + oc : oc * cg + ci) * KD * KH * KW;
            for (int z = 0; z < KD; z++) {
                const int64_t id = k * RS - PD + z * RD;
                if (id < 0 || id >= d) continue; /* the padding's zeros add nothing */
                for (int a = 0; a < KH; a++) {
                    const int64_t ih = i * RS - PH + a * RD;
                    if (ih < 0 || ih >= h) continue;
                    for (int e = 0; e < KW; e++) {
                        int64_t iw = j * RS - PW + e * RD;
                        if (iw < 0 || iw >= w) {
                            if (Bug != BUG_WRAP) continue;
                            iw = ((iw % w) + w) % w; /* the planted bug: the row's other edge */
                        }
                        /* transposed: the window read back to front; the planted bug
                           BUG_FLIPPED: the other way round (a correlation flipped, a
                           transposed convolution not) */
                        const bool flip = (TR != 0) != (Bug == BUG_FLIPPED);
                        const int wz = flip ? KD - 1 - z : z;
                        const int wa = flip ? KH - 1 - a : a;
                        const int we = flip ? KW - 1 - e : e;
                        const T xv = xp[(id * h + ih) * w + iw], wv = wp[(wz * KH + wa) * KW + we];
                        if (Bug == BUG_F16ACC)
                            acc16 = __hadd(acc16, __float2half_rn((float)(xv * wv)));
                        else
                            acc = fma(xv, wv, acc);
                    }
                }
            }
        }
        if (Bug == BUG_F16ACC) acc = T(__half2float(acc16));
        y[idx] = Bug == BUG_NOBIAS || !BIAS ? acc : acc + bias[oc];
    }
}

/* The kernel of geometry G with its padding replaced by P on every side (P = -1: G's own):
   conv.2d.valid.padded's planted bug reads G's padding-0 output positions from a padded
   input, so that each output is shifted by one row and one column and its edge terms are
   dropped. */
template <typename T, int KD, int KH, int KW, int S, int PD, int PH, int PW, int BIAS, int TR,
          int DL, int G, int Bug, int P>
static int conv_t(gk_launch *L)
{
    /* dims n, c, s, o: an s x s plane (conv.1d: a row of s; conv.3d: an s x s x s volume) */
    const bool one_row = GK_CONV_ONE_ROW(KH, KW, PH), volume = GK_CONV_VOLUME(KD);
    const int64_t n = L->dims[0], c = L->dims[1], o = L->dims[3];
    const int64_t d = volume ? L->dims[2] : 1, h = one_row ? 1 : L->dims[2], w = L->dims[2];
    /* the output's size is the geometry's own; only the reads are padded by the bug */
    const int64_t od = gk_conv_out_side_dil(d, KD, S, PD, DL),
                  oh = gk_conv_out_side_dil(h, KH, S, PH, DL),
                  ow = gk_conv_out_side_dil(w, KW, S, PW, DL);
    snprintf(L->math_mode, sizeof L->math_mode, "one thread an output, direct");
    const int64_t total = n * o * od * oh * ow;
    if (total == 0) return GV_OK;
    const int threads = 256;
    const int64_t want = (total + threads - 1) / threads;
    const unsigned blocks = (unsigned)(want < (1 << 20) ? want : (1 << 20));
    constexpr int pd = P < 0 ? PD : (KD > 1 ? P : 0), ph = P < 0 ? PH : P, pw = P < 0 ? PW : P;
    conv_kernel<T, KD, KH, KW, S, pd, ph, pw, BIAS, TR, DL, G, Bug>
        <<<blocks, threads, 0, gk_stream(L)>>>((const T *)L->in[0], (const T *)L->in[1],
                                               BIAS ? (const T *)L->in[2] : nullptr, (T *)L->out[0],
                                               n, c, d, h, w, o, od, oh, ow);
    GK_LAUNCHED("conv_kernel");
    return GV_OK;
}

template <int KD, int KH, int KW, int S, int PD, int PH, int PW, int BIAS, int TR, int DL, int G,
          int Bug, int P = -1>
static int conv_launch(gk_launch *L)
{
    return gk_by_dtype(L->dtype, [&](auto v) {
        return conv_t<decltype(v), KD, KH, KW, S, PD, PH, PW, BIAS, TR, DL, G, Bug, P>(L);
    });
}

#define GK_CONV_OP_(name, kd, kh, kw, s, pd, ph, pw, bias, tr, dl, g)                              \
    extern "C" const gk_op gk_conv_##name = {                                                      \
        NULL, conv_launch<kd, kh, kw, s, pd, ph, pw, bias, tr, dl, g, BUG_NONE>, NULL};
GK_CONV_GEOMETRIES(GK_CONV_OP_)
#undef GK_CONV_OP_

#define K3 1, 3, 3, 1, 0, 1, 1, 1, 0, 1, 1
extern "C" const gk_op gk_conv_k3_wrap = {NULL, conv_launch<K3, BUG_WRAP>, NULL};
extern "C" const gk_op gk_conv_k3_flipped = {NULL, conv_launch<K3, BUG_FLIPPED>, NULL};
extern "C" const gk_op gk_conv_k3_f16acc = {NULL, conv_launch<K3, BUG_F16ACC>, NULL};
extern "C" const gk_op gk_conv_k3_nobias = {NULL, conv_launch<K3, BUG_NOBIAS>, NULL};
/* conv.2d.valid's padding-0 outputs computed with conv.2d's padding 1 */
extern "C" const gk_op gk_conv_v3_padded = {
    NULL, conv_launch<1, 3, 3, 1, 0, 0, 0, 0, 0, 1, 1, BUG_NONE, 1>, NULL};
extern "C" const gk_op gk_conv_k3d_flipped = {
    NULL, conv_launch<3, 3, 3, 1, 1, 1, 1, 1, 0, 1, 1, BUG_FLIPPED>, NULL};
/* conv.2d.transposed read as a correlation: the window not flipped */
extern "C" const gk_op gk_conv_t3_noflip = {
    NULL, conv_launch<1, 3, 3, 1, 0, 2, 2, 0, 1, 1, 1, BUG_FLIPPED>, NULL};
/* conv.2d.strided read at stride 1; conv.2d.dilated at dilation 1; conv.2d.grouped and
   conv.2d.depthwise with output channel oc in group oc mod groups */
extern "C" const gk_op gk_conv_s3_stride1 = {
    NULL, conv_launch<1, 3, 3, 2, 0, 1, 1, 0, 0, 1, 1, BUG_STRIDE1>, NULL};
extern "C" const gk_op gk_conv_d3_nodil = {
    NULL, conv_launch<1, 3, 3, 1, 0, 2, 2, 0, 0, 2, 1, BUG_NODIL>, NULL};
extern "C" const gk_op gk_conv_g3_groupmap = {
    NULL, conv_launch<1, 3, 3, 1, 0, 1, 1, 1, 0, 1, 4, BUG_GROUPMAP>, NULL};
extern "C" const gk_op gk_conv_dw3_groupmap = {
    NULL, conv_launch<1, 3, 3, 1, 0, 0, 0, 0, 0, 1, 0, BUG_GROUPMAP>, NULL};
