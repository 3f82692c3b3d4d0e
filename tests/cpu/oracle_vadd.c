/* oracle_vadd.c: the vadd oracle (oracle/vadd.c) against long double sums, its gauge
 * |a| + |b|, its argument checks, and the vadd op descriptors' facts (depth, tensor counts,
 * modes, the planted variant). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "gen.h"
#include "go.h"
#include "registry.h"
#include "testkit.h"

static void check_sum(int64_t n, gv_dtype inputs)
{
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    double *c = malloc((size_t)n * sizeof *c), *g = malloc((size_t)n * sizeof *g);
    cr_assert(a && b && c && g);
    gv_gen_fill(a, n, GV_DIST_UNIFORM11, inputs, 5, 0);
    gv_gen_fill(b, n, GV_DIST_UNIFORM11, inputs, 5, 1);
    cr_assert_eq(go_vadd(n, a, b, c), 0);
    cr_assert_eq(go_vadd_gauge(n, a, b, g), 0);
    long double e = 0, r = 0;
    for (int64_t i = 0; i < n; i++) {
        long double want = (long double)a[i] + b[i]; /* exact: 64 bits hold any f64 sum here */
        long double d = c[i] - want;
        e += d * d;
        r += want * want;
        /* inputs rounded to f32 add exactly in f64 (24-bit operands within a factor 2^29
           of each other): the oracle then has no error at all */
        if (inputs == GV_F32) cr_expect(c[i] == want, "f32 inputs: c[%ld] inexact", (long)i);
        cr_expect(g[i] >= fabs(c[i]), "gauge below |c| at %ld", (long)i);
        long double gw = fabsl((long double)a[i]) + fabsl((long double)b[i]);
        cr_expect(fabsl(g[i] - gw) <= 1e-14L * gw, "gauge at %ld", (long)i);
    }
    cr_expect(sqrtl(e) <= 1e-14L * sqrtl(r), "n = %ld: normwise %Lg", (long)n, sqrtl(e / r));
    free(a);
    free(b);
    free(c);
    free(g);
}

Test(oracle_vadd, matches_long_double)
{
    check_sum(1, GV_F64);
    check_sum(17, GV_F64);
    check_sum(4099, GV_F64);
    check_sum(4099, GV_F32);
}

Test(oracle_vadd, bad_arguments_name_their_index)
{
    double a[2] = {1, 2}, b[2] = {3, 4}, c[2];
    cr_expect_eq(go_vadd(-1, a, b, c), -1);
    cr_expect_eq(go_vadd(2, NULL, b, c), -2);
    cr_expect_eq(go_vadd(2, a, NULL, c), -3);
    cr_expect_eq(go_vadd(2, a, b, NULL), -4);
    cr_expect_eq(go_vadd_gauge(-1, a, b, c), -1);
    cr_expect_eq(go_vadd_gauge(2, NULL, b, c), -2);
    cr_expect_eq(go_vadd_gauge(2, a, NULL, c), -3);
    cr_expect_eq(go_vadd_gauge(2, a, b, NULL), -4);
    cr_expect_eq(go_vadd(0, a, b, c), 0);
    cr_expect_eq(go_vadd(2, a, b, c), 0);
    cr_expect_eq(c[1], 6.0);
}

Test(oracle_vadd, descriptor_facts)
{
    const gv_op *op = gv_op_find("vadd"), *bug = gv_op_find("vadd.f32round");
    cr_assert(op && bug);
    gv_case c = {op, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {1, {4099}}, 0};
    gv_layout l;
    cr_assert_eq(op->layout(&c, &l), GV_OK);
    cr_expect_eq(l.n_in, 2);
    cr_expect_eq(l.n_out, 1);
    cr_expect_eq(l.in[0].count, 4099);
    cr_expect_eq(l.in[1].count, 4099);
    cr_expect_eq(l.out[0].count, 4099);
    /* one correctly rounded addition: depth 1 whatever n */
    cr_expect_eq(op->depth(&c), 1.0);
    c.shape.d[0] = 100000000;
    cr_expect_eq(op->depth(&c), 1.0);
    cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE));
    cr_expect(gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
    cr_expect_not(gv_mode_ok(op, GV_F32, GV_MODE_TF32));
    cr_expect_not_null(bug->planted_bug);
    /* signed inputs by default: sums cancel (the tier analysis in src/ops/vadd.c) */
    cr_expect_eq(op->default_dist, GV_DIST_UNIFORM11);
    cr_expect_eq(bug->default_dist, GV_DIST_UNIFORM11);
    cr_expect_not(gv_mode_ok(bug, GV_F32, GV_MODE_NATIVE), "the planted variant is f64 only");
    char why[256];
    gv_shape three = {3, {2, 2, 2}};
    cr_expect_not(gv_shape_ok(op, &three, why, sizeof why));
}

/* past one 1024-thread block and not a multiple of 4 (so of 8 or 32 either): the vector
 * loads' and the last block's tails */
static bool ragged_length(const gv_shape *s)
{
    return s->d[0] > 1024 && s->d[0] % 4 != 0;
}

Test(oracle_vadd, catalogues_have_ragged_lengths)
{
    for (int t = 0; t < 2; t++)
        cr_expect_gt(gv_test_catalogue_count("vadd", t, ragged_length), 0,
                     "vadd %s: no n > 1024 that is not a multiple of 4",
                     t ? "test_shapes" : "shapes");
}
