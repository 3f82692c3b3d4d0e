/* lossred.c: op descriptors for the losses KernelBench's level 1 reduces to one value with a
 * mean over the batch: loss.xent.mean (cross_entropy(x, t), reduction 'mean': problem 95),
 * loss.hinge (mean(clamp(1 - p * t, min=0)), t of n values +-1 broadcast along the rows:
 * problem 100) and loss.triplet (TripletMarginLoss(margin=1), p = 2, eps 1e-6: problem 99),
 * each with a planted bug (reduction 'sum'; the targets indexed by the row; squared distances).
 * Error model: docs/error-models.md, section lossred. */
#include "../../abi/lossred.h"
#include "../../abi/softmax.h"
#include "core/gen.h"
#include "ops/opkit.h"

extern const gk_op gk_loss_xent_mean, gk_loss_xent_mean_sum, gk_loss_hinge,
    gk_loss_hinge_rowtarget, gk_loss_triplet, gk_loss_triplet_nosqrt;

/* The targets travel in the case's dtype: integers are exact in f32 up to 2^24. */
static int lr_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[0] < 1 || s->d[1] < 1 || s->d[1] > ((int64_t)1 << 24) || s->d[0] > 2147483647 ||
        (double)s->d[0] * (double)s->d[1] > 4e9) {
        snprintf(why, len,
                 "the batch losses take m >= 1 rows (below 2^31), 1 <= n <= 2^24 (the targets "
                 "exact in f32) and fewer than 4e9 elements (got %lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int64_t lr_mn(const gv_case *c)
{
    return c->shape.d[0] * c->shape.d[1];
}

/* exp's error in units of u (as loss.xent's: 2 ulp expf, 1 ulp exp, plus the half ulp) */
static double lr_exp_units(gv_dtype t)
{
    return t == GV_F32 ? 5.0 : 3.0;
}

/* The mean over m row losses: one block's sum (depth d_m), the division and m rounded to the
   dtype: d_m + 2 (m's sum in any order: m + 2). */
static double lr_mean_units(const gv_case *c, bool order_free)
{
    const int64_t m = c->shape.d[0];
    return (order_free ? (double)m : (double)gk_softmax_sum_depth(m)) + 2.0;
}

static double lr_row_sum(const gv_case *c, bool order_free)
{
    const int64_t n = c->shape.d[1];
    return order_free ? (double)n : (double)gk_softmax_sum_depth(n);
}

/* --- loss.xent.mean: x (m x n logits), t (m integer targets) -> one value ---------------- */

static int xm_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", lr_mn(c)};
    l->in[1] = (gv_tensor_spec){"target", c->shape.d[0]};
    l->out[0] = (gv_tensor_spec){"loss", 1};
    l->workspace_bytes = c->shape.d[0] * gv_dtype_size(c->dtype); /* the row losses */
    return GV_OK;
}

static double xm_flops(const gv_case *c)
{
    return 4.0 * (double)lr_mn(c) + (double)c->shape.d[0];
}

static double xm_bytes(const gv_case *c)
{
    return ((double)lr_mn(c) + (double)c->shape.d[0] + 1.0) * gv_esize(c);
}

/* loss.xent's row depth d_s + E + 4 */
static double xm_row_depth(const gv_case *c, bool order_free)
{
    return lr_row_sum(c, order_free) + lr_exp_units(c->dtype) + 4.0;
}

static double xm_depth(const gv_case *c)
{
    return xm_row_depth(c, false) + lr_mean_units(c, false);
}

static double xm_of_depth(const gv_case *c)
{
    return xm_row_depth(c, true) + lr_mean_units(c, true);
}

/* logits from the case's distribution; target i = a draw of (seed, tensor 1, i) mod n */
static int xm_inputs(gv_problem *p)
{
    const int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    gv_fill(p, 0, p->c.dist);
    for (int64_t i = 0; i < m; i++)
        p->in[1].ref[i] = (double)(gv_gen_bits(p->c.seed, 1, (uint64_t)i) % (uint64_t)n);
    gv_store_rounded(p, 1);
    return GV_OK;
}

static int xm_oracle(gv_problem *p)
{
    return gv_oracle_rc(go_loss_xent_mean(p->c.shape.d[0], p->c.shape.d[1], p->in[0].ref,
                                          p->in[1].ref, p->out[0].ref));
}

static int xm_gauge(gv_problem *p)
{
    const gv_case *c = &p->c;
    return gv_oracle_rc(go_loss_xent_mean_gauge(c->shape.d[0], c->shape.d[1], p->in[0].ref,
                                                p->in[1].ref, lr_exp_units(c->dtype),
                                                lr_row_sum(c, false), xm_row_depth(c, false),
                                                p->out[0].gauge));
}

static double xm_scratch(const gv_case *c)
{
    return 3.0 * 16.0 * (double)c->shape.d[0]; /* the rows' losses, gauges, long doubles */
}

#define LR_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)

#define LR_COMMON                                                                                  \
    .dims = "m,n", .out_dims = "", .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE),      \
    .check_shape = lr_check_shape, .reference_ignores_mode = true, .family = "lossred"

