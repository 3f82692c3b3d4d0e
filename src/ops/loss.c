/* loss.c: op descriptors for the cross-entropy of each row of a row-major m x n matrix of
 * logits against an integer target a row (loss.xent: torch's cross_entropy with
 * reduction='none'), one block a row on the device, and its planted bugs (no max
 * subtraction; -log of the softmax probability); and the losses that reduce two m x n tensors
 * to one value (loss.mse, loss.l1, loss.smooth_l1, loss.kl: torch's mse_loss, l1_loss,
 * smooth_l1_loss with their default 'mean' and beta 1, kl_div with 'batchmean'), one block on
 * the device, each with a planted bug.
 * Error model: docs/error-models.md, section loss. */
#include "../../abi/softmax.h"
#include "core/gen.h"
#include "ops/opkit.h"

extern const gk_op gk_loss_xent, gk_loss_xent_nomax, gk_loss_xent_naivelog;
extern const gk_op gk_loss_mse, gk_loss_mse_rowmean, gk_loss_l1, gk_loss_l1_noabs,
    gk_loss_smooth_l1, gk_loss_smooth_l1_nooffset, gk_loss_kl, gk_loss_kl_mean;

/* The targets travel in the case's dtype: integers are exact in f32 up to 2^24. */
#define XENT_MAX_N ((int64_t)1 << 24)

static int xent_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[1] < 1 || s->d[1] > XENT_MAX_N || (double)s->d[0] * (double)s->d[1] > 4e9 ||
        s->d[0] > 2147483647) {
        snprintf(why, len,
                 "loss.xent takes 1 <= n <= 2^24 classes (the targets are exact in f32), fewer "
                 "than 4e9 logits and m below 2^31 (got %lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int xent_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], n = c->shape.d[1];
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", m * n};
    l->in[1] = (gv_tensor_spec){"target", m};
    l->out[0] = (gv_tensor_spec){"loss", m};
    return GV_OK;
}

/* Per logit: the max, the subtraction, exp and its add. */
static double xent_flops(const gv_case *c)
{
    return 4.0 * (double)c->shape.d[0] * (double)c->shape.d[1];
}

static double xent_bytes(const gv_case *c)
{
    return ((double)c->shape.d[0] * (double)c->shape.d[1] + 2.0 * (double)c->shape.d[0]) *
           gv_esize(c);
}

/* exp's error from the exact value in units of u: 2 ulp (expf) or 1 ulp (exp) from the
   correctly rounded result plus its half ulp, an ulp at most 2u relative (as softmax's). */
static double exp_units(gv_dtype t)
{
    return t == GV_F32 ? 5.0 : 3.0;
}

/* The row's sum of exponentials: the softmax family's block (abi/softmax.h), or n terms in
   any order. */
static double sum_depth_of(const gv_case *c, bool order_free)
{
    int64_t n = c->shape.d[1];
    return order_free ? (double)n : (double)gk_softmax_sum_depth(n);
}

/* D = d_s + E + 4: the gauge carries the rest of the bound (src/ops/loss.c's gauge). */
static double xent_depth(const gv_case *c)
{
    return sum_depth_of(c, false) + exp_units(c->dtype) + 4.0;
}
static double xent_of_depth(const gv_case *c)
{
    return sum_depth_of(c, true) + exp_units(c->dtype) + 4.0;
}

/* Logits from the case's distribution; target i = a draw of (seed, tensor 1, i) mod n, the
   same on every machine. */
static int xent_inputs(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    gv_fill(p, 0, p->c.dist);
    for (int64_t i = 0; i < m; i++)
        p->in[1].ref[i] = (double)(gv_gen_bits(p->c.seed, 1, (uint64_t)i) % (uint64_t)n);
    gv_store_rounded(p, 1);
    return GV_OK;
}

static int xent_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_loss_xent(m, n, p->in[0].ref, n, p->in[1].ref, p->out[0].ref));
}

