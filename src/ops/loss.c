/* loss.c: op descriptors for the cross-entropy of each row of a row-major m x n matrix of
 * logits against an integer target a row (loss.xent: torch's cross_entropy with
 * reduction='none'), one block a row on the device, and its planted bugs (no max
 * subtraction; -log of the softmax probability).
 * Error model: docs/error-models.md, section loss. */
#include "../../abi/softmax.h"
#include "core/gen.h"
#include "ops/opkit.h"

extern const gk_op gk_loss_xent, gk_loss_xent_nomax, gk_loss_xent_naivelog;

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

const gv_op *const gv_family_loss[] = {&loss_xent, &loss_xent_nomax, &loss_xent_naivelog, NULL};