#define XM_COMMON                                                                                  \
    LR_COMMON, .in_dims = "m,n;m", .dists = LR_DISTS, .layout = xm_layout, .flops = xm_flops,      \
               .bytes = xm_bytes, .make_inputs = xm_inputs, .oracle = xm_oracle,                   \
               .gauge = xm_gauge, .depth = xm_depth, .order_free_depth = xm_of_depth,              \
               .oracle_scratch_bytes = xm_scratch, .range_degree = 1,                              \
               .error_model = "|L-r| <= u (D_row + d_m + 2) mean(g_i): loss.xent's row model "     \
                              "(depth D_row, gauge g_i), then one block's mean of m rows "         \
                              "(docs/error-models.md)"

static const gv_op loss_xent_mean = {
    .name = "loss.xent.mean",
    .summary = "L = mean_i (logsumexp(x_i) - x_i[t_i]) (cross_entropy, reduction 'mean'): a "
               "block a row, one block's mean",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x4096",
    .test_shapes = "1x1,3x7,33x100,16x1000,7x4097,512x1000",
    .canaries = "wide:1024x1024,huge:256x1024,sparse-special:256x1024",
    .test_canaries = "wide:256x1024,huge:64x256,sparse-special:64x256",
    .device = GV_KERNEL(gk_loss_xent_mean),
    XM_COMMON,
};

static const gv_op loss_xent_mean_sum = {
    .name = "loss.xent.mean.sum",
    .summary = "planted bug: the rows' losses summed, not averaged (reduction 'sum')",
    .planted_bug = "reduction 'sum' for 'mean': m times the loss",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x4096",
    .test_shapes = "3x7,16x1000",
    .device = GV_KERNEL(gk_loss_xent_mean_sum),
    XM_COMMON,
};

/* --- loss.hinge: p (m x n), t (n values +-1) -> one value ----------------------------------- */

static int hinge_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"predictions", lr_mn(c)};
    l->in[1] = (gv_tensor_spec){"targets", c->shape.d[1]};
    l->out[0] = (gv_tensor_spec){"loss", 1};
    return GV_OK;
}

static double hinge_flops(const gv_case *c)
{
    return 3.0 * (double)lr_mn(c);
}

static double hinge_bytes(const gv_case *c)
{
    return ((double)lr_mn(c) + (double)c->shape.d[1] + 1.0) * gv_esize(c);
}

/* A term 1 - p t: the product exact (t = +-1), one rounding; the clamp exact; then one
   block's sum of m n non-negative terms, the division and m n rounded: d + 3. */
static double hinge_depth(const gv_case *c)
{
    return (double)gk_softmax_sum_depth(lr_mn(c)) + 3.0;
}

static double hinge_of_depth(const gv_case *c)
{
    return (double)lr_mn(c) + 3.0;
}

