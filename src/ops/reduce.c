/* reduce.c: op descriptors for the sum of a vector by a tree (reduce.sum), its planted bug,
 * the column sums of a row-major m x n matrix (reduce.colsum: the "sum over axis 0"
 * half of seed 002's matmul -> sum test), and the mean of each row (reduce.mean:
 * torch.mean(x, dim=-1), a vector being one row) with its planted n - 1 divisor.
 * Error model: docs/error-models.md, section reduce. */
#include "../../abi/colsum.h"
#include "../../abi/reduce.h"
#include "../../abi/softmax.h"
#include "ops/opkit.h"

extern const gk_op gk_reduce_sum, gk_reduce_sum_droptail, gk_reduce_sum_dropnan, gk_reduce_sum_racy,
    gk_reduce_colsum, gk_reduce_colsum_vectail, gk_reduce_sum_onepass, gk_reduce_sum_nofence,
    gk_reduce_sum_rz, gk_reduce_mean, gk_reduce_mean_nminus1;

/* The sum kernel launches one block per tile: at most 2^31 - 1 blocks. */
#define REDUCE_MAX_N ((int64_t)2147483647 * GK_REDUCE_TILE)

static int sum_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[0] > REDUCE_MAX_N) {
        snprintf(why, len,
                 "reduce.sum takes n <= %.4g (one block per %d elements, at most 2^31-1 "
                 "blocks); got %lld",
                 (double)REDUCE_MAX_N, GK_REDUCE_TILE, (long long)s->d[0]);
        return GV_EINVAL;
    }
    return GV_OK;
}

/* reduce.sum.onepass: its last block sums the ceil(n / 2048) tile sums alone; n <= 2^32 keeps
   that to 2^21 partials (1024 groups of 2048). */
#define ONEPASS_MAX_N ((int64_t)1 << 32)

static int onepass_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[0] > ONEPASS_MAX_N) {
        snprintf(why, len,
                 "reduce.sum.onepass takes n <= 2^32 (its last block sums the n/%d tile sums "
                 "alone); got %lld",
                 GK_REDUCE_TILE, (long long)s->d[0]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int colsum_check_shape(const gv_shape *s, char *why, size_t len)
{
    if ((double)s->d[0] * (double)s->d[1] > 4e9 || s->d[1] > 2147483647 / 2) {
        snprintf(why, len,
                 "reduce.colsum takes fewer than 4e9 elements and n below 2^30 (got "
                 "%lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int sum_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = c->shape.d[0];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", n};
    l->out[0] = (gv_tensor_spec){"s", 1};
    l->workspace_bytes = gk_reduce_workspace_elems(n) * (int64_t)gv_dtype_size(c->dtype);
    return GV_OK;
}

static int onepass_layout(const gv_case *c, gv_layout *l)
{
    int64_t n = c->shape.d[0];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", n};
    l->out[0] = (gv_tensor_spec){"s", 1};
    l->workspace_bytes = gk_reduce_onepass_workspace_bytes(n, (int64_t)gv_dtype_size(c->dtype));
    return GV_OK;
}

static int colsum_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], n = c->shape.d[1];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"X", m * n};
    l->out[0] = (gv_tensor_spec){"s", n};
    l->workspace_bytes = gk_colsum_scratch_bytes(m, n, (int64_t)gv_dtype_size(c->dtype));
    return GV_OK;
}

static double sum_flops(const gv_case *c)
{
    return (double)c->shape.d[0];
}
static double sum_bytes(const gv_case *c)
{
    return ((double)c->shape.d[0] + 1.0) * gv_esize(c);
}

static double colsum_flops(const gv_case *c)
{
    return (double)c->shape.d[0] * (double)c->shape.d[1];
}

static double colsum_bytes(const gv_case *c)
{
    double m = (double)c->shape.d[0], n = (double)c->shape.d[1];
    return (m * n + n) * gv_esize(c);
}

/* ceil(log2 n), 0 for n <= 1 */
static int ceil_log2(int64_t n)
{
    int bits = 0;
    while (bits < 62 && ((int64_t)1 << bits) < n)
        bits++;
    return bits;
}

