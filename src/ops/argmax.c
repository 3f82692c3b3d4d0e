/* argmax.c: op descriptors for reduce.argmax and reduce.argmin, the index of each row's
 * largest (smallest) value of a row-major m x n matrix (torch.argmax and torch.argmin,
 * dim=-1: the first index of the extreme, a NaN beating every number), and for reduce.max and
 * reduce.min, the value there (torch.amax and torch.amin, dim=-1: NaN where the row holds
 * one), and their planted bugs (ties kept last; NaN never the extreme). One set of hooks, the
 * direction and what is stored parameters.
 * Error model: docs/error-models.md, section reduce.argmax. */
#include <assert.h>

#include "ops/opkit.h"

extern const gk_op gk_reduce_argmax, gk_reduce_argmax_lastties, gk_reduce_argmax_nonan,
    gk_reduce_argmin, gk_reduce_argmin_lastties, gk_reduce_argmin_nonan, gk_reduce_max,
    gk_reduce_max_nonan, gk_reduce_min, gk_reduce_min_nonan;

/* The index is stored as a value of the dtype: exact below 2^24 in f32 (2^53 in f64). */
#define ARGMAX_MAX_N ((int64_t)1 << 24)

static int argmax_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[1] < 1 || s->d[1] > ARGMAX_MAX_N || s->d[0] > 2147483647 ||
        (double)s->d[0] * (double)s->d[1] > 4e9) {
        snprintf(why, len,
                 "reduce.argmax and reduce.argmin take rows of 1 to 2^24 elements (the index is "
                 "exact in f32 below 2^24), fewer than 4e9 elements and m below 2^31 (got "
                 "%lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

/* The values' ops store no index: any row length a tensor holds */
static int value_check_shape(const gv_shape *s, char *why, size_t len)
{
    if (s->d[1] < 1 || s->d[0] > 2147483647 || (double)s->d[0] * (double)s->d[1] > 4e9) {
        snprintf(why, len,
                 "reduce.max and reduce.min take rows of at least 1 element, fewer than 4e9 "
                 "elements and m below 2^31 (got %lldx%lld)",
                 (long long)s->d[0], (long long)s->d[1]);
        return GV_EINVAL;
    }
    return GV_OK;
}

static int value_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], n = c->shape.d[1];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", m * n};
    l->out[0] = (gv_tensor_spec){"y", m};
    return GV_OK;
}

static int argmax_layout(const gv_case *c, gv_layout *l)
{
    int64_t m = c->shape.d[0], n = c->shape.d[1];
    *l = (gv_layout){.n_in = 1, .n_out = 1};
    l->in[0] = (gv_tensor_spec){"x", m * n};
    l->out[0] = (gv_tensor_spec){"idx", m};
    return GV_OK;
}

/* one comparison an element */
static double argmax_flops(const gv_case *c)
{
    return (double)c->shape.d[0] * (double)c->shape.d[1];
}

static double argmax_bytes(const gv_case *c)
{
    return ((double)c->shape.d[0] * (double)c->shape.d[1] + (double)c->shape.d[0]) * gv_esize(c);
}

static int argmax_inputs(gv_problem *p)
{
    gv_fill(p, 0, p->c.dist);
    return GV_OK;
}

static int argmax_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_argmax_rows(m, n, p->in[0].ref, n, p->out[0].ref));
}

static int max_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_max_rows(m, n, p->in[0].ref, n, p->out[0].ref));
}

static int min_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_min_rows(m, n, p->in[0].ref, n, p->out[0].ref));
}

/* its own hook, so that argmin's cached reference is never argmax's (gv_reference_name) */
static int argmin_oracle(gv_problem *p)
{
    int64_t m = p->c.shape.d[0], n = p->c.shape.d[1];
    return gv_oracle_rc(go_argmin_rows(m, n, p->in[0].ref, n, p->out[0].ref));
}

/* No arithmetic: the index (the value) is exact, gauge 0, so that any other index (value) fails
   the worst-case model too (and the exact rule), after the index rule below has named the
   row. */
static int argmax_gauge(gv_problem *p)
{
    for (int64_t i = 0; i < p->out[0].count; i++)
        p->out[0].gauge[i] = 0.0;
    return GV_OK;
}

static double argmax_depth(const gv_case *c)
{
    (void)c;
    return 1.0;
}