static int xent_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_loss_xent_gauge(m, n, p->in[0].ref, n, p->in[1].ref, p->out[0].ref,
                                           exp_units(p->c.dtype), sum_depth_of(&p->c, false),
                                           xent_depth(&p->c), p->out[0].gauge));
}

#define XENT_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)

#define XENT_COMMON                                                                                \
    .family = "loss", .dims = "m,n", .in_dims = "m,n;m", .out_dims = "m",                          \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = XENT_DISTS,                \
    .check_shape = xent_check_shape, .layout = xent_layout, .flops = xent_flops,                   \
    .bytes = xent_bytes, .make_inputs = xent_inputs, .oracle = xent_oracle, .gauge = xent_gauge,   \
    .depth = xent_depth, .order_free_depth = xent_of_depth, .reference_ignores_mode = true,        \
    .range_degree = 1,                                                                             \
    .error_model = "|L-r| <= u (A + E + d_s + 2L + 2 log S): A = sum y h (the rounded "            \
                   "arguments' share), exp E = 5 f32, 3 f64, sum depth d_s; depth D = d_s + E "    \
                   "+ 4, gauge max(L, bound / (u D)) (docs/error-models.md)"

static const gv_op loss_xent = {
    .name = "loss.xent",
    .summary = "L_i = logsumexp(x_i) - x_i[t_i] per row (cross-entropy, integer targets): one "
               "block a row",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x1024,64x65536,65536x10",
    .test_shapes = "1x1,3x7,33x100,16x1000,7x4097,4x65536",
    .canaries = "wide:1024x1024,huge:256x1024,sparse-special:256x1024",
    .test_canaries = "wide:256x1024,huge:64x256,sparse-special:64x256",
    .device = GV_KERNEL(gk_loss_xent),
    XENT_COMMON,
};

/* exp(x) of logits above about 88.7 (f32) or 709.8 (f64) is +Inf, and so is the loss: the wide
   distribution's rows reach them (tests/cpu/model_loss.c counts them). */
static const gv_op loss_xent_nomax = {
    .name = "loss.xent.nomax",
    .summary = "planted bug: log sum exp(x) - x_t without subtracting the row's largest logit",
    .planted_bug = "no max subtraction: exp overflows on large logits, the loss is +Inf",
    .default_dist = GV_DIST_WIDE,
    .shapes = "1024x1024",
    .test_shapes = "256x1024",
    .device = GV_KERNEL(gk_loss_xent_nomax),
    XENT_COMMON,
};

/* On the huge logits every target below its row's largest has exp(x_t - M) = 0: -log 0 = +Inf
   where the loss is finite. */
static const gv_op loss_xent_naivelog = {
    .name = "loss.xent.naivelog",
    .summary = "planted bug: -log(exp(x_t - M) / S), the log of the softmax probability",
    .planted_bug = "log(softmax) computed naively: the probability underflows to 0, loss +Inf",
    .default_dist = GV_DIST_HUGE,
    .shapes = "256x1024",
    .test_shapes = "64x256",
    .device = GV_KERNEL(gk_loss_xent_naivelog),
    XENT_COMMON,
};

/* The losses of two m x n tensors reduced to one value: x (the input: predictions, or the
   KL's log-probabilities) and y (the target). */
#define PAIR_BETA 1.0 /* smooth_l1_loss's default beta (kernels/loss.cu uses 1 too) */