/* predictions from the case's distribution; target j = +-1 from a draw of (seed, tensor 1, j) */
static int hinge_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    for (int64_t j = 0; j < p->c.shape.d[1]; j++)
        p->in[1].ref[j] = gv_gen_bits(p->c.seed, 1, (uint64_t)j) & 1u ? 1.0 : -1.0;
    gv_store_rounded(p, 1);
    return GV_OK;
}

static int hinge_oracle(gv_problem *p)
{
    return gv_oracle_rc(
        go_loss_hinge(p->c.shape.d[0], p->c.shape.d[1], p->in[0].ref, p->in[1].ref,
                      p->out[0].ref));
}

/* non-negative terms: the gauge is |r| */
static int hinge_gauge(gv_problem *p)
{
    p->out[0].gauge[0] = fabs(p->out[0].ref[0]);
    return GV_OK;
}

static double hinge_scratch(const gv_case *c)
{
    return 16.0 * (double)lr_mn(c); /* the terms, long doubles */
}

#define HINGE_COMMON                                                                               \
    LR_COMMON, .in_dims = "m,n;n", .dists = LR_DISTS, .layout = hinge_layout,                      \
               .flops = hinge_flops, .bytes = hinge_bytes, .make_inputs = hinge_inputs,            \
               .oracle = hinge_oracle, .gauge = hinge_gauge, .depth = hinge_depth,                 \
               .order_free_depth = hinge_of_depth, .oracle_scratch_bytes = hinge_scratch,          \
               .range_degree = 1,                                                                  \
               .error_model = "|L-r| <= u (d + 3) r: non-negative terms 1 - p t (one rounding), " \
                              "one block's sum of m n (depth d), the division "                    \
                              "(docs/error-models.md)"

static const gv_op loss_hinge = {
    .name = "loss.hinge",
    .summary = "L = mean(max(1 - p_ij t_j, 0)) over m x n, t of n values +-1 broadcast along the "
               "rows (torch.mean(torch.clamp(1 - p * t, min=0))): one block",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x4096",
    .test_shapes = "1x1,3x7,16x1000,7x4097,128x4096",
    .canaries = "wide:128x4096,tiny:128x4096,huge:128x4096,sparse-special:128x4096",
    .test_canaries = "wide:16x1000,tiny:16x1000,huge:16x1000,sparse-special:16x1000",
    .device = GV_KERNEL(gk_loss_hinge),
    HINGE_COMMON,
};

static const gv_op loss_hinge_rowtarget = {
    .name = "loss.hinge.rowtarget",
    .summary = "planted bug: row i's terms take t[i mod n], not t[j] (the broadcast misread)",
    .planted_bug = "targets indexed by the row: predictions * targets broadcasts along rows",
    .default_dist = GV_DIST_UNIFORM11,
    /* not 4096 x 4096: there the mean moves by about 1e-4 relative, inside the f32 model of
       a one-block sum of 16.7M terms (depth 16397: measured on an H200, ratio 0.12) */
    .shapes = "16x1000,64x512",
    .test_shapes = "16x1000,64x512",
    .device = GV_KERNEL(gk_loss_hinge_rowtarget),
    HINGE_COMMON,
};

/* --- loss.triplet: anchor, positive, negative (m x n each) -> one value ---------------------- */

static int tri_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 3, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"anchor", lr_mn(c)};
    l->in[1] = (gv_tensor_spec){"positive", lr_mn(c)};
    l->in[2] = (gv_tensor_spec){"negative", lr_mn(c)};
    l->out[0] = (gv_tensor_spec){"loss", 1};
    l->workspace_bytes = c->shape.d[0] * gv_dtype_size(c->dtype); /* the row losses */
    return GV_OK;
}

static double tri_flops(const gv_case *c)
{
    return 8.0 * (double)lr_mn(c);
}

static double tri_bytes(const gv_case *c)
{
    return (3.0 * (double)lr_mn(c) + 1.0) * gv_esize(c);
}

