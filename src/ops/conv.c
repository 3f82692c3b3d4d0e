/* conv.c: op descriptors for the convolutions of an NC(D)HW input as torch.nn.functional.conv3d,
 * conv2d and conv1d compute them (a correlation, zero padding, a bias a channel or none):
 * conv.2d (3 x 3, padding 1), conv.2d.k1 (1 x 1), conv.2d.k7s2 (7 x 7, stride 2, padding 3:
 * ResNet's stem), conv.1d (a window of 3, padding 1), conv.2d.valid and conv.1d.valid (padding
 * 0, no bias: nn.Conv2d's and nn.Conv1d's defaults as KernelBench writes them),
 * conv.2d.pointwise (1 x 1, no bias), conv.3d
 * (3 x 3 x 3, padding 1) and conv.3d.valid (padding 0, no bias); with torch's stride,
 * dilation and groups: conv.2d.strided (3 x 3, stride 2, padding 1), conv.2d.k11s4 (AlexNet's
 * 11 x 11, stride 4, padding 2), conv.2d.dilated (3 x 3, dilation 2, padding 2),
 * conv.2d.grouped (3 x 3, padding 1, groups 4), conv.2d.depthwise (3 x 3, groups = c; and
 * conv.2d.depthwise.k3x1, its 3 x 1 window) and
 * conv.1d.dilated (window 3, stride 3, dilation 4); one thread an output on the device, and
 * their planted bugs. Dims n, c, s, o (conv.1d: n, c, l, o): batch, input
 * channels, the square plane's (cube's) side (the row's length), output channels; the window,
 * stride, padding and bias are the op's (abi/conv.h: four dims hold no more).
 * Error model: docs/error-models.md, section conv. */
#include <assert.h>

#include "../../abi/conv.h"
#include "ops/opkit.h"

extern const gk_op gk_conv_k3, gk_conv_k1, gk_conv_k7s2, gk_conv_c1d, gk_conv_v3, gk_conv_pw,
    gk_conv_c1dv, gk_conv_k3d, gk_conv_v3d, gk_conv_t3, gk_conv_t1d, gk_conv_t3d, gk_conv_t3_noflip,
    gk_conv_k3_wrap, gk_conv_k3_flipped, gk_conv_k3_f16acc, gk_conv_k3_nobias, gk_conv_v3_padded,
    gk_conv_k3d_flipped, gk_conv_s3, gk_conv_k11s4, gk_conv_d3, gk_conv_g3, gk_conv_dw3,
    gk_conv_c1dd, gk_conv_dw31, gk_conv_s3_stride1, gk_conv_d3_nodil, gk_conv_g3_groupmap,
    gk_conv_dw3_groupmap;

typedef struct conv_geom {
    int64_t kd, kh, kw, stride, pd, ph, pw;
    bool bias;       /* a bias tensor, the third input */
    bool one_d;      /* a plane of one row: dims n, c, l, o */
    bool volume;     /* an s x s x s volume (conv.3d) */
    bool transposed; /* ConvTranspose: weights (in, out), the padding the window less one */
    int64_t dil;     /* torch's dilation: the window's taps dil apart */
    int64_t groups;  /* torch's groups; 0: as many as the case's input channels (depthwise) */
} conv_geom;

#define CONV_GEOM_(name, kd, kh, kw, s, pd, ph, pw, bias, tr, dil, groups)                         \
    static const conv_geom geom_##name = {                                                         \
        kd, kh,  kw,    s, pd, ph, pw, bias, GK_CONV_ONE_ROW(kh, kw, ph), GK_CONV_VOLUME(kd),      \
        tr, dil, groups};
GK_CONV_GEOMETRIES(CONV_GEOM_)
#undef CONV_GEOM_

/* The case's volume (d x h x w; d 1 for a plane) and output volume (od x oh x ow); its groups
   and the input channels of one (cg). */
typedef struct conv_sizes {
    int64_t n, c, d, h, w, o, od, oh, ow, groups, cg;
} conv_sizes;

static conv_sizes sizes_of(const gv_shape *s, const conv_geom *g)
{
    conv_sizes z = {.n = s->d[0],
                    .c = s->d[1],
                    .d = g->volume ? s->d[2] : 1,
                    .h = g->one_d ? 1 : s->d[2],
                    .w = s->d[2],
                    .o = s->d[3]};
    z.od = gk_conv_out_side_dil(z.d, g->kd, g->stride, g->pd, g->dil);
    z.oh = gk_conv_out_side_dil(z.h, g->kh, g->stride, g->ph, g->dil);
    z.ow = gk_conv_out_side_dil(z.w, g->kw, g->stride, g->pw, g->dil);
    z.groups = g->groups ? g->groups : z.c;
    z.cg = z.groups > 0 ? z.c / z.groups : 0;
    return z;
}