/* ceil(log2 n) + 1 */
static double sum_depth(const gv_case *c)
{
    return (double)ceil_log2(c->shape.d[0]) + 1.0;
}

/* reduce.sum.onepass (docs/error-models.md, reduce): an element goes through its tile's tree
   (at most ceil(log2 min(n, 2048)) rounded additions: the tree is padded with zeros, and an
   addition of a zero subtree is exact), its tile sum through its group's tree of at most 2048
   tile sums (ceil(log2 min(tiles, 2048))), then the groups' sums added one after another
   (G - 1 at most, G = ceil(tiles / 2048)); + 1 as sum_depth. Up to 2^22 elements (G = 1) this
   is exactly sum_depth's ceil(log2 n) + 1. */
static double onepass_depth(const gv_case *c)
{
    int64_t n = c->shape.d[0], tiles = n < 1 ? 1 : (n + GK_REDUCE_TILE - 1) / GK_REDUCE_TILE;
    int64_t groups = (tiles + GK_REDUCE_TILE - 1) / GK_REDUCE_TILE;
    int64_t in_tile = n < GK_REDUCE_TILE ? n : GK_REDUCE_TILE;
    int64_t in_group = tiles < GK_REDUCE_TILE ? tiles : GK_REDUCE_TILE;
    return (double)(ceil_log2(in_tile) + ceil_log2(in_group)) + (double)(groups - 1) + 1.0;
}

/* In any order (a user's kernel judged as these, judge_as): a sum of n terms has at most
   n - 1 rounded additions a path (recursive summation, ASNA eq. 4.4); n keeps the + 1 of
   sum_depth. The column sums likewise: m. */
static double sum_order_free_depth(const gv_case *c)
{
    return (double)c->shape.d[0];
}

/* reduce.sum.racy: a tile's tree (log2 2048 + 1), then the tiles' sums one after another
   in arrival order. */
static double racy_depth(const gv_case *c)
{
    int64_t tiles = (c->shape.d[0] + 2047) / 2048;
    return 12.0 + (double)(tiles > 0 ? tiles : 1);
}

static double colsum_depth(const gv_case *c)
{
    return (double)gk_colsum_depth(c->shape.d[0]);
}

static int reduce_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

static int sum_oracle(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    return gv_oracle_rc(go_reduce_sum(n, p->in[0].ref, p->out[0].ref));
}

static int sum_gauge(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    return gv_oracle_rc(go_reduce_sum_gauge(n, p->in[0].ref, p->out[0].gauge));
}

/* The exact sums where the inputs sit on a grid (oracle/exact.c), for f64 cases: the sum is the
   column sum of an n x 1 matrix. */
static int sum_exact_reference(gv_problem *p, bool *done)
{
    int64_t n = p->c.shape.d[0];
    int ok = 0;
    int rc = go_colsum_exact(n, 1, p->in[0].ref, 1, p->out[0].ref, p->out[0].ref_lo, &ok);
    *done = ok == 1;
    return gv_oracle_rc(rc);
}

static int colsum_exact_reference(gv_problem *p, bool *done)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    int ok = 0;
    int rc = go_colsum_exact(m, n, p->in[0].ref, n, p->out[0].ref, p->out[0].ref_lo, &ok);
    *done = ok == 1;
    return gv_oracle_rc(rc);
}

static int colsum_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_reduce_colsum(m, n, p->in[0].ref, n, p->out[0].ref));
}

static int colsum_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_reduce_colsum_gauge(m, n, p->in[0].ref, n, p->out[0].gauge));
}

/* The probabilistic model's G = |s| + sqrt(sum x^2), per column for colsum. A non-finite
   input makes G non-finite; those outputs are judged by NaN/Inf placement instead. */
static int sum_pgauge(gv_problem *p)
{
    int64_t n = p->c.shape.d[0];
    int rc = go_colsum_sqgauge(n, 1, p->in[0].ref, 1, p->out[0].pgauge);
    if (rc == 0) p->out[0].pgauge[0] += fabs(p->out[0].ref[0]);
    return gv_oracle_rc(rc);
}