static bool argmax_exact(const gv_case *c)
{
    (void)c;
    return true;
}

/* The index rule (docs/error-models.md, section reduce.argmax). A row's tie band is the set of
   indices whose value lies within u_in |max| of its maximum, u_in the rounding the claimed
   arithmetic applies to the inputs before it compares them: 0 in native mode (the stored
   values are compared, exactly), so the band holds the exact ties alone, where torch's rule
   (the first index) decides, and every row has one right answer. Where u_in > 0 (a mode that
   converts the inputs) an index of the band is accepted by its value. The check counts the
   rows whose index is wrong (not an integer in [0, n), or outside the rule), bound 0; the
   reason names the first with the value at the index returned beside the max, so that a
   near-tie (an ulp below: a comparison in a narrower precision) reads apart from a gross
   error. Argmin's rule is the same with the order reversed (min): the band lies above its
   minimum, and the gap is v - min. */
static void arg_measure(const gv_problem *p, gv_result *r, bool min)
{
    const char *what = min ? "argmin" : "argmax", *ext = min ? "min" : "max";
    /* literals: a result keeps the names' pointers */
    const char *key_wrong = min ? "argmin_wrong_rows" : "argmax_wrong_rows",
               *key_tied = min ? "argmin_tied_rows" : "argmax_tied_rows";
    const gv_case *c = &p->c;
    const int64_t m = c->shape.d[0], n = c->shape.d[1];
    const double u = gv_unit_roundoff(c->dtype, c->mode);
    const double u_in = c->mode == GV_MODE_NATIVE ? 0.0 : u;
    int64_t wrong = 0, first = -1, tied = 0;
    double got_first = 0, val_first = NAN;
    for (int64_t i = 0; i < m; i++) {
        const double *xr = p->in[0].ref + i * n;
        const double ref = p->out[0].ref[i];
        assert(ref >= 0 && ref < (double)n && ref == floor(ref));
        const double mx = xr[(int64_t)ref];
        bool poison;
        const double got = gv_load(p->out[0].data, c->dtype, i, &poison);
        bool ok = got == ref;
        double v = NAN;
        if (!ok && got >= 0 && got < (double)n && got == floor(got)) {
            v = xr[(int64_t)got];
            const double gap = min ? v - mx : mx - v;
            /* a near-tie accepted by value only where the inputs are rounded before the
               comparison; an exact tie (gap 0) is torch's first index or wrong */
            ok = u_in > 0 && !isnan(mx) && gap > 0 && gap <= u_in * fabs(mx);
        }
        for (int64_t j = (int64_t)ref + 1; j < n && !isnan(mx); j++)
            if (xr[j] == mx) {
                tied++;
                break;
            }
        if (!ok && wrong++ == 0) first = i, got_first = got, val_first = v;
    }
    gv_result_extra(r, key_wrong, (double)wrong);
    gv_result_extra(r, key_tied, (double)tied);
    if (wrong == 0) {
        gv_result_check(r, key_wrong, 0.0, 0.0, "every row's index right");
        return;
    }
    const double mx = p->in[0].ref[first * n + (int64_t)p->out[0].ref[first]];
    const bool is_index = got_first >= 0 && got_first < (double)n && got_first == floor(got_first);
    char got_txt[96];
    if (is_index)
        snprintf(got_txt, sizeof got_txt, "index %.0f, value %.9g", got_first, val_first);
    else
        snprintf(got_txt, sizeof got_txt, "%.9g, not an index of the row", got_first);
    gv_result_check(r, key_wrong, (double)wrong, 0.0,
                    "%s: %lld of %lld rows wrong (first row %lld: %s; the first %s at %.0f, "
                    "value %.9g)",
                    what, (long long)wrong, (long long)m, (long long)first, got_txt, ext,
                    p->out[0].ref[first], mx);
}

static void argmax_measure(const gv_problem *p, gv_result *r)
{
    arg_measure(p, r, false);
}

static void argmin_measure(const gv_problem *p, gv_result *r)
{
    arg_measure(p, r, true);
}

#define ARGMAX_DISTS (GV_ALL_DISTS | GV_BIT(GV_DIST_WIDE) | GV_EDGE_DISTS)