static int check_shape_g(const gv_shape *s, char *why, size_t len, const conv_geom *g)
{
    conv_sizes z = sizes_of(s, g);
    double in = (double)z.n * z.c * z.d * z.h * z.w, out = (double)z.n * z.o * z.od * z.oh * z.ow;
    if (s->nd != 4 || z.c < 1 || z.w < 1 || z.od < 1 || z.oh < 1 || z.ow < 1 || in > 4e9 ||
        out > 4e9 || (double)z.o * z.c * g->kd * g->kh * g->kw > 4e9 || z.c % z.groups ||
        z.o % z.groups) {
        char win[48];
        if (g->volume)
            snprintf(win, sizeof win, "%lldx%lldx%lld", (long long)g->kd, (long long)g->kh,
                     (long long)g->kw);
        else
            snprintf(win, sizeof win, "%lldx%lld", (long long)g->kh, (long long)g->kw);
        char grp[64] = "";
        if (g->groups == 0)
            snprintf(grp, sizeof grp, ", o a multiple of c (groups = c)");
        else if (g->groups > 1)
            snprintf(grp, sizeof grp, ", c and o multiples of its %lld groups",
                     (long long)g->groups);
        snprintf(why, len,
                 "the convolution takes n x c x %s x o with c >= 1, a side the %s window%s "
                 "covers once padded%s, and fewer than 4e9 elements a tensor",
                 g->one_d ? "l" : "s", win, g->dil > 1 ? " (dilated)" : "", grp);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int layout_g(const gv_case *c, gv_layout *l, const conv_geom *g)
{
    conv_sizes z = sizes_of(&c->shape, g);
    *l = (gv_layout){.n_in = g->bias ? 3 : 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", z.n * z.c * z.d * z.h * z.w};
    l->in[1] = (gv_tensor_spec){"w", z.o * z.cg * g->kd * g->kh * g->kw};
    if (g->bias) l->in[2] = (gv_tensor_spec){"bias", z.o};
    l->out[0] = (gv_tensor_spec){"y", z.n * z.o * z.od * z.oh * z.ow};
    return GV_OK;
}

/* x (n, c, s, s), w (o, c, kh, kw), bias (o), y (n, o, oh, ow); conv.1d without the plane's
   one row: x (n, c, l), w (o, c, k), y (n, o, ol), as conv1d takes them; conv.3d with the
   volume's depth: x (n, c, s, s, s), w (o, c, kd, kh, kw), y (n, o, od, oh, ow) */
static int tensor_shape_g(const gv_case *c, bool output, int i, int64_t *shape, const conv_geom *g)
{
    conv_sizes z = sizes_of(&c->shape, g);
    int nd = 0;
    if (output) {
        shape[nd++] = z.n;
        shape[nd++] = z.o;
        if (g->volume) shape[nd++] = z.od;
        if (!g->one_d) shape[nd++] = z.oh;
        shape[nd++] = z.ow;
    } else if (i == 0) {
        shape[nd++] = z.n;
        shape[nd++] = z.c;
        if (g->volume) shape[nd++] = z.d;
        if (!g->one_d) shape[nd++] = z.h;
        shape[nd++] = z.w;
    } else if (i == 1) { /* ConvTranspose's weights are (in, out); groups': (o, c / groups) */
        shape[nd++] = g->transposed ? z.c : z.o;
        shape[nd++] = g->transposed ? z.o : z.cg;
        if (g->volume) shape[nd++] = g->kd;
        if (!g->one_d) shape[nd++] = g->kh;
        shape[nd++] = g->kw;
    } else {
        assert(g->bias);
        shape[nd++] = z.o;
    }
    return nd;
}

/* c kd kh kw multiply-adds and the bias an output (padding's terms counted: the kernel skips
   them) */
static double flops_g(const gv_case *c, const conv_geom *g)
{
    conv_sizes z = sizes_of(&c->shape, g);
    return (double)z.n * z.o * z.od * z.oh * z.ow *
           (2.0 * z.cg * g->kd * g->kh * g->kw + (g->bias ? 1.0 : 0.0));
}

static double bytes_g(const gv_case *c, const conv_geom *g)
{
    gv_layout l;
    layout_g(c, &l, g);
    int64_t sum = l.out[0].count;
    for (int i = 0; i < l.n_in; i++)
        sum += l.in[i].count;
    return (double)sum * gv_esize(c);
}

/* Each output is a dot product of c kd kh kw + 1 terms (the bias the last; no bias, c kd kh kw
   terms): gemm's model, ASNA eq. 3.13, |y^ - y| <= gamma_K (sum |x||w| + |bias|), K = c kd kh
   kw (+ 1), in any order. Terms of the padding are exact zeros; counting them keeps K the same
   at every output. With groups an output reads its group's c / groups channels alone: K =
   (c / groups) kd kh kw (+ 1); dilation and stride move the taps, not their count. */
static double depth_g(const gv_case *c, const conv_geom *g)
{
    conv_sizes z = sizes_of(&c->shape, g);
    return (double)z.cg * (double)(g->kd * g->kh * g->kw) + (g->bias ? 1.0 : 0.0);
}

#define CONV_ARGS(p, g, z)                                                                         \
    z.n, z.c, z.d, z.h, z.w, z.o, g->kd, g->kh, g->kw, g->stride, g->dil, z.groups, g->pd, g->ph,  \
        g->pw, p->in[0].ref, p->in[1].ref, g->bias ? p->in[2].ref : NULL

/* ConvTranspose from its definition (stride 1, padding 0: the geometry's padding is the
   kernel's reformulation, not the layer's) */
#define CONV_T_ARGS(p, g, z)                                                                       \
    z.n, z.c, z.d, z.h, z.w, z.o, g->kd, g->kh, g->kw, p->in[0].ref, p->in[1].ref,                 \
        g->bias ? p->in[2].ref : NULL

static int oracle_g(gv_problem *p, const conv_geom *g)
{
    conv_sizes z = sizes_of(&p->c.shape, g);
    if (g->transposed)
        return gv_oracle_rc(go_conv3d_transposed(CONV_T_ARGS(p, g, z), p->out[0].ref));
    return gv_oracle_rc(go_conv3d_ex(CONV_ARGS(p, g, z), p->out[0].ref));
}

static int gauge_g(gv_problem *p, const conv_geom *g)
{
    conv_sizes z = sizes_of(&p->c.shape, g);
    if (g->transposed)
        return gv_oracle_rc(go_conv3d_transposed_gauge(CONV_T_ARGS(p, g, z), p->out[0].gauge));
    return gv_oracle_rc(go_conv3d_ex_gauge(CONV_ARGS(p, g, z), p->out[0].gauge));
}

/* One set of hooks a geometry: ops of a family with the same hooks share cached references
   (gv_reference_name), and each geometry's reference is its own. */
#define CONV_HOOKS(name)                                                                           \
    static int name##_check_shape(const gv_shape *s, char *why, size_t len)                        \
    {                                                                                              \
        return check_shape_g(s, why, len, &geom_##name);                                           \
    }                                                                                              \
    static int name##_layout(const gv_case *c, gv_layout *l)                                       \
    {                                                                                              \
        return layout_g(c, l, &geom_##name);                                                       \
    }                                                                                              \
    static int name##_tensor_shape(const gv_case *c, const gv_layout *l, bool output, int i,       \
                                   int64_t *shape)                                                 \
    {                                                                                              \
        (void)l;                                                                                   \
        return tensor_shape_g(c, output, i, shape, &geom_##name);                                  \
    }                                                                                              \
    static double name##_flops(const gv_case *c)                                                   \
    {                                                                                              \
        return flops_g(c, &geom_##name);                                                           \
    }                                                                                              \
    static double name##_bytes(const gv_case *c)                                                   \
    {                                                                                              \
        return bytes_g(c, &geom_##name);                                                           \
    }                                                                                              \
    static double name##_depth(const gv_case *c)                                                   \
    {                                                                                              \
        return depth_g(c, &geom_##name);                                                           \
    }                                                                                              \
    static int name##_oracle(gv_problem *p)                                                        \
    {                                                                                              \
        return oracle_g(p, &geom_##name);                                                          \
    }                                                                                              \
    static int name##_gauge(gv_problem *p)                                                         \
    {                                                                                              \
        return gauge_g(p, &geom_##name);                                                           \
    }
CONV_HOOKS(k3)
CONV_HOOKS(k1)
CONV_HOOKS(k7s2)
CONV_HOOKS(c1d)
CONV_HOOKS(v3)
CONV_HOOKS(pw)
CONV_HOOKS(c1dv)
CONV_HOOKS(k3d)
CONV_HOOKS(v3d)
CONV_HOOKS(t3)
CONV_HOOKS(t1d)
CONV_HOOKS(t3d)
CONV_HOOKS(s3)
CONV_HOOKS(k11s4)
CONV_HOOKS(d3)
CONV_HOOKS(g3)
CONV_HOOKS(dw3)
CONV_HOOKS(c1dd)
CONV_HOOKS(dw31)

static int conv_inputs(gv_problem *p)
{
    for (int i = 0; i < p->l.n_in; i++)
        gv_fill(p, i, p->c.dist);
    return GV_OK;
}

/* The dtype's tier, except on wide inputs (+-exp(2 N(0,1)), six decades either way): an output
   of terms up to 10^5 cancels to |y| far below sum |x||w|, where the f32 sums' own rounding
   (u K sum |x||w|, the model's) exceeds 1e-4 (1 + |y|). The model alone judges there. */
static double conv_expected_tier(const gv_case *c, char *why, size_t len)
{
    if (c->dist != GV_DIST_WIDE) return gv_dtype_tier(c->dtype);
    snprintf(why, len,
             "wide inputs: an output cancels to |y| far below sum |x||w|, where the sums' "
             "rounding exceeds the tier");
    return 0.0;
}

/* Finite inputs: a NaN or an infinity beside the padding would ask whether a kernel multiplies
   the padding's zeros (cuDNN's implicit GEMM does: Inf 0 = NaN) or skips them (this kernel),
   which conv2d's definition leaves open. */
#define CONV_DISTS (GV_FINITE_DISTS | GV_BIT(GV_DIST_WIDE))

#define CONV2D .dims = "n,c,s,o", .in_dims = "n,c,s,s;;o"

#define CONV_COMMON(name)                                                                          \
    .family = "conv", .tensor_shape = name##_tensor_shape, .dtypes = GV_BOTH_DTYPES,               \
    .modes = GV_BIT(GV_MODE_NATIVE), .dists = CONV_DISTS, .default_dist = GV_DIST_UNIFORM11,       \
    .check_shape = name##_check_shape, .layout = name##_layout, .flops = name##_flops,             \
    .bytes = name##_bytes, .make_inputs = conv_inputs, .oracle = name##_oracle,                    \
    .gauge = name##_gauge, .depth = name##_depth, .expected_tier = conv_expected_tier,             \
    .reference_ignores_mode = true, .range_degree = 2, .bias_dists = GV_BIT(GV_DIST_UNIFORM11),    \
    .error_model = "|y-r| <= gamma_K (sum |x||w| + |bias|), K = c kd kh kw (+ 1 with a bias): "    \
                   "gemm's dot-product model, any order, the padding's zeros exact "               \
                   "(docs/error-models.md, conv)"

static const gv_op conv_2d = {
    .name = "conv.2d",
    .summary = "y = conv2d(x, w, bias, padding=1), 3 x 3 window, NCHW: one thread an output",
    .shapes = "1x64x56x64,4x128x14x128",
    .test_shapes = "1x1x1x1,2x3x7x5,1x16x17x8,2x64x14x32",
    .canaries = "wide:1x64x56x64",
    .test_canaries = "wide:1x16x17x8",
    .device = GV_KERNEL(gk_conv_k3),
    CONV2D,
    CONV_COMMON(k3),
};

static const gv_op conv_2d_k1 = {
    .name = "conv.2d.k1",
    .summary = "y = conv2d(x, w, bias), 1 x 1 window (a channel mix), NCHW",
    .shapes = "1x256x56x64",
    .test_shapes = "1x1x1x1,2x32x15x16",
    .device = GV_KERNEL(gk_conv_k1),
    CONV2D,
    CONV_COMMON(k1),
};

static const gv_op conv_2d_k7s2 = {
    .name = "conv.2d.k7s2",
    .summary = "y = conv2d(x, w, bias, stride=2, padding=3), 7 x 7 window: ResNet's stem",
    .shapes = "1x3x224x64",
    .test_shapes = "1x1x1x1,1x3x7x2,2x3x32x8,1x3x65x4",
    .device = GV_KERNEL(gk_conv_k7s2),
    CONV2D,
    CONV_COMMON(k7s2),
};

static const gv_op conv_1d = {
    .name = "conv.1d",
    .summary = "y = conv1d(x, w, bias, padding=1), window 3, NCL: one thread an output",
    .shapes = "8x64x1024x64",
    .test_shapes = "1x1x1x1,2x4x100x8,4x32x257x16",
    .device = GV_KERNEL(gk_conv_c1d),
    CONV_COMMON(c1d),
    .dims = "n,c,l,o",
    .in_dims = "n,c,l;;o",
};

static const gv_op conv_2d_valid = {
    .name = "conv.2d.valid",
    .summary = "y = conv2d(x, w), 3 x 3 window, padding 0, no bias (nn.Conv2d(c, o, 3, "
               "bias=False)), NCHW",
    .shapes = "1x64x56x64,4x128x16x128",
    .test_shapes = "1x1x3x1,2x3x7x5,1x16x17x8,2x64x14x32",
    .canaries = "wide:1x64x56x64",
    .test_canaries = "wide:1x16x17x8",
    .device = GV_KERNEL(gk_conv_v3),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;o,c,3,3",
    CONV_COMMON(v3),
};

static const gv_op conv_2d_pointwise = {
    .name = "conv.2d.pointwise",
    .summary = "y = conv2d(x, w), 1 x 1 window, no bias (nn.Conv2d(c, o, 1, bias=False)): a "
               "channel mix, NCHW",
    .shapes = "1x256x56x64",
    .test_shapes = "1x1x1x1,2x32x15x16",
    .device = GV_KERNEL(gk_conv_pw),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;o,c,1,1",
    CONV_COMMON(pw),
};

static const gv_op conv_1d_valid = {
    .name = "conv.1d.valid",
    .summary = "y = conv1d(x, w), window 3, padding 0, no bias (nn.Conv1d(c, o, 3, bias=False)), "
               "NCL",
    .shapes = "8x64x1024x64",
    .test_shapes = "1x1x3x1,2x4x100x8,4x32x257x16",
    .device = GV_KERNEL(gk_conv_c1dv),
    CONV_COMMON(c1dv),
    .dims = "n,c,l,o",
    .in_dims = "n,c,l;o,c,3",
};

static const gv_op conv_3d = {
    .name = "conv.3d",
    .summary = "y = conv3d(x, w, bias, padding=1), 3 x 3 x 3 window, NCDHW (an s x s x s "
               "volume): one thread an output",
    .shapes = "1x16x32x32,2x32x16x64",
    .test_shapes = "1x1x1x1,2x3x5x4,1x8x9x8",
    .canaries = "wide:1x16x32x32",
    .test_canaries = "wide:1x8x9x8",
    .device = GV_KERNEL(gk_conv_k3d),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s,s;o,c,3,3,3;o",
    CONV_COMMON(k3d),
};

static const gv_op conv_3d_valid = {
    .name = "conv.3d.valid",
    .summary = "y = conv3d(x, w), 3 x 3 x 3 window, padding 0, no bias (nn.Conv3d(c, o, 3, "
               "bias=False)), NCDHW",
    .shapes = "1x16x34x32",
    .test_shapes = "1x1x3x1,2x3x5x4,1x8x9x8",
    .device = GV_KERNEL(gk_conv_v3d),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s,s;o,c,3,3,3",
    CONV_COMMON(v3d),
};

/* The planted bugs, on conv.2d's geometry and hooks (its reference, cached once). Each differs
   from conv2d by O(1) terms of the sum at the outputs it touches, where the model allows
   O(K u) of sum |x||w|: derived in docs/error-models.md and emulated in
   tests/cpu/model_conv.c. */
#define CONV_PLANTED .shapes = "1x64x56x64", .test_shapes = "2x3x7x5,1x16x17x8"

static const gv_op conv_2d_wrap = {
    .name = "conv.2d.wrap",
    .summary = "planted bug: the columns' padding reads the row's other edge (circular padding)",
    .planted_bug = "padding off by a wrap: a column before 0 reads column w - 1, past w - 1 "
                   "column 0, where zeros belong",
    CONV_PLANTED,
    .device = GV_KERNEL(gk_conv_k3_wrap),
    CONV2D,
    CONV_COMMON(k3),
};

static const gv_op conv_2d_flipped = {
    .name = "conv.2d.flipped",
    .summary = "planted bug: the window flipped (a convolution where conv2d correlates)",
    .planted_bug = "weights read back to front, w(o, c, kh-1-a, kw-1-e): convolution vs "
                   "correlation",
    CONV_PLANTED,
    .device = GV_KERNEL(gk_conv_k3_flipped),
    CONV2D,
    CONV_COMMON(k3),
};

static const gv_op conv_2d_f16acc = {
    .name = "conv.2d.f16acc",
    .summary = "planted bug: each product rounded to f16 and summed in f16",
    .planted_bug = "f16 accumulation (u = 2^-11) under an f32 or f64 label",
    CONV_PLANTED,
    .device = GV_KERNEL(gk_conv_k3_f16acc),
    CONV2D,
    CONV_COMMON(k3),
};

static const gv_op conv_2d_nobias = {
    .name = "conv.2d.nobias",
    .summary = "planted bug: the bias dropped",
    .planted_bug = "no bias: every output off by bias(o)",
    CONV_PLANTED,
    .device = GV_KERNEL(gk_conv_k3_nobias),
    CONV2D,
    CONV_COMMON(k3),
};

/* ConvTranspose2d/1d/3d(c, o, 3, bias=False), stride 1, padding 0: each output a dot product
   of the inputs its window reaches, c kd kh kw terms at most (the rest exact zeros). */
static const gv_op conv_2d_transposed = {
    .name = "conv.2d.transposed",
    .summary = "y = conv_transpose2d(x, w), 3 x 3 window, stride 1, padding 0, no bias "
               "(nn.ConvTranspose2d(c, o, 3, bias=False)): s + 2 a side",
    .shapes = "1x64x56x64,4x64x32x64",
    .test_shapes = "1x1x1x1,2x3x7x5,1x16x17x8",
    .canaries = "wide:1x64x56x64",
    .test_canaries = "wide:1x16x17x8",
    .device = GV_KERNEL(gk_conv_t3),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;c,o,3,3",
    CONV_COMMON(t3),
};

static const gv_op conv_1d_transposed = {
    .name = "conv.1d.transposed",
    .summary = "y = conv_transpose1d(x, w), window 3, stride 1, padding 0, no bias "
               "(nn.ConvTranspose1d(c, o, 3, bias=False)): l + 2 long",
    .shapes = "8x64x1024x64",
    .test_shapes = "1x1x1x1,2x4x100x8,4x32x257x16",
    .device = GV_KERNEL(gk_conv_t1d),
    CONV_COMMON(t1d),
    .dims = "n,c,l,o",
    .in_dims = "n,c,l;c,o,3",
};

static const gv_op conv_3d_transposed = {
    .name = "conv.3d.transposed",
    .summary = "y = conv_transpose3d(x, w), 3 x 3 x 3 window, stride 1, padding 0, no bias "
               "(nn.ConvTranspose3d(c, o, 3, bias=False)): s + 2 a side",
    .shapes = "1x16x30x32",
    .test_shapes = "1x1x1x1,2x3x5x4,1x8x7x8",
    .device = GV_KERNEL(gk_conv_t3d),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s,s;c,o,3,3,3",
    CONV_COMMON(t3d),
};

/* A transposed convolution computed as the padded correlation without flipping the window
   (the weights' (in, out) order kept): each output's terms meet the wrong weights. */
static const gv_op conv_2d_transposed_noflip = {
    .name = "conv.2d.transposed.noflip",
    .summary = "planted bug: conv_transpose2d as a padded correlation, the window not flipped",
    .planted_bug = "the window read front to back: w(c, o, a, e) where w(c, o, 2-a, 2-e) belongs",
    .shapes = "1x64x56x64",
    .test_shapes = "2x3x7x5,1x16x17x8",
    .device = GV_KERNEL(gk_conv_t3_noflip),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;c,o,3,3",
    CONV_COMMON(t3),
};

/* conv.2d.valid's outputs (s - 2 a side) read as if the input were padded by 1: each output
   is the window one row up and one column left of its own, edge terms dropped. */
static const gv_op conv_2d_valid_padded = {
    .name = "conv.2d.valid.padded",
    .summary = "planted bug: padding 1 applied where the layer has none (the window shifted)",
    .planted_bug = "padding=1 read into a padding-0 layer: each output is its up-left "
                   "neighbour's window",
    .shapes = "1x64x56x64",
    .test_shapes = "2x3x7x5,1x16x17x8",
    .device = GV_KERNEL(gk_conv_v3_padded),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;o,c,3,3",
    CONV_COMMON(v3),
};

static const gv_op conv_3d_flipped = {
    .name = "conv.3d.flipped",
    .summary = "planted bug: the 3-D window flipped in all three axes (a convolution where "
               "conv3d correlates)",
    .planted_bug = "weights read back to front, w(o, c, kd-1-z, kh-1-a, kw-1-e)",
    .shapes = "1x16x32x32",
    .test_shapes = "2x3x5x4,1x8x9x8",
    .device = GV_KERNEL(gk_conv_k3d_flipped),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s,s;o,c,3,3,3;o",
    CONV_COMMON(k3d),
};

/* Stride, dilation and groups (torch's stride=, dilation=, groups=): the geometries s3, k11s4,
   d3, g3, dw3 and c1dd of abi/conv.h. Grouped weights are (o, c / groups, kh, kw): the
   tensor_shape hook gives them. */
static const gv_op conv_2d_strided = {
    .name = "conv.2d.strided",
    .summary = "y = conv2d(x, w, stride=2, padding=1), 3 x 3 window, no bias: a downsampling "
               "layer, NCHW",
    .shapes = "1x64x56x128,2x128x28x128",
    .test_shapes = "1x1x1x1,2x3x7x5,1x16x18x8,2x32x15x16",
    .canaries = "wide:1x64x56x128",
    .test_canaries = "wide:1x16x18x8",
    .device = GV_KERNEL(gk_conv_s3),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;o,c,3,3",
    CONV_COMMON(s3),
};

static const gv_op conv_2d_k11s4 = {
    .name = "conv.2d.k11s4",
    .summary = "y = conv2d(x, w, bias, stride=4, padding=2), 11 x 11 window: AlexNet's first "
               "layer, NCHW",
    .shapes = "1x3x224x64",
    .test_shapes = "1x1x7x1,1x3x31x4,2x3x64x8",
    .device = GV_KERNEL(gk_conv_k11s4),
    CONV2D,
    CONV_COMMON(k11s4),
};

static const gv_op conv_2d_dilated = {
    .name = "conv.2d.dilated",
    .summary = "y = conv2d(x, w, padding=2, dilation=2), 3 x 3 window (taps 2 apart), no bias, "
               "NCHW",
    .shapes = "1x64x56x64,2x64x28x64",
    .test_shapes = "1x1x1x1,2x3x7x5,1x16x17x8,2x32x14x16",
    .canaries = "wide:1x64x56x64",
    .test_canaries = "wide:1x16x17x8",
    .device = GV_KERNEL(gk_conv_d3),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;o,c,3,3",
    CONV_COMMON(d3),
};

static const gv_op conv_2d_grouped = {
    .name = "conv.2d.grouped",
    .summary = "y = conv2d(x, w, bias, padding=1, groups=4), 3 x 3 window: c and o multiples of "
               "4, each output reads its group's c / 4 channels, NCHW",
    .shapes = "1x64x56x64,2x128x28x128",
    .test_shapes = "1x4x1x4,2x8x7x12,1x16x17x8,2x64x14x32",
    .canaries = "wide:1x64x56x64",
    .test_canaries = "wide:1x16x17x8",
    .device = GV_KERNEL(gk_conv_g3),
    CONV2D,
    CONV_COMMON(g3),
};

static const gv_op conv_2d_depthwise = {
    .name = "conv.2d.depthwise",
    .summary = "y = conv2d(x, w, groups=c), 3 x 3 window, padding 0, no bias (nn.Conv2d(c, o, "
               "3, groups=c, bias=False)): o a multiple of c, NCHW",
    .shapes = "1x64x112x64,4x128x56x256",
    .test_shapes = "1x1x3x1,2x3x7x6,1x16x17x16,2x32x14x64",
    .canaries = "wide:1x64x112x64",
    .test_canaries = "wide:1x16x17x16",
    .device = GV_KERNEL(gk_conv_dw3),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;",
    CONV_COMMON(dw3),
};

static const gv_op conv_2d_depthwise_k3x1 = {
    .name = "conv.2d.depthwise.k3x1",
    .summary = "y = conv2d(x, w, groups=c), 3 x 1 window (kernel_size=(3, 1)), padding 0, no "
               "bias: o a multiple of c, NCHW",
    .shapes = "4x8x256x8",
    .test_shapes = "1x1x3x1,2x3x7x6,1x16x17x16",
    .device = GV_KERNEL(gk_conv_dw31),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;",
    CONV_COMMON(dw31),
};

static const gv_op conv_1d_dilated = {
    .name = "conv.1d.dilated",
    .summary = "y = conv1d(x, w, stride=3, dilation=4), window 3, padding 0, no bias "
               "(nn.Conv1d(c, o, 3, stride=3, dilation=4, bias=False)), NCL",
    .shapes = "8x64x4096x64",
    .test_shapes = "1x1x9x1,2x3x100x8,4x32x257x16",
    .device = GV_KERNEL(gk_conv_c1dd),
    CONV_COMMON(c1dd),
    .dims = "n,c,l,o",
    .in_dims = "n,c,l;o,c,3",
};

/* Their planted bugs: each moves the taps or the channels an output reads, O(1) of its terms
   wrong where the model allows O(K u) of sum |x||w|. */
static const gv_op conv_2d_strided_stride1 = {
    .name = "conv.2d.strided.stride1",
    .summary = "planted bug: a stride-2 layer's outputs read at stride 1 (the top-left quarter "
               "of the stride-1 output)",
    .planted_bug = "stride ignored in the reads: output (i, j) reads the window at (i, j), where "
                   "(2 i, 2 j) belongs",
    .shapes = "1x64x56x128",
    .test_shapes = "2x3x7x5,1x16x18x8",
    .device = GV_KERNEL(gk_conv_s3_stride1),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;o,c,3,3",
    CONV_COMMON(s3),
};

static const gv_op conv_2d_dilated_nodil = {
    .name = "conv.2d.dilated.nodil",
    .summary = "planted bug: the dilation dropped (adjacent taps where they are 2 apart)",
    .planted_bug = "dilation 1 read into a dilation-2 layer: the window's taps adjacent, the "
                   "padding 2 kept",
    .shapes = "1x64x56x64",
    .test_shapes = "2x3x7x5,1x16x17x8",
    .device = GV_KERNEL(gk_conv_d3_nodil),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;o,c,3,3",
    CONV_COMMON(d3),
};

static const gv_op conv_2d_grouped_groupmap = {
    .name = "conv.2d.grouped.groupmap",
    .summary = "planted bug: output channel oc read from group oc mod 4 (where oc / (o / 4) "
               "belongs)",
    .planted_bug = "wrong group mapping: channels dealt round-robin to the groups, where torch "
                   "gives each group o / groups consecutive outputs",
    .shapes = "1x64x56x64",
    .test_shapes = "2x8x7x12,1x16x17x8",
    .device = GV_KERNEL(gk_conv_g3_groupmap),
    CONV2D,
    CONV_COMMON(g3),
};

static const gv_op conv_2d_depthwise_groupmap = {
    .name = "conv.2d.depthwise.groupmap",
    .summary = "planted bug: depthwise output channel oc read from input channel oc mod c "
               "(where oc / (o / c) belongs)",
    .planted_bug = "wrong group mapping at a channel multiplier above 1: outputs dealt "
                   "round-robin to the input channels",
    .shapes = "1x64x112x128",
    .test_shapes = "2x3x7x6,1x16x17x32",
    .device = GV_KERNEL(gk_conv_dw3_groupmap),
    .dims = "n,c,s,o",
    .in_dims = "n,c,s,s;",
    CONV_COMMON(dw3),
};

const gv_op *const gv_family_conv[] = {&conv_2d,
                                       &conv_2d_k1,
                                       &conv_2d_k7s2,
                                       &conv_1d,
                                       &conv_2d_valid,
                                       &conv_2d_pointwise,
                                       &conv_1d_valid,
                                       &conv_3d,
                                       &conv_3d_valid,
                                       &conv_2d_transposed,
                                       &conv_1d_transposed,
                                       &conv_3d_transposed,
                                       &conv_2d_strided,
                                       &conv_2d_k11s4,
                                       &conv_2d_dilated,
                                       &conv_2d_grouped,
                                       &conv_2d_depthwise,
                                       &conv_2d_depthwise_k3x1,
                                       &conv_1d_dilated,
                                       &conv_2d_wrap,
                                       &conv_2d_flipped,
                                       &conv_2d_f16acc,
                                       &conv_2d_nobias,
                                       &conv_2d_valid_padded,
                                       &conv_3d_flipped,
                                       &conv_2d_transposed_noflip,
                                       &conv_2d_strided_stride1,
                                       &conv_2d_dilated_nodil,
                                       &conv_2d_grouped_groupmap,
                                       &conv_2d_depthwise_groupmap,
                                       NULL};
