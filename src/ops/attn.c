/* attn.c: op descriptors for scaled dot-product attention (torch.nn.functional.
 * scaled_dot_product_attention without dropout): attn.sdpa and its causal form attn.sdpa.causal,
 * one block a query row on the device, and their planted bugs. Dims b, h, s, d: batch, heads,
 * sequence, the head's width; Q, K, V and the output b x h x s x d, row-major.
 * Error model: docs/error-models.md, section attn. */
#include "../../abi/attn.h"
#include "ops/opkit.h"

extern const gk_op gk_attn_sdpa, gk_attn_sdpa_causal, gk_attn_sdpa_noscale, gk_attn_sdpa_nomax,
    gk_attn_sdpa_causal_offbyone, gk_attn_sdpa_vt;

static int attn_check_shape(const gv_shape *s, char *why, size_t len)
{
    int64_t b = s->d[0], h = s->d[1], n = s->d[2], d = s->d[3];
    if (s->nd != 4 || n < 1 || n > GK_ATTN_MAX_S || d < 1 || d > GK_ATTN_MAX_D ||
        (double)b * h * n * d > 4e9) {
        snprintf(why, len,
                 "attention takes b x h x s x d with 1 <= s <= %d, 1 <= d <= %d (a row's scores "
                 "in a block's shared memory) and fewer than 4e9 elements a tensor (got "
                 "%lldx%lldx%lldx%lld)",
                 GK_ATTN_MAX_S, GK_ATTN_MAX_D, (long long)b, (long long)h, (long long)n,
                 (long long)d);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int64_t attn_count(const gv_case *c)
{
    const int64_t *d = c->shape.d;
    return d[0] * d[1] * d[2] * d[3];
}

static int attn_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = attn_count(c);
    *l = (gv_layout){.n_in = 3, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"q", n};
    l->in[1] = (gv_tensor_spec){"k", n};
    l->in[2] = (gv_tensor_spec){"v", n};
    l->out[0] = (gv_tensor_spec){"y", n};
    return GV_OK;
}

/* Q K^T and the weighted sum of V: 2 s d multiply-adds a query row (the causal form half of
   them, counted whole), and the softmax's few flops a score */
static double attn_flops(const gv_case *c)
{
    const int64_t *d = c->shape.d;
    return (double)d[0] * d[1] * d[2] * d[2] * (4.0 * d[3] + 5.0);
}

static double attn_bytes(const gv_case *c)
{
    return 4.0 * (double)attn_count(c) * gv_esize(c);
}

/* exp's error from the exact value in units of u: expf 2 ulp, exp 1 ulp, plus half an ulp, an
   ulp at most 2u relative (as softmax's, src/ops/softmax.c) */
static double exp_units(gv_dtype t)
{
    return t == GV_F32 ? 5.0 : 3.0;
}

/* D = s + d + 2E + 10: the weighted sum's s terms, the score's d (and six roundings: the scale,
   its square root and division, the product, the stored score), the softmax's exps, the
   division; the rest (the scores' errors through exp, the rounded arguments) is in the gauge.
   Any order of every sum (the softmax's s terms counted s): a user's kernel judged as this
   one gets it as it is. */
static double attn_depth(const gv_case *c)
{
    const int64_t *d = c->shape.d;
    return (double)d[2] + (double)d[3] + 2.0 * exp_units(c->dtype) + 10.0;
}

static int attn_inputs(gv_problem *p)
{
    for (int i = 0; i < 3; i++)
        gv_fill(p, i, p->c.dist);
    return GV_OK;
}

#define ATTN_ARGS(p) p->c.shape.d[0], p->c.shape.d[1], p->c.shape.d[2], p->c.shape.d[3]

static int run_oracle(gv_problem *p, int causal)
{
    return gv_oracle_rc(go_attn_sdpa(ATTN_ARGS(p), causal, p->in[0].ref, p->in[1].ref, p->in[2].ref,
                                     p->out[0].ref));
}

static int run_gauge(gv_problem *p, int causal)
{
    double u = gv_unit_roundoff(p->c.dtype, GV_MODE_NATIVE);
    return gv_oracle_rc(go_attn_sdpa_gauge(ATTN_ARGS(p), causal, p->in[0].ref, p->in[1].ref,
                                           p->in[2].ref, p->out[0].ref, u, exp_units(p->c.dtype),
                                           gv_dtype_subnormal_min(p->c.dtype), attn_depth(&p->c),
                                           p->out[0].gauge));
}

static int full_oracle(gv_problem *p)
{
    return run_oracle(p, 0);
}
static int full_gauge(gv_problem *p)
{
    return run_gauge(p, 0);
}
static int causal_oracle(gv_problem *p)
{
    return run_oracle(p, 1);
}
static int causal_gauge(gv_problem *p)
{
    return run_gauge(p, 1);
}

/* The dtype's tier, except on wide inputs (+-exp(2 N(0,1))): scores of thousands whose f32
   errors, through exp, move the weights by more than 1e-4; the model (capped at the weights'
   range) alone judges there. */
static double attn_expected_tier(const gv_case *c, char *why, size_t len)
{
    if (c->dist != GV_DIST_WIDE) return gv_dtype_tier(c->dtype);
    snprintf(why, len,
             "wide inputs: scores of thousands whose rounding, through exp, moves the weights "
             "past the tier");
    return 0.0;
}

/* Finite inputs: the edge dists would put scores of 2^100 through exp (every row one-hot, or
   NaN from Inf - Inf), a test of nothing attention does. */
#define ATTN_DISTS (GV_FINITE_DISTS | GV_BIT(GV_DIST_WIDE))

#define ATTN_COMMON                                                                                \
    .family = "attn", .dims = "b,h,s,d", .in_dims = "b,h,s,d;b,h,s,d;b,h,s,d",                     \
    .out_dims = "b,h,s,d", .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE),              \
    .dists = ATTN_DISTS, .check_shape = attn_check_shape, .layout = attn_layout,                   \
    .flops = attn_flops, .bytes = attn_bytes, .make_inputs = attn_inputs, .depth = attn_depth,     \
    .expected_tier = attn_expected_tier, .reference_ignores_mode = true,                           \
    .subnormals_unpromised = true, .range_degree = 2,                                              \
    .error_model = "|y-r| <= W + u (s+3)(sum w|v| + W) with W = sum_j w_j rho_j |v_j|, rho_j = "   \
                   "expm1(delta_j + log sum w e^delta) + softmax's own, delta_j = u (d+6) "        \
                   "sum|q||k_j|/sqrt(d): depth s + d + 2E + 10 (docs/error-models.md, attn)"