#define EXT_COMMON                                                                                 \
    .family = "argmax", .dims = "m,n", .in_dims = "m,n", .out_dims = "m",                          \
    .dtypes = GV_BOTH_DTYPES, .modes = GV_BIT(GV_MODE_NATIVE), .dists = ARGMAX_DISTS,              \
    .flops = argmax_flops, .bytes = argmax_bytes, .make_inputs = argmax_inputs,                    \
    .gauge = argmax_gauge, .depth = argmax_depth, .exact = argmax_exact,                           \
    .reference_ignores_mode = true, .range_degree = 1

#define ARG_COMMON EXT_COMMON, .check_shape = argmax_check_shape, .layout = argmax_layout

/* The value of the extreme: no index rule, the exact rule and NaN's placement judge it */
#define VALUE_COMMON EXT_COMMON, .check_shape = value_check_shape, .layout = value_layout

#define MAX_COMMON                                                                                 \
    VALUE_COMMON,                                                                                  \
        .oracle = max_oracle,                                                                      \
        .error_model = "y = r exactly: comparisons never round; NaN where the row holds one, as "  \
                       "torch.amax (docs/error-models.md, reduce.argmax)"

#define MIN_COMMON                                                                                 \
    VALUE_COMMON,                                                                                  \
        .oracle = min_oracle,                                                                      \
        .error_model = "y = r exactly: comparisons never round; NaN where the row holds one, as "  \
                       "torch.amin (docs/error-models.md, reduce.argmax)"

#define ARGMAX_COMMON                                                                              \
    ARG_COMMON,                                                                                    \
        .oracle = argmax_oracle, .measure = argmax_measure,                                        \
        .error_model = "idx = r exactly: comparisons never round; ties and NaN as torch.argmax "   \
                       "(the first index; NaN the largest) (docs/error-models.md)"

#define ARGMIN_COMMON                                                                              \
    ARG_COMMON,                                                                                    \
        .oracle = argmin_oracle, .measure = argmin_measure,                                        \
        .error_model = "idx = r exactly: comparisons never round; ties and NaN as torch.argmin "   \
                       "(the first index; a NaN wins) (docs/error-models.md)"

static const gv_op reduce_argmax = {
    .name = "reduce.argmax",
    .summary = "idx = the first index of each row's largest value, NaN the largest "
               "(torch.argmax(x, dim=-1)): one block a row",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "4096x4095,128x65536",
    .test_shapes = "1x1,3x7,33x100,16x1000,7x1025,2x65536",
    .canaries = "smallint:4096x4095,special:4096x4095,sparse-special:4096x4095",
    .test_canaries = "smallint:33x100,special:33x100,sparse-special:16x1000,wide:16x1000",
    .device = GV_KERNEL(gk_reduce_argmax),
    ARGMAX_COMMON,
};

/* integers in [-8, 8]: the max of a row of 100 recurs, the last of them is not the first */
static const gv_op reduce_argmax_lastties = {
    .name = "reduce.argmax.lastties",
    .summary = "planted bug: a tie keeps the later index (>= for >), where torch keeps the first",
    .planted_bug = "ties resolved to the last index: rows whose max recurs get a later index",
    .default_dist = GV_DIST_SMALLINT,
    .shapes = "4096x4095",
    .test_shapes = "33x100,16x1000",
    .device = GV_KERNEL(gk_reduce_argmax_lastties),
    ARGMAX_COMMON,
};

/* one value in 8 special, NaN among them: most rows of 100 hold a NaN */
static const gv_op reduce_argmax_nonan = {
    .name = "reduce.argmax.nonan",
    .summary = "planted bug: a NaN never wins (fmax's rule), where torch.argmax returns the NaN",
    .planted_bug = "NaN skipped: rows holding a NaN get the largest number's index",
    .default_dist = GV_DIST_SPECIAL,
    .shapes = "4096x4095",
    .test_shapes = "33x100,16x1000",
    .device = GV_KERNEL(gk_reduce_argmax_nonan),
    ARGMAX_COMMON,
};

static const gv_op reduce_argmin = {
    .name = "reduce.argmin",
    .summary = "idx = the first index of each row's smallest value, a NaN winning "
               "(torch.argmin(x, dim=-1)): argmax's kernel, the order reversed",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "4096x4095,128x65536",
    .test_shapes = "1x1,3x7,33x100,16x1000,7x1025,2x65536",
    .canaries = "smallint:4096x4095,special:4096x4095,sparse-special:4096x4095",
    .test_canaries = "smallint:33x100,special:33x100,sparse-special:16x1000,wide:16x1000",
    .device = GV_KERNEL(gk_reduce_argmin),
    ARGMIN_COMMON,
};

