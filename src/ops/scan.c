/* scan.c: op descriptors for the inclusive prefix sum and prefix product along the rows of a
 * row-major m x n matrix (scan.cumsum: torch.cumsum(x, dim=-1); scan.cumprod: torch.cumprod),
 * a block-wise scan on the device, and their planted bugs (an exclusive scan; the carry
 * between tiles dropped).
 * Error models: docs/error-models.md, sections scan and scan.cumprod. */
#include "../../abi/scan.h"
#include "ops/opkit.h"

extern const gk_op gk_scan_cumsum, gk_scan_cumsum_exclusive, gk_scan_cumsum_nocarry;
extern const gk_op gk_scan_cumprod, gk_scan_cumprod_exclusive, gk_scan_cumprod_nocarry;

static int scan_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[1] < 1 || (double)s->d[0] * (double)s->d[1] > 4e9 || s->d[0] > 2147483647) {
        snprintf(why, len,
                 "scan.cumsum and scan.cumprod take rows of at least one element, fewer than 4e9 "
                 "elements and m "
                 "below 2^31 (got %lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int scan_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], n = c->shape.d[1];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", m * n};
    l->out[0] = (gv_tensor_spec){"y", m * n};
    return GV_OK;
}

/* one addition an element (the scan's extra additions of offsets are not the op's work) */
static double scan_flops(const gv_case *c)
{
    return (double)c->shape.d[0] * (double)c->shape.d[1];
}

static double scan_bytes(const gv_case *c)
{
    return 2.0 * (double)c->shape.d[0] * (double)c->shape.d[1] * gv_esize(c);
}

/* The kernel's own depth (abi/scan.h): E + 9 + tiles. */
static double scan_depth(const gv_case *c)
{
    return (double)gk_scan_depth(c->shape.d[1]);
}

/* Any order a prefix of j + 1 terms may be summed in has at most j rounded additions on a
   path (recursive summation, ASNA eq. 4.4): n covers every output of a row. */
static double scan_order_free_depth(const gv_case *c)
{
    return (double)c->shape.d[1];
}

static int scan_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

static int scan_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_scan_cumsum(m, n, p->in[0].ref, n, p->out[0].ref, n));
}

static int scan_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_scan_cumsum_gauge(m, n, p->in[0].ref, n, p->out[0].gauge, n));
}

/* The dtype's tier where the model implies it. Not on inputs that span many binades (wide:
   +-exp(2N); huge: values near the overflow threshold): their prefix sums cancel to |r| far
   below sum |x|, where the model's u d sum|x| exceeds t (1 + |r|) and real errors do too (the
   CPU emulation of the kernel in f32, tests/cpu/model_scan.c: 1 to 25 outputs past 1e-4 at
   16x1000 and 2x65536 wide). Nor on signed terms of |x| <= 1 (uniform11 and the specials mixed
   into it) once u d n exceeds t: a row's prefix sums are a random walk that returns near zero,
   where the tier asks for t (1 + |r|) ~ t while the model allows u d sum|x| ~ u d n / 2; an H100
   ran the correct kernel on a row of 1000003 uniform11 f32 (seed 1) to 210 outputs past 1e-4,
   its model ratio 0.27. The model alone judges there. */
static double scan_expected_tier(const gv_case *c, char *why, size_t len)
{
    double t = gv_dtype_tier(c->dtype);
    if (c->dist == GV_DIST_WIDE || c->dist == GV_DIST_HUGE) {
        snprintf(why, len,
                 "%s inputs span many binades: prefix sums cancel to |r| far below sum|x|, where "
                 "u d sum|x| exceeds the tier",
                 gv_dist_name(c->dist));
        return 0.0;
    }
    bool signed_unit = c->dist == GV_DIST_UNIFORM11 || c->dist == GV_DIST_SPECIAL ||
                       c->dist == GV_DIST_SPARSE_SPECIAL;
    double n = (double)c->shape.d[1], u = gv_unit_roundoff(c->dtype, c->mode);
    if (signed_unit && u * scan_depth(c) * n > t) {
        snprintf(why, len,
                 "%s rows of %.0f: signed terms cancel, a prefix sum near zero is held to t but "
                 "the model allows u d n = %.2g",
                 gv_dist_name(c->dist), n, u * scan_depth(c) * n);
        return 0.0;
    }
    return t;
}