#define FULL_HOOKS   .oracle = full_oracle, .gauge = full_gauge
#define CAUSAL_HOOKS .oracle = causal_oracle, .gauge = causal_gauge

#define ATTN_SHAPES                                                                                \
    .shapes = "2x8x256x64,1x2x1024x64", .test_shapes = "1x1x1x1,2x3x17x8,1x2x100x64,1x1x1024x32"
#define ATTN_CANARIES                                                                              \
    .canaries = "wide:1x8x256x64,smallint:1x8x256x64",                                             \
    .test_canaries = "wide:1x2x100x64,smallint:1x2x100x64"

static const gv_op attn_sdpa = {
    .name = "attn.sdpa",
    .summary = "y = softmax(Q K^T / sqrt(d)) V (scaled_dot_product_attention): a block a row",
    ATTN_SHAPES,
    ATTN_CANARIES,
    .default_dist = GV_DIST_UNIFORM11,
    .device = GV_KERNEL(gk_attn_sdpa),
    FULL_HOOKS,
    ATTN_COMMON,
};

static const gv_op attn_sdpa_causal = {
    .name = "attn.sdpa.causal",
    .summary = "y = softmax(Q K^T / sqrt(d), keys j <= i) V (is_causal=True): a block a row",
    ATTN_SHAPES,
    ATTN_CANARIES,
    .default_dist = GV_DIST_UNIFORM11,
    .device = GV_KERNEL(gk_attn_sdpa_causal),
    CAUSAL_HOOKS,
    ATTN_COMMON,
};

#define ATTN_PLANTED .shapes = "2x8x256x64", .test_shapes = "2x3x17x8,1x2x100x64"

static const gv_op attn_sdpa_noscale = {
    .name = "attn.sdpa.noscale",
    .summary = "planted bug: the scores not scaled by 1/sqrt(d)",
    .planted_bug = "no 1/sqrt(d): a softmax sqrt(d) times sharper",
    ATTN_PLANTED,
    .default_dist = GV_DIST_UNIFORM11,
    .device = GV_KERNEL(gk_attn_sdpa_noscale),
    FULL_HOOKS,
    ATTN_COMMON,
};

/* Wide inputs: scores of thousands, whose exp overflows in f32 (above 88.7) and f64 (709.8);
   on uniform [-1, 1) the scores stay below sqrt(d) and the form without the max is exact
   enough to pass, as softmax.rows.nomax is. */
static const gv_op attn_sdpa_nomax = {
    .name = "attn.sdpa.nomax",
    .summary = "planted bug: exp(score) without subtracting the row's largest score",
    .planted_bug = "no max subtraction: exp overflows on large scores, Inf / Inf = NaN",
    ATTN_PLANTED,
    .default_dist = GV_DIST_WIDE,
    .device = GV_KERNEL(gk_attn_sdpa_nomax),
    FULL_HOOKS,
    ATTN_COMMON,
};

static const gv_op attn_sdpa_causal_offbyone = {
    .name = "attn.sdpa.causal.offbyone",
    .summary = "planted bug: the causal mask keeps key i + 1 too",
    .planted_bug = "causal mask off by one (j <= i + 1 for j <= i): each row but the last sees "
                   "the next key",
    ATTN_PLANTED,
    .default_dist = GV_DIST_UNIFORM11,
    .device = GV_KERNEL(gk_attn_sdpa_causal_offbyone),
    CAUSAL_HOOKS,
    ATTN_COMMON,
};

static const gv_op attn_sdpa_vt = {
    .name = "attn.sdpa.vt",
    .summary = "planted bug: V read transposed (v[c s + j] for v[j d + c])",
    .planted_bug = "V transposed: the weights meet another column of values",
    ATTN_PLANTED,
    .default_dist = GV_DIST_UNIFORM11,
    .device = GV_KERNEL(gk_attn_sdpa_vt),
    FULL_HOOKS,
    ATTN_COMMON,
};

const gv_op *const gv_family_attn[] = {&attn_sdpa,
                                       &attn_sdpa_causal,
                                       &attn_sdpa_noscale,
                                       &attn_sdpa_nomax,
                                       &attn_sdpa_causal_offbyone,
                                       &attn_sdpa_vt,
                                       NULL};