/* The depth the gauge is scaled to: a row's sums of squares (d_n), the mean (d_m + 2), and a
   few for the square roots and the row's subtraction and margin. */
static double tri_depth(const gv_case *c)
{
    return lr_row_sum(c, false) + lr_mean_units(c, false) + 6.0;
}

static double tri_of_depth(const gv_case *c)
{
    return lr_row_sum(c, true) + lr_mean_units(c, true) + 6.0;
}

static int tri_inputs(gv_problem *p)
{
    for (int i = 0; i < 3; i++)
        gv_fill(p, i, p->c.dist);
    return GV_OK;
}

static int tri_oracle(gv_problem *p)
{
    return gv_oracle_rc(go_loss_triplet(p->c.shape.d[0], p->c.shape.d[1], p->in[0].ref,
                                        p->in[1].ref, p->in[2].ref, GK_TRIPLET_EPS,
                                        GK_TRIPLET_MARGIN, p->out[0].ref));
}

static int tri_gauge(gv_problem *p)
{
    const gv_case *c = &p->c;
    return gv_oracle_rc(go_loss_triplet_gauge(
        c->shape.d[0], c->shape.d[1], p->in[0].ref, p->in[1].ref, p->in[2].ref, GK_TRIPLET_EPS,
        GK_TRIPLET_MARGIN, lr_row_sum(c, false), lr_mean_units(c, false), tri_depth(c),
        p->out[0].gauge));
}

static double tri_scratch(const gv_case *c)
{
    return 16.0 * (double)c->shape.d[0]; /* the rows' losses, long doubles */
}

#define TRI_COMMON                                                                                 \
    LR_COMMON, .in_dims = "m,n;m,n;m,n", .dists = LR_DISTS, .layout = tri_layout,                  \
               .flops = tri_flops, .bytes = tri_bytes, .make_inputs = tri_inputs,                  \
               .oracle = tri_oracle, .gauge = tri_gauge, .depth = tri_depth,                       \
               .order_free_depth = tri_of_depth, .oracle_scratch_bytes = tri_scratch,              \
               .range_degree = 2,                                                                  \
               .error_model = "|L-r| <= u B: per row ||w_p|| + ||w_n|| + (d_n + 3)/2 (D_p + "      \
                              "D_n) + |D_p - D_n| + |L'|, w = |a - p| + |z| + eps, then the "      \
                              "mean (d_m + 2) r (docs/error-models.md)"

static const gv_op loss_triplet = {
    .name = "loss.triplet",
    .summary = "L = mean_i max(||a_i - p_i + eps|| - ||a_i - n_i + eps|| + 1, 0) "
               "(TripletMarginLoss(margin=1), eps 1e-6): a block a row, one block's mean",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "2048x8192",
    .test_shapes = "1x1,3x7,16x1000,7x4097,128x4096",
    .canaries = "uniform11:128x4096,wide:128x4096,tiny:128x4096,huge:128x4096,"
                "sparse-special:128x4096",
    .test_canaries = "uniform11:16x1000,wide:16x1000,tiny:16x1000,huge:16x1000,"
                     "sparse-special:16x1000",
    .device = GV_KERNEL(gk_loss_triplet),
    TRI_COMMON,
};

static const gv_op loss_triplet_nosqrt = {
    .name = "loss.triplet.nosqrt",
    .summary = "planted bug: squared distances, the square roots left out",
    .planted_bug = "no sqrt: ||.||^2 for ||.||, the margin compared with squared distances",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "2048x8192",
    .test_shapes = "16x1000,64x512",
    .device = GV_KERNEL(gk_loss_triplet_nosqrt),
    TRI_COMMON,
};

const gv_op *const gv_family_lossred[] = {&loss_xent_mean, &loss_xent_mean_sum,
                                          &loss_hinge,     &loss_hinge_rowtarget,
                                          &loss_triplet,   &loss_triplet_nosqrt,
                                          NULL};
