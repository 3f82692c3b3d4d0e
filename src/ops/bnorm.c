/* bnorm.c: op descriptors for norm.batch, training-mode batch norm of an NCHW tensor
 * (torch.nn.BatchNorm2d in training mode, affine at its initial 1 and 0: for each channel the
 * mean and biased variance over N H W, eps 1e-5), one block a channel on the device, and its
 * planted bug (each image's own statistics: instance norm).
 * Error model: docs/error-models.md, section norm.batch (norm.layer's, a channel for a row). */
#include "../../abi/softmax.h"
#include "ops/opkit.h"

extern const gk_op gk_norm_batch, gk_norm_batch_perimage;

#define BNORM_DIMS                                                                                 \
    const int64_t nb = c->shape.d[0], nc = c->shape.d[1], hw = c->shape.d[2] * c->shape.d[3]

static int bnorm_check_shape(const gv_shape *s, char *why, size_t len)
{
    double count = (double)s->d[0] * (double)s->d[1] * (double)s->d[2] * (double)s->d[3];
    if (s->d[0] < 1 || s->d[1] < 1 || s->d[2] < 1 || s->d[3] < 1 || count > 4e9) {
        snprintf(why, len,
                 "norm.batch takes n, c, h, w of at least 1 and fewer than 4e9 values (got "
                 "%lldx%lldx%lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1], (long long)s->d[2], (long long)s->d[3]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int bnorm_layout(const gv_case *c, gv_layout *l)
{
    BNORM_DIMS;
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", nb * nc * hw};
    l->out[0] = (gv_tensor_spec){"y", nb * nc * hw};
    return GV_OK;
}

/* the two sums, the centring and the scaling: about 5 an element, as norm.layer counts */
static double bnorm_flops(const gv_case *c)
{
    BNORM_DIMS;
    return 5.0 * (double)nb * (double)nc * (double)hw;
}

/* each value read and written once: the least any kernel must move (this one reads three
   times) */
static double bnorm_bytes(const gv_case *c)
{
    BNORM_DIMS;
    return 2.0 * (double)nb * (double)nc * (double)hw * gv_esize(c);
}

/* The sum depth of a channel: norm.layer's kernel's at n = N H W (abi/softmax.h), or any
   order's N H W for a user's kernel. */
static double bnorm_sum_depth(const gv_case *c, bool order_free)
{
    BNORM_DIMS;
    (void)nc;
    return order_free ? (double)(nb * hw) : (double)gk_softmax_sum_depth(nb * hw);
}

/* layer norm's depth d_s + 10 (docs/error-models.md, section softmax: norm.layer) */
static double bnorm_depth(const gv_case *c)
{
    return bnorm_sum_depth(c, false) + 10.0;
}
static double bnorm_of_depth(const gv_case *c)
{
    return bnorm_sum_depth(c, true) + 10.0;
}

static int bnorm_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

static int bnorm_oracle(gv_problem *p)
{
    const gv_case *c = &p->c;
    BNORM_DIMS;
    return gv_oracle_rc(go_norm_batch(nb, nc, hw, p->in[0].ref, GK_NORM_LAYER_EPS, p->out[0].ref));
}

static int bnorm_gauge(gv_problem *p)
{
    const gv_case *c = &p->c;
    BNORM_DIMS;
    double u = gv_unit_roundoff(c->dtype, GV_MODE_NATIVE);
    double spacing = gv_dtype_subnormal_min(c->dtype); /* 2 eta */
    return gv_oracle_rc(go_norm_batch_gauge(nb, nc, hw, p->in[0].ref, GK_NORM_LAYER_EPS,
                                            p->out[0].ref, u, spacing, bnorm_depth(c),
                                            bnorm_sum_depth(c, false), p->out[0].gauge));
}

/* the oracle's gathered copies: x, y and the gauge as channel rows */
static double bnorm_scratch_bytes(const gv_case *c)
{
    BNORM_DIMS;
    return 3.0 * (double)nb * (double)nc * (double)hw * sizeof(double);
}

/* norm.layer's (the huge distribution left out: x^2 is +Inf there in any kernel that does
   not rescale, PyTorch's included) */
#define BNORM_DISTS                                                                                \
    (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_BIT(GV_DIST_TINY) | GV_BIT(GV_DIST_SPARSE_SPECIAL))

#define BNORM_COMMON                                                                               \
    .family = "bnorm", .dims = "n,c,h,w", .in_dims = "n,c,h,w", .out_dims = "n,c,h,w",             \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = BNORM_DISTS,               \
    .check_shape = bnorm_check_shape, .layout = bnorm_layout, .flops = bnorm_flops,                \
    .bytes = bnorm_bytes, .make_inputs = bnorm_inputs, .oracle = bnorm_oracle,                     \
    .gauge = bnorm_gauge, .depth = bnorm_depth, .order_free_depth = bnorm_of_depth,                \
    .oracle_scratch_bytes = bnorm_scratch_bytes, .reference_ignores_mode = true,                   \
    .range_degree = 1,                                                                             \
    .error_model = "norm.layer's over each channel's N H W values: |y-r| <= u (((d_s+2) "          \
                   "mean|x| + |x-mean|) / sd + |y| (d_s/2 + 10)), depth d_s + 10 "                 \
                   "(docs/error-models.md)"

static const gv_op norm_batch = {
    .name = "norm.batch",
    .summary = "y = (x - mean_c) / sqrt(var_c + 1e-5), mean and biased var of each channel over "
               "N, H, W of NCHW (BatchNorm2d, training mode): one block a channel",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "32x64x56x56,8x256x28x28",
    .test_shapes = "1x1x1x1,2x3x4x5,4x16x8x8,8x32x28x28,2x4x65x33",
    .canaries = "offgrid:8x256x28x28,tiny:8x256x28x28,sparse-special:8x256x28x28",
    .test_canaries = "offgrid:4x16x8x8,tiny:4x16x8x8,sparse-special:8x32x28x28",
    .device = GV_KERNEL(gk_norm_batch),
    BNORM_COMMON,
};

/* each image's plane normalised by its own statistics: off by the images' spread of means */
static const gv_op norm_batch_perimage = {
    .name = "norm.batch.perimage",
    .summary = "planted bug: each image's plane normalised by its own mean and variance "
               "(instance norm), where batch norm takes the whole batch's",
    .planted_bug = "per-image statistics: instance norm under the batch norm's label",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "8x256x28x28",
    .test_shapes = "2x3x4x5,4x16x8x8",
    .device = GV_KERNEL(gk_norm_batch_perimage),
    BNORM_COMMON,
};

const gv_op *const gv_family_bnorm[] = {&norm_batch, &norm_batch_perimage, NULL};
