/* oracle_vadd.c: the vadd oracle (oracle/vadd.c) against long double sums, its gauge
 * |a| + |b|, and its argument checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/gen.h"
#include "go.h"

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