static int colsum_pgauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    gv_tensor *s = &p->out[0];
    int rc = go_colsum_sqgauge(m, n, p->in[0].ref, n, s->pgauge);
    for (int64_t j = 0; rc == 0 && j < n; j++)
        s->pgauge[j] += fabs(s->ref[j]);
    return gv_oracle_rc(rc);
}

#define REDUCE_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_TIE) | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)

/* What every sum of a vector shares (the tree's and onepass's shapes and layouts differ). */
#define SUM_SHARED                                                                                 \
    .family = "reduce", .dims = "n", .in_dims = "n", .out_dims = "", .dtypes = GV_BOTH_DTYPES,     \
    .modes = GV_BIT(GV_MODE_NATIVE), .dists = REDUCE_DISTS,                                       \
    .flops = sum_flops, .bytes = sum_bytes, .make_inputs = reduce_inputs, .oracle = sum_oracle,    \
    .gauge = sum_gauge, .pgauge = sum_pgauge, .exact_reference = sum_exact_reference,              \
    .order_free_depth = sum_order_free_depth, .bias_dists = GV_BIT(GV_DIST_UNIFORM11),         \
    .envelope = GV_ENV_COLSUM

#define SUM_BASE SUM_SHARED, .check_shape = sum_check_shape, .layout = sum_layout

#define SUM_COMMON                                                                                 \
    SUM_BASE,                                                                                      \
        .default_dist = GV_DIST_UNIFORM01, .depth = sum_depth, .env_order = GV_ORDER_TREE,         \
        .error_model = "|s-r| <= gamma_d sum|x|: gauge sum|x|, depth ceil(log2 n)+1, a tree with " \
                       "<= ceil(log2 n) rounded additions a path (Higham ASNA sec. 4.2) "          \
                       "(docs/error-models.md)"

/* reduce.sum's error is symmetric on zero-mean inputs (bias_dists), but one output cannot
   show a lean (|z| is 1 or 0): the bias rule, which needs GV_BIAS_MIN_N elements, reports it
   only. reduce.colsum, the column sums, is judged. What one output does show: its kernel's
   tree is known (env_order), so the envelope replays that tree bit for bit on the CPU, in
   round-to-nearest and toward zero, on generated inputs too; a tree that rounds every
   addition toward zero errs about -0.7 u|s| a level on same-signed terms, ~ -12 u|s| at
   n = 10^5, against a correct tree's exact replay (docs/error-models.md, "One sum, and a
   declared order"). */
static const gv_op reduce_sum = {
    .name = "reduce.sum",
    .summary = "s = sum of x: block tree (registers, warp shuffles, shared memory), then the "
               "same over the block partials; no atomics",
    .shapes = "1e3,1e6,1000003,1e8",
    .test_shapes = "1,2,1000,2048,2049,4097,1000003,4194305",
    .large_shapes = "2147483653", /* 2^31 + 5: past 2^31, a partial last tile */
    .canaries = "uniform11:1000003,tiny:1000003,huge:1000003,sparse-special:1000003",
    .test_canaries = "uniform11:1000003,tiny:4097,huge:4097,sparse-special:4097",
    .device = GV_KERNEL(gk_reduce_sum),
    SUM_COMMON,
};

/* The tree of reduce.sum with every addition rounding toward zero (__fadd_rz, __dadd_rz): as
   accurate as a correct tree by the worst case at every default size (its error, ~0.7 d u|s|
   on uniform [0, 1), stays within gamma_d |s|), so only the replay of the kernel's tree sees
   it. */
static const gv_op reduce_sum_rz = {
    .name = "reduce.sum.rz",
    .summary = "planted bug: reduce.sum's tree with every addition rounding toward zero",
    .planted_bug = "every addition rounds toward zero: the sum drifts toward zero by about "
                   "0.7 u|s| a level of the tree",
    .shapes = "1000003",
    .test_shapes = "100000,1000003",
    .device = GV_KERNEL(gk_reduce_sum_rz),
    SUM_COMMON,
};