/* integers in [-8, 8]: the min of a row of 100 recurs, the last of them is not the first */
static const gv_op reduce_argmin_lastties = {
    .name = "reduce.argmin.lastties",
    .summary = "planted bug: a tie keeps the later index (<= for <), where torch keeps the first",
    .planted_bug = "ties resolved to the last index: rows whose min recurs get a later index",
    .default_dist = GV_DIST_SMALLINT,
    .shapes = "4096x4095",
    .test_shapes = "33x100,16x1000",
    .device = GV_KERNEL(gk_reduce_argmin_lastties),
    ARGMIN_COMMON,
};

/* one value in 8 special, NaN among them: most rows of 100 hold a NaN */
static const gv_op reduce_argmin_nonan = {
    .name = "reduce.argmin.nonan",
    .summary = "planted bug: a NaN never wins (fmin's rule), where torch.argmin returns the NaN",
    .planted_bug = "NaN skipped: rows holding a NaN get the smallest number's index",
    .default_dist = GV_DIST_SPECIAL,
    .shapes = "4096x4095",
    .test_shapes = "33x100,16x1000",
    .device = GV_KERNEL(gk_reduce_argmin_nonan),
    ARGMIN_COMMON,
};

static const gv_op reduce_max = {
    .name = "reduce.max",
    .summary = "y = each row's largest value, NaN where the row holds one (torch.amax(x, "
               "dim=-1)): argmax's kernel storing the value",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "4096x4095,128x65536",
    .test_shapes = "1x1,3x7,33x100,16x1000,7x1025,2x65536",
    .canaries = "special:4096x4095,sparse-special:4096x4095",
    .test_canaries = "special:33x100,sparse-special:16x1000,wide:16x1000",
    .device = GV_KERNEL(gk_reduce_max),
    MAX_COMMON,
};

/* one value in 8 special, NaN among them: most rows of 100 hold a NaN */
static const gv_op reduce_max_nonan = {
    .name = "reduce.max.nonan",
    .summary = "planted bug: a NaN never wins (fmax's rule), where torch.amax returns NaN",
    .planted_bug = "NaN skipped: rows holding a NaN get their largest number",
    .default_dist = GV_DIST_SPECIAL,
    .shapes = "4096x4095",
    .test_shapes = "33x100,16x1000",
    .device = GV_KERNEL(gk_reduce_max_nonan),
    MAX_COMMON,
};

static const gv_op reduce_min = {
    .name = "reduce.min",
    .summary = "y = each row's smallest value, NaN where the row holds one (torch.amin(x, "
               "dim=-1)): argmin's kernel storing the value",
    .default_dist = GV_DIST_UNIFORM01,
    .shapes = "4096x4095,128x65536",
    .test_shapes = "1x1,3x7,33x100,16x1000,7x1025,2x65536",
    .canaries = "special:4096x4095,sparse-special:4096x4095",
    .test_canaries = "special:33x100,sparse-special:16x1000,wide:16x1000",
    .device = GV_KERNEL(gk_reduce_min),
    MIN_COMMON,
};

static const gv_op reduce_min_nonan = {
    .name = "reduce.min.nonan",
    .summary = "planted bug: a NaN never wins (fmin's rule), where torch.amin returns NaN",
    .planted_bug = "NaN skipped: rows holding a NaN get their smallest number",
    .default_dist = GV_DIST_SPECIAL,
    .shapes = "4096x4095",
    .test_shapes = "33x100,16x1000",
    .device = GV_KERNEL(gk_reduce_min_nonan),
    MIN_COMMON,
};

const gv_op *const gv_family_argmax[] = {&reduce_argmax,
                                         &reduce_argmax_lastties,
                                         &reduce_argmax_nonan,
                                         &reduce_argmin,
                                         &reduce_argmin_lastties,
                                         &reduce_argmin_nonan,
                                         &reduce_max,
                                         &reduce_max_nonan,
                                         &reduce_min,
                                         &reduce_min_nonan,
                                         NULL};