#define SCAN_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)

/* The prefix sums of a row share the carry and the tile's partial sums, so their errors are
   correlated: no bias rule, no probabilistic model (whose RMS assumes independent outputs). */
#define SCAN_COMMON                                                                                \
    .family = "scan", .dims = "m,n", .in_dims = "m,n", .out_dims = "m,n",                          \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = SCAN_DISTS,                \
    .check_shape = scan_check_shape, .layout = scan_layout, .flops = scan_flops,                   \
    .bytes = scan_bytes, .make_inputs = scan_inputs, .oracle = scan_oracle, .gauge = scan_gauge,   \
    .depth = scan_depth, .order_free_depth = scan_order_free_depth,                                \
    .expected_tier = scan_expected_tier, .reference_ignores_mode = true, .range_degree = 1,        \
    .error_model = "|y-r| <= gamma_d sum_{k<=j}|x_k|: gauge the prefix sum of |x|, depth "         \
                   "d = 13 + ceil(n/1024): a thread's 4 elements, the warp and block scans, "      \
                   "the tiles' carries in sequence (Higham ASNA sec. 4.2) (docs/error-models.md)"

static const gv_op scan_cumsum = {
    .name = "scan.cumsum",
    .summary = "y = inclusive prefix sum along each row: block scan (Hillis-Steele over lanes "
               "and warps), tiles of 1024 offset by a carry",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x1024,64x65536,1x1000003",
    .test_shapes = "1x1,3x7,33x100,16x1000,7x1025,4x4097,2x65536",
    .canaries = "uniform01:64x65536,tiny:256x4097,huge:256x4097,sparse-special:256x4097",
    .test_canaries = "uniform01:4x65536,tiny:16x1025,huge:16x1025,sparse-special:16x1025",
    .device = GV_KERNEL(gk_scan_cumsum),
    SCAN_COMMON,
};

/* y_j = sum_{k<j} x_k: off by the element itself everywhere, ratio ~ 1 / (u d) */
static const gv_op scan_cumsum_exclusive = {
    .name = "scan.cumsum.exclusive",
    .summary = "planted bug: the exclusive scan (sum of the elements before j), where cumsum is "
               "inclusive",
    .planted_bug = "exclusive instead of inclusive: every output lacks its own element",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x1024",
    .test_shapes = "3x7,33x100",
    .device = GV_KERNEL(gk_scan_cumsum_exclusive),
    SCAN_COMMON,
};

/* The tiles after the first lose the carry: wrong from element 1024 of a row on. */
static const gv_op scan_cumsum_nocarry = {
    .name = "scan.cumsum.nocarry",
    .summary = "planted bug: each 1024-element tile scanned alone, the carry of the earlier "
               "tiles dropped",
    .planted_bug = "dropped block carry: outputs past the first tile miss the earlier tiles' sum",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "64x65536",
    .test_shapes = "7x1025,4x4097",
    .device = GV_KERNEL(gk_scan_cumsum_nocarry),
    SCAN_COMMON,
};

/* ---- scan.cumprod ---------------------------------------------------------------------- */

static int cumprod_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_scan_cumprod(m, n, p->in[0].ref, n, p->out[0].ref, n));
}

/* g = (j + 1) |r|: the j rounded multiplications of any order a prefix of j + 1 terms may be
   multiplied in (ASNA Lemma 3.1), carried by the gauge, so the depth is 1 for any order */
static int cumprod_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_scan_cumprod_gauge(m, n, p->out[0].ref, n, p->out[0].gauge, n));
}

static double cumprod_depth(const gv_case *c)
{
    (void)c;
    return 1.0;
}

/* Each of the n - 1 multiplications of a row's last prefix may round into the subnormals and
   err by eta there; with |x| < 1 (the op's inputs) a later factor only shrinks that error. */
static double cumprod_underflow_terms(const gv_case *c)
{
    return (double)c->shape.d[1];
}

/* The dtype's tier where the model implies it for every prefix: |x| < 1 keeps |r| <= 1, so
   gamma_{n-1} |r| <= t (1 + |r|) once u n <= t (f32: rows up to 1677). Past that only the
   model judges: a long prefix of uniform inputs is far below 1 and holds the tier in practice,
   but nothing in the model says so. */