static const gv_op reduce_sum_droptail = {
    .name = "reduce.sum.droptail",
    .summary = "planted bug: the tree drops the elements past the last whole 2048-tile",
    .planted_bug = "reduction tail (n mod 2048 elements) dropped",
    .shapes = "1000003",
    .test_shapes = "1000,4097,1000003",
    .device = GV_KERNEL(gk_reduce_sum_droptail),
    SUM_COMMON,
};

/* A NaN among the terms read as 0: on sparse-special inputs (a few NaN, +-Inf and -0 among
   ordinary values) the sum is NaN and the kernel's is not. Its sizes are ones where the seeds
   the catalogue (0) and the GPU suite (7) use put a NaN among the terms without both
   infinities (tests/cpu/model_edges.c checks it on the CPU). */
static const gv_op reduce_sum_dropnan = {
    .name = "reduce.sum.dropnan",
    .summary = "planted bug: the tree reads a NaN term as 0",
    .planted_bug = "NaN terms dropped: the sum comes out finite",
    .shapes = "1000003",
    .test_shapes = "1000,16411,32771",
    .device = GV_KERNEL(gk_reduce_sum_dropnan),
    SUM_BASE,
    .default_dist = GV_DIST_SPARSE_SPECIAL,
    .depth = sum_depth,
    .error_model = "as reduce.sum",
};

static const gv_op reduce_sum_racy = {
    .name = "reduce.sum.racy",
    .summary = "planted bug: tile sums added with atomicAdd in arrival order, yet declared "
               "deterministic (check --repeat must FAIL it)",
    .planted_bug = "not bit-reproducible though declared deterministic",
    .planted_fault = true,
    .shapes = "4194305",
    .test_shapes = "1000003,4194305",
    .repeat_canaries = "uniform01:4194304:10",
    .device = GV_KERNEL(gk_reduce_sum_racy),
    SUM_BASE,
    .default_dist = GV_DIST_UNIFORM01,
    .depth = racy_depth,
    .error_model = "|s-r| <= gamma_d sum|x|: gauge sum|x|, depth 12 + tiles: a tile's tree, "
                   "then the tiles' sums in sequence (Higham ASNA sec. 4.2)",
};

/* reduce.sum.onepass and its planted race: one launch, the blocks' tile sums summed by the last
   block to finish. The repeat canary (core/repeat.h): 2^21 elements are 1024 blocks of 2048,
   one wave on a GPU with 128 or more SMs (8 blocks of 256 threads an SM): the blocks start
   together and finish within a short time of one another, so the last block's loads of the
   partials follow the other blocks' stores closely; 10 launches on the same inputs. */
#define ONEPASS_COMMON                                                                             \
    SUM_SHARED, .default_dist = GV_DIST_UNIFORM01, .env_order = GV_ORDER_TREE_ONEPASS,            \
        .check_shape = onepass_check_shape, .layout = onepass_layout, .depth = onepass_depth,      \
        .error_model = "|s-r| <= gamma_d sum|x|: gauge sum|x|, depth ceil(log2 min(n,2048)) "      \
                       "+ ceil(log2 min(tiles,2048)) + ceil(tiles/2048): tile trees, "             \
                       "then the tile sums by groups of 2048 in a fixed order (Higham ASNA "       \
                       "sec. 4.2) (docs/error-models.md)"

static const gv_op reduce_sum_onepass = {
    .name = "reduce.sum.onepass",
    .summary = "s = sum of x in one launch: block trees, the last block to finish (a ticket "
               "counter) sums the block sums in a fixed order",
    .shapes = "1e3,1000003,1e7",
    .test_shapes = "1,2,1000,2048,2049,1000003,4194305",
    .repeat_canaries = "uniform01:2097152:10",
    .device = GV_KERNEL(gk_reduce_sum_onepass),
    ONEPASS_COMMON,
};

/* The same kernel without its fences. Its repeat canary asks for more launches than the
   correct op's: a missing fence shows only when a store is late, and each launch is a draw. */