static int pair_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[0] < 1 || s->d[1] < 1 || (double)s->d[0] * (double)s->d[1] > 4e9) {
        snprintf(why, len, "the losses take m, n >= 1 and fewer than 4e9 terms (got %lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int pair_layout(const gv_case *c, gv_layout *l)
{
    int64_t mn = c->shape.d[0] * c->shape.d[1];
    *l = (gv_layout){.n_in = 2, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", mn};
    l->in[1] = (gv_tensor_spec){"y", mn};
    l->out[0] = (gv_tensor_spec){"loss", 1};
    return GV_OK;
}

/* a subtraction, a square or an absolute value, an addition (the KL: a log and four) */
static double pair_flops(const gv_case *c)
{
    return 4.0 * (double)c->shape.d[0] * (double)c->shape.d[1];
}

static double pair_bytes(const gv_case *c)
{
    return (2.0 * (double)c->shape.d[0] * (double)c->shape.d[1] + 1.0) * gv_esize(c);
}

/* A term's roundings in units of u (docs/error-models.md, section loss): the difference and
   the square (or abs, or smooth L1's branch) 3 (L1: 1); the KL's y log y with log's E (5 f32,
   3 f64, as exp_units) and its product, y x and the subtraction: E + 2. Then the division
   and the count rounded to the dtype: 2. */
static double pair_term_units(int kind, const gv_case *c)
{
    switch (kind) {
    case GO_PAIR_L1: return 1.0;
    case GO_PAIR_KL: return exp_units(c->dtype) + 2.0;
    default: return 3.0;
    }
}

static double pair_depth(int kind, const gv_case *c)
{
    return (double)gk_softmax_sum_depth(c->shape.d[0] * c->shape.d[1]) + pair_term_units(kind, c) +
           2.0;
}

static double pair_of_depth(int kind, const gv_case *c)
{
    return (double)c->shape.d[0] * (double)c->shape.d[1] + pair_term_units(kind, c) + 2.0;
}

/* The terms' roundings into the subnormals: a product errs there by eta at most, additions
   of subnormals are exact, so the sum errs by 2 eta a term (the KL's y log y and y x; one or
   two for the others), and the division by the count keeps that share: 2 m n / m = 2 n etas
   for the KL's batchmean, 2 for the means (the judge counts at least the depth). */
static double pair_underflow_terms(int kind, const gv_case *c)
{
    return kind == GO_PAIR_KL ? 2.0 * (double)c->shape.d[1] + 2.0 : 3.0;
}

/* x from the case's distribution; y too, its magnitude for the KL (probabilities are >= 0;
   the special values keep their places), the same on every machine. */
static int pair_inputs(int kind, gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    gv_fill(p, 1, p->c.dist);
    if (kind == GO_PAIR_KL) {
        for (int64_t i = 0; i < p->in[1].count; i++)
            p->in[1].ref[i] = fabs(p->in[1].ref[i]);
        gv_store_rounded(p, 1);
    }
    return GV_OK;
}

static int pair_oracle(int kind, gv_problem *p)
{
    return gv_oracle_rc(go_loss_pair(kind, p->c.shape.d[0], p->c.shape.d[1], p->in[0].ref,
                                     p->in[1].ref, PAIR_BETA, p->out[0].ref));
}

static int pair_gauge(int kind, gv_problem *p)
{
    return gv_oracle_rc(go_loss_pair_gauge(kind, p->c.shape.d[0], p->c.shape.d[1], p->in[0].ref,
                                           p->in[1].ref, PAIR_BETA, p->out[0].gauge));
}

/* Each loss's hooks: the shared ones above with its kind (oracle/go.h's GO_PAIR_*). */
#define PAIR_HOOKS(tag, kind)                                                                      \
    static double tag##_depth(const gv_case *c)                                                    \
    {                                                                                              \
        return pair_depth(kind, c);                                                                \
    }                                                                                              \
    static double tag##_of_depth(const gv_case *c)                                                 \
    {                                                                                              \
        return pair_of_depth(kind, c);                                                             \
    }                                                                                              \
    static double tag##_uf(const gv_case *c)                                                       \
    {                                                                                              \
        return pair_underflow_terms(kind, c);                                                      \
    }                                                                                              \
    static int tag##_inputs(gv_problem *p)                                                         \
    {                                                                                              \
        return pair_inputs(kind, p);                                                               \
    }                                                                                              \
    static int tag##_oracle(gv_problem *p)                                                         \
    {                                                                                              \
        return pair_oracle(kind, p);                                                               \
    }                                                                                              \
    static int tag##_gauge(gv_problem *p)                                                          \
    {                                                                                              \
        return pair_gauge(kind, p);                                                                \
    }

PAIR_HOOKS(mse, GO_PAIR_MSE)
PAIR_HOOKS(l1, GO_PAIR_L1)
PAIR_HOOKS(sl1, GO_PAIR_SMOOTH_L1)
PAIR_HOOKS(kl, GO_PAIR_KL)

/* The KL's terms take both signs: on huge inputs (near the overflow threshold) the sum
   cancels to |L| far below its gauge, where u D g may exceed the tier t (1 + |L|); the model
   alone judges there (as pool.avg2d's huge cases). The other losses' terms are >= 0: no
   cancellation, the dtype's tier. */
static double kl_expected_tier(const gv_case *c, char *why, size_t len)
{
    if (c->dist != GV_DIST_HUGE) return gv_dtype_tier(c->dtype);
    snprintf(why, len,
             "huge inputs: the KL's terms of both signs cancel to |L| far below the gauge, "
             "where u D g exceeds the tier");
    return 0.0;
}

#define PAIR_COMMON(tag)                                                                           \
    .family = "loss", .dims = "m,n", .in_dims = "m,n;m,n", .out_dims = "",                         \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = XENT_DISTS,                \
    .check_shape = pair_check_shape, .layout = pair_layout, .flops = pair_flops,                   \
    .bytes = pair_bytes, .make_inputs = tag##_inputs, .oracle = tag##_oracle,                      \
    .gauge = tag##_gauge, .depth = tag##_depth, .order_free_depth = tag##_of_depth,                \
    .underflow_terms = tag##_uf, .reference_ignores_mode = true

#define PAIR_POS_MODEL(units)                                                                      \
    "|L-r| <= u (d_s + " units " + 2) r: non-negative terms, each within " units " u of its "      \
    "value, a block's sum of m n terms (depth d_s), the division (docs/error-models.md)"

#define MSE_COMMON PAIR_COMMON(mse), .range_degree = 2, .error_model = PAIR_POS_MODEL("3")
#define L1_COMMON  PAIR_COMMON(l1), .range_degree = 1, .error_model = PAIR_POS_MODEL("1")
#define SL1_COMMON PAIR_COMMON(sl1), .range_degree = 2, .error_model = PAIR_POS_MODEL("3")
#define KL_COMMON                                                                                  \
    PAIR_COMMON(kl),                                                                               \
        .range_degree = 2, .expected_tier = kl_expected_tier,                                      \
        .error_model = "|L-r| <= u (d_s + E + 4) sum(|y log y| + |y x|) / m: each term's log "     \
                       "(E = 5 f32, 3 f64), products and subtraction, the block's sum, the "       \
                       "division by m (docs/error-models.md)"

#define PAIR_SHAPES        "128x4096,4096x1024"
#define PAIR_TEST_SHAPES   "1x1,3x7,16x1000,7x4097,128x4096"
#define PAIR_CANARIES      "tiny:128x4096,huge:128x4096,sparse-special:128x4096"
#define PAIR_TEST_CANARIES "tiny:16x1000,huge:16x1000,sparse-special:16x1000"

static const gv_op loss_mse = {
    .name = "loss.mse",
    .summary = "L = mean((x - y)^2) over m x n (mse_loss, reduction 'mean'): one block",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = PAIR_SHAPES,
    .test_shapes = PAIR_TEST_SHAPES,
    .canaries = PAIR_CANARIES,
    .test_canaries = PAIR_TEST_CANARIES,
    .device = GV_KERNEL(gk_loss_mse),
    MSE_COMMON,
};

/* m times the loss: caught at any m > 1 */
static const gv_op loss_mse_rowmean = {
    .name = "loss.mse.rowmean",
    .summary = "planted bug: the sum of squares divided by n, a row's length, not m n",
    .planted_bug = "mean over the last dim only, then summed: m times the loss",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "128x4096",
    .test_shapes = "3x7,16x1000",
    .device = GV_KERNEL(gk_loss_mse_rowmean),
    MSE_COMMON,
};

static const gv_op loss_l1 = {
    .name = "loss.l1",
    .summary = "L = mean|x - y| over m x n (l1_loss, reduction 'mean'): one block",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = PAIR_SHAPES,
    .test_shapes = PAIR_TEST_SHAPES,
    .canaries = PAIR_CANARIES,
    .test_canaries = PAIR_TEST_CANARIES,
    .device = GV_KERNEL(gk_loss_l1),
    L1_COMMON,
};

static const gv_op loss_l1_noabs = {
    .name = "loss.l1.noabs",
    .summary = "planted bug: mean(x - y), the absolute value left out",
    .planted_bug = "no |.|: the differences cancel, the loss comes out near 0",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "128x4096",
    .test_shapes = "3x7,16x1000",
    .device = GV_KERNEL(gk_loss_l1_noabs),
    L1_COMMON,
};

static const gv_op loss_smooth_l1 = {
    .name = "loss.smooth_l1",
    .summary = "L = mean of smooth L1 (beta 1: z < 1 ? z^2/2 : z - 1/2, z = |x - y|) over m x "
               "n (smooth_l1_loss; HuberLoss(1)): one block",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = PAIR_SHAPES,
    .test_shapes = PAIR_TEST_SHAPES,
    .canaries = PAIR_CANARIES,
    .test_canaries = PAIR_TEST_CANARIES,
    .device = GV_KERNEL(gk_loss_smooth_l1),
    SL1_COMMON,
};

/* On uniform [-1, 1) inputs |x - y| > 1 for a quarter of the pairs (an eighth of the mass
   above 1): each adds 1/2 too much. */
static const gv_op loss_smooth_l1_nooffset = {
    .name = "loss.smooth_l1.nooffset",
    .summary = "planted bug: the linear branch returns z, not z - beta/2",
    .planted_bug = "linear branch without - 0.5 beta: the loss jumps at z = beta",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "128x4096",
    .test_shapes = "16x1000,128x4096",
    .device = GV_KERNEL(gk_loss_smooth_l1_nooffset),
    SL1_COMMON,
};

static const gv_op loss_kl = {
    .name = "loss.kl",
    .summary = "L = sum(xlogy(y, y) - y x) / m over m x n (kl_div, log-probabilities x, "
               "probabilities y, reduction 'batchmean'): one block",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = PAIR_SHAPES,
    .test_shapes = PAIR_TEST_SHAPES,
    .canaries = "uniform11:128x4096," PAIR_CANARIES,
    .test_canaries = "uniform11:16x1000," PAIR_TEST_CANARIES,
    .device = GV_KERNEL(gk_loss_kl),
    KL_COMMON,
};

/* reduction='mean' divides by m n: torch warns that it is not the KL divergence */
static const gv_op loss_kl_mean = {
    .name = "loss.kl.mean",
    .summary = "planted bug: kl_div's sum divided by m n (reduction 'mean'), not m",
    .planted_bug = "reduction 'mean' for 'batchmean': the loss n times too small",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "128x4096",
    .test_shapes = "3x7,16x1000",
    .device = GV_KERNEL(gk_loss_kl_mean),
    KL_COMMON,
};

const gv_op *const gv_family_loss[] = {&loss_xent,     &loss_xent_nomax,  &loss_xent_naivelog,
                                       &loss_mse,      &loss_mse_rowmean, &loss_l1,
                                       &loss_l1_noabs, &loss_smooth_l1,   &loss_smooth_l1_nooffset,
                                       &loss_kl,       &loss_kl_mean,     NULL};