static double cumprod_expected_tier(const gv_case *c, char *why, size_t len)
{
    double t = gv_dtype_tier(c->dtype), n = (double)c->shape.d[1];
    double u = gv_unit_roundoff(c->dtype, c->mode);
    if (u * n <= t) return t;
    snprintf(why, len,
             "rows of %.0f: the model allows gamma_(n-1) |r| with u n = %.2g over the tier", n,
             u * n);
    return 0.0;
}

/* Inputs of |x| < 1 only (uniform01, uniform11): their partial products in any order stay
   within [-1, 1], so none overflows, and an underflow errs by eta at most. Inputs past 1
   (smallint, offgrid, wide, huge) make some order's partial product overflow where the exact
   prefix does not, and the specials make the outcome depend on the order (an infinity times
   a partial product that underflowed to 0 in one order and not in another: NaN or Inf): no
   reference is right for every correct kernel there, so the op does not take them. */
#define CUMPROD_DISTS (GV_BIT(GV_DIST_UNIFORM01) | GV_BIT(GV_DIST_UNIFORM11))

/* Products share the carry and the tile's partial products as the sums do: no bias rule, no
   probabilistic model. */
#define CUMPROD_COMMON                                                                             \
    .family = "scan", .dims = "m,n", .in_dims = "m,n", .out_dims = "m,n",                          \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = CUMPROD_DISTS,             \
    .check_shape = scan_check_shape, .layout = scan_layout, .flops = scan_flops,                   \
    .bytes = scan_bytes, .make_inputs = scan_inputs, .oracle = cumprod_oracle,                     \
    .gauge = cumprod_gauge, .depth = cumprod_depth, .underflow_terms = cumprod_underflow_terms,    \
    .expected_tier = cumprod_expected_tier, .reference_ignores_mode = true, .range_degree = 1,     \
    .error_model = "|y-r| <= gamma_j |r| + j eta: a product of j + 1 terms makes j rounded "       \
                   "multiplications in any order (Higham ASNA Lemma 3.1); gauge (j + 1)|r|, "      \
                   "depth 1 (docs/error-models.md)"

static const gv_op scan_cumprod = {
    .name = "scan.cumprod",
    .summary = "y = inclusive prefix product along each row (torch.cumprod(x, dim=-1)): the "
               "block scan of scan.cumsum with * for +",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "4096x1024,64x65536",
    .test_shapes = "1x1,3x7,33x100,16x1000,7x1025,4x4097,2x65536",
    .canaries = "uniform11:4096x1024",
    .test_canaries = "uniform11:33x100,uniform11:4x4097",
    .device = GV_KERNEL(gk_scan_cumprod),
    CUMPROD_COMMON,
};

/* y_j = prod_{k<j} x_k: off by the factor x_j everywhere (y_0 = 1) */
static const gv_op scan_cumprod_exclusive = {
    .name = "scan.cumprod.exclusive",
    .summary = "planted bug: the exclusive product (of the elements before j), where cumprod "
               "is inclusive",
    .planted_bug = "exclusive instead of inclusive: every output lacks its own factor",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "4096x1024",
    .test_shapes = "3x7,33x100",
    .device = GV_KERNEL(gk_scan_cumprod_exclusive),
    CUMPROD_COMMON,
};

/* The tiles after the first restart from 1: outputs past element 1023 of a row are the
   tile's own product, where the true prefix has long underflowed to 0 (uniform01) */
static const gv_op scan_cumprod_nocarry = {
    .name = "scan.cumprod.nocarry",
    .summary = "planted bug: each 1024-element tile multiplied alone, the carry of the earlier "
               "tiles dropped",
    .planted_bug = "dropped block carry: outputs past the first tile miss the earlier tiles' "
                   "product",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "64x65536",
    .test_shapes = "7x1025,4x4097",
    .device = GV_KERNEL(gk_scan_cumprod_nocarry),
    CUMPROD_COMMON,
};

const gv_op *const gv_family_scan[] = {
    &scan_cumsum,  &scan_cumsum_exclusive,  &scan_cumsum_nocarry,
    &scan_cumprod, &scan_cumprod_exclusive, &scan_cumprod_nocarry,
    NULL};