static const gv_op reduce_sum_nofence = {
    .name = "reduce.sum.nofence",
    .summary = "planted race: reduce.sum.onepass without __threadfence, the last block may read "
               "a tile sum before it is visible (its repeat canary must FAIL, when the race shows)",
    .planted_bug = "no fence between a block's partial and its ticket: a partial read before it "
                   "is visible is the poisoned one",
    .planted_fault = true,
    .shapes = "1000003",
    .test_shapes = "1000003",
    .repeat_canaries = "uniform01:2097152:32",
    .device = GV_KERNEL(gk_reduce_sum_nofence),
    ONEPASS_COMMON,
};

#define COLSUM_ERROR_MODEL                                                                         \
    "|s-r| <= gamma_d colsum(|X|), d = colsum_depth(m) = chunk rows + chunks (Higham ASNA sec. "   \
    "4.2) (docs/error-models.md)"

/* What reduce.colsum and its planted variant share. */
#define REDUCE_COLSUM_COMMON                                                                       \
    .family = "reduce", .dims = "m,n", .in_dims = "m,n", .out_dims = "n",                          \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = REDUCE_DISTS,              \
    .default_dist = GV_DIST_UNIFORM01, .check_shape = colsum_check_shape, .layout = colsum_layout, \
    .flops = colsum_flops, .bytes = colsum_bytes, .make_inputs = reduce_inputs,                    \
    .oracle = colsum_oracle, .gauge = colsum_gauge, .pgauge = colsum_pgauge,                       \
    .exact_reference = colsum_exact_reference, .depth = colsum_depth,                              \
    .order_free_depth = sum_order_free_depth, .error_model = COLSUM_ERROR_MODEL,                   \
    .bias_dists = GV_BIT(GV_DIST_UNIFORM11), .envelope = GV_ENV_COLSUM

static const gv_op reduce_colsum = {
    .name = "reduce.colsum",
    .summary = "s = sum over rows of X (m x n), chunked column sums (seed 002's sum(axis=0))",
    .shapes = "1000x700,10000x7000,7001x10007",
    .test_shapes = "1x1,7x1000,1000x3,4097x129,100003x7",
    /* (2^25 + 1) x 64 = 2^31 + 64 elements: the last row lies past 2^31; 64 columns keep the
       oracle's passes over X row by row */
    .large_shapes = "33554433x64",
    .canaries = "uniform11:10000x7000,tiny:4097x129,huge:4097x129,sparse-special:4097x129",
    .test_canaries = "uniform11:4097x129,tiny:4097x129,huge:4097x129,sparse-special:4097x129",
    /* the fused last-block chunk sums (kernels/colsum.cuh): 3 chunks of 34 rows and 257 (f32)
       or 129 (f64) column groups, 771 or 387 small blocks, as many last blocks a launch */
    .repeat_canaries = "uniform01:100x32769:10",
    REDUCE_COLSUM_COMMON,
    .device = GV_KERNEL(gk_reduce_colsum),
};

/* The vector path of the column sums taken where a row is not whole 16-byte vectors: caught
   at column counts that are not a multiple of 4 (f32) or 2 (f64), from 4 or 2 up. */
static const gv_op reduce_colsum_vectail = {
    .name = "reduce.colsum.vectail",
    .summary = "planted bug: 16-byte column vectors where a row is not whole vectors",
    .planted_bug = "row stride rounded down to whole vectors, last columns never written",
    .shapes = "10000x7001",
    .test_shapes = "4097x129,100003x7",
    REDUCE_COLSUM_COMMON,
    .device = GV_KERNEL(gk_reduce_colsum_vectail),
};

/* reduce.mean: one block a row (kernels/reduce.cu, the softmax family's block sums). */
static int mean_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[1] < 1 || (double)s->d[0] * (double)s->d[1] > 4e9 || s->d[0] > 2147483647) {
        snprintf(why, len,
                 "reduce.mean takes n >= 1, fewer than 4e9 elements and m below 2^31 (got "
                 "%lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int mean_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], n = c->shape.d[1];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", m * n};
    l->out[0] = (gv_tensor_spec){"y", m};
    return GV_OK;
}

static double mean_bytes(const gv_case *c)
{
    double m = (double)c->shape.d[0], n = (double)c->shape.d[1];
    return (m * n + m) * gv_esize(c);
}

/* The row's sum (gk_softmax_sum_depth: a thread's run, then the block tree), then the
   division by n, whose divisor is rounded to the dtype where n passes 2^24 (f32) or 2^53: two
   roundings more. |y^ - y| <= u (d_s + 2) mean|x| (docs/error-models.md, section reduce). */
static double mean_depth(const gv_case *c)
{
    return (double)gk_softmax_sum_depth(c->shape.d[1]) + 2.0;
}

/* Any order: n - 1 additions a path, then a division or a product by a rounded 1/n. */
static double mean_of_depth(const gv_case *c)
{
    return (double)c->shape.d[1] + 2.0;
}

static int mean_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_reduce_mean(m, n, p->in[0].ref, n, p->out[0].ref));
}

static int mean_gauge(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_reduce_mean_gauge(m, n, p->in[0].ref, n, p->out[0].gauge));
}

/* The dtype's tier, except on huge inputs (values near the overflow threshold, both signs): a
   row's mean cancels to |y| far below mean|x|, where u (d_s + 2) mean|x| may exceed
   t (1 + |y|) and a correct kernel's error too, as pool.avg2d's (src/ops/pool.c). The model
   alone judges there. */
static double mean_expected_tier(const gv_case *c, char *why, size_t len)
{
    if (c->dist != GV_DIST_HUGE) return gv_dtype_tier(c->dtype);
    snprintf(why, len,
             "huge inputs: a row's mean cancels to |y| far below mean|x|, where u d mean|x| "
             "exceeds the tier");
    return 0.0;
}

#define MEAN_COMMON                                                                                \
    .family = "reduce", .dims = "m,n", .in_dims = "m,n", .out_dims = "m",                          \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE),                                     \
    .dists = GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS, .check_shape = mean_check_shape, \
    .layout = mean_layout, .flops = colsum_flops, .bytes = mean_bytes,                             \
    .make_inputs = reduce_inputs, .oracle = mean_oracle, .gauge = mean_gauge, .depth = mean_depth, \
    .order_free_depth = mean_of_depth, .expected_tier = mean_expected_tier,                        \
    .reference_ignores_mode = true, .range_degree = 1,                                             \
    .error_model = "|y-r| <= u (d_s + 2) mean|x|: gauge mean|x| a row, depth d_s + 2, the "        \
                   "row's sum (a thread's run of ceil(n/T), then a tree of log2 T) and the "       \
                   "division by n (docs/error-models.md)"

static const gv_op reduce_mean = {
    .name = "reduce.mean",
    .summary = "y = mean of each row of X (m x n; torch.mean(x, dim=-1)): one block a row",
    .default_dist = GV_DIST_UNIFORM11,
    .shapes = "4096x4096,1x10000000,65536x100",
    .test_shapes = "1x1,1x2,3x7,33x1000,7x4097,1x1000003",
    .canaries = "tiny:256x4097,huge:256x4097,sparse-special:256x4097",
    .test_canaries = "tiny:7x4097,huge:7x4097,sparse-special:7x4097",
    .device = GV_KERNEL(gk_reduce_mean),
    MEAN_COMMON,
};

/* n / (n - 1) - 1 = 1 / (n - 1) relative: 1e-3 at n = 1001, far above u (d_s + 2). */
static const gv_op reduce_mean_nminus1 = {
    .name = "reduce.mean.nminus1",
    .summary = "planted bug: the row's sum divided by n - 1",
    .planted_bug = "divisor n - 1 (the unbiased variance's) for the mean's n",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "4096x4096",
    .test_shapes = "3x7,33x1000",
    .device = GV_KERNEL(gk_reduce_mean_nminus1),
    MEAN_COMMON,
};

const gv_op *const gv_family_reduce[] = {
    &reduce_sum,         &reduce_sum_droptail, &reduce_sum_dropnan,
    &reduce_sum_racy,    &reduce_sum_rz,       &reduce_sum_onepass,
    &reduce_sum_nofence, &reduce_colsum,       &reduce_colsum_vectail,
    &reduce_mean,        &reduce_mean_nminus1, NULL};
